"""Spectral bisection and the Fiedler vector (seed 003, eqs. 2.1-2.5)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from paucity._errors import InputError, ParameterError, ShapeMismatchError
from paucity.clustering import fiedler_vector, spectral, spectral_bisection
from paucity.clustering.spectral import fiedler_of, laplacian


def blocks(sizes, inside=0.8, across=0.05, seed=0):
    """A noisy block matrix: similarities near `inside` within a block, near `across` between blocks."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(sizes)), sizes)
    same = labels[:, None] == labels[None, :]
    W = np.where(same, inside, across) + rng.uniform(-0.04, 0.04, (len(labels),) * 2)
    W = np.clip(np.triu(W, 1), 0, 1)
    W = W + W.T
    np.fill_diagonal(W, 1.0)
    return W, labels


def test_laplacian_rows_sum_to_zero_and_ignore_the_diagonal():
    W, _ = blocks([3, 4])
    L = laplacian(W)
    np.testing.assert_allclose(L.sum(axis=1), 0, atol=1e-12)
    W2 = W.copy()
    np.fill_diagonal(W2, 0.0)
    np.testing.assert_array_equal(laplacian(W2), L)
    np.testing.assert_allclose(laplacian(sp.csr_matrix(W)).toarray(), L, atol=1e-15)


def test_fiedler_vector_minimizes_the_rayleigh_quotient_on_the_complement_of_one():
    """Eqs. (2.3)-(2.5): v̂₂ is the unit vector orthogonal to 1 with the smallest vᵀL̂v."""
    W, _ = blocks([5, 6], seed=1)
    f = fiedler_vector(W)
    values = np.linalg.eigvalsh(laplacian(W))
    assert f.value == pytest.approx(values[1], rel=1e-10)
    assert f.third_value == pytest.approx(values[2], rel=1e-10)
    assert f.vector @ laplacian(W) @ f.vector == pytest.approx(values[1], rel=1e-10)
    assert abs(f.vector.sum()) < 1e-12 and np.linalg.norm(f.vector) == pytest.approx(1.0)


def test_the_sign_puts_the_largest_entry_positive():
    W, _ = blocks([4, 7], seed=2)
    v = fiedler_vector(W).vector
    assert v[np.argmax(np.abs(v))] > 0
    flipped = fiedler_vector(W[::-1, ::-1]).vector[::-1]
    np.testing.assert_allclose(flipped, v, atol=1e-12)


def test_iterative_and_dense_paths_agree(monkeypatch):
    W, _ = blocks([50, 40], seed=3)
    dense = fiedler_of(W, dense_max=1000)
    monkeypatch.setattr(spectral, "DENSE_MAX_ITEMS", 10)
    iterative = fiedler_of(W)
    assert iterative.block is not None and dense.block is None
    assert iterative.value == pytest.approx(dense.value, rel=1e-10)
    np.testing.assert_allclose(iterative.vector, dense.vector, atol=1e-9)
    warm = fiedler_of(W + 0.001 * (W > 0.5), start=iterative.block)  # a nearby matrix, warm-started
    cold = spectral._dense(laplacian(W + 0.001 * (W > 0.5)), 2 * 90.0, 1)
    np.testing.assert_allclose(warm.vector, cold.vector, atol=1e-9)


def test_three_components_leave_v2_undefined_and_split_off_the_largest():
    W = np.zeros((6, 6))
    W[0, 1] = W[1, 0] = 0.5
    W[2, 3] = W[3, 2] = W[3, 4] = W[4, 3] = 0.7
    f = fiedler_vector(W)  # components {0, 1}, {2, 3, 4}, {5}
    assert not f.defined and f.n_components == 3 and np.isnan(f.third_value)
    assert spectral_bisection(W).tolist() == [0, 0, 1, 1, 1, 0]
    assert fiedler_vector(np.eye(5)).n_components == 5


def test_two_blocks_are_recovered_and_labels_follow_first_appearance():
    W, truth = blocks([6, 9], seed=4)
    order = np.random.default_rng(0).permutation(15)
    labels = spectral_bisection(W[np.ix_(order, order)])
    assert labels[0] == 0
    assert len(set(zip(labels, truth[order]))) == 2


def test_recursive_bisection_splits_the_largest_cluster():
    W, truth = blocks([10, 7, 5], inside=0.9, across=0.05, seed=5)
    labels = spectral_bisection(W, n_clusters=3)
    assert sorted(np.bincount(labels)) == [5, 7, 10]
    assert len(set(zip(labels, truth))) == 3
    assert spectral_bisection(sp.csr_matrix(W), n_clusters=3).tolist() == labels.tolist()


def test_as_many_clusters_as_items():
    W, _ = blocks([2, 2], seed=6)
    assert sorted(spectral_bisection(W, n_clusters=4)) == [0, 1, 2, 3]


@pytest.mark.parametrize("n_clusters", [1, 5, 2.5, "2"])
def test_bad_numbers_of_clusters(n_clusters):
    with pytest.raises(ParameterError, match="n_clusters"):
        spectral_bisection(blocks([2, 2])[0], n_clusters=n_clusters)


@pytest.mark.parametrize(
    "W, error, match",
    [
        (np.ones((3, 4)), ShapeMismatchError, "square"),
        (np.ones((2, 2)), InputError, "at least 3"),
        (np.array([[1, 0.2, 0.3], [0.5, 1, 0.1], [0.3, 0.1, 1]]), InputError, r"not symmetric: w\[0, 1\] = 0.2"),
        (np.array([[1, -0.2, 0.3], [-0.2, 1, 0.1], [0.3, 0.1, 1]]), InputError, "negative"),
        (np.array([[1, np.nan, 0.3], [np.nan, 1, 0.1], [0.3, 0.1, 1]]), InputError, "NaN"),
        (np.array([["a", "b", "c"]] * 3), Exception, "numbers"),
    ],
)
def test_bad_matrices(W, error, match):
    with pytest.raises(error, match=match):
        spectral_bisection(W)
