"""Ranking at scale: 1,000,000 items and 20,000,000 comparisons on one machine.

Run with paucity's development Python from the repository root::

    python benchmarks/ranking_scale.py                      # 1,000,000 items, 20 comparisons each
    python benchmarks/ranking_scale.py --items 200000       # a smaller run

The comparisons (BTL log-weights v ~ U[0, 5], pairs uniform with replacement)
are drawn once with :mod:`paucity.datasets` and saved under
``benchmarks/_data/`` (git-ignored). Each method then runs in a fresh
subprocess that loads them, builds the :class:`~paucity.ranking.Comparisons`,
fits, and reports its build time, fit time, Kendall tau-b against the truth
and the peak resident memory of the whole process; the table is printed and
written to ``docs/benchmarks.md`` between ``<!-- ranking-scale:begin -->``
and ``<!-- ranking-scale:end -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markers import DATA_DIR, machine, write_section  # noqa: E402

SECTION = ("<!-- ranking-scale:begin -->", "<!-- ranking-scale:end -->")
METHODS = {
    "rank_centrality (λ = 1/n)": ("rank_centrality", {"regularization": "uniform"}),
    "btl (alpha = 1)": ("btl", {"alpha": 1.0}),
    "bre": ("bre", {"random_state": 0}),
    "ure": ("ure", {"random_state": 0}),
}


def _data_path(n_items: int, per_item: int) -> Path:
    return DATA_DIR / f"btl_scale_{n_items}x{per_item}.npz"


def make_data(n_items: int, per_item: int) -> Path:
    from paucity.datasets import btl_scores, sample_pairs

    path = _data_path(n_items, per_item)
    if path.exists():
        return path
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    v = btl_scores(n_items, random_state=rng)
    i, j = sample_pairs(n_items, per_item * n_items, replace=True, random_state=rng)
    y = (rng.random(len(i)) < 1.0 / (1.0 + np.exp(v[i] - v[j]))).astype(np.int8)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, i=i.astype(np.int32), j=j.astype(np.int32), y=y, v=v)
    os.replace(tmp, path)
    return path


def run_one(path: Path, label: str) -> dict:
    """Child process: build, fit and measure one method."""
    from paucity.ranking import Comparisons, rank
    from paucity.ranking.metrics import kendall_tau_b

    method, params = METHODS[label]
    data = np.load(path)
    i, j, y, v = data["i"], data["j"], data["y"], data["v"]
    n = len(v)
    start = time.perf_counter()
    comparisons = Comparisons(i, j, y, items=np.arange(n))
    build = time.perf_counter() - start
    start = time.perf_counter()
    table = rank(comparisons, method, **params)
    fit = time.perf_counter() - start
    scores = table.to_frame()["score"].sort_index().to_numpy()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    return {"method": label, "build_s": build, "fit_s": fit, "tau": kendall_tau_b(scores, v), "peak_gib": peak}


def _warm() -> None:
    """Compile the numba kernels once (cached on disk), so no child times compilation."""
    from paucity.datasets import btl_comparisons, btl_scores
    from paucity.ranking import rank

    small = btl_comparisons(btl_scores(200, random_state=0), 4000, random_state=1)
    for method, params in METHODS.values():
        rank(small, method, **params)


def _write_report(rows: list[dict], n_items: int, n_comparisons: int) -> None:
    m = machine()
    lines = [
        f"## Ranking at scale: {n_items:,} items, {n_comparisons:,} comparisons",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} memory. Written by `benchmarks/ranking_scale.py`.",
        "",
        "BTL log-weights v ~ U[0, 5], pairs uniform with replacement, winners drawn from BTL. Each method runs in",
        "a fresh process that loads the arrays, builds `Comparisons` (validation, item positions) and fits;",
        "peak memory is the peak resident size of that whole process, data included. With 20 comparisons per",
        "item some items never lose, so the BTL maximum likelihood estimate does not exist and BTL runs with",
        "alpha = 1; unregularized RankCentrality would return the uniform distribution for the same reason.",
        "",
        "| method | build Comparisons (s) | fit (s) | Kendall tau-b vs truth | peak memory (GiB) |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['method']} | {row['build_s']:.1f} | {row['fit_s']:.1f} | {row['tau']:.3f} | {row['peak_gib']:.2f} |"
        )
    write_section(SECTION, "\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--per-item", type=int, default=20, help="comparisons per item (m = per_item x items)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--child", nargs=2, metavar=("DATA", "METHOD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(Path(args.child[0]), args.child[1])))
        return
    path = make_data(args.items, args.per_item)
    _warm()
    rows = []
    for label in METHODS:
        output = subprocess.run(
            [sys.executable, __file__, "--child", str(path), label], check=True, capture_output=True, text=True
        ).stdout
        row = json.loads(output.strip().splitlines()[-1])
        rows.append(row)
        print(
            f"{label:>28}: build {row['build_s']:.1f} s, fit {row['fit_s']:.1f} s, "
            f"tau {row['tau']:.3f}, peak {row['peak_gib']:.2f} GiB",
            flush=True,
        )
    if not args.no_write:
        _write_report(rows, args.items, args.items * args.per_item)


if __name__ == "__main__":
    main()
