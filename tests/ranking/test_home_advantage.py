"""BTL with a home advantage: a hand-derived two-item fit, a direct minimization, the Laplace posterior."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, logit

from paucity._errors import InputError, ParameterError
from paucity.ranking import BTL, Comparisons


def negative_log_likelihood(params, home, away, y, alpha):
    """y = 1 when the away item won; P(home wins) = σ(v_home − v_away + h)."""
    v, h = params[:-1], params[-1]
    p_home = expit(v[home] - v[away] + h)
    return -np.sum(np.where(y == 1, np.log1p(-p_home), np.log(p_home))) + 0.5 * alpha * v @ v


def league(seed, n=6, m=400, h=0.6):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n)
    home = rng.integers(0, n, m)
    away = (home + rng.integers(1, n, m)) % n
    y = (rng.random(m) >= expit(v[home] - v[away] + h)).astype(int)
    return home, away, y


def test_two_items_each_hosting_by_hand():
    # 0 at home beat 1 three times in four; 1 at home beat 0 once in two:
    # σ(δ + h) = 3/4 and σ(−δ + h) = 1/2, so δ = logit(3/4)/2 and h = logit(3/4)/2
    home, away = [0, 0, 0, 0, 1, 1], [1, 1, 1, 1, 0, 0]
    y = [0, 0, 0, 1, 0, 1]
    model = BTL(home_advantage=True).fit(np.column_stack([home, away]), y)
    assert model.scores_[0] - model.scores_[1] == pytest.approx(logit(0.75) / 2, abs=1e-9)
    assert model.home_advantage_ == pytest.approx(logit(0.75) / 2, abs=1e-9)
    # the probability that the away item (second) wins: 1 − σ(δ + h) = 1/4
    assert model.predict_proba(0, 1) == pytest.approx(0.25, abs=1e-9)


@pytest.mark.parametrize("alpha", [0.0, 0.4])
def test_newton_matches_a_direct_minimization(alpha):
    home, away, y = league(1)
    model = BTL(home_advantage=True, alpha=alpha).fit(Comparisons(home, away, y))
    result = minimize(negative_log_likelihood, np.zeros(7), args=(home, away, y, alpha), method="BFGS",
                      options={"gtol": 1e-10})
    v = result.x[:-1] - result.x[:-1].mean()
    np.testing.assert_allclose(model.scores_.to_numpy(), v, atol=1e-6)
    assert model.home_advantage_ == pytest.approx(result.x[-1], abs=1e-6)
    assert model.log_likelihood_ == pytest.approx(-result.fun + 0.5 * alpha * result.x[:-1] @ result.x[:-1], rel=1e-7)


def test_scores_std_integrates_out_the_home_advantage():
    home, away, y = league(2, n=5, m=300)
    model = BTL(home_advantage=True, alpha=0.2).fit(np.column_stack([home, away]), y)
    v, h = model.scores_.to_numpy(), model.home_advantage_
    # the Hessian of the written-out loss: Σ c (x xᵀ) with x = (e_home − e_away, 1), plus the penalty
    c = expit(v[home] - v[away] + h) * (1 - expit(v[home] - v[away] + h))
    rows = np.zeros((len(home), 6))
    rows[np.arange(len(home)), home] += 1
    rows[np.arange(len(home)), away] -= 1
    rows[:, 5] = 1
    hessian = rows.T @ (c[:, None] * rows) + np.diag([0.2] * 5 + [0.0])
    projector = np.eye(5) - 1 / 5
    expected = projector @ np.linalg.inv(hessian)[:5, :5] @ projector
    np.testing.assert_allclose(model.scores_std_.to_numpy(), np.sqrt(np.diag(expected)), rtol=1e-9)
    # h is integrated out, so the scores are less certain than with h known (the v-block's inverse alone)
    conditional = projector @ np.linalg.inv(hessian[:5, :5]) @ projector
    assert (np.diag(expected) >= np.diag(conditional) - 1e-12).all()


def test_errors():
    X = [["a", "b"], ["b", "c"], ["c", "a"], ["b", "a"]]
    with pytest.raises(ParameterError, match="not both"):
        BTL(ties="davidson", home_advantage=True).fit(X, [0, 1, 0.5, 0])
    with pytest.raises(ParameterError, match="home_advantage"):
        BTL(home_advantage="yes").fit(X, [0, 1, 0, 0])
    with pytest.raises(InputError, match="home side .* won every comparison"):
        BTL(home_advantage=True).fit([["a", "b"], ["b", "c"], ["c", "a"]], [0, 0, 0])
    assert BTL(home_advantage=True, alpha=1.0).fit([["a", "b"], ["b", "c"], ["c", "a"]], [0, 0, 0]).home_advantage_ > 0
