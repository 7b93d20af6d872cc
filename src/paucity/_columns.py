"""The one check of a table's columns, which every container's ``from_frame`` and every command use.

It imports pandas only when it runs, so that a command line can import it without pandas' import time.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._errors import InputError, InputTypeError
from ._spelling import named

__all__ = ["check_columns"]


def check_columns(frame, columns, *, what: str = "the table") -> None:
    """Refuse a table that lacks a column asked for, naming the column, its role and how it was asked for.

    The one check of the columns a container's ``from_frame`` reads (and a
    command's options name): the message names the role as the caller wrote
    it, ``i=`` in Python or ``--i-column`` on a command line
    (:func:`paucity._spelling.named`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    columns : mapping of str to hashable or None
        The role of each column (the keyword of ``from_frame``: ``"i"``,
        ``"value"``, ``"task"``...) -> the column's name asked for; None is
        not asked for and is not checked.
    what : str
        How the message names the table (its path, on a command line).

    Raises
    ------
    InputTypeError
        ``frame`` is not a pandas DataFrame, or ``columns`` not a mapping.
    InputError
        A column asked for is not in the table (the first such role, in the
        order of ``columns``).

    Examples
    --------
    >>> import pandas as pd
    >>> games = pd.DataFrame({"home": ["a"], "away": ["b"]})
    >>> check_columns(games, {"i": "home", "j": "away", "weights": None})
    >>> check_columns(games, {"i": "home", "j": "guest"})
    Traceback (most recent call last):
    ...
    paucity._errors.InputError: the table has no column 'guest' (the j column, j=); its columns are 'home', 'away'.
    >>> from paucity._spelling import option_spelling
    >>> with option_spelling({"j": "--j-column"}):
    ...     check_columns(games, {"j": "guest"}, what="games.csv")
    Traceback (most recent call last):
    ...
    paucity._errors.InputError: games.csv has no column 'guest' (the j column, --j-column); its columns are 'home', 'away'.
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise InputTypeError(f"{what} must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(columns, Mapping):
        raise InputTypeError(f"the columns to check must be a mapping of role to column name, got {type(columns).__name__}.")
    for role, column in columns.items():
        if column is None:
            continue
        try:
            present = column in frame.columns
        except (TypeError, ValueError):  # a list or another unhashable name is no column
            present = False
        if not present:
            names = list(frame.columns)
            shown = ", ".join(map(repr, names[:10])) + (", ..." if len(names) > 10 else "")
            listed = f"its columns are {shown}" if names else "it has no columns"
            raise InputError(f"{what} has no column {column!r} (the {role} column, {named(str(role))}); {listed}.")
