"""The tour's clustering stop: which similarities to pay for (seed 003, chapter 2)."""

from __future__ import annotations


def run(out, console) -> str:
    """Cluster two iris species from a fraction of their pairwise similarities; returns the report's section."""
    import numpy as np
    import pandas as pd
    from rich.table import Table
    from sklearn.datasets import load_iris

    from ... import io
    from ...clustering import ActiveSpectralClustering, MatrixOracle, misclustering_error, spectral_bisection

    console.rule("[bold]Which similarities are worth paying for? Active spectral clustering")
    data = load_iris()
    keep = data.target < 2  # setosa and versicolor
    X = data.data[keep]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    squared = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    n = len(X)
    sigma = 0.5 * np.median(np.sqrt(squared[np.triu_indices(n, 1)]))  # the width rule of experiments/clustering.py
    W = np.exp(-squared / (2 * sigma**2))
    reference = spectral_bisection(W)
    pairs = n * (n - 1) // 2
    budget = 0.15
    console.print(
        f"{n} irises of two species (scikit-learn's bundled data), similarities by a Gaussian kernel on the 4 "
        f"standardized measurements. Pretend each of the {pairs:,} similarities costs money: measure {budget:.0%} "
        "of them, chosen by IU-RED, by S&T or at random, and compare with the clustering of the complete matrix."
    )
    strategies = [("IU-RED", "iu_red"), ("S&T", "shamir_tishby"), ("random", "random")]
    marks = (0.05, 0.10, 0.15)
    rows, curves = [], []
    for label, strategy in strategies:
        model = ActiveSpectralClustering(strategy=strategy, budget=budget, random_state=0)
        model.fit(MatrixOracle(W), reference=reference)
        history = model.history_
        at = [float(history.loc[history["fraction"] <= mark + 1e-12, "error"].iloc[-1]) for mark in marks]
        rows.append((label, *at))
        curves.append(history.assign(strategy=label))
    view = Table(title="Error against the complete-data clustering, by the share of pairs measured")
    view.add_column("strategy")
    for mark in marks:
        view.add_column(f"{mark:.0%} of pairs", justify="right")
    for label, *errors in rows:
        view.add_row(label, *[f"{error:.3f}" for error in errors])
    console.print(view)
    species_error = misclustering_error(reference, data.target[keep])
    console.print(
        f"(the complete-data clustering misplaces {species_error:.1%} of the irises against their species; "
        "guide: docs/clustering.md; the human loop from files: `paucity cluster-session`)"
    )
    io.write_csv(pd.concat(curves, ignore_index=True), out / "clustering_iris_curves.csv", index=False)
    lines = [
        "",
        "## Which similarities are worth paying for? Active spectral clustering",
        "",
        f"{n} irises of two species (setosa, versicolor), Gaussian-kernel similarities on the standardized "
        f"measurements; up to {budget:.0%} of the {pairs:,} pairs measured, chosen by IU-RED, S&T or at random "
        "(seed 003, chapter 2). Error relative to the clustering of the complete matrix (which misplaces "
        f"{species_error:.1%} of the irises against their species); the curves are in "
        "`clustering_iris_curves.csv`.",
        "",
        "| strategy | " + " | ".join(f"{mark:.0%} of pairs" for mark in marks) + " |",
        "|---|" + "---:|" * len(marks),
    ]
    lines += ["| " + " | ".join([label] + [f"{error:.3f}" for error in errors]) + " |" for label, *errors in rows]
    lines.append("")
    return "\n".join(lines)
