// The annotators' page: instructions, then one pair at a time, answered with the keys 0-9 or skipped with s.
// An answer carries a random key (paucity.newKey): when the server cannot be reached the page says the answer is not
// saved yet and sends it again, with the same key, after 1, 2, 4 ... 30 seconds; the server records it once.
// After an answer to a gold pair the session may tell the answer that was expected: shown in #feedback, a live
// region, until the next answer or for 20 seconds, while the next pair is already on screen. No library.
"use strict";
(function () {
  const { headers, withToken, newKey, api, ServerError, $ } = window.paucity;
  const params = new URLSearchParams(window.location.search);
  let annotator = null;     // the name this page answers as (a personal link: the server says it)
  let open = false;         // an open server: the annotator types their name
  let current = null;       // the pair on view
  let busy = false;         // an answer or a skip on its way: further keys are ignored
  let waitTimer = null;
  let helpShown = false;
  let feedbackTimer = null;

  function say(text, kind) { $("status").textContent = text; $("status").className = kind || ""; }
  // The expected answer to the gold pair just answered: shown for a while, never in the way of the next pair.
  function showFeedback(feedback) {
    clearTimeout(feedbackTimer);
    $("feedback").textContent = feedback
      ? `The expected answer to the last pair (${feedback.i} and ${feedback.j}) was ${feedback.expected}; ` +
        `you gave ${feedback.given}.`
      : "";
    if (feedback) feedbackTimer = setTimeout(() => { $("feedback").textContent = ""; }, 20000);
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

  // The pair to answer, or why there is none; before: what the page says first (an answer just saved).
  function show(data, before) {
    clearTimeout(waitTimer);
    const tell = (text) => say(before ? `${before} ${text}` : text);
    $("who").textContent = `${data.annotator} · ${data.n_answered} answered`;
    const was = document.body.dataset.status;
    document.body.dataset.status = data.status;
    if (data.status === "pair") {
      if (!before && was && was !== "pair") say("");  // back to work: the waiting or paused line goes
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
    if (data.status === "done") { tell("All pairs are answered: thank you!"); document.body.dataset.done = "true"; }
    else if (data.status === "quota") { tell("You have answered your share — thank you!"); }
    else if (data.status === "paused") {
      tell((data.reason ? `Your work is on hold — ${data.reason}.` : "The coordinator has paused your work for now.") +
          " This page checks again every 15 seconds.");
      waitTimer = setTimeout(next, 15000);
    } else {
      tell("Every waiting pair is with another annotator; this page asks again in a few seconds.");
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
    showFeedback(null);
    $("task").focus();  // off the buttons: a second Space or Enter cannot answer the next pair
    const body = named(Object.assign({ i: current.i.name, j: current.j.name, key: newKey() }, extra));
    const pending = path.endsWith("skip") ? "The skip is not sent yet." : "Your last answer is not saved yet.";
    say(path.endsWith("skip") ? "Skipping…" : "Saving…");
    try {
      const data = await reliably(path, body, pending);
      delete document.body.dataset.offline;
      show(data, doneText);
      if (data.status === "pair") say(doneText);
      showFeedback(data.feedback);
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
      list.className = "examples";
      data.examples.forEach((e) => {
        const li = document.createElement("li");
        const pictures = [e.i, e.j].map((item) => {
          if (!item.image) {  // the other item has a picture: this one is shown by its text, or its name
            const box = document.createElement("span"); box.className = "no-picture";
            box.textContent = item.text || item.name;
            return box;
          }
          const img = document.createElement("img");
          img.src = withToken(item.image); img.alt = item.name; img.loading = "lazy";
          return img;
        });
        if (e.i.image || e.j.image) {
          const row = document.createElement("span"); row.className = "pictures"; row.append(...pictures);
          li.append(row);
        }
        const text = document.createElement("span");
        text.textContent = `${e.i.name} and ${e.j.name}: ${e.answer}` + (e.note ? ` (${e.note})` : "");
        li.append(text);
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
