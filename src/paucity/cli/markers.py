"""``paucity markers``: marker selection on a file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._errors import ParameterError
from ._command import one_line_errors


def markers(
    input: Path = typer.Argument(..., help="An .h5ad file, or a matrix (.csv/.tsv/.mtx/.parquet/10x folder) with --labels."),
    groupby: Optional[str] = typer.Option(None, "--groupby", help="Column of obs (or of the labels file) holding the cell labels."),
    method: str = typer.Option("cife", "--method", help="cife, jmi, mim, mrmr, mifs, degree, entropy or entropy2."),
    n_features: int = typer.Option(50, "-n", "--n-features", help="Number of markers to select."),
    mode: str = typer.Option("multiclass", "--mode", help="multiclass or binary (one-vs-rest per group)."),
    layer: Optional[str] = typer.Option(None, "--layer", help="Read expression from this layer of the .h5ad."),
    use_raw: Optional[bool] = typer.Option(None, "--use-raw/--no-use-raw", help="Read adata.raw (default: when present)."),
    labels: Optional[Path] = typer.Option(None, "--labels", help="A csv/tsv of cell labels, for matrix files."),
    n_bins: int = typer.Option(5, "--n-bins", help="Bins of the recursive-quantile discretization."),
    prefilter: int = typer.Option(5000, "--prefilter", help="Bivariate methods choose among this many top-MIM genes."),
    degree: int = typer.Option(2, "--degree", help="K for --method degree."),
    n_jobs: Optional[int] = typer.Option(None, "--n-jobs", help="Threads for the counting kernels (default: all cores)."),
    out: Path = typer.Option(Path("markers.csv"), "--out", "-o", help="Where to write the table of markers (CSV)."),
) -> None:
    """Select marker genes that together explain the cell labels."""
    from .. import io
    from ..markers import select

    with one_line_errors():
        if not out.parent.exists():
            raise ParameterError(f"the folder of --out ({out.parent}) does not exist; create it first.")
        adata = io.read(input, labels=labels, labels_column=groupby if labels is not None else None)
        key = groupby or ("label" if labels is not None else None)
        unsupervised = method.lower() in ("entropy", "entropy2")
        if key is None and not unsupervised:
            raise ParameterError("--groupby is required for supervised methods (or give --labels).")
        table = select(
            adata,
            None if unsupervised else key,
            method=method,
            n_features=n_features,
            mode=mode,
            n_bins=n_bins,
            prefilter=prefilter,
            degree=degree,
            n_jobs=n_jobs,
            layer=layer,
            use_raw=use_raw,
            progress=True,
        )
        io.write_csv(table, out, index=False)
    typer.echo(f"{len(table)} markers written to {out}")
