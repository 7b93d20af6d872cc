"""How a command fails: one line on stderr, a non-zero exit, nothing written."""

from __future__ import annotations

import contextlib
import sys

import typer

from .._errors import PaucityError

EXIT_BAD_INPUT = 2


@contextlib.contextmanager
def one_line_errors():
    """Turn paucity's errors (and unreadable paths) into a one-line message and exit code 2."""
    try:
        yield
    except (PaucityError, OSError, ImportError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"error: {message}", file=sys.stderr)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None
