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
    const place = focusPlace();
    try {
      const data = await api(path, body);
      render(data.state);
      restoreFocus(place);
      if (done) done(data.result, data.state);
    } catch (error) {
      say(error.message, true);
    } finally {
      busy = false;
    }
  }

  async function refresh(note) {
    const place = focusPlace();
    render(await api("api/state"));
    restoreFocus(place);
    if (note) say(note);
  }

  function crossValidate() {
    if (cvRequest) cvRequest.abort();  // only the newest question is worth the wait
    const request = new AbortController();
    cvRequest = request;
    $("cv").textContent = "Cross-validated error: computing…";
    api("api/cv", undefined, request.signal).then((cv) => {
      if (cvRequest !== request || cv.superseded) return;
      $("cv").textContent = "Cross-validated error (" + cv.classifier + ", " + cv.n_folds + " folds): " +
        (cv.error_rate === null ? "—" : (100 * cv.error_rate).toFixed(1) + "%");
    }).catch((error) => {
      if (error.name !== "AbortError" && cvRequest === request) $("cv").textContent = "Cross-validated error: —";
    });
  }

  // ------------------------------------------------------------- the gene on view
  function show(gene) {
    const changed = gene !== shown;
    shown = gene;
    $("gene-name").textContent = gene || "—";
    document.querySelectorAll("#candidates tbody tr").forEach((tr) => tr.classList.toggle("shown", tr.dataset.gene === gene));
    document.querySelectorAll("#selection li").forEach((li) => li.classList.toggle("shown", li.dataset.gene === gene));
    if (!gene) return;
    if (changed || !$("box").src) {
      $("box").src = withToken("api/plot/box.svg?gene=" + encodeURIComponent(gene));
      $("box").alt = "expression of " + gene + " by group";
      const embedding = $("embedding");
      embedding.hidden = false;
      embedding.onerror = () => { embedding.hidden = true; };
      embedding.src = withToken("api/plot/embedding.svg?gene=" + encodeURIComponent(gene));
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
    api("api/explain?gene=" + encodeURIComponent(gene), undefined, request.signal).then((why) => {
      if (explainRequest !== request) return;
      drawExplanation(why);
    }).catch((error) => {
      if (error.name === "AbortError" || explainRequest !== request) return;
      table.hidden = true;
      note.textContent = error.message;
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
    $("history").src = withToken("api/plot/history.svg?n=" + history.length + "&v=" + state.version);
    const body = $("history-table").querySelector("tbody");
    body.replaceChildren();
    const changes = { add: "added", take: "taken by the search", remove: "removed", reorder: "reordered",
      objective: "objective changed", undo: "undone", restore: "opened from the file" };
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
    try {
      const data = await api("api/export/h5ad", body);
      render(data.state);
      say("Saved " + data.result.n_genes + " genes under uns[\"" + data.result.key + "\"] in " + data.result.path +
        " (previous file kept as " + data.result.backup + ").");
    } catch (error) {
      if (error instanceof ServerError && error.status === 409) { askBeforeSaving(error.data); return; }
      say(error.message, true);
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
      if (version !== state.version && !busy) await refresh("The selection was changed in another tab; this is it now.");
    } catch (error) { /* the server is away for a moment: the next poll tries again */ }
  }

  // ------------------------------------------------------------- search
  let searchTimer = null;
  async function search() {
    const query = $("search").value;
    const results = $("search-results");
    if (!query.trim()) { results.replaceChildren(); return; }
    try {
      const data = await api("api/genes?q=" + encodeURIComponent(query));
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
    } catch (error) { say(error.message, true); }
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
    api("api/state").then((first) => {
      render(first);
      document.body.dataset.ready = "true";
      const restored = first.restored;
      const note = $("restored-note");
      if (restored && restored.restored) {
        note.textContent = "Opened with the " + restored.n_genes + " gene(s) saved under uns[\"" + first.key + "\"]" +
          (restored.reason ? " (" + restored.reason + ")." : ".");
      } else if (restored) {
        note.textContent = "The selection saved under uns[\"" + first.key + "\"] was not taken up: " + restored.reason + ".";
      }
      note.hidden = !restored;
      say(restored && restored.restored ? note.textContent : "Ready.");
      setInterval(poll, POLL_MS);
    }).catch((error) => say(error.message, true));
  });
})();
