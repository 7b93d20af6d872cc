"""Comparisons and PairTable: construction, validation, and aggregation against brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import InputError, InputTypeError, PaucityError, ShapeMismatchError
from paucity.ranking import Comparisons
from paucity.ranking.comparisons import PairTable


# -- construction from labels of several types ----------------------------------------------------
@pytest.mark.parametrize(
    "i, j, items",
    [
        (["b", "a", "c"], ["c", "b", "a"], ["a", "b", "c"]),
        ([10, 2, 7], [7, 10, 2], [2, 7, 10]),
        (np.array([3, 0, 1]), np.array([1, 3, 0]), [0, 1, 3]),
        ([2.5, 0.5, 1.5], [1.5, 2.5, 0.5], [0.5, 1.5, 2.5]),
        ([("x", 1), ("x", 0), ("y", 0)], [("y", 0), ("x", 1), ("x", 0)], [("x", 0), ("x", 1), ("y", 0)]),
    ],
    ids=["strings", "ints", "int-array", "floats", "tuples"],
)
def test_labels_map_to_sorted_positions_and_back(i, j, items):
    c = Comparisons(i, j, [1, 0, 1])
    assert list(c.items) == items
    assert c.n_items == 3 and c.n_comparisons == 3 and len(c) == 3
    assert list(c.items[c.i]) == list(i)
    assert list(c.items[c.j]) == list(j)
    assert c.i.dtype == np.int64 and c.j.dtype == np.int64 and c.y.dtype == np.int8
    table = c.to_dataframe()
    assert list(table["i"]) == list(i) and list(table["j"]) == list(j) and list(table["y"]) == [1, 0, 1]


def test_mixed_labels_keep_their_types_in_first_seen_order():
    c = Comparisons([1, "a", (2, 3)], ["a", (2, 3), 1], [0, 1, 1])
    assert list(c.items) == [1, "a", (2, 3)]  # not orderable: first seen, and 1 stays the integer 1
    assert c.i.tolist() == [0, 1, 2] and c.j.tolist() == [1, 2, 0]


def test_mixed_labels_are_not_turned_into_strings():
    c = Comparisons([1, 2], ["1", "2"], [0, 1])
    assert c.n_items == 4
    assert set(c.items) == {1, 2, "1", "2"}


def test_items_fix_the_order_and_include_uncompared_items():
    c = Comparisons(["b", "a"], ["a", "c"], [1, 0], items=["c", "d", "b", "a"])
    assert list(c.items) == ["c", "d", "b", "a"]
    assert c.i.tolist() == [2, 3] and c.j.tolist() == [3, 0]
    assert c.win_counts().tolist() == [0.0, 0.0, 0.0, 2.0]
    assert c.loss_counts().tolist() == [1.0, 0.0, 1.0, 0.0]


def test_integer_items_in_any_order():
    c = Comparisons([5, 1], [1, 3], [1, 1], items=[5, 3, 1, 0])
    assert list(c.items) == [5, 3, 1, 0]
    assert c.i.tolist() == [0, 2] and c.j.tolist() == [2, 1]
    fast = Comparisons([2, 1], [1, 3], [1, 1], items=range(4))
    assert isinstance(fast.items, pd.RangeIndex)
    assert fast.i.tolist() == [2, 1] and fast.j.tolist() == [1, 3]


def test_pandas_inputs():
    c = Comparisons(pd.Series(["a", "b"]), pd.Index(["b", "c"]), pd.Series([True, False]), weights=pd.Series([1, 2]))
    assert c.y.tolist() == [1, 0]
    assert c.weights.tolist() == [1.0, 2.0]


def test_from_winners():
    c = Comparisons.from_winners(["ant", "bee", "ant"], ["bee", "cat", "cat"], weights=[1, 2, 3])
    assert list(c.items) == ["ant", "bee", "cat"]
    assert c.y.tolist() == [1, 1, 1]
    assert list(c.items[c.winners]) == ["ant", "bee", "ant"]
    assert list(c.items[c.losers]) == ["bee", "cat", "cat"]
    assert c.win_counts().tolist() == [4.0, 2.0, 0.0]
    assert c.loss_counts().tolist() == [0.0, 1.0, 5.0]
    with pytest.raises(ShapeMismatchError, match="winners has 2 entries but losers has 1"):
        Comparisons.from_winners(["a", "b"], ["c"])


def test_wins_matrix():
    c = Comparisons.from_winners([0, 0, 2], [1, 1, 0], weights=[1.0, 2.0, 0.5])
    np.testing.assert_array_equal(c.wins.toarray(), [[0, 3, 0], [0, 0, 0], [0.5, 0, 0]])


def test_from_dataframe_with_y_and_with_winner():
    df = pd.DataFrame({"a": ["x", "y", "z"], "b": ["y", "z", "x"], "won": ["y", "y", "x"], "n": [1.0, 2.0, 3.0]})
    by_winner = Comparisons.from_dataframe(df, i="a", j="b", winner="won", weights="n")
    assert by_winner.y.tolist() == [1, 0, 1]
    assert by_winner.weights.tolist() == [1.0, 2.0, 3.0]
    df["outcome"] = [1, 0, 1]
    by_y = Comparisons.from_dataframe(df, i="a", j="b", y="outcome", weights="n")
    for name in ("i", "j", "y", "weights"):
        np.testing.assert_array_equal(getattr(by_y, name), getattr(by_winner, name))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"winner": "bad"}, InputError, r"data row 2: winner 'w' is neither of the compared items 'y' and 'z'"),
        ({"winner": "gap"}, InputError, "column 'gap' has a missing winner at data row 3"),
        ({"y": "won", "winner": "won"}, InputError, "exactly one of y= .* or winner="),
        ({}, InputError, "exactly one of y= .* or winner="),
        ({"y": "absent"}, InputError,
         r"the table has no column 'absent' \(the y column, y=\); its columns are 'a', 'b', 'won', 'bad', 'gap'"),
        ({"winner": "won", "weights": "nope"}, InputError, r"no column 'nope' \(the weights column, weights=\)"),
    ],
)
def test_from_dataframe_errors(kwargs, error, match):
    df = pd.DataFrame(
        {"a": ["x", "y", "z"], "b": ["y", "z", "x"], "won": ["y", "y", "x"], "bad": ["x", "w", "x"],
         "gap": ["x", "z", None]}
    )
    with pytest.raises(error, match=match):
        Comparisons.from_dataframe(df, i="a", j="b", **kwargs)


def test_a_missing_item_column_is_named_by_its_role_as_given_in_python():
    games = pd.DataFrame({"home": ["x", "y"], "away": ["y", "z"], "won": ["y", "y"]})
    with pytest.raises(InputError) as caught:
        Comparisons.from_frame(games, i="host", j="away", winner="won")
    assert str(caught.value) == (
        "the table has no column 'host' (the i column, i=); its columns are 'home', 'away', 'won'."
    )
    with pytest.raises(InputError, match=r"^i= names no column"):
        Comparisons.from_frame(games, i=None, j="away", winner="won")


@pytest.mark.parametrize(
    "a, b, match",
    [
        (["x", None, "z"], ["y", "z", "x"], r"column 'a' \(given as i=\) has a missing item label at data row 2"),
        (["x", "y", "z"], ["y", "z", None], r"column 'b' \(given as j=\) has a missing item label at data row 3"),
        (["x", "y", "z"], ["y", "y", "x"], "data row 2 compares item 'y' with itself"),
    ],
)
def test_from_frame_counts_data_rows_from_one(a, b, match):
    df = pd.DataFrame({"a": a, "b": b, "won": ["y", "z", "x"]})
    with pytest.raises(InputError, match=match):
        Comparisons.from_frame(df, i="a", j="b", winner="won")


def test_from_dataframe_is_from_frame():
    df = pd.DataFrame({"a": ["x", "y"], "b": ["y", "z"], "won": ["y", "y"], "draw": [0, 1]})
    one = Comparisons.from_frame(df, i="a", j="b", winner="won", tie="draw")
    other = Comparisons.from_dataframe(df, i="a", j="b", winner="won", tie="draw")
    assert one.to_dataframe().equals(other.to_dataframe())


def test_from_dataframe_needs_a_dataframe():
    with pytest.raises(InputTypeError, match="needs a pandas DataFrame, got dict"):
        Comparisons.from_dataframe({"a": [1]}, i="a", j="b", y="c")


# pandas 3 reads text as the str dtype, "string" is pandas' nullable text, and older frames hold object: all are read
# alike, beside a column of mixed labels (where pandas itself refuses to compare a str column) and with a draw's
# missing winner (pd.NA in a "string" column).
@pytest.mark.parametrize("dtype", ["object", "string", "str"])
def test_from_frame_reads_text_columns_of_every_string_dtype(dtype):
    df = pd.DataFrame({"i": pd.Series(["a", "b", "c"], dtype=dtype), "j": pd.Series(["b", 2.5, "a"], dtype=object),
                       "won": pd.Series(["b", None, "a"], dtype=dtype), "draw": [False, True, False]})
    games = Comparisons.from_frame(df, i="i", j="j", winner="won", tie="draw")
    assert games.y.tolist() == [1, 0.5, 1]
    assert list(games.items) == ["a", "b", "c", 2.5]


def test_from_frame_copies_the_outcomes_it_marks_as_draws():
    # the outcome column's array comes from pandas (read-only under pandas 3's copy-on-write): the draws are written
    # into a copy, and the frame is left as it was
    df = pd.DataFrame({"i": ["x", "y", "x"], "j": ["y", "z", "z"], "y": [1, 0, 0], "draw": [0, 1, 0]})
    before = df.copy()
    assert Comparisons.from_frame(df, i="i", j="j", y="y", tie="draw").y.tolist() == [1, 0.5, 0]
    pd.testing.assert_frame_equal(df, before)


# -- validation -----------------------------------------------------------------------------------
VALID = (["a", "b"], ["b", "c"], [0, 1])  # i, j, y of two valid comparisons


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ((["a", "b"], ["b", "b"], [0, 1]), {}, InputError, "comparison 1 compares item 'b' with itself"),
        (([0, 3], [1, 3], [0, 1]), {}, InputError, "comparison 1 compares item 3 with itself"),
        ((["a", "b"], ["b", "c"], [0, 2]), {}, InputError, r"y must be 0 \(i preferred\), 1 \(j preferred\) or 0.5 \(a draw\); comparison 1 has y = 2"),
        ((["a", "b"], ["b", "c"], [0.25, 1]), {}, InputError, "comparison 0 has y = 0.25"),
        ((["a", "b"], ["b", "c"], ["yes", "no"]), {}, InputTypeError, "y must hold 0/1 outcomes"),
        ((["a", "b"], ["b", "c"], [0, np.nan]), {}, InputError, r"y has a missing outcome \(NaN\) at comparison 1"),
        ((["a", "b"], ["b", "c"], [0, None]), {}, InputError, r"y has a missing outcome \(NaN\) at comparison 1"),
        ((["a", "b"], ["b", "c"], [[0, 1]]), {}, InputError, "y must be 1-dimensional"),
        ((["a", "b"], ["b", "c"], [0, 1, 1]), {}, ShapeMismatchError, "y has 3 entries but i and j have 2"),
        ((["a", None], ["b", "c"], [0, 1]), {}, InputError, r"i has a missing item label \(NaN or None\) at comparison 1"),
        ((["a", "b"], ["b", np.nan], [0, 1]), {}, InputError, r"j has a missing item label \(NaN or None\) at comparison 1"),
        (([1.0, 2.0], [np.nan, 3.0], [0, 1]), {}, InputError, "j has a missing item label"),
        (([], [], []), {}, InputError, "there are no comparisons; give at least one"),
        ((["a", "b"], ["c"], [0, 1]), {}, ShapeMismatchError, "i has 2 entries but j has 1"),
        (("ab", "cd", [0, 1]), {}, InputTypeError, "i must be a sequence of item labels, got a single value 'ab'"),
        (([["a", "b"], ["c", "d"]], ["b", "c"], [0, 1]), {}, InputError, r"i must be 1-dimensional .* got shape \(2, 2\)"),
        (VALID, {"weights": [1.0, -2.0]}, InputError, "weights must be non-negative; comparison 1 has weight -2.0"),
        (VALID, {"weights": [np.nan, 1.0]}, InputError, "weights has a non-finite value at comparison 0"),
        (VALID, {"weights": [1.0, np.inf]}, InputError, "weights has a non-finite value at comparison 1"),
        (VALID, {"weights": [1.0]}, ShapeMismatchError, r"weights has shape \(1,\) but there are 2 comparisons"),
        (VALID, {"weights": ["x", "y"]}, InputTypeError, "weights must be numbers"),
        ((["a", "b"], ["b", "z"], [0, 1]), {"items": ["a", "b", "c"]}, InputError, "j names item 'z' \\(comparison 1\\) that is not in items"),
        (([0, 1], [1, 5], [0, 1]), {"items": [0, 1, 2]}, InputError, r"j names item 5 \(comparison 1\) that is not in items"),
        (([0, 7], [1, 2], [0, 1]), {"items": [2, 1, 0]}, InputError, r"i names item 7 \(comparison 1\) that is not in items"),
        (VALID, {"items": ["a", "b", "c", "b"]}, InputError, "items has duplicate label 'b'"),
        (VALID, {"items": ["a", None, "c"]}, InputError, "items has a missing item label"),
    ],
)
def test_validation_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        Comparisons(*args, **kwargs)


def test_errors_are_value_and_type_errors():
    assert issubclass(InputError, ValueError) and issubclass(ShapeMismatchError, ValueError)
    assert issubclass(InputTypeError, TypeError)
    with pytest.raises(ValueError):
        Comparisons(["a"], ["a"], [0])
    with pytest.raises(TypeError):
        Comparisons(["a"], ["b"], ["win"])


def test_boolean_and_float_outcomes():
    c = Comparisons(["a", "b"], ["b", "c"], np.array([True, False]))
    assert c.y.tolist() == [1, 0] and c.y.dtype == np.int8
    assert Comparisons(["a", "b"], ["b", "c"], [1.0, 0.0]).y.tolist() == [1, 0]


# -- features and similarity ------------------------------------------------------------------------
def test_features_from_a_dataframe_are_aligned_on_items():
    features = pd.DataFrame({"f": [3.0, 1.0, 2.0], "g": [30.0, 10.0, 20.0]}, index=["c", "a", "b"])
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1], features=features)
    np.testing.assert_array_equal(c.features, [[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])
    assert c.feature_names == ["f", "g"]
    assert "2 features" in repr(c)


def test_features_from_an_array_and_a_vector():
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1], features=[1.0, 2.0, 3.0])
    assert c.features.shape == (3, 1)
    assert c.feature_names is None
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1], features=np.eye(3))
    assert c.features.shape == (3, 3)


def test_uncompared_items_may_have_feature_rows_when_listed():
    features = pd.DataFrame({"f": [1.0, 2.0, 3.0, 4.0]}, index=["a", "b", "c", "d"])
    c = Comparisons(["a"], ["b"], [1], items=["a", "b", "c", "d"], features=features)
    assert c.features[:, 0].tolist() == [1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize(
    "features, kwargs, error, match",
    [
        (pd.DataFrame({"f": [1.0, 2.0, 3.0, 4.0]}, index=["a", "b", "c", "zz"]), {}, InputError,
         "features has a row for item 'zz', which is not among the items"),
        (pd.DataFrame({"f": [1.0, 2.0]}, index=["a", "b"]), {}, InputError,
         "features has no row for compared item 'c'"),
        (pd.DataFrame({"f": [1.0, 2.0, 3.0]}, index=["a", "b", "c"]), {"items": ["a", "b", "c", "d"]}, InputError,
         "features has no row for item 'd'"),
        (pd.DataFrame({"f": [1.0, 2.0, 3.0, 4.0]}, index=["a", "b", "c", "a"]), {}, InputError,
         "features has two rows for item 'a'"),
        (pd.DataFrame({"f": ["x", "y", "z"]}, index=["a", "b", "c"]), {}, InputTypeError, "features must be numeric"),
        (pd.DataFrame(index=["a", "b", "c"]), {}, InputError, "features has no columns"),
        (np.ones((2, 2)), {}, ShapeMismatchError, "features has 2 rows but there are 3 items"),
        (np.ones((3, 2, 2)), {}, InputError, r"features must be 2-dimensional .* got shape \(3, 2, 2\)"),
        (np.ones((3, 0)), {}, InputError, "features has no columns"),
        (np.array([[1.0], [np.nan], [2.0]]), {}, InputError, "features has a missing or infinite value for item 'b'"),
        (np.array([[1.0], [2.0], [np.inf]]), {}, InputError, "features has a missing or infinite value for item 'c'"),
        ([["a"], ["b"], ["c"]], {}, InputTypeError, "features must be a numeric array or a DataFrame"),
    ],
)
def test_feature_errors(features, kwargs, error, match):
    with pytest.raises(error, match=match):
        Comparisons(["a", "b"], ["b", "c"], [0, 1], features=features, **kwargs)


def test_similarity_dense_and_sparse():
    similarity = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1], similarity=similarity)
    np.testing.assert_array_equal(c.similarity, similarity)
    assert "similarity" in repr(c)
    sparse = Comparisons(["a", "b"], ["b", "c"], [0, 1], similarity=sp.coo_matrix(similarity))
    assert sp.issparse(sparse.similarity)
    np.testing.assert_array_equal(sparse.similarity.toarray(), similarity)


@pytest.mark.parametrize(
    "similarity, error, match",
    [
        (np.ones((2, 2)), ShapeMismatchError, r"similarity has shape \(2, 2\) but there are 3 items; it must be 3 × 3"),
        (np.ones(3), ShapeMismatchError, "similarity has shape"),
        (sp.eye(4), ShapeMismatchError, r"similarity has shape \(4, 4\)"),
        (-np.eye(3), InputError, "similarity must be non-negative"),
        (sp.csr_matrix(-np.eye(3)), InputError, "similarity must be non-negative"),
        (np.full((3, 3), np.nan), InputError, "similarity has a missing or infinite entry"),
        ([["a"] * 3] * 3, InputTypeError, "similarity must be a numeric matrix"),
    ],
)
def test_similarity_errors(similarity, error, match):
    with pytest.raises(error, match=match):
        Comparisons(["a", "b"], ["b", "c"], [0, 1], similarity=similarity)


# -- immutability and derived sets --------------------------------------------------------------------
def test_arrays_are_read_only():
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1], weights=[1.0, 2.0], features=np.ones((3, 2)))
    for array in (c.i, c.j, c.y, c.weights, c.features):
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array[0] = 0
    for array in (c.pairs.low, c.pairs.high, c.pairs.low_wins, c.pairs.high_wins):
        assert not array.flags.writeable


def test_input_arrays_are_not_shared():
    i = np.array([0, 1])
    c = Comparisons(i, np.array([1, 2]), np.array([0, 1]))
    i[0] = 2  # the caller may change its own array afterwards
    assert c.i.tolist() == [0, 1]


def test_subset_by_positions_and_mask():
    c = Comparisons(["a", "b", "c"], ["b", "c", "a"], [0, 1, 1], weights=[1.0, 2.0, 3.0], features=np.eye(3))
    s = c.subset([2, 0])
    assert s.i.tolist() == [2, 0] and s.j.tolist() == [0, 1] and s.y.tolist() == [1, 0]
    assert s.weights.tolist() == [3.0, 1.0]
    assert list(s.items) == ["a", "b", "c"]  # same items, even those left without comparisons
    assert s.features is c.features
    m = c.subset(np.array([False, True, False]))
    assert m.n_comparisons == 1 and m.i.tolist() == [1]
    assert not m.i.flags.writeable
    with pytest.raises(ShapeMismatchError, match="the mask has 2 entries but there are 3 comparisons"):
        c.subset([True, False])
    with pytest.raises(InputError, match="the selection holds no comparisons"):
        c.subset(np.zeros(3, dtype=bool))


def test_subset_rejects_bad_positions():
    c = Comparisons(["a", "b", "c"], ["b", "c", "a"], [0, 1, 1])
    with pytest.raises(InputError, match="the selection holds no comparisons"):
        c.subset([])
    with pytest.raises(InputError, match="position 3 .* 3 comparisons"):
        c.subset([0, 3])
    with pytest.raises(InputTypeError, match="positions or a boolean mask"):
        c.subset([0.5])
    assert c.subset([-1]).i.tolist() == [2]  # numpy-style negative positions


def test_with_features_attaches_and_validates():
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1])
    assert c.features is None and c.similarity is None
    f = c.with_features(pd.DataFrame({"x": [1.0, 2.0, 3.0]}, index=["c", "b", "a"]))
    assert f.features[:, 0].tolist() == [3.0, 2.0, 1.0]
    assert c.features is None  # the original is unchanged
    assert f.i is c.i or np.array_equal(f.i, c.i)
    s = c.with_features(similarity=np.eye(3))
    np.testing.assert_array_equal(s.similarity, np.eye(3))
    with pytest.raises(InputError, match="features has no row for compared item 'c'"):
        c.with_features(pd.DataFrame({"x": [1.0, 2.0]}, index=["a", "b"]))
    with pytest.raises(ShapeMismatchError, match="similarity has shape"):
        c.with_features(similarity=np.eye(2))


def test_position_of_labels():
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1])
    assert c.position(["c", "a"]).tolist() == [2, 0]
    assert c.position("b").tolist() == [1]
    with pytest.raises(InputError, match="item 'q' is not one of the ranked items"):
        c.position(["a", "q"])


def test_observation_weights_default_to_ones():
    c = Comparisons(["a", "b"], ["b", "c"], [0, 1])
    assert c.weights is None
    assert c.observation_weights.tolist() == [1.0, 1.0]


# -- PairTable against a brute-force aggregation ----------------------------------------------------
def brute_force_pairs(i, j, y, weights):
    """{(low, high): [weight low won, weight high won]}, pairs of zero total weight left out."""
    table: dict = {}
    for a, b, outcome, weight in zip(i, j, y, weights):
        winner = b if outcome == 1 else a
        key = (min(a, b), max(a, b))
        entry = table.setdefault(key, [0.0, 0.0])
        entry[0 if winner == key[0] else 1] += weight
    return {key: value for key, value in table.items() if value[0] + value[1] > 0}


@st.composite
def raw_comparisons(draw, max_items=7, max_comparisons=30):
    n = draw(st.integers(2, max_items))
    m = draw(st.integers(1, max_comparisons))
    i = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    j = [(a + draw(st.integers(1, n - 1))) % n for a in i]  # never the same item
    y = draw(st.lists(st.integers(0, 1), min_size=m, max_size=m))
    weighted = draw(st.booleans())
    weights = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=m, max_size=m)) if weighted else None
    return n, i, j, y, weights


@settings(max_examples=150, deadline=None)
@given(raw_comparisons())
def test_pair_table_matches_brute_force(data):
    n, i, j, y, weights = data
    c = Comparisons(i, j, y, weights=weights, items=range(n))
    pairs = c.pairs
    assert isinstance(pairs, PairTable) and pairs.n_items == n
    expected = brute_force_pairs(i, j, y, weights if weights is not None else [1.0] * len(i))
    keys = sorted(expected)
    assert list(zip(pairs.low.tolist(), pairs.high.tolist())) == keys  # sorted by (low, high), low < high
    assert len(pairs) == len(keys)
    np.testing.assert_allclose(pairs.low_wins, [expected[k][0] for k in keys])
    np.testing.assert_allclose(pairs.high_wins, [expected[k][1] for k in keys])
    np.testing.assert_allclose(pairs.totals, [sum(expected[k]) for k in keys])
    # the wins matrix and the win counts agree with the table
    wins = c.wins.toarray()
    for (low, high), (low_won, high_won) in expected.items():
        assert wins[low, high] == pytest.approx(low_won) and wins[high, low] == pytest.approx(high_won)
    np.testing.assert_allclose(c.win_counts(), wins.sum(axis=1))
    np.testing.assert_allclose(c.loss_counts(), wins.sum(axis=0))


@settings(max_examples=100, deadline=None)
@given(raw_comparisons(max_items=12), st.booleans(), st.integers(0, 5))
def test_integer_fast_path_equals_the_general_path(data, give_items, offset):
    n, i, j, y, weights = data
    # integers shifted by offset: with items=None the fast path also meets gaps below the first label
    ints_i = np.array(i, dtype=np.int64) + offset
    ints_j = np.array(j, dtype=np.int64) + offset

    def name(k):
        return f"item{k:03d}"  # sorts in the same order as the integers

    strs_i, strs_j = [name(k) for k in ints_i], [name(k) for k in ints_j]
    if give_items:
        int_items = np.arange(n + offset)
        str_items = [name(k) for k in int_items]
    else:
        int_items = str_items = None
    fast = Comparisons(ints_i, ints_j, y, weights=weights, items=int_items)
    general = Comparisons(strs_i, strs_j, y, weights=weights, items=str_items)
    assert [name(k) for k in fast.items] == list(general.items)
    for attribute in ("i", "j", "y"):
        np.testing.assert_array_equal(getattr(fast, attribute), getattr(general, attribute))
    for attribute in ("low", "high", "low_wins", "high_wins"):
        np.testing.assert_array_equal(getattr(fast.pairs, attribute), getattr(general.pairs, attribute))
    # and the same integers through the general path (object labels)
    objects = Comparisons(ints_i.astype(object), ints_j.astype(object), y, weights=weights, items=int_items)
    assert list(objects.items) == list(fast.items)
    np.testing.assert_array_equal(objects.i, fast.i)
    np.testing.assert_array_equal(objects.j, fast.j)


def test_large_sparse_integer_labels_take_the_general_path():
    c = Comparisons(np.array([0, 10**12]), np.array([10**12, 5]), [1, 0])
    assert list(c.items) == [0, 5, 10**12]
    assert c.i.tolist() == [0, 2] and c.j.tolist() == [2, 1]


def test_negative_integer_labels():
    c = Comparisons(np.array([-3, 2]), np.array([2, -1]), [1, 0])
    assert list(c.items) == [-3, -1, 2]


# -- fuzz: junk input raises only paucity's own errors ----------------------------------------------
atoms = st.one_of(
    st.integers(-2, 4),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=2),
    st.binary(max_size=2),
    st.none(),
    st.booleans(),
    st.tuples(st.integers(0, 2), st.text(max_size=1)),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.text(max_size=1), st.integers(), max_size=1),
    st.complex_numbers(max_magnitude=3),
)
junk = st.one_of(
    st.none(),
    atoms,
    st.lists(atoms, max_size=5),
    st.lists(st.integers(-1, 4), min_size=1, max_size=5),
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=5),
    st.lists(st.lists(atoms, max_size=3), max_size=3),
    st.lists(st.floats(), max_size=5).map(np.array),
    st.lists(st.integers(-5, 5), max_size=5).map(lambda v: np.array(v, dtype=np.int64)),
    st.lists(st.integers(0, 5), max_size=5).map(lambda v: np.array(v, dtype=np.uint8)),
    st.sampled_from([np.zeros((2, 2)), np.array(["a", "b"], dtype=object), pd.Series(["a", "b"]), pd.DataFrame({"a": [1]}),
                     np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"), range(3), {"a", "b"}, (1, 2)]),
)


def only_paucity_errors(build):
    try:
        c = build()
    except PaucityError as error:
        assert isinstance(error, (InputError, InputTypeError, ShapeMismatchError)), repr(error)
        assert isinstance(error, (ValueError, TypeError))
        assert str(error)
        return None
    # what was accepted is consistent
    assert c.n_comparisons >= 1
    assert (c.i != c.j).all()
    assert ((0 <= c.i) & (c.i < c.n_items) & (0 <= c.j) & (c.j < c.n_items)).all()
    assert set(np.unique(c.y)) <= {0, 1}
    assert c.items.is_unique
    return c


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(i=junk, j=junk, y=junk, weights=junk, items=junk)
def test_junk_raises_only_paucity_errors(i, j, y, weights, items):
    only_paucity_errors(lambda: Comparisons(i, j, y, weights=weights, items=items))
    only_paucity_errors(lambda: Comparisons.from_winners(i, j, weights=weights, items=items))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    m=st.integers(1, 5),
    features=st.one_of(st.none(), junk, st.lists(st.lists(st.floats(), min_size=1, max_size=2), max_size=4)),
    similarity=st.one_of(st.none(), junk, st.lists(st.lists(st.floats(), min_size=3, max_size=3), min_size=3, max_size=3)),
)
def test_nearly_valid_input_raises_only_paucity_errors(data, m, features, similarity):
    pool = data.draw(
        st.sampled_from([["a", "b", "c"], [0, 1, 2], [0.5, 1.5, "x"], [("t", 0), ("t", 1), None], [{}, [1], "a"]])
    )
    i = data.draw(st.lists(st.sampled_from(pool), min_size=m, max_size=m))
    j = data.draw(st.lists(st.sampled_from(pool), min_size=m, max_size=m))
    y = data.draw(st.one_of(st.lists(st.sampled_from([0, 1, 1.0, True, 2, np.nan, None, "1"]), min_size=m, max_size=m), junk))
    weights = data.draw(st.one_of(st.none(), st.lists(st.floats(-1, 3), min_size=m, max_size=m), junk))
    items = data.draw(st.one_of(st.none(), st.just(pool), st.permutations(pool), junk))
    only_paucity_errors(lambda: Comparisons(i, j, y, weights=weights, items=items, features=features, similarity=similarity))
