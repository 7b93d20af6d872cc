"""BTL maximum likelihood (seed 000, eq. 3.2) against a direct minimization of the written-out likelihood."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from sklearn.base import clone

from paucity._errors import InputError, ParameterError, PaucityWarning
from paucity.datasets import btl_comparisons, btl_scores
from paucity.ranking import BTL, Comparisons, RankCentrality
from paucity.ranking.btl import btl_maximum_likelihood


# -- the reference: eq. (3.2) term by term, minimized by scipy ------------------------------------------
def negative_log_likelihood(v, i, j, y, weights):
    """−Σₖ wₖ log expit(y′ₖ (v_{jₖ} − v_{iₖ})) with y′ = 2y − 1, and its gradient."""
    sign = 2.0 * np.asarray(y) - 1.0
    margin = sign * (v[j] - v[i])
    value = np.sum(weights * np.logaddexp(0.0, -margin))
    # d/d margin of log(1 + e^{-margin}) is −expit(−margin)
    d_margin = -weights * np.exp(-np.logaddexp(0.0, margin))
    gradient = np.zeros_like(v)
    np.add.at(gradient, j, d_margin * sign)
    np.add.at(gradient, i, -d_margin * sign)
    return value, gradient


def reference_fit(c: Comparisons, alpha: float) -> np.ndarray:
    i, j, y, w = np.asarray(c.i), np.asarray(c.j), np.asarray(c.y), c.observation_weights
    n = c.n_items

    def objective(free):
        # with alpha = 0 the likelihood is flat along 1: fix v_0 = 0 (the answer is centred afterwards)
        v = np.concatenate([[0.0], free]) if alpha == 0 else free
        value, gradient = negative_log_likelihood(v, i, j, y, w)
        value += 0.5 * alpha * v @ v
        gradient = gradient + alpha * v
        return value, (gradient[1:] if alpha == 0 else gradient)

    start = np.zeros(n - 1 if alpha == 0 else n)
    result = minimize(objective, start, jac=True, method="BFGS", options={"gtol": 1e-11, "maxiter": 10_000})
    v = np.concatenate([[0.0], result.x]) if alpha == 0 else result.x
    return v - v.mean()


def small_problem(seed: int, n: int = 6, m: int = 40, weighted: bool = False) -> Comparisons:
    rng = np.random.default_rng(seed)
    v = rng.normal(scale=1.0, size=n)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    y = (rng.random(m) < 1.0 / (1.0 + np.exp(v[i] - v[j]))).astype(int)
    # a ring of wins each way makes the comparison graph strongly connected, so the MLE exists
    ring = np.arange(n)
    i = np.concatenate([i, ring, ring])
    j = np.concatenate([j, (ring + 1) % n, (ring + 1) % n])
    y = np.concatenate([y, np.ones(n, int), np.zeros(n, int)])
    weights = rng.choice([0.5, 1.0, 2.0, 3.0], size=len(i)) if weighted else None
    labels = np.array([f"item{k}" for k in range(n)], dtype=object)
    return Comparisons(labels[i], labels[j], y, weights=weights, items=labels)


@pytest.mark.parametrize("alpha", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_btl_matches_direct_minimization(alpha, seed):
    c = small_problem(seed, n=4 + seed, m=10 + 15 * seed, weighted=seed % 2 == 1)
    model = BTL(alpha=alpha).fit(c)
    expected = reference_fit(c, alpha)
    np.testing.assert_allclose(model.scores_.to_numpy(), expected, atol=1e-6)
    assert model.converged_
    assert model.scores_.mean() == pytest.approx(0.0, abs=1e-12)  # centred
    value, _ = negative_log_likelihood(model.scores_.to_numpy(), c.i, c.j, c.y, c.observation_weights)
    assert model.log_likelihood_ == pytest.approx(-value, rel=1e-12)


def test_btl_penalty_shrinks_and_keeps_the_order():
    c = small_problem(7, n=6, m=60)
    spread = [np.ptp(BTL(alpha=alpha).fit(c).scores_.to_numpy()) for alpha in (0.0, 0.1, 1.0, 10.0)]
    assert spread == sorted(spread, reverse=True)
    assert list(BTL(alpha=0.0).fit(c).ranking_) == list(BTL(alpha=0.1).fit(c).ranking_)


def test_penalized_btl_needs_no_connected_graph():
    # item "d" was never compared, "a" never lost: no MLE, but the penalized estimate exists
    c = Comparisons.from_winners(["a", "a", "b"], ["b", "c", "c"], items=["a", "b", "c", "d"])
    model = BTL(alpha=0.5).fit(c)
    expected = reference_fit(c, 0.5)
    np.testing.assert_allclose(model.scores_.to_numpy(), expected, atol=1e-6)
    assert list(model.ranking_[:1]) == ["a"]


def test_missing_mle_names_alpha_and_the_item_that_never_lost():
    c = Comparisons.from_winners(["a", "a", "b", "c"], ["b", "c", "c", "b"])  # a never lost
    with pytest.raises(InputError, match=r"does not exist.*\(item 'a' never lost\).*BTL\(alpha=\.\.\.\) with alpha > 0"):
        BTL().fit(c)
    never_won = Comparisons.from_winners(["a", "b", "c", "a"], ["b", "c", "a", "d"])  # d never won
    with pytest.raises(InputError, match="item 'd' never won"):
        BTL().fit(never_won)
    uncompared = Comparisons(["a", "b"], ["b", "a"], [1, 1], items=["a", "b", "z"])
    with pytest.raises(InputError, match="item 'z' was never compared"):
        BTL().fit(uncompared)
    # two groups, each strongly connected, with wins only one way between them
    groups = Comparisons.from_winners(["a", "b", "c", "d", "a"], ["b", "a", "d", "c", "c"])
    with pytest.raises(InputError, match="2 strongly connected components .*a group of items never lost to the rest"):
        BTL().fit(groups)
    assert np.isfinite(BTL(alpha=0.1).fit(groups).scores_).all()


def test_weight_two_is_a_duplicated_comparison():
    c = small_problem(11, n=5, m=20)
    weights = np.ones(c.n_comparisons)
    weights[[0, 3, 7]] = 2.0
    weighted = Comparisons(c.i, c.j, c.y, weights=weights)
    duplicate = np.concatenate([np.arange(c.n_comparisons), [0, 3, 7]])
    repeated = Comparisons(np.asarray(c.i)[duplicate], np.asarray(c.j)[duplicate], np.asarray(c.y)[duplicate])
    for alpha in (0.0, 0.3):
        a = BTL(alpha=alpha).fit(weighted)
        b = BTL(alpha=alpha).fit(repeated)
        np.testing.assert_allclose(a.scores_.to_numpy(), b.scores_.to_numpy(), atol=1e-9)
        assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-10)
    # and as sample_weight of fit(X, y)
    X = np.column_stack([np.asarray(c.i), np.asarray(c.j)])
    np.testing.assert_allclose(
        BTL().fit(X, c.y, sample_weight=weights).scores_.to_numpy(), BTL().fit(weighted).scores_.to_numpy()
    )


def test_zero_weight_comparisons_are_ignored():
    c = small_problem(12, n=4, m=15)
    weights = np.ones(c.n_comparisons)
    weights[0] = 0.0
    with_zero = BTL().fit(Comparisons(c.i, c.j, c.y, weights=weights))
    without = BTL().fit(c.subset(np.arange(1, c.n_comparisons)))
    np.testing.assert_allclose(with_zero.scores_.to_numpy(), without.scores_.to_numpy(), atol=1e-9)


def test_a_pair_won_once_each_way():
    c = Comparisons.from_winners([0, 1], [1, 0])
    np.testing.assert_allclose(BTL().fit(c).scores_.to_numpy(), [0.0, 0.0], atol=1e-12)
    c = Comparisons.from_winners([0, 0, 1], [1, 1, 0])  # 0 beat 1 twice, lost once
    v = BTL().fit(c).scores_.to_numpy()
    np.testing.assert_allclose(v, [np.log(2) / 2, -np.log(2) / 2], atol=1e-9)


def test_predict_proba_is_the_logistic_of_the_score_difference():
    c = small_problem(5, n=5, m=30)
    model = BTL(alpha=0.1).fit(c)
    v = model.scores_
    p = model.predict_proba("item0", "item3")
    assert isinstance(p, float)
    assert p == pytest.approx(1.0 / (1.0 + np.exp(v["item0"] - v["item3"])))
    i, j = ["item1", "item2", "item4"], ["item0", "item4", "item2"]
    expected = [1.0 / (1.0 + np.exp(v[a] - v[b])) for a, b in zip(i, j)]
    np.testing.assert_allclose(model.predict_proba(i, j), expected)
    np.testing.assert_allclose(model.predict_proba(i, j) + model.predict_proba(j, i), 1.0)
    assert model.predict([["item1", "item0"]]).tolist() == [int(v["item0"] > v["item1"])]


def test_scores_ranking_and_attributes():
    c = Comparisons.from_winners(["b", "c", "c", "a", "b"], ["a", "b", "a", "b", "c"])
    model = BTL().fit(c)
    assert list(model.scores_.index) == ["a", "b", "c"]
    np.testing.assert_allclose(model.scores_.to_numpy(), [-0.528, 0.0, 0.528], atol=5e-4)
    assert list(model.ranking_) == ["c", "b", "a"]
    assert model.n_items_ == 3
    assert model.n_iter_ >= 1


def test_convergence_flags():
    c = small_problem(9, n=8, m=80)
    with pytest.warns(PaucityWarning, match=r"BTL stopped after 1 Newton steps with gradient .* above tol=1e-09"):
        stopped = BTL(max_iter=1).fit(c)
    assert stopped.converged_ is False and stopped.n_iter_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        full = BTL().fit(c)
    assert full.converged_ is True and 1 <= full.n_iter_ < 100
    assert full.log_likelihood_ > stopped.log_likelihood_
    result = btl_maximum_likelihood(c.pairs, alpha=0.0, tol=1e-10)
    assert result.converged and result.gradient_norm <= 1e-10
    assert result.n_products >= result.n_iter >= 1
    # the reported gradient is the one at the returned scores
    v = result.log_weights
    _, gradient = negative_log_likelihood(v, c.i, c.j, c.y, c.observation_weights)
    assert np.abs(gradient).max() <= 1e-10
    one = btl_maximum_likelihood(c.pairs, max_iter=1)
    _, gradient = negative_log_likelihood(one.log_weights, c.i, c.j, c.y, c.observation_weights)
    assert one.gradient_norm == pytest.approx(np.abs(gradient).max(), rel=1e-8)


def test_already_optimal_start_takes_no_step():
    c = Comparisons.from_winners(["a", "b"], ["b", "a"])
    model = BTL().fit(c)
    assert model.converged_ and model.n_iter_ == 0


@pytest.mark.parametrize(
    "params, match",
    [
        ({"alpha": -1.0}, "BTL: alpha must be a number >= 0, got -1.0"),
        ({"alpha": np.inf}, "alpha must be a number >= 0, got inf"),
        ({"alpha": "1"}, "alpha must be a number >= 0, got '1'"),
        ({"alpha": True}, "alpha must be a number >= 0, got True"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1, got 0"),
        ({"max_iter": 2.5}, "max_iter must be an integer >= 1, got 2.5"),
        ({"tol": -1e-3}, "tol must be a number > 0, got -0.001"),
    ],
)
def test_parameter_errors(params, match):
    c = Comparisons.from_winners(["a", "b"], ["b", "a"])
    with pytest.raises(ParameterError, match=match):
        BTL(**params).fit(c)


def test_consistency_and_agreement_with_rank_centrality():
    v = btl_scores(10, low=0.0, high=2.0, random_state=3)
    c = btl_comparisons(v, 40_000, random_state=4)
    estimate = BTL().fit(c).scores_.to_numpy()
    np.testing.assert_allclose(estimate, v - v.mean(), atol=0.06)
    # with this much data RankCentrality's log π estimates the same log-weights
    log_pi = np.log(RankCentrality().fit(c).scores_.to_numpy())
    np.testing.assert_allclose(log_pi - log_pi.mean(), estimate, atol=0.06)


def test_fit_on_pairs_equals_fit_on_comparisons_and_clone():
    c = small_problem(13, n=4, m=20)
    X = pd.DataFrame({"first": c.items[c.i], "second": c.items[c.j]})
    pd.testing.assert_series_equal(BTL().fit(X, c.y).scores_, BTL().fit(c).scores_)
    model = BTL(alpha=0.5, tol=1e-8, max_iter=50)
    assert model.get_params() == {"alpha": 0.5, "tol": 1e-8, "max_iter": 50, "ties": None, "home_advantage": False}
    copy = clone(model)
    assert copy.get_params() == model.get_params() and not hasattr(copy, "scores_")
