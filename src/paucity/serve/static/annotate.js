// The annotators' page: one pair at a time, answered with the keys 0-9 or skipped with s. No library.
"use strict";
(function () {
  const { headers, withToken, api, $ } = window.paucity;
  const params = new URLSearchParams(window.location.search);
  let annotator = params.get("annotator") || window.localStorage.getItem("paucity-annotator");
  let current = null;     // the pair on view
  let sending = false;
  let retry = null;

  function say(text, isError) { $("status").textContent = text; $("status").className = isError ? "error" : ""; }

  function fill(figure, item) {
    const img = figure.querySelector("img");
    if (item.image) { img.hidden = false; img.src = withToken(item.image); img.alt = item.name; }
    else { img.hidden = true; img.removeAttribute("src"); }
    figure.querySelector("figcaption").textContent = item.name;
    figure.querySelector(".text").textContent = item.text || "";
    figure.dataset.item = item.name;
  }

  function show(data) {
    clearTimeout(retry);
    $("who").textContent = `${data.annotator} · ${data.n_answered} answered`;
    if (data.status === "pair") {
      current = data.pair;
      fill($("item-i"), data.pair.i);
      fill($("item-j"), data.pair.j);
      $("task").hidden = false;
      document.body.dataset.pair = data.pair.i.name + "|" + data.pair.j.name;
      return;
    }
    current = null;
    $("task").hidden = true;
    document.body.dataset.pair = "";
    if (data.status === "done") { say("All pairs are answered: thank you!"); document.body.dataset.done = "true"; }
    else { say("Every waiting pair is with another annotator; this page asks again in a few seconds."); retry = setTimeout(load, 3000); }
  }

  async function load() {
    try { show(await api("api/next?annotator=" + encodeURIComponent(annotator))); }
    catch (error) { say(error.message, true); }
  }

  async function send(path, extra) {
    if (!current || sending) return;
    sending = true;
    const body = Object.assign({ annotator, i: current.i.name, j: current.j.name }, extra);
    try { show(await api(path, body)); say(path.endsWith("skip") ? "Skipped." : "Saved."); }
    catch (error) { say(error.message, true); load(); }
    finally { sending = false; }
  }

  function start() {
    window.localStorage.setItem("paucity-annotator", annotator);
    $("login").hidden = true;
    load();
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (let k = 0; k <= 9; k++) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = String(k); b.dataset.value = String(k); b.title = "similarity " + k + " of 9";
      b.addEventListener("click", () => send("api/answer", { value: k }));
      $("buttons").append(b);
    }
    $("skip").addEventListener("click", () => send("api/skip", {}));
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "INPUT" || event.ctrlKey || event.metaKey || event.altKey) return;
      if (/^[0-9]$/.test(event.key)) send("api/answer", { value: parseInt(event.key, 10) });
      else if (event.key === "s" || event.key === "S") send("api/skip", {});
    });
    $("login").addEventListener("submit", (event) => {
      event.preventDefault();
      annotator = $("annotator").value.trim();
      if (annotator) start();
    });
    window.addEventListener("pagehide", () => {  // the pair on screen goes back to the others at once
      if (annotator && current) {
        fetch(withToken("api/release"), { method: "POST", headers, body: JSON.stringify({ annotator }), keepalive: true });
      }
    });
    if (annotator) start(); else { $("login").hidden = false; $("annotator").focus(); }
    document.body.dataset.ready = "true";
  });
})();
