"""Numba kernels of the Plackett–Luce estimators (no validation; contiguous arrays in, results out).

The observations are stored flat (see :class:`~paucity.ranking.Rankings`):
observation ``o`` is ``members[offsets[o]:offsets[o + 1]]`` and its stage
``t < n_stages[o]`` chooses ``members[offsets[o] + t]`` from
``members[offsets[o] + t:offsets[o + 1]]``. Each kernel has a NumPy reference
in ``tests/ranking/test_plackett_luce.py``.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def _largest(members, v, start, end):  # pragma: no cover - compiled
    """The largest log-weight among one observation's items (subtracted before exponentiating)."""
    top = v[members[start]]
    for s in range(start + 1, end):
        if v[members[s]] > top:
            top = v[members[s]]
    return top


@numba.njit(cache=True, error_model="numpy")
def pl_terms(members, offsets, n_stages, v, gradient, diagonal, weight, inv_total):  # pragma: no cover - compiled
    """Negative log-likelihood, its gradient and Hessian diagonal; keeps what Hessian products need.

    With ``w_s = exp(v[m_s] − max)`` over an observation's items and
    ``S_t = Σ_{s≥t} w_s``, stage t costs ``log S_t − log w_t``. Adds the
    gradient ``Σ_t (p_t − e_winner)`` and the diagonal of ``Σ_t (diag(p_t) − p_t p_tᵀ)``
    to ``gradient`` and ``diagonal``; writes ``weight[s] = w_s`` and
    ``inv_total[t] = 1/S_t`` (0 for positions past the last stage). Returns the loss.
    """
    total = 0.0
    for o in range(len(offsets) - 1):
        start = offsets[o]
        end = offsets[o + 1]
        stages = n_stages[o]
        top = _largest(members, v, start, end)
        suffix = 0.0
        for s in range(end - 1, start - 1, -1):
            w = np.exp(v[members[s]] - top)
            weight[s] = w
            suffix += w
            if s - start < stages:
                inv_total[s] = 1.0 / suffix
                total += np.log(suffix) - (v[members[s]] - top)
            else:
                inv_total[s] = 0.0
        first = 0.0
        second = 0.0
        for s in range(start, end):
            first += inv_total[s]
            second += inv_total[s] * inv_total[s]
            w = weight[s]
            gradient[members[s]] += w * first
            diagonal[members[s]] += w * first - w * w * second
            if s - start < stages:
                gradient[members[s]] -= 1.0
    return total


@numba.njit(cache=True, error_model="numpy")
def pl_loss(members, offsets, n_stages, v):  # pragma: no cover - compiled
    """The negative log-likelihood alone (for line searches)."""
    total = 0.0
    for o in range(len(offsets) - 1):
        start = offsets[o]
        end = offsets[o + 1]
        stages = n_stages[o]
        top = _largest(members, v, start, end)
        suffix = 0.0
        for s in range(end - 1, start - 1, -1):
            suffix += np.exp(v[members[s]] - top)
            if s - start < stages:
                total += np.log(suffix) - (v[members[s]] - top)
    return total


@numba.njit(cache=True, error_model="numpy")
def pl_hessian_product(members, offsets, weight, inv_total, x, out):  # pragma: no cover - compiled
    """``out += H x`` with H the Hessian of the negative log-likelihood where ``pl_terms`` was evaluated.

    Stage t contributes ``diag(p_t) − p_t p_tᵀ`` with ``p_t = w / S_t`` on its
    set, so ``(H x)_s = w_s x_s Σ_{t≤s} 1/S_t − w_s Σ_{t≤s} (Σ_{r≥t} w_r x_r) / S_t²``.
    """
    for o in range(len(offsets) - 1):
        start = offsets[o]
        end = offsets[o + 1]
        suffix = 0.0  # Σ_r w_r x_r over the whole observation
        for s in range(start, end):
            suffix += weight[s] * x[members[s]]
        first = 0.0
        mixed = 0.0
        remaining = suffix
        for s in range(start, end):
            inv = inv_total[s]
            first += inv
            mixed += remaining * inv * inv
            w = weight[s]
            out[members[s]] += w * x[members[s]] * first - w * mixed
            remaining -= w * x[members[s]]
    return out


@numba.njit(cache=True, error_model="numpy")
def lsr_rates(members, offsets, n_stages, v, rows, cols, rates):  # pragma: no cover - compiled
    """The LSR chain's entries: from each loser of a stage to its winner, ``1 / Σ_{set} exp(v)``.

    Writes one entry per (stage, loser) into ``rows`` (loser), ``cols``
    (winner) and ``rates``; returns the number written.
    """
    k = 0
    for o in range(len(offsets) - 1):
        start = offsets[o]
        end = offsets[o + 1]
        stages = n_stages[o]
        top = _largest(members, v, start, end)
        for t in range(start, start + stages):
            total = 0.0  # Σ exp(v − top) over the stage's set, summed afresh (no cancellation)
            for s in range(t, end):
                total += np.exp(v[members[s]] - top)
            rate = np.exp(-top) / total
            for s in range(t + 1, end):
                rows[k] = members[s]
                cols[k] = members[t]
                rates[k] = rate
                k += 1
    return k


@numba.njit(cache=True, error_model="numpy")
def pl_hessian_edges(members, offsets, n_stages, v, low, high, weights):  # pragma: no cover - compiled
    """The Hessian of the negative log-likelihood as a weighted graph Laplacian.

    Stage t's ``diag(p) − p pᵀ`` equals ``Σ_{i<j in its set} p_i p_j (e_i − e_j)(e_i − e_j)ᵀ``;
    writes one edge per (stage, pair of its items) into ``low``, ``high``,
    ``weights`` and returns the number written.
    """
    k = 0
    for o in range(len(offsets) - 1):
        start = offsets[o]
        end = offsets[o + 1]
        top = _largest(members, v, start, end)
        for t in range(start, start + n_stages[o]):
            total = 0.0
            for s in range(t, end):
                total += np.exp(v[members[s]] - top)
            for a in range(t, end):
                pa = np.exp(v[members[a]] - top) / total
                for b in range(a + 1, end):
                    low[k] = members[a]
                    high[k] = members[b]
                    weights[k] = pa * np.exp(v[members[b]] - top) / total
                    k += 1
    return k
