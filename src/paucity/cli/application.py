"""The ``paucity`` application: its commands, one module per capability, ``paucity demo`` for the tour."""

from __future__ import annotations

import sys

import typer

from ._command import EXIT_INTERRUPTED, PaucityCommand, PaucityGroup
from ._options import set_quiet
from .clustering import cluster_active, cluster_session
from .crowd import crowd
from .demo import demo
from .differences import differences
from .markers import markers
from .markers_benchmark import markers_benchmark
from .multiselect import multiselect
from .rank import rank, rank_evaluate, rank_suggest
from .serve import serve

app = typer.Typer(
    cls=PaucityGroup,
    help="paucity: learning when data is scarce, noisy or costly to collect.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _show_version(value: bool) -> None:
    if value:
        try:
            from .. import __version__  # importlib.metadata, tens of milliseconds: read for --version only
        except KeyboardInterrupt:  # inside the option's parsing: answered as every command answers Ctrl-C
            print("interrupted", file=sys.stderr)
            raise typer.Exit(code=EXIT_INTERRUPTED) from None
        print(f"paucity {__version__}")
        raise typer.Exit()


@app.callback()
def _group(
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars and no summaries; errors and warnings only."),
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print paucity's version and exit."
    ),
) -> None:
    """paucity: learning when data is scarce, noisy or costly to collect."""
    set_quiet(quiet)


for _name, _function in (
    ("markers", markers),
    ("markers-benchmark", markers_benchmark),
    ("rank", rank),
    ("rank-evaluate", rank_evaluate),
    ("rank-suggest", rank_suggest),
    ("differences", differences),
    ("multiselect", multiselect),
    ("cluster-active", cluster_active),
    ("crowd", crowd),
    ("demo", demo),
):
    app.command(_name, cls=PaucityCommand)(_function)
app.add_typer(cluster_session, name="cluster-session")
app.add_typer(serve, name="serve")
