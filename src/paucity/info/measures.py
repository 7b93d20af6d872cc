"""Information measures in bits on discrete variables.

A variable is a 1-D array of discrete values (numbers or labels), or a 2-D
array whose columns are taken together as one joint variable (an ensemble, as
the seed writes H(UV) for H(U ∪ V)).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from .._errors import InputError, ShapeMismatchError
from . import _kernels
from .counts import entropy_of_codes

__all__ = ["entropy", "joint_entropy", "mutual_info", "conditional_mutual_info", "interaction_info"]


def _codes(variable, name: str) -> np.ndarray:
    arr = np.asarray(variable)
    if arr.ndim == 1:
        series = pd.Series(arr)
        if series.isna().any():
            raise InputError(f"{name} has missing values; every sample needs a value.")
        return pd.factorize(series, sort=True)[0].astype(np.int64)
    if arr.ndim == 2:
        if arr.shape[1] == 0:
            return np.zeros(arr.shape[0], dtype=np.int64)
        columns = [_codes(arr[:, t], f"{name}[:, {t}]") for t in range(arr.shape[1])]
        stacked = np.stack(columns, axis=1)
        return np.unique(stacked, axis=0, return_inverse=True)[1].ravel().astype(np.int64)
    raise InputError(f"{name} must be 1-D (one variable) or 2-D (a joint variable), got {arr.ndim} dimensions.")


def _joint_codes(variables) -> np.ndarray:
    if not variables:
        raise InputError("at least one variable is needed.")
    codes = [_codes(v, f"variable {t}") for t, v in enumerate(variables)]
    n = codes[0].shape[0]
    if n == 0:
        raise InputError("the variables are empty; at least one sample is needed.")
    for t, c in enumerate(codes[1:], start=1):
        if c.shape[0] != n:
            raise ShapeMismatchError(f"variable {t} has {c.shape[0]} samples but variable 0 has {n}.")
    if len(codes) == 1:
        return codes[0]
    return np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)[1].ravel().astype(np.int64)


def joint_entropy(*variables) -> float:
    """Empirical joint entropy H(v_1, ..., v_r) in bits.

    Examples
    --------
    >>> from paucity.info import joint_entropy
    >>> joint_entropy([0, 0, 1, 1], [0, 1, 0, 1])
    2.0
    """
    codes = _joint_codes(variables)
    n_codes = int(codes.max()) + 1
    return entropy_of_codes(codes, n_codes, _kernels.xlogx_table(codes.shape[0]))


def entropy(x) -> float:
    """Empirical entropy H(x) in bits.

    Notes
    -----
    Seed 000, section 2.2.1, with base-2 logarithms. Counts are turned into
    entropy as log2(n) - (1/n) sum c log2 c, the sum taken in fixed point so
    that it does not depend on the order of the counts.

    Examples
    --------
    >>> from paucity.info import entropy
    >>> entropy([0, 1, 2, 3])
    2.0
    """
    return joint_entropy(x)


def interaction_info(*variables) -> float:
    """Multivariate mutual information I_n(v_1; ...; v_n) in bits.

    Notes
    -----
    Seed 000, Proposition 2.1: the alternating sum over the non-empty subsets
    X of the variables of ``(-1)^(|X|+1) H(X)``. One variable gives its entropy,
    two their mutual information; three or more may be negative (synergy,
    Example 3).

    Examples
    --------
    >>> from paucity.info import interaction_info
    >>> x1, x2 = [0, 0, 1, 1], [0, 1, 0, 1]
    >>> y = [0, 1, 1, 0]                     # x1 XOR x2
    >>> interaction_info(x1, x2, y)
    -1.0
    """
    if not variables:
        raise InputError("at least one variable is needed.")
    _joint_codes(variables)  # validates lengths once
    total = 0.0
    for size in range(1, len(variables) + 1):
        sign = 1.0 if size % 2 == 1 else -1.0
        for subset in combinations(variables, size):
            total += sign * joint_entropy(*subset)
    return total


def mutual_info(x, y) -> float:
    """Mutual information I(x; y) = H(x) + H(y) - H(x, y) in bits.

    Examples
    --------
    >>> from paucity.info import mutual_info
    >>> mutual_info([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return interaction_info(x, y)


def conditional_mutual_info(x, y, z) -> float:
    """Conditional mutual information I(x; y | z) = H(xz) + H(yz) - H(xyz) - H(z) in bits.

    Examples
    --------
    >>> from paucity.info import conditional_mutual_info
    >>> conditional_mutual_info([0, 0, 1, 1], [0, 1, 0, 1], [0, 1, 1, 0])
    1.0
    """
    _joint_codes((x, y, z))
    xz = np.column_stack([_codes(x, "x"), _codes(z, "z")])
    yz = np.column_stack([_codes(y, "y"), _codes(z, "z")])
    xyz = np.column_stack([_codes(x, "x"), _codes(y, "y"), _codes(z, "z")])
    return joint_entropy(xz) + joint_entropy(yz) - joint_entropy(xyz) - joint_entropy(z)
