"""SiameseRanker (seed 000, §3.5.3): its gradient, a non-linear score, determinism and errors."""

from __future__ import annotations

import numpy as np
import pytest

from paucity._errors import InputError, NotFittedError, ParameterError, PaucityWarning
from paucity.datasets import btl_comparisons
from paucity.ranking import Comparisons, RankSVM, SiameseRanker
from paucity.ranking.metrics import kendall_tau_b
from paucity.ranking.siamese import _n_parameters, _objective, _shapes


def test_analytic_gradient_matches_central_differences():
    rng = np.random.default_rng(3)
    n_items, n_features, m = 12, 3, 40
    X = rng.normal(size=(n_items, n_features))
    i = rng.integers(n_items, size=m)
    j = (i + rng.integers(1, n_items, size=m)) % n_items
    signs = rng.choice([-1.0, 1.0], size=m)
    weights = rng.random(m)
    for hidden in [(5,), (4, 3)]:
        shapes = _shapes(n_features, hidden)
        theta = rng.normal(scale=0.7, size=_n_parameters(shapes))
        args = (shapes, X, i, j, signs, weights, 0.3)
        _, gradient = _objective(theta, *args)
        numeric = np.empty_like(theta)
        step = 1e-6
        for k in range(len(theta)):
            e = np.zeros_like(theta)
            e[k] = step
            numeric[k] = (_objective(theta + e, *args)[0] - _objective(theta - e, *args)[0]) / (2 * step)
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-8)


def test_objective_is_the_btl_likelihood_of_the_score_differences():
    # a tower without hidden layers is f(x) = w x: the loss is BTL's on log-weights w x
    X = np.array([[0.0], [1.0], [2.0]])
    i, j = np.array([0, 1]), np.array([1, 2])
    signs, weights = np.array([1.0, -1.0]), np.array([0.5, 0.5])
    value, _ = _objective(np.array([0.8]), _shapes(1, ()), X, i, j, signs, weights, 0.0)
    expected = -0.5 * (np.log(1 / (1 + np.exp(-0.8))) + np.log(1 / (1 + np.exp(0.8))))
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.fixture(scope="module")
def sine():
    # true log-strength v = sin(3x) on 1-d features: not monotone in x, so no
    # linear scoring function can order the items
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(-1.5, 1.5, size=60))
    v = 2.0 * np.sin(3.0 * x)
    train = btl_comparisons(v, 3000, random_state=12).with_features(x[:, None])
    return x, v, train


def test_siamese_beats_linear_ranksvm_on_a_nonlinear_score(sine):
    _, v, train = sine
    siamese = SiameseRanker(random_state=0).fit(train)
    linear = RankSVM(random_state=0).fit(train)
    tau_siamese = kendall_tau_b(siamese.scores_.to_numpy(), v)
    tau_linear = kendall_tau_b(linear.scores_.to_numpy(), v)
    assert tau_siamese > 0.8
    assert tau_siamese > tau_linear + 0.4


def test_scores_are_on_btls_log_scale(sine):
    _, v, train = sine
    model = SiameseRanker(random_state=0).fit(train)
    assert abs(model.log_scores_.mean()) < 1e-12
    np.testing.assert_allclose(model.log_scores_, model.scores_ - model.scores_.mean(), atol=1e-12)
    # the fitted log-strengths follow the true ones (range 4) to within a fraction of it
    assert np.corrcoef(model.log_scores_.to_numpy(), v)[0, 1] > 0.9
    f = model.scores_.to_numpy()
    assert model.predict_proba(0, 1) == pytest.approx(1 / (1 + np.exp(-(f[1] - f[0]))))
    np.testing.assert_allclose(model.score_features(train.features), f, atol=1e-12)


def test_same_random_state_same_result(sine):
    _, _, train = sine
    a = SiameseRanker(hidden=(8,), random_state=5).fit(train)
    b = SiameseRanker(hidden=(8,), random_state=5).fit(train)
    np.testing.assert_array_equal(a.scores_.to_numpy(), b.scores_.to_numpy())
    c = SiameseRanker(hidden=(8,), random_state=6).fit(train)
    assert not np.array_equal(a.scores_.to_numpy(), c.scores_.to_numpy())


def test_needs_features():
    c = Comparisons([0, 1], [1, 2], [1, 1])
    with pytest.raises(InputError, match="needs item features"):
        SiameseRanker().fit(c)
    with pytest.raises(InputError, match="needs item features"):
        SiameseRanker().fit([[0, 1], [1, 2]], [1, 0])


@pytest.mark.parametrize(
    "params",
    [{"hidden": (0,)}, {"hidden": 3}, {"alpha": -1.0}, {"max_iter": 0}, {"random_state": -1}, {"progress": "yes"}],
)
def test_bad_parameters(params):
    c = Comparisons([0, 1], [1, 2], [1, 1], features=[[0.0], [1.0], [2.0]])
    with pytest.raises(ParameterError):
        SiameseRanker(**params).fit(c)


def test_not_fitted():
    with pytest.raises(NotFittedError):
        SiameseRanker().predict_proba(0, 1)
    with pytest.raises(NotFittedError):
        SiameseRanker().score_features([[0.0]])


def test_max_iter_warns_when_it_stops_the_solver(sine):
    from paucity._errors import PaucityWarning

    _, _, train = sine
    with pytest.warns(PaucityWarning, match="max_iter"):
        SiameseRanker(max_iter=2, random_state=0).fit(train)


def test_a_penalty_that_shrinks_the_network_to_a_constant_warns(sine):
    with pytest.warns(PaucityWarning, match="shrank the network to a constant"):
        SiameseRanker(alpha=1e3, random_state=0).fit(sine[2])


def test_a_fitted_network_does_not_warn(sine):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", PaucityWarning)
        SiameseRanker(random_state=0).fit(sine[2])
