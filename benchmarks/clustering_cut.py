"""The final cut of spectral bisection: paucity's three rules beside scikit-learn's SpectralClustering.

Run from the repository root::

    python benchmarks/clustering_cut.py            # 20 draws of each case

Cases (fixed seeds): two overlapping Gaussian blobs of 60 and 40 points in the plane (centres 2 standard
deviations apart, similarities exp(−‖x − y‖²/2)); the same at 300 + 200; and random symmetric matrices with
uniform entries (no structure: every method should be at chance). For each draw and method: the sizes of the
two clusters, their agreement with the planted labels (1 − misclustering error; for random matrices, with a
random labelling of the same sizes, so chance is about 0.5), and the RatioCut and normalized cut of the
partition on the complete matrix. scikit-learn's ``SpectralClustering(n_clusters=2, affinity="precomputed",
random_state=0)`` is the anchor (normalized Laplacian embedding and k-means). Writes
``benchmarks/results/clustering_cut.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "clustering_cut.json"


def blobs(sizes, rng, separation=2.0):
    X = np.r_[rng.normal(0.0, 1.0, (sizes[0], 2)), rng.normal(0.0, 1.0, (sizes[1], 2)) + [separation, 0.0]]
    labels = np.r_[np.zeros(sizes[0], int), np.ones(sizes[1], int)]
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    return W, labels


def random_matrix(n, rng):
    A = rng.uniform(0.0, 1.0, (n, n))
    W = np.triu(A, 1)
    W = W + W.T
    np.fill_diagonal(W, 1.0)
    return W, rng.permutation(np.r_[np.zeros(n // 2, int), np.ones(n - n // 2, int)])


def cuts(W, labels):
    W = W.copy()
    np.fill_diagonal(W, 0.0)
    A = labels == labels[0]
    cut = W[A][:, ~A].sum()
    degrees = W.sum(1)
    ratio = cut * (1 / A.sum() + 1 / (~A).sum())
    normalized = cut * (1 / degrees[A].sum() + 1 / degrees[~A].sum())
    return float(ratio), float(normalized)


def methods():
    from sklearn.cluster import SpectralClustering

    from paucity.clustering import spectral_bisection

    def sklearn(W):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return SpectralClustering(n_clusters=2, affinity="precomputed", random_state=0).fit_predict(W)

    return {
        "paucity sign": lambda W: spectral_bisection(W),
        "paucity ratio": lambda W: spectral_bisection(W, cut="ratio"),
        "paucity normalized": lambda W: spectral_bisection(W, cut="normalized"),
        "scikit-learn": sklearn,
    }


def run(draws: int) -> dict:
    from paucity.clustering import misclustering_error

    cases = {
        "blobs 60 + 40": lambda rng: blobs((60, 40), rng),
        "blobs 300 + 200": lambda rng: blobs((300, 200), rng),
        "random 100": lambda rng: random_matrix(100, rng),
    }
    table = {}
    for case, make in cases.items():
        rows = {name: [] for name in methods()}
        for draw in range(draws):
            W, planted = make(np.random.default_rng(draw))
            for name, method in methods().items():
                labels = np.asarray(method(W))
                ratio, normalized = cuts(W, labels)
                small = int(min(np.bincount(labels, minlength=2)))
                rows[name].append((1 - misclustering_error(labels, planted), ratio, normalized, small))
        table[case] = {name: dict(zip(("agreement", "ratio_cut", "normalized_cut", "smaller_cluster"),
                                      map(float, np.mean(values, axis=0))))
                       for name, values in rows.items()}
        for name, row in table[case].items():
            print(f"{case:16s} {name:20s} agreement {row['agreement']:.3f}  RatioCut {row['ratio_cut']:.3f}  "
                  f"NCut {row['normalized_cut']:.4f}  smaller cluster {row['smaller_cluster']:.1f}", flush=True)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    table = run(args.draws)
    from paucity.io import write_text

    write_text(json.dumps({"draws": args.draws, "cases": table}, indent=1), RESULTS)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
