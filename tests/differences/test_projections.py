"""Projections and pair costs of RELAX against slow references on small random inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.optimize
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from paucity._errors import InputError, ParameterError, ShapeMismatchError
from paucity.differences.projections import (
    UnitTraceProjection,
    pair_costs,
    project_simplex,
    project_unit_trace_psd,
    soft_threshold,
    weighted_scatter,
)

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
vectors = arrays(np.float64, st.integers(1, 30), elements=finite)
totals = st.floats(0.1, 100.0)


# -- slow references ------------------------------------------------------------------------------
def reference_simplex(v, total):
    """Bisection on the threshold θ of x = max(v − θ, 0), whose sum decreases in θ."""
    lo, hi = v.min() - total, v.max()  # sum ≥ total at lo, 0 at hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.maximum(v - mid, 0.0).sum() > total:
            lo = mid
        else:
            hi = mid
    return np.maximum(v - 0.5 * (lo + hi), 0.0)


def random_feasible(rng, d, rank=None):
    """A random symmetric PSD matrix with unit trace."""
    L = rng.normal(size=(d, rank or rng.integers(1, d + 1)))
    F = L @ L.T
    return F / np.trace(F)


def minimized_distance(A, rng, starts=4):
    """Smallest ‖A − LLᵀ/tr(LLᵀ)‖_F found by BFGS over L from random starts."""
    d = A.shape[0]

    def objective(flat):
        L = flat.reshape(d, d)
        F = L @ L.T
        return np.sum((A - F / np.trace(F)) ** 2)

    best = np.inf
    for _ in range(starts):
        result = scipy.optimize.minimize(objective, rng.normal(size=d * d), method="BFGS", options={"gtol": 1e-10})
        best = min(best, result.fun)
    return np.sqrt(best)


def loop_costs(X, Y, B):
    out = np.empty((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            z = X[i] - Y[j]
            out[i, j] = z @ B @ z
    return out


def loop_scatter(X, Y, I):
    out = np.zeros((X.shape[1], X.shape[1]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            z = X[i] - Y[j]
            out += I[i, j] * np.outer(z, z)
    return out


# -- project_simplex ------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(vectors, totals)
def test_simplex_matches_bisection(v, total):
    x = project_simplex(v, total)
    scale = max(1.0, np.abs(v).max(), total)
    np.testing.assert_allclose(x, reference_simplex(v, total), atol=1e-9 * scale)


@settings(max_examples=200, deadline=None)
@given(vectors, totals)
def test_simplex_kkt_conditions(v, total):
    x = project_simplex(v, total)
    scale = max(1.0, np.abs(v).max(), total)
    assert np.all(x >= 0)
    assert abs(x.sum() - total) <= 1e-9 * scale * v.size
    # x = max(v − θ, 0): one θ = vᵢ − xᵢ on the support, and vᵢ ≤ θ off it
    support = x > 0
    theta = (v - x)[support]
    assert support.any()
    assert np.ptp(theta) <= 1e-9 * scale
    assert np.all(v[~support] <= theta.mean() + 1e-9 * scale)
    # variational inequality ⟨v − x, y − x⟩ ≤ 0 for every y of the simplex (checked at its vertices)
    residual = v - x
    assert total * residual.max() - residual @ x <= 1e-8 * scale * scale * v.size


@settings(max_examples=100, deadline=None)
@given(vectors, totals)
def test_simplex_idempotent(v, total):
    x = project_simplex(v, total)
    np.testing.assert_allclose(project_simplex(x, total), x, atol=1e-9 * max(1.0, total))


@settings(max_examples=100, deadline=None)
@given(vectors, totals, st.floats(-100, 100), st.floats(0.01, 100))
def test_simplex_shift_and_scale(v, total, shift, factor):
    x = project_simplex(v, total)
    scale = max(1.0, np.abs(v).max(), total, abs(shift))
    np.testing.assert_allclose(project_simplex(v + shift, total), x, atol=1e-8 * scale)
    np.testing.assert_allclose(project_simplex(factor * v, factor * total), factor * x, atol=1e-8 * scale * factor)


@pytest.mark.parametrize("seed", range(5))
def test_simplex_matches_constrained_minimizer(seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=6) * 2
    result = scipy.optimize.minimize(
        lambda x: np.sum((x - v) ** 2),
        np.full(6, 1 / 6),
        jac=lambda x: 2 * (x - v),
        method="SLSQP",
        bounds=[(0, None)] * 6,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1, "jac": lambda x: np.ones_like(x)}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    np.testing.assert_allclose(project_simplex(v), result.x, atol=1e-6)


def test_simplex_point_already_inside_is_unchanged():
    v = np.array([0.2, 0.0, 0.5, 0.3])
    np.testing.assert_allclose(project_simplex(v), v, atol=1e-15)


def test_simplex_ties_and_single_entry():
    np.testing.assert_allclose(project_simplex([5.0, 5.0, 5.0, 5.0]), np.full(4, 0.25))
    np.testing.assert_allclose(project_simplex([-7.0], total=2.0), [2.0])


@pytest.mark.parametrize(
    "v, total, error",
    [
        ([[1.0, 2.0]], 1.0, InputError),
        ([], 1.0, InputError),
        ([1.0, np.nan], 1.0, InputError),
        ([1.0, np.inf], 1.0, InputError),
        ([1.0, 2.0], 0.0, ParameterError),
        ([1.0, 2.0], -1.0, ParameterError),
        ([1.0, 2.0], np.nan, ParameterError),
    ],
)
def test_simplex_bad_input(v, total, error):
    with pytest.raises(error):
        project_simplex(v, total)


# -- project_unit_trace_psd -----------------------------------------------------------------------
square = st.integers(1, 6).flatmap(lambda d: arrays(np.float64, (d, d), elements=st.floats(-10, 10)))


@settings(max_examples=150, deadline=None)
@given(square)
def test_psd_projection_is_feasible_and_idempotent(A):
    P = project_unit_trace_psd(A)
    np.testing.assert_array_equal(P, P.T)
    assert abs(np.trace(P) - 1) <= 1e-10
    assert np.linalg.eigvalsh(P).min() >= -1e-10
    np.testing.assert_allclose(project_unit_trace_psd(P), P, atol=1e-10)


@settings(max_examples=100, deadline=None)
@given(square, st.integers(0, 2**32 - 1))
def test_psd_projection_variational_inequality(A, seed):
    """P is the projection iff ⟨sym(A) − P, F − P⟩ ≤ 0 for every feasible F."""
    rng = np.random.default_rng(seed)
    P = project_unit_trace_psd(A)
    residual = 0.5 * (A + A.T) - P
    scale = max(1.0, np.abs(A).max())
    for _ in range(20):
        F = random_feasible(rng, A.shape[0])
        assert np.sum(residual * (F - P)) <= 1e-9 * scale


@pytest.mark.parametrize("seed", range(6))
def test_psd_projection_is_the_closest_point(seed):
    rng = np.random.default_rng(seed)
    d = 2 + seed % 3
    A = rng.normal(size=(d, d)) * 2  # not symmetric: the projection must still be nearest to A itself
    distance = np.linalg.norm(A - project_unit_trace_psd(A))
    feasible = [random_feasible(rng, d) for _ in range(300)]
    feasible += [np.outer(q, q) for q in np.linalg.qr(rng.normal(size=(d, d)))[0].T]
    assert distance <= min(np.linalg.norm(A - F) for F in feasible) + 1e-12
    assert distance <= minimized_distance(A, rng) + 1e-7


def test_psd_projection_known_cases():
    np.testing.assert_allclose(project_unit_trace_psd(np.diag([3.0, 1.0, -1.0])), np.diag([1.0, 0, 0]), atol=1e-15)
    np.testing.assert_allclose(project_unit_trace_psd(np.diag([0.7, 0.7])), np.eye(2) / 2, atol=1e-15)
    np.testing.assert_allclose(project_unit_trace_psd(-np.eye(3)), np.eye(3) / 3, atol=1e-15)
    beta = np.array([0.6, 0.0, -0.8])
    np.testing.assert_allclose(project_unit_trace_psd(np.outer(beta, beta)), np.outer(beta, beta), atol=1e-15)
    antisymmetric = np.array([[0.0, 2.0], [-2.0, 0.0]])
    np.testing.assert_allclose(project_unit_trace_psd(np.diag([2.0, 0.0]) + antisymmetric), np.diag([1.0, 0.0]))


@settings(max_examples=100, deadline=None)
@given(square)
def test_psd_projection_decomposition(A):
    result = project_unit_trace_psd(A, return_decomposition=True)
    assert isinstance(result, UnitTraceProjection)
    w, Q = result.eigenvalues, result.eigenvectors
    np.testing.assert_allclose(result.matrix, project_unit_trace_psd(A), atol=1e-14)
    assert np.all(np.diff(w) <= 0) and np.all(w >= 0)
    assert abs(w.sum() - 1) <= 1e-10
    np.testing.assert_allclose(Q.T @ Q, np.eye(A.shape[0]), atol=1e-10)
    np.testing.assert_allclose((Q * w) @ Q.T, result.matrix, atol=1e-10)
    q = result.top_eigenvector
    np.testing.assert_allclose(result.matrix @ q, w[0] * q, atol=1e-10)
    assert result.top_share == pytest.approx(w[0], abs=1e-10)
    assert np.linalg.eigvalsh(result.matrix).max() == pytest.approx(w[0], abs=1e-10)


def test_psd_projection_of_rank_one_is_tight():
    beta = np.array([1.0, 2.0, 2.0]) / 3
    result = project_unit_trace_psd(5 * np.outer(beta, beta), return_decomposition=True)
    assert result.top_share == pytest.approx(1.0)
    np.testing.assert_allclose(np.abs(result.top_eigenvector), beta, atol=1e-12)


@pytest.mark.parametrize(
    "B, error",
    [
        (np.ones((2, 3)), ShapeMismatchError),
        (np.ones(3), InputError),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), InputError),
        (sp.eye(3, format="csr"), InputError),
    ],
)
def test_psd_projection_bad_input(B, error):
    with pytest.raises(error):
        project_unit_trace_psd(B)


# -- soft_threshold -------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 5)), elements=finite), st.floats(0, 100))
def test_soft_threshold_is_the_l1_prox(B, t):
    out = soft_threshold(B, t)
    for index, b in np.ndenumerate(B):
        # prox of t|·| at b: the minimizer of ½(x − b)² + t|x|, found by a bounded scalar search
        found = scipy.optimize.minimize_scalar(
            lambda x: 0.5 * (x - b) ** 2 + t * abs(x), bounds=(-abs(b) - 1, abs(b) + 1), method="bounded",
            options={"xatol": 1e-10},
        ).x
        assert out[index] == pytest.approx(found, abs=1e-6 * max(1.0, abs(b)))
    assert np.all(np.abs(out) <= np.abs(B))
    assert np.all(out[np.abs(B) <= t] == 0)
    assert np.all(np.sign(out) * np.sign(B) >= 0)


def test_soft_threshold_zero_is_identity_and_keeps_symmetry():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(4, 4))
    S = S + S.T
    np.testing.assert_array_equal(soft_threshold(S, 0.0), S)
    out = soft_threshold(S, 0.5)
    np.testing.assert_array_equal(out, out.T)


@pytest.mark.parametrize("t", [-0.1, np.nan, np.inf])
def test_soft_threshold_bad_threshold(t):
    with pytest.raises(ParameterError):
        soft_threshold(np.eye(2), t)


# -- pair_costs and weighted_scatter --------------------------------------------------------------
def small_problem(seed, n=5, m=4, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d)) + 0.5
    B = rng.normal(size=(d, d))  # not symmetric, not semidefinite
    I = rng.random((n, m)) * (rng.random((n, m)) < 0.5)
    return X, Y, B, I


@pytest.mark.parametrize("seed", range(4))
def test_pair_costs_match_double_loop(seed):
    X, Y, B, _ = small_problem(seed, n=3 + seed, m=2 + 2 * seed)
    expected = loop_costs(X, Y, B)
    np.testing.assert_allclose(pair_costs(X, Y, B), expected, atol=1e-12)
    for Xs, Ys in [(sp.csr_matrix(X), Y), (X, sp.csc_matrix(Y)), (sp.csr_array(X), sp.coo_array(Y))]:
        np.testing.assert_allclose(pair_costs(Xs, Ys, B), expected, atol=1e-12)
    frames = pd.DataFrame(X), pd.DataFrame(Y)
    np.testing.assert_allclose(pair_costs(*frames, B), expected, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_pair_costs_property(n, m, d, seed):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    L = rng.normal(size=(d, d))
    costs = pair_costs(X, Y, L @ L.T)
    np.testing.assert_allclose(costs, loop_costs(X, Y, L @ L.T), atol=1e-10)
    assert costs.shape == (n, m) and np.all(costs >= -1e-10)  # semidefinite B: non-negative costs


@pytest.mark.parametrize("seed", range(4))
def test_weighted_scatter_matches_double_loop(seed):
    X, Y, _, I = small_problem(seed, n=3 + seed, m=2 + 2 * seed)
    expected = loop_scatter(X, Y, I)
    np.testing.assert_allclose(weighted_scatter(X, Y, I), expected, atol=1e-12)
    for weights in [sp.csr_matrix(I), sp.coo_matrix(I), sp.csc_array(I)]:
        np.testing.assert_allclose(weighted_scatter(X, Y, weights), expected, atol=1e-12)
    np.testing.assert_allclose(weighted_scatter(sp.csr_matrix(X), sp.csc_array(Y), sp.csr_matrix(I)), expected, atol=1e-12)
    np.testing.assert_allclose(weighted_scatter(pd.DataFrame(X), pd.DataFrame(Y), I), expected, atol=1e-12)
    result = weighted_scatter(X, Y, I)
    np.testing.assert_array_equal(result, result.T)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_scatter_is_the_gradient_of_the_weighted_costs(n, m, d, seed):
    """⟨∑ Iᵢⱼ zᵢⱼzᵢⱼᵀ, B⟩_F = ∑ Iᵢⱼ zᵢⱼᵀBzᵢⱼ for every B."""
    rng = np.random.default_rng(seed)
    X, Y, B = rng.normal(size=(n, d)), rng.normal(size=(m, d)), rng.normal(size=(d, d))
    I = rng.normal(size=(n, m))
    scatter = weighted_scatter(X, Y, I)
    np.testing.assert_allclose(scatter, loop_scatter(X, Y, I), atol=1e-10)
    assert np.sum(scatter * B) == pytest.approx(np.sum(I * pair_costs(X, Y, B)), abs=1e-9)


def test_scatter_of_indicator_is_the_relax_subgradient():
    """The slides' step 7, ∂B = ∑ over active pairs of zᵢⱼzᵢⱼᵀ/m, from the indicator matrix."""
    X, Y, B, _ = small_problem(7, n=6, m=4)
    u, v = np.full(6, 1.0), np.full(4, 0.5)
    active = pair_costs(X, Y, B) - u[:, None] - v[None, :] < 0
    m = Y.shape[0]
    expected = np.zeros((3, 3))
    for i in range(6):
        for j in range(m):
            z = X[i] - Y[j]
            if z @ B @ z - u[i] - v[j] < 0:
                expected += np.outer(z, z) / m
    np.testing.assert_allclose(weighted_scatter(X, Y, sp.csr_matrix(active / m)), expected, atol=1e-12)


def test_shape_errors():
    X, Y, B, I = small_problem(0)
    with pytest.raises(ShapeMismatchError, match="columns"):
        pair_costs(X, Y[:, :2], B)
    with pytest.raises(ShapeMismatchError, match="3 × 3"):
        pair_costs(X, Y, B[:2])
    with pytest.raises(ShapeMismatchError, match="5 × 4"):
        weighted_scatter(X, Y, I.T)
    with pytest.raises(ShapeMismatchError, match="columns"):
        weighted_scatter(X[:, :2], Y, I)
    with pytest.raises(InputError, match="2-dimensional"):
        pair_costs(X[0], Y, B)
    with pytest.raises(InputError, match="2-dimensional"):
        weighted_scatter(X, Y[0], I)


@pytest.mark.parametrize("d, spread", [(40, 1e-3), (120, 1e-4), (120, 1.0), (300, 1e-5)])
def test_the_partial_eigendecomposition_matches_the_full_one(d, spread):
    # near I/d most eigenvalues survive the projection (r doubles up to d); far from it few do
    rng = np.random.default_rng(d)
    noise = rng.normal(size=(d, d)) * spread
    B = np.eye(d) / d + (noise + noise.T) / 2
    full = project_unit_trace_psd(B, return_decomposition=True).matrix
    np.testing.assert_allclose(project_unit_trace_psd(B), full, atol=1e-12)
