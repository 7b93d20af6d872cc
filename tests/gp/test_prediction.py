"""Predictions are deterministic functions of the fit (eq. 4.10).

Two classes with the Gaussian marginal take the exact decision, the sign of
the latent mean, as scikit-learn's binary Laplace GPC does; elsewhere the
probabilities average over a fixed quasi-Monte Carlo set, checked here against
a 10⁶-draw Monte Carlo estimate.
"""

import itertools

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit, ndtri
from scipy.stats import qmc
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from paucity._errors import InputError
from paucity.gp.classification import HeavyTailedProcessClassifier
from paucity.gp.laplace import binary_gaussian_proba, predictive_proba, quasi_normals

GRID = np.array(list(itertools.product(np.linspace(-3.5, 3.5, 20), repeat=2)))  # 400 points


def clusters(n_per_class, centres, spread, seed):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(c, spread, size=(n_per_class, 2)) for c in centres])
    return X, np.repeat(np.arange(len(centres)), n_per_class)


def torus_data(n, seed):
    """Two overlapping classes on the torus, wrapped to [−π, π)."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-np.pi, np.pi, size=(2, 2))
    labels = rng.integers(0, 2, size=n)
    X = centres[labels] + 0.6 * rng.standard_normal((n, 2))
    return (X + np.pi) % (2 * np.pi) - np.pi, labels


@pytest.mark.parametrize("marginal, n_classes", [("laplace", 3), ("student", 2), ("gaussian", 2), ("gaussian", 3)])
def test_two_calls_give_identical_arrays_without_a_random_state(marginal, n_classes):
    X, y = clusters(8, [(-2.0, 0.0), (2.0, 0.0), (0.0, 2.0)][:n_classes], 0.8, seed=3)
    kernel = ConstantKernel(2.0, "fixed") * RBF(1.0, "fixed")
    model = HeavyTailedProcessClassifier(marginal=marginal, kernel=kernel, random_state=None).fit(X, y)
    at = GRID[::10]
    np.testing.assert_array_equal(model.predict_proba(at), model.predict_proba(at))
    np.testing.assert_array_equal(model.predict(at), model.predict(at))
    # and whatever the random state of an otherwise identical fit
    other = HeavyTailedProcessClassifier(marginal=marginal, kernel=kernel, random_state=5).fit(X, y)
    np.testing.assert_array_equal(other.predict_proba(at), model.predict_proba(at))


def test_a_point_is_predicted_the_same_alone_and_among_others():
    X, y = clusters(8, [(-2.0, 0.0), (2.0, 0.0), (0.0, 2.0)], 0.8, seed=3)
    model = HeavyTailedProcessClassifier(marginal="hypsecant", optimize=False).fit(X, y)
    # the same up to the round-off of the kernel's matrix products, which depends on their shapes
    np.testing.assert_allclose(model.predict_proba(GRID[[7]]), model.predict_proba(GRID[:20])[[7]], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_two_gaussian_classes_decide_as_scikit_learn_with_the_same_kernel(seed):
    # p(class 1) = E[σ(f₁ − f₀)] with f = (b/σ)·z and z₀, z₁ independent GPs with kernel K: f₁ − f₀ is
    # the GP with kernel 2(b/σ)²K, so b = σ/√2 is scikit-learn's logistic GPC with K itself.
    X, y = torus_data(40, seed)
    kernel = ConstantKernel(2.0, "fixed") * RBF(1.0, "fixed")
    model = HeavyTailedProcessClassifier(marginal="gaussian", kernel=kernel, b=np.sqrt(0.5), optimize=False).fit(X, y)
    oracle = GaussianProcessClassifier(kernel=kernel, optimizer=None).fit(X, y)
    expected = oracle.predict(GRID)
    assert 50 < np.sum(expected == 1) < 350  # the grid crosses the decision boundary
    np.testing.assert_array_equal(model.predict(GRID), expected)
    np.testing.assert_allclose(model.log_marginal_likelihood_, oracle.log_marginal_likelihood(), atol=1e-6)


def test_two_gaussian_classes_with_b_equal_to_sigma_decide_as_scikit_learn_with_twice_the_kernel():
    X, y = torus_data(40, seed=7)
    kernel = ConstantKernel(2.0, "fixed") * RBF(1.0, "fixed")
    model = HeavyTailedProcessClassifier(marginal="gaussian", kernel=kernel, optimize=False).fit(X, y)
    oracle = GaussianProcessClassifier(kernel=ConstantKernel(4.0, "fixed") * RBF(1.0, "fixed"), optimizer=None)
    np.testing.assert_array_equal(model.predict(GRID), oracle.fit(X, y).predict(GRID))
    # the probabilities agree with the decision: above ½ exactly where class 1 is predicted
    proba = model.predict_proba(GRID)
    np.testing.assert_array_equal(model.classes_[np.argmax(proba, axis=1)], model.predict(GRID))


def test_binary_gaussian_proba_is_the_one_dimensional_integral():
    rng = np.random.default_rng(0)
    mean = rng.normal(0.0, 3.0, size=(30, 2))
    mean[0] = (0.3, 0.3)  # a tie: exactly ½
    A = rng.normal(size=(30, 2, 2))
    cov = A @ A.transpose(0, 2, 1) * np.exp(rng.uniform(-6.0, 5.0, size=30))[:, None, None]
    cov[1] = 0.0  # a point mass: σ(f₁ − f₀)
    scale = 1.7
    proba = binary_gaussian_proba(mean, cov, scale=scale)
    for i in range(30):
        m = scale * (mean[i, 1] - mean[i, 0])
        s = scale * np.sqrt(cov[i, 0, 0] + cov[i, 1, 1] - 2.0 * cov[i, 0, 1])
        expected, _ = quad(lambda x: np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi) * expit(m + s * x),
                           -np.inf, np.inf, epsabs=1e-13, limit=200)
        assert proba[i, 1] == pytest.approx(expected, abs=1e-9)
    assert proba[0, 1] == 0.5
    assert proba[1, 1] == pytest.approx(expit(scale * (mean[1, 1] - mean[1, 0])), abs=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # above ½ exactly where the latent mean of the difference is positive
    np.testing.assert_array_equal(proba[1:, 1] > 0.5, mean[1:, 1] > mean[1:, 0])


def test_quasi_normals_are_a_fixed_power_of_two_set():
    points = quasi_normals(1000, 3)
    assert points.shape == (1024, 3)
    assert not points.flags.writeable
    np.testing.assert_array_equal(points, quasi_normals(1024, 3))
    assert quasi_normals(1, 2).shape == (1, 2)
    # standard normal in every coordinate, to quasi-Monte Carlo accuracy
    np.testing.assert_allclose(points.mean(axis=0), 0.0, atol=0.01)
    np.testing.assert_allclose(points.std(axis=0), 1.0, atol=0.02)


def test_overflowing_tails_give_the_largest_latent_the_whole_probability():
    # the Student-t-inspired map grows like exp(z²/4) and overflows beyond |z| ≈ 53: the
    # probabilities stay finite, and a point far in the tail goes wholly to its largest latent
    mean = np.array([[200.0, 199.0], [0.0, 0.0]])
    cov = np.array([np.eye(2) * 1e-6, np.eye(2) * 900.0])
    proba = predictive_proba(mean, cov, quasi_normals(1024, 2), marginal="student", b=1.0, sigma=1.0)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[0], [1.0, 0.0])
    np.testing.assert_allclose(proba[1], [0.5, 0.5], atol=0.01)


def test_one_class_says_a_classifier_needs_two():
    with pytest.raises(InputError, match=r"y has one class only \('a'\); a classifier needs at least 2 classes") as info:
        HeavyTailedProcessClassifier().fit(np.zeros((4, 2)), ["a"] * 4)
    assert "entropy" not in str(info.value) and "\n" not in str(info.value)


def monte_carlo(model, X, n_draws=10**6, seed=123):
    """A 10⁶-draw Monte Carlo estimate of eq. (4.10) (antithetic pairs), with its standard error."""
    mean, cov = model.latent_moments(X)
    rng = np.random.default_rng(seed)
    batches = []
    for _ in range(50):
        normals = rng.standard_normal((n_draws // 100, mean.shape[1]))
        batches.append(predictive_proba(mean, cov, np.concatenate([normals, -normals]),
                                        marginal=model._marginal, b=model.b_, sigma=model._sigma))
    batches = np.array(batches)
    return batches.mean(axis=0), batches.std(axis=0, ddof=1) / np.sqrt(len(batches))


@pytest.mark.slow
@pytest.mark.parametrize("marginal, n_classes", [("laplace", 3), ("hypsecant", 2)])
def test_probabilities_are_within_1e_3_of_a_million_draws(marginal, n_classes):
    X, y = clusters(10, [(-2.0, 0.0), (2.0, 0.0), (0.0, 2.0)][:n_classes], 0.7, seed=0)
    model = HeavyTailedProcessClassifier(marginal=marginal).fit(X, y)  # the kernel and b fitted
    at = np.array([[0.0, 0.0], [-2.0, 0.0], [1.0, 1.0], [0.0, 3.5], [-1.0, 1.0], [6.0, -4.0]])
    proba = model.predict_proba(at)
    expected, standard_error = monte_carlo(model, at)
    # the estimate's own error is a large part of the 1e-3 (its standard error reaches 4e-4 here) ...
    assert standard_error.max() < 5e-4
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-3)
    # ... so the rule is also checked against a 2^19-point quasi-Monte Carlo set scrambled otherwise
    mean, cov = model.latent_moments(at)
    normals = ndtri(qmc.Sobol(n_classes, scramble=True, seed=777).random_base2(19))
    finer = predictive_proba(mean, cov, normals, marginal=model._marginal, b=model.b_, sigma=model._sigma)
    np.testing.assert_allclose(proba, finer, rtol=0, atol=5e-4)
