"""What SPARDA's prefilter changes: the same fits with ``prefilter="auto"`` (200 features) and ``prefilter=None``.

Run with paucity's development Python from the repository root::

    python benchmarks/differences_prefilter.py

Three problems of 1,000 against 1,000 rows and 600 features (small enough for the fit on every feature),
each SPARDA with ``n_features=10``, ``random_state=0``, draws 0 of each generator:

- **shift**: independent standard normal features; 10 of them shifted by 0.25 in the second sample
  (the synthetic of ``differences_scale.py`` at a smaller size);
- **cells**: ``make_scrna_counts(n_cells=4_000, n_genes=600, n_types=4, n_markers=90)``, log1p, the
  two largest types; the planted features are their marker genes;
- **correlation**: independent standard normal features, except that in the second sample features
  0–9 share a common factor (each is ``(z_j + f)/√2``): every feature keeps its N(0, 1) marginal, only
  their joint law changes. A marginal screen cannot see it: this is where the prefilter is unsafe.

Printed: CPU seconds, D on the training rows and the planted features among the 10 selected, with
and without the prefilter; saved to ``benchmarks/results/differences_prefilter.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"


def shift(seed=0, n=1000, d=600):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    planted = np.sort(rng.choice(d, size=10, replace=False))
    Y[:, planted] += 0.25
    return X, Y, set(planted.tolist())


def cells(seed=0, n=1000, d=600):
    from paucity.datasets import make_scrna_counts

    data = make_scrna_counts(n_cells=4 * n, n_genes=d, n_types=4, n_markers=90, random_state=seed)
    values = data.X.log1p().toarray()
    sizes = np.bincount(data.labels)
    first, second = np.sort(np.argsort(-sizes, kind="stable")[:2])
    planted = set(np.concatenate([data.marker_genes[first], data.marker_genes[second]]).tolist())
    return values[data.labels == first], values[data.labels == second], planted


def correlation(seed=0, n=1000, d=600):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    factor = rng.standard_normal((n, 1))
    Y[:, :10] = (Y[:, :10] + factor) / np.sqrt(2.0)
    return X, Y, set(range(10))


def main() -> None:
    from paucity.differences import PDA

    rows = []
    for name, make in (("shift", shift), ("cells", cells), ("correlation", correlation)):
        X, Y, planted = make()
        for prefilter in ("auto", None):
            start = time.process_time()
            model = PDA(sparsity="l1", n_features=10, prefilter=prefilter, random_state=0).fit(X, Y)
            seconds = time.process_time() - start
            found = sum(int(j) in planted for j in model.selected_)
            row = {"data": name, "prefilter": prefilter, "cpu_s": seconds, "divergence": model.divergence_,
                   "found": found, "selected": model.selected_.tolist()}
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print("| data | prefilter | CPU (s) | D (training rows) | planted among the 10 selected |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['data']} | {row['prefilter']} | {row['cpu_s']:.1f} | {row['divergence']:.4f} | {row['found']} |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "differences_prefilter.json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
