import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity._sparse import to_csc, to_csr


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([0.0, 0.05, 0.3, 1.0]), st.integers(0, 2**31))
def test_parallel_transpose_equals_scipy(n, m, density, seed):
    A = sp.random(n, m, density=density, format="csr", random_state=seed, dtype=np.float32)
    for converted, expected in ((to_csc(A), A.tocsc()), (to_csr(A.tocsc()), A)):
        expected.sort_indices()
        np.testing.assert_array_equal(converted.indptr, expected.indptr)
        np.testing.assert_array_equal(converted.indices, expected.indices)
        np.testing.assert_array_equal(converted.data, expected.data)
        assert converted.format == expected.format and converted.has_sorted_indices


def test_other_formats_and_no_op():
    A = sp.random(10, 7, density=0.3, format="coo", random_state=0)
    assert (to_csc(A) != A.tocsc()).nnz == 0
    B = A.tocsc()
    assert to_csc(B) is B
