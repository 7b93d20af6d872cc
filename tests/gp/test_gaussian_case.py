"""marginal="gaussian" is ordinary multiclass Laplace GPC (issue 16, §1).

With b = σ = 1 the copula map is the identity, f = z, and the heavy-tailed
process classifier must give back Rasmussen & Williams' multiclass Laplace
GPC (Algorithms 3.3-3.4, in ``reference.py``) and, for two classes,
scikit-learn's binary Laplace GPC.
"""

import itertools

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from paucity.gp.classification import HeavyTailedProcessClassifier
from paucity.gp.kernels import VonMises

from .reference import laplace_mode, laplace_predict, one_hot

N_SAMPLES = 200_000  # the reference's Monte Carlo draws (standard error below 0.5 / sqrt(N_SAMPLES) ≈ 0.0011),
# and the classifier's quasi-Monte Carlo points (2^18 after rounding up)
NAMES = np.array(["sheet", "coil", "helix"])  # not in sorted order: columns follow classes_


def torus_data(n, n_classes, seed):
    """Clusters on the torus, wrapped to [−π, π)."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-np.pi, np.pi, size=(n_classes, 2))
    labels = rng.integers(0, n_classes, size=n)
    X = centres[labels] + 0.6 * rng.standard_normal((n, 2))
    return (X + np.pi) % (2 * np.pi) - np.pi, labels


def fixed(kernel):
    """The same kernel with every hyperparameter fixed."""
    params = {name: "fixed" for name in kernel.get_params() if name.endswith("_bounds")}
    return kernel.set_params(**params)


@pytest.fixture(scope="module")
def three_classes():
    X, labels = torus_data(30, 3, seed=11)
    y = NAMES[labels]
    kernel = fixed(ConstantKernel(2.0) * VonMises(concentration=1.5))
    X_test = np.array([[0.0, 0.0], [2.0, -1.0], [-2.5, 2.5], [1.0, 3.0], [-1.0, -2.0]])
    model = HeavyTailedProcessClassifier(
        marginal="gaussian", kernel=kernel, b=1.0, sigma=1.0, optimize=False,
        n_samples=N_SAMPLES, random_state=0,
    ).fit(X, y)
    # the reference, with the labels as indices into the classifier's sorted classes_
    Y = one_hot(np.searchsorted(np.sort(NAMES), y), 3)
    K = kernel(X)
    mode = laplace_mode(K, Y)
    prediction = laplace_predict(K, Y, mode, kernel(X, X_test), kernel.diag(X_test), n_samples=N_SAMPLES, seed=1)
    return {"model": model, "mode": mode, "prediction": prediction, "X_test": X_test, "y": y, "Y": Y}


def test_classes_are_sorted(three_classes):
    np.testing.assert_array_equal(three_classes["model"].classes_, np.sort(NAMES))


def test_latent_mode_matches_reference(three_classes):
    model, mode = three_classes["model"], three_classes["mode"]
    assert model.latent_mode_.shape == (30, 3)
    np.testing.assert_allclose(model.latent_mode_, mode.f_by_point(3), atol=1e-6)


def test_log_marginal_likelihood_matches_reference(three_classes):
    # eq. (4.11) with f = z is eq. (3.44): −½ log|K| − ½ log|K⁻¹ + W| = −½ log|I + W^½ K W^½|,
    # and the 2π constants of J and of the Laplace normalizer cancel.
    model, mode = three_classes["model"], three_classes["mode"]
    assert model.log_marginal_likelihood_ == pytest.approx(mode.log_marginal_likelihood, abs=1e-6)


def test_fixed_kernel_and_b_are_kept(three_classes):
    model = three_classes["model"]
    assert model.b_ == 1.0
    np.testing.assert_allclose(model.kernel_.theta, model.kernel.theta)


def test_predictive_probabilities_match_reference_within_monte_carlo_error(three_classes):
    model, prediction = three_classes["model"], three_classes["prediction"]
    proba = model.predict_proba(three_classes["X_test"])
    assert proba.shape == (5, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # the reference's Monte Carlo average and the classifier's quasi-Monte Carlo one: standard error below 0.0011
    np.testing.assert_allclose(proba, prediction.proba, atol=0.01)
    np.testing.assert_array_equal(model.predict(three_classes["X_test"]),
                                  model.classes_[prediction.proba.argmax(axis=1)])


def test_gaussian_marginal_scale_is_a_kernel_amplitude(three_classes):
    # With the Gaussian marginal f = (b/σ) z, so b = 2, σ = 1 is the GP with kernel 4K in f-space:
    # the mode in z is the reference's f̂ / 2 and eq. (4.11) is unchanged by the change of variables.
    X_train = three_classes["model"].X_train_
    kernel = three_classes["model"].kernel_
    model = HeavyTailedProcessClassifier(
        marginal="gaussian", kernel=kernel, b=2.0, sigma=1.0, optimize=False,
        n_samples=10, random_state=0,
    ).fit(X_train, three_classes["y"])
    mode = laplace_mode(4.0 * kernel(X_train), three_classes["Y"])
    np.testing.assert_allclose(model.latent_mode_, mode.f_by_point(3) / 2.0, atol=1e-6)
    assert model.log_marginal_likelihood_ == pytest.approx(mode.log_marginal_likelihood, abs=1e-6)


def test_two_classes_match_scikit_learn_with_twice_the_kernel():
    # Two softmax latents f1, f2, each a GP with kernel K, give p(class 1) = σ(f1 − f2), and
    # f1 − f2 is a single GP with kernel 2K: scikit-learn's binary logistic Laplace GPC with 2K is
    # the same model (its predictive integral uses a probit approximation, hence the 0.02; ours is
    # adaptive quadrature, and the decisions are the same: see test_prediction.py).
    X, labels = torus_data(40, 2, seed=7)
    kernel = fixed(ConstantKernel(2.0) * RBF(1.0))
    model = HeavyTailedProcessClassifier(
        marginal="gaussian", kernel=kernel, b=1.0, sigma=1.0, optimize=False,
    ).fit(X, labels)
    twice = ConstantKernel(4.0, "fixed") * RBF(1.0, "fixed")
    oracle = GaussianProcessClassifier(twice, optimizer=None).fit(X, labels)
    grid = np.array(list(itertools.product(np.linspace(-3, 3, 7), repeat=2)))
    expected = oracle.predict_proba(grid)
    assert expected[:, 0].min() < 0.2 and expected[:, 0].max() > 0.8  # the grid spans confident regions
    np.testing.assert_allclose(model.predict_proba(grid), expected, atol=0.02)
    # the same model, so the same Laplace approximation of its marginal likelihood
    np.testing.assert_allclose(model.log_marginal_likelihood_, oracle.log_marginal_likelihood(), atol=1e-6)
