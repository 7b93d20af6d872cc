"""Ranking benchmark: paucity's RankCentrality and BTL beside choix on BTL data.

Run with paucity's development Python from the repository root::

    python benchmarks/ranking.py                                   # n = 5,000 and 20,000 items
    python benchmarks/ranking.py --sizes 5000 \
        --anchor-python /path/to/choix-venv/bin/python
    python benchmarks/ranking.py --reuse-anchor                    # choix's saved results, if any

For every size n the comparisons are drawn with a fixed seed: log-weights
``v ~ U[0, 5]``, ``20 * n`` pairs uniform over ordered pairs of distinct items
(with replacement), and ``j`` beats ``i`` with probability
``1 / (1 + exp(v_i - v_j))``. The directed graph loser -> winner must be
strongly connected (otherwise the maximum-likelihood estimate does not exist);
if it is not, the next seed is used (seed 5 for 5,000 items, 251 for 20,000).
The comparisons are saved under ``benchmarks/_data/`` (git-ignored) so that
choix reads exactly the same data.

paucity is warmed on a tiny data set, then ``Comparisons.from_winners`` plus
each estimator's ``fit`` are timed in this process, best of three runs:

- ``RankCentrality(transition="nos")``: its ``scores_`` (the stationary
  distribution) are compared, as centred logarithms, with choix's
  ``rank_centrality(n, data, alpha=0)``;
- ``BTL(alpha=0)``: centred log-weights against ``ilsr_pairwise(n, data, alpha=0)``;
- ``BTL(alpha=...)``: centred log-weights against ``opt_pairwise(n, data, alpha=a)``,
  timed with choix's default ``tol=1e-5`` and again with ``tol=1e-7`` (the
  default stops Newton-CG a few 1e-4 from the optimum on thousands of items;
  only the second run is held to the 1e-4 agreement). choix's ``opt_pairwise``
  minimises ``NLL(v) + a * ||v||^2`` (measured; its documentation speaks of a
  Gaussian prior of variance ``1 / a``, which would be ``(a / 2) * ||v||^2``).
  paucity's BTL minimises ``NLL(v) + (alpha / 2) * ||v||^2`` and is given
  ``alpha = factor * a`` with ``--paucity-alpha-factor`` (default 2).

For the BTL rows the largest entry of the gradient of choix's objective is
also reported at both outputs: it shows which of the two is nearer the optimum.

choix runs once per function, each in a subprocess of its own
(``benchmarks/_choix_runner.py``) with the anchor's interpreter, given by
``--anchor-python`` or the environment variable ``PAUCITY_ANCHOR_PYTHON``
(skipped with a message when neither is set). Its dense ``n x n`` matrices make
it slow and memory-hungry at 20,000 items: a run is stopped past
``--anchor-timeout`` seconds or ``--anchor-memory`` GiB of resident memory and
reported as such. Its returned parameters are saved under ``benchmarks/_data/``
and can be reused with ``--reuse-anchor`` (only when the data are identical).
If paucity's estimators cannot be imported, only choix runs. The results are
printed and written to ``docs/benchmarks.md`` between ``<!-- ranking:begin -->``
and ``<!-- ranking:end -->``; the rest of that file is kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markers import DATA_DIR, fmt_seconds, machine, package_version, versions_line, write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "benchmarks" / "_choix_runner.py"
REPORT = ROOT / "docs" / "benchmarks.md"
SECTION = ("<!-- ranking:begin -->", "<!-- ranking:end -->")
SEED = 0
DEFAULT_SIZES = "5000,20000"
PER_ITEM = 20
LOG_WEIGHT_RANGE = 5.0
ALPHA = 1.0  # choix's opt_pairwise alpha: NLL + ALPHA * ||v||^2
PAUCITY_ALPHA_FACTOR = 2.0  # paucity BTL alpha = factor * choix alpha, for a penalty (alpha / 2) * ||v||^2
REPEATS = 3  # paucity's timings are the best of this many runs (choix runs once: minutes per run)
ANCHOR_TIMEOUT = 1800.0  # seconds per choix run
ANCHOR_MEMORY = 20.0  # GiB of resident memory per choix run
MAX_SEED_TRIES = 50_000
GENERATOR = "btl-uniform-pairs-v1"  # change when draw_comparisons changes
# opt_pairwise's default tol=1e-5 stops Newton-CG early on thousands of items (centred log-scores off by
# a few 1e-4 from the optimum); with 1e-7 it agrees with a converged solver to about 1e-7.
CHOIX_TIGHT_TOL = 1e-7
CHOIX_TIGHT_TOL_TEXT = "1e-7"

# name -> (choix function, choix kwargs given opt_pairwise's alpha, tolerance on centred log-scores or None
# when the row is for timing only)
ESTIMATORS = {
    "rank_centrality": ("rank_centrality", lambda alpha: {"alpha": 0.0}, 1e-6),
    "btl_mle": ("ilsr_pairwise", lambda alpha: {"alpha": 0.0}, 1e-4),
    "btl_map": ("opt_pairwise", lambda alpha: {"alpha": alpha}, None),
    "btl_map_tight": ("opt_pairwise", lambda alpha: {"alpha": alpha, "tol": CHOIX_TIGHT_TOL}, 1e-4),
}
# which paucity fit each row compares with (the two opt_pairwise rows share one)
PAUCITY_FIT = {"rank_centrality": "rank_centrality", "btl_mle": "btl_mle", "btl_map": "btl_map", "btl_map_tight": "btl_map"}


# ---------------------------------------------------------------- data


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.strip().replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes {text!r} must be comma-separated integers, e.g. 5000,20000") from None
    if not sizes or min(sizes) < 3:
        raise argparse.ArgumentTypeError("give at least one size of 3 items or more")
    return sizes


def parse_estimators(text: str) -> list[str]:
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    bad = [name for name in names if name not in ESTIMATORS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown estimator(s) {bad}; choose among {', '.join(ESTIMATORS)}")
    return names


def strongly_connected(n_items: int, winners: np.ndarray, losers: np.ndarray) -> bool:
    """Whether the directed graph loser -> winner is strongly connected (the BTL MLE then exists)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    # Cheap necessary condition first: every item has won and lost at least once.
    if (np.bincount(winners, minlength=n_items) == 0).any() or (np.bincount(losers, minlength=n_items) == 0).any():
        return False
    graph = sp.csr_matrix((np.ones(len(winners)), (losers, winners)), shape=(n_items, n_items))
    n_components, _ = connected_components(graph, directed=True, connection="strong")
    return n_components == 1


def draw_comparisons(n_items: int, per_item: int, seed: int):
    """BTL comparisons: (winners, losers, log-weights v)."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(0.0, LOG_WEIGHT_RANGE, size=n_items)
    m = per_item * n_items
    i = rng.integers(0, n_items, size=m)
    j = (i + rng.integers(1, n_items, size=m)) % n_items  # uniform over the other items
    j_wins = rng.random(m) < 1.0 / (1.0 + np.exp(v[i] - v[j]))
    winners = np.where(j_wins, j, i)
    losers = np.where(j_wins, i, j)
    return winners, losers, v


def data_path(n_items: int, per_item: int) -> Path:
    return DATA_DIR / f"btl_{n_items}x{per_item}.npz"


def digest(winners: np.ndarray, losers: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(winners, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(losers, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def make_data(n_items: int, per_item: int) -> dict:
    """Draw with the first seed >= SEED for which the BTL MLE exists; save it for the anchor; return the data.

    With U[0, 5] log-weights some items never win or never lose in most draws
    (at 20 comparisons per item, about one draw in 8 is strongly connected for
    5,000 items and far fewer for 20,000), so the search can take a while; the
    seed found is stored with the data and tried first next time.
    """
    path = data_path(n_items, per_item)
    candidates = []
    if path.exists():
        try:
            with np.load(path) as f:
                if str(f["generator"]) == GENERATOR:
                    candidates.append(int(f["seed"]))
        except (OSError, KeyError, ValueError):
            pass
    candidates += range(SEED, SEED + MAX_SEED_TRIES)
    t0 = time.perf_counter()
    for tries, seed in enumerate(candidates):
        winners, losers, v = draw_comparisons(n_items, per_item, seed)
        if strongly_connected(n_items, winners, losers):
            break
        if tries and tries % 500 == 0:
            print(f"   {tries} seeds tried ({time.perf_counter() - t0:.0f} s), none strongly connected yet", flush=True)
    else:
        raise SystemExit(f"no strongly connected comparison graph in {MAX_SEED_TRIES} seeds for n = {n_items}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".partial.npz")
    np.savez(tmp, winners=winners, losers=losers, n_items=np.int64(n_items), log_weights=v, seed=np.int64(seed),
             generator=np.str_(GENERATOR))
    os.replace(tmp, path)
    return {"n_items": n_items, "winners": winners, "losers": losers, "v": v, "seed": seed,
            "digest": digest(winners, losers), "path": path}


def centred(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x - x.mean()


def gradient_residual(name: str, log_scores: np.ndarray, data: dict, alpha: float) -> float | None:
    """Largest entry of the gradient of choix's objective at some log-scores (None for RankCentrality).

    The objective is the BTL negative log-likelihood, plus ``alpha * ||v||^2``
    for ``btl_map`` (choix's penalty); both solvers' outputs are measured with
    the same yardstick, so this says which is closer to the optimum.
    """
    if name == "rank_centrality":
        return None
    from scipy.special import expit

    v = centred(log_scores)
    n, winners, losers = data["n_items"], data["winners"], data["losers"]
    upset = expit(v[losers] - v[winners])  # probability that the loser would have won
    gradient = np.bincount(losers, upset, minlength=n) - np.bincount(winners, upset, minlength=n)
    if name in ("btl_map", "btl_map_tight"):
        gradient += 2.0 * alpha * v
    return float(np.max(np.abs(gradient)))


# ---------------------------------------------------------------- paucity side


def paucity_available() -> str | None:
    """None when paucity's ranking estimators import, else the reason they do not."""
    try:
        from paucity.ranking import BTL, Comparisons, RankCentrality  # noqa: F401
    except ImportError as error:
        return f"{type(error).__name__}: {error}"
    return None


def paucity_estimator(name: str, alpha: float):
    from paucity.ranking import BTL, RankCentrality

    if name == "rank_centrality":
        return RankCentrality(transition="nos")
    if name == "btl_mle":
        return BTL(alpha=0)
    if name == "btl_map":
        return BTL(alpha=alpha)
    raise ValueError(name)


def paucity_log_scores(name: str, scores, n_items: int) -> np.ndarray:
    """Centred log-scores in item order 0..n-1 (RankCentrality's scores_ are probabilities)."""
    values = np.asarray(scores.reindex(np.arange(n_items)), dtype=np.float64)
    if PAUCITY_FIT[name] == "rank_centrality":
        with np.errstate(divide="ignore"):
            values = np.log(values)
    return centred(values)


def warm_paucity(names, paucity_alpha: float) -> None:
    from paucity.ranking import Comparisons

    winners, losers, _ = draw_comparisons(50, 10, 1)
    c = Comparisons.from_winners(winners, losers, items=np.arange(50))
    for name in dict.fromkeys(PAUCITY_FIT[name] for name in names):
        paucity_estimator(name, paucity_alpha).fit(c)


def time_paucity(data: dict, names, paucity_alpha: float, repeats: int = REPEATS) -> dict:
    """Best of ``repeats`` for building the Comparisons and for each fit; the centred log-scores."""
    from paucity.ranking import Comparisons

    n = data["n_items"]
    build = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        c = Comparisons.from_winners(data["winners"], data["losers"], items=np.arange(n))
        build = min(build, time.perf_counter() - t0)
    fits, scores = {}, {}
    for name in dict.fromkeys(PAUCITY_FIT[name] for name in names):
        fits[name] = float("inf")
        for _ in range(repeats):
            estimator = paucity_estimator(name, paucity_alpha)
            t0 = time.perf_counter()
            estimator.fit(c)
            fits[name] = min(fits[name], time.perf_counter() - t0)
        scores[name] = paucity_log_scores(name, estimator.scores_, n)
    return {"build": build, "fit": fits, "scores": scores}


# ---------------------------------------------------------------- anchor side


def anchor_files(data: dict, name: str) -> tuple[Path, Path]:
    stem = data["path"].stem
    return DATA_DIR / f"choix_{stem}_{name}.json", DATA_DIR / f"choix_{stem}_{name}.npz"


def _rss_gib(pid: int) -> float:
    """Resident memory of a process and its children, from /proc (0 when unreadable)."""
    total = 0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(p) for p in children]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            pass
    return total / 2**20


def run_anchor_once(anchor_python: str, data: dict, name: str, alpha: float,
                    timeout: float, memory_gib: float) -> dict:
    """One choix function in a subprocess; the result dict (with 'error' when it failed or was stopped)."""
    function, kwargs_for, _ = ESTIMATORS[name]
    json_path, npz_path = anchor_files(data, name)
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs.json"
        runs.write_text(json.dumps([{"name": name, "function": function, "kwargs": kwargs_for(alpha)}]))
        out = Path(tmp) / "anchor.json"
        command = [anchor_python, str(RUNNER), str(data["path"]), str(runs), str(out)]
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        t0 = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        stopped, watched_peak = None, 0.0
        while child.poll() is None:
            time.sleep(0.5)
            rss = _rss_gib(child.pid)
            watched_peak = max(watched_peak, rss)
            elapsed = time.perf_counter() - t0
            if rss > memory_gib:
                stopped = f"stopped at {rss:.1f} GiB resident memory (limit {memory_gib:g} GiB) after {elapsed:.0f} s"
            elif elapsed > timeout:
                stopped = f"stopped after {elapsed:.0f} s (limit {timeout:g} s) at {rss:.1f} GiB resident memory"
            if stopped:
                child.kill()
                break
        _, stderr = child.communicate()
        wall = time.perf_counter() - t0
        if stopped:
            # Kept, so that --reuse-anchor does not spend the limit again on the same data.
            entry = {"function": function, "kwargs": kwargs_for(alpha), "error": stopped, "seconds": None,
                     "peak_rss_gib": watched_peak, "wall_seconds": wall, "digest": data["digest"],
                     "limits": {"seconds": timeout, "gib": memory_gib}}
            json_path.write_text(json.dumps(entry, indent=1))
            npz_path.unlink(missing_ok=True)
            return entry
        if child.returncode != 0 or not out.exists():
            return {"error": f"exit {child.returncode}: {stderr.strip()[-2000:]}", "seconds": None,
                    "peak_rss_gib": watched_peak, "wall_seconds": wall}
        report = json.loads(out.read_text())
        entry = dict(report["runs"][name])
        entry.update(versions=report["versions"], digest=data["digest"], wall_seconds=wall,
                     n_items=report["n_items"], n_comparisons=report["n_comparisons"])
        if "error" not in entry:
            with np.load(out.with_suffix(".npz")) as f:
                np.savez(npz_path, params=f[name])
        json_path.write_text(json.dumps(entry, indent=1))
        return entry


def load_anchor(data: dict, name: str, alpha: float, timeout: float, memory_gib: float):
    """choix's saved (entry, parameters) for these data; (None, None) when absent, stale, for another alpha,
    or stopped under smaller limits than the present ones."""
    json_path, npz_path = anchor_files(data, name)
    if not json_path.exists():
        return None, None
    entry = json.loads(json_path.read_text())
    _, kwargs_for, _ = ESTIMATORS[name]
    if entry.get("digest") != data["digest"] or entry.get("kwargs") != kwargs_for(alpha):
        return None, None
    limits = entry.get("limits")
    if limits and (timeout > limits["seconds"] or memory_gib > limits["gib"]):
        return None, None
    if "error" in entry or not npz_path.exists():
        return entry, None
    with np.load(npz_path) as f:
        return entry, np.asarray(f["params"])


def run_anchor(anchor_python, data, name, alpha, timeout, memory_gib, reuse: bool):
    if reuse:
        entry, params = load_anchor(data, name, alpha, timeout, memory_gib)
        if entry is not None:
            entry = dict(entry, reused=True)
            print(f"   choix {ESTIMATORS[name][0]}: reusing the saved result"
                  + (f" ({entry['error']})" if "error" in entry else ""), flush=True)
            return entry, params
    if not anchor_python:
        return None, None
    print(f"   running choix {ESTIMATORS[name][0]}({', '.join(f'{k}={v}' for k, v in ESTIMATORS[name][1](alpha).items())}) ...",
          flush=True)
    entry = run_anchor_once(anchor_python, data, name, alpha, timeout, memory_gib)
    if "error" in entry:
        print(f"   choix {ESTIMATORS[name][0]} failed: {entry['error']}", flush=True)
        return entry, None
    _, npz_path = anchor_files(data, name)
    with np.load(npz_path) as f:
        params = np.asarray(f["params"])
    print(f"   choix {ESTIMATORS[name][0]}: {entry['seconds']:.2f} s, peak RSS {entry['peak_rss_gib']:.2f} GiB", flush=True)
    return entry, params


# ---------------------------------------------------------------- the benchmark


def our_versions() -> dict:
    return {
        "python": platform.python_version(),
        "paucity": package_version("paucity"),
        "numpy": np.__version__,
        "scipy": package_version("scipy"),
        "pandas": package_version("pandas"),
    }


def describe(name: str, alpha: float, paucity_alpha: float) -> tuple[str, str]:
    if name == "rank_centrality":
        return "`RankCentrality(transition=\"nos\")`", "`rank_centrality(alpha=0)`"
    if name == "btl_mle":
        return "`BTL(alpha=0)`", "`ilsr_pairwise(alpha=0)`"
    if name == "btl_map_tight":
        return f"`BTL(alpha={paucity_alpha:g})`", f"`opt_pairwise(alpha={alpha:g}, tol={CHOIX_TIGHT_TOL_TEXT})`"
    return f"`BTL(alpha={paucity_alpha:g})`", f"`opt_pairwise(alpha={alpha:g})`"


def benchmark(sizes, names, per_item, alpha, paucity_alpha, anchor_python, timeout, memory_gib,
              reuse, results_dir: Path | None, repeats: int) -> str:
    missing = paucity_available()
    if missing:
        print(f"paucity's ranking estimators are not available ({missing}): only choix runs.", flush=True)
    else:
        print("warming paucity ...", flush=True)
        warm_paucity(names, paucity_alpha)
    rows, notes, reused = [], [], []
    anchor_versions = None
    for n in sizes:
        print(f"\n== n = {n:,} items, {per_item * n:,} comparisons: generating ...", flush=True)
        t0 = time.perf_counter()
        data = make_data(n, per_item)
        print(f"   seed {data['seed']}, generated in {time.perf_counter() - t0:.2f} s, saved to "
              f"{data['path'].relative_to(ROOT)}", flush=True)
        notes.append(f"n = {n:,}: seed {data['seed']}, the first seed from {SEED} whose loser → winner graph "
                     "is strongly connected.")
        ours = None
        if not missing:
            ours = time_paucity(data, names, paucity_alpha, repeats)
            print(f"   paucity Comparisons.from_winners {ours['build']:.3f} s; fit "
                  + ", ".join(f"{k} {v:.3f} s" for k, v in ours["fit"].items()), flush=True)
        for name in names:
            entry, params = run_anchor(anchor_python, data, name, alpha, timeout, memory_gib, reuse)
            if entry is not None and entry.get("versions"):
                anchor_versions = entry["versions"]
            if params is not None and results_dir is not None:
                results_dir.mkdir(parents=True, exist_ok=True)
                np.save(results_dir / f"choix_{data['path'].stem}_{name}.npy", params)
                shutil.copyfile(data["path"], results_dir / data["path"].name)
            row = {"n": n, "name": name, "paucity": None, "choix": None, "ratio": None, "diff": None,
                   "tol": ESTIMATORS[name][2], "choix_rss": None, "choix_error": None,
                   "paucity_gradient": None, "choix_gradient": None}
            if entry is not None:
                if entry.get("reused"):
                    reused.append(f"{ESTIMATORS[name][0]}({', '.join(f'{k}={v:g}' for k, v in ESTIMATORS[name][1](alpha).items())}) "
                                  f"on n = {n:,}")
                row["choix"] = entry.get("seconds") if "error" not in entry else None
                row["choix_rss"] = entry.get("peak_rss_gib")
                row["choix_error"] = entry.get("error")
                if row["choix_error"]:
                    notes.append(f"choix `{ESTIMATORS[name][0]}` on n = {n:,}: {row['choix_error']}.")
            if ours is not None:
                row["paucity"] = ours["build"] + ours["fit"][PAUCITY_FIT[name]]
            if row["paucity"] and row["choix"]:
                row["ratio"] = row["choix"] / row["paucity"]
            if ours is not None:
                row["paucity_gradient"] = gradient_residual(name, ours["scores"][PAUCITY_FIT[name]], data, alpha)
            if params is not None:
                row["choix_gradient"] = gradient_residual(name, params, data, alpha)
            if ours is not None and params is not None:
                row["diff"] = float(np.max(np.abs(ours["scores"][PAUCITY_FIT[name]] - centred(params))))
                if row["tol"] is None:
                    status = "not checked: choix's default stopping rule"
                else:
                    status = ("ok" if row["diff"] <= row["tol"] else "ABOVE TOLERANCE") + f", tolerance {row['tol']:g}"
                print(f"   {name}: max |centred log-score difference| = {row['diff']:.2e} ({status})", flush=True)
            rows.append(row)

    header = (
        "| items | comparisons | paucity | choix | paucity (s) | choix (s) | speed-up (choix / paucity) "
        "| choix peak memory (GiB) | max abs difference, centred log-scores "
        "| max abs gradient, paucity / choix |\n"
        "| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    lines = [header]
    for r in rows:
        ours_label, theirs_label = describe(r["name"], alpha, paucity_alpha)
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.1f}×" if r["ratio"] < 100 else f"{r['ratio']:,.0f}×"
        diff = "—" if r["diff"] is None else f"{r['diff']:.1e}"
        choix_time = fmt_seconds(r["choix"]) if not r["choix_error"] else "stopped" if "stopped" in r["choix_error"] else "failed"
        rss = "—" if r["choix_rss"] is None else f"{r['choix_rss']:.1f}"
        gradients = " / ".join("—" if g is None else f"{g:.0e}" for g in (r["paucity_gradient"], r["choix_gradient"]))
        if r["paucity_gradient"] is None and r["choix_gradient"] is None:
            gradients = "—"
        lines.append(f"| {r['n']:,} | {per_item * r['n']:,} | {ours_label} | {theirs_label} | {fmt_seconds(r['paucity'])} "
                     f"| {choix_time} | {ratio} | {rss} | {diff} | {gradients} |")
    table = "\n".join(lines)
    print("\n" + table)

    m = machine()
    body = [
        "## Ranking from pairwise comparisons: paucity vs choix",
        "",
        f"BTL data: log-weights `v ~ U[0, {LOG_WEIGHT_RANGE:g}]`, {per_item} comparisons per item "
        "(pairs uniform over ordered pairs of distinct items, with replacement), `j` beats `i` with probability "
        "`1 / (1 + exp(v_i - v_j))`; the seed is the first from "
        f"{SEED} whose loser → winner graph is strongly connected (so the maximum-likelihood estimate exists; "
        "most draws have an item that never wins or never loses). paucity: `Comparisons.from_winners(winners, losers, items=np.arange(n))` "
        f"then `fit`, both timed, best of {repeats} runs. choix {anchor_versions['choix'] if anchor_versions else '0.4.1'}: "
        "the data as its documented list of `(winner, loser)` tuples (not timed), one run per function, each "
        "in a process of its own after a warm-up call on a tiny data set; its peak memory is that process's "
        "`ru_maxrss`. The last column compares centred log-scores: `log(scores_)` of RankCentrality (a stationary "
        "distribution) and BTL's `scores_` (log-weights), each minus its mean, against choix's output minus its "
        "mean (choix returns centred log-scores).",
        "",
        "choix's `opt_pairwise(alpha=a)` minimises the negative log-likelihood plus `a * ||v||^2` (checked on "
        f"small data; a Gaussian prior of variance `1 / (2a)`); here `a = {alpha:g}`. paucity's `BTL(alpha)` "
        f"minimises the negative log-likelihood plus `(alpha / 2) * ||v||^2`, so it gets `alpha = {paucity_alpha:g}`. `ilsr_pairwise` stops when successive iterates differ by less than `1e-8` (L1); "
        "`opt_pairwise` uses Newton-CG with `tol=1e-5` by default, which on thousands of items stops a few "
        "`1e-4` away from the optimum (see the last column: the largest entry of the gradient of choix's own "
        f"objective at each output); it is timed as users get it, and once more with `tol={CHOIX_TIGHT_TOL_TEXT}` "
        "for the comparison of outputs.",
        "",
        table,
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} memory, {m['os']}.  ",
        f"paucity side: {versions_line(our_versions())}.  ",
    ]
    if anchor_versions:
        body.append(f"choix side: {versions_line(anchor_versions)}.")
    else:
        body.append("choix was not run (no anchor interpreter given).")
    if missing:
        body.append("")
        body.append("paucity's estimators were not available for this run; only choix's figures are shown.")
    body.append("")
    body.append(f"Command: `python benchmarks/ranking.py --sizes {','.join(str(n) for n in sizes)} "
                "--anchor-python $PAUCITY_ANCHOR_PYTHON" + (" --reuse-anchor" if reuse else "") + "`.")
    if reused:
        which = "All of choix's figures" if len(reused) == len(rows) else "choix's figures for " + ", ".join(reused)
        notes.append(which + " come from earlier runs of this script on the same data "
                     "(`--reuse-anchor`; the data's digest and choix's arguments are checked).")
    if notes:
        body.append("")
        body.extend(f"- {note}" for note in notes)
    return "\n".join(body)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Ranking benchmark: paucity beside choix on BTL comparisons.")
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes(DEFAULT_SIZES),
                        help=f"comma-separated numbers of items (default {DEFAULT_SIZES})")
    parser.add_argument("--per-item", type=int, default=PER_ITEM, help="comparisons per item (default 20)")
    parser.add_argument("--estimators", type=parse_estimators, default=list(ESTIMATORS),
                        help=f"comma-separated among {', '.join(ESTIMATORS)}")
    parser.add_argument("--alpha", type=float, default=ALPHA, help="choix opt_pairwise alpha (default 1.0)")
    parser.add_argument("--paucity-alpha-factor", type=float, default=PAUCITY_ALPHA_FACTOR,
                        help="paucity BTL alpha = factor * --alpha (default 2: paucity penalty (alpha/2)||v||^2)")
    parser.add_argument("--anchor-python", default=os.environ.get("PAUCITY_ANCHOR_PYTHON"),
                        help="Python of a virtual environment with choix 0.4.1 "
                        "(default: $PAUCITY_ANCHOR_PYTHON; without it choix is skipped)")
    parser.add_argument("--anchor-timeout", type=float, default=ANCHOR_TIMEOUT, help="seconds per choix run")
    parser.add_argument("--anchor-memory", type=float, default=ANCHOR_MEMORY, help="GiB of resident memory per choix run")
    parser.add_argument("--reuse-anchor", action="store_true",
                        help="use choix's results saved under benchmarks/_data/ for identical data, when present")
    parser.add_argument("--results-dir", type=Path, default=None,
                        help="also copy the data and choix's parameters (.npy) to this folder")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="paucity runs per timing (best is kept)")
    parser.add_argument("--no-write", action="store_true", help=f"print only; do not update {REPORT.relative_to(ROOT)}")
    args = parser.parse_args(argv)

    anchor_python = args.anchor_python
    if not anchor_python:
        print("No anchor interpreter (--anchor-python or PAUCITY_ANCHOR_PYTHON): choix is skipped"
              + (" unless saved results are reused." if args.reuse_anchor else "."))
    elif not Path(anchor_python).exists():
        print(f"Anchor interpreter {anchor_python} does not exist: choix is skipped.")
        anchor_python = None
    body = benchmark(args.sizes, args.estimators, args.per_item, args.alpha, args.alpha * args.paucity_alpha_factor,
                     anchor_python, args.anchor_timeout, args.anchor_memory, args.reuse_anchor, args.results_dir,
                     args.repeats)
    if not args.no_write:
        write_section(SECTION, body, REPORT)
        print(f"\nwrote the ranking section of {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
