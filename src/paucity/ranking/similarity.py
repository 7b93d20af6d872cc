"""Similarity matrices D′ for similarity-regularized RankCentrality (seed 000, §3.5).

A regularizing matrix ``D′`` is row-stochastic; RankCentrality then returns
the stationary distribution of ``Q̂ D_λ D′``, so that a comparison won by
``j`` also moves mass to the items similar to ``j`` (it *imputes*
comparisons). Three constructions:

``"gaussian"`` (continuous features)
    ``Aᵢⱼ = exp(−‖xᵢ − xⱼ‖² / σ²)``, rows divided by their sums. All pairs for
    up to 2,000 items; beyond, or when ``n_neighbors`` is given, only each
    item's ``n_neighbors`` nearest neighbours (itself included) are kept, so
    ``D′`` is sparse.
``"agreement"`` (discrete features)
    ``Aᵢⱼ`` = the number of features on which ``i`` and ``j`` agree;
    ``D′ᵢⱼ = Aᵢⱼ/τ`` off the diagonal and ``D′ᵢᵢ = 1 − Σ_{ℓ≠i} Aᵢℓ/τ``, with the
    tightness ``τ`` required to exceed every row sum ``Σ_ℓ Aᵢℓ``. ``A = O Oᵀ``
    for the one-hot encoding ``O`` is never formed: products cost O(n·d).
``"precomputed"``
    A user-supplied non-negative similarity, rows divided by their sums (an
    item with no similar item keeps its own row).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._errors import InputError, ParameterError
from .._validation import Interval, check_parameter

__all__ = ["Similarity", "gaussian_similarity", "agreement_similarity", "precomputed_similarity", "DENSE_LIMIT"]

DENSE_LIMIT = 2000  # items up to which a full n × n similarity is formed
_POSITIVE = Interval(numbers.Real, 0, None, closed="neither")


@dataclass(frozen=True)
class Similarity:
    """A row-stochastic regularizing matrix ``D′``, applied without forming it when it is implicit.

    Either ``matrix`` holds ``D′`` (dense for at most 2,000 items, sparse
    otherwise), or ``onehot``/``tau`` hold the agreement form ``D′ = O Oᵀ/τ + diag(c)``.
    """

    matrix: np.ndarray | sp.csr_matrix | None = None
    onehot: sp.csr_matrix | None = None
    diagonal: np.ndarray | None = None
    tau: float | None = None

    def left_multiply(self, x: np.ndarray) -> np.ndarray:
        """``x D′`` for a row vector ``x``."""
        if self.matrix is not None:
            return np.asarray(self.matrix.T @ x).ravel()
        return np.asarray(self.onehot @ (self.onehot.T @ x)).ravel() / self.tau + self.diagonal * x

    def toarray(self) -> np.ndarray:
        """The dense ``D′`` (small n only)."""
        if self.matrix is not None:
            return self.matrix.toarray() if sp.issparse(self.matrix) else np.array(self.matrix)
        dense = (self.onehot @ self.onehot.T).toarray() / self.tau
        dense[np.diag_indices_from(dense)] += self.diagonal
        return dense


def gaussian_similarity(features: np.ndarray, sigma: float, n_neighbors: int | None = None) -> Similarity:
    """Row-normalized Gaussian kernel of width ``sigma`` on continuous features.

    Examples
    --------
    >>> D = gaussian_similarity(np.array([[0.0], [0.0], [10.0]]), sigma=1.0).toarray()
    >>> np.round(D, 3).tolist()
    [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    """
    sigma = check_parameter(sigma, "sigma", [_POSITIVE], owner="gaussian_similarity")
    check_parameter(n_neighbors, "n_neighbors", [Interval(numbers.Integral, 1, None), None], owner="gaussian_similarity")
    features = np.asarray(features, dtype=np.float64)
    n = features.shape[0]
    if n_neighbors is None and n > DENSE_LIMIT:
        n_neighbors = 50
    if n_neighbors is None or n_neighbors >= n:
        sq = np.sum(features**2, axis=1)
        distances = np.maximum(sq[:, None] + sq[None, :] - 2.0 * features @ features.T, 0.0)
        np.fill_diagonal(distances, 0.0)
        affinity = np.exp(-distances / sigma**2)
        return Similarity(matrix=affinity / affinity.sum(axis=1, keepdims=True))
    from sklearn.neighbors import NearestNeighbors

    search = NearestNeighbors(n_neighbors=n_neighbors).fit(features)
    distances, neighbours = search.kneighbors(features)
    affinity = np.exp(-(distances**2) / sigma**2)
    affinity /= affinity.sum(axis=1, keepdims=True)
    rows = np.repeat(np.arange(n), n_neighbors)
    matrix = sp.csr_matrix((affinity.ravel(), (rows, neighbours.ravel())), shape=(n, n))
    matrix.sum_duplicates()
    return Similarity(matrix=matrix)


def agreement_similarity(features: np.ndarray, tau: float) -> Similarity:
    """The discrete-feature agreement matrix with tightness ``tau``.

    Examples
    --------
    >>> X = np.array([[0, 1], [0, 0], [1, 0]])
    >>> agreement_similarity(X, tau=5).toarray().tolist()
    [[0.8, 0.2, 0.0], [0.2, 0.6, 0.2], [0.0, 0.2, 0.8]]
    """
    tau = check_parameter(tau, "tau", [_POSITIVE], owner="agreement_similarity")
    features = np.asarray(features)
    n, d = features.shape
    blocks = []
    for column in range(d):
        codes, levels = pd.factorize(features[:, column])
        blocks.append(sp.csr_matrix((np.ones(n), (np.arange(n), codes)), shape=(n, len(levels))))
    onehot = sp.hstack(blocks).tocsr()
    row_sums = np.asarray(onehot @ np.asarray(onehot.sum(axis=0)).ravel()).ravel()  # Σ_ℓ Aᵢℓ, diagonal included
    if row_sums.max() >= tau:
        worst = int(np.argmax(row_sums))
        raise ParameterError(
            f"tau={tau} is too small: item at position {worst} agrees with the others on {row_sums[worst]:g} "
            f"feature values in all, and τ must exceed every such sum (seed 000, §3.5); use tau > {row_sums.max():g}."
        )
    return Similarity(onehot=onehot, diagonal=1.0 - row_sums / tau, tau=float(tau))


def precomputed_similarity(similarity) -> Similarity:
    """Rows of a non-negative similarity divided by their sums.

    Examples
    --------
    >>> precomputed_similarity(np.array([[1.0, 1.0], [0.0, 0.0]])).toarray().tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    if sp.issparse(similarity):
        matrix = sp.csr_matrix(similarity, dtype=np.float64, copy=True)
        sums = np.asarray(matrix.sum(axis=1)).ravel()
        empty = sums <= 0
        inverse = np.where(empty, 0.0, 1.0 / np.where(empty, 1.0, sums))
        matrix = sp.diags(inverse) @ matrix + sp.diags(empty.astype(np.float64))
        return Similarity(matrix=sp.csr_matrix(matrix))
    matrix = np.array(similarity, dtype=np.float64)
    sums = matrix.sum(axis=1)
    empty = sums <= 0
    matrix[~empty] /= sums[~empty, None]
    matrix[np.flatnonzero(empty), np.flatnonzero(empty)] = 1.0
    if (matrix < 0).any():
        raise InputError("similarity must be non-negative.")
    return Similarity(matrix=matrix)
