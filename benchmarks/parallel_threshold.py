"""Where parallel kernels start to pay: a CIFE selection timed with every sized kernel serial, then parallel.

``paucity._jit.sized_kernel`` runs a kernel's serial dispatcher below ``PARALLEL_MIN_SIZE`` values (summed over
its array arguments) and its parallel one above. This times ``InfoSelector('cife', n_features=20).fit`` on
``make_scrna_counts`` matrices of growing size with the threshold forced to infinity (all serial) and to 0
(all parallel), each after a warm-up fit (no compile time), best of 3. Run on a quiet machine::

    python benchmarks/parallel_threshold.py
"""

from __future__ import annotations

import os
import time

import warnings

import numba

from paucity import _jit
from paucity.datasets import make_scrna_counts
from paucity.markers import InfoSelector

SIZES = [(700, 765), (2000, 1000), (5000, 2000), (10000, 2000), (20000, 2000), (50000, 2000)]


def best_fit_seconds(X, labels, repeats=3) -> float:
    InfoSelector(method="cife", n_features=20).fit(X, labels)  # warm-up: compiled or loaded
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        InfoSelector(method="cife", n_features=20).fit(X, labels)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    warnings.simplefilter("ignore")  # constant genes of the synthetic counts
    print(f"before: load average {os.getloadavg()[0]:.2f}; numba threads {numba.get_num_threads()}")
    print("| cells × genes | stored values | all serial (s) | all parallel (s) | parallel / serial | sized (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    default = _jit.PARALLEL_MIN_SIZE
    for n_cells, n_genes in SIZES:
        data = make_scrna_counts(n_cells, n_genes, random_state=0)
        times = {}
        for name, threshold in (("serial", 1 << 62), ("parallel", 0), ("sized", default)):
            _jit.PARALLEL_MIN_SIZE = threshold
            times[name] = best_fit_seconds(data.X, data.labels)
        _jit.PARALLEL_MIN_SIZE = default
        print(f"| {n_cells:,} × {n_genes:,} | {data.X.nnz:,} | {times['serial']:.3f} | {times['parallel']:.3f} | "
              f"{times['parallel'] / times['serial']:.2f} | {times['sized']:.3f} |")
    print(f"after: load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
