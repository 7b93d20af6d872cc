"""The recursive-quantile transform (seed 000, Algorithm 2)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .._validation import Interval, check_matrix, check_parameter
from . import _kernels

__all__ = ["discretize", "N_BINS"]


class _BinCount(Interval):
    """A number of bins: at least 2 (one bin puts every value together), at most 255 (a byte)."""

    def describe(self) -> str:
        return (
            "an integer in [2, 255] (a single bin puts every value together and carries no information; "
            "a bin index is one byte)"
        )


#: The constraint on ``n_bins`` wherever data is binned.
N_BINS = _BinCount(numbers.Integral, 2, 255)


def discretize(X, n_bins: int = 5):
    """Bin each feature by recursive quantiles.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Non-negative counts or expression. Sparse input stays sparse.
    n_bins : int, default=5
        Number of bins per feature, from 2 to 255 (one bin would carry no
        information).

    Returns
    -------
    scipy.sparse.csc_matrix of uint8, or numpy.ndarray of uint8
        The bin of every value, in ``0..n_bins-1``. Sparse input gives a CSC
        matrix whose stored entries are the non-zero bins (bin 0 is implicit);
        dense input gives a dense array. The output never uses more memory than
        the input's stored values.

    Notes
    -----
    Seed 000, section 2.7.1, Algorithm 2 (QuantBins). For each feature, the
    edge of the first bin is the 1/k-quantile of all its values (zeros
    included), the edge of the next is the 1/(k-1)-quantile of the values
    above that edge, and so on; the last edge is the maximum. Quantiles are
    computed as ``numpy.quantile``'s default linear method in float64 (the
    values are promoted exactly; NumPy 2 would compute float32 input in
    float32, NumPy 1 in float64 as here). A value goes into the first bin
    whose edge is at least the value. A feature whose remaining values are
    exhausted stops early and uses fewer bins. Zeros are never materialized:
    at most the first quantile can fall among them, and then it is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.info import discretize
    >>> discretize(np.array([[0.0], [0.0], [1.0], [2.0], [3.0], [4.0]]), n_bins=3).ravel()
    array([0, 0, 1, 1, 2, 2], dtype=uint8)
    """
    n_bins = check_parameter(n_bins, "n_bins", [N_BINS], owner="discretize")
    X = check_matrix(X, name="X", nonnegative=True, sparse_format="csc")
    return discretize_validated(X, n_bins)


def discretize_validated(X, n_bins: int):
    """:func:`discretize` on input already checked (CSC or dense, finite, non-negative)."""
    n_rows = X.shape[0]
    if sp.issparse(X):
        out = np.empty(X.data.shape[0], dtype=np.uint8)
        indptr = X.indptr.astype(np.int64, copy=False)
        _kernels.discretize_csc(n_rows, indptr, X.data, n_bins, out)
        if out.all():
            return sp.csc_matrix((out, X.indices, X.indptr), shape=X.shape)
        # fresh index arrays: dropping bin-0 entries must not touch the caller's matrix
        binned = sp.csc_matrix((out, X.indices.copy(), X.indptr.copy()), shape=X.shape)
        binned.eliminate_zeros()
        return binned
    out = np.empty(X.shape, dtype=np.uint8)
    _kernels.discretize_dense(X, n_bins, out)
    return out
