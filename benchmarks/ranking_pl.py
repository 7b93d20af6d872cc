"""Plackett–Luce on rankings: paucity beside choix 0.4.1's ``ilsr_rankings``, in one run.

Run from the repository root with paucity's Python, naming choix's::

    python benchmarks/ranking_pl.py --anchor-python /path/to/choix-venv/bin/python
    python benchmarks/ranking_pl.py --items 2000 --rankings 40000 --anchor-python ...   # a smaller run

The data: log-weights ``v ~ N(0, 1)`` for ``--items`` items and
``--rankings`` rankings of ``--size`` items each, the shown items drawn
uniformly without replacement and ordered by Plackett–Luce sampling
(Gumbel-perturbed log-weights), seed 0; saved under ``benchmarks/_data/``
(git-ignored) for choix's runner. Each side runs in its own process, one
thread (``OMP_NUM_THREADS=1``, ``NUMBA_NUM_THREADS=1``, BLAS limited):

- paucity: building :class:`~paucity.ranking.Rankings` from the integer
  array, then ``PlackettLuce(method=...)`` for ``newton`` and ``ilsr``, after a
  warm-up fit on a tiny set (numba compilation is not timed); wall and
  process time of the best of ``--repeats`` fits;
- choix: ``ilsr_rankings(n_items, data)`` with its defaults (``tol=1e-8``,
  ``max_iter=100``), data converted to its list-of-tuples format beforehand
  (not timed), through ``benchmarks/_choix_runner.py``.

With ``--std-items N`` it times instead ``scores_std_`` (the Laplace
approximation's standard deviations, 64 conjugate-gradient probes beyond
2,000 items) of ``PlackettLuce(alpha=1)`` on N items and 4N rankings of
``--size`` (20 appearances per item), one thread::

    python benchmarks/ranking_pl.py --std-items 100000

With ``--active 100,1000`` it runs instead the active-comparison
simulation of the ranking guide: BTL leagues (``v ~ U[0, 5]``) of each
size, one comparison per item to start (a random ring, so every item is
compared), then rounds of ``n/5`` new comparisons chosen by
``suggest_pairs(strategy="information")`` or uniformly at random among
all pairs, each answered by BTL and followed by a refit of
``BTL(alpha=1)``; it reports the comparisons per item each needed to reach
Kendall tau-b ``--target`` against the true order (at most ``--budget`` per
item), over ``--seeds`` leagues::

    python benchmarks/ranking_pl.py --active 100 --target 0.9 --seeds 3
    python benchmarks/ranking_pl.py --active 1000 --target 0.9 --seeds 1

It prints a markdown table (speed-up of each paucity fit over choix, the
largest difference of the centred estimates, Kendall tau-b against the true
log-weights) and writes ``benchmarks/results/ranking_pl.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "benchmarks" / "_data"
RESULTS = ROOT / "benchmarks" / "results" / "ranking_pl.json"
RUNNER = ROOT / "benchmarks" / "_choix_runner.py"
ONE_THREAD = {"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def make_data(n_items: int, n_rankings: int, size: int) -> Path:
    path = DATA_DIR / f"pl_{n_items}x{n_rankings}x{size}_seed0.npz"
    if path.exists():
        return path
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    v = rng.normal(size=n_items)
    # size distinct items per row: the first `size` of a random key's order, drawn in chunks
    rankings = np.empty((n_rankings, size), dtype=np.int64)
    for start in range(0, n_rankings, 10_000):
        stop = min(start + 10_000, n_rankings)
        shown = np.empty((stop - start, size), dtype=np.int64)
        for r in range(stop - start):
            shown[r] = rng.choice(n_items, size=size, replace=False)
        noisy = v[shown] + rng.gumbel(size=shown.shape)
        rankings[start:stop] = np.take_along_axis(shown, np.argsort(-noisy, axis=1), axis=1)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, rankings=rankings, n_items=n_items, v=v)
    os.replace(tmp, path)
    return path


def run_paucity(path: Path, methods: list[str], repeats: int) -> dict:
    """Child process: time the Rankings build and each method's fit."""
    from threadpoolctl import threadpool_limits

    from paucity.ranking import PlackettLuce, Rankings
    from paucity.ranking.metrics import kendall_tau_b

    with np.load(path) as f:
        rankings, v = f["rankings"], f["v"]
    n = len(v)
    tiny = Rankings([[0, 1, 2], [2, 1, 0], [1, 0, 2]])
    for method in methods:
        PlackettLuce(method=method).fit(tiny)  # compile the kernels before timing
    out = {"fits": {}}
    with threadpool_limits(1):
        t0, c0 = time.perf_counter(), time.process_time()
        data = Rankings(rankings, items=np.arange(n))
        out["build_seconds"] = time.perf_counter() - t0
        out["build_cpu_seconds"] = time.process_time() - c0
        for method in methods:
            best = None
            for _ in range(repeats):
                t0, c0 = time.perf_counter(), time.process_time()
                model = PlackettLuce(method=method).fit(data)
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                if best is None or wall < best[0]:
                    best = (wall, cpu)
            scores = model.scores_.to_numpy()
            np.save(path.with_name(path.stem + f"_paucity_{method}.npy"), scores)
            out["fits"][method] = {
                "seconds": best[0], "cpu_seconds": best[1], "n_iter": model.n_iter_,
                "converged": model.converged_, "kendall_tau": float(kendall_tau_b(scores, v)),
            }
    return out


def time_std(n_items: int, size: int) -> dict:
    """Fit PlackettLuce(alpha=1) on n_items and 4 n_items rankings, then time scores_std_."""
    from threadpoolctl import threadpool_limits

    from paucity.ranking import PlackettLuce, Rankings

    with np.load(make_data(n_items, 4 * n_items, size)) as f:
        rankings = f["rankings"]
    PlackettLuce(alpha=1.0).fit(Rankings([[0, 1, 2], [2, 1, 0]])).scores_std_  # compile the kernels
    with threadpool_limits(1):
        data = Rankings(rankings, items=np.arange(n_items))
        t0 = time.perf_counter()
        model = PlackettLuce(alpha=1.0).fit(data)
        fit = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        std = model.scores_std_.to_numpy()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"n_items": n_items, "n_rankings": 4 * n_items, "fit_seconds": fit, "std_seconds": wall,
            "std_cpu_seconds": cpu, "median_std": float(np.median(std))}


def active_run(n_items: int, strategy: str, target: float, seed: int, max_per_item: float = 200.0) -> dict:
    """One league: comparisons per item until Kendall tau-b reaches target (None if not within the budget)."""
    from paucity.datasets import btl_scores, sample_pairs
    from paucity.ranking import BTL, Comparisons, suggest_pairs
    from paucity.ranking.metrics import kendall_tau_b

    rng = np.random.default_rng(seed)
    v = btl_scores(n_items, random_state=rng)
    ring = rng.permutation(n_items)
    i, j = list(ring), list(np.roll(ring, -1))
    y = list((rng.random(n_items) < 1.0 / (1.0 + np.exp(v[ring] - v[np.roll(ring, -1)]))).astype(int))
    batch = max(1, n_items // 5)
    trace = []
    while len(y) <= max_per_item * n_items:
        model = BTL(alpha=1.0).fit(Comparisons(np.array(i), np.array(j), np.array(y), items=np.arange(n_items)))
        tau = float(kendall_tau_b(model.scores_.to_numpy(), v))
        trace.append((len(y) / n_items, tau))
        if tau >= target:
            return {"per_item": len(y) / n_items, "trace": trace}
        if strategy == "random":
            a, b = sample_pairs(n_items, batch, replace=True, random_state=rng)
        else:
            pairs = suggest_pairs(model, batch, strategy=strategy)
            a, b = pairs["i"].to_numpy(dtype=np.int64), pairs["j"].to_numpy(dtype=np.int64)
        i += list(a)
        j += list(b)
        y += list((rng.random(len(a)) < 1.0 / (1.0 + np.exp(v[a] - v[b]))).astype(int))
    return {"per_item": None, "trace": trace}


def run_choix(anchor_python: str, path: Path, timeout: float) -> tuple[dict, np.ndarray | None]:
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs.json"
        runs.write_text(json.dumps([{"name": "ilsr_rankings", "function": "ilsr_rankings", "kwargs": {}}]))
        out = Path(tmp) / "choix.json"
        env = {**os.environ, **ONE_THREAD}
        try:
            subprocess.run([anchor_python, str(RUNNER), str(path), str(runs), str(out)], check=True, env=env,
                           timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:.0f} s"}, None
        report = json.loads(out.read_text())
        with np.load(out.with_suffix(".npz")) as f:
            params = f["ilsr_rankings"] if "ilsr_rankings" in f.files else None
    return report, params


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rankings", type=int, default=200_000)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--methods", default="newton,ilsr")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--anchor-python", default=os.environ.get("PAUCITY_ANCHOR_PYTHON"))
    parser.add_argument("--anchor-timeout", type=float, default=3600.0)
    parser.add_argument("--std-items", type=int, help="time scores_std_ on this many items instead")
    parser.add_argument("--active", help="run the active-comparison simulation on these league sizes instead")
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--budget", type=float, default=200.0, help="comparisons per item at most (--active)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    if args.active:
        sizes = [int(x) for x in args.active.split(",")]
        report = {"target": args.target, "runs": []}
        print(f"Comparisons per item until Kendall tau-b >= {args.target} (BTL leagues, v ~ U[0, 5]; "
              f"rounds of n/5 comparisons; BTL(alpha=1) refit each round)")
        print("| items | strategy | per league | mean |")
        print("|---|---|---|---|")
        for n_items in sizes:
            for strategy in ("information", "random"):
                runs = [active_run(n_items, strategy, args.target, seed, args.budget) for seed in range(args.seeds)]
                report["runs"].append({"n_items": n_items, "strategy": strategy, "runs": runs})
                needed = [r["per_item"] for r in runs]
                shown = ", ".join("not reached" if x is None else f"{x:.1f}" for x in needed)
                reached = [x for x in needed if x is not None]
                mean = f"{np.mean(reached):.1f}" if len(reached) == len(needed) else "–"
                print(f"| {n_items:,} | {strategy} | {shown} | {mean} |", flush=True)
        (RESULTS.parent / "ranking_active.json").write_text(json.dumps(report))
        return
    if args.std_items:
        if not os.environ.get("NUMBA_NUM_THREADS"):  # one thread: re-run this process with the limits set
            os.execve(sys.executable, [sys.executable, __file__, *sys.argv[1:]], {**os.environ, **ONE_THREAD})
        out = time_std(args.std_items, args.size)
        print(json.dumps(out))
        print(f"| `PlackettLuce(alpha=1).scores_std_`, {out['n_items']:,} items, {out['n_rankings']:,} rankings of "
              f"{args.size} | {out['std_seconds']:.1f} s (fit {out['fit_seconds']:.1f} s) |")
        return

    if args.child:
        print(json.dumps(run_paucity(Path(args.child), methods, args.repeats)))
        return

    path = make_data(args.items, args.rankings, args.size)
    env = {**os.environ, **ONE_THREAD}
    child = subprocess.run(
        [sys.executable, __file__, "--child", str(path), "--methods", args.methods, "--repeats", str(args.repeats)],
        check=True, env=env, capture_output=True, text=True,
    )
    ours = json.loads(child.stdout.strip().splitlines()[-1])
    with np.load(path) as f:
        v = f["v"]

    anchor, choix_params = ({"error": "no --anchor-python given"}, None)
    if args.anchor_python:
        anchor, choix_params = run_choix(args.anchor_python, path, args.anchor_timeout)
    choix_seconds = anchor.get("runs", {}).get("ilsr_rankings", {}).get("seconds")

    rows = []
    for method, fit in ours["fits"].items():
        scores = np.load(path.with_name(path.stem + f"_paucity_{method}.npy"))
        entry = dict(fit)
        if choix_params is not None:
            other = choix_params - choix_params.mean()
            entry["max_difference_vs_choix"] = float(np.abs(scores - other).max())
        if choix_seconds:
            entry["speedup_vs_choix"] = choix_seconds / fit["seconds"]
        ours["fits"][method] = entry
        rows.append((method, entry))

    if choix_params is not None:
        from paucity.ranking.metrics import kendall_tau_b

        anchor["kendall_tau"] = float(kendall_tau_b(choix_params, v))
    report = {
        "n_items": args.items, "n_rankings": args.rankings, "size": args.size,
        "paucity": ours, "choix": anchor,
        "machine": {"python": platform.python_version(), "processor": platform.processor(), "cpus": os.cpu_count()},
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=1))

    print(f"Plackett–Luce, {args.items:,} items, {args.rankings:,} rankings of {args.size}, one thread")
    print("| estimator | fit (s) | vs choix ilsr_rankings | max abs diff of centred v | Kendall tau-b vs truth |")
    print("|---|---|---|---|---|")
    if choix_seconds:
        print(f"| choix 0.4.1 `ilsr_rankings` | {choix_seconds:.2f} | 1× | – | {anchor.get('kendall_tau', float('nan')):.4f} |")
    else:
        print(f"| choix 0.4.1 `ilsr_rankings` | {anchor.get('error', anchor.get('runs'))} | | | |")
    for method, entry in rows:
        speed = f"{entry['speedup_vs_choix']:.0f}×" if "speedup_vs_choix" in entry else "–"
        diff = f"{entry['max_difference_vs_choix']:.1e}" if "max_difference_vs_choix" in entry else "–"
        print(f"| paucity `PlackettLuce(method=\"{method}\")` | {entry['seconds']:.2f} | {speed} | {diff} | "
              f"{entry['kendall_tau']:.4f} |")
    print(f"(building Rankings from the array: {ours['build_seconds']:.2f} s, not in the fit times)")


if __name__ == "__main__":
    main()
