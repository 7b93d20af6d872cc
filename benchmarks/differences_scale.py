"""SPARDA at single-cell scale: ``paucity differences`` on 5,000 against 5,000 rows of 2,000 features.

Run with paucity's development Python from the repository root::

    python benchmarks/differences_scale.py            # both data sets, one BLAS thread and the default
    python benchmarks/differences_scale.py --quick    # 1,000 against 1,000 rows of 600 features (a smoke run)

Each case is the command a user types, run as a child process on an ``.h5ad``
file written first::

    paucity differences big.h5ad --groupby group --groups A B --n-features 10 --out result.json

and timed from outside: wall seconds, the child's CPU seconds (user + system,
from ``os.wait4``) and its peak resident memory (``ru_maxrss``). Each case runs
with ``OMP_NUM_THREADS=1`` and with the machine's default threads.

Data (draws not used to tune the prefilter or the row blocks, which were
chosen on ``random_state`` 1 of the synthetic stand-in):

- **synthetic**: two samples of independent standard normal features
  (``random_state`` 0); in the second, 10 features chosen at random are
  shifted by 0.25, a planted sparse difference (the direction over the ten
  shifts the projected mean by 0.25·√10 ≈ 0.79 standard deviations, each
  feature alone by 0.25).
- **cells**: ``paucity.datasets.make_scrna_counts(n_cells=20_000,
  n_genes=2_000, n_types=4, n_markers=300, random_state=0)``, log1p of the
  counts, the two largest cell types (5,000 cells each). The planted features
  are the 150 marker genes of those two types (the genes whose mean differs
  between them); found means every selected gene is one of them.

Results: printed as the markdown rows of ``docs/benchmarks.md`` and saved to
``benchmarks/results/differences_scale.json``.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markers import machine, package_version  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
N_FEATURES = 10


def synthetic(n: int, d: int, seed: int = 0):
    import anndata
    import pandas as pd

    rng = np.random.default_rng(seed)
    values = rng.standard_normal((2 * n, d))
    planted = np.sort(rng.choice(d, size=N_FEATURES, replace=False))
    values[n:, planted] += 0.25
    obs = pd.DataFrame({"group": pd.Categorical(np.repeat(["A", "B"], n))}, index=[f"row{i}" for i in range(2 * n)])
    var = pd.DataFrame(index=[f"feature{j}" for j in range(d)])
    adata = anndata.AnnData(X=values.astype(np.float32), obs=obs, var=var)
    return adata, ("group", "A", "B"), {f"feature{j}" for j in planted}


def cells(n: int, d: int, seed: int = 0):
    from paucity.datasets import make_scrna_counts

    data = make_scrna_counts(n_cells=4 * n, n_genes=d, n_types=4, n_markers=300 * d // 2000, random_state=seed)
    adata = data.to_anndata()
    adata.X = adata.X.log1p()
    sizes = adata.obs["cell_type"].value_counts()
    first, second = sorted(sizes.index[:2], key=str)
    markers = adata.var_names[np.isin(adata.var["marker_of"], [first, second])]
    return adata, ("cell_type", first, second), set(markers)


def run_case(path: Path, groups, threads: str, out: Path) -> dict:
    groupby, first, second = groups
    command = [sys.executable, "-c", "from paucity.cli import main; main()", "differences", str(path), "--groupby", groupby, "--groups", first,
               second, "--n-features", str(N_FEATURES), "--out", str(out)]
    env = dict(os.environ)
    if threads == "1":
        env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output.decode(errors='replace')}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 against 1,000 rows of 600 features")
    parser.add_argument("--threads", default="1,default", help="comma-separated: 1 and/or default")
    args = parser.parse_args()
    n, d = (1000, 600) if args.quick else (5000, 2000)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, make in (("synthetic", synthetic), ("cells", cells)):
            adata, groups, planted = make(n, d)
            path = Path(folder) / f"{name}.h5ad"
            adata.write_h5ad(path)
            for threads in args.threads.split(","):
                out = Path(folder) / f"{name}-{threads}.json"
                timing = run_case(path, groups, threads, out)
                report = json.loads(out.read_text())
                selected = [item["feature"] for item in report["selected"]]
                found = sum(feature in planted for feature in selected)
                row = {"data": name, "n": n, "m": n, "d": d, "threads": threads, **timing,
                       "statistic": report["statistic"], "selected": selected, "found": found,
                       "n_selected": len(selected)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    print()
    print("| data | n × m × d | threads | wall (s) | CPU (s) | peak memory (MiB) | planted features found |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['data']} | {row['n']:,} × {row['m']:,} × {row['d']:,} | {row['threads']} | {row['wall_s']:.1f} "
              f"| {row['cpu_s']:.1f} | {row['peak_mib']:.0f} | {row['found']} of {row['n_selected']} |")
    if not args.quick:
        RESULTS.mkdir(parents=True, exist_ok=True)
        payload = {"machine": machine(), "paucity": package_version("paucity"), "rows": rows,
                   "loadavg": Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None}
        (RESULTS / "differences_scale.json").write_text(json.dumps(payload, indent=2) + "\n")


if __name__ == "__main__":
    main()
