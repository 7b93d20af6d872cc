"""The I(x_i; x_j; y) diagnostic over pairs of top features (seed 000, Figure 2.7 and Corollary 2.14)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..._validation import check_labels, check_matrix, check_positive_int

__all__ = ["NEGATIVE_TOLERANCE", "PairInteractions", "pair_interactions"]

NEGATIVE_TOLERANCE = 1e-9
"""I(x_i; x_j; y) below minus this counts as negative."""


@dataclass(frozen=True, eq=False)
class PairInteractions:
    """I(x_i; x_j; y) over the pairs of the top features (the seed's Figure 2.7).

    Attributes
    ----------
    features : numpy.ndarray of int64
        The top features by I(x; y), best first.
    first, second : numpy.ndarray of int64
        The two features of each pair (column indices).
    values : numpy.ndarray of float64
        I(x_i; x_j; y) in bits: positive for redundancy, negative for synergy.
    """

    features: np.ndarray
    first: np.ndarray
    second: np.ndarray
    values: np.ndarray

    @property
    def negative_fraction(self) -> float:
        """Fraction of pairs with I(x_i; x_j; y) < 0, where Corollary 2.14's hypothesis fails."""
        if self.values.size == 0:
            return 0.0
        return float(np.mean(self.values < -NEGATIVE_TOLERANCE))

    def to_frame(self, feature_names=None) -> pd.DataFrame:
        """The pairs as a table (``feature_i``, ``feature_j``, ``interaction``; gene names when given)."""
        table = pd.DataFrame({"feature_i": self.first, "feature_j": self.second, "interaction": self.values})
        if feature_names is not None:
            names = np.asarray(feature_names, dtype=str)
            table.insert(2, "gene_i", names[self.first])
            table.insert(3, "gene_j", names[self.second])
        return table


def pair_interactions(X, y, *, n_top: int = 100, n_bins: int | None = 5, n_jobs=None) -> PairInteractions:
    """I(x_i; x_j; y) for every pair of the ``n_top`` features of highest I(x; y).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Counts (binned here), or bins when ``n_bins=None``.
    y : array-like of shape (n_samples,)
        Class labels.
    n_top : int, default=100
        Features taken, by decreasing I(x; y) (ties: lowest index); gives
        n_top (n_top - 1) / 2 pairs.
    n_bins : int or None, default=5
        Bins of the recursive-quantile discretization; None when X is
        already discretized.
    n_jobs : int or None
        Threads of the counting kernels.

    Returns
    -------
    PairInteractions
        With ``negative_fraction``, the share of pairs that break the
        hypothesis I(x_i; x_j; y) >= 0 of Corollary 2.14 (CIFE's guarantee).

    Notes
    -----
    Seed 000, Figure 2.7 and Corollary 2.14; I(x_i; x_j; y) =
    I(x_i; x_j) - I(x_i; x_j | y) (Proposition 2.1), counted on the binned
    data with :func:`paucity.info.candidate_interactions`, one pass per top
    feature.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark import pair_interactions
    >>> x1 = np.tile([0, 0, 1, 1], 25); x2 = np.tile([0, 1, 0, 1], 25)
    >>> result = pair_interactions(np.column_stack([x1, x2]), x1 ^ x2, n_bins=None)
    >>> result.values.tolist(), result.negative_fraction        # XOR: pure synergy
    ([-1.0], 1.0)
    """
    from ..._parallel import kernel_threads
    from ..._validation import check_discrete_matrix
    from ...info import BinnedMatrix, candidate_interactions
    from ...info.discretize import discretize_validated

    n_top = check_positive_int(n_top, "n_top", minimum=2)
    if n_bins is None:
        X = check_discrete_matrix(X, name="X")
    else:
        n_bins = check_positive_int(n_bins, "n_bins", maximum=255, maximum_name="the largest bin count")
        X = check_matrix(X, name="X", nonnegative=True, sparse_format="csc")
    codes, classes, keep = check_labels(y, X.shape[0], name="y")
    with kernel_threads(n_jobs):
        if n_bins is not None:
            X = discretize_validated(X, n_bins)
        binned = BinnedMatrix.from_binned(X)
        if keep is not None:
            binned = binned.restrict_rows(keep)
        n_classes = len(classes)
        columns = np.arange(binned.n_features, dtype=np.int64)
        relevance = candidate_interactions(binned, [codes], [n_classes], columns)
        top = np.argsort(-relevance, kind="stable")[: min(n_top, binned.n_features)].astype(np.int64)
        first, second, values = [], [], []
        for position, feature in enumerate(top[:-1]):
            others = top[position + 1 :]
            fixed = [binned.column(int(feature)).astype(np.int64), codes]
            values.append(candidate_interactions(binned, fixed, [binned.n_bins, n_classes], others))
            first.append(np.full(others.shape[0], feature, dtype=np.int64))
            second.append(others)
    if not values:
        empty = np.zeros(0, dtype=np.int64)
        return PairInteractions(features=top, first=empty, second=empty, values=np.zeros(0))
    return PairInteractions(
        features=top, first=np.concatenate(first), second=np.concatenate(second), values=np.concatenate(values)
    )
