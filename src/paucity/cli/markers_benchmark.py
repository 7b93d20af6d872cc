"""``paucity markers-benchmark``: cross-validate marker selection methods on a file (seed 000, §2.6.2)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

import typer

from .._errors import ParameterError
from ._cells import LABELS, LABELS_HEADER, TRANSPOSE, read_cells
from ._command import one_line_errors
from ._options import quiet

_DEFAULT_METHODS_HELP = (
    "Comma-separated methods (default: mim,jmi,cife,mim-binary,jmi-binary,cife-binary,mrmr,"
    "t-test_overestim_var,wilcoxon,logreg,random_forest,random). Any paucity objective (mim, mifs, mrmr, jmi, "
    "cife, degree, optionally with -binary; entropy, entropy2); scanpy's t-test, t-test_overestim_var, wilcoxon, logreg; "
    "cosg (COSG, run by --cosg-python); random_forest (feature importance); random."
)


def _numbers(text: str, option: str) -> list[int]:
    values = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            values.append(int(part))
        except ValueError:
            raise ParameterError(f"{option} must be whole numbers separated by commas (e.g. 5,10,20), got {text!r}.") from None
    if not values:
        raise ParameterError(f"{option} is empty; give numbers separated by commas, e.g. 5,10,20.")
    return values


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _check_out_folder(out: Path) -> Path:
    """--out is a folder (a rerun resumes from it): not a file, and its parent folder exists and can be written."""
    if out.exists() and not out.is_dir():
        raise ParameterError(f"--out {out} is a file; give a folder for the results (a rerun resumes from it).")
    where = out if out.is_dir() else out.parent
    if not where.is_dir():
        raise ParameterError(f"the folder holding --out {out} ({where}) does not exist; create it first.")
    if not os.access(where, os.W_OK | os.X_OK):
        raise ParameterError(f"--out {out} cannot be written: no permission to write in {where}.")
    return out


def markers_benchmark(
    input: Path = typer.Argument(
        ...,
        help="An .h5ad file of counts, or a matrix (.csv/.tsv/.txt/.mtx/.parquet/10x folder), cells in rows unless "
        "--transpose, with --labels.",
    ),
    groupby: Optional[str] = typer.Option(
        None,
        "--groupby",
        help="Column of obs (or of the --labels file) holding the cell labels; with --labels, by default its only or "
        "second column.",
    ),
    n_features: str = typer.Option(
        "5,10,20,50,100", "-n", "--n-features", help="Numbers of features (markers) each method selects, comma-separated."
    ),
    n_folds: int = typer.Option(5, "--n-folds", help="Number of cross-validation folds (stratified)."),
    out: Path = typer.Option(Path("markers-benchmark"), "--out", "-o", help="Folder for results and figures; a rerun resumes from it."),
    methods: Optional[str] = typer.Option(None, "--methods", help=_DEFAULT_METHODS_HELP),
    classifiers: str = typer.Option("random_forest,nearest_centroids", "--classifiers", help="random_forest, nearest_centroids or both."),
    fold: Optional[List[int]] = typer.Option(None, "--fold", help="Run only this fold (0-based; repeat the option for more), to split a run across jobs sharing --out. A final run without --fold completes the rest."),
    folds_file: Optional[Path] = typer.Option(None, "--folds-file", help="Use the split saved in this folds.csv (from another run) instead of drawing one."),
    random_state: int = typer.Option(
        0, "--random-state", help="Seed of the folds, random forests and random baseline (0 to 2**32 - 1)."
    ),
    layer: Optional[str] = typer.Option(None, "--layer", help="Read counts from this layer of the .h5ad."),
    use_raw: Optional[bool] = typer.Option(None, "--use-raw/--no-use-raw", help="Read adata.raw (default: when present)."),
    labels: Optional[Path] = LABELS,
    labels_header: Optional[bool] = LABELS_HEADER,
    transpose: bool = TRANSPOSE,
    n_bins: int = typer.Option(5, "--n-bins", help="Bins of the recursive-quantile discretization."),
    prefilter: int = typer.Option(5000, "--prefilter", help="Bivariate methods choose among this many top-MIM genes."),
    n_top: int = typer.Option(100, "--n-top", help="Top genes whose pairs enter the I(x_i; x_j; y) histogram."),
    n_jobs: Optional[int] = typer.Option(
        None, "--n-jobs", help="The most threads for the counting kernels and random forests (default: the idle cores)"
    ),
    cosg_python: Optional[Path] = typer.Option(
        None,
        "--cosg-python",
        help="The python of a virtual environment with COSG installed (python3 -m venv cosg-env && cosg-env/bin/pip "
        "install cosg), which runs the method cosg (default: $PAUCITY_COSG_PYTHON).",
    ),
) -> None:
    """Cross-validate marker selection methods: error of two classifiers on each method's markers, per fold.

    For each fold, every method selects its markers on the other folds only; a random forest and a
    nearest-centroid classifier trained on those cells and markers predict the fold. --out receives
    results.csv (one row per method, n, fold and classifier), the figures, summary.md, and one file per
    finished result, so that a rerun with the same options resumes.

    \b
    Examples:
      paucity markers-benchmark cells.h5ad --groupby cell_type -n 5,10,20,50 --n-folds 5 --out bench
      paucity markers-benchmark counts.mtx --transpose --labels labels.csv --groupby cell_type --out bench
      paucity markers-benchmark cells.h5ad --groupby cell_type --methods jmi-binary,cosg --cosg-python cosg-env/bin/python
    """
    from rich.console import Console
    from rich.table import Table

    from .. import io
    from ..markers.benchmark import DEFAULT_METHODS, run_benchmark_adata
    from ..markers.benchmark.plots import error_table, report_markdown, write_figures

    console = Console(stderr=False)
    with one_line_errors(spelling=True):
        out = _check_out_folder(out)
        ns = _numbers(n_features, "--n-features")
        method_names = DEFAULT_METHODS if methods is None else _names(methods)
        classifier_names = _names(classifiers)
        if groupby is None and labels is None:
            raise ParameterError("the cell labels are missing: give --groupby (a column of obs) or --labels (a file).")
        adata = read_cells(input, groupby=groupby, labels=labels, labels_header=labels_header, transpose=transpose)
        groupby = groupby or "label"  # where io.read stores the labels of a file when no column is named
        result = run_benchmark_adata(
            adata,
            groupby,
            layer=layer,
            use_raw=use_raw,
            n_features=ns,
            n_folds=n_folds,
            methods=method_names,
            classifiers=classifier_names,
            random_state=random_state,
            out=out,
            folds=folds_file,
            run_folds=fold or None,
            full_data=not fold,
            n_top=n_top,
            n_bins=n_bins,
            prefilter=prefilter,
            n_jobs=n_jobs,
            progress=not quiet(),
            cosg_python=cosg_python,
        )
        figures = write_figures(result, out)
        io.write_text(report_markdown(result, figures, title=f"Marker benchmark: {input.name}, {groupby}"), out / "summary.md")

    if quiet():
        return
    for classifier in result.table["classifier"].unique():
        errors = error_table(result.table, classifier)
        view = Table(title=f"mean error rate, {classifier.replace('_', ' ')} ({result.table['fold'].nunique()} fold(s))")
        view.add_column("method")
        for column in errors.columns:
            view.add_column(column, justify="right")
        for label, row in errors.iterrows():
            view.add_row(str(label), *[str(v) for v in row.tolist()])
        console.print(view)
    if result.interactions is not None:
        inter = result.interactions
        console.print(
            f"I(x_i; x_j; y) over {inter.values.size} pairs of the top {inter.features.shape[0]} genes: "
            f"{100 * inter.negative_fraction:.1f}% negative (CIFE's guarantee, Corollary 2.14, needs none)."
        )
    typer.echo(f"results, figures and summary.md written to {out}")
