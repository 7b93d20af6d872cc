"""Numba kernels of the ranking estimators (no validation; contiguous arrays in, results out).

Each has a NumPy reference in ``tests/ranking/test_kernels.py``.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, parallel=True)
def btl_pair_terms(low, high, low_wins, high_wins, v, slope, curvature):  # pragma: no cover - compiled
    """Negative log-likelihood of BTL over distinct pairs, with per-pair derivatives.

    For pair e with ``δ = v[low] − v[high]`` the loss is
    ``low_wins·log(1 + e^{−δ}) + high_wins·log(1 + e^{δ})``; ``slope[e]`` is its
    derivative in δ and ``curvature[e]`` the second derivative. Returns the loss.
    """
    total = 0.0
    for e in numba.prange(len(low)):
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
    """The negative log-likelihood alone (for line searches)."""
    total = 0.0
    for e in numba.prange(len(low)):
        delta = v[low[e]] - v[high[e]]
        soft_pos = max(delta, 0.0) + np.log1p(np.exp(-abs(delta)))
        total += low_wins[e] * (soft_pos - delta) + high_wins[e] * soft_pos
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
