// The coordinator's view: answers, cost, annotators (invite, pause, revoke, exclude), gold accuracy and
// agreement, exports, the latest answers and the current clusters, refreshed every few seconds. No library.
"use strict";
(function () {
  const { api, withToken, $ } = window.paucity;
  const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];
  const money = (x) => x.toFixed(2);
  const share = (x) => (x === null || x === undefined ? "—" : `${Math.round(x * 100)} %`);
  const number = (x, digits) => (x === null || x === undefined ? "—" : x.toFixed(digits));
  let timer = null;

  function say(text, isError) { $("message").textContent = text; $("message").className = isError ? "error" : ""; }

  function cell(text, className) {
    const td = document.createElement("td"); td.textContent = text; if (className) td.className = className; return td;
  }

  function row(cells) {
    const tr = document.createElement("tr");
    cells.forEach((c) => tr.append(typeof c === "string" ? cell(c) : c));
    return tr;
  }

  function action(label, verb, name) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.dataset.action = verb;
    b.setAttribute("aria-label", `${label}: ${name}`);
    b.addEventListener("click", () => manage(verb, name, b));
    return b;
  }

  async function manage(verb, name, button) {
    if (verb === "revoke" && !window.confirm(`Revoke ${name}'s link? It stops working at once.`)) return;
    button.disabled = true;
    try {
      const result = await api(`api/annotators/${verb}`, { annotator: name });
      if (result.link) showLinks({ [name]: result.link });
      say(`${name}: ${verb.replace("-", " ")} done.`);
      await refresh();
    } catch (error) { say(error.message, true); button.disabled = false; }
  }

  function showLinks(links) {
    Object.entries(links).forEach(([name, link]) => {
      const li = document.createElement("li");
      if (link === null) { li.textContent = `${name}: invited before (their link still works; "new link" gives another)`; }
      else {
        const strong = document.createElement("strong"); strong.textContent = name + ": ";
        const code = document.createElement("code"); code.textContent = link;
        li.append(strong, code, " (shown once: send it to them now)");
      }
      $("links").append(li);
    });
  }

  function render(p) {
    const summary = [
      ["answers", `${p.n_answers} of a budget of ${p.budget}`],
      ["waiting for an answer", `${p.n_pending} (${p.n_shown_now} on someone's screen)`],
      ["gold answers", `${p.n_gold_answers} (${p.n_gold_pairs} gold pairs, ${Math.round(p.gold_rate * 100)} % of each queue)`],
      ["excluded answers", String(p.n_excluded)],
      ["items", String(p.n_items)],
      ["price per answer", money(p.price)],
      ["cost so far", money(p.cost)],
      ["of which answers", money(p.cost_answers)],
      ["of which gold", money(p.cost_gold)],
      ["of which excluded", money(p.cost_excluded)],
      ["agreement (Krippendorff's α)", p.alpha === null ? "— (no pair answered twice yet)" : `${p.alpha.toFixed(2)} on ${p.n_shared_pairs} pairs`],
      ["strategy", `${p.settings.strategy}, batches of ${p.settings.batch_size}, ${p.settings.n_clusters} clusters, ${p.settings.cut} cut`],
    ];
    $("summary").replaceChildren(...summary.flatMap(([k, v]) => {
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd"); dd.textContent = v; dd.dataset.key = k;
      return [dt, dd];
    }));
    $("annotators").querySelector("tbody").replaceChildren(...p.annotators.map((a) => {
      const actions = document.createElement("span"); actions.className = "actions";
      if (a.state === "active") actions.append(action("Pause", "pause", a.annotator));
      if (a.state === "paused") actions.append(action("Resume", "resume", a.annotator));
      if (a.state !== "revoked" && a.invited) actions.append(action("Revoke", "revoke", a.annotator));
      actions.append(action(a.invited || a.state === "revoked" ? "New link" : "Invite", "new-link", a.annotator));
      actions.append(a.excluded ? action("Include answers", "include", a.annotator)
                                : action("Exclude answers", "exclude", a.annotator));
      const td = document.createElement("td"); td.append(actions);
      const tr = row([a.annotator, a.state + (a.excluded ? ", excluded" : ""),
        cell(String(a.n_answers), "number"), cell(String(a.n_gold), "number"), cell(share(a.gold_accuracy), "number"),
        cell(number(a.difference, 1), "number"), cell(String(a.n_shared), "number"),
        cell(number(a.alpha_without, 2), "number"), cell(money((a.n_answers + a.n_gold) * p.price), "number"), td]);
      tr.dataset.annotator = a.annotator;
      return tr;
    }));
    $("recent").querySelector("tbody").replaceChildren(
      ...p.recent.map((r) => row([r.i, r.j, cell(String(r.value), "number"), r.annotator,
                                  new Date(r.time * 1000).toLocaleTimeString()])));
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
    clearTimeout(timer);
    try {
      render(await api("api/progress"));
      $("updated").textContent = "updated " + new Date().toLocaleTimeString();
      document.body.dataset.ready = "true";
    } catch (error) { $("updated").textContent = error.message; }
    timer = setTimeout(refresh, 5000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    ["answers-csv", "answers-json", "clusters-csv", "clusters-json"].forEach((id) => {
      const a = $("export-" + id); a.href = withToken(a.getAttribute("href"));
    });
    $("invite-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const names = $("invite-names").value.split(/[\s,]+/).filter(Boolean);
      if (!names.length) return;
      try {
        const result = await api("api/annotators/invite", { names });
        showLinks(result.links);
        $("invite-names").value = "";
        say(`invited ${names.join(", ")}.`);
        await refresh();
      } catch (error) { say(error.message, true); }
    });
    refresh();
  });
})();
