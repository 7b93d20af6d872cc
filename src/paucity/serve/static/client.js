// What every page of paucity serve shares: the access token, JSON requests to its own server, request keys, and $.
// Loaded before the page's own script; no library.
"use strict";
window.paucity = (function () {
  const token = new URLSearchParams(window.location.search).get("token");
  const headers = { "content-type": "application/json" };
  if (token) headers["x-paucity-token"] = token;

  function withToken(path) {
    return token ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : path;
  }

  // A request key: 128 random bits as 32 hex digits. crypto.getRandomValues exists on a plain-HTTP address too
  // (crypto.randomUUID does not), so keys stay unique on a lab network's http://10.x.y.z page.
  function newKey() {
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // A time the server gave (ISO 8601, or seconds since the epoch) as the reader's local date and time.
  function localTime(value) {
    if (value === null || value === undefined || value === "") return "—";
    const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
    return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
  }

  // An error the server answered (it is reachable; the request was refused, with its status and JSON body)
  // or a network failure (it is not: fetch throws a TypeError).
  class ServerError extends Error {
    constructor(message, status, data) { super(message); this.status = status; this.data = data; }
  }

  // GET without a body, POST with one; signal (an AbortSignal) cancels the request.
  async function api(path, body, signal) {
    const options = body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) };
    if (signal) options.signal = signal;
    const response = await fetch(withToken(path), options);
    let data = {};
    try { data = await response.json(); } catch (error) { data = { error: response.statusText }; }
    if (!response.ok) throw new ServerError(data.error || response.statusText, response.status, data);
    return data;
  }

  return { token, headers, withToken, newKey, localTime, api, ServerError, $: (id) => document.getElementById(id) };
})();
