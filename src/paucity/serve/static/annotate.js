// The annotators' page: instructions, then one pair at a time, answered with the keys 0-9 or skipped with s.
// An answer carries a random key: when the server cannot be reached the page says the answer is not saved yet and
// sends it again, with the same key, after 1, 2, 4 ... 30 seconds; the server records it once. No library.
"use strict";
(function () {
  const { headers, withToken, api, ServerError, $ } = window.paucity;
  const params = new URLSearchParams(window.location.search);
  let annotator = null;     // the name this page answers as (a personal link: the server says it)
  let open = false;         // an open server: the annotator types their name
  let current = null;       // the pair on view
  let busy = false;         // an answer or a skip on its way: further keys are ignored
  let waitTimer = null;
  let helpShown = false;

  function say(text, kind) { $("status").textContent = text; $("status").className = kind || ""; }
  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID().replace(/-/g, "");
    return Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
  }
  function whoQuery() { return !window.paucity.token && annotator ? "?annotator=" + encodeURIComponent(annotator) : ""; }
  function named(body) { return open ? Object.assign({ annotator }, body) : body; }

  function fill(figure, item) {
    const img = figure.querySelector("img");
    if (item.image) { img.hidden = false; img.src = withToken(item.image); img.alt = item.name; }
    else { img.hidden = true; img.removeAttribute("src"); img.alt = ""; }
    figure.querySelector("figcaption").textContent = item.name;
    figure.querySelector(".text").textContent = item.text || "";
    figure.dataset.item = item.name;
  }

  function setBusy(value) {
    busy = value;
    document.querySelectorAll("#buttons button, #skip").forEach((b) => { b.disabled = value; });
    document.body.dataset.busy = value ? "true" : "false";
  }

  function show(data) {
    clearTimeout(waitTimer);
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
    else if (data.status === "paused") {
      say("The coordinator has paused your work for now; this page checks again every 15 seconds.");
      waitTimer = setTimeout(next, 15000);
    } else {
      say("Every waiting pair is with another annotator; this page asks again in a few seconds.");
      waitTimer = setTimeout(next, 3000);
    }
  }

  // Send a request until the server answers: on a network failure, say so and try again with back-off.
  async function reliably(path, body, pending) {
    let delay = 1000;
    for (let attempt = 1; ; attempt++) {
      try { return await api(path, body); }
      catch (error) {
        if (error instanceof ServerError) throw error;
        const seconds = Math.round(delay / 1000);
        say(`${pending} The server cannot be reached; trying again in ${seconds} s (attempt ${attempt}).`, "error");
        document.body.dataset.offline = "true";
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 30000);
      }
    }
  }

  async function next() {
    try { show(await reliably("api/next", named({}), "")); delete document.body.dataset.offline; }
    catch (error) { say(error.message, "error"); }
  }

  async function send(path, extra, doneText) {
    if (!current || busy) return;
    setBusy(true);
    $("task").focus();  // off the buttons: a second Space or Enter cannot answer the next pair
    const body = named(Object.assign({ i: current.i.name, j: current.j.name, key: newKey() }, extra));
    const pending = path.endsWith("skip") ? "The skip is not sent yet." : "Your last answer is not saved yet.";
    say(path.endsWith("skip") ? "Skipping…" : "Saving…");
    try {
      const data = await reliably(path, body, pending);
      delete document.body.dataset.offline;
      show(data);
      say(doneText);
    } catch (error) { say(error.message + " Nothing was saved for that pair.", "error"); next(); }
    finally { setBusy(false); if (!$("task").hidden) $("task").focus(); }
  }

  function showHelp(data) {
    $("instructions").innerHTML = data.instructions || "";   // rendered by the server, raw HTML shown as text
    const examples = $("examples");
    examples.replaceChildren();
    if (data.examples && data.examples.length) {
      const h = document.createElement("h3"); h.textContent = "Examples"; examples.append(h);
      const list = document.createElement("ul");
      data.examples.forEach((e) => {
        const li = document.createElement("li");
        li.textContent = `${e.i.name} and ${e.j.name}: ${e.answer}` + (e.note ? ` (${e.note})` : "");
        list.append(li);
      });
      examples.append(list);
    }
    $("show-help").hidden = !(data.instructions || (data.examples && data.examples.length));
  }

  function openHelp() { $("help").hidden = false; $("task").hidden = true; $("start").focus(); }

  async function begin() {
    let data;
    try { data = await reliably("api/me" + whoQuery(), undefined, ""); }
    catch (error) { say(error.message, "error"); return; }
    if (data.role === "coordinator") { say("This is the coordinator's link: open an annotator's link to answer.", "error"); return; }
    open = data.open;
    if (!data.annotator) {
      $("login").hidden = false; $("annotator").focus(); $("change-name").hidden = true; return;
    }
    annotator = data.annotator;
    $("login").hidden = true;
    $("change-name").hidden = !open;
    $("who").textContent = `${annotator} · ${data.n_answered} answered`;
    showHelp(data);
    if (!$("show-help").hidden && !helpShown && data.n_answered === 0) { helpShown = true; openHelp(); return; }
    next();
  }

  document.addEventListener("DOMContentLoaded", () => {
    const ends = ["not at all", "", "", "", "", "", "", "", "", "the same"];
    for (let k = 0; k <= 9; k++) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = String(k); b.dataset.value = String(k);
      b.setAttribute("aria-label", `${k} of 9` + (ends[k] ? `: ${ends[k]}` : ""));
      b.addEventListener("click", () => send("api/answer", { value: k }, "Saved."));
      $("buttons").append(b);
    }
    $("skip").addEventListener("click", () => send("api/skip", {}, "Skipped."));
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "INPUT" || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      if ($("task").hidden) return;
      if (/^[0-9]$/.test(event.key)) { event.preventDefault(); send("api/answer", { value: parseInt(event.key, 10) }, "Saved."); }
      else if (event.key === "s" || event.key === "S") { event.preventDefault(); send("api/skip", {}, "Skipped."); }
    });
    $("login").addEventListener("submit", (event) => {
      event.preventDefault();
      const name = $("annotator").value.trim();
      if (!name) return;
      window.sessionStorage.setItem("paucity-annotator", name);
      annotator = name;
      begin();
    });
    $("change-name").addEventListener("click", () => {
      fetch(withToken("api/release"), { method: "POST", headers, body: JSON.stringify(named({})), keepalive: true });
      window.sessionStorage.removeItem("paucity-annotator");
      annotator = null; current = null;
      $("task").hidden = true; $("help").hidden = true; $("who").textContent = ""; say("");
      $("annotator").value = ""; $("login").hidden = false; $("change-name").hidden = true; $("annotator").focus();
    });
    $("show-help").addEventListener("click", openHelp);
    $("start").addEventListener("click", () => { $("help").hidden = true; next(); });
    window.addEventListener("pagehide", () => {  // the pair on screen goes back to the others at once
      if (annotator && current) {
        fetch(withToken("api/release"), { method: "POST", headers, body: JSON.stringify(named({})), keepalive: true });
      }
    });
    annotator = params.get("annotator") || window.sessionStorage.getItem("paucity-annotator");
    begin();
    document.body.dataset.ready = "true";
  });
})();
