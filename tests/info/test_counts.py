import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity.info import BinnedMatrix, candidate_interactions

from . import reference


@st.composite
def binned_problem(draw):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(1, 5))
    n_bins = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    density = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    X = rng.integers(0, n_bins, size=(n, m)) * (rng.random((n, m)) < density)
    if draw(st.booleans()) and n > 0:  # a single non-zero in the first column
        X[:, 0] = 0
        X[rng.integers(0, n), 0] = n_bins - 1
    n_classes = draw(st.integers(1, 4))
    y = rng.integers(0, n_classes, n)
    n_fixed = draw(st.integers(0, 3))
    fixed_columns = [int(c) for c in rng.integers(0, m, n_fixed)]
    return X.astype(np.uint8), y, n_classes, fixed_columns, draw(st.booleans())


@settings(max_examples=200, deadline=None)
@given(binned_problem())
def test_kernel_matches_brute_force(problem):
    X, y, n_classes, fixed_columns, with_labels = problem
    binned = BinnedMatrix.from_binned(sp.csc_matrix(X))
    fixed = [X[:, c] for c in fixed_columns]
    radices = [binned.n_bins] * len(fixed)
    if with_labels:
        fixed.append(y)
        radices.append(max(n_classes, int(y.max()) + 1))
    columns = np.arange(X.shape[1], dtype=np.int64)
    got = candidate_interactions(binned, fixed, radices, columns)
    expected = [reference.interaction(*fixed, X[:, j]) for j in columns]
    np.testing.assert_allclose(got, expected, atol=1e-7)


def test_candidate_subset_and_dense_input_agree():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(200, 8)).astype(np.uint8)
    y = rng.integers(0, 3, 200)
    dense = BinnedMatrix.from_binned(X)
    sparse = BinnedMatrix.from_binned(sp.csc_matrix(X))
    columns = np.array([1, 5, 6])
    a = candidate_interactions(dense, [y], [3], columns)
    b = candidate_interactions(sparse, [y], [3], np.arange(8))
    np.testing.assert_array_equal(a, b[columns])


def test_permuted_tables_tie_exactly():
    # two features whose joint tables with y are permutations of each other
    y = np.array([0, 0, 1, 1, 2, 2, 2, 1, 0, 0])
    a = np.array([1, 0, 2, 0, 3, 3, 0, 1, 0, 2], dtype=np.uint8)
    b = np.array([2, 0, 1, 0, 3, 3, 0, 2, 0, 1], dtype=np.uint8)
    binned = BinnedMatrix.from_binned(np.column_stack([a, b]))
    mi = candidate_interactions(binned, [y], [3], np.arange(2))
    assert mi[0] == mi[1]


@pytest.mark.parametrize("n", [1, 2, 7])
def test_one_class_gives_zero_information(n):
    X = np.arange(n, dtype=np.uint8)[:, None] % 3
    binned = BinnedMatrix.from_binned(X)
    assert candidate_interactions(binned, [np.zeros(n, dtype=np.int64)], [1], np.arange(1))[0] == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(binned_problem())
def test_constant_features_are_the_columns_of_one_value(problem):
    X, *_ = problem
    expected = [len(np.unique(X[:, j])) == 1 for j in range(X.shape[1])]
    for matrix in (X, sp.csc_matrix(X)):
        assert BinnedMatrix.from_binned(matrix).constant_features().tolist() == expected


def test_constant_features_stored_in_every_row():
    X = np.array([[3, 1, 0], [3, 2, 0], [3, 1, 1]], dtype=np.uint8)  # a constant 3, stored everywhere
    assert BinnedMatrix.from_binned(X).constant_features().tolist() == [True, False, False]
