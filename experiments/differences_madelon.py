"""MADELON feature selection: relevant features found against features selected (seed 004, "Feature Selection").

The seed runs SPARDA on the two classes of the NIPS 2003 MADELON data (n = m =
1,000, d = 500, 20 relevant features whose differences lie in interactions)
and plots, over each method's regularization path, how many of the 20 relevant
features are among those selected: SPARDA, the top sparse principal component,
sparse linear discriminant analysis and the ℓ₁-penalized logistic regression.
Its claims: λ chosen by held-out divergence selects 46 features of which 17
are relevant; many λ give 14 relevant features and no false positive; the
challenge's winner found 8 of the 20.

The data here are generated as the issue prescribes (scikit-learn's
``make_classification`` with MADELON's parameters, ``shuffle=False`` so the 20
relevant features are the first 20), standardized on the pooled samples.

- SPARDA: ``PDA(sparsity="l1", lam=λ)`` over :func:`paucity.differences.lambda_grid`,
  with its support rules and without them (``support_rules=False``: the
  selection is exactly RELAX's support), and ``PDACV`` for the
  cross-validated λ.
- Top sparse principal component of the pooled data: the truncated power
  method (Yuan & Zhang 2013) for each cardinality.
- Sparse LDA: for two classes, the optimal-scoring form of sparse discriminant
  analysis (Clemmensen et al. 2011) is the lasso regression of the ±1 class
  score on the features; its path is ``sklearn.linear_model.lasso_path``.
- ℓ₁-logistic regression: ``LogisticRegression(penalty="l1")`` over C.

Writes ``experiments/results/differences_madelon.csv`` (one row per method and
setting) and ``docs/figures/differences_madelon.png``.

Run: ``python experiments/differences_madelon.py`` (about 10–20 minutes on 2
cores), ``--quick`` for a smoke run on 200 features and short solves.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from paucity.differences import PDA, PDACV, lambda_grid

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results" / "differences_madelon.csv"
FIGURE = ROOT / "docs" / "figures" / "differences_madelon.png"
N_RELEVANT = 20


def madelon(n_features: int = 500, random_state: int = 0):
    """The two classes of a MADELON-like problem, standardized on the pooled samples."""
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=2000,
        n_features=n_features,
        n_informative=5,
        n_redundant=15,
        n_repeated=0,
        n_clusters_per_class=16,
        shuffle=False,
        random_state=random_state,
    )
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[y == 0], X[y == 1], X, y


def _row(method: str, setting: float, selected, seconds: float, **extra) -> dict:
    selected = np.asarray(selected, dtype=np.int64)
    return {
        "method": method,
        "setting": float(setting),
        "n_selected": int(len(selected)),
        "n_relevant": int(np.sum(selected < N_RELEVANT)),
        "seconds": round(seconds, 2),
        **extra,
    }


def sparda_path(X, Y, lams, max_iter: int) -> list[dict]:
    """SPARDA at every λ, with PDA's support rules (method "SPARDA") and without them ("SPARDA, RELAX's support")."""
    rows = []
    for lam in lams:
        for method, rules in (("SPARDA", True), ("SPARDA, RELAX's support", False)):
            start = time.perf_counter()
            model = PDA(sparsity="l1", lam=float(lam), max_iter=max_iter, random_state=0,
                        support_rules=rules).fit(X, Y)
            beta = model.relaxation_.beta
            rows.append(_row(method, lam, model.selected_, time.perf_counter() - start,
                             divergence=model.divergence_, tightness=model.relaxation_.tightness,
                             relax_support=int(np.sum(np.abs(beta) > 1e-6 * np.abs(beta).max()))))
            print(f"{method} lam={lam:.4f}: {rows[-1]['n_selected']} selected, {rows[-1]['n_relevant']} relevant "
                  f"({rows[-1]['seconds']} s)", flush=True)
    return rows


def sparda_cv(X, Y, lams, max_iter: int) -> dict:
    start = time.perf_counter()
    model = PDACV(lams=lams, max_iter=max_iter, random_state=0).fit(X, Y)
    row = _row("SPARDA (cross-validated λ)", model.lam_, model.selected_, time.perf_counter() - start,
               divergence=model.divergence_)
    print(f"PDACV chose lam={model.lam_:.4f}: {row['n_selected']} selected, {row['n_relevant']} relevant", flush=True)
    print(model.cv_results_.to_string(index=False), flush=True)
    return row


def truncated_power(covariance: np.ndarray, k: int, n_iter: int = 200) -> np.ndarray:
    """The top k-sparse principal component by the truncated power method, started from the top PC."""
    values, vectors = np.linalg.eigh(covariance)
    x = vectors[:, -1].copy()
    for _ in range(n_iter):
        y = covariance @ x
        keep = np.argsort(-np.abs(y))[:k]
        z = np.zeros_like(y)
        z[keep] = y[keep]
        z /= np.linalg.norm(z)
        if np.allclose(z, x):
            break
        x = z
    return np.flatnonzero(x)


def sparse_pca_path(pooled: np.ndarray, ks) -> list[dict]:
    covariance = np.cov(pooled, rowvar=False)
    rows = []
    for k in ks:
        start = time.perf_counter()
        rows.append(_row("top sparse PC", k, truncated_power(covariance, int(k)), time.perf_counter() - start))
    return rows


def sparse_lda_path(pooled: np.ndarray, labels: np.ndarray, n_alphas: int) -> list[dict]:
    from sklearn.linear_model import lasso_path

    score = np.where(labels == 1, 1.0, -1.0)
    start = time.perf_counter()
    alphas, coefs, _ = lasso_path(pooled, score - score.mean(), n_alphas=n_alphas, eps=1e-3)
    seconds = (time.perf_counter() - start) / len(alphas)
    return [_row("sparse LDA", alpha, np.flatnonzero(coefs[:, k]), seconds) for k, alpha in enumerate(alphas)]


def logistic_path(pooled: np.ndarray, labels: np.ndarray, n_cs: int) -> list[dict]:
    from sklearn.linear_model import LogisticRegression

    rows = []
    for c in np.geomspace(1e-3, 1.0, n_cs):
        start = time.perf_counter()
        model = LogisticRegression(l1_ratio=1.0, C=float(c), solver="liblinear", max_iter=2000).fit(pooled, labels)
        rows.append(_row("l1-logistic", c, np.flatnonzero(model.coef_[0]), time.perf_counter() - start))
    return rows


def plot(frame: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from paucity.io import write_figure

    colours = {"SPARDA": "red", "top sparse PC": "black", "sparse LDA": "green", "l1-logistic": "blue"}
    rules_off = frame[frame["method"] == "SPARDA, RELAX's support"].sort_values("n_selected")
    rules_off = rules_off[rules_off["n_selected"] > 0]
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for method, colour in colours.items():
        part = frame[frame["method"] == method].sort_values("n_selected")
        part = part[part["n_selected"] > 0]
        ax.plot(part["n_selected"], part["n_relevant"], "o-", color=colour, label=method, markersize=4)
    if len(rules_off):
        ax.plot(rules_off["n_selected"], rules_off["n_relevant"], "s--", color="red", markerfacecolor="none",
                markersize=6, label="SPARDA without the support rules")
    cv = frame[frame["method"] == "SPARDA (cross-validated λ)"]
    if len(cv):
        ax.plot(cv["n_selected"], cv["n_relevant"], "*", color="red", markersize=16, label="SPARDA, λ by held-out divergence")
    ax.set_xscale("log")
    ax.set_xlim(0.8, 600)
    ax.set_ylim(0, 21)
    ax.axhline(N_RELEVANT, color="grey", linewidth=0.5, linestyle=":")
    ax.set_xlabel("features selected")
    ax.set_ylabel("relevant features among them (of 20)")
    ax.set_title("MADELON stand-in (draw 0): relevant features found over each path")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_figure(fig, path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 features, short solves, no files written")
    args = parser.parse_args()
    n_features = 200 if args.quick else 500
    max_iter = 60 if args.quick else 300
    X, Y, pooled, labels = madelon(n_features)
    grid = lambda_grid(X, Y, n_lams=4 if args.quick else 10, ratio=0.02)
    print(f"MADELON: X {X.shape}, Y {Y.shape}; lambda grid {np.round(grid, 4).tolist()}", flush=True)
    rows = sparda_path(X, Y, grid, max_iter)
    rows.append(sparda_cv(X, Y, grid[:: 2 if args.quick else 1], max_iter))
    rows += sparse_pca_path(pooled, [1, 2, 3, 5, 8, 10, 14, 20, 30, 46, 70, 100, 150, 250, 500][: 6 if args.quick else None])
    rows += sparse_lda_path(pooled, labels, 10 if args.quick else 40)
    rows += logistic_path(pooled, labels, 6 if args.quick else 20)
    frame = pd.DataFrame(rows)
    for method, part in frame.groupby("method", sort=False):
        clean = part[(part["n_relevant"] == part["n_selected"]) & (part["n_selected"] > 0)]
        small = part[part["n_selected"] <= 50]
        print(f"{method}: most relevant with no false positive = {int(clean['n_relevant'].max()) if len(clean) else 0}; "
              f"most relevant at <= 50 selected = {int(small['n_relevant'].max()) if len(small) else 0}")
    if args.quick:
        return
    from paucity.io import write_csv

    write_csv(frame, RESULTS, index=False)
    plot(frame, FIGURE)
    print(f"wrote {RESULTS.relative_to(ROOT)} and {FIGURE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
