from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import paucity._sparse
from paucity._jit import PARALLEL_MIN_SIZE
from paucity._sparse import to_csc, to_csr


def _same(converted, expected):
    expected.sort_indices()
    np.testing.assert_array_equal(converted.indptr, expected.indptr)
    np.testing.assert_array_equal(converted.indices, expected.indices)
    np.testing.assert_array_equal(converted.data, expected.data)
    assert converted.format == expected.format and converted.has_sorted_indices
    assert converted.data.dtype == expected.data.dtype


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([0.0, 0.05, 0.3, 1.0]), st.integers(0, 2**31),
       st.sampled_from([512, 8, 2, 1]))
def test_parallel_transpose_equals_scipy(n, m, density, seed, buckets):
    """Equal to scipy's conversion, whatever the buckets' size (few buckets: several slices share one)."""
    A = sp.random(n, m, density=density, format="csr", random_state=seed, dtype=np.float32)
    with mock.patch.object(paucity._sparse, "BUCKETS", buckets):
        for converted, expected in ((to_csc(A), A.tocsc()), (to_csr(A.tocsc()), A)):
            _same(converted, expected)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.int64, bool])
def test_large_transposes_run_the_parallel_kernel_and_move_every_type_bit_for_bit(dtype):
    """Above the parallel threshold, with many more slices than buckets (a million cells' shape, scaled down)."""
    rng = np.random.default_rng(0)
    n, m = 40_000, 300
    A = sp.random(n, m, density=0.06, format="csr", random_state=1, dtype=np.float64)
    A.data = (rng.normal(size=A.nnz) * 100).astype(dtype) if dtype is not bool else rng.random(A.nnz) < 0.5
    assert A.nnz >= PARALLEL_MIN_SIZE
    if dtype == np.float64:
        A.data[:3] = [np.nan, -0.0, np.inf]  # moved as bits, not as numbers
    for converted, expected in ((to_csc(A), A.tocsc()), (to_csr(A.tocsc()), A)):
        expected.sort_indices()
        np.testing.assert_array_equal(converted.indptr, expected.indptr)
        np.testing.assert_array_equal(converted.indices, expected.indices)
        np.testing.assert_array_equal(converted.data.view(np.uint8), expected.data.view(np.uint8))


def test_other_formats_and_no_op():
    A = sp.random(10, 7, density=0.3, format="coo", random_state=0)
    assert (to_csc(A) != A.tocsc()).nnz == 0
    B = A.tocsc()
    assert to_csc(B) is B
    C = sp.random(10, 7, density=0.3, format="csr", random_state=0, dtype=np.complex128)  # 16-byte values: scipy's
    _same(to_csc(C), C.tocsc())
