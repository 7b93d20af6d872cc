"""paucity.ranking.rank: the one entry point, its RankResult, and what it refuses."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from paucity._errors import ParameterError
from paucity.datasets import btl_comparisons, btl_scores, feature_experiment
from paucity.ranking import BRE, BTL, Comparisons, RankCentrality, RankResult, RankSVM, rank
from paucity.ranking.dispatch import make_ranker


@pytest.fixture(scope="module")
def games():
    return btl_comparisons(btl_scores(30, random_state=0), 600, random_state=1)


def test_the_result_holds_the_fitted_estimator_and_its_table(games):
    result = rank(games, "btl", alpha=1.0)
    assert isinstance(result, RankResult)
    assert result.method == "btl" and result.params == {"alpha": 1.0}
    expected = BTL(alpha=1.0).fit(games)
    pd.testing.assert_series_equal(result.scores, expected.scores_)
    pd.testing.assert_series_equal(result.log_scores, expected.log_scores_)
    assert result.ranking.equals(expected.ranking_)
    table = result.to_frame()
    assert table.index.name == "item" and list(table.columns) == ["rank", "score", "log_score"]
    assert table["rank"].tolist() == list(range(1, 31))
    assert table.index.equals(expected.ranking_)
    np.testing.assert_array_equal(table["score"], expected.scores_.loc[expected.ranking_])
    with pytest.raises(AttributeError):
        result.method = "bre"  # frozen


def test_to_dict_is_plain_json(games):
    result = rank(games, "bre", random_state=np.int64(3))
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["method"] == "bre" and data["params"] == {"random_state": 3}
    assert data["item"] == result.ranking.tolist() and data["rank"][:3] == [1, 2, 3]
    assert len(data["score"]) == len(data["log_score"]) == 30
    assert "best first" in repr(result)


def test_the_old_dataframe_use_still_works_with_a_future_warning(games):
    result = rank(games, "rank_centrality", regularization="uniform")
    frame = result.to_frame()
    with pytest.warns(FutureWarning, match="to_frame"):
        np.testing.assert_array_equal(result["score"], frame["score"])
    with pytest.warns(FutureWarning):
        assert len(result) == 30
    with pytest.warns(FutureWarning):
        assert result.index.equals(frame.index)
    with pytest.warns(FutureWarning):
        assert result.attrs["estimator"] is result.estimator
    with pytest.raises(AttributeError):
        result.no_such_thing


def test_rank_centrality_regularization_follows_lam_and_features():
    experiment = feature_experiment(1, n_items=60, random_state=0)
    c = experiment.comparisons(200, random_state=1)
    bare = Comparisons(c.i, c.j, c.y, items=c.items)
    assert rank(bare, lam=0.05).params["regularization"] == "uniform"
    assert rank(bare, lam=0.05).estimator.lam_ == 0.05
    features = pd.DataFrame(experiment.features, index=c.items)
    result = rank(bare, features=features, sigma=0.5)
    assert result.params["regularization"] == "similarity"
    expected = RankCentrality(regularization="similarity", sigma=0.5).fit(c)
    pd.testing.assert_series_equal(result.scores, expected.scores_)
    assert "regularization" not in rank(games_from(bare)).params
    svm = rank(bare, "rank_svm", features=experiment.features, random_state=0)
    pd.testing.assert_series_equal(svm.scores, RankSVM(random_state=0).fit(c).scores_)


def games_from(comparisons):
    # a strongly connected variant: every comparison also reversed once
    return Comparisons(
        np.concatenate([comparisons.i, comparisons.i]), np.concatenate([comparisons.j, comparisons.j]),
        np.concatenate([comparisons.y, 1 - comparisons.y]), items=comparisons.items,
    )


@pytest.mark.parametrize(
    "method, params, words",
    [
        ("btl", {"features": np.ones((30, 1))}, "features are read by 'rank_centrality' .* not by 'btl'"),
        ("bre", {"features": np.ones((30, 1))}, "not by 'bre'"),
        ("rank_centrality", {"features": np.ones((30, 1)), "regularization": "uniform"},
         "regularization='similarity' only, got regularization='uniform'"),
        ("rank_centrality", {"alpha": 1.0}, "method 'rank_centrality' has no parameter 'alpha'"),
        ("btl", {"lam": 0.1}, "method 'btl' has no parameter 'lam'; its parameters are alpha, tol, max_iter"),
        ("btl", {"random_state": 0}, "has no parameter 'random_state'"),
        ("rank_centrality", {"sigma": 0.5}, "sigma=0.5 .* only regularization='similarity' uses"),
        ("rank_centrality", {"kernel": "gaussian", "lam": 0.1}, "kernel='gaussian' .* regularization='uniform'"),
        ("rank_centrality", {"lam": 2.0}, r"lam must be a number in \[0, 1\)"),
        ("bre", {"random_state": -1}, "BRE: random_state must be a non-negative integer seed"),
        ("ure", {"random_state": -1}, "URE: random_state must be a non-negative integer seed"),
        ("nope", {}, "rank: method must be one of 'rank_centrality', 'btl', 'bre', 'ure', 'rank_svm', got 'nope'"),
    ],
)
def test_inapplicable_and_bad_parameters_are_errors(games, method, params, words):
    with pytest.raises(ParameterError, match=words):
        rank(games, method, **params)


def test_rank_needs_comparisons():
    with pytest.raises(ParameterError, match="needs a paucity.ranking.Comparisons, got DataFrame"):
        rank(pd.DataFrame({"i": [0], "j": [1], "y": [1]}))


def test_make_ranker_checks_names():
    assert isinstance(make_ranker("BRE", random_state=0), BRE)
    with pytest.raises(ParameterError, match="its parameters are kernel, alpha, gamma, n_components, random_state"):
        make_ranker("rank_svm", sigma=1.0)


@pytest.mark.parametrize("estimator", [RankCentrality(), BTL(), BRE(), RankSVM()], ids=lambda e: type(e).__name__)
def test_one_fitted_check_for_every_ranker(estimator):
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    from paucity._errors import NotFittedError

    for call in (lambda: estimator.predict([["a", "b"]]), lambda: estimator.predict_proba("a", "b")):
        with pytest.raises(NotFittedError, match=f"This {type(estimator).__name__} is not fitted yet") as caught:
            call()
        assert isinstance(caught.value, SklearnNotFittedError)
