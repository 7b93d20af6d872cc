"""The copula map f = G_b⁻¹(Φ_{0,σ²}(z)): against scipy's distributions, finite differences, its inverse, and the tails."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from paucity._errors import ParameterError
from paucity.gp.marginals import MARGINALS, get_marginal, log_density, unwarp, warp

B, SIGMA = 1.7, 1.3


def scipy_marginal(name, b):
    """The same distributions as scipy parametrizes them."""
    return {
        "laplace": stats.laplace(scale=b),
        "hypsecant": stats.hypsecant(scale=2.0 * b / np.pi),  # scipy's has density 1/(π cosh x)
        "student": stats.t(2, scale=b / np.sqrt(2.0)),
        "gaussian": stats.norm(scale=b),
    }[name]


@pytest.mark.parametrize("name", MARGINALS)
def test_map_is_the_quantile_of_the_gaussian_cdf(name):
    z = np.linspace(-5.0, 5.0, 41)
    expected = scipy_marginal(name, B).ppf(stats.norm.cdf(z / SIGMA))
    np.testing.assert_allclose(warp(z, name, b=B, sigma=SIGMA).f, expected, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(log_density(z, name, b=B), scipy_marginal(name, B).logpdf(z), atol=1e-12)


@pytest.mark.parametrize("name", MARGINALS)
@pytest.mark.parametrize("order", [1, 2, 3])
def test_derivatives_match_central_differences(name, order):
    z = np.linspace(-6.0, 6.0, 97)
    z = z[np.abs(z) > 0.1]  # the Laplace map's second derivative jumps at 0
    h = 1e-5
    field = ["f", "df", "d2f", "d3f"]
    lower = getattr(warp(z - h, name, b=B, sigma=SIGMA), field[order - 1])
    upper = getattr(warp(z + h, name, b=B, sigma=SIGMA), field[order - 1])
    analytic = getattr(warp(z, name, b=B, sigma=SIGMA), field[order])
    np.testing.assert_allclose((upper - lower) / (2 * h), analytic, rtol=1e-6, atol=1e-6)


def test_laplace_tail_derivatives_match_the_mills_ratio():
    """For z > 0 the Laplace map is −log 2 − log Φ(−z): f' is the inverse Mills ratio m, f'' = m(m − z)."""
    z = np.array([5.0, 15.0, 30.0])
    m = stats.norm.pdf(z) / stats.norm.sf(z)
    w = warp(z, "laplace")
    np.testing.assert_allclose(w.df, m, rtol=1e-12)
    np.testing.assert_allclose(w.d2f, m * (m - z), rtol=1e-9)
    # m(t) = t + 1/t − 2/t³ + 10/t⁵ − …, so f''' = m'' = 2/t³ − 24/t⁵ + 300/t⁷ − … in the far tail
    np.testing.assert_allclose(w.d3f[-1], 2 / 30.0**3 - 24 / 30.0**5 + 300 / 30.0**7, rtol=1e-4)


@pytest.mark.parametrize("name", MARGINALS)
def test_nothing_overflows_at_thirty(name):
    z = np.array([-30.0, -29.0, 0.0, 29.0, 30.0])
    w = warp(z, name, b=3.0)
    for field in (w.f, w.df, w.d2f, w.d3f):
        assert np.isfinite(field).all()
    np.testing.assert_allclose(unwarp(w.f, name, b=3.0), z, atol=1e-9)


@pytest.mark.parametrize("name", MARGINALS)
def test_scale_family_and_symmetry(name):
    z = np.linspace(-8.0, 8.0, 33)
    one, two = warp(z, name, b=1.0), warp(z, name, b=2.5)
    for a, c in zip((one.f, one.df, one.d2f, one.d3f), (two.f, two.df, two.d2f, two.d3f)):
        np.testing.assert_allclose(c, 2.5 * a, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(warp(-z, name).f, -one.f, atol=1e-12)
    np.testing.assert_allclose(warp(-z, name).df, one.df, rtol=1e-12)


def test_gaussian_is_the_identity_up_to_scale():
    z = np.linspace(-30.0, 30.0, 61)
    w = warp(z, "gaussian", b=2.0, sigma=4.0)
    np.testing.assert_allclose(w.f, 0.5 * z, rtol=1e-14)
    np.testing.assert_allclose(w.df, 0.5, rtol=1e-12)
    assert np.abs(w.d2f).max() < 1e-12 and np.abs(w.d3f).max() < 1e-12


@pytest.mark.parametrize("name", ["laplace", "hypsecant", "student"])
def test_heavy_tails_bend_away_from_the_gaussian_line(name):
    """§4.4: the map is concave on (−∞, 0] and convex on [0, ∞), and its slope grows with b (Fig. 4.1)."""
    z = np.linspace(0.05, 10.0, 200)
    w = warp(z, name, b=2.0)
    assert (w.d2f > 0).all()
    assert (warp(-z, name, b=2.0).d2f < 0).all()
    assert (warp(z, name, b=3.0).df > w.df).all()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MARGINALS), st.floats(-35.0, 35.0), st.floats(-35.0, 35.0), st.floats(0.1, 10.0))
def test_map_is_increasing_and_inverted(name, z1, z2, b):
    lo, hi = sorted((z1, z2))
    f = warp(np.array([lo, hi]), name, b=b).f
    assert f[0] <= f[1]
    assert np.all(warp(np.array([lo, hi]), name, b=b).df > 0)
    if abs(hi) < 30:
        assert abs(float(unwarp(f[1:], name, b=b)[0]) - hi) < 1e-7 * max(1.0, abs(hi))


def test_unknown_marginal_is_a_parameter_error():
    with pytest.raises(ParameterError, match="marginal must be one of 'laplace'"):
        get_marginal("cauchy")
