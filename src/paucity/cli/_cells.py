"""What the commands that read cells share: the options that say how to read them, and the reading."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._errors import ParameterError

__all__ = ["LABELS", "LABELS_HEADER", "TRANSPOSE", "read_cells"]

LABELS: Optional[Path] = typer.Option(None, "--labels", help="A csv/tsv/txt of cell labels, for matrix files.")
LABELS_HEADER: Optional[bool] = typer.Option(
    None,
    "--labels-header/--no-labels-header",
    help="Whether the first row of --labels is a header (default: guessed from the file and the cell names).",
    show_default=False,
)
TRANSPOSE: bool = typer.Option(
    False, "--transpose", help="The matrix stores genes in rows (genes x cells): transpose it after reading."
)


def read_cells(path: Path, *, groupby: str | None, labels: Path | None, labels_header: bool | None, transpose: bool):
    """The AnnData of ``path``, with the --labels file's labels in obs[groupby or "label"]."""
    from .. import io

    if labels_header is not None and labels is None:
        flag = "--labels-header" if labels_header else "--no-labels-header"
        raise ParameterError(f"{flag} describes the --labels file; give --labels or drop {flag}.")
    if transpose and str(path).lower().endswith(".h5ad"):
        raise ParameterError(f"--transpose applies to matrix files (.csv/.tsv/.txt/.mtx/.parquet) that store genes in "
                             f"rows; {path} is an .h5ad, whose cells are its rows already: drop --transpose.")
    return io.read(
        path,
        labels=labels,
        labels_column=groupby if labels is not None else None,
        labels_header=labels_header,
        transpose=transpose,
    )
