"""``log_scores_``: every ranker on BTL's centred log scale.

On comparisons drawn from BTL with log-weights v, the estimators that
estimate v (BTL, unregularized RankCentrality on any chain) recover v − mean(v)
when there are many comparisons; the counting estimators do so to first order
in the strength differences (low contrast), and RankSVM does so when v is a
linear function of the features. Whatever the data, ``log_scores_`` has mean
zero and orders the items as ``scores_`` does.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from paucity.datasets import btl_comparisons, btl_scores, feature_experiment
from paucity.ranking import BRE, BTL, URE, Comparisons, RankCentrality, RankSVM
from paucity.ranking.counting import counting_log_scores


@pytest.fixture(scope="module")
def many():
    v = btl_scores(10, low=0.0, high=2.0, random_state=3)
    return v - v.mean(), btl_comparisons(v, 40_000, random_state=4)


@pytest.mark.parametrize(
    "estimator",
    [BTL(), BTL(alpha=0.01), RankCentrality(), RankCentrality(transition="ra"), RankCentrality(transition="sampling")],
    ids=["btl", "btl-alpha", "rc-nos", "rc-ra", "rc-sampling"],
)
def test_log_scores_estimate_the_centred_log_weights(many, estimator):
    truth, comparisons = many
    log_scores = estimator.fit(comparisons).log_scores_
    assert log_scores.name == "log_score"
    assert log_scores.index.equals(estimator.scores_.index)
    np.testing.assert_allclose(log_scores.to_numpy(), truth, atol=0.06)


def test_rank_centrality_and_btl_agree_on_the_log_scale(many):
    _, comparisons = many
    btl = BTL().fit(comparisons).log_scores_
    centrality = RankCentrality().fit(comparisons)
    log_pi = np.log(centrality.scores_.to_numpy())
    np.testing.assert_allclose(centrality.log_scores_.to_numpy(), log_pi - log_pi.mean(), atol=1e-12)
    np.testing.assert_allclose(centrality.log_scores_.to_numpy(), btl.to_numpy(), atol=0.04)
    # BTL's scores are already on the log scale
    np.testing.assert_allclose(BTL().fit(comparisons).scores_.to_numpy(), btl.to_numpy(), atol=1e-12)


@pytest.mark.parametrize("estimator", [BRE(random_state=0), URE(random_state=0)], ids=["bre", "ure"])
def test_counting_log_scores_are_the_log_weights_at_low_contrast(estimator):
    # v spread over 0.5: tanh(x/2) ≈ x/2 and σ(x) ≈ 1/2 + x/4, so 4 (score − mean) ≈ v − mean(v)
    v = btl_scores(20, low=0.0, high=0.5, random_state=3)
    comparisons = btl_comparisons(v, 200_000, random_state=4)
    model = estimator.fit(comparisons)
    np.testing.assert_allclose(model.log_scores_.to_numpy(), v - v.mean(), atol=0.08)
    scores = model.scores_.to_numpy()
    np.testing.assert_allclose(model.log_scores_.to_numpy(), 4 * (scores - scores.mean()), atol=1e-15)


def test_counting_log_scores_compress_high_contrast():
    # documented limit: the counts saturate, so large log-weights are pulled in
    v = btl_scores(20, low=0.0, high=6.0, random_state=3)
    model = BRE(random_state=0).fit(btl_comparisons(v, 100_000, random_state=4))
    assert np.abs(model.log_scores_).max() <= 2.0
    assert np.ptp(model.log_scores_) < np.ptp(v)


def test_counting_log_scores_function():
    np.testing.assert_array_equal(counting_log_scores(np.array([0.0, -0.5, -0.25])), [1.0, -1.0, 0.0])


def test_rank_svm_log_scores_on_linear_log_weights():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(300, 3))
    v = features @ np.array([1.0, -0.5, 0.3])
    comparisons = btl_comparisons(v, 50_000, random_state=1).with_features(features)
    model = RankSVM(random_state=0).fit(comparisons)
    assert model.scale_ > 0
    np.testing.assert_allclose(model.log_scores_.to_numpy(), v - v.mean(), atol=0.1)
    f = model.scores_.to_numpy()
    np.testing.assert_allclose(model.log_scores_.to_numpy(), model.scale_ * (f - f.mean()), atol=1e-12)


def _all_rankers():
    return [
        RankCentrality(),
        RankCentrality(regularization="uniform"),
        RankCentrality(regularization="similarity", sigma=0.5),
        BTL(alpha=1.0),
        BRE(random_state=0),
        URE(random_state=0),
        RankSVM(random_state=0),
        RankSVM(kernel="rbf", n_components=50, random_state=0),
    ]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("estimator", _all_rankers(), ids=lambda e: repr(e))
def test_log_scores_have_mean_zero_and_keep_the_order(estimator, seed):
    experiment = feature_experiment(1, n_items=40, random_state=seed)
    comparisons = experiment.comparisons(300, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unregularized chain may not be ergodic
        model = estimator.fit(comparisons)
    log_scores = model.log_scores_.to_numpy()
    assert np.isfinite(log_scores).all()
    assert abs(log_scores.mean()) < 1e-12
    # a map that does not decrease: the order of log_scores_ never contradicts that of scores_
    scores = model.scores_.to_numpy()
    earlier, later = model.order_[:-1], model.order_[1:]
    assert (scores[earlier] >= scores[later]).all()
    assert (log_scores[earlier] >= log_scores[later] - 1e-12).all()


def test_uniform_output_has_zero_log_scores():
    c = Comparisons.from_winners(["a", "b"], ["b", "c"])  # not strongly connected
    with pytest.warns(Warning):
        model = RankCentrality().fit(c)
    pd.testing.assert_series_equal(model.log_scores_, pd.Series(0.0, index=model.items_, name="log_score"))


def test_a_zero_stationary_probability_is_minus_infinity():
    # a similarity that gives item 2 no weight at all: it keeps no mass, and log π = -inf
    similarity = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])
    c = Comparisons.from_winners([0, 1, 2], [1, 2, 0], similarity=similarity)
    model = RankCentrality(regularization="similarity").fit(c)
    log_scores = model.log_scores_.to_numpy()
    assert model.scores_.iloc[2] == 0.0 and log_scores[2] == -np.inf
    assert abs(log_scores[:2].mean()) < 1e-12
