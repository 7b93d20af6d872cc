"""``paucity demo``: the tour of what paucity does, on data that ships with the install.

One module per stop; each prints its part and returns its section of the report. The tour writes
into a temporary folder beside ``--out`` and moves it into place only when every stop succeeded,
so a failed or interrupted tour leaves nothing half-written.
"""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

import typer

from .._command import one_line_errors
from .._options import quiet


def demo(
    out: Path = typer.Option(Path("paucity-demo"), "--out", "-o", help="Folder for the report and figures."),
    n_features: int = typer.Option(10, "-n", "--n-features", min=1, help="Markers per method."),
) -> None:
    """Run the tour on scanpy's bundled PBMC data: tables here, figures and a report in --out."""
    with one_line_errors():
        _check_folder(out)
        staging = out.with_name(f".{out.name}.{secrets.token_hex(4)}.tmp")
        staging.mkdir()
        try:
            _tour(staging, n_features)
            _replace_folder(staging, out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        if not quiet():
            print(f"Figures, tables and report written to {out}/ (open report.md).")


def _check_folder(out: Path) -> None:
    from ..._errors import ParameterError

    if out.exists() and not out.is_dir():
        raise ParameterError(f"--out {out} is a file; the demo writes a folder: give a folder path.")
    if not out.parent.is_dir():
        raise ParameterError(f"the folder of --out ({out.parent}) does not exist; create it first.")


def _replace_folder(new: Path, out: Path) -> None:
    """Put ``new`` where ``out`` is, keeping the old folder until the new one is in place."""
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.{secrets.token_hex(4)}.old")
        out.rename(old)
    new.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _tour(out: Path, n_features: int) -> None:
    import io as text_io

    import matplotlib

    matplotlib.use("Agg")
    from rich.console import Console

    from ... import io
    from ...datasets import pbmc68k_reduced
    from . import clustering, differences, judgments, markers, markers_benchmark, ranking

    console = Console(file=text_io.StringIO()) if quiet() else Console()
    adata = pbmc68k_reduced()
    groupby = "bulk_labels"
    report = (
        markers.run(adata, groupby, n_features, out, console)
        + markers_benchmark.run(adata, groupby, out, console)
        + ranking.run(out, console)
        + differences.run(adata, out, console)
        + judgments.run(out, console)
        + clustering.run(out, console)
    )
    io.write_text(report, out / "report.md")
