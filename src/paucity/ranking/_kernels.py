"""Numba kernels of the ranking estimators (no validation; contiguous arrays in, results out).

Each has a NumPy reference in ``tests/ranking/test_kernels.py``.

The parallel sums are taken over blocks of ``SUM_BLOCK`` pairs whose bounds do
not depend on the number of threads, then added in block order, so a loss has
the same bits on any number of threads.
"""

from __future__ import annotations

import numba
import numpy as np

#: Pairs per block of a parallel sum (fixed, so that the sum is too).
SUM_BLOCK = 2048


@numba.njit(cache=True, parallel=True)
def btl_pair_terms(low, high, low_wins, high_wins, v, slope, curvature):  # pragma: no cover - compiled
    """Negative log-likelihood of BTL over distinct pairs, with per-pair derivatives.

    For pair e with ``δ = v[low] − v[high]`` the loss is
    ``low_wins·log(1 + e^{−δ}) + high_wins·log(1 + e^{δ})``; ``slope[e]`` is its
    derivative in δ and ``curvature[e]`` the second derivative. Returns the loss.
    """
    n_pairs = len(low)
    n_blocks = -(-n_pairs // SUM_BLOCK)
    partial = np.empty(n_blocks)
    for b in numba.prange(n_blocks):
        lo = b * SUM_BLOCK
        hi = min(lo + SUM_BLOCK, n_pairs)
        partial[b] = _pair_terms_block(
            low[lo:hi], high[lo:hi], low_wins[lo:hi], high_wins[lo:hi], v, slope[lo:hi], curvature[lo:hi]
        )
    return _in_order(partial)


# error_model="numpy": no zero-division checks (no denominator here can be 0), which keep the loop as fast as
# numba's own parallel loop
@numba.njit(cache=True, error_model="numpy")
def _pair_terms_block(low, high, low_wins, high_wins, v, slope, curvature):  # pragma: no cover - compiled
    """One block of ``btl_pair_terms``: its loss, and the slopes and curvatures of its pairs."""
    total = 0.0
    for e in range(len(low)):
        delta = v[low[e]] - v[high[e]]
        # log(1 + e^δ) and the logistic σ(δ) from one exponential, without overflow
        small = np.exp(-abs(delta))
        if delta > 0:
            soft_pos = delta + np.log1p(small)
            sigma = 1.0 / (1.0 + small)
        else:
            soft_pos = np.log1p(small)
            sigma = small / (1.0 + small)
        soft_neg = soft_pos - delta
        n_pair = low_wins[e] + high_wins[e]
        total += low_wins[e] * soft_neg + high_wins[e] * soft_pos
        slope[e] = n_pair * sigma - low_wins[e]
        curvature[e] = n_pair * sigma * (1.0 - sigma)
    return total


@numba.njit(cache=True, parallel=True)
def btl_loss(low, high, low_wins, high_wins, v):  # pragma: no cover - compiled
    """The negative log-likelihood alone (for line searches), summed by blocks as ``btl_pair_terms``."""
    n_pairs = len(low)
    n_blocks = -(-n_pairs // SUM_BLOCK)
    partial = np.empty(n_blocks)
    for b in numba.prange(n_blocks):
        lo = b * SUM_BLOCK
        hi = min(lo + SUM_BLOCK, n_pairs)
        partial[b] = _loss_block(low[lo:hi], high[lo:hi], low_wins[lo:hi], high_wins[lo:hi], v)
    return _in_order(partial)


@numba.njit(cache=True, error_model="numpy")
def _loss_block(low, high, low_wins, high_wins, v):  # pragma: no cover - compiled
    """One block of ``btl_loss``."""
    total = 0.0
    for e in range(len(low)):
        delta = v[low[e]] - v[high[e]]
        soft_pos = max(delta, 0.0) + np.log1p(np.exp(-abs(delta)))
        total += low_wins[e] * (soft_pos - delta) + high_wins[e] * soft_pos
    return total


@numba.njit(cache=True)
def _in_order(partial):  # pragma: no cover - compiled
    """The sum of the block sums, first block first."""
    total = 0.0
    for b in range(partial.shape[0]):
        total += partial[b]
    return total


@numba.njit(cache=True)
def scatter_pairs(low, high, values, out):  # pragma: no cover - compiled
    """``out[low[e]] += values[e]; out[high[e]] -= values[e]`` for every pair (out is added to)."""
    for e in range(len(low)):
        out[low[e]] += values[e]
        out[high[e]] -= values[e]


@numba.njit(cache=True)
def laplacian_product(low, high, weights, x, out):  # pragma: no cover - compiled
    """``out += L x`` for the weighted graph Laplacian ``L = Σ_e w_e (e_low − e_high)(e_low − e_high)ᵀ``."""
    for e in range(len(low)):
        d = weights[e] * (x[low[e]] - x[high[e]])
        out[low[e]] += d
        out[high[e]] -= d


@numba.njit(cache=True)
def fill_csr(rows, cols, values, indptr, indices, data):  # pragma: no cover - compiled
    """Counting-sort (rows, cols, values) into CSR arrays, keeping the input order within a row."""
    cursor = indptr[:-1].copy()
    for e in range(len(rows)):
        slot = cursor[rows[e]]
        indices[slot] = cols[e]
        data[slot] = values[e]
        cursor[rows[e]] = slot + 1
