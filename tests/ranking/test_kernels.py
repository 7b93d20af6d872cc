"""The ranking kernels against slow NumPy references, on small random inputs."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity.ranking import _kernels


# -- slow references ------------------------------------------------------------------------------
def reference_pair_terms(low, high, low_wins, high_wins, v):
    """Loss, slope and curvature pair by pair, from the BTL probabilities themselves."""
    loss, slope, curvature = 0.0, [], []
    for a, b, wa, wb in zip(low, high, low_wins, high_wins):
        delta = v[a] - v[b]
        # P(low beats high) = 1 / (1 + exp(v_high - v_low)), in a form that cannot overflow
        log_p_low = -np.logaddexp(0.0, -delta)
        log_p_high = -np.logaddexp(0.0, delta)
        loss -= wa * log_p_low + wb * log_p_high
        slope.append((wa + wb) * np.exp(log_p_low) - wa)  # d loss / d delta
        curvature.append((wa + wb) * np.exp(log_p_low + log_p_high))  # (wa + wb) p (1 - p)
    return loss, np.array(slope), np.array(curvature)


def reference_scatter(low, high, values, out):
    out = out.copy()
    for a, b, value in zip(low, high, values):
        out[a] += value
        out[b] -= value
    return out


def reference_laplacian(low, high, weights, n):
    L = np.zeros((n, n))
    for a, b, w in zip(low, high, weights):
        e = np.zeros(n)
        e[a], e[b] = 1.0, -1.0
        L += w * np.outer(e, e)
    return L


# -- strategies -----------------------------------------------------------------------------------
@st.composite
def pair_problem(draw, max_items=8, max_pairs=20, scale=3.0):
    n = draw(st.integers(2, max_items))
    n_pairs = draw(st.integers(0, max_pairs))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    low = rng.integers(0, n - 1, n_pairs)
    high = low + 1 + (rng.integers(0, n, n_pairs) % (n - 1 - low))  # low < high < n
    wins = rng.choice([0.0, 0.5, 1.0, 2.0, 7.0], size=(2, n_pairs))
    v = rng.normal(scale=draw(st.sampled_from([0.1, scale, 40.0])), size=n)  # 40: far into the tails
    return n, low.astype(np.int64), high.astype(np.int64), wins[0].copy(), wins[1].copy(), v


@settings(max_examples=100, deadline=None)
@given(pair_problem())
def test_btl_pair_terms(problem):
    _, low, high, low_wins, high_wins, v = problem
    slope, curvature = np.full(len(low), np.nan), np.full(len(low), np.nan)
    loss = _kernels.btl_pair_terms(low, high, low_wins, high_wins, v, slope, curvature)
    expected_loss, expected_slope, expected_curvature = reference_pair_terms(low, high, low_wins, high_wins, v)
    assert np.isfinite(loss)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(slope, expected_slope.reshape(-1), rtol=1e-10, atol=1e-12)
    # σ(1 − σ) loses relative precision far in the tails, where it is below 1e-9: absolute agreement there
    np.testing.assert_allclose(curvature, expected_curvature.reshape(-1), rtol=1e-10, atol=1e-14)
    # the same loss alone
    np.testing.assert_allclose(_kernels.btl_loss(low, high, low_wins, high_wins, v), expected_loss, rtol=1e-12, atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(pair_problem(max_items=5, max_pairs=6, scale=1.0), st.integers(0, 4), st.integers(0, 2**32 - 1))
def test_btl_slope_is_the_derivative_of_the_loss(problem, which, seed):
    n, low, high, low_wins, high_wins, v = problem
    if len(low) == 0:
        return
    v = np.random.default_rng(seed).normal(size=n)  # moderate: finite differences need curvature
    e = which % len(low)
    slope, curvature = np.empty(len(low)), np.empty(len(low))
    _kernels.btl_pair_terms(low[e:e + 1], high[e:e + 1], low_wins[e:e + 1], high_wins[e:e + 1], v, slope[:1], curvature[:1])
    h = 1e-5
    shifted = []
    for sign in (1.0, -1.0):
        w = v.copy()
        w[low[e]] += sign * h  # moves delta = v[low] - v[high] by ±h
        shifted.append(_kernels.btl_loss(low[e:e + 1], high[e:e + 1], low_wins[e:e + 1], high_wins[e:e + 1], w))
    np.testing.assert_allclose(slope[0], (shifted[0] - shifted[1]) / (2 * h), rtol=1e-5, atol=1e-7)


def test_btl_pair_terms_at_extreme_differences():
    low, high = np.array([0, 0]), np.array([1, 1])
    v = np.array([800.0, -800.0])  # exp(1600) overflows a naive formula
    slope, curvature = np.empty(2), np.empty(2)
    loss = _kernels.btl_pair_terms(low, high, np.array([1.0, 0.0]), np.array([0.0, 1.0]), v, slope, curvature)
    assert loss == 1600.0  # the high item's single win costs log(1 + e^1600) = 1600; the low item's win costs ~0
    np.testing.assert_allclose(slope, [0.0, 1.0], atol=1e-300)
    np.testing.assert_allclose(curvature, [0.0, 0.0], atol=1e-300)


@settings(max_examples=100, deadline=None)
@given(pair_problem())
def test_scatter_pairs(problem):
    _, low, high, values, _, v = problem
    out = v.copy()  # out is added to
    _kernels.scatter_pairs(low, high, values, out)
    np.testing.assert_allclose(out, reference_scatter(low, high, values, v), rtol=1e-12, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(pair_problem())
def test_laplacian_product(problem):
    n, low, high, weights, _, x = problem
    start = np.arange(n, dtype=np.float64)
    out = start.copy()
    _kernels.laplacian_product(low, high, weights, x, out)
    np.testing.assert_allclose(out, start + reference_laplacian(low, high, weights, n) @ x, rtol=1e-10, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 7), st.integers(0, 30), st.integers(0, 2**32 - 1), st.sampled_from([np.int32, np.int64]))
def test_fill_csr(n, nnz, seed, index_dtype):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, n, nnz)
    cols = rng.integers(0, n, nnz).astype(index_dtype)
    values = rng.normal(size=nnz)
    indptr = np.zeros(n + 1, dtype=index_dtype)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    indices = np.full(nnz, -1, dtype=index_dtype)
    data = np.full(nnz, np.nan)
    _kernels.fill_csr(rows, cols, values, indptr, indices, data)
    # reference: a stable sort by row keeps the input order within each row
    order = np.argsort(rows, kind="stable")
    np.testing.assert_array_equal(indices, cols[order])
    np.testing.assert_array_equal(data, values[order])
    np.testing.assert_array_equal(indptr[:-1], np.searchsorted(rows[order], np.arange(n)))
    # and the matrix is the one the triplets describe (duplicates summed)
    built = sp.csr_matrix((data, indices, indptr), shape=(n, n)).toarray()
    expected = np.zeros((n, n))
    np.add.at(expected, (rows, cols.astype(np.int64)), values)
    np.testing.assert_allclose(built, expected, atol=1e-12)


def test_sums_are_the_same_bits_on_any_number_of_threads():
    # many blocks of pairs, split among the threads: the block sums are added in block order
    import numba

    rng = np.random.default_rng(7)
    n, n_pairs = 500, 10 * _kernels.SUM_BLOCK + 17
    low = rng.integers(0, n - 1, n_pairs)
    high = low + 1 + rng.integers(0, n, n_pairs) % (n - 1 - low)
    low_wins, high_wins = rng.integers(0, 4, (2, n_pairs)).astype(np.float64)
    v = rng.normal(scale=2.0, size=n)
    previous = numba.get_num_threads()
    results = []
    try:
        for threads in (1, numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS):
            numba.set_num_threads(threads)
            slope, curvature = np.empty(n_pairs), np.empty(n_pairs)
            loss = _kernels.btl_pair_terms(low, high, low_wins, high_wins, v, slope, curvature)
            results.append((loss, _kernels.btl_loss(low, high, low_wins, high_wins, v), slope, curvature))
    finally:
        numba.set_num_threads(previous)
    for other in results[1:]:
        for a, b in zip(results[0], other, strict=True):
            np.testing.assert_array_equal(a, b)
