"""The time a person waits in the marker explorer: click to settled screen, in Chromium, on a 200,000-cell atlas.

Run from the repository root with paucity's development Python, on a machine where nothing else runs::

    python benchmarks/explorer_wait.py                          # 200,000 cells x 2,000 genes, 10 repeats per action
    python benchmarks/explorer_wait.py --cells 50400 --repeats 5
    python benchmarks/explorer_wait.py --cells 1000000          # the million-cell file, if memory allows
    python benchmarks/explorer_wait.py --cold                   # the first run on a machine: an empty numba cache

The data (``benchmarks/_data/explorer_<cells>x<genes>.h5ad``, git-ignored, made once): counts of
:func:`paucity.datasets.make_scrna_counts` (seed 0, 12 % non-zero, CSR float32) for ten groups of equal size and
a rare eleventh group of 0.05 % of the cells (100 of 200,000), each group with its own marker genes; a 2-D
embedding in ``obsm["X_umap"]`` with the ten groups on a circle and the rare one in a tight spot of its own. Each run
serves a fresh copy of the file from a temporary folder, so that a selection saved by one run is not taken
up by the next.

``paucity serve markers FILE --groupby cell_type`` runs as its own process (the ``paucity`` script beside this
Python). *Start* is the time from starting it to the page's first settled screen (the printed address, then
the page loaded with its first candidates, pictures and cross-validation); the server is started once before
the measured start, so that numba's cache holds every kernel (``--cold`` measures the first start with an
empty cache instead). *Peak memory* is the server's peak resident set size (``VmHWM``) at the end.

Headless Chromium (Debian's ``/usr/bin/chromium``, or ``PAUCITY_CHROMIUM``) is driven by Playwright through a
person's panel: take genes one at a time, add candidates by hand, open candidates (their pictures and the
make-up of their score), open selected genes (their pictures), apply objectives (other objectives on all
groups, and the rare group against the rest), remove genes, undo, save. Each action is timed in the page's own
clock: from the click (a capturing listener on the document) to the page's ``settled`` marker
(``body[data-settled-count]`` growing: every request, picture, explanation and cross-validation the change
started is in and drawn, one animation frame later). The load average is read before and after; the run
waits (``--quiet-load``, ``--max-wait``) for the one-minute load average to fall below 0.5 first. Results are
printed and written to ``benchmarks/results/explorer_wait.json`` (``--json``); the figures in
``docs/benchmarks.md`` come from there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "benchmarks" / "_data"
RESULTS = ROOT / "benchmarks" / "results" / "explorer_wait.json"
RARE_SHARE = 0.0005
N_GROUPS = 10
SEED = 0

#: The settled marker's count, read in the page.
COUNT = "() => Number(document.body.dataset.settledCount || 0)"
#: Installed in the page: the time of every click (capturing, before the page's own handlers) and of every settling.
CLOCK = """() => {
  window.__clicks = []; window.__settled = [];
  document.addEventListener("click", () => window.__clicks.push(performance.now()), true);
  new MutationObserver(() => window.__settled.push([Number(document.body.dataset.settledCount), performance.now()]))
    .observe(document.body, { attributes: true, attributeFilter: ["data-settled-count"] });
}"""


# ---------------------------------------------------------------------------------------------------- the data
def data_path(n_cells: int, n_genes: int) -> Path:
    return DATA_DIR / f"explorer_{n_cells}x{n_genes}.h5ad"


def make_atlas(n_cells: int, n_genes: int, path: Path) -> None:
    """Ten groups and a rare one of 0.05 % of the cells, each with its markers, and an embedding; written to path."""
    import anndata
    import pandas as pd

    from paucity.datasets import make_scrna_counts

    n_rare = max(1, round(n_cells * RARE_SHARE))
    common = n_cells - n_rare
    per_group = -(-common // N_GROUPS)
    drawn = make_scrna_counts(n_cells=per_group * (N_GROUPS + 1), n_genes=n_genes, n_types=N_GROUPS + 1,
                              random_state=SEED)
    labels = drawn.labels
    sizes = [common // N_GROUPS + (1 if g < common % N_GROUPS else 0) for g in range(N_GROUPS)] + [n_rare]
    keep = np.sort(np.concatenate([np.flatnonzero(labels == g)[:size] for g, size in enumerate(sizes)]))
    X, labels = drawn.X[keep].tocsr(), labels[keep]
    del drawn
    rng = np.random.default_rng(SEED + 1)
    angles = np.linspace(0, 2 * np.pi, N_GROUPS, endpoint=False)
    centres = np.vstack([np.c_[np.cos(angles), np.sin(angles)] * 10, [[0.5, 0.5]]])
    spread = np.where(labels == N_GROUPS, 0.3, 1.5)[:, None]
    umap = centres[labels] + rng.normal(size=(labels.size, 2)) * spread
    names = np.array([f"type {g}" for g in range(N_GROUPS)] + ["rare"])
    obs = pd.DataFrame({"cell_type": pd.Categorical(names[labels])}, index=[f"cell{i}" for i in range(labels.size)])
    adata = anndata.AnnData(X, obs=obs, var=pd.DataFrame(index=[f"gene{j}" for j in range(n_genes)]))
    adata.obsm["X_umap"] = umap
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.stem + ".partial.h5ad")
    adata.write_h5ad(partial)
    os.replace(partial, path)


def ensure_data(n_cells: int, n_genes: int) -> Path:
    path = data_path(n_cells, n_genes)
    if not path.exists():
        print(f"making {path.name} (once)...", flush=True)
        subprocess.run([sys.executable, __file__, "--make-data", str(n_cells), str(n_genes)], check=True)
    return path


# ---------------------------------------------------------------------------------------------------- the machine
def load_average() -> float:
    return os.getloadavg()[0]


def wait_for_quiet(threshold: float, max_wait: float) -> float:
    """Wait until the one-minute load average is below threshold (at most max_wait seconds); the seconds waited."""
    start = time.monotonic()
    while load_average() >= threshold and time.monotonic() - start < max_wait:
        time.sleep(10)
    return time.monotonic() - start


def machine() -> dict:
    memory = "unknown"
    try:
        with open("/proc/meminfo") as f:
            memory = next(f"{int(line.split()[1]) / 2**20:.1f} GiB" for line in f if line.startswith("MemTotal:"))
    except (OSError, StopIteration):
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {"cores": cores, "memory": memory, "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version()}


def peak_rss(pid: int) -> int | None:
    """The peak resident set size of a process in bytes (Linux's VmHWM), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


# ---------------------------------------------------------------------------------------------------- the server
class Server:
    """``paucity serve markers`` as its own process; the time to its printed address."""

    def __init__(self, path: Path, env: dict | None = None):
        self.started = time.perf_counter()
        script = Path(sys.executable).with_name("paucity")
        command = [str(script)] if script.exists() else [sys.executable, "-c", "from paucity.cli import main; main()"]
        self.process = subprocess.Popen(
            [*command, "serve", "markers", str(path), "--groupby", "cell_type"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})},
        )
        self.lines: list[str] = []
        self.url = None
        for line in self.process.stdout:
            self.lines.append(line)
            found = re.search(r"(http://\S+)", line)
            if found:
                self.url = found.group(1)
                break
        if self.url is None:
            raise RuntimeError("the server printed no address:\n" + "".join(self.lines))
        self.address_seconds = time.perf_counter() - self.started
        threading.Thread(target=lambda: [self.lines.append(line) for line in self.process.stdout], daemon=True).start()

    def stop(self) -> int | None:
        peak = peak_rss(self.process.pid)
        self.process.terminate()
        self.process.wait(timeout=60)
        return peak


def launch_chromium(playwright):
    executable = os.environ.get("PAUCITY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium) or PAUCITY_CHROMIUM")
    args = ["--disable-gpu"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return playwright.chromium.launch(executable_path=executable, args=args)


def open_page(browser, url: str):
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_default_timeout(600_000)
    page.goto(url)
    page.wait_for_function("() => document.body.dataset.settled === 'true' && document.body.dataset.settledCount")
    page.evaluate(CLOCK)
    return page


def timed(page, click) -> float:
    """Seconds from the click (``click()`` performs it) to the page's next settled screen, in the page's clock."""
    before = page.evaluate(COUNT)
    clicks = page.evaluate("() => window.__clicks.length")
    click()
    page.wait_for_function(f"() => document.body.dataset.settled === 'true' && {COUNT[6:]} > {before}")
    start = page.evaluate(f"() => window.__clicks[{clicks}]")
    end = page.evaluate(f"() => window.__settled.find(([count]) => count > {before})[1]")
    return (end - start) / 1000.0


# ---------------------------------------------------------------------------------------------------- the panel
def panel(page, repeats: int) -> dict[str, list[float]]:
    """A person's panel, each action ``repeats`` times; seconds per action."""
    times: dict[str, list[float]] = {name: [] for name in (
        "take", "add", "open a candidate (plots, explanation)", "open a selected gene (plots)",
        "apply an objective", "remove", "undo", "save")}
    page.fill("#take-k", "1")
    for _ in range(repeats):
        times["take"].append(timed(page, lambda: page.click("#take-form button")))
    for _ in range(repeats):
        times["add"].append(timed(page, lambda: page.click("#candidates tbody tr:nth-child(3) button.add")))
    for k in range(repeats):
        row = 2 + k % 8
        times["open a candidate (plots, explanation)"].append(
            timed(page, lambda: page.click(f"#candidates tbody tr:nth-child({row}) button.gene-link")))
    for k in range(repeats):
        row = 1 + k % 8
        times["open a selected gene (plots)"].append(
            timed(page, lambda: page.click(f"#selection li:nth-child({row}) button.gene-link")))
    objectives = [("jmi", ""), ("mrmr", ""), ("cife", ""), ("cife", "rare"), ("jmi", "rare"), ("cife", "")]
    for k in range(repeats):
        method, target = objectives[k % len(objectives)]
        page.select_option("#method", method)
        page.select_option("#target", target)
        if page.is_disabled("#apply-objective"):  # already this objective: pick another first
            continue
        times["apply an objective"].append(timed(page, lambda: page.click("#apply-objective")))
    for _ in range(repeats):
        times["remove"].append(timed(page, lambda: page.click("#selection li:last-child button.remove")))
        times["undo"].append(timed(page, lambda: page.click("#undo")))
    for _ in range(max(2, repeats // 3)):
        times["save"].append(timed(page, lambda: page.click("#export-h5ad")))
        page.wait_for_selector("#message:has-text('Saved')")
        times["remove"].append(timed(page, lambda: page.click("#selection li:last-child button.remove")))
    return times


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(np.ceil(0.95 * len(ordered))) - 1)]
    return {"n": len(values), "median": statistics.median(values), "p95": p95, "max": ordered[-1],
            "times": [round(v, 4) for v in values]}


def run(args) -> dict:
    from playwright.sync_api import sync_playwright

    made = ensure_data(args.cells, args.genes)
    # every run on a fresh copy: the panel saves its selection into the file, and the next run would take it up
    folder = Path(tempfile.mkdtemp(prefix="paucity-explorer-"))
    path = folder / made.name
    shutil.copy2(made, path)
    waited = wait_for_quiet(args.quiet_load, args.max_wait)
    report = {"cells": args.cells, "genes": args.genes, "rare_cells": max(1, round(args.cells * RARE_SHARE)),
              "file_bytes": path.stat().st_size, "machine": machine(), "waited_for_quiet_seconds": round(waited),
              "load_average_before": os.getloadavg()}
    env = {}
    cache = None
    if args.cold:
        cache = tempfile.mkdtemp(prefix="paucity-numba-")
        env["NUMBA_CACHE_DIR"] = cache
    else:  # a first start fills numba's cache; the measured start loads from it
        Server(path).stop()
    for stale in (path.with_name(path.name + ".paucity-journal.json"),):
        stale.unlink(missing_ok=True)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        server = Server(path, env)
        try:
            page = open_page(browser, server.url)
            report["start_seconds"] = time.perf_counter() - server.started
            report["address_seconds"] = server.address_seconds
            report["server_lines"] = [line.rstrip() for line in server.lines[:6]]
            times = panel(page, args.repeats)
            report["actions"] = {name: summary(values) for name, values in times.items()}
            page.context.close()
        finally:
            report["peak_rss_bytes"] = server.stop()
            browser.close()
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    report["load_average_after"] = os.getloadavg()
    return report


def show(report: dict) -> None:
    print(f"{report['cells']:,} cells x {report['genes']:,} genes ({report['rare_cells']} in the rare group); "
          f"load {report['load_average_before'][0]:.2f} before, {report['load_average_after'][0]:.2f} after")
    print(f"start: address {report['address_seconds']:.1f} s, first settled page {report['start_seconds']:.1f} s; "
          f"peak memory of the server {report['peak_rss_bytes'] / 2**30:.2f} GiB")
    print(f"{'action':40} {'n':>3} {'median (ms)':>12} {'p95 (ms)':>10} {'max (ms)':>10}")
    for name, row in report["actions"].items():
        if row["n"]:
            print(f"{name:40} {row['n']:>3} {row['median'] * 1000:>12.0f} {row['p95'] * 1000:>10.0f} "
                  f"{row['max'] * 1000:>10.0f}")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--make-data":
        make_atlas(int(sys.argv[2]), int(sys.argv[3]), data_path(int(sys.argv[2]), int(sys.argv[3])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=200_000)
    parser.add_argument("--genes", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=10, help="times each action is timed")
    parser.add_argument("--cold", action="store_true", help="start with an empty numba cache (a machine's first run)")
    parser.add_argument("--quiet-load", type=float, default=0.5, help="wait for the 1-minute load average below this")
    parser.add_argument("--max-wait", type=float, default=1800, help="seconds to wait for it at most")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    report = run(args)
    show(report)
    results = json.loads(args.json.read_text()) if args.json.exists() else {}
    results[f"{args.cells}x{args.genes}" + ("-cold" if args.cold else "")] = report
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
