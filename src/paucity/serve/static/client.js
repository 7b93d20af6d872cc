// What every page of paucity serve shares: the access token, JSON requests to its own server, and $.
// Loaded before the page's own script; no library.
"use strict";
window.paucity = (function () {
  const token = new URLSearchParams(window.location.search).get("token");
  const headers = { "content-type": "application/json" };
  if (token) headers["x-paucity-token"] = token;

  function withToken(path) {
    return token ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : path;
  }

  async function api(path, body) {
    const options = body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) };
    const response = await fetch(withToken(path), options);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  }

  return { token, headers, withToken, api, $: (id) => document.getElementById(id) };
})();
