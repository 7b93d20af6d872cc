"""Every parallel kernel of paucity.info gives the same bits on one thread and on all of them.

``n_jobs`` follows the load of the machine, so the number of threads a fit runs
on changes from run to run; its outputs must not.
"""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from paucity.info import BinnedMatrix, _kernels, blocks, candidate_interactions, discretize
from paucity.info.counts import PairCounter
from paucity._sparse import to_csc, to_csr

ALL = numba.config.NUMBA_NUM_THREADS


def on_threads(n, compute):
    previous = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        return compute()
    finally:
        numba.set_num_threads(previous)


def same_on_any_thread_count(compute):
    """Run ``compute`` on one thread and on every thread (three times)."""
    expected = on_threads(1, compute)
    for _ in range(3):
        got = on_threads(ALL, compute)
        for a, b in zip(expected, got, strict=True):
            np.testing.assert_array_equal(a, b)
    return expected


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(3)
    n, m = 3000, 70
    y = rng.integers(0, 4, n)
    X = rng.poisson(rng.uniform(0.1, 30, m), (n, m)) * (rng.random((n, m)) < rng.uniform(0.01, 0.9, m))
    X[:, :5] += 6 * (y[:, None] == np.arange(5) % 4)
    return sp.csr_matrix(X.astype(np.float32)), y


def test_discretize_sparse_counts_and_continuous_values(counts):
    X, _ = counts
    continuous = X.copy()
    continuous.data = continuous.data * np.random.default_rng(1).uniform(0.5, 1.5, continuous.nnz).astype(np.float32)
    for matrix in (X, continuous):
        same_on_any_thread_count(lambda matrix=matrix: (discretize(matrix, 5).toarray(),))


def test_discretize_dense(counts):
    X, _ = counts
    dense = X[:400].toarray() * np.random.default_rng(2).random((400, X.shape[1]))
    same_on_any_thread_count(lambda: (discretize(dense, 4),))


def test_counts_with_fixed_features_and_labels(counts):
    X, y = counts
    binned = BinnedMatrix.from_binned(discretize(X, 5))
    columns = np.arange(binned.n_features)

    def entropies():
        cache = {}
        fixed = [binned.column(0), binned.column(3), y]
        radices = [binned.n_bins, binned.n_bins, 4]
        candidate_interactions(binned, fixed, radices, columns, names=[0, 3, "y"], cache=cache)
        return [cache[key] for key in sorted(cache, key=lambda k: sorted(map(str, k)))]

    same_on_any_thread_count(entropies)
    same_on_any_thread_count(lambda: (binned.with_labels(y, 4),))


@pytest.mark.parametrize("built_on", [1, ALL])
def test_pair_counts_whoever_counts_which_rows(counts, built_on):
    # the counter keeps one table per thread it was built with; it may run on fewer or more
    X, y = counts
    binned = BinnedMatrix.from_binned(discretize(X, 5))
    counter = on_threads(built_on, lambda: PairCounter(binned, y, 4))
    columns = np.arange(binned.n_features)
    expected = {}
    candidate_interactions(binned, [binned.column(2), y], [binned.n_bins, 4], columns, names=[2, "y"], cache=expected)
    pair, with_labels = same_on_any_thread_count(lambda: counter.entropies(2, columns))
    np.testing.assert_array_equal(pair, expected[frozenset({2})])
    np.testing.assert_array_equal(with_labels, expected[frozenset({2, "y"})])
    same_on_any_thread_count(lambda: (PairCounter(binned, y, 4).reference,))


def test_layout(counts):
    X, _ = counts
    same_on_any_thread_count(lambda: (to_csc(X).toarray(), to_csr(to_csc(X)).indices))


def test_row_block_kernels(counts):
    X, y = counts

    def run():
        merged = blocks.merge_value_counts([blocks.value_counts(X[:1000]), blocks.value_counts(X[1000:])])
        edges, n_edges = blocks.edges_from_counts(merged, 5)
        binned = blocks.bin_block(X, edges, n_edges, 5)
        reference = np.ascontiguousarray(blocks.reference_counts(binned, y, X.shape[1], 5, 4))
        reference[:, :4] = np.bincount(y, minlength=4) - reference.reshape(X.shape[1], 5, 4)[:, 1:].sum(axis=1)
        xlogx = _kernels.xlogx_table(X.shape[0])
        out = np.empty((X.shape[1], 2))
        _kernels.table_entropies(reference, 5, 4, xlogx, X.shape[0], out)
        return merged.values, merged.counts, edges, n_edges, out

    same_on_any_thread_count(run)
