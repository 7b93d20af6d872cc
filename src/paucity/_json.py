"""Values as JSON (and h5ad attributes) hold them: the one conversion every result, setting and page uses."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["plain", "plain_number"]


def plain(value, *, describe: bool = False):
    """``value`` with numpy scalars as Python's own (``np.int64(5)`` -> ``5``, ``np.bool_`` -> ``bool``).

    Parameters
    ----------
    value : object
    describe : bool
        Also make the value fit JSON whole: tuples and lists element by element, and any object that is not
        None, a string, a number or a bool named ``"<TypeName>"`` (an estimator's parameter such as a kernel).

    Examples
    --------
    >>> plain(np.int64(5)), plain(np.float32(0.5)), plain(np.bool_(True)), plain("a")
    (5, 0.5, True, 'a')
    >>> plain((np.int64(1), "x", object()), describe=True)
    [1, 'x', '<object>']
    """
    if isinstance(value, np.generic):
        return value.item()
    if not describe or value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (tuple, list)):
        return [plain(item, describe=True) for item in value]
    return f"<{type(value).__name__}>"


def plain_number(value) -> float | None:
    """A number for JSON: a Python float, None for NaN (JSON has no NaN).

    Examples
    --------
    >>> plain_number(np.float64(0.25)), plain_number(float("nan")), plain_number(3)
    (0.25, None, 3.0)
    """
    value = float(value)
    return None if math.isnan(value) else value
