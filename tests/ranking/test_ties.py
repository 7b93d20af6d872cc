"""BTL with draws (Davidson, Rao–Kupper): hand-derived two-item fits, a direct minimization, the Laplace posterior."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from paucity._errors import InputError, ParameterError
from paucity.ranking import BTL, Comparisons


def probabilities(model, v_i, v_j, tie):
    """P(i wins), P(j wins), P(draw) as the models are written (weights π = e^v)."""
    pi, pj = np.exp(v_i), np.exp(v_j)
    if model == "davidson":
        total = pi + pj + tie * np.sqrt(pi * pj)
        return pi / total, pj / total, tie * np.sqrt(pi * pj) / total
    win_i, win_j = pi / (pi + tie * pj), pj / (pj + tie * pi)
    return win_i, win_j, 1.0 - win_i - win_j


def negative_log_likelihood(model, params, i, j, y, alpha):
    v, tie = params[:-1], np.exp(params[-1])
    if model == "rao-kupper":
        tie = 1.0 + tie  # θ > 1
    p_i, p_j, p_draw = probabilities(model, v[i], v[j], tie)
    chosen = np.where(y == 0.5, p_draw, np.where(y == 1, p_j, p_i))
    return -np.sum(np.log(chosen)) + 0.5 * alpha * v @ v


def reference_fit(model, i, j, y, n, alpha):
    objective = lambda p: negative_log_likelihood(model, p, i, j, y, alpha)  # noqa: E731
    result = minimize(objective, np.zeros(n + 1), method="BFGS", options={"gtol": 1e-10, "maxiter": 20_000})
    v, tie = result.x[:-1], np.exp(result.x[-1])
    return v - v.mean(), (1.0 + tie if model == "rao-kupper" else tie)


def league(seed, n=6, m=300):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    p_i, p_j, _ = probabilities("davidson", v[i], v[j], 0.8)
    u = rng.random(m)
    y = np.where(u < p_i, 0.0, np.where(u < p_i + p_j, 1.0, 0.5))
    return i, j, y


def test_two_items_match_the_observed_frequencies():
    # item 0 won 2, lost 1 and drew 1 against item 1: both models have two parameters for two free frequencies
    X, y = [[0, 1]] * 4, [0, 0, 1, 0.5]
    davidson = BTL(ties="davidson").fit(X, y)
    # Davidson: e^{δ/2} : e^{−δ/2} : ν = 2 : 1 : 1, so δ = log 2 and ν = 1/√2
    assert davidson.scores_[0] - davidson.scores_[1] == pytest.approx(np.log(2), abs=1e-9)
    assert davidson.tie_parameter_ == pytest.approx(1 / np.sqrt(2), abs=1e-9)
    rao_kupper = BTL(ties="rao-kupper").fit(X, y)
    # Rao–Kupper: σ(δ − c) = 1/2 and σ(−δ − c) = 1/4, so δ = log(3)/2 and θ = e^c = √3
    assert rao_kupper.scores_[0] - rao_kupper.scores_[1] == pytest.approx(np.log(3) / 2, abs=1e-9)
    assert rao_kupper.tie_parameter_ == pytest.approx(np.sqrt(3), abs=1e-9)
    # predict_proba: the probability that the second item wins outright
    assert davidson.predict_proba(0, 1) == pytest.approx(0.25, abs=1e-9)
    assert rao_kupper.predict_proba(0, 1) == pytest.approx(0.25, abs=1e-9)


@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_newton_matches_a_direct_minimization_of_the_written_out_likelihood(model, alpha):
    i, j, y = league(1)
    fitted = BTL(ties=model, alpha=alpha).fit(np.column_stack([i, j]), y)
    v, tie = reference_fit(model, i, j, y, 6, alpha)
    np.testing.assert_allclose(fitted.scores_.to_numpy(), v, atol=1e-6)
    assert fitted.tie_parameter_ == pytest.approx(tie, rel=1e-6)
    params = np.r_[fitted.scores_.to_numpy(), np.log(tie - 1 if model == "rao-kupper" else tie)]
    assert fitted.log_likelihood_ == pytest.approx(
        -negative_log_likelihood(model, params, i, j, y, 0.0), rel=1e-9
    )


@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
def test_scores_std_integrates_out_the_tie_parameter(model):
    i, j, y = league(2, n=5, m=250)
    alpha = 0.3
    fitted = BTL(ties=model, alpha=alpha).fit(np.column_stack([i, j]), y)
    # the full Hessian in (v, log tie-parameter-as-fitted) by central differences of the written-out loss
    c = np.log(fitted.tie_parameter_)
    point = np.r_[fitted.scores_.to_numpy(), c]

    def loss(p):
        v, log_tie = p[:-1], p[-1]
        tie = np.exp(log_tie)
        p_i, p_j, p_draw = probabilities(model, v[i], v[j], tie)
        chosen = np.where(y == 0.5, p_draw, np.where(y == 1, p_j, p_i))
        return -np.sum(np.log(chosen)) + 0.5 * alpha * v @ v

    h = 1e-4
    k = len(point)
    hessian = np.empty((k, k))
    for a in range(k):
        for b in range(k):
            ea, eb = np.eye(k)[a] * h, np.eye(k)[b] * h
            hessian[a, b] = (loss(point + ea + eb) - loss(point + ea - eb) - loss(point - ea + eb)
                             + loss(point - ea - eb)) / (4 * h * h)
    covariance = np.linalg.inv(hessian)[:-1, :-1]
    projector = np.eye(5) - 1 / 5
    expected = np.sqrt(np.diag(projector @ covariance @ projector))
    np.testing.assert_allclose(fitted.scores_std_.to_numpy(), expected, rtol=1e-4)
    assert fitted.covariance([0, 1]).to_numpy()[0, 1] == pytest.approx(
        (projector @ covariance @ projector)[0, 1], rel=1e-3, abs=1e-6
    )
    draws = fitted._posterior().sample(4000, np.random.default_rng(0))
    np.testing.assert_allclose(draws.std(axis=0), expected, rtol=0.05)


def test_errors_and_defaults():
    X = [["a", "b"], ["b", "c"], ["c", "a"]]
    with pytest.raises(InputError, match=r"^BTL with ties=None cannot use draws \(y = 0.5; comparison 1 is one\): fit BTL\(ties='davidson'\)"):
        BTL().fit(X, [0, 0.5, 1])
    with pytest.raises(InputError, match=r"0, 0.5 \(a draw\) or 1; comparison 1 has y = 0.3"):
        BTL(ties="davidson").fit(X, [0, 0.3, 1])
    with pytest.raises(InputError, match="at least one draw"):
        BTL(ties="davidson").fit(X, [0, 1, 1])
    with pytest.raises(InputError, match="at least one decisive"):
        BTL(ties="rao-kupper").fit(X, [0.5, 0.5, 0.5])
    with pytest.raises(ParameterError, match="ties"):
        BTL(ties="draws").fit(X, [0, 0.5, 1])
    # "a" never lost outright: the likelihood rises without bound, and only a penalty gives an estimate
    never_lost = ([["a", "b"], ["b", "c"], ["c", "a"], ["a", "b"], ["b", "c"], ["a", "c"]], [0, 0.5, 1, 0.5, 0, 0])
    with pytest.raises(InputError, match="does not exist"):
        BTL(ties="davidson").fit(*never_lost)
    assert BTL(ties="davidson", alpha=0.1).fit(*never_lost).ranking_[0] == "a"
    two_groups = ([["a", "b"], ["a", "b"], ["b", "a"], ["c", "d"], ["c", "d"], ["d", "c"]], [0, 0.5, 0, 0, 0.5, 0])
    with pytest.raises(InputError, match="2 strongly connected components"):
        BTL(ties="rao-kupper").fit(*two_groups)


def test_a_comparisons_object_with_a_tie_model_needs_draws():
    c = Comparisons.from_winners([0, 1, 2], [1, 2, 0])
    with pytest.raises(InputError, match="at least one draw"):
        BTL(ties="davidson").fit(c)
