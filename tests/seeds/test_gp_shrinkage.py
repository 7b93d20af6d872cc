"""Seed 003, §4.4: selective shrinkage of heavy-tailed process regression, and inequality (4.8).

n measurement locations: n − 1 coincident "dense" points (positions 0..n−2,
``K̃ = 1`` among them) and one isolated point s (position n − 1,
``K̃(x_s, x_s) = ε/(ε + n − 2)``, ``K̃(x_d, x_s) = 0``), with ``K = K̃ + εI``.
The regressor reads ``K̃`` through a callable kernel on index columns.
"""

import numpy as np
import pytest

from paucity.gp.marginals import warp
from paucity.gp.regression import HeavyTailedProcessRegressor, selective_shrinkage, selective_shrinkage_gram, slope_threshold

HEAVY = ("laplace", "hypsecant", "student")


def index_kernel(gram):
    """``K̃`` as a kernel on one column of integer positions."""
    return lambda A, B: gram[np.ix_(A[:, 0].astype(int), B[:, 0].astype(int))]


def fit(n, noise, y, *, marginal="gaussian", b=1.0, sigma=1.0):
    X = np.arange(n, dtype=float)[:, None]
    model = HeavyTailedProcessRegressor(marginal=marginal, kernel=index_kernel(selective_shrinkage_gram(n, noise=noise)),
                                        b=b, sigma=sigma, noise=noise)
    return model.fit(X, y), X


def y_gp(n, rng, sign=1.0):
    """A y in 𝒴_gp: dense values of one sign, the isolated one their sum."""
    dense = sign * rng.uniform(0.1, 1.0, size=n - 1)
    return np.append(dense, dense.sum())


@pytest.mark.parametrize("n", [3, 4, 7, 12])
@pytest.mark.parametrize("noise", [0.1, 1.0, 5.0])
def test_a_gpr_posterior_variances_agree(n, noise):
    model, X = fit(n, noise, np.zeros(n))
    variance = model.predict_distribution(X).variance
    np.testing.assert_allclose(variance, noise / (noise + n - 1), rtol=1e-12)  # σ_d² = σ_s², derived by hand


@pytest.mark.parametrize("n", [3, 4, 7, 12])
@pytest.mark.parametrize("noise", [0.1, 1.0, 5.0])
def test_b_gpr_posterior_means_agree_exactly_on_y_gp(n, noise):
    rng = np.random.default_rng(n)
    for sign in (1.0, -1.0):
        y = y_gp(n, rng, sign)
        model, X = fit(n, noise, y)
        mean = model.predict_distribution(X).mean
        np.testing.assert_allclose(mean, y[-1] / (noise + n - 1), rtol=1e-12)  # μ_d = Σ y_d/(ε+n−1) = μ_s
    y = y_gp(n, rng)
    y[-1] *= 1.5  # off 𝒴_gp: the isolated posterior moves away
    mean = fit(n, noise, y)[0].predict_distribution(fit(n, noise, y)[1]).mean
    assert abs(mean[-1] - mean[0]) > 1e-3


@pytest.mark.parametrize("marginal", HEAVY)
@pytest.mark.parametrize("n", [3, 5, 10])
def test_c_hpr_z_space_posteriors_agree_on_the_warped_observations(marginal, n):
    rng = np.random.default_rng(10 + n)
    y = y_gp(n, rng)
    for b in (0.5, 2.0, 8.0):
        y_warped = warp(y, marginal, b=b).f
        model, X = fit(n, 1.0, y_warped, marginal=marginal, b=b)
        post = model.predict_distribution(X)
        np.testing.assert_allclose(post.mean, post.mean[0], rtol=1e-10)  # y' ∈ 𝒴_hp
        np.testing.assert_allclose(post.variance, post.variance[0], rtol=1e-10)
        # ... and in f-space the medians agree too, at the dense points and at the isolated one
        median = model.predict(X)
        np.testing.assert_allclose(median, median[0], rtol=1e-9)


@pytest.mark.parametrize("marginal", HEAVY)
def test_d_inequality_4_8_holds_and_its_gap_grows_with_b(marginal):
    rng = np.random.default_rng(4)
    threshold = slope_threshold(marginal)
    assert threshold == pytest.approx(np.sqrt(np.pi / 2.0))
    for n in (3, 4, 6, 10, 20):
        dense = rng.uniform(0.1, 1.0, size=n - 1)
        results = [selective_shrinkage(dense, marginal=marginal, b=b) for b in (1.01 * threshold, 2.0, 5.0, 20.0)]
        for out in results:
            assert out.lhs > out.rhs * (1.0 + 1e-3)
            np.testing.assert_allclose(out.hp_mean, out.gp_mean, rtol=1e-9)  # same z-space posterior as GPR
        gaps = np.array([out.lhs - out.rhs for out in results])
        assert np.all(np.diff(gaps) > 0)
        # f = b·H(z/σ): both sides scale with b, so their ratio does not depend on it
        np.testing.assert_allclose([out.ratio for out in results], results[0].ratio, rtol=1e-9)
        np.testing.assert_allclose(gaps / gaps[-1], np.array([1.01 * threshold, 2.0, 5.0, 20.0]) / 20.0, rtol=1e-9)


@pytest.mark.parametrize("marginal", HEAVY)
def test_d_inequality_4_8_needs_only_convexity_not_slope_above_one(marginal):
    # below the seed's threshold b > σ√(π/2) the map is still strictly convex on [0, ∞): (4.8) still holds
    out = selective_shrinkage([0.4, 0.2, 0.3], marginal=marginal, b=0.2)
    assert float(warp(0.0, marginal, b=0.2).df) < 1.0
    assert out.lhs > out.rhs


@pytest.mark.parametrize("marginal", HEAVY)
def test_d_ratio_grows_with_n_and_with_the_size_of_the_observations(marginal):
    # equal dense values y_d = y_s/(n − 1): the isolated GPR observation is n − 1 times a dense one
    ratios_n = [selective_shrinkage(np.full(n - 1, 1.0 / (n - 1)), marginal=marginal, b=2.0).ratio for n in (3, 5, 10, 40)]
    assert ratios_n[0] > 1.0 and np.all(np.diff(ratios_n) > 0)
    ratios_y = [selective_shrinkage([scale, scale], marginal=marginal, b=2.0).ratio for scale in (0.1, 0.5, 1.0, 2.0)]
    assert np.all(np.diff(ratios_y) > 0)


def test_d_gaussian_marginal_gives_equality():
    for b in (0.5, 1.0, 3.0):
        out = selective_shrinkage([0.3, 0.5, 0.2], marginal="gaussian", b=b)
        assert out.lhs == pytest.approx(out.rhs, rel=1e-12)


@pytest.mark.parametrize("marginal", HEAVY)
def test_f_space_isolated_observation_must_be_disproportionately_large(marginal):
    # same posterior at d and s needs y'_s / y'_d > y_s / y_d = n − 1: HPR discounts the isolated point more
    for n in (3, 6, 11):
        out = selective_shrinkage(np.full(n - 1, 0.8), marginal=marginal, b=2.0)
        assert out.y[-1] / out.y[0] == pytest.approx(n - 1)
        assert out.y_warped[-1] / out.y_warped[0] > n - 1
    out = selective_shrinkage(np.full(5, 0.8), marginal="gaussian", b=2.0)
    assert out.y_warped[-1] / out.y_warped[0] == pytest.approx(5.0)


def test_the_algorithm_function_agrees_with_the_estimator():
    dense = np.array([0.2, 0.7, 0.4, 0.1])
    out = selective_shrinkage(dense, marginal="hypsecant", b=3.0, sigma=1.3, noise=0.5)
    model, X = fit(5, 0.5, out.y_warped, marginal="hypsecant", b=3.0, sigma=1.3)
    post = model.predict_distribution(X)
    np.testing.assert_allclose(post.mean, out.hp_mean, rtol=1e-10)
    np.testing.assert_allclose(post.variance, out.hp_variance, rtol=1e-10)
