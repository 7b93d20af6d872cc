"""crowd-kit's habits: its column names, fit_predict on a long table, and the migration table of docs/crowd.md."""

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, ParameterError
from paucity.crowd import BBMC, CONS, GOLD, LabelMatrix, aggregate, majority_vote


def _crowd(seed=0, n_tasks=40, workers=6):
    """A long table in crowd-kit's columns: workers right 80% of the time on a one-feature rule, and a researcher."""
    rng = np.random.default_rng(seed)
    tasks = [f"t{k}" for k in range(n_tasks)]
    x = 3 * rng.normal(size=n_tasks)
    truth = np.where(x > 0, "yes", "no")
    rows = []
    for w in range(workers):
        for k in rng.choice(n_tasks, size=n_tasks // 2, replace=False):
            right = rng.random() < 0.8
            rows.append((f"w{w}", tasks[k], truth[k] if right else ("no" if truth[k] == "yes" else "yes")))
    for k in range(0, n_tasks, 2):
        rows.append(("me", tasks[k], truth[k]))
    df = pd.DataFrame(rows, columns=["worker", "task", "label"])
    X = pd.DataFrame({"x": x}, index=tasks)
    return df, X


def test_from_long_reads_crowdkit_columns_as_paucity_columns():
    df, _ = _crowd()
    ours = LabelMatrix.from_long(df.rename(columns={"worker": "labeler"}))
    theirs = LabelMatrix.from_long(df)
    assert (theirs.to_dense() == ours.to_dense()).all().all()
    assert list(theirs.labeler_ids) == list(ours.labeler_ids)
    assert theirs.label_mapping == ours.label_mapping == {"no": -1, "yes": 1}


def test_a_table_with_both_spellings_is_refused_in_one_line():
    df, _ = _crowd()
    both = df.assign(labeler=df["worker"])
    with pytest.raises(ParameterError, match="both a 'labeler' and a 'worker' column.*labeler="):
        LabelMatrix.from_long(both)
    assert LabelMatrix.from_long(both, labeler="worker").n_labelers == 7
    with pytest.raises(ParameterError, match="lacks the labeler column: name it 'labeler'.*or 'worker'"):
        LabelMatrix.from_long(df.rename(columns={"worker": "who"}))


def test_update_reads_crowdkit_columns():
    df, X = _crowd()
    model = BBMC(n_factors=2, n_burnin=20, n_samples=20, random_state=0).fit(LabelMatrix.from_long(df), X, researcher="me")
    model.update(pd.DataFrame({"worker": ["me"], "task": ["t1"], "label": ["yes" if X.loc["t1", "x"] > 0 else "no"]}),
                 n_sweeps=5)
    with pytest.raises(InputError, match="lacks the labeler column"):
        model.update(pd.DataFrame({"who": ["me"], "task": ["t1"], "label": ["yes"]}), n_sweeps=5)


@pytest.mark.parametrize("make", [lambda: GOLD(), lambda: CONS(),
                                  lambda: BBMC(n_factors=2, n_burnin=30, n_samples=30, random_state=0)],
                         ids=["GOLD", "CONS", "BBMC"])
def test_fit_predict_is_fit_then_predict_in_crowdkits_shape(make):
    df, X = _crowd()
    result = make().fit_predict(df, X, researcher="me")
    assert isinstance(result, pd.Series)
    assert result.name == "agg_label" and result.index.name == "task"
    labels = LabelMatrix.from_long(df)
    assert list(result.index) == list(labels.task_ids)
    expected = make().fit(labels, X, researcher="me").predict(X.loc[list(labels.task_ids)])
    assert list(result) == list(expected)
    assert set(result) <= {"yes", "no"}
    # on this easy rule every model gets most tasks right
    truth = np.where(X.loc[list(result.index), "x"] > 0, "yes", "no")
    assert np.mean(result.to_numpy() == truth) > 0.8


def test_fit_predict_needs_the_features():
    df, _ = _crowd()
    with pytest.raises(ParameterError, match="needs the task features X.*majority_vote"):
        CONS().fit_predict(df)
    with pytest.raises(ParameterError, match="positive= is only read with a long table"):
        CONS().fit_predict(LabelMatrix.from_long(df), _crowd()[1], positive="yes")


def test_migration_table_majority_vote_matches_crowdkit():
    aggregation = pytest.importorskip("crowdkit.aggregation")
    df, _ = _crowd(seed=3, workers=5)
    df = df[df["worker"] != "me"]
    theirs = aggregation.MajorityVote().fit_predict(df)
    labels = LabelMatrix.from_long(df)
    signs = majority_vote(labels)
    ours = pd.Series([labels.label_of(int(s)) for s in signs], index=labels.task_ids)
    decided = signs != 0                     # crowd-kit breaks ties at random; paucity says 0
    assert decided.sum() > 20
    assert (ours[decided] == theirs.loc[ours.index[decided]]).all()


@pytest.mark.parametrize("method, name", [("dawid_skene", "DawidSkene"), ("glad", "GLAD")])
def test_migration_table_aggregators_match_crowdkit(method, name):
    aggregation = pytest.importorskip("crowdkit.aggregation")
    df, _ = _crowd(seed=4)
    df = df[df["worker"] != "me"]
    theirs = getattr(aggregation, name)(n_iter=100, tol=1e-5).fit_predict(df)
    ours = aggregate(LabelMatrix.from_long(df), method=method, max_iter=100, tol=1e-5)
    assert set(ours.index) == set(theirs.index)
    assert (ours["label"] == theirs.loc[ours.index]).all()
    proba = getattr(aggregation, name)(n_iter=100, tol=1e-5).fit_predict_proba(df)
    np.testing.assert_allclose(ours["probability"], proba.loc[ours.index, "yes"], rtol=1e-6, atol=1e-9)
