"""LabelMatrix: reading long tables, the label mapping, aligning features, and the errors bad input meets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from paucity._errors import (InputError, InputTypeError, PaucityError, ParameterError, ShapeMismatchError)
from paucity.crowd import LabelMatrix, align_features


def _table():
    return pd.DataFrame({
        "task": ["t1", "t1", "t2", "t3", "t3", "t3"],
        "worker": ["ann", "bob", "ann", "bob", "cid", "ann"],
        "answer": ["left", "above", "left", "above", "left", "above"],
    })


def test_from_long_builds_the_sparse_matrix_with_ids_and_mapping():
    labels = LabelMatrix.from_long(_table(), labeler="worker", label="answer", positive="above")
    assert list(labels.task_ids) == ["t1", "t2", "t3"]
    assert list(labels.labeler_ids) == ["ann", "bob", "cid"]
    assert labels.label_mapping == {"left": -1, "above": 1}
    expected = np.array([[-1, 1, 0], [-1, 0, 0], [1, 1, -1]])
    np.testing.assert_array_equal(labels.values.toarray(), expected)
    assert labels.values.dtype == np.int8 and labels.n_labels == 6
    assert labels.column("ann").to_dict() == {"t1": -1, "t2": -1, "t3": 1}
    back = labels.to_long()
    assert sorted(map(tuple, back.to_numpy())) == sorted(map(tuple, _table().to_numpy()))


def test_default_positive_is_the_larger_value():
    table = pd.DataFrame({"task": [1, 2, 3], "labeler": ["a", "a", "b"], "label": [0, 1, 1]})
    labels = LabelMatrix.from_long(table)
    assert labels.label_mapping == {0: -1, 1: 1}
    np.testing.assert_array_equal(labels.values.toarray(), [[-1, 0], [1, 0], [0, 1]])
    text = LabelMatrix.from_long(_table(), labeler="worker", label="answer")
    assert text.label_mapping == {"above": -1, "left": 1}  # sorted as text
    boolean = pd.DataFrame({"task": [1, 2], "labeler": ["a", "a"], "label": [True, False]})
    assert LabelMatrix.from_long(boolean).label_mapping == {False: -1, True: 1}


def test_one_label_value_needs_positive():
    table = pd.DataFrame({"task": [1, 2], "labeler": ["a", "b"], "label": ["yes", "yes"]})
    with pytest.raises(InputError, match="single value.*positive="):
        LabelMatrix.from_long(table)
    labels = LabelMatrix.from_long(table, positive="no")
    assert labels.label_mapping == {"yes": -1, "no": 1}


def test_more_than_two_label_values_is_one_clear_error():
    table = _table()
    table.loc[0, "answer"] = "right"
    with pytest.raises(InputError, match="3 distinct values .* takes two") as info:
        LabelMatrix.from_long(table, labeler="worker", label="answer")
    assert "\n" not in str(info.value)


def test_gold_labels_join_as_the_researcher_column():
    gold = pd.Series(["left", "above"], index=["t2", "t4"])
    labels = LabelMatrix.from_long(_table(), labeler="worker", label="answer", positive="above", gold=gold,
                                   researcher="me")
    assert list(labels.labeler_ids) == ["ann", "bob", "cid", "me"]
    assert list(labels.task_ids) == ["t1", "t2", "t3", "t4"]
    assert labels.column("me").to_dict() == {"t2": -1, "t4": 1}
    frame = pd.DataFrame({"task": ["t2"], "answer": ["left"]})
    also = LabelMatrix.from_long(_table(), labeler="worker", label="answer", gold=frame, researcher="me")
    assert also.column("me").index.tolist() == ["t2"]


def test_researcher_id_colliding_with_a_labeler_is_refused():
    gold = pd.Series(["left"], index=["t2"])
    with pytest.raises(ParameterError, match="researcher='bob' is also the id of a labeler"):
        LabelMatrix.from_long(_table(), labeler="worker", label="answer", gold=gold, researcher="bob")
    with pytest.raises(ParameterError, match="needs researcher="):
        LabelMatrix.from_long(_table(), labeler="worker", label="answer", gold=gold)
    with pytest.raises(ParameterError, match="only read together with gold="):
        LabelMatrix.from_long(_table(), labeler="worker", label="answer", researcher="me")


def test_bad_tables():
    with pytest.raises(ParameterError, match=r"the table has no column 'who' \(the labeler column, labeler=\)"):
        LabelMatrix.from_long(_table(), labeler="who", label="answer")
    assert LabelMatrix.from_long(_table(), label="answer").n_labelers == 3   # crowd-kit's "worker" is read
    with pytest.raises(ParameterError, match="lacks the labeler column: name it 'labeler'.*or 'worker'"):
        LabelMatrix.from_long(_table().rename(columns={"worker": "person"}), label="answer")
    with pytest.raises(InputTypeError, match="DataFrame"):
        LabelMatrix.from_long([("t", "a", 1)])
    missing = _table()
    missing.loc[2, "answer"] = None
    with pytest.raises(InputError, match="missing task, labeler or label"):
        LabelMatrix.from_long(missing, labeler="worker", label="answer")
    clash = pd.concat([_table(), _table().iloc[[0]].assign(answer="above")], ignore_index=True)
    with pytest.raises(InputError, match="carry both labels.*'t1' by labeler 'ann'"):
        LabelMatrix.from_long(clash, labeler="worker", label="answer")
    repeat = pd.concat([_table(), _table().iloc[[0]]], ignore_index=True)
    assert LabelMatrix.from_long(repeat, labeler="worker", label="answer").n_labels == 6
    with pytest.raises(ParameterError, match="positive='up' is not one of the labels"):
        LabelMatrix.from_long(_table(), labeler="worker", label="answer", positive="up")


def test_constructor_checks_values_and_ids():
    labels = LabelMatrix(np.array([[1, 0], [-1, 1]]), labeler_ids=["a", "b"])
    assert labels.shape == (2, 2) and list(labels.task_ids) == [0, 1]
    with pytest.raises(InputError, match="must be -1, \\+1 or 0"):
        LabelMatrix(np.array([[2, 0]]))
    with pytest.raises(ShapeMismatchError, match="labeler_ids has 3 entries"):
        LabelMatrix(np.zeros((2, 2)), labeler_ids=["a", "b", "c"])
    with pytest.raises(InputError, match="repeats ids"):
        LabelMatrix(np.zeros((2, 2)), task_ids=["a", "a"])
    with pytest.raises(ParameterError, match="not a labeler"):
        labels.labeler_index("z")
    assert "2 tasks x 2 labelers, 3 labels" in repr(labels)


def test_align_features_by_task_id():
    labels = LabelMatrix.from_long(_table(), labeler="worker", label="answer")
    X = pd.DataFrame({"f": [3.0, 1.0, 2.0, 9.0], "g": [0.0, 0.0, 1.0, 1.0]}, index=["t3", "t1", "t2", "extra"])
    values, names = align_features(labels, X)
    np.testing.assert_array_equal(values, [[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    assert names == ["f", "g"]
    array, none = align_features(labels, np.arange(6.0).reshape(3, 2))
    assert none is None and array.shape == (3, 2)


def test_align_features_errors_are_one_line_and_say_how_to_fix():
    labels = LabelMatrix.from_long(_table(), labeler="worker", label="answer")
    cases = [
        (pd.DataFrame({"f": [1.0, 2.0]}, index=["t1", "t2"]), InputError, "1 labelled task.*missing.*'t3'.*Add their rows"),
        (pd.DataFrame({"f": [1.0, np.nan, 2.0]}, index=["t1", "t2", "t3"]), InputError, "NaN.*'t2'.*impute"),
        (pd.DataFrame({"f": [1.0, 2.0, 3.0]}, index=[1, 2, 3]), InputError, "read both as text"),
        (pd.DataFrame({"f": ["a", "b", "c"]}, index=["t1", "t2", "t3"]), InputTypeError, "must hold numbers"),
        (np.ones((4, 2)), ShapeMismatchError, "4 rows but the labels have 3 tasks"),
        (np.array([[1.0], [np.nan], [2.0]]), InputError, "NaN"),
    ]
    for X, error, pattern in cases:
        with pytest.raises(error, match=pattern) as info:
            align_features(labels, X)
        assert "\n" not in str(info.value)


label_values = st.one_of(st.integers(-3, 3), st.text(max_size=3), st.booleans(), st.none(),
                         st.floats(allow_nan=True, allow_infinity=False, width=16))
ids = st.one_of(st.integers(-2, 6), st.text(max_size=2), st.none())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(rows=[(None, 1, None)], positive=None, gold={0: None, None: None}, researcher=0)  # all-missing columns joined
@given(rows=st.lists(st.tuples(ids, ids, label_values), max_size=12), positive=st.one_of(st.none(), label_values),
       gold=st.one_of(st.none(), st.dictionaries(ids, label_values, max_size=3)),
       researcher=st.one_of(st.none(), ids))
def test_from_long_builds_a_consistent_matrix_or_raises_a_paucity_error(rows, positive, gold, researcher):
    table = pd.DataFrame(rows, columns=["task", "labeler", "label"])
    gold_series = None if gold is None else pd.Series(list(gold.values()), index=list(gold.keys()), dtype=object)
    try:
        labels = LabelMatrix.from_long(table, positive=positive, gold=gold_series, researcher=researcher)
    except PaucityError as error:
        assert "\n" not in str(error)
        return
    assert set(np.unique(labels.values.data)) <= {-1, 1}
    assert sorted(labels.label_mapping.values()) in ([-1], [1], [-1, 1])
    assert labels.task_ids.is_unique and labels.labeler_ids.is_unique
    # every row of the table is in the matrix, in the mapping's sign
    for task, labeler, label in rows:
        sign = labels.values[labels.task_ids.get_loc(task), labels.labeler_ids.get_loc(labeler)]
        assert sign == labels.label_mapping[label]
    assert labels.n_labels == len({(t, l) for t, l, _ in rows} | {(t, researcher) for t in (gold or {})})


def test_from_frame_is_the_constructor_and_from_long_its_alias():
    df = pd.DataFrame({"task": ["t1", "t1", "t2"], "labeler": ["w1", "w2", "w1"], "label": ["no", "yes", "yes"]})
    built, alias = LabelMatrix.from_frame(df), LabelMatrix.from_long(df)
    assert (built.values != alias.values).nnz == 0
    assert list(built.task_ids) == list(alias.task_ids) and built.label_mapping == alias.label_mapping
    with pytest.raises(InputError, match=r"first: data row 2\)"):
        LabelMatrix.from_frame(df.assign(label=["no", None, "yes"]))
