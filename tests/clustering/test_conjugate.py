"""Preconditioned conjugate gradients against direct solves: plain, preconditioned, on the range of a
projection (a Laplacian's and IU-RED's deflated system), warm-started, capped and stalled."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from paucity.clustering.conjugate import conjugate_gradients

from .reference import random_similarities


def spd(n, seed, condition=100.0):
    """A random symmetric positive definite matrix with eigenvalues spread over [1, condition]."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (Q * np.geomspace(1.0, condition, n)) @ Q.T


@pytest.mark.parametrize("seed,n", [(0, 5), (1, 12), (2, 30)])
def test_solves_an_spd_system_as_numpy_does(seed, n):
    A = spd(n, seed)
    b = np.random.default_rng(seed + 10).standard_normal(n)
    found = conjugate_gradients(A, b, tolerance=1e-12, max_iter=10 * n)
    assert found.converged and not found.stalled
    assert 0 < found.iterations <= 10 * n
    np.testing.assert_allclose(found.solution, np.linalg.solve(A, b), rtol=1e-9, atol=1e-12)
    assert found.residual == pytest.approx(np.linalg.norm(b - A @ found.solution))
    assert found.residual <= 1e-10 * np.linalg.norm(b)


def test_a_callable_and_a_sparse_matrix_are_the_same_operator():
    A = spd(10, 3)
    b = np.arange(10.0)
    dense = conjugate_gradients(A, b, tolerance=1e-12)
    sparse = conjugate_gradients(sp.csr_matrix(A), b, tolerance=1e-12)
    function = conjugate_gradients(lambda x: A @ x, b, tolerance=1e-12)
    np.testing.assert_allclose(sparse.solution, dense.solution, rtol=1e-12)
    np.testing.assert_allclose(function.solution, dense.solution, rtol=1e-12)


def test_the_preconditioned_solve_agrees_and_needs_fewer_iterations():
    """A badly scaled SPD system: Jacobi preconditioning undoes the scaling."""
    n = 40
    scaling = np.geomspace(1.0, 1e4, n)
    A = scaling[:, None] * spd(n, 4, condition=5.0) * scaling[None, :]
    b = np.random.default_rng(5).standard_normal(n)
    inverse = 1.0 / np.diag(A)
    plain = conjugate_gradients(A, b, tolerance=1e-10, max_iter=20 * n)
    jacobi = conjugate_gradients(A, b, precondition=lambda r: inverse * r, tolerance=1e-10, max_iter=20 * n)
    assert jacobi.converged
    np.testing.assert_allclose(jacobi.solution, np.linalg.solve(A, b), rtol=1e-6)
    assert jacobi.iterations < plain.iterations


def test_a_laplacian_singular_on_the_constants_is_solved_on_their_complement():
    W = random_similarities(6, 25, density=0.4)
    L = np.diag(W.sum(1) - np.diag(W)) - (W - np.diag(np.diag(W)))
    b = np.random.default_rng(7).standard_normal(25)
    b -= b.mean()
    found = conjugate_gradients(L, b, project=lambda x: x - x.mean(), precondition=lambda r: r / np.diag(L),
                                tolerance=1e-12, max_iter=500)
    assert found.converged
    assert abs(found.solution.mean()) < 1e-12
    np.testing.assert_allclose(found.solution, np.linalg.pinv(L) @ b, rtol=1e-8, atol=1e-10)


def test_iu_red_s_deflated_system_gives_the_sum_over_eigenvectors():
    """(L − λ₂I)g = −Pe_k on the complement of 1 and v₂ (indefinite on the whole space): g = Σ_{p>2} v_p v_p(k)/(λ₂ − λ_p)."""
    W = random_similarities(8, 30, density=0.5)
    L = np.diag(W.sum(1) - np.diag(W)) - (W - np.diag(np.diag(W)))
    values, vectors = np.linalg.eigh(L)
    v2, k = vectors[:, 1], 3
    Y = np.column_stack([np.full(30, 30**-0.5), v2])

    def project(x):
        return x - Y @ (Y.T @ x)

    e = np.zeros(30)
    e[k] = -1.0
    found = conjugate_gradients(lambda x: L @ x - values[1] * x, project(e), project=project, tolerance=1e-12,
                                max_iter=500)
    expected = vectors[:, 2:] @ (vectors[k, 2:] / (values[1] - values[2:]))
    assert found.converged and not found.stalled
    np.testing.assert_allclose(found.solution, expected, rtol=1e-8, atol=1e-10 * np.abs(expected).max())


def test_a_capped_iteration_reports_not_converged():
    A = spd(30, 9, condition=1e4)
    b = np.ones(30)
    found = conjugate_gradients(A, b, tolerance=1e-12, max_iter=3)
    assert not found.converged and not found.stalled
    assert found.iterations == 3
    assert found.residual > 1e-12 * np.linalg.norm(b)
    assert found.residual == pytest.approx(np.linalg.norm(b - A @ found.solution))


def test_an_indefinite_system_stalls():
    A = np.diag([1.0, -1.0])
    found = conjugate_gradients(A, np.array([1.0, 1.0]), max_iter=10)
    assert found.stalled and not found.converged
    assert found.iterations == 1
    assert np.isnan(found.residual)


def test_a_warm_start_at_the_solution_needs_no_iteration_and_is_not_changed():
    A = spd(8, 11)
    b = np.arange(1.0, 9.0)
    solution = np.linalg.solve(A, b)
    start = solution.copy()
    found = conjugate_gradients(A, b, start=start, tolerance=1e-8)
    assert found.converged and found.iterations == 0
    np.testing.assert_array_equal(start, solution)
    near = conjugate_gradients(A, b, start=solution + 1e-3, tolerance=1e-12)
    cold = conjugate_gradients(A, b, tolerance=1e-12)
    assert near.converged and near.iterations <= cold.iterations
    np.testing.assert_allclose(near.solution, solution, rtol=1e-9)


def test_the_operator_scale_judges_the_residual_by_the_solution_s_size():
    """‖r‖ ≤ tolerance · (‖b‖ + scale · ‖x‖): a large solution of a small right-hand side stops sooner."""
    A = spd(30, 12, condition=1e6)
    b = np.random.default_rng(13).standard_normal(30) * 1e-3
    tight = conjugate_gradients(A, b, tolerance=1e-10, max_iter=1000)
    scaled = conjugate_gradients(A, b, tolerance=1e-10, max_iter=1000, operator_scale=1e6)
    assert tight.converged and scaled.converged
    assert scaled.iterations < tight.iterations
    x = scaled.solution
    assert scaled.residual <= 2e-10 * (np.linalg.norm(b) + 1e6 * np.linalg.norm(x))
