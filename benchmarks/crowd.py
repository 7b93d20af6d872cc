"""Speed of BBMC-ACT against MCMC-ACT: one restart of Table 3.1's active-learning run, side by side.

Run from the repository root with paucity's development Python, on an otherwise idle machine::

    python benchmarks/crowd.py                 # restart 0 of Table 3.1, both methods
    python benchmarks/crowd.py --quick         # the experiment's small sizes, a check in seconds

Both methods run in this process, one after the other, on the same data (restart 0 of
``experiments/crowd.py table3_1``: 2000 burn-in sweeps, 100 queries to the researcher, one every 200
sweeps): BBMC-ACT scores every candidate by the perturbed-chain approximation (``BBMC.suggest``),
MCMC-ACT by two short subordinate chains per candidate and answer, as the seed describes. The seed
reports 2.5 hours for BBMC-ACT and 11 hours for MCMC-ACT; the issue's goal is BBMC-ACT under 10
minutes. One thread for BLAS and numba (the experiment's setting). Wall-clock and process time are
both recorded, with the load average before and after.

Writes ``benchmarks/results/crowd.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "crowd.json"
METHODS = ("BBMC-ACT", "MCMC-ACT")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the experiment's small sizes (a check, not a figure)")
    parser.add_argument("--restart", type=int, default=0, help="which restart of Table 3.1 (default 0)")
    args = parser.parse_args()
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[variable] = "1"
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from markers import machine, package_version

    from experiments import crowd as experiment

    sizes = experiment.QUICK if args.quick else experiment.TABLE3_1
    load_before = os.getloadavg()
    rows = []
    for method in METHODS:
        wall, cpu = time.perf_counter(), time.process_time()
        (row,) = experiment.run_method(method, args.restart, sizes=sizes)
        row.update(wall_seconds=time.perf_counter() - wall, process_seconds=time.process_time() - cpu)
        rows.append(row)
        print(f"{method}: {row['wall_seconds']:.1f} s wall, {row['process_seconds']:.1f} s process, "
              f"{row['queries']} queries, held-out error {row['error']:.4f}", flush=True)
    ratio = rows[1]["wall_seconds"] / rows[0]["wall_seconds"]
    print(f"MCMC-ACT / BBMC-ACT: {ratio:.1f}x")
    report = {"machine": machine(), "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "versions": {"paucity": package_version("paucity")}, "quick": args.quick, "restart": args.restart,
              "sizes": {k: v for k, v in sizes.items() if isinstance(v, (int, float))}, "rows": rows,
              "ratio_mcmc_over_bbmc": ratio}
    from paucity.io import write_text

    write_text(json.dumps(report, indent=1, default=float), RESULTS)
    print(f"load average before {load_before}, after {report['load_average_after']}; wrote {RESULTS}")


if __name__ == "__main__":
    main()
