import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from paucity._errors import InputError, ParameterError
from paucity.info import discretize

from . import reference


@st.composite
def sparse_counts(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(1, 6))
    density = draw(st.sampled_from([0.0, 0.05, 0.3, 0.8, 1.0]))
    values = draw(
        arrays(np.float64, (n, m), elements=st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 7.25, 10.0, 1e-3]))
    )
    mask = draw(arrays(np.bool_, (n, m), elements=st.booleans())) if density not in (0.0, 1.0) else None
    if density == 0.0:
        values[:] = 0.0
    elif mask is not None:
        values[~mask] = 0.0
    return values


@settings(max_examples=150, deadline=None)
@given(sparse_counts(), st.integers(2, 7))
def test_sparse_and_dense_match_reference(X, n_bins):
    expected = reference.discretize(X, n_bins)
    dense = discretize(X, n_bins=n_bins)
    sparse = discretize(sp.csr_matrix(X), n_bins=n_bins)
    assert dense.dtype == np.uint8 and sparse.dtype == np.uint8
    assert sp.isspmatrix_csc(sparse)
    np.testing.assert_array_equal(dense, expected)
    np.testing.assert_array_equal(sparse.toarray(), expected)
    assert (sparse.data > 0).all()  # bin 0 is never stored


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, (50, 3), elements=st.floats(0, 1e6, allow_subnormal=False)), st.integers(2, 9))
def test_continuous_values_match_numpy_quantile(X, n_bins):
    np.testing.assert_array_equal(discretize(X, n_bins), reference.discretize(X, n_bins))


def test_float32_values_are_binned_against_float64_quantiles():
    rng = np.random.default_rng(3)
    X = rng.gamma(1.0, 2.0, size=(501, 4)).astype(np.float32)
    X[X < 1.0] = 0
    np.testing.assert_array_equal(discretize(sp.csc_matrix(X), 5).toarray(), reference.discretize(X, 5))


def test_worked_example_sparse_column():
    # 6 zeros and 1..4: edge 1 = 0 (a quantile among the zeros), then quartiles of 1..4
    column = np.array([0, 0, 0, 0, 0, 0, 1, 2, 3, 4], dtype=float)[:, None]
    # level 1: quantile(., 1/5) = 0; level 2: quantile([1,2,3,4], 1/4) = 1.75 -> {1};
    # level 3: quantile([2,3,4], 1/3) = 2.666 -> {2}; level 4: quantile([3,4], 1/2) = 3.5 -> {3}; max 4 -> {4}
    np.testing.assert_array_equal(discretize(sp.csc_matrix(column), 5).toarray().ravel(), [0] * 6 + [1, 2, 3, 4])


def test_feature_exhausted_early_uses_fewer_bins():
    column = np.array([0.0, 0.0, 5.0, 5.0])[:, None]
    # edge 0 = 0; remaining {5, 5}; edge = quantile([5,5], 1/4) = 5 -> nothing left
    np.testing.assert_array_equal(discretize(column, 5).ravel(), [0, 0, 1, 1])


def test_all_zero_and_single_nonzero_columns():
    X = np.zeros((10, 2))
    X[7, 1] = 3.0
    out = discretize(sp.csc_matrix(X), 5)
    np.testing.assert_array_equal(out.toarray()[:, 0], 0)
    np.testing.assert_array_equal(out.toarray()[:, 1], [0] * 7 + [1] + [0] * 2)


@pytest.mark.parametrize(
    "X, message",
    [
        (np.array([[1.0, -2.0]]), "Negative values"),
        (np.array([[1.0, np.nan]]), "NaN"),
        (np.array([[1.0, np.inf]]), "infinite"),
        (np.array([1.0, 2.0]), "2-dimensional"),
        (np.array([["a", "b"]]), "numbers"),
        (np.zeros((0, 3)), "empty: 0 sample"),
    ],
)
def test_bad_input(X, message):
    with pytest.raises((InputError, TypeError), match=message):
        discretize(X)


@pytest.mark.parametrize("n_bins", [0, 256, 2.5, "5", True, None])
def test_bad_n_bins(n_bins):
    with pytest.raises(ParameterError, match=r"discretize: n_bins must be an integer in \[2, 255\]"):
        discretize(np.ones((3, 3)), n_bins=n_bins)


def test_one_bin_is_refused_because_it_carries_no_information():
    with pytest.raises(ParameterError, match=r"a single bin puts every value together and carries no information.*got 1\."):
        discretize(np.arange(6.0).reshape(3, 2), n_bins=1)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([0.5, 3.0, 40.0, 5000.0]), st.sampled_from([0.02, 0.2, 0.9]))
def test_integer_counts_are_counted_not_sorted_with_the_same_bins(seed, mean, density):
    # integer columns take the counting path; wide ranges and fractions take the sorting path
    rng = np.random.default_rng(seed)
    X = rng.poisson(mean, size=(300, 4)).astype(np.float32) * (rng.random((300, 4)) < density)
    X[:, 3] += rng.random(300) < 0.01  # still integers
    expected = reference.discretize(X, 5)
    np.testing.assert_array_equal(discretize(sp.csr_matrix(X), 5).toarray(), expected)
    with_stored_zeros = sp.csc_matrix(X)
    with_stored_zeros.data[::7] = 0.0  # explicit zeros are zeros
    np.testing.assert_array_equal(
        discretize(with_stored_zeros, 5).toarray(), reference.discretize(with_stored_zeros.toarray(), 5)
    )


def test_the_callers_matrix_is_never_modified():
    rng = np.random.default_rng(1)
    X = (rng.poisson(1.0, size=(50, 6)) * (rng.random((50, 6)) < 0.5)).astype(np.float32)
    for matrix in (sp.csc_matrix(X), sp.csr_matrix(X)):
        matrix.data[::5] = 0.0  # explicit zeros
        before = (matrix.data.copy(), matrix.indices.copy(), matrix.indptr.copy())
        discretize(matrix, 5)
        from paucity.markers import InfoSelector

        InfoSelector(method="cife", n_features=2).fit(matrix, np.arange(50) % 3)
        binned = discretize(matrix, 5)
        binned.data[::3] = 0  # a pre-binned matrix with explicit zeros
        binned_before = (binned.data.copy(), binned.indices.copy(), binned.indptr.copy())
        InfoSelector(method="jmi", n_features=2, n_bins=None).fit(binned, np.arange(50) % 3)
        for got, expected in zip((matrix.data, matrix.indices, matrix.indptr), before):
            np.testing.assert_array_equal(got, expected)
        for got, expected in zip((binned.data, binned.indices, binned.indptr), binned_before):
            np.testing.assert_array_equal(got, expected)


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float64,
        st.integers(0, 300),
        elements=st.one_of(
            st.floats(allow_nan=False),
            st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e-300, -1e-300, 5e-324]),
        ),
    )
)
def test_the_columns_sort_equals_numpys(values):
    from paucity.info._kernels import sorted_copy

    before = values.copy()
    result = sorted_copy(values)
    np.testing.assert_array_equal(result, np.sort(values))  # -0.0 == 0.0, so their order is free
    np.testing.assert_array_equal(values, before)  # a copy: the column is left as it was
