"""RankSVM (seed 000, §3.5.3) on hand-made comparisons and the synthetic feature experiments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, NotFittedError, ParameterError
from paucity.datasets import feature_experiment
from paucity.ranking import Comparisons
from paucity.ranking.metrics import held_out_error, kendall_tau_b
from paucity.ranking.svm import RankSVM


@pytest.fixture(scope="module")
def experiment3():
    # weights spread by a factor of about 2.9 from the lowest to the highest item
    return feature_experiment(3, random_state=1)


def test_linear_ranksvm_on_experiment_3(experiment3):
    train = experiment3.comparisons(3000, random_state=1)
    model = RankSVM(random_state=0).fit(train)
    assert model.coef_.shape == (10,)
    assert model.feature_map_ is None
    assert kendall_tau_b(model.scores_, experiment3.log_weights) > 0.8
    np.testing.assert_allclose(model.scores_.to_numpy(), experiment3.features @ model.coef_)
    assert list(model.ranking_[:3]) == list(np.argsort(-model.scores_.to_numpy(), kind="stable")[:3])


def test_linear_ranksvm_approaches_the_best_linear_order():
    # experiment 3's weights are close to each other (BTL outcomes near coin
    # flips), so many comparisons are needed; the best any linear function can
    # do is the order of the least-squares linear fit of the log-weights
    experiment = feature_experiment(3, random_state=0)
    design = np.column_stack([experiment.features, np.ones(experiment.n_items)])
    best = design @ np.linalg.lstsq(design, experiment.log_weights, rcond=None)[0]
    ceiling = kendall_tau_b(best, experiment.log_weights)
    few = RankSVM(random_state=0).fit(experiment.comparisons(3000, random_state=2))
    many = RankSVM(random_state=0).fit(experiment.comparisons(50_000, random_state=2))
    tau_few = kendall_tau_b(few.scores_, experiment.log_weights)
    tau_many = kendall_tau_b(many.scores_, experiment.log_weights)
    assert tau_few < tau_many <= ceiling + 1e-9
    assert tau_many > ceiling - 0.05


def test_rbf_ranksvm_learns_the_cosine_of_experiment_1():
    experiment = feature_experiment(1, random_state=1)  # about 2.4 periods of the cosine on [0, 4]
    train = experiment.comparisons(3000, random_state=5)
    rbf = RankSVM(kernel="rbf", n_components=300, random_state=0).fit(train)
    assert rbf.coef_.shape == (300,)
    tau = kendall_tau_b(rbf.scores_, experiment.log_weights)
    linear = kendall_tau_b(RankSVM().fit(train).scores_, experiment.log_weights)
    assert tau > 0.85
    assert tau > linear + 0.2  # the weights are not monotone in x here
    np.testing.assert_allclose(rbf.score_features(experiment.features), rbf.scores_.to_numpy())


def test_random_negation_leaves_the_problem_unchanged(experiment3):
    train = experiment3.comparisons(1000, random_state=6)
    first = RankSVM(random_state=0).fit(train).coef_
    second = RankSVM(random_state=123).fit(train).coef_
    np.testing.assert_allclose(first, second, rtol=1e-3, atol=1e-4)


def test_weights_act_as_repeats():
    features = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [0.5, 0.5]])
    i, j, y = [0, 1, 2, 3, 0], [1, 2, 3, 0, 2], [1, 1, 0, 0, 1]
    weighted = Comparisons(i, j, y, weights=[2.0, 1.0, 1.0, 1.0, 0.0], features=features)
    repeated = Comparisons(i[:4] + [0], j[:4] + [1], y[:4] + [1], features=features)
    a = RankSVM(random_state=0).fit(weighted).coef_
    b = RankSVM(random_state=1).fit(repeated).coef_
    np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)


def test_a_single_comparison_is_handled():
    c = Comparisons(["low"], ["high"], [1], features=pd.DataFrame({"f": [0.0, 1.0]}, index=["low", "high"]))
    model = RankSVM(random_state=0).fit(c)
    assert model.coef_[0] > 0
    assert list(model.ranking_) == ["high", "low"]


def test_one_sided_outcomes_give_the_right_direction():
    # the item with the larger feature always wins: w must be positive
    x = np.arange(6.0)[:, None]
    i = np.array([0, 1, 2, 3, 4, 0])
    j = np.array([1, 2, 3, 4, 5, 5])
    model = RankSVM(random_state=0).fit(Comparisons(i, j, np.ones(6, dtype=int), features=x))
    assert model.coef_[0] > 0
    assert list(model.ranking_) == [5, 4, 3, 2, 1, 0]


def test_identical_features_give_equal_scores():
    c = Comparisons([0, 1], [1, 2], [1, 0], features=np.ones((3, 2)))
    model = RankSVM(random_state=0).fit(c)
    np.testing.assert_array_equal(model.scores_.to_numpy(), 0.0)


def test_features_are_required():
    c = Comparisons(["a", "b"], ["b", "c"], [1, 0])
    with pytest.raises(InputError, match="features"):
        RankSVM().fit(c)
    with pytest.raises(InputError, match="features"):
        RankSVM().fit(np.array([["a", "b"], ["b", "c"]]), [1, 0])


@pytest.mark.parametrize(
    "params, words",
    [({"kernel": "poly"}, "kernel"), ({"alpha": 0.0}, "alpha must be a number > 0"), ({"C": 0.0}, "C"),
     ({"kernel": "rbf", "gamma": -1.0}, "gamma"), ({"kernel": "rbf", "n_components": 0}, "n_components"),
     ({"random_state": -1}, "random_state must be a non-negative integer seed"),
     ({"C": 2.0, "alpha": 3.0}, "give alpha only")],
)
def test_bad_parameters(params, words):
    c = Comparisons([0], [1], [1], features=np.array([[0.0], [1.0]]))
    with pytest.raises(ParameterError, match=words):
        RankSVM(**params).fit(c)


def test_ranker_contract(experiment3):
    train = experiment3.comparisons(2000, random_state=7)
    held = experiment3.comparisons(1000, random_state=8)
    model = RankSVM(alpha=2.0, random_state=0)
    assert model.get_params()["alpha"] == 2.0
    with pytest.raises(NotFittedError):
        model.predict([[0, 1]])
    model.fit(train)
    assert model.score(held) == pytest.approx(1 - held_out_error(model.scores_, held))
    pairs = np.column_stack([held.i[:20], held.j[:20]])
    s = model.scores_.to_numpy()
    np.testing.assert_array_equal(model.predict(pairs), (s[held.j[:20]] > s[held.i[:20]]).astype(np.int8))
    f = model.scores_
    assert model.predict_proba(0, 1) == pytest.approx(1 / (1 + np.exp(-model.scale_ * (f[1] - f[0]))))
    with pytest.raises(InputError, match="10 features"):
        model.score_features(np.ones((2, 3)))
