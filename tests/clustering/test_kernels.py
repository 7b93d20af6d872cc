"""The clustering kernels against slow NumPy references."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity.clustering import _kernels


def reference_top(scores, counts, asked, repeats, sigma, k):
    """Candidates (counts + asked < repeats, i < j, score > 0) sorted by score descending, index ascending."""
    n = len(scores)
    rows = []
    for i in range(n):
        for j in range(i + 1, n):
            if counts[i, j] + asked[i, j] < repeats:
                value = scores[i, j] * (sigma[i, j] if sigma is not None else 1.0)
                if value > 0:
                    rows.append((-value, i * n + j))
    rows.sort()
    return [index for _, index in rows[:k]], [-value for value, _ in rows[:k]]


@settings(max_examples=150, deadline=None)
@given(st.integers(3, 40), st.integers(1, 12), st.integers(1, 3), st.booleans(), st.integers(1, 5), st.booleans(),
       st.integers(0, 2**31))
def test_top_pairs_equal_the_sorted_reference(n, k, repeats, use_sigma, slabs, coarse, seed):
    # up to 40 items in up to 25 cells against at most 12 kept: the visit by cell bounds stops early, and must lose
    # nothing, ties included
    rng = np.random.default_rng(seed)
    if coarse:  # three values: a bound of two cells often equals the score of a pair in them, tied with others
        v, g = rng.integers(0, 3, n).astype(float), rng.integers(0, 3, n).astype(float)
    else:  # rounded: ties happen and must go to the lower index
        v, g = np.round(rng.normal(size=n), 1), np.round(rng.normal(size=n), 1)
    counts = rng.integers(0, repeats + 1, (n, n)).astype(np.int32)
    asked = (rng.random((n, n)) < 0.2).astype(np.int32)
    prior, s = np.sqrt(1 / 12), 0.1
    sigma = np.where(counts == 0, prior, s / np.sqrt(np.maximum(counts, 1))) if use_sigma else None
    scores = np.abs(np.subtract.outer(v, v) * np.subtract.outer(g, g))
    expected_index, expected_score = reference_top(scores, counts, asked, repeats, sigma, k)
    for run in ("vectors", "cells", "matrix"):
        best_score, best_index = np.empty(k), np.empty(k, dtype=np.int64)
        if run == "vectors":
            found = _kernels.top_pairs_from_vectors(v, g, counts, asked, repeats, use_sigma, prior, s, best_score,
                                                    best_index)
        elif run == "cells":
            found = _kernels.top_pairs_in_cells(v, g, counts, asked, repeats, use_sigma, prior, s, best_score,
                                                best_index, slabs)
        else:
            found = _kernels.top_pairs_from_matrix(scores, counts, asked, repeats, use_sigma, prior, s, best_score,
                                                   best_index)
        assert best_index[:found].tolist() == expected_index
        np.testing.assert_allclose(best_score[:found], expected_score)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 9), st.booleans(), st.integers(0, 2**31))
def test_candidates_are_counted_and_numbered_in_row_major_order(n, joining, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 2, (n, n)).astype(np.int32)
    asked = np.zeros((n, n), dtype=np.int32)
    labels = rng.integers(0, 3, n).astype(np.int64)
    expected = [i * n + j for i in range(n) for j in range(i + 1, n)
                if counts[i, j] + asked[i, j] < 1 and (not joining or labels[i] != labels[j])]
    assert _kernels.count_candidates(counts, asked, 1, labels, joining) == len(expected)
    if expected:
        ranks = np.sort(rng.choice(len(expected), size=min(3, len(expected)), replace=False))
        out = np.empty(len(ranks), dtype=np.int64)
        _kernels.nth_candidates(counts, asked, 1, labels, joining, ranks, out)
        assert out.tolist() == [expected[r] for r in ranks]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.floats(0.0, 1.0), st.integers(1, 4), st.integers(0, 2**31))
def test_the_sparse_laplacian_product_equals_the_dense_one(n, density, columns, seed):
    rng = np.random.default_rng(seed)
    W = np.triu(rng.random((n, n)) * (rng.random((n, n)) < density), 1)
    W = W + W.T + np.diag(rng.random(n))  # the diagonal (Ŵ starts from I) is not part of L̂
    X = rng.normal(size=(n, columns))
    expected = (np.diag(W.sum(axis=1) - np.diag(W)) - (W - np.diag(np.diag(W)))) @ X
    nonzeros = int(np.count_nonzero(W - np.diag(np.diag(W))))
    for room in (0, nonzeros):  # too little room: the count comes back and nothing overflows
        indptr, degrees = np.zeros(n + 1, dtype=np.int64), np.zeros(n)
        indices, weights = np.zeros(room, dtype=np.int64), np.zeros(room)
        assert _kernels.adjacency(W, indptr, indices, weights, degrees) == nonzeros
        np.testing.assert_allclose(degrees, W.sum(axis=1) - np.diag(W), rtol=1e-12, atol=1e-15)
    out = np.empty_like(X)
    _kernels.laplacian_apply(indptr, indices, weights, degrees, X, out)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(1, 5), st.floats(1e-8, 1.0), st.integers(0, 2**31))
def test_the_thin_qr_is_a_qr_even_with_columns_of_very_different_sizes(m, b, spread, seed):
    """The shift-and-invert iteration hands it blocks whose columns differ by 10⁴ and more in size."""
    b = min(b, m)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, b)) * spread ** np.arange(b)
    Q, R = _kernels.thin_qr(X)
    np.testing.assert_allclose(Q @ R, X, atol=1e-12 * np.abs(X).max())
    assert np.allclose(R, np.triu(R)) and np.all(np.diag(R) >= 0)
    if np.linalg.matrix_rank(X) == b and np.linalg.cond(X) < 1e10:
        np.testing.assert_allclose(Q.T @ Q, np.eye(b), atol=1e-12)
