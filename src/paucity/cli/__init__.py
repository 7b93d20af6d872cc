"""The ``paucity`` command line: one module per capability, ``paucity demo`` for the tour."""

from __future__ import annotations

import typer

from ._failures import OneLineUsageCommand
from .demo import demo
from .differences import differences
from .markers import markers
from .markers_benchmark import markers_benchmark
from .multiselect import multiselect
from .rank import rank, rank_evaluate

app = typer.Typer(
    help="paucity: learning when data is scarce, noisy or costly to collect.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("markers")(markers)
app.command("markers-benchmark")(markers_benchmark)
app.command("rank")(rank)
app.command("rank-evaluate")(rank_evaluate)
app.command("differences", cls=OneLineUsageCommand)(differences)
app.command("multiselect", cls=OneLineUsageCommand)(multiselect)
app.command("demo")(demo)


def main() -> None:
    """Entry point of the ``paucity`` script."""
    app()
