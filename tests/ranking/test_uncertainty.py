"""The Laplace approximation: hand-derived values, dense references, choix's EP posterior and a bootstrap."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paucity._errors import InputError, NotFittedError, ParameterError
from paucity.ranking import BTL, Comparisons, PlackettLuce, Rankings
from paucity.ranking import uncertainty

from .test_plackett_luce import random_rankings, reference_terms

FIXTURES = json.loads((Path(__file__).parents[1] / "fixtures" / "ranking" / "choix_plackett_luce.json").read_text())


def league(seed, n=30, m=900, alpha=0.0):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    y = (rng.random(m) < 1.0 / (1.0 + np.exp(v[i] - v[j]))).astype(int)
    ring = np.arange(n)
    i, j, y = np.r_[i, ring, ring], np.r_[j, (ring + 1) % n, (ring + 1) % n], np.r_[y, np.zeros(n, int), np.ones(n, int)]
    return v, Comparisons(i, j, y)


def centred_inverse(hessian, alpha):
    n = len(hessian)
    projector = np.eye(n) - 1.0 / n
    return projector @ np.linalg.pinv(hessian + alpha * np.eye(n)) @ projector


def test_balanced_triangle_by_hand():
    # every pair compared twice, won once each way: v = 0, σ = 1/2, each edge weighs 2 · 1/4;
    # L = (1/2)(3I − 11ᵀ), so L⁺ = (2/3)(I − 11ᵀ/3): variance 4/9, covariance −2/9
    c = Comparisons.from_winners([0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1])
    model = BTL().fit(c)
    np.testing.assert_allclose(model.scores_std_, np.sqrt(4 / 9), atol=1e-12)
    np.testing.assert_allclose(model.covariance([0, 2]).to_numpy(), [[4 / 9, -2 / 9], [-2 / 9, 4 / 9]], atol=1e-9)
    assert model.scores_std_.name == "score_std" and list(model.scores_std_.index) == [0, 1, 2]


@pytest.mark.parametrize("alpha", [0.0, 0.7])
def test_plackett_luce_posterior_is_the_inverse_of_the_written_out_hessian(alpha):
    data = random_rankings(4, n=8, m=50)
    model = PlackettLuce(alpha=alpha).fit(data)
    _, _, hessian = reference_terms(data, model.scores_.to_numpy())
    expected = centred_inverse(hessian, alpha)
    np.testing.assert_allclose(model.scores_std_, np.sqrt(np.diag(expected)), rtol=1e-9)
    np.testing.assert_allclose(model.covariance([1, 5, 6]).to_numpy(), expected[np.ix_([1, 5, 6], [1, 5, 6])], atol=1e-8)


@pytest.mark.parametrize("name", sorted(FIXTURES["ep_pairwise"]))
def test_btl_laplace_posterior_is_close_to_choix_expectation_propagation(name):
    stored = FIXTURES["ep_pairwise"][name]
    pairs = np.array(stored["data"])
    n = stored["n_items"]
    # ep_pairwise's prior has precision alpha: the penalty (alpha/2)‖v‖² of BTL(alpha)
    model = BTL(alpha=stored["alpha"]).fit(Comparisons.from_winners(pairs[:, 0], pairs[:, 1], items=range(n)))
    projector = np.eye(n) - 1.0 / n
    ep_cov = projector @ np.array(stored["cov"]) @ projector
    mean = np.array(stored["mean"])
    # EP and Laplace are different approximations of one posterior: a few percent apart on these leagues
    np.testing.assert_allclose(model.scores_std_, np.sqrt(np.diag(ep_cov)), rtol=0.05)
    np.testing.assert_allclose(model.scores_, mean - mean.mean(), atol=0.06)


def test_probe_estimate_beyond_the_dense_limit_is_close_to_the_exact_diagonal(monkeypatch):
    _, c = league(2, n=60, m=3000)
    model = BTL().fit(c)
    exact = model.scores_std_.to_numpy()
    monkeypatch.setattr(uncertainty, "DENSE_LIMIT", 10)
    estimated = BTL().fit(c).scores_std_.to_numpy()
    assert not np.allclose(estimated, exact, rtol=1e-6)  # the probe path ran
    np.testing.assert_allclose(estimated, exact, rtol=0.1)


def test_posterior_draws_have_the_posterior_covariance():
    _, c = league(3, n=5, m=200)
    model = BTL(alpha=0.5).fit(c)
    draws = model._posterior().sample(6000, np.random.default_rng(0))
    np.testing.assert_allclose(draws.mean(axis=0), model.scores_, atol=0.02)
    expected = model.covariance(list(range(5))).to_numpy()
    np.testing.assert_allclose(np.cov(draws.T), expected, atol=0.01)


def test_rank_intervals_cover_the_fitted_rank_and_narrow_with_data():
    v, c = league(5, n=12, m=300)
    small = BTL().fit(c).rank_intervals(level=0.9, n_samples=400, random_state=0)
    _, big = league(5, n=12, m=6000)
    large = BTL().fit(big).rank_intervals(level=0.9, n_samples=400, random_state=0)
    for table in (small, large):
        assert list(table.columns) == ["rank", "lower", "upper", "median"]
        assert table["rank"].tolist() == list(range(1, 13))
        assert ((table["lower"] <= table["rank"]) & (table["rank"] <= table["upper"])).all()
        assert table["lower"].min() >= 1 and table["upper"].max() <= 12
    assert (large["upper"] - large["lower"]).mean() < (small["upper"] - small["lower"]).mean()
    again = BTL().fit(c).rank_intervals(level=0.9, n_samples=400, random_state=0)
    assert again.equals(small)


def test_errors():
    with pytest.raises(NotFittedError):
        _ = BTL().scores_std_
    model = BTL().fit(Comparisons.from_winners([0, 1, 2], [1, 2, 0]))
    with pytest.raises(InputError, match="not among the items"):
        model.covariance(["q"])
    with pytest.raises(ParameterError):
        model.rank_intervals(level=1.5)
    with pytest.raises(ParameterError):
        model.rank_intervals(n_samples=0)


@pytest.mark.slow
def test_laplace_std_agrees_with_a_parametric_bootstrap_on_a_simulated_league():
    rng = np.random.default_rng(11)
    n, m = 40, 4000
    v = rng.normal(size=n)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    p = 1.0 / (1.0 + np.exp(v[i] - v[j]))
    fits = []
    for _ in range(300):
        y = (rng.random(m) < p).astype(int)
        fits.append(BTL(alpha=0.01).fit(Comparisons(i, j, y, items=range(n))).scores_.to_numpy())
    bootstrap = np.std(fits, axis=0)
    y = (rng.random(m) < p).astype(int)
    laplace = BTL(alpha=0.01).fit(Comparisons(i, j, y, items=range(n))).scores_std_.to_numpy()
    np.testing.assert_allclose(laplace, bootstrap, rtol=0.2)
    assert abs(np.mean(laplace / bootstrap) - 1) < 0.08


def test_rankings_posterior_for_pairs_equals_btl():
    _, c = league(8, n=6, m=200)
    table = c.to_dataframe()
    winners = np.where(table["y"] == 1, table["j"], table["i"])
    losers = np.where(table["y"] == 1, table["i"], table["j"])
    pl = PlackettLuce().fit(Rankings(np.column_stack([winners, losers]).astype(int)))
    np.testing.assert_allclose(pl.scores_std_, BTL().fit(c).scores_std_, rtol=1e-7)
