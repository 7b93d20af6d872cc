"""paucity.ranking.evaluate: held-out error and rank metrics in one frozen result."""

from __future__ import annotations

import pandas as pd
import pytest

from paucity._errors import InputError, InputTypeError
from paucity.ranking import Comparisons, RankingEvaluation, evaluate
from paucity.ranking import metrics


@pytest.fixture()
def held():
    # a beat b, c beat b, c beat a, b beat a
    return Comparisons.from_winners(["a", "c", "c", "b"], ["b", "b", "a", "a"])


def test_held_out_only(held):
    scores = pd.Series({"a": 2.0, "b": 1.0, "c": 3.0})
    result = evaluate(scores, held)
    # the lower-scored item won only "b beat a": 1 of 4
    assert result == RankingEvaluation(held_out_comparisons=4, held_out_error=0.25)
    assert result.to_dict() == {"held_out_comparisons": 4, "held_out_error": 0.25}
    frame = result.to_frame()
    assert frame["metric"].tolist() == ["held_out_comparisons", "held_out_error"]
    assert frame["value"].tolist() == [4.0, 0.25]


def test_with_true_scores_on_the_items_that_have_one(held):
    scores = pd.Series({"a": 2.0, "b": 1.0, "c": 3.0, "d": 0.0})  # d has no true score: left out
    truth = pd.Series({"c": 1.0, "a": 3.0, "b": 2.0})
    result = evaluate(scores, held, true_scores=truth)
    estimated = scores.loc[["c", "a", "b"]]
    assert result.kendall_tau_b == pytest.approx(metrics.kendall_tau_b(estimated, truth))
    # true order a, b, c; estimated c, a, b: pairs (a, c) and (b, c) inverted
    assert result.kendall_tau_distance == 2.0
    assert result.spearman_footrule == 4.0  # displacements a 1, b 1, c 2
    assert result.max_displacement == 2.0
    assert list(result.to_dict()) == [
        "held_out_comparisons", "held_out_error", "kendall_tau_b", "kendall_tau_distance",
        "spearman_footrule", "max_displacement",
    ]
    with pytest.raises(AttributeError):
        result.held_out_error = 0.0


def test_errors(held):
    scores = pd.Series({"a": 2.0, "b": 1.0, "c": 3.0})
    with pytest.raises(InputError, match="item 'z' has a true score but no score"):
        evaluate(scores, held, true_scores=pd.Series({"a": 1.0, "z": 2.0}))
    with pytest.raises(InputError, match="scores has no entry for item 'c'"):
        evaluate(pd.Series({"a": 2.0, "b": 1.0}), held)
    with pytest.raises(InputError, match="true_scores has two entries for item 'a'"):
        evaluate(scores, held, true_scores=pd.Series([1.0, 2.0], index=["a", "a"]))
    with pytest.raises(InputTypeError, match="scores must be a pandas Series"):
        evaluate([1.0, 2.0, 3.0], held)
    with pytest.raises(InputTypeError, match="held_out must be a paucity.ranking.Comparisons"):
        evaluate(scores, "held.csv")
