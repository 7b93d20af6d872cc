"""paucity.crowd.pool: the entry point returns what the estimator says, in one frozen result."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, InputTypeError, ParameterError
from paucity.crowd import BBMC, LabelMatrix, pool


def data():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"], index=[f"t{i}" for i in range(40)])
    truth = np.where(X["a"] > 0, 1, -1)
    rows = [(f"t{i}", f"w{l}", truth[i] * (1 if l < 4 else -1)) for i in range(30) for l in range(6)
            if rng.random() < 0.5]
    rows += [(f"t{i}", "me", truth[i]) for i in range(4)]
    return LabelMatrix.from_long(pd.DataFrame(rows, columns=["task", "labeler", "label"])), X


def test_pool_matches_the_fitted_model_and_is_frozen():
    labels, X = data()
    params = dict(n_factors=2, n_burnin=100, n_samples=200, random_state=1)
    result = pool(labels, X, researcher="me", n_suggest=2, **params)
    model = BBMC(**params).fit(labels, X, researcher="me")
    np.testing.assert_allclose(result.predictions["probability"], model.predict_proba(X)[:, 1], rtol=1e-12)
    assert result.predictions["label"].tolist() == model.predict(X).tolist()
    assert result.predictions["gold"].iloc[:4].tolist() == [1 if a > 0 else -1 for a in X["a"].iloc[:4]]
    assert result.predictions["gold"].iloc[4:].isna().all()
    pd.testing.assert_frame_equal(result.suggestions.reset_index(drop=True), model.suggest(2).reset_index(drop=True))
    # agreement: the share of her factors (posterior means) each labeler has, by hand
    Z = model.labeler_factors_
    own = Z.loc["me"].to_numpy()
    for labeler, value in result.agreement.items():
        assert value == pytest.approx(Z.loc[labeler].to_numpy() @ own / own.sum())
    assert result.agreement.is_monotonic_decreasing and "me" not in result.agreement.index
    assert result.rhat == pytest.approx(float(np.max(model.rhat_)))
    assert (result.n_tasks, result.n_labelers) == (labels.n_tasks, labels.n_labelers)
    summary = result.to_dict()
    assert summary["researcher"] == "me" and len(summary["suggestions"]) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.rhat = 0.0


def test_pool_refuses_what_it_cannot_predict():
    labels, X = data()
    bad = X.copy()
    bad.iloc[35, 0] = np.nan  # an unlabelled task: predicted, so it needs features
    with pytest.raises(InputError, match="t35"):
        pool(labels, bad, researcher="me", n_samples=10, n_burnin=0)
    with pytest.raises(InputTypeError, match="DataFrame"):
        pool(labels, X.to_numpy(), researcher="me", n_samples=10)
    with pytest.raises(ParameterError, match="not a labeler"):
        pool(labels, X, researcher="nobody", n_samples=10)


def test_ask_without_suggestions_is_refused_since_it_would_change_nothing():
    labels, X = data()
    with pytest.raises(ParameterError, match=r"pool: ask='crowd' says whom suggestions may ask, but n_suggest=0"):
        pool(labels, X, researcher="me", ask="crowd", n_samples=10, n_burnin=0)
