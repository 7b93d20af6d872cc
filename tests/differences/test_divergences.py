"""Divergences on the line (seed 004) against brute-force references.

- W₂² and its coupling against the linear program on the n × m transport polytope;
- the Wasserstein subgradient against central finite differences and against the
  dense sum 2 Σ M_ij (p_i − q_j)(x_i − y_j);
- the Mann–Whitney value against scipy's U statistic and its gradient against
  finite differences of the smoothed AUC written out pair by pair.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.special import expit
from scipy.stats import mannwhitneyu

from paucity._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from paucity.differences import (
    Divergence,
    MannWhitney,
    Wasserstein,
    Wasserstein1DResult,
    wasserstein_1d,
    wasserstein_gradient,
)


# -- references -----------------------------------------------------------------------------------
def transport_lp(p, q) -> float:
    """min Σ M_ij (p_i − q_j)² over M ≥ 0 with row sums 1/n and column sums 1/m."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    n, m = p.size, q.size
    cost = ((p[:, None] - q[None, :]) ** 2).ravel()
    rows = np.kron(np.eye(n), np.ones((1, m)))  # Σ_j M_ij
    columns = np.kron(np.ones((1, n)), np.eye(m))  # Σ_i M_ij
    result = linprog(
        cost,
        A_eq=np.vstack([rows, columns]),
        b_eq=np.concatenate([np.full(n, 1.0 / n), np.full(m, 1.0 / m)]),
        bounds=(0, None),
        method="highs",
    )
    assert result.status == 0
    return float(result.fun)


def dense_coupling(result: Wasserstein1DResult, n: int, m: int) -> np.ndarray:
    M = np.zeros((n, m))
    np.add.at(M, (result.p_index, result.q_index), result.mass)
    return M


def dense_gradient(X, Y, beta, M) -> np.ndarray:
    """2 Σ_ij M_ij (p_i − q_j)(x_i − y_j), pair by pair."""
    p, q = X @ beta, Y @ beta
    gradient = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            gradient += 2 * M[i, j] * (p[i] - q[j]) * (X[i] - Y[j])
    return gradient


def smoothed_auc_pairs(X, Y, beta, h) -> float:
    p, q = X @ beta, Y @ beta
    return float(np.mean(expit((q[None, :] - p[:, None]) / h)))


def central_difference(f, beta, step=1e-6) -> np.ndarray:
    gradient = np.zeros_like(beta)
    for k in range(beta.size):
        e = np.zeros_like(beta)
        e[k] = step
        gradient[k] = (f(beta + e) - f(beta - e)) / (2 * step)
    return gradient


# values on a coarse grid so that ties within and across samples are common
samples = st.lists(st.integers(-4, 4), min_size=2, max_size=7).map(lambda v: np.array(v, float) / 2)


# -- wasserstein_1d -------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(p=samples, q=samples)
def test_wasserstein_1d_matches_the_transport_linear_program(p, q):
    result = wasserstein_1d(p, q)
    assert result.value == pytest.approx(transport_lp(p, q), abs=1e-9)
    # the coupling is feasible and attains the value
    n, m = p.size, q.size
    assert result.mass.size <= n + m - 1
    assert np.all(result.mass > 0)
    np.testing.assert_allclose(np.bincount(result.p_index, result.mass, minlength=n), 1 / n)
    np.testing.assert_allclose(np.bincount(result.q_index, result.mass, minlength=m), 1 / m)
    cost = np.dot(result.mass, (p[result.p_index] - q[result.q_index]) ** 2)
    assert cost == pytest.approx(result.value, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(p=samples, q=samples, shift=st.floats(-10, 10))
def test_wasserstein_1d_symmetry_identity_and_translation(p, q, shift):
    assert wasserstein_1d(p, q).value == pytest.approx(wasserstein_1d(q, p).value, abs=1e-12)
    assert wasserstein_1d(p, p).value == pytest.approx(0.0, abs=1e-12)
    assert wasserstein_1d(p, p + shift).value == pytest.approx(shift**2, rel=1e-9, abs=1e-9)
    # a permutation of a sample is the same distribution
    assert wasserstein_1d(p[::-1], q).value == pytest.approx(wasserstein_1d(p, q).value, abs=1e-12)


def test_wasserstein_1d_indices_refer_to_the_unsorted_samples():
    rng = np.random.default_rng(0)
    p, q = rng.normal(size=13), rng.normal(size=8)
    result = wasserstein_1d(p, q)
    # monotone: as the mass moves up the quantile levels both matched values increase
    assert np.all(np.diff(p[result.p_index]) >= 0)
    assert np.all(np.diff(q[result.q_index]) >= 0)
    # n + m − gcd(n, m) pieces
    assert result.mass.size == 13 + 8 - 1
    assert result.value == pytest.approx(transport_lp(p, q), abs=1e-9)


def test_wasserstein_1d_large_unequal_samples_run_in_linear_memory():
    rng = np.random.default_rng(1)
    p, q = rng.normal(size=200_000), rng.normal(1.0, 1.0, size=150_001)
    result = wasserstein_1d(p, q)
    assert result.mass.size <= p.size + q.size - 1
    assert result.value == pytest.approx(1.0, abs=0.05)
    assert result.mass.sum() == pytest.approx(1.0)


# -- wasserstein_gradient -------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_wasserstein_gradient_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    n, m, d = rng.integers(3, 12), rng.integers(3, 12), rng.integers(1, 6)
    X = rng.normal(size=(n, d))
    Y = rng.normal(0.5, 2.0, size=(m, d))
    beta = rng.normal(size=d)
    value, gradient = wasserstein_gradient(X, Y, beta)
    assert value == pytest.approx(wasserstein_1d(X @ beta, Y @ beta).value)
    numeric = central_difference(lambda b: wasserstein_1d(X @ b, Y @ b).value, beta)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)
    # and against the dense pair-by-pair sum over the same coupling
    M = dense_coupling(wasserstein_1d(X @ beta, Y @ beta), n, m)
    np.testing.assert_allclose(gradient, dense_gradient(X, Y, beta, M), rtol=1e-10, atol=1e-12)
    # the divergence interface agrees
    value_2, gradient_2 = Wasserstein().gradient(X, Y, beta)
    assert value_2 == value
    np.testing.assert_array_equal(gradient_2, gradient)


def test_wasserstein_gradient_is_twice_the_value_along_beta():
    # J is homogeneous of degree 2 in β, so βᵀ∇J = 2J (Euler), ties or not
    rng = np.random.default_rng(3)
    X, Y = rng.integers(0, 3, size=(9, 4)).astype(float), rng.integers(0, 3, size=(7, 4)).astype(float)
    beta = rng.normal(size=4)
    value, gradient = wasserstein_gradient(X, Y, beta)
    assert beta @ gradient == pytest.approx(2 * value)


def test_wasserstein_gradient_accepts_sparse_and_dataframes():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(10, 5)) * (rng.random((10, 5)) < 0.4)
    Y = rng.normal(size=(6, 5)) * (rng.random((6, 5)) < 0.4)
    beta = rng.normal(size=5)
    expected = wasserstein_gradient(X, Y, beta)
    for convert in (sp.csr_matrix, sp.csc_matrix, pd.DataFrame):
        value, gradient = wasserstein_gradient(convert(X), convert(Y), beta)
        assert value == pytest.approx(expected[0])
        np.testing.assert_allclose(gradient, expected[1])


def test_wasserstein_gradient_is_zero_between_identical_samples():
    X = np.random.default_rng(5).normal(size=(8, 3))
    value, gradient = wasserstein_gradient(X, X[::-1], np.ones(3))
    assert value == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(gradient, 0.0, atol=1e-12)


# -- MannWhitney ----------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(p=samples, q=samples)
def test_mann_whitney_value_matches_scipy_u(p, q):
    u = mannwhitneyu(q, p).statistic  # pairs with q > p, ties counted ½
    auc = u / (p.size * q.size)
    divergence = MannWhitney()
    assert divergence.auc(p, q) == pytest.approx(auc, abs=1e-12)
    assert divergence.value(p, q) == pytest.approx(abs(auc - 0.5), abs=1e-12)
    assert divergence.value(q, p) == pytest.approx(divergence.value(p, q), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("smoothing", [0.3, 1.0])
def test_mann_whitney_gradient_matches_the_smoothed_auc(seed, smoothing):
    rng = np.random.default_rng(seed)
    n, m, d = rng.integers(3, 15), rng.integers(3, 15), rng.integers(1, 5)
    X = rng.normal(size=(n, d))
    Y = rng.normal(0.8 * (-1) ** seed, 1.0, size=(m, d))
    beta = rng.normal(size=d)
    divergence = MannWhitney(smoothing=smoothing)
    value, gradient = divergence.gradient(X, Y, beta)
    p, q = X @ beta, Y @ beta
    auc = mannwhitneyu(q, p).statistic / (n * m)
    assert value == pytest.approx(abs(auc - 0.5))
    numeric = central_difference(lambda b: smoothed_auc_pairs(X, Y, b, smoothing), beta)
    np.testing.assert_allclose(gradient, np.sign(auc - 0.5) * numeric, rtol=1e-5, atol=1e-8)
    assert divergence.smoothed_auc(p, q) == pytest.approx(smoothed_auc_pairs(X, Y, beta, smoothing))


def test_mann_whitney_gradient_over_row_blocks_matches_one_block(monkeypatch):
    from paucity.differences import divergences

    rng = np.random.default_rng(7)
    X, Y, beta = rng.normal(size=(40, 3)), rng.normal(0.5, 1, size=(30, 3)), rng.normal(size=3)
    expected = MannWhitney(smoothing=0.5).gradient(X, Y, beta)
    monkeypatch.setattr(divergences, "_BLOCK_ELEMENTS", 64)  # blocks of 2 rows
    value, gradient = MannWhitney(smoothing=0.5).gradient(X, Y, beta)
    assert value == expected[0]
    np.testing.assert_allclose(gradient, expected[1], rtol=1e-12)


def test_mann_whitney_subsampled_gradient_is_seeded_and_close_to_exact():
    rng = np.random.default_rng(8)
    X, Y, beta = rng.normal(size=(600, 4)), rng.normal(0.5, 1, size=(500, 4)), rng.normal(size=4)
    exact = MannWhitney(smoothing=0.5).gradient(X, Y, beta)[1]
    sampled = MannWhitney(smoothing=0.5, max_pairs=100_000, random_state=0)  # n·m = 300,000 pairs
    first, second = sampled.gradient(X, Y, beta), sampled.gradient(X, Y, beta)
    np.testing.assert_array_equal(first[1], second[1])  # an int seed draws the same pairs each call
    assert first[0] == pytest.approx(MannWhitney().value(X @ beta, Y @ beta))
    assert np.linalg.norm(first[1] - exact) < 0.1 * np.linalg.norm(exact)
    other = MannWhitney(smoothing=0.5, max_pairs=100_000, random_state=1).gradient(X, Y, beta)[1]
    assert not np.array_equal(other, first[1])


def test_mann_whitney_gradient_is_zero_at_auc_one_half():
    X = np.array([[0.0], [2.0]])
    Y = np.array([[1.0], [1.0]])
    value, gradient = MannWhitney().gradient(X, Y, [1.0])
    assert value == 0.0
    np.testing.assert_array_equal(gradient, [0.0])


# -- interface and bad input ----------------------------------------------------------------------
def test_divergences_share_the_interface():
    for divergence in (Wasserstein(), MannWhitney(smoothing=0.2)):
        assert isinstance(divergence, Divergence)
        assert "(" in repr(divergence)
    assert MannWhitney(smoothing=0.2).smoothing == 0.2


@pytest.mark.parametrize("divergence", [Wasserstein(), MannWhitney()], ids=["wasserstein", "mann_whitney"])
def test_bad_input_is_refused_with_clear_messages(divergence):
    rng = np.random.default_rng(9)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    with pytest.raises(ShapeMismatchError, match="X has 3 columns but Y has 2"):
        divergence.gradient(X, Y[:, :2], np.ones(3))
    with pytest.raises(InputError, match="Y has 1 sample.*at least 2"):
        divergence.gradient(X, Y[:1], np.ones(3))
    with pytest.raises(InputError, match="p has 1 sample.*at least 2"):
        divergence.value([1.0], [1.0, 2.0])
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(InputError, match="NaN or infinite"):
        divergence.gradient(bad, Y, np.ones(3))
    with pytest.raises(InputError, match="NaN or infinite.*position 1"):
        divergence.value([0.0, np.inf, 1.0], [1.0, 2.0])
    with pytest.raises(ShapeMismatchError, match="beta has shape \\(2,\\)"):
        divergence.gradient(X, Y, np.ones(2))
    with pytest.raises(InputError, match="beta has NaN"):
        divergence.gradient(X, Y, [1.0, np.nan, 0.0])
    with pytest.raises(InputError, match="1-D sample"):
        divergence.value(X, Y)
    with pytest.raises(InputTypeError, match="single value"):
        divergence.value(3.0, [1.0, 2.0])


def test_wasserstein_functions_validate_too():
    with pytest.raises(InputError, match="q has 0 sample"):
        wasserstein_1d([1.0, 2.0], [])
    with pytest.raises(InputTypeError, match="must hold numbers"):
        wasserstein_1d(["a", "b"], [1.0, 2.0])
    with pytest.raises(ShapeMismatchError):
        wasserstein_gradient(np.ones((3, 2)), np.ones((3, 3)), np.ones(2))


@pytest.mark.parametrize("smoothing", [0, -1.0, np.nan, "wide", True])
def test_mann_whitney_refuses_a_bad_smoothing(smoothing):
    X = np.random.default_rng(10).normal(size=(4, 2))
    with pytest.raises(ParameterError, match="smoothing must be a number > 0"):
        MannWhitney(smoothing=smoothing).gradient(X, X + 1, np.ones(2))


def test_mann_whitney_refuses_a_bad_max_pairs():
    X = np.random.default_rng(11).normal(size=(4, 2))
    with pytest.raises(ParameterError, match="max_pairs"):
        MannWhitney(max_pairs=0).gradient(X, X + 1, np.ones(2))
