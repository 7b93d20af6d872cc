"""Numba kernels of the active loop (no validation; contiguous arrays in, results out).

Each has a NumPy reference in ``tests/clustering/test_kernels.py``. They scan
the n(n−1)/2 pairs once, without building n × n temporaries: a pair is a
candidate when it has been measured and asked fewer than ``repeats`` times.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _offer(score, index, best_score, best_index, filled):  # pragma: no cover - compiled
    """Insert (score, index) into the top list kept sorted by score descending, index ascending."""
    k = len(best_score)
    if filled == k and not score > best_score[k - 1]:
        return filled  # ties keep the lower index, seen first
    position = filled if filled < k else k - 1
    while position > 0 and score > best_score[position - 1]:
        if position < k:
            best_score[position] = best_score[position - 1]
            best_index[position] = best_index[position - 1]
        position -= 1
    best_score[position] = score
    best_index[position] = index
    return min(filled + 1, k)


@numba.njit(cache=True)
def _sigma(count, prior, population_sd):  # pragma: no cover - compiled
    return prior if count == 0 else population_sd / np.sqrt(count)


@numba.njit(cache=True)
def top_pairs_from_vectors(v, g, counts, asked, repeats, use_sigma, prior, population_sd, best_score, best_index):
    """The best candidate pairs by |(v_i − v_j)(g_i − g_j)| (times σ̂ᵢⱼ with ``use_sigma``), positive scores only.

    Fills ``best_score``/``best_index`` (flat index i·n + j, i < j), best
    first, lowest index first on ties; returns how many were found.
    """  # pragma: no cover - compiled
    n = len(v)
    filled = 0
    for i in range(n):
        for j in range(i + 1, n):
            count = counts[i, j]
            if count + asked[i, j] >= repeats:
                continue
            score = abs((v[i] - v[j]) * (g[i] - g[j]))
            if use_sigma:
                score *= _sigma(count, prior, population_sd)
            if score > 0.0:
                filled = _offer(score, i * n + j, best_score, best_index, filled)
    return filled


@numba.njit(cache=True)
def top_pairs_from_matrix(scores, counts, asked, repeats, use_sigma, prior, population_sd, best_score, best_index):
    """As :func:`top_pairs_from_vectors`, the scores read from an n × n matrix (upper triangle)."""  # pragma: no cover
    n = scores.shape[0]
    filled = 0
    for i in range(n):
        for j in range(i + 1, n):
            count = counts[i, j]
            if count + asked[i, j] >= repeats:
                continue
            score = scores[i, j]
            if use_sigma:
                score *= _sigma(count, prior, population_sd)
            if score > 0.0:
                filled = _offer(score, i * n + j, best_score, best_index, filled)
    return filled


@numba.njit(cache=True)
def count_candidates(counts, asked, repeats, labels, joining):  # pragma: no cover - compiled
    """The number of candidate pairs (joining two labels only, with ``joining``)."""
    n = counts.shape[0]
    total = 0
    for i in range(n):
        for j in range(i + 1, n):
            if counts[i, j] + asked[i, j] < repeats and (not joining or labels[i] != labels[j]):
                total += 1
    return total


@numba.njit(cache=True)
def nth_candidates(counts, asked, repeats, labels, joining, ranks, out):  # pragma: no cover - compiled
    """The flat indices of the candidates numbered ``ranks`` (sorted ascending) in row-major order."""
    n = counts.shape[0]
    seen = 0
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            if counts[i, j] + asked[i, j] < repeats and (not joining or labels[i] != labels[j]):
                while k < len(ranks) and ranks[k] == seen:
                    out[k] = i * n + j
                    k += 1
                seen += 1
                if k == len(ranks):
                    return
