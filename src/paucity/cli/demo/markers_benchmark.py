"""The tour's second stop: do the markers predict the cell type of unseen cells? (seed 000, §2.6.2)"""

from __future__ import annotations

from ..._compile import Stopwatch


def run(adata, groupby, out, console) -> str:
    """A small version of the cross-validation benchmark (seed 000, §2.6.2); returns the report's paragraph."""
    from rich.table import Table

    from ... import io
    from ...markers.benchmark import run_benchmark
    from ...markers.benchmark.plots import error_table, plot_error_curves

    console.rule("[bold]Do the markers predict the cell type of unseen cells?")
    methods = ["mim", "cife", "cife-binary", "t-test_overestim_var", "random"]
    clock = Stopwatch()
    # .raw holds log1p of normalized counts; expm1 gives back counts for the protocol's own scaling
    result = run_benchmark(
        adata.raw.X.expm1(),
        adata.obs[groupby].to_numpy(),
        n_features=[5, 10],
        n_folds=3,
        run_folds=[0],
        methods=methods,
        full_data=False,
        feature_names=adata.raw.var_names,
    )
    seconds = clock.seconds
    tables = {classifier: error_table(result.table, classifier) for classifier in ("random_forest", "nearest_centroids")}
    view = Table(title="error rate on fold 1 of 3 (markers chosen on the other two folds only)")
    view.add_column("method")
    for classifier, errors in tables.items():
        short = "forest" if classifier == "random_forest" else "centroids"
        for column in errors.columns:
            view.add_column(f"{short} {column}", justify="right")
    for label in tables["random_forest"].index:
        view.add_row(label, *[cell for errors in tables.values() for cell in errors.loc[label].tolist()])
    console.print(view)
    console.print(f"({seconds:.1f} s; the full protocol is `paucity markers-benchmark`, see docs/markers-benchmark.md)")
    figure = plot_error_curves(result.table, "random_forest", title="random forest on fold 1 of 3: error against markers")
    io.write_figure(figure, out / "benchmark_errors.png", dpi=100)

    summary = result.summary()
    forest = summary[summary["classifier"] == "random_forest"].set_index(["method", "mode", "n_requested"])["error_rate"]
    lines = [
        "",
        "## Do the markers predict the cell type of unseen cells?",
        "",
        "A small version of the seed's cross-validation (§2.6.2): the cells are split into 3 stratified folds; on "
        "two of them each method chooses 5 and 10 genes, a random forest (100 trees, counts scaled to 1,000 per "
        "cell, log1p) and a nearest-centroid classifier (log1p, top principal components) are trained on those "
        "genes, and both predict the cell type of the third fold. Binary methods take ⌈n/c⌉ genes per cell type, "
        "so with 10 types they use 10 genes (fewer after duplicates) even when 5 are asked for.",
        "",
        "![benchmark](benchmark_errors.png)",
        "",
        "| method | " + " | ".join(f"{c.replace('_', ' ')} {n}" for c in tables for n in tables[c].columns) + " |",
        "|---|" + "---:|" * sum(len(t.columns) for t in tables.values()),
    ]
    for label in tables["random_forest"].index:
        lines.append(f"| {label} | " + " | ".join(cell for t in tables.values() for cell in t.loc[label].tolist()) + " |")
    lines += [
        "",
        f"With 10 genes the random forest errs on {forest[('mim', 'multiclass', 10)]:.0%} of the held-out cells with "
        f"MIM's genes, {forest[('cife', 'multiclass', 10)]:.0%} with CIFE's and {forest[('cife', 'binary', 10)]:.0%} "
        f"with binary CIFE's, against {forest[('random', 'multiclass', 10)]:.0%} with 10 random genes. "
        f"One fold of {result.folds.test_indices(0).size} cells is a noisy estimate: run `paucity markers-benchmark` for all folds, more marker "
        "counts and methods.",
        "",
    ]
    return "\n".join(lines)
