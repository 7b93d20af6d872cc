"""How a command fails: one line on stderr, a non-zero exit, nothing written."""

from __future__ import annotations

import contextlib
import sys

import typer
from typer.core import TyperCommand

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


class OneLineUsageCommand(TyperCommand):
    """A command whose usage errors (a missing or malformed option) are one line and exit code 2."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        with _one_line_usage(self.name):
            return super().parse_args(ctx, args)

    def invoke(self, ctx):
        with _one_line_usage(self.name):  # values are converted to their types here
            return super().invoke(ctx)


# typer raises click's UsageError, or its own copy of click's where it ships one
_USAGE_ERROR = next(kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "UsageError")


@contextlib.contextmanager
def _one_line_usage(command: str | None):
    try:
        yield
    except _USAGE_ERROR as error:
        message = " ".join(error.format_message().split())
        print(f"error: {message} (see paucity {command} --help)", file=sys.stderr)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None
