"""The empirical Markov chains of RankCentrality (seed 000, §3.1–3.2).

Every construction has the form ``Q̂ = I + (R − diag(R·1)) / s``: a sparse
matrix ``R`` of non-negative off-diagonal rates (``R[i, j]`` moves mass from
``i`` to ``j``, so from a loser towards the items that beat it) and a scale
``s`` that keeps ``Q̂`` row-stochastic. The three constructions differ in
``R`` and ``s``:

``"nos"`` (3.3)
    ``R[i, j] = P̂ᵢⱼ``, the fraction of the comparisons of ``i`` and ``j``
    that ``j`` won; ``s = d_max``, the largest number of distinct items any
    item was compared with.
``"ra"`` (3.4)
    The same ``R``; ``s = n``.
``"sampling"`` (3.5)
    ``R[i, j] = μ_min / μᵢⱼ · Cᵢⱼ`` with ``Cᵢⱼ`` the weight of comparisons
    of ``i`` and ``j`` that ``j`` won and ``μᵢⱼ`` the probability that a
    comparison is of the pair (uniform when not known); ``s = m``, the total
    weight of comparisons.

``R`` is only ever sparse.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._errors import InputError, ShapeMismatchError
from .._validation import Options, check_parameter
from . import _kernels
from .comparisons import Comparisons

__all__ = ["Transition", "transition_matrix", "pair_rates", "TRANSITIONS"]

TRANSITIONS = ("nos", "ra", "sampling")


@dataclass(frozen=True)
class Transition:
    """A comparison Markov chain ``Q̂ = I + (R − diag(R·1)) / scale``.

    Attributes
    ----------
    rates : scipy.sparse.csr_matrix
        ``R``, the off-diagonal rates (zero diagonal).
    rates_transposed : scipy.sparse.csr_matrix
        ``Rᵀ`` in CSR form, for the left products ``πQ̂``.
    out_rates : ndarray
        ``R·1``, the total rate out of every item.
    scale : float
        ``s``; ``out_rates <= scale`` so that the diagonal of ``Q̂`` is non-negative.
    kind : str
    """

    rates: sp.csr_matrix
    rates_transposed: sp.csr_matrix
    out_rates: np.ndarray
    scale: float
    kind: str

    @property
    def n_items(self) -> int:
        return self.rates.shape[0]

    def left_multiply(self, x: np.ndarray) -> np.ndarray:
        """``x Q̂`` for a row vector ``x`` (returned as a 1-d array)."""
        return x + (self.rates_transposed @ x - self.out_rates * x) / self.scale

    def right_multiply(self, x: np.ndarray) -> np.ndarray:
        """``Q̂ x`` for a column vector ``x``."""
        return x + (self.rates @ x - self.out_rates * x) / self.scale

    def toarray(self) -> np.ndarray:
        """The dense ``Q̂`` (for small chains and tests only: n × n memory)."""
        dense = self.rates.toarray() / self.scale
        dense[np.diag_indices_from(dense)] = 1.0 - self.out_rates / self.scale
        return dense


def transition_matrix(comparisons: Comparisons, kind: str = "nos", pair_probabilities=None) -> Transition:
    """Build the empirical transition matrix of one of the three constructions.

    Parameters
    ----------
    comparisons : Comparisons
    kind : {"nos", "ra", "sampling"}
        ``"nos"`` is Q̂^NOS (3.3), ``"ra"`` is Q̂^RA (3.4), ``"sampling"`` is the
        sampling-weighted Q̂ of (3.5).
    pair_probabilities : array or sparse matrix of shape (n, n), optional
        For ``"sampling"``: μᵢⱼ, the probability that a comparison is of pair
        (i, j) (symmetric; only its upper triangle is read). μ_min is the
        smallest positive entry of the upper triangle. Uniform over all pairs
        when not given, in which case ``μ_min/μᵢⱼ = 1``.

    Returns
    -------
    Transition

    Notes
    -----
    Seed 000, equations (3.3), (3.4) and (3.5). The scale of Q̂ does not change
    its stationary distribution, but it does change that of the regularized
    chain Q̂D_λ, so each construction keeps its own.

    Examples
    --------
    >>> from paucity.ranking import Comparisons
    >>> c = Comparisons.from_winners([0], [2], items=[0, 1, 2, 3])
    >>> transition_matrix(c, "sampling").toarray()[2].tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    kind = check_parameter(kind, "kind", [Options(*TRANSITIONS)], owner="transition_matrix")
    pairs = comparisons.pairs
    n = comparisons.n_items
    low, high = np.asarray(pairs.low), np.asarray(pairs.high)
    low_wins, high_wins = np.asarray(pairs.low_wins), np.asarray(pairs.high_wins)
    factor = _sampling_factor(pair_probabilities, low, high, n) if kind == "sampling" else None
    up, down = pair_rates(kind, low_wins, high_wins, factor)
    if kind == "nos":
        scale = float((np.bincount(low, minlength=n) + np.bincount(high, minlength=n)).max())
    elif kind == "ra":
        scale = float(n)
    else:
        scale = float(comparisons.observation_weights.sum())
    # rows (high, then low) with columns (low, then high): each row's columns come out ascending, because
    # the pairs are sorted by (low, high)
    rows = np.concatenate([high, low])
    cols = np.concatenate([low, high])
    rates = _csr(rows, cols, np.concatenate([down, up]), n)
    rates_t = _csr(rows, cols, np.concatenate([up, down]), n)
    out = np.asarray(rates.sum(axis=1)).ravel()
    return Transition(rates=rates, rates_transposed=rates_t, out_rates=out, scale=scale, kind=kind)


def pair_rates(kind: str, low_wins: np.ndarray, high_wins: np.ndarray, factor: np.ndarray | None = None):
    """The rates of each distinct pair: ``up`` from low to high, ``down`` from high to low.

    ``"nos"`` and ``"ra"``: the fraction of the pair's comparisons that the
    destination won (P̂); ``"sampling"``: the weight it won, times
    ``μ_min/μ_ij`` (``factor``, 1 when not given).
    """
    if kind in ("nos", "ra"):
        totals = low_wins + high_wins
        return high_wins / totals, low_wins / totals
    if factor is None:
        return high_wins, low_wins
    return high_wins * factor, low_wins * factor


def _csr(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n: int) -> sp.csr_matrix:
    """CSR from triplets by a counting sort that keeps the input order within each row."""
    index_dtype = np.int32 if len(rows) < 2**31 - 1 and n < 2**31 - 1 else np.int64
    indptr = np.zeros(n + 1, dtype=index_dtype)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    indices = np.empty(len(rows), dtype=index_dtype)
    data = np.empty(len(rows), dtype=np.float64)
    _kernels.fill_csr(rows, cols.astype(index_dtype), values.astype(np.float64), indptr, indices, data)
    matrix = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    matrix.has_sorted_indices = True
    return matrix


def _sampling_factor(pair_probabilities, low, high, n: int) -> np.ndarray:
    if pair_probabilities is None:
        return np.ones(len(low))
    if sp.issparse(pair_probabilities):
        mu = sp.csr_matrix(pair_probabilities, dtype=np.float64)
        if mu.shape != (n, n):
            raise ShapeMismatchError(f"pair_probabilities has shape {mu.shape} but there are {n} items.")
        upper = sp.triu(mu, k=1).tocsr()
        upper.eliminate_zeros()
        stored = upper.data
        observed = np.asarray(mu[low, high]).ravel()
    else:
        mu = np.asarray(pair_probabilities, dtype=np.float64)
        if mu.shape != (n, n):
            raise ShapeMismatchError(f"pair_probabilities has shape {mu.shape} but there are {n} items.")
        upper = mu[np.triu_indices(n, k=1)]
        if not np.isfinite(upper).all() or (upper < 0).any():
            raise InputError("pair_probabilities must be finite and non-negative.")
        stored = upper[upper > 0]
        observed = mu[low, high]
    if not np.isfinite(stored).all() or (stored < 0).any() or (np.asarray(observed) < 0).any():
        raise InputError("pair_probabilities must be finite and non-negative.")
    if len(stored) == 0:
        raise InputError("pair_probabilities has no positive entry above the diagonal.")
    zero = observed <= 0
    if zero.any():
        first = int(np.flatnonzero(zero)[0])
        raise InputError(
            f"pair ({int(low[first])}, {int(high[first])}) was compared but its probability in "
            "pair_probabilities is zero; every compared pair needs μ > 0."
        )
    return stored.min() / observed
