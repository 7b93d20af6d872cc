// The coordinator's view: answers, cost and the current clusters, refreshed every few seconds. No library.
"use strict";
(function () {
  const { api, $ } = window.paucity;
  const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];
  const money = (x) => x.toFixed(2);

  function row(cells) {
    const tr = document.createElement("tr");
    cells.forEach((text) => { const td = document.createElement("td"); td.textContent = text; tr.append(td); });
    return tr;
  }

  function render(p) {
    const summary = [
      ["answers", `${p.n_answers} of a budget of ${p.budget}`],
      ["waiting for an answer", `${p.n_pending} (${p.n_shown_now} on someone's screen)`],
      ["items", String(p.n_items)],
      ["price per answer", money(p.price)],
      ["cost so far", money(p.cost)],
      ["strategy", `${p.settings.strategy}, batches of ${p.settings.batch_size}, ${p.settings.n_clusters} clusters`],
    ];
    $("summary").replaceChildren(...summary.flatMap(([k, v]) => {
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd"); dd.textContent = v; dd.dataset.key = k;
      return [dt, dd];
    }));
    $("annotators").querySelector("tbody").replaceChildren(
      ...p.annotators.map((a) => row([a.annotator, String(a.n_answers), money(a.n_answers * p.price)])));
    $("recent").querySelector("tbody").replaceChildren(
      ...p.recent.map((r) => row([r.i, r.j, String(r.value), r.annotator, new Date(r.time * 1000).toLocaleTimeString()])));
    const clusters = $("clusters");
    if (!p.clusters) { clusters.textContent = "No answer yet."; return; }
    const groups = {};
    p.clusters.forEach((c) => { (groups[c.label] = groups[c.label] || []).push(c.item); });
    clusters.replaceChildren(...Object.keys(groups).sort().map((label) => {
      const div = document.createElement("div"); div.className = "cluster";
      const h = document.createElement("strong");
      const swatch = document.createElement("span"); swatch.className = "swatch";
      swatch.style.background = COLOURS[label % COLOURS.length];
      h.append(swatch, `Cluster ${label} (${groups[label].length})`);
      const ul = document.createElement("ul");
      groups[label].forEach((item) => { const li = document.createElement("li"); li.textContent = item; ul.append(li); });
      div.append(h, ul);
      return div;
    }));
  }

  async function refresh() {
    try {
      render(await api("api/progress"));
      $("updated").textContent = "updated " + new Date().toLocaleTimeString();
      document.body.dataset.ready = "true";
    } catch (error) { $("updated").textContent = error.message; }
    setTimeout(refresh, 5000);
  }

  document.addEventListener("DOMContentLoaded", refresh);
})();
