"""Renamed parameters: the old name keeps working for a while, with a ``FutureWarning`` (one helper for all)."""

from __future__ import annotations

from ._errors import ParameterError, warn

__all__ = ["renamed_parameter"]


def renamed_parameter(owner: str, old_name: str, old, new_name: str, new, *, stacklevel: int = 3):
    """The value of a renamed parameter given by its old name (a ``FutureWarning``), refusing both at once.

    Parameters
    ----------
    owner : str
        The function or estimator, named in the messages.
    old_name, new_name : str
        The parameter's old and new names.
    old, new
        The values given for each (None when not given).
    stacklevel : int
        Ignored: the warning points at the user's line, found on the stack (:func:`paucity._errors.warn`).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed_parameter("PDA", "k", 3, "n_features", None)
    3
    >>> str(caught[0].message)
    'PDA(k=...) is deprecated and will be removed; use n_features= (the same thing, renamed).'
    """
    if old is None:
        return new
    warn(
        f"{owner}({old_name}=...) is deprecated and will be removed; use {new_name}= (the same thing, renamed).",
        FutureWarning,
    )
    if new is not None:
        raise ParameterError(f"{owner}: give {new_name}= only ({old_name}= is its deprecated old name), not both.")
    return old
