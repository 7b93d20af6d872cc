"""GOLD and CONS: what they are trained on, their log likelihood, and their errors."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from paucity._errors import InputError, ParameterError
from paucity.crowd import CONS, GOLD, LabelMatrix, majority_vote


def _labels():
    table = pd.DataFrame({
        "task": [0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 0, 3, 5],
        "labeler": ["a", "b", "c", "a", "b", "a", "b", "c", "b", "c", "a", "c", "me", "me", "me"],
        "label": ["y", "y", "n", "n", "y", "n", "n", "n", "y", "y", "n", "y", "y", "n", "y"],
    })
    X = pd.DataFrame({"f": [2.0, 0.1, -2.0, 1.0, -1.0, 0.5], "g": [1.0, 0.0, -1.0, 0.5, 0.0, 2.0]})
    return LabelMatrix.from_long(table, positive="y"), X


def test_majority_vote_excludes_the_researcher_and_ties_are_zero():
    labels, _ = _labels()
    np.testing.assert_array_equal(majority_vote(labels), [1, 0, -1, 1, -1, 1])
    np.testing.assert_array_equal(majority_vote(labels, exclude="me"), [1, 0, -1, 1, -1, 1])
    only_me = LabelMatrix.from_long(pd.DataFrame({"task": [0, 0], "labeler": ["a", "me"], "label": [1, -1]}))
    np.testing.assert_array_equal(majority_vote(only_me), [0])
    np.testing.assert_array_equal(majority_vote(only_me, exclude="me"), [1])


@pytest.mark.parametrize("alpha", [0.5, 1.0, 4.0])
def test_gold_is_penalized_logistic_regression_on_her_labels(alpha):
    labels, X = _labels()
    model = GOLD(alpha=alpha).fit(labels, X, researcher="me")
    rows = [0, 3, 5]
    y = np.array([1, -1, 1])
    reference = LogisticRegression(C=1 / alpha, max_iter=10000, tol=1e-10)
    reference.fit(X.iloc[rows], y)
    np.testing.assert_allclose(model.coef_, reference.coef_.ravel(), rtol=1e-3, atol=1e-3)
    assert model.n_train_ == 3
    proba = model.predict_proba(X)[:, 1]
    np.testing.assert_allclose(proba, expit(X.to_numpy() @ model.coef_ + model.intercept_))
    by_hand = np.log(np.where(y > 0, proba[rows], 1 - proba[rows])).sum()
    assert model.log_likelihood(labels, X) == pytest.approx(by_hand, rel=1e-9)
    assert model.log_likelihood(["y", "n", "y"], X.iloc[rows]) == pytest.approx(by_hand, rel=1e-9)


def test_cons_trains_on_the_crowd_majority():
    labels, X = _labels()
    model = CONS(fit_intercept=False).fit(labels, X, researcher="me")
    assert model.n_train_ == 5  # task 1 is a tie
    reference = LogisticRegression(C=1.0, fit_intercept=False).fit(X.iloc[[0, 2, 3, 4, 5]], [1, -1, 1, -1, 1])
    np.testing.assert_allclose(model.coef_, reference.coef_.ravel(), rtol=1e-4)
    assert model.intercept_ == 0.0
    assert list(model.predict(X.iloc[[0, 2]])) == ["y", "n"]
    with pytest.raises(ParameterError, match="without a researcher"):
        CONS().fit(labels, X).log_likelihood(labels, X)
    assert np.isfinite(CONS().fit(labels, X).log_likelihood(labels, X, researcher="me"))


def test_baseline_errors():
    labels, X = _labels()
    with pytest.raises(ParameterError, match="GOLD needs researcher="):
        GOLD().fit(labels, X)
    with pytest.raises(ParameterError, match="alpha"):
        GOLD(alpha=-1).fit(labels, X, researcher="me")
    one_class = LabelMatrix.from_long(pd.DataFrame({"task": [0, 1], "labeler": "me", "label": ["y", "y"]}),
                                      positive="y")
    with pytest.raises(InputError, match="needs both labels"):
        GOLD().fit(one_class, X.iloc[:2], researcher="me")
