// The marker explorer page: a thin client of the JSON API (see docs/web.md). No library, no network beyond this server.
"use strict";
(function () {
  const { withToken, api, ServerError, $ } = window.paucity;
  const POLL_MS = 2000;   // how often the page asks whether another tab changed the selection
  let state = null;       // the last state the server sent
  let shown = null;       // the gene whose pictures are on view
  let busy = false;
  let cvRequest = null;   // the cross-validation request in flight (an AbortController)
  let explainRequest = null;
  let gone = false;       // the server stopped answering

  // ------------------------------------------------------------- settled: every change's last fetch and picture done
  // body[data-settled] is "false" while a request or a picture that a person's action started is on its way, and
  // "true" once the last one is in and drawn; body[data-settled-count] counts the times it settled (tests and the
  // benchmark wait for a count above the one they saw before acting).
  let pending = 0;
  let settledCount = 0;
  const loading = new Map();  // picture element -> the address it is loading

  function begin() {
    pending += 1;
    document.body.dataset.settled = "false";
  }

  function end() {
    pending -= 1;
    if (pending > 0) return;
    const later = document.hidden ? (f) => setTimeout(f, 0) : requestAnimationFrame;  // a hidden tab draws no frames
    later(() => {  // after the frame that draws the last change
      if (pending > 0 || document.body.dataset.settled === "true") return;
      settledCount += 1;
      document.body.dataset.settledCount = String(settledCount);
      document.body.dataset.settled = "true";
    });
  }

  // A request whose answer the screen waits for.
  function tracked(promise) {
    begin();
    return promise.finally(end);
  }

  // Point a picture at an address, counting it as pending until it is drawn (or failed).
  function picture(img, src) {
    const address = new URL(src, document.baseURI).href;
    if (img.src === address && img.complete) return;
    if (!loading.has(img)) {
      begin();
      const done = () => {
        if (loading.get(img) !== img.src) return;  // an earlier address's answer: the newer one is awaited
        loading.delete(img);
        img.removeEventListener("load", done);
        img.removeEventListener("error", done);
        end();
      };
      img.addEventListener("load", done);
      img.addEventListener("error", done);
    }
    loading.set(img, address);
    img.src = address;
  }

  // ------------------------------------------------------------- a server that stopped
  // fetch throws a TypeError when nothing answers (the server stopped or the machine is away); ServerError is an
  // answer, and AbortError a request the page itself dropped.
  function unreachable(error) {
    return !(error instanceof ServerError) && error.name !== "AbortError";
  }

  function serverGone() {
    gone = true;
    const banner = $("server-gone");
    const journal = state && state.journal ? state.journal.file : null;
    $("server-gone-text").textContent = "The explorer's server has stopped: this page can no longer reach it. " +
      (journal && !(state.journal.error)
        ? "Your selection is not lost: every change was written to " + journal + " beside the data file, and the " +
          "server takes it up when it starts again."
        : "Changes since the last save may be lost.") +
      " Start it again with the command below, then open the address it prints (with its new token).";
    $("server-gone-command").textContent = state && state.restart ? state.restart :
      "paucity serve markers FILE.h5ad --groupby COLUMN";
    banner.hidden = false;
    say("The server has stopped; see above how to start it again.", true);
  }

  function serverBack() {
    if (!gone) return;
    gone = false;
    $("server-gone").hidden = true;
  }

  function failed(error) {
    if (unreachable(error)) serverGone();
    else say(error.message, true);
  }

  function say(text, isError) {
    const message = $("message");
    message.textContent = text;
    message.className = isError ? "error" : "";
  }

  function number(x) { return x === null || x === undefined || Number.isNaN(x) ? "—" : x.toFixed(3); }

  function element(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // A button; focus names it so that focus can be put back on it (or on its like) after the page is drawn again.
  function button(label, title, focus, onClick) {
    const b = element("button", "", label);
    b.type = "button";
    if (title) b.setAttribute("aria-label", title);
    if (title) b.title = title;
    b.dataset.focus = focus;
    b.addEventListener("click", onClick);
    return b;
  }

  // A gene's name as a button that opens its plots and the make-up of its score.
  function geneButton(gene, where, note) {
    const b = button(gene, "show " + gene + (note ? " (" + note + ")" : ""), "show-" + where + ":" + gene, () => show(gene));
    b.className = "gene-link";
    b.setAttribute("aria-label", "show " + gene);
    return b;
  }

  // ------------------------------------------------------------- focus
  // Where focus was when a person acted: its name, and its kind's place in its list.
  function focusPlace() {
    const active = document.activeElement;
    if (!active || !active.dataset || !active.dataset.focus) return null;
    const kind = active.dataset.focus.split(":")[0];
    const list = active.closest("[data-list]");
    const alike = list ? Array.from(list.querySelectorAll(`[data-focus^="${kind}:"]`)) : [];
    return { name: active.dataset.focus, kind, list: list && list.dataset.list, index: alike.indexOf(active) };
  }

  // Put focus back: on the same control when it is still there, else on its like at the same place in the list
  // (the next candidate's Add after an Add), else on the list's heading.
  function restoreFocus(place) {
    if (!place) return;
    const usable = (e) => e && !e.disabled && !e.hidden;
    let target = Array.from(document.querySelectorAll("[data-focus]")).find((e) => e.dataset.focus === place.name);
    if (!usable(target) && place.kind.startsWith("move")) {  // moved to an end: the other arrow, else its name
      const gene = place.name.slice(place.name.indexOf(":") + 1);
      const other = (place.kind === "move-up" ? "move-down:" : "move-up:") + gene;
      const row = Array.from(document.querySelectorAll("#selection [data-focus]"));
      target = row.find((e) => usable(e) && e.dataset.focus === other) ||
        row.find((e) => usable(e) && e.dataset.focus === "show-selected:" + gene);
    }
    if (!usable(target) && place.list) {
      const list = document.querySelector(`[data-list="${place.list}"]`);
      const alike = list ? Array.from(list.querySelectorAll(`[data-focus^="${place.kind}:"]`)).filter(usable) : [];
      target = alike[Math.min(Math.max(place.index, 0), alike.length - 1)];
      if (!usable(target)) target = place.list === "selection" ? $("selection-title") : $("candidates-title");
    }
    if (target && document.activeElement !== target) target.focus();
  }

  // ------------------------------------------------------------- requests
  async function act(path, body, done) {
    if (busy) return;
    busy = true;
    begin();
    const place = focusPlace();
    try {
      const data = await api(path, body);
      serverBack();
      render(data.state);
      restoreFocus(place);
      if (done) done(data.result, data.state);
    } catch (error) {
      failed(error);
    } finally {
      busy = false;
      end();
    }
  }

  async function refresh(note) {
    const place = focusPlace();
    render(await tracked(api("api/state")));
    restoreFocus(place);
    if (note) say(note);
  }

  function crossValidate() {
    if (cvRequest) cvRequest.abort();  // only the newest question is worth the wait
    const request = new AbortController();
    cvRequest = request;
    $("cv").textContent = "Cross-validated error: computing…";
    tracked(api("api/cv", undefined, request.signal)).then((cv) => {
      if (cvRequest !== request || cv.superseded) return;
      $("cv").textContent = "Cross-validated error (" + cv.classifier + ", " + cv.n_folds + " folds): " +
        (cv.error_rate === null ? "—" : (100 * cv.error_rate).toFixed(1) + "%");
    }).catch((error) => {
      if (error.name !== "AbortError" && cvRequest === request) $("cv").textContent = "Cross-validated error: —";
    });
  }

  // ------------------------------------------------------------- the gene on view
  function show(gene) {
    begin();  // a click on a gene settles once its pictures and explanation are in (at once when nothing is asked)
    try { showGene(gene); } finally { end(); }
  }

  function showGene(gene) {
    const changed = gene !== shown;
    shown = gene;
    $("gene-name").textContent = gene || "—";
    document.querySelectorAll("#candidates tbody tr").forEach((tr) => tr.classList.toggle("shown", tr.dataset.gene === gene));
    document.querySelectorAll("#selection li").forEach((li) => li.classList.toggle("shown", li.dataset.gene === gene));
    if (!gene) return;
    if (changed || !$("box").src) {
      picture($("box"), withToken("api/plot/box.svg?gene=" + encodeURIComponent(gene)));
      $("box").alt = "expression of " + gene + " by group";
      const embedding = $("embedding");
      embedding.hidden = false;
      embedding.onerror = () => { embedding.hidden = true; };
      picture(embedding, withToken("api/plot/embedding.svg?gene=" + encodeURIComponent(gene)));
      embedding.alt = "cells coloured by the expression of " + gene;
    }
    explain(gene);
  }

  function explain(gene) {
    if (explainRequest) explainRequest.abort();
    const table = $("explain-table"), note = $("explain-note");
    const selected = state.selection.find((s) => s.gene === gene);
    if (selected) {
      explainRequest = null;
      table.hidden = true;
      $("explain-title").textContent = "Why this score";
      note.textContent = gene + " is selected: it scored " + number(selected.score) + " bits under " +
        state.method.toUpperCase() + " when it was added.";
      return;
    }
    const request = new AbortController();
    explainRequest = request;
    tracked(api("api/explain?gene=" + encodeURIComponent(gene), undefined, request.signal)).then((why) => {
      if (explainRequest !== request) return;
      drawExplanation(why);
    }).catch((error) => {
      if (error.name === "AbortError" || explainRequest !== request) return;
      table.hidden = true;
      if (unreachable(error)) { note.textContent = "—"; serverGone(); } else note.textContent = error.message;
    });
  }

  function drawExplanation(why) {
    const table = $("explain-table"), body = table.querySelector("tbody");
    $("explain-title").textContent = "Why " + why.gene + " scores " + number(why.score) + " bits (" + why.method.toUpperCase() + ")";
    body.replaceChildren();
    const unsupervised = state.unsupervised.includes(why.method);
    const first = element("tr");
    const label = element("th", "", unsupervised ? "entropy H(gene)" : "relevance I(gene; groups)");
    label.scope = "row";
    first.append(label, element("td"), element("td"), element("td", "number", number(why.base)));
    body.append(first);
    why.terms.forEach((term) => {
      const tr = element("tr");
      const name = element("th", "", "with " + term.gene);
      name.scope = "row";
      tr.append(name, element("td", "number", number(term.redundancy)),
        element("td", "number", term.conditional === null ? "—" : number(term.conditional)),
        element("td", "number", (term.contribution >= 0 ? "+" : "") + number(term.contribution)));
      body.append(tr);
    });
    $("explain-total").textContent = number(why.score);
    $("explain-note").textContent = why.note;
    table.hidden = false;
  }

  // ------------------------------------------------------------- drawing the state
  function render(next) {
    state = next;
    document.body.dataset.version = String(state.version);
    $("dataset").textContent = `${state.n_cells} cells · ${state.n_genes} genes · groups: ${state.groupby} · saved under uns["${state.key}"]`;
    const method = $("method");
    if (!method.options.length) {
      state.methods.forEach((m) => method.add(new Option(m.toUpperCase(), m)));
      const target = $("target");
      target.add(new Option("all groups (multiclass)", ""));
      state.groups.forEach((g) => target.add(new Option(g + " vs rest", g)));
    }
    method.value = state.method;
    $("target").value = state.target === null ? "" : state.target;
    objectivePicked();
    $("undo").disabled = !state.can_undo;
    $("n-selected").textContent = `(${state.selection.length})`;
    $("empty-selection").hidden = state.selection.length > 0;

    const list = $("selection");
    list.replaceChildren();
    const genes = state.selection.map((s) => s.gene);
    state.selection.forEach((item, i) => {
      const li = element("li");
      li.dataset.gene = item.gene;
      const row = element("div", "row");
      const name = geneButton(item.gene, "selected", "scored " + number(item.score) + " bits when added");
      const move = (to) => () => {
        const order = genes.slice(); order.splice(i, 1); order.splice(to, 0, item.gene);
        act("api/reorder", { genes: order }, () => say("Moved " + item.gene + " to place " + (to + 1) + "."));
      };
      const up = button("↑", "move " + item.gene + " up", "move-up:" + item.gene, move(i - 1)); up.disabled = i === 0;
      const down = button("↓", "move " + item.gene + " down", "move-down:" + item.gene, move(i + 1));
      down.disabled = i === genes.length - 1;
      up.classList.add("up"); down.classList.add("down");
      const remove = button("Remove", "remove " + item.gene, "remove:" + item.gene,
        () => act("api/remove", { gene: item.gene }, () => say("Removed " + item.gene + ".")));
      remove.classList.add("remove");
      row.append(name, up, down, remove);
      li.append(row);
      list.append(li);
    });

    const body = $("candidates").querySelector("tbody");
    body.replaceChildren();
    state.candidates.forEach((c) => {
      const tr = element("tr");
      tr.dataset.gene = c.gene;
      const gene = element("td", "gene");
      gene.append(geneButton(c.gene, "candidate"));
      const cell = element("td");
      const add = button("Add", "add " + c.gene, "add:" + c.gene,
        () => act("api/add", { gene: c.gene }, () => say("Added " + c.gene + ".")));
      add.classList.add("add");
      cell.append(add);
      tr.append(gene, element("td", "number", number(c.score)), element("td", "number", number(c.relevance)), cell);
      body.append(tr);
    });
    drawHistory(state.history);
    if (shown === null && state.candidates.length) show(state.candidates[0].gene);
    else if (shown) show(shown);
    crossValidate();
  }

  function drawHistory(history) {
    picture($("history"), withToken("api/plot/history.svg?n=" + history.length + "&v=" + state.version));
    const body = $("history-table").querySelector("tbody");
    body.replaceChildren();
    const changes = { add: "added", take: "taken by the search", remove: "removed", reorder: "reordered",
      objective: "objective changed", undo: "undone", restore: "opened from the file",
      recover: "taken up after the server stopped" };
    history.slice(-200).reverse().forEach((event) => {
      const tr = element("tr");
      tr.append(element("td", "number", String(event.step)), element("td", "", changes[event.action] || event.action),
        element("td", "", event.gene || ""),
        element("td", "", event.method.toUpperCase() + (event.target ? ", " + event.target + " vs rest" : "")),
        element("td", "number", event.score === null ? "" : number(event.score)));
      body.append(tr);
    });
  }

  // ------------------------------------------------------------- the objective: changed only when applied
  function picked() {
    const unsupervised = state.unsupervised.includes($("method").value);
    return { method: $("method").value, target: unsupervised || $("target").value === "" ? null : $("target").value };
  }

  function objectivePicked() {
    const choice = picked();
    $("target").disabled = state.unsupervised.includes(choice.method);  // no labels, so no group to score against
    const pending = choice.method !== state.method || choice.target !== state.target;
    $("apply-objective").disabled = !pending;
    $("objective-form").classList.toggle("pending", pending);
  }

  function applyObjective(event) {
    event.preventDefault();
    act("api/objective", picked(),
      (_, next) => say("Scoring by " + next.method.toUpperCase() + (next.target ? ", " + next.target + " vs rest." : ", all groups.")));
  }

  // ------------------------------------------------------------- saving
  async function save(body) {
    begin();
    try {
      const data = await api("api/export/h5ad", body);
      render(data.state);
      say("Saved " + data.result.n_genes + " genes under uns[\"" + data.result.key + "\"] in " + data.result.path +
        " (previous file kept as " + data.result.backup + ").");
    } catch (error) {
      if (error instanceof ServerError && error.status === 409) { askBeforeSaving(error.data); return; }
      failed(error);
    } finally {
      end();
    }
  }

  function askBeforeSaving(conflict) {
    const dialog = $("save-dialog");
    $("save-dialog-text").textContent = conflict.error;
    $("save-as").textContent = "Save under \"" + conflict.suggested_key + "\"";
    dialog.returnValue = "";
    dialog.onclose = () => {
      $("export-h5ad").focus();
      if (dialog.returnValue === "new") save({ key: conflict.suggested_key });
      else if (dialog.returnValue === "overwrite") save({ key: conflict.key, overwrite: true });
      else say("Not saved.");
    };
    dialog.showModal();
    $("save-as").focus();
  }

  // ------------------------------------------------------------- another tab
  async function poll() {
    if (busy || document.hidden || !state) return;
    try {
      const { version } = await api("api/version");
      serverBack();
      if (version !== state.version && !busy) await refresh("The selection was changed in another tab; this is it now.");
    } catch (error) {
      if (unreachable(error)) serverGone();  // said once in words; the next poll tries again
      else if (error instanceof ServerError && error.status === 401 && gone) {
        // another server answers at this address: it has its own token
        $("server-gone-text").textContent = "A new server answers at this address, with a new token: open the " +
          "address it printed when it started.";
      }
    }
  }

  // ------------------------------------------------------------- search
  let searchTimer = null;
  async function search() {
    const query = $("search").value;
    const results = $("search-results");
    if (!query.trim()) { results.replaceChildren(); return; }
    try {
      const data = await tracked(api("api/genes?q=" + encodeURIComponent(query)));
      results.replaceChildren();
      data.genes.slice(0, 8).forEach((g) => {
        const li = element("li");
        li.dataset.gene = g;
        const add = button("Add", "add " + g, "add-found:" + g, () => act("api/add", { gene: g }, () => say("Added " + g + ".")));
        add.classList.add("add");
        li.append(geneButton(g, "found"), add);
        results.append(li);
      });
      if (!data.genes.length) results.append(element("li", "", "no gene matches"));
    } catch (error) { failed(error); }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("method").addEventListener("change", objectivePicked);
    $("target").addEventListener("change", objectivePicked);
    $("objective-form").addEventListener("submit", applyObjective);
    $("undo").addEventListener("click", () => act("api/undo", {}, () => {
      say("Undone.");
      if ($("undo").disabled) $("selection-title").focus();
    }));
    $("take-form").addEventListener("submit", (event) => {
      event.preventDefault();
      act("api/take", { k: parseInt($("take-k").value, 10) }, (result) => say("The search took " + result.taken.join(", ") + "."));
    });
    $("search-form").addEventListener("submit", (event) => event.preventDefault());
    $("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(search, 150); });
    $("export-csv").href = withToken("api/export.csv");
    $("export-h5ad").addEventListener("click", () => save({}));
    tracked(api("api/state")).then((first) => {
      render(first);
      document.body.dataset.ready = "true";
      const restored = first.restored, recovered = first.recovered;
      const note = $("restored-note");
      const notes = [];
      if (recovered && recovered.recovered) {
        notes.push("Took up the unsaved selection of " + recovered.n_genes + " gene(s) kept in " + recovered.journal +
          " when the server stopped" + (recovered.reason ? " (" + recovered.reason + ")." : "."));
      } else if (recovered) {
        notes.push("The unsaved selection in " + recovered.journal + " was not taken up: " + recovered.reason + ".");
      }
      if (restored && restored.restored) {
        notes.push("Opened with the " + restored.n_genes + " gene(s) saved under uns[\"" + first.key + "\"]" +
          (restored.reason ? " (" + restored.reason + ")." : "."));
      } else if (restored) {
        notes.push("The selection saved under uns[\"" + first.key + "\"] was not taken up: " + restored.reason + ".");
      }
      note.textContent = notes.join(" ");
      note.hidden = !notes.length;
      say((restored && restored.restored) || (recovered && recovered.recovered) ? note.textContent : "Ready.");
      setInterval(poll, POLL_MS);
    }).catch(failed);
  });
})();
