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


#: Why the stops on PBMC cells need scanpy: the cells are scanpy's bundled data set.
NEEDS_SCANPY = ("marker genes of PBMC cell types", "their cross-validated benchmark",
                "differences between two cell types")


def _tour(out: Path, n_features: int) -> None:
    import importlib.util
    import io as text_io

    import matplotlib

    matplotlib.use("Agg")
    from rich.console import Console

    from ... import io
    from . import clustering, differences, judgments, markers, markers_benchmark, ranking

    console = Console(file=text_io.StringIO()) if quiet() else Console()
    groupby = "bulk_labels"
    cells = {}

    def pbmc():
        if not cells:
            from ...datasets import pbmc68k_reduced

            cells["adata"] = pbmc68k_reduced()
        return cells["adata"]

    stops = [
        (True, lambda: markers.run(pbmc(), groupby, n_features, out, console)),
        (True, lambda: markers_benchmark.run(pbmc(), groupby, out, console)),
        (False, lambda: ranking.run(out, console)),
        (True, lambda: differences.run(pbmc(), out, console)),
        (False, lambda: judgments.run(out, console)),
        (False, lambda: clustering.run(out, console)),
    ]
    have_scanpy = importlib.util.find_spec("scanpy") is not None
    skipped = ""
    if not have_scanpy:
        reason = ('scanpy is not installed, and the PBMC cells are its bundled data set: pip install "paucity[scanpy]" '
                  "runs them too")
        from rich.markup import escape

        console.print(f"[yellow]Skipping {', '.join(NEEDS_SCANPY)}[/yellow]: {escape(reason)}.")
        skipped = "\n".join(["## Skipped", "", *[f"- {stop}" for stop in NEEDS_SCANPY], "", f"Why: {reason}.", ""])
    report = "".join(run() for needs_scanpy, run in stops if have_scanpy or not needs_scanpy)
    if not have_scanpy:
        report = "# paucity demo\n\n" + skipped + "\n" + report
    io.write_text(report, out / "report.md")
