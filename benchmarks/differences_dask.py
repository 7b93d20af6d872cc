"""SPARDA on 20,000 against 20,000 rows of 2,000 features: in memory against Dask, and their equality.

Run with paucity's development Python from the repository root::

    python benchmarks/differences_dask.py            # 20,000 x 20,000 x 2,000
    python benchmarks/differences_dask.py --quick    # 2,000 x 2,000 x 600 (a smoke run)

Two child processes fit ``PDA(sparsity="l1", n_features=10, random_state=0)``
on the same data, one BLAS thread each:

- **memory**: the rows as NumPy arrays in the process;
- **dask**: the rows as Dask arrays of 2,500-row blocks on a
  ``LocalCluster`` of 2 worker processes of 1 thread each. The blocks are
  generated on the workers, so the driver never holds the matrix.

The data: independent standard normal features, row block k of sample s drawn
from ``numpy.random.default_rng([seed, s, k])``; 10 features chosen at random
(``default_rng(seed)``) are shifted by 0.25 in the second sample. For each
child: wall seconds, its CPU seconds and peak resident memory (``os.wait4``;
for the Dask child the driver's alone: the workers are other processes), and
whether the planted features were found. Equality: β, D and the selection
of the two fits compared bit for bit.

Results: printed as markdown rows and saved to
``benchmarks/results/differences_dask.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
BLOCK = 2_500
SEED = 0


def planted(d: int) -> np.ndarray:
    return np.sort(np.random.default_rng(SEED).choice(d, size=10, replace=False))


def block(side: int, k: int, rows: int, d: int) -> np.ndarray:
    values = np.random.default_rng([SEED, side, k]).standard_normal((rows, d))
    if side == 1:
        values[:, planted(d)] += 0.25
    return values


def sizes(n: int) -> list[int]:
    return [min(BLOCK, n - start) for start in range(0, n, BLOCK)]


def child(mode: str, n: int, d: int, out: Path) -> None:
    from paucity.differences import PDA

    model = PDA(sparsity="l1", n_features=10, random_state=0)
    if mode == "memory":
        X, Y = (np.concatenate([block(side, k, rows, d) for k, rows in enumerate(sizes(n))]) for side in (0, 1))
        model.fit(X, Y)
    else:
        import dask.array as da
        from dask import delayed
        from distributed import Client, LocalCluster

        def lazy(side):
            parts = [da.from_delayed(delayed(block)(side, k, rows, d), shape=(rows, d), dtype=np.float64)
                     for k, rows in enumerate(sizes(n))]
            return da.concatenate(parts)

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster):
            model.fit(lazy(0), lazy(1))
    np.savez(out, beta=model.beta_, divergence=model.divergence_, selected=model.selected_)


def run(mode: str, n: int, d: int, out: Path) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    command = [sys.executable, __file__, "--child", mode, "--n", str(n), "--d", str(d), "--out", str(out)]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"the {mode} child failed (status {status})")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", choices=["memory", "dask"])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--d", type=int, default=2_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.n, args.d, args.out)
        return
    n, d = (2_000, 600) if args.quick else (args.n, args.d)
    load_before = os.getloadavg()[0]
    rows, fits = [], {}
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("memory", "dask"):
            out = Path(folder) / f"{mode}.npz"
            timing = run(mode, n, d, out)
            with np.load(out) as saved:
                fits[mode] = {key: saved[key] for key in saved.files}
            found = int(np.isin(planted(d), fits[mode]["selected"]).sum())
            rows.append({"mode": mode, "n": n, "m": n, "d": d, **timing, "found": found})
    equal = bool(np.array_equal(fits["memory"]["beta"], fits["dask"]["beta"])
                 and fits["memory"]["divergence"] == fits["dask"]["divergence"]
                 and np.array_equal(fits["memory"]["selected"], fits["dask"]["selected"]))
    load_after = os.getloadavg()[0]
    print("| fit | n × m × d | wall (s) | CPU (s) | peak memory (MiB) | planted features found | equal to memory |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        where = "in memory" if row["mode"] == "memory" else "Dask, LocalCluster 2 workers × 1 thread (driver)"
        same = "—" if row["mode"] == "memory" else ("bit for bit" if equal else "NO")
        print(f"| {where} | {n:,} × {n:,} × {d:,} | {row['wall_s']:.1f} | {row['cpu_s']:.1f} | "
              f"{row['peak_mib']:.0f} | {row['found']} of 10 | {same} |")
    print(f"load average {load_before:.1f} before, {load_after:.1f} after")
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "differences_dask_quick.json" if args.quick else "differences_dask.json"
    (RESULTS / name).write_text(json.dumps({"rows": rows, "equal": equal, "load": [load_before, load_after]},
                                           indent=2) + "\n")
    if not equal:
        raise SystemExit("the Dask fit differs from the in-memory fit")


if __name__ == "__main__":
    main()
