"""The Laplace approximation of heavy-tailed process classification against finite differences and dense formulas."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from paucity.gp.laplace import laplace_fit, log_posterior, predictive_moments, predictive_proba, softmax
from paucity.gp.marginals import MARGINALS, warp

N, C = 9, 3


def problem(seed=0, n=N):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.arange(n) % C
    Y = np.zeros((C, n))
    Y[y, np.arange(n)] = 1.0
    return X, Y


def kernel_matrix(kernel, X):
    K, dK = kernel(X, eval_gradient=True)
    return K + 1e-10 * np.eye(len(X)), dK


KERNEL = ConstantKernel(2.0) * RBF(0.9)


def latent_point(seed=1):
    """A z away from 0, where the Laplace map's second derivative has its kink."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 1.0, size=(C, N))
    return z + 0.3 * np.sign(z)


@pytest.mark.parametrize("marginal", MARGINALS)
def test_gradient_and_hessian_of_J_match_finite_differences(marginal):
    X, Y = problem()
    K, _ = kernel_matrix(KERNEL, X)
    z = latent_point()
    value, grad, H = log_posterior(z, K, Y, marginal=marginal, b=1.3, sigma=1.0)
    h = 1e-6
    fd_grad = np.empty(C * N)
    fd_hess = np.empty((C * N, C * N))
    for j in range(C * N):
        step = np.zeros(C * N)
        step[j] = h
        up = log_posterior(z + step.reshape(C, N), K, Y, marginal=marginal, b=1.3, sigma=1.0)
        down = log_posterior(z - step.reshape(C, N), K, Y, marginal=marginal, b=1.3, sigma=1.0)
        fd_grad[j] = (up[0] - down[0]) / (2 * h)
        fd_hess[:, j] = -(up[1] - down[1]).ravel() / (2 * h)
    np.testing.assert_allclose(grad.ravel(), fd_grad, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(H, fd_hess, rtol=1e-4, atol=1e-4)


def test_J_by_hand_for_one_point():
    # n = 1, C = 2, K = [[2]]: J = y'f − log Σ exp f − z'z/4 − log 2 − log 2π (two classes, ½ log|K| = log 2)
    K = np.array([[2.0]])
    Y = np.array([[1.0], [0.0]])
    z = np.array([[0.7], [-0.4]])
    f = warp(z, "hypsecant", b=1.5).f
    expected = f[0, 0] - np.log(np.exp(f).sum()) - (0.49 + 0.16) / 4 - 0.5 * 2 * np.log(2.0) - np.log(2 * np.pi)
    assert log_posterior(z, K, Y, marginal="hypsecant", b=1.5, sigma=1.0)[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("marginal", MARGINALS)
def test_mode_satisfies_eq_4_12(marginal):
    X, Y = problem()
    K, _ = kernel_matrix(KERNEL, X)
    fit = laplace_fit(K, Y, marginal=marginal, b=1.3, sigma=1.0, tol=1e-9)
    assert fit.mode.converged
    w = warp(fit.mode.z, marginal, b=1.3)
    expected = (w.df * (Y - softmax(w.f))) @ K  # ẑ_c = K d_c ⊙ (y_c − π_c)
    np.testing.assert_allclose(fit.mode.z, expected, atol=1e-8)


@pytest.mark.parametrize("marginal", MARGINALS)
def test_log_marginal_likelihood_is_eq_4_11_with_dense_matrices(marginal):
    X, Y = problem()
    K, _ = kernel_matrix(KERNEL, X)
    fit = laplace_fit(K, Y, marginal=marginal, b=1.3, sigma=1.0, tol=1e-9)
    J, _, H = log_posterior(fit.mode.z, K, Y, marginal=marginal, b=1.3, sigma=1.0)
    expected = J - 0.5 * np.linalg.slogdet(H)[1] + 0.5 * C * N * np.log(2 * np.pi)
    assert not fit.clipped
    assert fit.log_marginal_likelihood == pytest.approx(expected, abs=1e-8)


def test_gaussian_marginal_with_unit_scale_is_the_ordinary_gp():
    X, Y = problem()
    K, _ = kernel_matrix(KERNEL, X)
    fit = laplace_fit(K, Y, marginal="gaussian", b=1.0, sigma=1.0, tol=1e-9)
    # with f = z, the mode solves z = K (y − softmax(z))
    np.testing.assert_allclose(fit.mode.z, (Y - softmax(fit.mode.z)) @ K, atol=1e-9)


def lml(theta, b, marginal, X, Y):
    K, dK = kernel_matrix(KERNEL.clone_with_theta(theta), X)
    return laplace_fit(K, Y, marginal=marginal, b=b, sigma=1.0, dK0=dK, gradient=True, tol=1e-9, max_iter=200)


@pytest.mark.parametrize("marginal", MARGINALS)
def test_gradient_of_log_marginal_likelihood_matches_finite_differences(marginal):
    X, Y = problem(seed=2)
    theta, b = KERNEL.theta, 1.3
    fit = lml(theta, b, marginal, X, Y)
    h = 1e-5
    for j in range(len(theta)):
        step = np.zeros(len(theta))
        step[j] = h
        fd = (lml(theta + step, b, marginal, X, Y).log_marginal_likelihood
              - lml(theta - step, b, marginal, X, Y).log_marginal_likelihood) / (2 * h)
        assert fit.gradient_theta[j] == pytest.approx(fd, rel=1e-5, abs=1e-6)
    if marginal != "gaussian":  # b is redundant with the kernel's amplitude there and is not fitted
        fd = (lml(theta, b * np.exp(h), marginal, X, Y).log_marginal_likelihood
              - lml(theta, b * np.exp(-h), marginal, X, Y).log_marginal_likelihood) / (2 * h)
        assert fit.gradient_log_b == pytest.approx(fd, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("marginal", ["laplace", "gaussian"])
def test_predictive_moments_match_the_dense_formula(marginal):
    X, Y = problem()
    K, _ = kernel_matrix(KERNEL, X)
    fit = laplace_fit(K, Y, marginal=marginal, b=1.3, sigma=1.0, tol=1e-9)
    X_new = np.array([[0.1, -0.2], [2.0, 2.0]])
    K_star = KERNEL(X_new, X)
    mean, cov = predictive_moments(K_star, KERNEL.diag(X_new), fit.mode.a, fit.curvature)
    _, _, H = log_posterior(fit.mode.z, K, Y, marginal=marginal, b=1.3, sigma=1.0)
    K_inv = np.linalg.inv(np.kron(np.eye(C), K))
    middle = K_inv - K_inv @ np.linalg.inv(H) @ K_inv
    for m in range(len(X_new)):
        Q = np.kron(np.eye(C), K_star[m][:, None])  # (nC, C)
        expected = KERNEL.diag(X_new)[m] * np.eye(C) - Q.T @ middle @ Q
        np.testing.assert_allclose(cov[m], expected, atol=1e-7)
        np.testing.assert_allclose(mean[m], Q.T @ (K_inv @ fit.mode.z.ravel()), atol=1e-7)


def test_predictive_proba_of_a_point_mass_is_the_softmax_of_the_warped_mean():
    mean = np.array([[0.5, -0.5, 1.0]])
    cov = np.zeros((1, 3, 3))
    normals = np.random.default_rng(0).standard_normal((50, 3))
    p = predictive_proba(mean, cov, normals, marginal="laplace", b=2.0, sigma=1.0)
    np.testing.assert_allclose(p[0], softmax(warp(mean[0], "laplace", b=2.0).f), atol=1e-12)


def test_predictive_proba_of_a_point_does_not_depend_on_the_others():
    rng = np.random.default_rng(3)
    mean = rng.normal(size=(5, 3))
    roots = rng.normal(size=(5, 3, 3))
    cov = roots @ roots.transpose(0, 2, 1)
    normals = rng.standard_normal((200, 3))
    whole = predictive_proba(mean, cov, normals, marginal="student", b=1.0, sigma=1.0)
    part = predictive_proba(mean[[3, 1]], cov[[3, 1]], normals, marginal="student", b=1.0, sigma=1.0)
    np.testing.assert_allclose(part, whole[[3, 1]], atol=1e-12)
    np.testing.assert_allclose(whole.sum(axis=1), 1.0)


def dense_parts(K, lam_minus_u2, u):
    """H = K⁻¹ + M densely (class-major), for the checks of the structured factorization."""
    C, n = u.shape
    M = np.zeros((C * n, C * n))
    idx = np.arange(n)
    for c in range(C):
        for k in range(C):
            M[c * n + idx, k * n + idx] = lam_minus_u2[c] if c == k else -u[c] * u[k]
    K_big = np.kron(np.eye(C), K)
    H = np.kron(np.eye(C), np.linalg.inv(K)) + M
    return H, M, K_big


@pytest.mark.parametrize("route", ["positive", "general", "mixed", "lowrank"])
def test_structured_curvature_matches_the_dense_matrix(route):
    # Woodbury through the classes' coupling: log-determinant, solves, the point blocks of H⁻¹,
    # Σ_c R_cc and the predictive covariance, against dense (nC x nC) linear algebra
    from paucity.gp.laplace import Curvature, kernel_cholesky

    rng = np.random.default_rng(3)
    X, _ = problem(seed=4, n=12)
    n = len(X)
    K = KERNEL(X) + 1e-8 * np.eye(n)
    L, _ = kernel_cholesky(K)
    K = L @ L.T
    d = rng.uniform(0.5, 2.0, (C, n))
    pi = softmax(rng.normal(size=(C, n)))
    u = d * pi
    u[:, :3] *= 0.1  # small coupling where λ will be negative, so that H stays positive definite
    m = d**2 * pi * (1 - pi)  # the Gaussian marginal's DWD: λ = d²π > 0
    if route in ("general", "mixed"):  # λ < 0 at three points of class 0 (and of every class for "general")
        classes = [0] if route == "mixed" else list(range(C))
        for c in classes:
            m[c, :3] = -u[c, :3] ** 2 - 0.002
        expected = ["general" if c in classes else "positive" for c in range(C)]
    elif route == "lowrank":  # one λ < 0 (class 0), one λ = 0 with u ≠ 0 (class 1): within 12/8 entries
        m[0, 1] = -u[0, 1] ** 2 - 0.002
        m[1, 2] = -u[1, 2] ** 2
        expected = ["lowrank", "lowrank", "positive"]
    else:
        expected = ["positive"] * C
    curv = Curvature(K, L, m, u)
    assert curv.ok
    assert [b.route for b in curv.blocks] == expected
    H, M, K_big = dense_parts(K, m, u)
    G = np.linalg.inv(H)
    sign, logdet_H = np.linalg.slogdet(H)
    assert sign > 0
    assert curv.logdet == pytest.approx(logdet_H + C * np.linalg.slogdet(K)[1], rel=1e-9)
    x = rng.normal(size=(C, n))
    np.testing.assert_allclose(curv.solve(x).ravel(), G @ x.ravel(), rtol=1e-8, atol=1e-10)
    G4 = G.reshape(C, n, C, n)
    idx = np.arange(n)
    np.testing.assert_allclose(curv.point_blocks(), G4[:, idx, :, idx], rtol=1e-8, atol=1e-10)
    R = (M - M @ G @ M).reshape(C, n, C, n)
    np.testing.assert_allclose(curv.sum_of_R_blocks(), sum(R[c, :, c, :] for c in range(C)), rtol=1e-7, atol=1e-9)
    X_new = rng.normal(size=(5, 2))
    K_star = KERNEL(X_new, X)
    k_inv = np.linalg.inv(K_big)
    K_star_big = np.kron(np.eye(C), K_star)
    cov = (np.kron(np.eye(C), KERNEL(X_new)) - K_star_big @ (k_inv - k_inv @ G @ k_inv) @ K_star_big.T)
    cov = cov.reshape(C, 5, C, 5)[:, np.arange(5), :, np.arange(5)]
    np.testing.assert_allclose(curv.predictive(K_star, KERNEL.diag(X_new)), cov, rtol=1e-6, atol=1e-8)
