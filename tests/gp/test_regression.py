"""Heavy-tailed process regression: against scikit-learn's GPR, quadrature of its densities, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import integrate
from sklearn.base import clone
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern
from sklearn.utils.estimator_checks import parametrize_with_checks

from paucity._errors import InputError, NotFittedError, ParameterError, PaucityError, ShapeMismatchError
from paucity.gp.marginals import MARGINALS, log_density, warp
from paucity.gp.regression import HeavyTailedProcessRegressor, gp_posterior, log_prior_density, slope_threshold

HEAVY = ("laplace", "hypsecant", "student")
RNG = np.random.default_rng(0)
X = np.sort(RNG.uniform(-3.0, 3.0, size=(15, 1)), axis=0)
Y = np.sin(2.0 * X[:, 0]) + 0.3 * X[:, 0]
X_TEST = np.linspace(-4.0, 4.0, 17)[:, None]


def _gauss_legendre_on_line(n, scale):
    """Nodes and weights for ∫_R h(f) df via f = scale·tan(πt/2), t in (-1, 1)."""
    t, w = np.polynomial.legendre.leggauss(n)
    f = scale * np.tan(0.5 * np.pi * t)
    jac = scale * 0.5 * np.pi / np.cos(0.5 * np.pi * t) ** 2
    return f, w * jac


# --- the Gaussian marginal is Gaussian process regression ---------------------------------------------------------


@pytest.mark.parametrize("kernel", [ConstantKernel(1.69) * RBF(0.7), ConstantKernel(0.5) * Matern(1.3, nu=1.5)])
def test_gaussian_marginal_with_b_equal_sigma_is_sklearn_gpr(kernel):
    model = HeavyTailedProcessRegressor(marginal="gaussian", kernel=kernel, b=1.3, sigma=1.3, noise=0.05).fit(X, Y)
    oracle = GaussianProcessRegressor(kernel=kernel, alpha=0.05, optimizer=None).fit(X, Y)
    mean, std = model.predict(X_TEST, return_std=True)
    expected_mean, expected_std = oracle.predict(X_TEST, return_std=True)
    np.testing.assert_allclose(mean, expected_mean, atol=1e-10)
    np.testing.assert_allclose(std, expected_std, atol=1e-8)
    np.testing.assert_allclose(model.predict_distribution(X_TEST).variance, expected_std**2, atol=1e-10)
    # log p(y) of eq. (4.4) with a Gaussian marginal is the GP's log marginal likelihood
    assert model.log_marginal_likelihood_ == pytest.approx(oracle.log_marginal_likelihood_value_, abs=1e-8)


def test_gaussian_marginal_with_other_b_rescales_the_gp():
    # f = (b/σ) z: HPR on y is GPR on (σ/b) y, its predictions scaled back by b/σ
    kernel = ConstantKernel(1.0) * RBF(0.8)
    model = HeavyTailedProcessRegressor(marginal="gaussian", kernel=kernel, b=3.0, sigma=1.5, noise=0.01).fit(X, Y)
    oracle = GaussianProcessRegressor(kernel=kernel, alpha=0.01, optimizer=None).fit(X, Y * 1.5 / 3.0)
    np.testing.assert_allclose(model.predict(X_TEST), 2.0 * oracle.predict(X_TEST), atol=1e-10)


def test_default_kernel_has_diagonal_sigma_squared():
    model = HeavyTailedProcessRegressor(sigma=1.7).fit(X, Y)
    np.testing.assert_allclose(model.kernel_.diag(X_TEST), 1.7**2)
    assert model.get_params()["kernel"] is None  # fit does not touch the parameter


def test_callable_kernel_gives_the_same_fit_as_the_kernel_object():
    kernel = ConstantKernel(1.0) * RBF(0.9)
    a = HeavyTailedProcessRegressor(kernel=kernel, b=2.0, noise=0.1).fit(X, Y)
    b = HeavyTailedProcessRegressor(kernel=lambda A, B: kernel(A, B), b=2.0, noise=0.1).fit(X, Y)
    np.testing.assert_allclose(a.predict(X_TEST, return_std=True), b.predict(X_TEST, return_std=True), atol=1e-12)


@pytest.mark.parametrize("marginal", MARGINALS)
def test_fit_maps_observations_to_z_space_and_interpolates_them(marginal):
    model = HeavyTailedProcessRegressor(marginal=marginal, b=2.0, noise=1e-10).fit(X[::3], Y[::3])
    np.testing.assert_allclose(warp(model.z_train_, marginal, b=2.0).f, Y[::3], atol=1e-9)
    np.testing.assert_allclose(model.predict(X[::3]), Y[::3], atol=1e-6)  # noise-free: the median goes through the data


def test_median_is_the_map_of_the_mean_and_the_quantiles_bracket_it():
    model = HeavyTailedProcessRegressor(marginal="student", b=1.5, noise=0.1).fit(X, Y)
    post = model.predict_distribution(X_TEST)
    np.testing.assert_allclose(model.predict(X_TEST), warp(post.mean, "student", b=1.5).f)
    np.testing.assert_allclose(model.predict_quantile(X_TEST, 0.5), model.predict(X_TEST))
    assert np.all(model.predict_quantile(X_TEST, 0.1) < model.predict_quantile(X_TEST, 0.9))
    assert model.score(X, Y) > 0.9


# --- eq. (4.4): the prior density -----------------------------------------------------------------------------------


@pytest.mark.parametrize("marginal", MARGINALS)
def test_prior_density_reduces_to_the_product_of_marginals_for_independent_z(marginal):
    f = RNG.normal(scale=3.0, size=(4, 5))
    got = log_prior_density(f, 2.0**2 * np.eye(5), marginal=marginal, b=1.4, sigma=2.0)
    np.testing.assert_allclose(got, log_density(f, marginal, b=1.4).sum(axis=-1), atol=1e-10)


@pytest.mark.parametrize("marginal", MARGINALS)
@pytest.mark.parametrize("variance", [1.0, 0.3, 2.5])  # diag(K) = σ² only for the first
def test_prior_density_normalizes_in_one_dimension(marginal, variance):
    K = np.array([[variance]])
    total, _ = integrate.quad(lambda f: np.exp(log_prior_density(np.array([f]), K, marginal=marginal, b=1.3)),
                              -np.inf, np.inf, limit=200)
    assert total == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("marginal", MARGINALS)
def test_prior_density_normalizes_in_two_dimensions_with_marginals_g_b(marginal):
    sigma, b = 1.2, 0.9
    K = sigma**2 * np.array([[1.0, 0.7], [0.7, 1.0]])
    f, w = _gauss_legendre_on_line(600, b)
    F1, F2 = np.meshgrid(f, f, indexing="ij")
    density = np.exp(log_prior_density(np.stack([F1, F2], axis=-1), K, marginal=marginal, b=b, sigma=sigma))
    assert w @ density @ w == pytest.approx(1.0, abs=2e-4)
    # diag(K) = σ²: integrating out f_2 leaves g_b(f_1)
    middle = np.abs(f) < 4.0 * b
    np.testing.assert_allclose((density @ w)[middle], np.exp(log_density(f[middle], marginal, b=b)), rtol=2e-3)


def test_prior_density_normalizes_in_two_dimensions_without_unit_diagonal():
    K = np.array([[2.0, -0.5], [-0.5, 0.4]])
    f, w = _gauss_legendre_on_line(600, 1.0)
    F1, F2 = np.meshgrid(f, f, indexing="ij")
    density = np.exp(log_prior_density(np.stack([F1, F2], axis=-1), K, marginal="hypsecant", b=1.0))
    assert w @ density @ w == pytest.approx(1.0, abs=2e-4)


def test_method_prior_density_is_eq_4_4_with_noise_on_the_diagonal():
    kernel = ConstantKernel(0.8) * RBF(1.0)
    model = HeavyTailedProcessRegressor(kernel=kernel, b=2.0, noise=0.2).fit(X, Y)
    K = kernel(X) + 0.2 * np.eye(len(X))
    assert model.log_prior_density(Y) == pytest.approx(float(log_prior_density(Y, K, b=2.0)))
    assert model.log_marginal_likelihood_ == pytest.approx(float(model.log_prior_density(Y)))


# --- the f-space predictive ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("marginal", MARGINALS)
def test_predictive_density_integrates_to_one_and_its_median_is_predict(marginal):
    model = HeavyTailedProcessRegressor(marginal=marginal, b=1.5, noise=0.05).fit(X, Y)
    x_star = np.array([[0.1], [2.9], [6.0]])
    median = model.predict(x_star)
    for j in range(len(x_star)):
        def pdf(f, j=j):
            point = np.array([f]) * np.ones(len(x_star))
            return np.exp(model.predictive_logpdf(point, x_star)[j])

        total, _ = integrate.quad(pdf, -np.inf, np.inf, limit=400)
        below, _ = integrate.quad(pdf, -np.inf, median[j], limit=400)
        assert total == pytest.approx(1.0, abs=1e-6)
        assert below == pytest.approx(0.5, abs=1e-6)


def test_predictive_density_accepts_a_batch_of_values():
    model = HeavyTailedProcessRegressor(b=1.5, noise=0.05).fit(X, Y)
    grid = np.linspace(-3, 3, 7)[:, None] * np.ones(len(X_TEST))
    out = model.predictive_logpdf(grid, X_TEST)
    assert out.shape == grid.shape and np.isfinite(out).all()


def test_gp_posterior_against_a_direct_inverse():
    K = ConstantKernel(1.0) * RBF(0.5)
    z = RNG.normal(size=len(X))
    post = gp_posterior(K(X), z, K(X_TEST, X), K.diag(X_TEST), noise=0.3)
    inv = np.linalg.inv(K(X) + 0.3 * np.eye(len(X)))
    np.testing.assert_allclose(post.mean, K(X_TEST, X) @ inv @ z, atol=1e-10)
    np.testing.assert_allclose(post.variance, np.diag(K(X_TEST) - K(X_TEST, X) @ inv @ K(X, X_TEST)), atol=1e-10)


def test_slope_threshold_is_where_the_map_has_slope_one_at_zero():
    for marginal in HEAVY:
        b = slope_threshold(marginal, sigma=1.7)
        assert b == pytest.approx(1.7 * np.sqrt(np.pi / 2.0))
        assert float(warp(0.0, marginal, b=b, sigma=1.7).df) == pytest.approx(1.0)
        z = np.linspace(-8.0, 8.0, 401)
        assert np.all(warp(z, marginal, b=1.001 * b, sigma=1.7).df > 1.0)
    assert slope_threshold("gaussian", sigma=1.7) == pytest.approx(1.7)


# --- the scikit-learn contract and bad input ------------------------------------------------------------------------


@parametrize_with_checks(
    [
        HeavyTailedProcessRegressor(),
        HeavyTailedProcessRegressor(marginal="student", b=2.0, noise=1e-3),
        HeavyTailedProcessRegressor(marginal="gaussian"),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_clone_and_params():
    model = HeavyTailedProcessRegressor(marginal="hypsecant", b=2.0, noise=0.1)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert not hasattr(copy, "dual_coef_")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"b": 0.0}, "b must be a number > 0"),
        ({"b": -1.0}, "b must be a number > 0"),
        ({"sigma": 0}, "sigma must be a number > 0"),
        ({"noise": -1e-3}, "noise must be a number >= 0"),
        ({"marginal": "cauchy"}, "marginal must be one of"),
        ({"kernel": "rbf"}, "kernel must be None or a scikit-learn kernel or a callable"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ParameterError, match=message):
        HeavyTailedProcessRegressor(**params).fit(X, Y)


def test_bad_data():
    model = HeavyTailedProcessRegressor()
    with pytest.raises(InputError, match="y has 1 NaN or infinite"):
        model.fit(X, np.where(np.arange(len(Y)) == 3, np.nan, Y))
    with pytest.raises(InputError, match="X has 1 NaN or infinite"):
        model.fit(np.where(np.arange(len(Y))[:, None] == 3, np.inf, X), Y)
    with pytest.raises(ShapeMismatchError, match="y has 14 entries but X has 15 rows"):
        model.fit(X, Y[:-1])
    with pytest.raises(ShapeMismatchError, match="1-dimensional"):
        model.fit(X, np.ones((len(Y), 2)))
    with pytest.raises(InputError, match="2-dimensional"):
        model.fit(X[:, 0], Y)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        model.predict(X)
    with pytest.raises(InputError, match="not positive definite"):
        HeavyTailedProcessRegressor(noise=0.0).fit(np.zeros((3, 1)), np.ones(3))
    model.fit(X, Y)
    with pytest.raises(ShapeMismatchError, match="X has 2 features, but HeavyTailedProcessRegressor is expecting 1"):
        model.predict(np.ones((3, 2)))
    with pytest.raises(ShapeMismatchError, match="f_star has shape"):
        model.predictive_logpdf(np.ones(3), X)
    with pytest.raises(ShapeMismatchError, match="f has shape"):
        model.log_prior_density(np.ones(3))
    with pytest.raises(ParameterError, match="q must be a probability"):
        model.predict_quantile(X, 1.0)
    with pytest.raises(InputError, match="kernel returned shape"):
        HeavyTailedProcessRegressor(kernel=lambda A, B: np.ones(3)).fit(X, Y)


anything = st.one_of(st.none(), st.booleans(), st.integers(-3, 6), st.floats(allow_nan=True, allow_infinity=True),
                     st.text(max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(marginal=st.one_of(anything, st.sampled_from(MARGINALS)), b=anything, sigma=anything, noise=anything,
       kernel=st.one_of(anything, st.just(RBF(1.0))))
def test_parameters_fit_or_raise_a_paucity_error(marginal, b, sigma, noise, kernel):
    model = HeavyTailedProcessRegressor(marginal=marginal, kernel=kernel, b=b, sigma=sigma, noise=noise)
    try:
        model.fit(X, Y)
    except PaucityError as error:
        assert "\n" not in str(error)
        return
    assert np.isfinite(model.predict(X_TEST)).all()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=0, max_size=2),
                     min_size=0, max_size=5),
       y=st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=0, max_size=5))
def test_data_fit_or_raise_a_paucity_error(rows, y):
    try:
        data = np.array(rows, dtype=float)
    except ValueError:  # ragged: numpy itself refuses
        return
    model = HeavyTailedProcessRegressor(noise=1e-3)
    try:
        model.fit(data, y)
    except PaucityError as error:
        assert "\n" not in str(error)
        return
    assert np.isfinite(model.predict(data)).all()


def test_prior_density_function_checks_shapes():
    with pytest.raises(ShapeMismatchError, match="K must be a square matrix"):
        log_prior_density(np.ones(2), np.ones((2, 3)))
    with pytest.raises(ShapeMismatchError, match="f has shape"):
        log_prior_density(np.ones(3), np.eye(2))
    with pytest.raises(InputError, match="not positive definite"):
        log_prior_density(np.ones(2), np.ones((2, 2)))
