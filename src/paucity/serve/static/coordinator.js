// The coordinator's view: answers, cost, annotators (invite, pause, resume, revoke, exclude) with why they are
// paused and when they were last seen, gold accuracy and agreement, the rules (quota, automatic pause, gold
// feedback, budget), the pairs annotators disagree on and the coordinator's decisions, exports, the latest answers
// and the current clusters, refreshed every few seconds. No library.
//
// A table is drawn again only when its data changed, and the control that had the focus (named by data-focus, or
// its row by data-row) has it again afterwards: a refresh never takes the keyboard's place away.
"use strict";
(function () {
  const { api, withToken, localTime, $ } = window.paucity;
  const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];
  const SCALE = 9;
  const MAX_PAIRS = 100;  // the disagreements shown at most; the export has them all
  const money = (x) => x.toFixed(2);
  const share = (x) => (x === null || x === undefined ? "—" : `${Math.round(x * 100)} %`);
  const number = (x, digits) => (x === null || x === undefined ? "—" : x.toFixed(digits));
  const pairKey = (i, j) => `${i}\u0000${j}`;
  let timer = null;
  let sort = "spread";
  let drawn = {};            // what each table shows now (JSON), so that an unchanged one is not drawn again
  let focusAfter = null;     // {focus, row}: where the focus goes back after a table is drawn again
  const chosen = new Map();  // the value picked in a disagreement's select, not decided yet
  let rulesLoaded = null;    // the rules as the server last said (the form's starting values)
  let rulesEdited = false;   // the coordinator changed the form: a refresh leaves it alone

  function say(text, isError) { $("message").textContent = text; $("message").className = isError ? "error" : ""; }

  function cell(text, className, label) {
    const td = document.createElement("td"); td.textContent = text; td.setAttribute("role", "cell");
    if (className) td.className = className;
    if (label) td.dataset.label = label;
    return td;
  }

  // A table row; each cell is named by its column (shown before it when the table is drawn as cards).
  function row(cells, labels) {
    const tr = document.createElement("tr"); tr.setAttribute("role", "row");
    cells.forEach((c, k) => {
      const td = typeof c === "string" ? cell(c) : c;
      if (labels && labels[k] && !td.dataset.label) td.dataset.label = labels[k];
      tr.append(td);
    });
    return tr;
  }

  function labelsOf(table) {
    return Array.from($(table).querySelectorAll("thead th"),
      (th) => (th.querySelector("button") ? th.querySelector("button").firstChild : th).textContent.trim());
  }

  function button(label, focus, onClick, ariaLabel) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.dataset.focus = focus;
    if (ariaLabel) b.setAttribute("aria-label", ariaLabel);
    b.addEventListener("click", () => onClick(b));
    return b;
  }

  function remember(element) {
    const holder = element.closest("[data-row]");
    focusAfter = { focus: element.dataset.focus || null, row: holder ? holder.dataset.row : null };
  }

  // Draw a table's rows again, keeping the focus where the person was.
  function redraw(tbody, rows) {
    const active = document.activeElement;
    if (active && tbody.contains(active) && !focusAfter) remember(active);
    tbody.replaceChildren(...rows);
    if (!focusAfter) return;
    const now = document.activeElement;
    if (now && now !== document.body && !tbody.contains(now) && document.contains(now)) { focusAfter = null; return; }
    const { focus, row: rowKey } = focusAfter;
    const byFocus = focus && Array.from(tbody.querySelectorAll("[data-focus]")).find((e) => e.dataset.focus === focus);
    const byRow = rowKey && Array.from(tbody.querySelectorAll("[data-row]")).find((e) => e.dataset.row === rowKey);
    const target = byFocus || (byRow && byRow.querySelector("button, select, input"));
    focusAfter = null;
    if (target) target.focus();
  }

  function unchanged(name, data) {
    const text = JSON.stringify(data);
    if (drawn[name] === text) return true;
    drawn[name] = text;
    return false;
  }

  // ------------------------------------------------------------------ annotators
  function action(label, verb, name) {
    const b = button(label, `${verb}:${name}`, (clicked) => manage(verb, name, clicked), `${label}: ${name}`);
    b.dataset.action = verb;
    return b;
  }

  async function manage(verb, name, b) {
    if (verb === "revoke" && !window.confirm(`Revoke ${name}'s link? It stops working at once.`)) return;
    remember(b);
    b.disabled = true;
    try {
      const result = await api(`api/annotators/${verb}`, { annotator: name });
      if (result.link) showLinks({ [name]: result.link });
      say(`${name}: ${verb.replace("-", " ")} done.`);
      drawn.annotators = null;  // drawn again even when the row reads the same (a new link): the button comes back
      await refresh();
    } catch (error) { say(error.message, true); b.disabled = false; focusAfter = null; }
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

  function renderAnnotators(p) {
    if (unchanged("annotators", [p.annotators, p.price])) return;
    const labels = labelsOf("annotators");
    redraw($("annotators").querySelector("tbody"), p.annotators.map((a) => {
      const actions = document.createElement("span"); actions.className = "actions";
      if (a.state === "active") actions.append(action("Pause", "pause", a.annotator));
      if (a.state === "paused") actions.append(action("Resume", "resume", a.annotator));
      if (a.state !== "revoked" && a.invited) actions.append(action("Revoke", "revoke", a.annotator));
      actions.append(action(a.invited || a.state === "revoked" ? "New link" : "Invite", "new-link", a.annotator));
      actions.append(a.excluded ? action("Include answers", "include", a.annotator)
                                : action("Exclude answers", "exclude", a.annotator));
      const controls = cell("", "controls full", "Actions"); controls.append(actions);
      const state = cell(a.state + (a.excluded ? ", excluded" : ""), "state full");
      if (a.reason && a.state !== "active") {
        const why = document.createElement("span"); why.className = "reason"; why.textContent = a.reason;
        state.append(why);
      }
      const tr = row([cell(a.annotator, "title full"), state,
        cell(String(a.n_answers), "number"), cell(String(a.n_skips ?? 0), "number"), cell(String(a.n_gold), "number"),
        cell(share(a.gold_accuracy), "number"), cell(number(a.difference, 1), "number"), cell(String(a.n_shared), "number"),
        cell(number(a.alpha_without, 2), "number"), cell(money((a.n_answers + a.n_gold) * p.price), "number"),
        cell(localTime(a.last_seen), "time full"), cell(number((a.time_on_task || 0) / 60, 1), "number full"), controls], labels);
      tr.dataset.annotator = a.annotator;
      tr.dataset.row = `annotator:${a.annotator}`;
      return tr;
    }));
  }

  // ------------------------------------------------------------------ the rules
  function fillRules(settings, budget) {
    rulesLoaded = { ...settings, budget };
    $("rule-quota").value = settings.quota === null || settings.quota === undefined ? "" : String(settings.quota);
    $("rule-pause-below").value = settings.pause_below === null || settings.pause_below === undefined ? ""
      : String(Number((settings.pause_below * 100).toFixed(4)));
    $("rule-pause-after").value = String(settings.pause_after);
    $("rule-gold-feedback").checked = Boolean(settings.gold_feedback);
    $("rule-budget").value = String(budget);
    rulesEdited = false;
  }

  // The value of a number field: null when empty, NaN when what was typed is not a number.
  function numberIn(id) {
    const input = $(id);
    if (input.validity.badInput) return NaN;
    const text = input.value.trim();
    return text === "" ? null : Number(text);
  }

  async function saveRules(event) {
    event.preventDefault();
    const quota = numberIn("rule-quota"), below = numberIn("rule-pause-below");
    const after = numberIn("rule-pause-after"), budget = numberIn("rule-budget");
    const problems = [];
    if (Number.isNaN(quota)) problems.push("the quota is not a number (leave it empty for no limit)");
    if (Number.isNaN(below)) problems.push("pause below is not a number (a percentage, or empty: never)");
    if (after === null || Number.isNaN(after)) problems.push("pause after needs a number of gold answers");
    if (budget === null || Number.isNaN(budget)) problems.push("the budget needs a number of answers");
    if (problems.length) { say(`Not saved: ${problems.join("; ")}.`, true); return; }
    const change = { quota, pause_below: below === null ? null : Number((below / 100).toFixed(6)), pause_after: after,
                     gold_feedback: $("rule-gold-feedback").checked };
    if (rulesLoaded && budget !== rulesLoaded.budget) change.budget = budget;
    $("rules-save").disabled = true;
    try {
      const result = await api("api/settings", change);
      const s = result.settings;
      fillRules(s, change.budget ?? rulesLoaded.budget);
      say("Rules saved: " + [
        s.quota === null ? "no quota" : `quota ${s.quota} answers`,
        s.pause_below === null ? "no automatic pause"
          : `pause below ${Number((s.pause_below * 100).toFixed(2))} % after ${s.pause_after} gold answers`,
        `gold feedback ${s.gold_feedback ? "on" : "off"}`,
      ].join(", ") + (change.budget !== undefined ? `, budget ${budget}` : "") + ".");
      await refresh();
    } catch (error) { say(`Not saved: ${error.message}`, true); }
    finally { $("rules-save").disabled = false; }
  }

  // ------------------------------------------------------------------ disagreements
  // each answer, by whom, on the page's 0-9 scale (the server's "given"): "ann: 8; bob: 1".
  function onScale(given) {
    return (given || []).map((g) => `${g.annotator}: ${Math.round(g.value)}`).join("; ");
  }

  const scaled = (x) => (x === null || x === undefined ? "—" : String(Number(x.toFixed(2))));

  function decideCell(pair) {
    const key = pairKey(pair.i, pair.j);
    const names = `${pair.i} and ${pair.j}`;
    const td = cell("", "controls full", "Decide (0–9)");
    const wrap = document.createElement("span"); wrap.className = "actions decide";
    const select = document.createElement("select");
    select.setAttribute("aria-label", `Decision on ${names}, 0 (not similar) to 9 (the same)`);
    select.dataset.focus = `value:${key}`;
    for (let k = 0; k <= SCALE; k++) {
      const option = document.createElement("option"); option.value = String(k); option.textContent = String(k);
      select.append(option);
    }
    const start = chosen.has(key) ? chosen.get(key)
      : pair.adjudicated ? Math.round(pair.adjudicated.value) : Math.round(pair.mean ?? 0);
    select.value = String(start);
    select.addEventListener("change", () => chosen.set(key, parseInt(select.value, 10)));
    wrap.append(select, button("Decide", `decide:${key}`,
      (b) => adjudicate(pair, parseInt(select.value, 10), b), `Decide ${names}`));
    if (pair.adjudicated) {
      wrap.append(button("Take back", `take-back:${key}`, (b) => adjudicate(pair, null, b),
        `Take back the decision on ${names}`));
    }
    td.append(wrap);
    return td;
  }

  function renderDisagreements(data, repeats) {
    if (unchanged("disagreements", [data, repeats])) return;
    const decided = data.pairs.filter((pair) => pair.adjudicated).length;
    let note = data.n_pairs === 0
      ? "No pair has answers from two or more annotators yet." +
        (repeats === 1 ? " This session asks each pair once (repeats 1): start it with --repeats 2 or more to compare annotators." : "")
      : `${data.n_pairs} pair${data.n_pairs === 1 ? "" : "s"} answered by two or more annotators, ${decided} decided.`;
    if (data.n_pairs > MAX_PAIRS) note += ` The first ${MAX_PAIRS} are shown; the export has them all.`;
    $("disagreements-note").textContent = note;
    const sortName = { spread: "spread", n_answers: "number of answers", mean: "mean" }[data.sort] || data.sort;
    if (data.n_pairs) $("disagreements-note").textContent += ` Sorted by ${sortName}, largest first.`;
    document.querySelectorAll("#disagreements th.sortable").forEach((th) => {
      if (th.dataset.sort === data.sort) th.setAttribute("aria-sort", "descending");
      else th.removeAttribute("aria-sort");
      th.querySelector(".arrow").textContent = th.dataset.sort === data.sort ? " ▼" : "";
      th.querySelector("button").setAttribute("aria-pressed", String(th.dataset.sort === data.sort));
    });
    const labels = labelsOf("disagreements");
    redraw($("disagreements").querySelector("tbody"), data.pairs.slice(0, MAX_PAIRS).map((pair) => {
      const decision = pair.adjudicated
        ? `${scaled(pair.adjudicated.value)} (by ${pair.adjudicated.by}, ${localTime(pair.adjudicated.when)})` : "—";
      const tr = row([cell(pair.i, "title full"), cell(pair.j, "title full"),
        cell(`${pair.n_answers} by ${pair.n_annotators}`, "number full"), cell(onScale(pair.given), "answers full"),
        cell(scaled(pair.spread), "number"), cell(scaled(pair.mean), "number"), cell(decision, "decision full"),
        decideCell(pair)], labels);
      tr.dataset.pair = `${pair.i}|${pair.j}`;
      tr.dataset.row = `pair:${pairKey(pair.i, pair.j)}`;
      if (pair.adjudicated) tr.dataset.decided = String(pair.adjudicated.value);
      return tr;
    }));
  }

  let repeats = null;

  async function loadDisagreements() {
    const data = await api(`api/disagreements?sort=${encodeURIComponent(sort)}`);
    renderDisagreements(data, repeats);
    document.body.dataset.disagreements = String(data.n_pairs);
  }

  async function adjudicate(pair, value, b) {
    remember(b);
    b.disabled = true;
    try {
      await api("api/adjudicate", { i: pair.i, j: pair.j, value });
      chosen.delete(pairKey(pair.i, pair.j));
      drawn.disagreements = null;
      say(value === null ? `${pair.i} and ${pair.j}: decision taken back; the answers count again.`
                         : `${pair.i} and ${pair.j}: decided ${value}; the clustering uses it in place of the answers.`);
      await refresh();
    } catch (error) { say(error.message, true); b.disabled = false; focusAfter = null; }
  }

  // ------------------------------------------------------------------ the rest
  function renderSummary(p) {
    const s = p.settings;
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
      ["disagreements", `${p.n_disagreements ?? 0} pairs (${p.n_adjudicated ?? 0} decided)`],
      ["strategy", `${s.strategy}, batches of ${s.batch_size}, ${s.n_clusters} clusters, ${s.cut} cut`],
    ];
    $("summary").replaceChildren(...summary.flatMap(([k, v]) => {
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd"); dd.textContent = v; dd.dataset.key = k;
      return [dt, dd];
    }));
  }

  function renderRecent(p) {
    if (unchanged("recent", p.recent)) return;
    const labels = labelsOf("recent");
    $("recent").querySelector("tbody").replaceChildren(
      ...p.recent.map((r) => row([r.i, r.j, cell(String(r.value), "number"), r.annotator,
                                  cell(localTime(r.when ?? r.time), "time")], labels)));
  }

  function renderClusters(p) {
    const clusters = $("clusters");
    if (!p.clusters) { clusters.textContent = "No answer yet."; drawn.clusters = null; return; }
    if (unchanged("clusters", p.clusters)) return;
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

  function render(p) {
    renderSummary(p);
    renderAnnotators(p);
    renderRecent(p);
    renderClusters(p);
    repeats = p.settings.repeats;
    if (!rulesEdited) fillRules(p.settings, p.budget);
  }

  async function refresh() {
    clearTimeout(timer);
    try {
      render(await api("api/progress"));
      await loadDisagreements();
      $("updated").textContent = "updated " + new Date().toLocaleTimeString();
      document.body.dataset.ready = "true";
    } catch (error) { $("updated").textContent = error.message; }
    timer = setTimeout(refresh, 5000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("#exports a").forEach((a) => { a.href = withToken(a.getAttribute("href")); });
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
    $("rules-form").addEventListener("input", () => { rulesEdited = true; });
    $("rules-form").addEventListener("submit", saveRules);
    document.querySelectorAll("#disagreements th.sortable button").forEach((b) => {
      b.addEventListener("click", async () => {
        sort = b.dataset.sort;
        try { await loadDisagreements(); } catch (error) { say(error.message, true); }
      });
    });
    refresh();
  });
})();
