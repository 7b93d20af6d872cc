"""Counting by blocks of rows equals counting the whole matrix (the distributed path's core)."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity.info import BinnedMatrix, blocks, discretize
from paucity.info.counts import PairCounter


def split(matrix, cuts):
    bounds = [0, *cuts, matrix.shape[0]]
    return [matrix[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def dense_bins(binned_blocks, n_features, n_bins):
    rows = []
    for block in binned_blocks:
        out = np.zeros((block.n_rows, n_features), dtype=np.uint8)
        for r in range(block.n_rows):
            cells = block.cells[block.indptr[r] : block.indptr[r + 1]].astype(np.int64)
            out[r, cells // n_bins] = cells % n_bins
        rows.append(out)
    return np.vstack(rows)


@st.composite
def blocked_matrix(draw):
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(4, 200)), int(rng.integers(1, 10))
    X = rng.poisson(rng.uniform(0.2, 40), (n, m)) * (rng.random((n, m)) < rng.random())
    X = X.astype(np.float32)
    if draw(st.booleans()):
        X = X * rng.random((n, m)).astype(np.float32)  # continuous values
    cuts = sorted(set(int(c) for c in rng.integers(1, n, size=draw(st.integers(0, 4)))))
    return sp.csr_matrix(X), cuts, rng


@settings(max_examples=80, deadline=None)
@given(blocked_matrix(), st.integers(2, 6))
def test_block_bins_equal_in_memory_bins(problem, n_bins):
    X, cuts, _ = problem
    parts = split(X, cuts)
    merged = blocks.merge_value_counts([blocks.value_counts(p) for p in parts])
    edges, n_edges = blocks.edges_from_counts(merged, n_bins)
    binned = [blocks.bin_block(p, edges, n_edges, max(n_bins, 2)) for p in parts]
    np.testing.assert_array_equal(dense_bins(binned, X.shape[1], max(n_bins, 2)), discretize(X, n_bins).toarray())


@settings(max_examples=60, deadline=None)
@given(blocked_matrix())
def test_block_pair_counts_sum_to_the_whole(problem):
    X, cuts, rng = problem
    n, m = X.shape
    y = rng.integers(0, 3, n)
    parts = split(X, cuts)
    merged = blocks.merge_value_counts([blocks.value_counts(p) for p in parts])
    edges, n_edges = blocks.edges_from_counts(merged, 5)
    binned = [blocks.bin_block(p, edges, n_edges, 5) for p in parts]
    whole = BinnedMatrix.from_binned(discretize(X, 5))
    offsets = np.cumsum([0] + [b.n_rows for b in binned])
    reference = sum(blocks.reference_counts(b, y[a:c], m, 5, 3) for b, a, c in zip(binned, offsets[:-1], offsets[1:]))
    for feature in range(m):
        parts_pairs = [blocks.pair_counts(b, feature, y[a:c], m, 5, 3) for b, a, c in zip(binned, offsets[:-1], offsets[1:])]
        pairs = sum(p for p, _ in parts_pairs)
        count_s = sum(c for _, c in parts_pairs)
        np.testing.assert_array_equal(
            np.concatenate([blocks.feature_bins(b, feature, 5) for b in binned]), whole.column(feature)
        )
        if whole.n_bins >= 2:
            counter = PairCounter(whole, y, 3)
            expected = counter.entropies(feature, np.arange(m))
            from paucity.info import _kernels

            completed = reference.copy()
            base = np.bincount(y, minlength=3)
            completed[:, :3] = base - reference[:, 3:].reshape(m, 4, 3).sum(axis=1)
            out = np.empty((m, 2))
            _kernels.pair_entropies(pairs[None, :], completed, count_s, np.arange(m), m, 5, 3, whole.xlogx, n, out)
            np.testing.assert_array_equal(out[:, 0], expected[0])
            np.testing.assert_array_equal(out[:, 1], expected[1])


@settings(max_examples=60, deadline=None)
@given(blocked_matrix(), st.integers(2, 6))
def test_bins_present_over_blocks_find_the_constant_features(problem, n_bins):
    X, cuts, rng = problem
    X = X.toarray()
    X[:, rng.random(X.shape[1]) < 0.3] = 0.0  # some all-zero columns
    X[:, rng.random(X.shape[1]) < 0.3] = 2.5  # some constant non-zero ones
    X = sp.csr_matrix(X)
    parts = split(X, cuts)
    merged = blocks.merge_value_counts([blocks.value_counts(p) for p in parts])
    edges, n_edges = blocks.edges_from_counts(merged, n_bins)
    binned = [blocks.bin_block(p, edges, n_edges, n_bins) for p in parts]
    present = np.logical_or.reduce([blocks.bins_present(b, X.shape[1], n_bins) for b in binned])
    whole = discretize(X, n_bins).toarray()
    for j in range(X.shape[1]):
        assert present[j].tolist() == [bool((whole[:, j] == b).any()) for b in range(n_bins)]
    expected = np.array([len(np.unique(whole[:, j])) == 1 for j in range(X.shape[1])])
    np.testing.assert_array_equal(present.sum(axis=1) <= 1, expected)
    np.testing.assert_array_equal(BinnedMatrix.from_binned(discretize(X, n_bins)).constant_features(), expected)
