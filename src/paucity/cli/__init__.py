"""The ``paucity`` command line: one module per capability, ``paucity demo`` for the tour.

:func:`main` is the ``paucity`` script. It imports the application (typer, rich and every command, a good
fraction of a second) inside its own guard, so that Ctrl-C while the command line starts says
``interrupted`` and exits with 130, as it does once a command runs; ``paucity.cli.app`` (:mod:`paucity.cli.application`) is loaded on first
use.
"""

from __future__ import annotations

import sys

from .._lazy import lazy_names

__all__ = ["app", "main"]

#: The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130


def main() -> None:
    """Entry point of the ``paucity`` script."""
    # Ctrl-C is answered from here on. Before this line Python starts (the interpreter and its site set-up, about
    # 25 ms on a laptop-class machine: no program can answer a Ctrl-C there) and the script imports paucity and
    # this module, about 6 ms: they import nothing else of paucity's and little of Python's (paucity.__version__
    # is read on first use, inside this guard). A Ctrl-C in those first milliseconds ends with Python's own
    # traceback, and the same exit status, 130.
    try:
        from .application import app

        app()
    except KeyboardInterrupt:  # while importing, or between the commands' own guards
        print("interrupted", file=sys.stderr)
        raise SystemExit(EXIT_INTERRUPTED) from None


__getattr__, __dir__ = lazy_names(__name__, {"app": "application"})
