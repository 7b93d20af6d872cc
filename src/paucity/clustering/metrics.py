"""How far a clustering is from a reference: the misclustering error (seed 003, §2.6)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from .._errors import InputError, ShapeMismatchError

__all__ = ["misclustering_error"]


def misclustering_error(labels, reference) -> float:
    """The fraction of items misclustered, minimized over the matchings of cluster names.

    Parameters
    ----------
    labels : array-like of shape (n,)
        A clustering (any hashable labels).
    reference : array-like of shape (n,)
        The reference clustering, e.g. spectral bisection of the complete
        matrix (:func:`~paucity.clustering.spectral_bisection`).

    Returns
    -------
    float
        min over one-to-one matchings of ``labels``' clusters to
        ``reference``'s of the fraction of items whose cluster is not matched
        to their reference cluster. With the same number of clusters this is
        the minimum over label permutations; clusters left unmatched (when the
        counts differ) count as errors.

    Notes
    -----
    Seed 003, §2.6: methods are "evaluated on the misclustering error,
    relative to a spectral clustering solution with complete data". The best
    matching is found by the Hungarian algorithm on the contingency table, so
    many clusters cost no more than two.

    Examples
    --------
    >>> misclustering_error([0, 0, 1, 1, 1], [1, 1, 0, 0, 1])  # the names are swapped, one item is wrong
    0.2
    >>> round(misclustering_error(["a", "b", "c"], [0, 0, 0]), 4)
    0.6667
    """
    left = _one_dimensional(labels, "labels")
    right = _one_dimensional(reference, "reference")
    if len(left) != len(right):
        raise ShapeMismatchError(
            f"labels has {len(left)} entries but reference has {len(right)}; give one label per item in both."
        )
    if len(left) == 0:
        raise InputError("labels and reference are empty; the error of a clustering of no items is undefined.")
    codes_left, _ = pd.factorize(pd.Series(left), sort=True)
    codes_right, _ = pd.factorize(pd.Series(right), sort=True)
    table = np.zeros((codes_left.max() + 1, codes_right.max() + 1), dtype=np.int64)
    np.add.at(table, (codes_left, codes_right), 1)
    rows, columns = linear_sum_assignment(table, maximize=True)
    return float((len(left) - table[rows, columns].sum()) / len(left))


def _one_dimensional(values, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ShapeMismatchError(f"{name} must be 1-dimensional (one label per item), got shape {array.shape}.")
    if pd.isna(pd.Series(array)).any():
        k = int(np.flatnonzero(pd.isna(pd.Series(array)).to_numpy())[0])
        raise InputError(f"{name} has a missing label at position {k}; every item needs a cluster.")
    return array
