"""What the commands that read long tables share: a column named by an option must be in the table."""

from __future__ import annotations

from pathlib import Path

from .._errors import InputError

__all__ = ["check_columns"]


def check_columns(frame, path: Path, columns: dict) -> None:
    """Every column named by an option (option -> column; None is not asked for) is a column of the table."""
    for option, column in columns.items():
        if column is not None and column not in frame.columns:
            shown = ", ".join(map(repr, list(frame.columns)[:10]))
            raise InputError(f"{option} {column!r} is not a column of {path}; its columns are {shown}.")
