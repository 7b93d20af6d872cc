"""The multiclass Laplace reference (GPML Algorithms 3.3-3.4) against brute-force dense formulas.

Everything here is computed a second way, with explicit inverses,
eigendecompositions and a generic optimizer, so that a mistake in the
reference's Cholesky bookkeeping cannot hide.
"""

import itertools

import numpy as np
import pytest
from scipy.linalg import block_diag
from scipy.optimize import minimize
from scipy.special import logsumexp, roots_hermitenorm, softmax
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from paucity.gp.kernels import VonMises

from .reference import as_blocks, laplace_mode, laplace_predict, one_hot

N_CLASSES = 3


def torus_data(n, n_classes, seed):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-np.pi, np.pi, size=(n_classes, 2))
    labels = rng.integers(0, n_classes, size=n)
    X = centres[labels] + 0.6 * rng.standard_normal((n, 2))
    X = (X + np.pi) % (2 * np.pi) - np.pi
    return X, labels


@pytest.fixture(scope="module")
def problem():
    X, labels = torus_data(24, N_CLASSES, seed=3)
    kernel = ConstantKernel(3.0) * VonMises(concentration=1.5)
    K = kernel(X)
    Y = one_hot(labels, N_CLASSES)
    X_test = np.array([[0.0, 0.0], [2.0, -1.0], [-2.5, 2.5], [1.0, 3.0]])
    return {
        "X": X,
        "Y": Y,
        "K": K,
        "K_star": kernel(X, X_test),
        "k_star_star": kernel.diag(X_test),
        "mode": laplace_mode(K, Y),
    }


def brute_psi(f, K_full, y, n_classes):
    """Ψ(f) = −½ fᵀK⁻¹f + yᵀf − Σ_i log Σ_c exp f_i^c (the log posterior less its constants), explicit inverse."""
    K_inverse = np.linalg.inv(K_full)
    return -0.5 * f @ K_inverse @ f + y @ f - logsumexp(f.reshape(n_classes, -1), axis=0).sum()


def brute_w(pi, n_classes):
    """W = diag(π) − ΠΠᵀ built from its definition."""
    n = len(pi) // n_classes
    Pi = np.vstack([np.diag(pi[c * n:(c + 1) * n]) for c in range(n_classes)])
    return np.diag(pi) - Pi @ Pi.T


def test_mode_is_a_fixed_point(problem):
    mode, K, Y = problem["mode"], problem["K"], problem["Y"]
    K_full = block_diag(*as_blocks(K, N_CLASSES))
    y = Y.T.ravel()
    pi = softmax(mode.f.reshape(N_CLASSES, -1), axis=0).ravel()
    # the gradient of Ψ vanishes at the mode: f = K (y − π), and a = K⁻¹ f = y − π
    np.testing.assert_allclose(mode.f, K_full @ (y - pi), atol=1e-9)
    np.testing.assert_allclose(mode.a, y - pi, atol=1e-9)
    np.testing.assert_allclose(mode.pi, pi, atol=1e-12)
    # the latents of every point sum to zero: every class's residual does
    np.testing.assert_allclose((y - pi).reshape(N_CLASSES, -1).sum(axis=0), 0.0, atol=1e-12)


def test_mode_matches_a_generic_optimizer(problem):
    mode, K, Y = problem["mode"], problem["K"], problem["Y"]
    K_full = block_diag(*as_blocks(K, N_CLASSES))
    K_inverse = np.linalg.inv(K_full)
    y = Y.T.ravel()

    def negative(f):
        value = -brute_psi(f, K_full, y, N_CLASSES)
        pi = softmax(f.reshape(N_CLASSES, -1), axis=0).ravel()
        return value, K_inverse @ f - (y - pi)

    result = minimize(negative, np.zeros_like(y), jac=True, method="L-BFGS-B",
                      options={"gtol": 1e-11, "ftol": 1e-15, "maxiter": 10_000})
    np.testing.assert_allclose(mode.f, result.x, atol=1e-5)
    assert brute_psi(mode.f, K_full, y, N_CLASSES) >= -result.fun - 1e-10


def test_log_marginal_likelihood_matches_dense_formula(problem):
    mode, K, Y = problem["mode"], problem["K"], problem["Y"]
    K_full = block_diag(*as_blocks(K, N_CLASSES))
    y = Y.T.ravel()
    f = mode.f
    W = brute_w(mode.pi, N_CLASSES)
    values, vectors = np.linalg.eigh(W)
    W_half = vectors @ np.diag(np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
    B = np.eye(len(f)) + W_half @ K_full @ W_half
    log_det = np.log(np.linalg.eigvalsh(B)).sum()
    expected = brute_psi(f, K_full, y, N_CLASSES) - 0.5 * log_det
    assert mode.log_marginal_likelihood == pytest.approx(expected, abs=1e-9)
    # eq. 3.44 is also J(f̂) + (nC/2) log 2π − ½ log|K⁻¹ + W| with J the full log posterior
    K_inverse = np.linalg.inv(K_full)
    J = (brute_psi(f, K_full, y, N_CLASSES) - 0.5 * np.linalg.slogdet(K_full)[1]
         - 0.5 * len(f) * np.log(2 * np.pi))
    laplace = J + 0.5 * len(f) * np.log(2 * np.pi) - 0.5 * np.linalg.slogdet(K_inverse + W)[1]
    assert mode.log_marginal_likelihood == pytest.approx(laplace, abs=1e-8)


def test_log_marginal_likelihood_is_stationary_in_the_mode_and_moves_with_the_kernel(problem):
    # Scaling K changes log q; a different kernel gives a different, finite value.
    Y = problem["Y"]
    low = laplace_mode(0.2 * problem["K"], Y).log_marginal_likelihood
    high = laplace_mode(problem["K"], Y).log_marginal_likelihood
    assert np.isfinite(low) and np.isfinite(high) and low != pytest.approx(high)


def test_predictive_mean_and_covariance_match_dense_formulas(problem):
    mode, K, Y = problem["mode"], problem["K"], problem["Y"]
    prediction = laplace_predict(K, Y, mode, problem["K_star"], problem["k_star_star"], n_samples=10)
    C = N_CLASSES
    K_full = block_diag(*as_blocks(K, C))
    W = brute_w(mode.pi, C)
    n, m = problem["K_star"].shape
    # Q* (nC × C) per test point; mean Q*ᵀ K⁻¹ f̂, covariance diag(k**) − Q*ᵀ (K + W⁻¹)⁻¹ Q* with
    # (K + W⁻¹)⁻¹ written W (I + K W)⁻¹, since W itself is singular (W R = 0).
    middle = W @ np.linalg.inv(np.eye(n * C) + K_full @ W)
    for j in range(m):
        Q = np.zeros((n * C, C))
        for c in range(C):
            Q[c * n:(c + 1) * n, c] = problem["K_star"][:, j]
        np.testing.assert_allclose(prediction.mean[j], Q.T @ np.linalg.solve(K_full, mode.f), atol=1e-8)
        expected = problem["k_star_star"][j] * np.eye(C) - Q.T @ middle @ Q
        np.testing.assert_allclose(prediction.covariance[j], expected, atol=1e-9)
        assert np.linalg.eigvalsh(prediction.covariance[j]).min() > -1e-12


def test_monte_carlo_probabilities_match_quadrature(problem):
    mode, K, Y = problem["mode"], problem["K"], problem["Y"]
    prediction = laplace_predict(K, Y, mode, problem["K_star"], problem["k_star_star"], n_samples=200_000, seed=1)
    # product Gauss-Hermite rule in C = 3 dimensions, 30 nodes per axis
    nodes, weights = roots_hermitenorm(30)
    weights = weights / weights.sum()
    grid = np.array(list(itertools.product(nodes, repeat=N_CLASSES)))
    grid_weights = np.prod(np.array(list(itertools.product(weights, repeat=N_CLASSES))), axis=1)
    for j in range(len(prediction.mean)):
        values, vectors = np.linalg.eigh(prediction.covariance[j])
        root = vectors * np.sqrt(np.clip(values, 0.0, None))
        expected = grid_weights @ softmax(prediction.mean[j] + grid @ root.T, axis=1)
        # Monte Carlo standard error is below 0.5/sqrt(200,000) ≈ 0.0011
        np.testing.assert_allclose(prediction.proba[j], expected, atol=5e-3)
        assert prediction.proba[j].sum() == pytest.approx(1.0)


def test_same_seed_same_probabilities(problem):
    args = (problem["K"], problem["Y"], problem["mode"], problem["K_star"], problem["k_star_star"])
    first = laplace_predict(*args, n_samples=1000, seed=5).proba
    np.testing.assert_array_equal(first, laplace_predict(*args, n_samples=1000, seed=5).proba)


def test_different_blocks_per_class(problem):
    X, Y = problem["X"], problem["Y"]
    blocks = np.stack([VonMises(c + 1.0)(X) * (c + 1.0) for c in range(N_CLASSES)])
    mode = laplace_mode(blocks, Y)
    K_full = block_diag(*blocks)
    np.testing.assert_allclose(mode.f, K_full @ (Y.T.ravel() - mode.pi), atol=1e-9)


def test_two_classes_agree_with_scikit_learn_binary_laplace():
    # Two softmax latents f1, f2 with kernel K each give p(class 1) = σ(f1 − f2), and
    # f1 − f2 is one latent with kernel 2K: scikit-learn's logistic Laplace GPC with 2K.
    X, labels = torus_data(40, 2, seed=7)
    kernel = ConstantKernel(2.0) * RBF(1.0)
    Y = one_hot(labels, 2)
    K = kernel(X)
    mode = laplace_mode(K, Y)
    grid = np.array(list(itertools.product(np.linspace(-3, 3, 7), repeat=2)))
    prediction = laplace_predict(K, Y, mode, kernel(X, grid), kernel.diag(grid), n_samples=100_000)
    sklearn_model = GaussianProcessClassifier(
        ConstantKernel(4.0, "fixed") * RBF(1.0, "fixed"), optimizer=None
    ).fit(X, labels)
    np.testing.assert_allclose(prediction.proba, sklearn_model.predict_proba(grid), atol=0.02)
    # the binary log marginal likelihood is the same approximation of the same model
    assert mode.log_marginal_likelihood == pytest.approx(sklearn_model.log_marginal_likelihood(), abs=1e-6)
