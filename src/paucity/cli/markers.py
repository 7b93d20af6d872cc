"""``paucity markers``: marker selection on a file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._errors import ParameterError
from ._cells import LABELS, LABELS_HEADER, TRANSPOSE, read_cells
from ._command import one_line_errors
from ._options import quiet

def markers(
    input: Path = typer.Argument(
        ...,
        help="An .h5ad file, or a matrix (.csv/.tsv/.txt/.mtx/.parquet/10x folder), cells in rows unless --transpose, "
        "with --labels.",
    ),
    groupby: Optional[str] = typer.Option(
        None, "--groupby", help="Column of obs (or of the --labels file) holding the cell labels."
    ),
    method: str = typer.Option(
        "cife", "--method", help="cife, jmi, mim, mrmr, mifs, degree; or entropy, entropy2 (unsupervised: no labels)."
    ),
    n_features: int = typer.Option(50, "-n", "--n-features", help="Number of markers to select."),
    mode: str = typer.Option("multiclass", "--mode", help="multiclass or binary (one-vs-rest per group)."),
    layer: Optional[str] = typer.Option(None, "--layer", help="Read expression from this layer of the .h5ad."),
    use_raw: Optional[bool] = typer.Option(
        None, "--use-raw/--no-use-raw", help="Read adata.raw (default: when present and no --layer).", show_default=False
    ),
    labels: Optional[Path] = LABELS,
    labels_header: Optional[bool] = LABELS_HEADER,
    transpose: bool = TRANSPOSE,
    n_bins: int = typer.Option(5, "--n-bins", help="Bins of the recursive-quantile discretization (2 to 255)."),
    prefilter: int = typer.Option(5000, "--prefilter", help="Bivariate methods choose among this many top-MIM genes."),
    beta: Optional[float] = typer.Option(None, "--beta", help="Redundancy weight of --method mifs (default 1)."),
    degree: Optional[int] = typer.Option(None, "--degree", help="K of --method degree (default 2)."),
    n_jobs: Optional[int] = typer.Option(None, "--n-jobs", help="Most threads for the counting kernels (default: the idle cores)."),
    out: Path = typer.Option(Path("markers.csv"), "--out", "-o", help="Where to write the table of markers (CSV)."),
) -> None:
    """Select marker genes that together explain the cell labels.

    The table written to --out has one row per marker, in selection order: names (the gene), group (binary
    mode: the group whose list gave it), step (the greedy step it was chosen at), selection_scores (the
    objective's bits at that step), scores (the gene's mutual information with the labels, in bits; its
    entropy for the unsupervised methods) and feature_index (its column in the matrix). Nothing is written
    when the command fails.

    \b
    Examples:
      paucity markers cells.h5ad --groupby cell_type --method cife -n 50 --out markers.csv
      paucity markers counts.mtx --transpose --labels labels.csv --mode binary -n 50 --out markers.csv
    """
    from .. import io
    from ..markers import find_markers
    from ..markers.objectives import METHODS, SUPERVISED

    with one_line_errors(spelling=True):
        out = io.check_output_path(out, option="--out")
        known, supervised = method.lower() in METHODS, method.lower() in SUPERVISED  # an unknown one: the library says so
        if supervised and groupby is None and labels is None:
            raise ParameterError(
                f"--method {method} needs cell labels: give --groupby (a column of obs) or --labels (a file)."
            )
        if known and not supervised and (groupby is not None or labels is not None):
            given = "--groupby" if groupby is not None else "--labels"
            raise ParameterError(
                f"--method {method} is unsupervised and uses no labels, so {given} would be ignored; drop it."
            )
        adata = read_cells(input, groupby=groupby, labels=labels, labels_header=labels_header, transpose=transpose)
        result = find_markers(
            adata,
            (groupby or "label") if supervised else None,
            method=method,
            n_features=n_features,
            mode=mode,
            n_bins=n_bins,
            prefilter=prefilter,
            beta=beta,
            degree=degree,
            n_jobs=n_jobs,
            layer=layer,
            use_raw=use_raw,
            progress=not quiet(),
        )
        table = result.to_frame()
        io.write_csv(table, out, index=False)
    if not quiet():
        typer.echo(f"{len(table)} markers written to {out}")
