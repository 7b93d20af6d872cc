// The marker explorer page: a thin client of the JSON API (see docs/web.md). No library, no network beyond this server.
"use strict";
(function () {
  const { withToken, api, $ } = window.paucity;
  let shown = null;       // the gene whose pictures are on view
  let busy = false;

  function say(text, isError) {
    const message = $("message");
    message.textContent = text;
    message.className = isError ? "error" : "";
  }

  function number(x) { return x === null || x === undefined || Number.isNaN(x) ? "—" : x.toFixed(3); }

  function button(label, title, onClick) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.title = title;
    b.addEventListener("click", onClick);
    return b;
  }

  async function act(path, body, done) {
    if (busy) return;
    busy = true;
    try {
      const data = await api(path, body);
      render(data.state);
      if (done) done(data.result, data.state);
    } catch (error) {
      say(error.message, true);
    } finally {
      busy = false;
    }
  }

  function show(gene) {
    shown = gene;
    $("gene-name").textContent = gene || "—";
    if (!gene) return;
    $("box").src = withToken("api/plot/box.svg?gene=" + encodeURIComponent(gene));
    const embedding = $("embedding");
    embedding.hidden = false;
    embedding.onerror = () => { embedding.hidden = true; };
    embedding.src = withToken("api/plot/embedding.svg?gene=" + encodeURIComponent(gene));
    document.querySelectorAll("#candidates tr").forEach((tr) => tr.classList.toggle("shown", tr.dataset.gene === gene));
  }

  function render(state) {
    $("dataset").textContent = `${state.n_cells} cells · ${state.n_genes} genes · groups: ${state.groupby}`;
    const method = $("method");
    if (!method.options.length) {
      state.methods.forEach((m) => method.add(new Option(m.toUpperCase(), m)));
      const target = $("target");
      target.add(new Option("all groups (multiclass)", ""));
      state.groups.forEach((g) => target.add(new Option(g + " vs rest", g)));
    }
    method.value = state.method;
    $("target").value = state.target === null ? "" : state.target;
    $("target").disabled = state.unsupervised.includes(state.method);  // no labels, so no group to score against
    $("undo").disabled = !state.can_undo;
    $("n-selected").textContent = `(${state.selection.length})`;
    $("empty-selection").hidden = state.selection.length > 0;

    const list = $("selection");
    list.replaceChildren();
    state.selection.forEach((item, i) => {
      const li = document.createElement("li");
      li.dataset.gene = item.gene;
      const row = document.createElement("div"); row.className = "row";
      const name = document.createElement("span"); name.className = "gene"; name.textContent = item.gene;
      name.title = "score when added: " + number(item.score) + " bits";
      name.addEventListener("click", () => show(item.gene));
      const genes = state.selection.map((s) => s.gene);
      const move = (to) => () => {
        const order = genes.slice(); order.splice(i, 1); order.splice(to, 0, item.gene);
        act("api/reorder", { genes: order });
      };
      const up = button("↑", "move up", move(i - 1)); up.disabled = i === 0;
      const down = button("↓", "move down", move(i + 1)); down.disabled = i === genes.length - 1;
      const remove = button("Remove", "remove " + item.gene, () => act("api/remove", { gene: item.gene }, () => say("Removed " + item.gene + ".")));
      remove.className = "remove";
      row.append(name, up, down, remove);
      li.append(row);
      list.append(li);
    });

    const body = $("candidates").querySelector("tbody");
    body.replaceChildren();
    state.candidates.forEach((c) => {
      const tr = document.createElement("tr");
      tr.dataset.gene = c.gene;
      const gene = document.createElement("td"); gene.className = "gene"; gene.textContent = c.gene;
      gene.addEventListener("click", () => show(c.gene));
      const score = document.createElement("td"); score.className = "number"; score.textContent = number(c.score);
      const relevance = document.createElement("td"); relevance.className = "number"; relevance.textContent = number(c.relevance);
      const cell = document.createElement("td");
      const add = button("Add", "add " + c.gene, () => act("api/add", { gene: c.gene }, () => say("Added " + c.gene + ".")));
      add.className = "add";
      cell.append(add);
      tr.append(gene, score, relevance, cell);
      body.append(tr);
    });
    $("history").src = withToken("api/plot/history.svg?n=" + state.history.length);
    if (shown === null && state.candidates.length) show(state.candidates[0].gene);
    else if (shown) show(shown);
    api("api/cv").then((cv) => {
      $("cv").textContent = "Cross-validated error (" + cv.classifier + ", " + cv.n_folds + " folds): " +
        (cv.error_rate === null ? "—" : (100 * cv.error_rate).toFixed(1) + "%");
    }).catch(() => {});
  }

  function objectiveChanged() {
    const unsupervised = ["entropy", "entropy2"].includes($("method").value);
    const target = unsupervised ? "" : $("target").value;
    act("api/objective", { method: $("method").value, target: target === "" ? null : target },
      (_, state) => say("Scoring by " + state.method.toUpperCase() + (state.target ? ", " + state.target + " vs rest." : ", all groups.")));
  }

  let searchTimer = null;
  async function search() {
    const query = $("search").value;
    const results = $("search-results");
    if (!query.trim()) { results.replaceChildren(); return; }
    try {
      const data = await api("api/genes?q=" + encodeURIComponent(query));
      results.replaceChildren();
      data.genes.slice(0, 8).forEach((g) => {
        const li = document.createElement("li");
        const name = document.createElement("span"); name.textContent = g; name.className = "gene";
        name.addEventListener("click", () => show(g));
        li.append(name, button("Add", "add " + g, () => act("api/add", { gene: g }, () => say("Added " + g + "."))));
        results.append(li);
      });
      if (!data.genes.length) results.append(Object.assign(document.createElement("li"), { textContent: "no gene matches" }));
    } catch (error) { say(error.message, true); }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("method").addEventListener("change", objectiveChanged);
    $("target").addEventListener("change", objectiveChanged);
    $("undo").addEventListener("click", () => act("api/undo", {}, () => say("Undone.")));
    $("take-form").addEventListener("submit", (event) => {
      event.preventDefault();
      act("api/take", { k: parseInt($("take-k").value, 10) }, (result) => say("The search took " + result.taken.join(", ") + "."));
    });
    $("search-form").addEventListener("submit", (event) => event.preventDefault());
    $("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(search, 150); });
    $("export-csv").href = withToken("api/export.csv");
    $("export-h5ad").addEventListener("click", async () => {
      try {
        const data = await api("api/export/h5ad", {});
        say("Saved " + data.result.n_genes + " genes to " + data.result.path + " (previous file kept as " + data.result.backup + ").");
      } catch (error) { say(error.message, true); }
    });
    api("api/state").then((state) => { render(state); document.body.dataset.ready = "true"; say("Ready."); })
      .catch((error) => say(error.message, true));
  });
})();
