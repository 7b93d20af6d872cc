"""BBMC the estimator: planted labelers recovered, predictions, Table 3.1's log likelihood, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import log_ndtr, ndtr
from sklearn.base import clone

from paucity._errors import InputError, InputTypeError, NotFittedError, ParameterError
from paucity.crowd import BBMC, CONS, GOLD, LabelMatrix

CENTROID = np.array([2.0, -1.5, 0.0])  # the researcher's rule and group A's
EXTREMES = np.array([0.0, 1.5, 2.0])  # group B's rule


def planted_crowd(seed=0, n_tasks=200, n_gold=12):
    """Eight labelers answer by the researcher's rule, eight by another; three crowd labels a task."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_tasks, 3))
    rows = []
    for i in range(n_tasks):
        for l in rng.choice(16, 3, replace=False):
            weights = CENTROID if l < 8 else EXTREMES
            rows.append((f"task{i}", f"{'A' if l < 8 else 'B'}{l}", "yes" if X[i] @ weights + rng.normal() > 0 else "no"))
    for i in range(n_gold):
        rows.append((f"task{i}", "me", "yes" if X[i] @ CENTROID + rng.normal() > 0 else "no"))
    table = pd.DataFrame(rows, columns=["task", "labeler", "label"])
    features = pd.DataFrame(X, index=[f"task{i}" for i in range(n_tasks)], columns=["cx", "cy", "size"])
    return LabelMatrix.from_long(table, positive="yes"), features


@pytest.fixture(scope="module")
def fitted():
    labels, features = planted_crowd()
    model = BBMC(n_factors=2, n_burnin=300, n_samples=1200, n_chains=2, random_state=0).fit(labels, features,
                                                                                            researcher="me")
    return model, labels, features


def _cosine(a, b):
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_planted_labelers_factors_are_recovered(fitted):
    model, labels, _ = fitted
    weights = model.labeler_weights_
    for labeler in labels.labeler_ids:
        if labeler == "me":
            continue
        planted = CENTROID if labeler.startswith("A") else EXTREMES
        assert _cosine(weights.loc[labeler].to_numpy(), planted) > 0.9, labeler
    factors = model.labeler_factors_
    group_a = factors.loc[[l for l in factors.index if l.startswith("A")]].mean()
    group_b = factors.loc[[l for l in factors.index if l.startswith("B")]].mean()
    me = factors.loc["me"]
    assert np.linalg.norm(me - group_a) < 0.25 < np.linalg.norm(me - group_b)
    assert _cosine(model.coef_, CENTROID) > 0.95
    assert list(factors.columns) == ["factor_0", "factor_1"] and list(weights.columns) == ["cx", "cy", "size"]


def test_researcher_model_beats_the_majority_and_gold_only(fitted):
    model, labels, features = fitted
    rng = np.random.default_rng(11)
    X_new = pd.DataFrame(rng.normal(size=(2000, 3)), columns=["cx", "cy", "size"])
    truth = np.where(X_new.to_numpy() @ CENTROID > 0, "yes", "no")
    error = np.mean(model.predict(X_new) != truth)
    cons = CONS().fit(labels, features, researcher="me")
    gold = GOLD().fit(labels, features, researcher="me")
    assert error < 0.08
    assert error < np.mean(cons.predict(X_new) != truth) - 0.05
    assert error < np.mean(gold.predict(X_new) != truth)


def test_chains_samples_and_rhat(fitted):
    model, _, _ = fitted
    assert model.samples_.shape == (2 * 1200, 3)
    assert model.rhat_.shape == (3,)
    assert np.all(model.rhat_ < 1.1)
    np.testing.assert_allclose(model.coef_, model.samples_.mean(axis=0))
    assert model.classes_.tolist() == ["no", "yes"]


def test_predict_proba_is_eq_3_2_and_log_likelihood_is_table_3_1(fitted):
    model, labels, features = fitted
    X_new = features.iloc[:7]
    expected = ndtr(X_new.to_numpy() @ model.samples_.T).mean(axis=1)
    proba = model.predict_proba(X_new)
    np.testing.assert_allclose(proba[:, 1], expected)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    y = np.array(["yes", "no", "no", "yes", "yes", "no", "yes"])
    signs = np.where(y == "yes", 1.0, -1.0)
    by_hand = np.mean([log_ndtr(signs * (X_new.to_numpy() @ beta)).sum() for beta in model.samples_])
    assert model.log_likelihood(y, X_new) == pytest.approx(by_hand, rel=1e-10)
    # from a label matrix: the researcher's column, features aligned by task id
    gold = labels.column("me")
    gold_values = np.where(gold.to_numpy() > 0, "yes", "no")
    direct = model.log_likelihood(gold_values, features.loc[gold.index])
    assert model.log_likelihood(labels, features) == pytest.approx(direct, rel=1e-12)
    assert model.log_likelihood(labels, features.to_numpy()) == pytest.approx(direct, rel=1e-12)


def test_same_seed_same_chain_and_arrays_work():
    labels, features = planted_crowd(n_tasks=40, n_gold=5)
    a = BBMC(n_factors=2, n_burnin=10, n_samples=30, thin=3, n_chains=1, random_state=3).fit(labels, features.to_numpy(),
                                                                                 researcher="me")
    b = clone(a).fit(labels, features.to_numpy(), researcher="me")
    np.testing.assert_array_equal(a.samples_, b.samples_)
    assert a.samples_.shape == (10, 3)
    assert list(a.labeler_weights_.columns) == ["x0", "x1", "x2"]
    assert a.predict(np.zeros((2, 3))).shape == (2,)
    with pytest.raises(InputError, match="4 features but the model was fitted on 3"):
        a.predict(np.zeros((2, 4)))


def test_progress_bar_runs():
    labels, features = planted_crowd(n_tasks=30, n_gold=4)
    BBMC(n_factors=1, n_burnin=5, n_samples=250, random_state=0, progress=True).fit(labels, features, researcher="me")


def test_bad_input_gives_one_line_errors():
    labels, features = planted_crowd(n_tasks=30, n_gold=4)
    small = dict(n_burnin=1, n_samples=2)
    cases = [
        (BBMC(n_factors=0, **small), (labels, features), {"researcher": "me"}, ParameterError, "n_factors"),
        (BBMC(alpha=-1, **small), (labels, features), {"researcher": "me"}, ParameterError, "alpha"),
        (BBMC(thin=5, **small), (labels, features), {"researcher": "me"}, ParameterError, "thin=5 exceeds"),
        (BBMC(random_state=-1, **small), (labels, features), {"researcher": "me"}, ParameterError, "random_state"),
        (BBMC(**small), (labels, features), {}, ParameterError, "researcher= is required"),
        (BBMC(**small), (labels, features), {"researcher": "nobody"}, ParameterError, "'nobody' is not a labeler"),
        (BBMC(**small), (labels.to_long(), features), {"researcher": "me"}, InputTypeError, "LabelMatrix"),
        (BBMC(**small), (labels, features.iloc[:20]), {"researcher": "me"}, InputError, "missing from the features"),
        (BBMC(**small), (labels, features.assign(cx=np.nan)), {"researcher": "me"}, InputError, "NaN"),
    ]
    for model, args, kwargs, error, pattern in cases:
        with pytest.raises(error, match=pattern) as info:
            model.fit(*args, **kwargs)
        assert "\n" not in str(info.value)
    no_gold = LabelMatrix(labels.values[:, :-1], task_ids=labels.task_ids, labeler_ids=labels.labeler_ids[:-1])
    no_gold = LabelMatrix(np.column_stack([no_gold.values.toarray(), np.zeros(no_gold.n_tasks)]),
                          task_ids=labels.task_ids, labeler_ids=list(labels.labeler_ids))
    with pytest.raises(InputError, match="'me' has no gold labels"):
        BBMC(**small).fit(no_gold, features, researcher="me")
    with pytest.raises(NotFittedError):
        BBMC().predict_proba(features)
    model = BBMC(**small, random_state=0).fit(labels, features, researcher="me")
    with pytest.raises(InputError, match="lacks the feature column"):
        model.predict(features[["cx"]])
    with pytest.raises(InputError, match="not fitted on"):
        model.log_likelihood(["maybe"], features.iloc[:1])


def test_features_too_large_to_represent_are_refused_clearly():
    labels, features = planted_crowd(n_tasks=30, n_gold=4)
    with pytest.raises(InputError, match="standardize X") as info:
        BBMC(n_factors=2, n_burnin=2, n_samples=3, random_state=0).fit(labels, features * 1e200, researcher="me")
    assert "\n" not in str(info.value)
    with pytest.raises(ParameterError, match="sigma must be a number in"):
        BBMC(sigma=1e200).fit(labels, features, researcher="me")
