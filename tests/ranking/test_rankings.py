"""Rankings and Choices: construction from lists, arrays and long tables, validation, the pairwise breaking."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import InputError, InputTypeError, PaucityError, ShapeMismatchError
from paucity.ranking import Choices, Rankings


# -- Rankings ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rows, items",
    [
        ([["b", "a", "c"], ["c", "b"]], ["a", "b", "c"]),
        ([[10, 2, 7], [7, 10]], [2, 7, 10]),
        (np.array([[3, 0, 1], [1, 3, 0]]), [0, 1, 3]),
        ([[("x", 1), ("x", 0)], [("y", 0), ("x", 1)]], [("x", 0), ("x", 1), ("y", 0)]),
    ],
    ids=["strings", "ints", "int-array", "tuples"],
)
def test_rankings_map_labels_to_sorted_positions_and_back(rows, items):
    r = Rankings(rows)
    assert list(r.items) == items
    assert r.n_observations == len(rows) == len(r)
    for k, row in enumerate(rows):
        assert r.observation(k) == list(row)
    assert r.n_stages.tolist() == [len(row) - 1 for row in rows]
    assert r.offsets[-1] == sum(len(row) for row in rows)


def test_rankings_with_items_keep_their_order_and_unranked_items():
    r = Rankings([["a", "b"]], items=["z", "b", "a"])
    assert list(r.items) == ["z", "b", "a"]
    assert r.members.tolist() == [2, 1]


@pytest.mark.parametrize(
    "rows, kwargs, error, match",
    [
        ([], {}, InputError, "no rankings"),
        ([["a"]], {}, InputError, r"rankings\[0\] holds 1 item"),
        ([["a", "b"], ["c", "a", "c"]], {}, InputError, "ranking 1 names item 'c' twice"),
        ([["a", None]], {}, InputError, r"rankings\[0\] has a missing item label"),
        ([["a", "b"], ["a", "q"]], {"items": ["a", "b"]}, InputError, r"rankings\[1\] names item 'q' that is not in items"),
        ([["a", "b"]], {"items": ["a", "a", "b"]}, InputError, "duplicate label 'a'"),
        ("ab", {}, InputTypeError, "sequence of observations"),
        ([["a", "b"], "c"], {}, InputTypeError, r"rankings\[1\] is a single value"),
        (np.array([1, 2, 3]), {}, InputError, "2-dimensional"),
        (pd.DataFrame({"a": [1]}), {}, InputTypeError, "from_frame"),
        ([[["a"], "b"]], {}, InputTypeError, "hashable"),
    ],
)
def test_rankings_reject_bad_input_with_one_line_messages(rows, kwargs, error, match):
    with pytest.raises(error, match=match):
        Rankings(rows, **kwargs)


def test_rankings_from_long_table_order_by_position_and_keep_first_seen_observations():
    df = pd.DataFrame(
        {"judge": ["q", "q", "p", "p", "p"], "photo": [5, 3, 1, 5, 3], "place": [2.0, 1.0, 3.0, 1.0, 2.0]}
    )
    r = Rankings.from_dataframe(df, observation="judge", item="photo", position="place")
    assert r.observation(0) == [3, 5] and r.observation(1) == [5, 3, 1]
    back = r.to_dataframe()
    assert back.columns.tolist() == ["observation", "item", "position"]
    again = Rankings.from_dataframe(back)
    assert again.members.tolist() == r.members.tolist() and list(again.items) == list(r.items)


@pytest.mark.parametrize(
    "frame, match",
    [
        (pd.DataFrame({"observation": [1, 1], "item": ["a", "b"], "position": [1, 1]}), "two items at position 1"),
        (pd.DataFrame({"observation": [1, 1], "item": ["a", "b"], "position": [1, None]}), "missing or infinite position at data row 2"),
        (pd.DataFrame({"observation": [1, 1], "item": ["a", "b"]}), "column 'position'"),
        (pd.DataFrame({"observation": [1, 1], "item": ["a", "b"], "position": ["x", "y"]}), "numeric positions"),
        (pd.DataFrame({"observation": [1, None], "item": ["a", "b"], "position": [1, 2]}), "missing observation id"),
        (pd.DataFrame({"observation": [1, 2], "item": ["a", "b"], "position": [1, 2]}), "holds 1 item"),
        (pd.DataFrame({"observation": [], "item": [], "position": []}), "no rows"),
    ],
)
def test_rankings_from_long_table_errors(frame, match):
    with pytest.raises((InputError, InputTypeError), match=match):
        Rankings.from_dataframe(frame)


def test_from_dataframe_needs_a_dataframe():
    with pytest.raises(InputTypeError, match="DataFrame"):
        Rankings.from_dataframe({"observation": [1]})


# -- Choices ----------------------------------------------------------------------------------------
def test_choices_store_the_chosen_item_first():
    c = Choices(["b", 3], [["a", "b", 3], [3, "a"]])
    assert c.observation(0) == ["b", "a", 3] and c.observation(1) == [3, "a"]
    assert c.n_stages.tolist() == [1, 1]
    table = c.to_dataframe()
    assert table["chosen"].tolist() == [True, False, False, True, False]
    again = Choices.from_dataframe(table)
    assert again.members.tolist() == c.members.tolist()


@pytest.mark.parametrize(
    "chosen, sets, error, match",
    [
        (["a"], [["b", "c"]], InputError, "choice 0: chosen item 'a' is not among its alternatives"),
        (["a", "b"], [["a", "b"]], ShapeMismatchError, "chosen has 2 entries but alternatives has 1"),
        (["a"], [["a"]], InputError, "holds 1 item"),
        (["a"], [["a", "b", "b"]], InputError, "choice 0 names item 'b' twice"),
        ("a", [["a", "b"]], InputTypeError, "single value"),
    ],
)
def test_choices_reject_bad_input(chosen, sets, error, match):
    with pytest.raises(error, match=match):
        Choices(chosen, sets)


def test_choices_from_long_table():
    df = pd.DataFrame({"observation": ["s1", "s1", "s1", "s2", "s2"], "item": ["x", "y", "z", "z", "x"],
                       "chosen": [False, False, True, False, True]})
    c = Choices.from_dataframe(df)
    assert c.observation(0) == ["z", "x", "y"] and c.observation(1) == ["x", "z"]
    two = df.assign(chosen=[1, 1, 0, 0, 1])
    with pytest.raises(InputError, match="observation 's1' has 2 chosen items"):
        Choices.from_dataframe(two)
    with pytest.raises(InputError, match="boolean or 0/1; data row 1 has 2"):
        Choices.from_dataframe(df.assign(chosen=[2, 0, 0, 0, 1]))


# -- the pairwise breaking ------------------------------------------------------------------------
def test_pairwise_breaking_counts_every_later_item_of_a_ranking_and_every_other_item_of_a_choice():
    r = Rankings([[2, 0, 1, 3], [1, 2]])
    table = r.pairwise().to_dataframe()
    got = sorted(zip(table["j"], table["i"]))  # (winner, loser)
    assert got == sorted([(2, 0), (2, 1), (2, 3), (0, 1), (0, 3), (1, 3), (1, 2)])
    assert set(table["y"]) == {1}
    c = Choices(["b"], [["a", "b", "c"]]).pairwise().to_dataframe()
    assert sorted(zip(c["j"], c["i"])) == [("b", "a"), ("b", "c")]


# -- fuzzing: readers either build a consistent object or raise paucity's errors --------------------
labels = st.one_of(st.integers(-3, 6), st.sampled_from(["a", "b", "c", "d"]), st.none(), st.floats(allow_nan=True))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.one_of(st.lists(st.lists(labels, max_size=5), max_size=5), labels, st.text(max_size=3)))
def test_rankings_reader_only_raises_paucity_errors(rows):
    try:
        r = Rankings(rows)
    except PaucityError:
        return
    assert r.n_observations == len(rows)
    for k, row in enumerate(rows):
        assert r.observation(k) == list(row)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    observation=st.lists(st.integers(0, 3), min_size=0, max_size=10),
    data=st.data(),
)
def test_long_table_readers_only_raise_paucity_errors(observation, data):
    n = len(observation)
    items = data.draw(st.lists(labels, min_size=n, max_size=n))
    position = data.draw(st.lists(st.one_of(st.integers(0, 4), st.floats(allow_nan=True)), min_size=n, max_size=n))
    chosen = data.draw(st.lists(st.one_of(st.booleans(), st.integers(0, 2)), min_size=n, max_size=n))
    df = pd.DataFrame({"observation": observation, "item": items, "position": position, "chosen": chosen})
    try:
        r = Rankings.from_dataframe(df)
    except PaucityError:
        pass
    else:
        assert r.offsets[-1] == n
        back = r.to_dataframe()
        assert len(back) == n
    try:
        c = Choices.from_dataframe(df)
    except PaucityError:
        pass
    else:
        assert c.n_observations == len(set(observation))
        assert all(df["chosen"].astype(bool).groupby(df["observation"]).sum() == 1)


def test_from_frame_is_the_constructor_and_from_dataframe_its_alias():
    df = pd.DataFrame({"observation": [1, 1, 2, 2], "item": ["a", "b", "b", "a"], "position": [1, 2, 1, 2]})
    assert Rankings.from_frame(df).to_dataframe().equals(Rankings.from_dataframe(df).to_dataframe())
    picks = pd.DataFrame({"observation": [1, 1, 2, 2], "item": ["a", "b", "b", "a"], "chosen": [1, 0, 0, 1]})
    assert Choices.from_frame(picks).to_dataframe().equals(Choices.from_dataframe(picks).to_dataframe())
    with pytest.raises(InputError, match="missing observation id at data row 2"):
        Rankings.from_frame(df.assign(observation=[1, None, 2, 2]))
