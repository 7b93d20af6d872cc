"""Clustering by item names: reading similarity matrices, the simulation, and sessions in a database."""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import InputError, InputTypeError, PaucityError, ParameterError, ReaderError, ShapeMismatchError
from paucity.clustering import (
    ActiveSpectralClustering,
    BetaNoise,
    MatrixOracle,
    MeasurementStore,
    misclustering_error,
    next_pairs,
    read_answers,
    read_items,
    read_pairs,
    read_similarities,
    record_answers,
    simulate,
    spectral_bisection,
    withdraw_asks,
)


def similarities(n=12, seed=0, shift=3.0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [shift, 0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)


NAMES = ["00024", "NA", "3", "00003", "null", "b", "c", "d", "e", "f", "g", "h"]


# -- reading a complete matrix -------------------------------------------------------------------------------------
def test_a_square_csv_as_pandas_writes_it_keeps_names_as_text(tmp_path):
    W = similarities()
    frame = pd.DataFrame(W, index=NAMES, columns=NAMES)
    frame.to_csv(tmp_path / "W.csv")  # the header's first field is empty
    read = read_similarities(tmp_path / "W.csv")
    assert list(read.index) == NAMES and list(read.columns) == NAMES
    np.testing.assert_array_equal(read.to_numpy(), W)


def test_square_tables_of_every_format_read_alike(tmp_path):
    W = similarities()
    frame = pd.DataFrame(W, index=pd.Index(NAMES, name="item"), columns=NAMES)
    frame.to_csv(tmp_path / "W.tsv", sep="\t")
    frame.to_csv(tmp_path / "W.txt", sep=" ")
    frame.to_parquet(tmp_path / "W.parquet")
    frame.iloc[:, ::-1].to_csv(tmp_path / "shuffled.csv")  # columns in another order
    for name in ("W.tsv", "W.txt", "W.parquet", "shuffled.csv"):
        read = read_similarities(tmp_path / name)
        assert list(read.index) == NAMES, name
        np.testing.assert_array_equal(read.loc[NAMES, NAMES].to_numpy(), W)


def test_a_long_table_in_either_order_makes_the_same_matrix(tmp_path):
    W = similarities(n=6)
    names = NAMES[:6]
    rows = [(names[i], names[j], W[i, j]) if (i + j) % 2 else (names[j], names[i], W[i, j])
            for i in range(6) for j in range(i + 1, 6)]
    rows.append((names[2], names[2], 0.5))  # the diagonal is not used
    pd.DataFrame(rows, columns=["left", "right", "sim"]).to_csv(tmp_path / "pairs.csv", index=False)
    read = read_similarities(tmp_path / "pairs.csv", i_column="left", j_column="right", value_column="sim")
    order = [names.index(name) for name in read.index]
    np.testing.assert_allclose(read.to_numpy()[np.ix_(range(6), range(6))][~np.eye(6, dtype=bool)],
                               W[np.ix_(order, order)][~np.eye(6, dtype=bool)])
    both = pd.DataFrame(rows[:-1] + [(b, a, v) for a, b, v in rows[:-1]], columns=["i", "j", "value"])
    both.to_csv(tmp_path / "both.csv", index=False)  # both orders, agreeing: accepted, default columns
    pd.testing.assert_frame_equal(read_similarities(tmp_path / "both.csv").loc[read.index, read.index], read,
                                  check_names=False)


@pytest.mark.parametrize(
    "text, error, words",
    [
        (",a,b,c\na,1,0.5,0.2\nb,0.5,1,0.1\n", ShapeMismatchError, ["not a square matrix", "2 rows and 3 columns"]),
        (",a,b,c\na,1,0.5,0.2\nb,0.5,1,0.1\nd,0.2,0.1,1\n", InputError, ["row 'd'"]),
        (",a,b,c\na,1,0.5,x\nb,0.5,1,0.1\nc,0.2,0.1,1\n", InputError, ["'x'", "row 'a', column 'c'"]),
        (",a,b,a\na,1,0.5,0.2\nb,0.5,1,0.1\na,0.2,0.1,1\n", ReaderError, ["two columns named 'a'"]),
        ("a,b,c\n1,0.5,0.2\n", ShapeMismatchError, ["not a square matrix"]),
        ("i,j,value\na,b,0.5\nb,a,0.4\nb,c,0.1\n", InputError, ["not symmetric", "('b', 'a') is 0.4"]),
        ("i,j,value\na,b,0.5\na,b,0.5\nb,c,0.1\n", InputError, ["twice", "rows 1 and 2"]),
        ("i,j,value\na,b,yes\n", InputError, ["'yes'", "column 'value', data row 1"]),
        ("i,j,value\na,,0.5\n", InputError, ["no item name in column 'j'"]),
    ],
)
def test_malformed_tables_are_refused(tmp_path, text, error, words):
    path = tmp_path / "W.csv"
    path.write_text(text)
    with pytest.raises(error) as caught:
        read_similarities(path)
    for word in words:
        assert word in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_named_column_must_exist(tmp_path):
    path = tmp_path / "W.csv"
    path.write_text("i,j,value\na,b,0.5\n")
    with pytest.raises(InputError, match="no column 'sim' \\(the value column\\)"):
        read_similarities(path, value_column="sim")


# -- the simulation ------------------------------------------------------------------------------------------------
def test_simulate_is_the_estimator_on_the_matrix_with_its_error_curve():
    W = similarities(n=20, seed=2)
    frame = pd.DataFrame(W, index=[f"x{k}" for k in range(20)], columns=[f"x{k}" for k in range(20)])
    result = simulate(frame, budget=0.3, batch_size=2, interleave=True, random_state=4)
    reference = spectral_bisection(W)
    model = ActiveSpectralClustering(budget=0.3, batch_size=2, interleave=True, random_state=4)
    model.fit(MatrixOracle(W), reference=reference)
    np.testing.assert_array_equal(result.labels, model.labels_)
    np.testing.assert_array_equal(result.reference, reference)
    pd.testing.assert_frame_equal(result.history, model.history_)
    assert result.n_queries == model.n_queries_ == round(0.3 * 190) == result.budget
    assert result.error == misclustering_error(model.labels_, reference) == result.history["error"].iloc[-1]
    assert result.queries["i"].iloc[0] == f"x{model.queries_['i'].iloc[0]}"
    table = result.to_frame()
    assert table.columns.tolist() == ["item", "label", "reference", "embedding"]
    assert table["item"].tolist() == list(frame.index)
    assert result.to_dict()["fraction"] == pytest.approx(57 / 190)


def test_simulate_with_noise_draws_the_noise_from_its_own_seed():
    W = similarities(n=10, seed=3)
    result = simulate(W, budget=40, repeats=3, concentration=10, adversarial=0.1, random_state=7)
    oracle = MatrixOracle(W, noise=BetaNoise(concentration=10, adversarial=0.1), random_state=np.random.default_rng([7, 1]))
    model = ActiveSpectralClustering(budget=40, repeats=3, random_state=7).fit(oracle, reference=spectral_bisection(W))
    np.testing.assert_array_equal(result.queries["value"].to_numpy(), model.queries_["value"].to_numpy())
    assert result.queries["repeat"].max() > 1
    again = simulate(W, budget=40, repeats=3, concentration=10, adversarial=0.1, random_state=7)
    pd.testing.assert_frame_equal(again.queries, result.queries)


def test_more_clusters_are_scored_against_the_complete_matrix_with_as_many():
    W = np.kron(np.eye(3), np.full((5, 5), 0.9)) + 0.05
    np.fill_diagonal(W, 1)
    result = simulate(W, budget=1.0, n_clusters=3, random_state=0)
    assert sorted(np.unique(result.reference)) == [0, 1, 2]
    assert result.error == 0.0


@pytest.mark.parametrize(
    "change, error, words",
    [
        (lambda W: W.__setitem__((0, 1), np.nan), InputError, ["no value for the pair ('0', '1')"]),
        (lambda W: W.__setitem__((2, 3), 1.5), InputError, ["1.5", "in [0, 1]"]),
        (lambda W: W.__setitem__((2, 3), -0.1), InputError, ["-0.1", "in [0, 1]"]),
        (lambda W: W.__setitem__((4, 1), 0.0), InputError, ["not symmetric", "('1', '4')"]),
    ],
)
def test_bad_matrices_are_refused_naming_the_items(change, error, words):
    W = similarities(n=6)
    change(W)
    with pytest.raises(error) as caught:
        simulate(W)
    for word in words:
        assert word in str(caught.value)


def test_the_diagonal_is_not_used():
    W = similarities(n=8)
    other = W.copy()
    np.fill_diagonal(other, np.nan)
    assert simulate(other, budget=10, random_state=0).labels.tolist() == simulate(W, budget=10, random_state=0).labels.tolist()


def test_too_few_items_a_budget_too_large_and_no_repeats_are_refused():
    with pytest.raises(InputError, match="2 item"):
        simulate(np.array([[1, 0.5], [0.5, 1]]))
    with pytest.raises(ShapeMismatchError, match="square"):
        simulate(np.ones((3, 4)))
    with pytest.raises(ParameterError, match="budget=16 .* 15 possible"):
        simulate(similarities(n=6), budget=16)
    with pytest.raises(ParameterError, match="repeats"):
        simulate(similarities(n=6), repeats=0)
    with pytest.raises(ParameterError, match="concentration too"):
        simulate(similarities(n=6), adversarial=0.1)


# -- sessions ------------------------------------------------------------------------------------------------------
ITEMS = [f"p{k:02d}" for k in range(12)]


def answer_all(asks, W, names=ITEMS):
    position = {name: k for k, name in enumerate(names)}
    values = [W[position[i], position[j]] for i, j in zip(asks.pairs["i"], asks.pairs["j"])]
    return asks.pairs.assign(value=values)


def test_a_session_answered_round_by_round_is_the_estimator_with_batches(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    asks = next_pairs(database, ITEMS, budget=30, batch_size=4, random_state=3)
    assert asks.created and asks.n_new == 4 and asks.budget == 30
    rounds = 0
    while len(asks.pairs):
        done = record_answers(database, answer_all(asks, W), source=f"round-{rounds}")
        asks = next_pairs(database)
        rounds += 1
    assert asks.spent and rounds == 8  # 7 rounds of 4, one of 2
    model = ActiveSpectralClustering(budget=30, batch_size=4, random_state=3).fit(MatrixOracle(W))
    store = MeasurementStore(database)
    measured = store.measurements()
    np.testing.assert_array_equal(measured[["i", "j"]].to_numpy(), model.queries_[["i", "j"]].to_numpy())
    np.testing.assert_array_equal(done.labels, model.labels_)
    assert measured["source"].iloc[-1] == "round-7"
    assert done.to_frame().columns.tolist() == ["item", "label", "embedding"]


def test_asking_again_before_answers_gives_the_same_pairs_and_tops_them_up(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    first = next_pairs(database, ITEMS, budget=20, batch_size=5, random_state=0)
    again = next_pairs(database, ITEMS)  # the same items may be given again
    pd.testing.assert_frame_equal(again.pairs, first.pairs)
    assert again.n_new == 0 and not again.created
    partial = answer_all(first, W).iloc[:2]
    result = record_answers(database, partial)
    assert (result.n_recorded, result.n_pending) == (2, 3)
    topped = next_pairs(database, batch_size=6)
    pd.testing.assert_frame_equal(topped.pairs.iloc[:3], first.pairs.iloc[2:].reset_index(drop=True))
    assert topped.n_new == 3 and len(topped.pairs) == 6


def test_answers_read_again_are_recorded_once_and_empty_values_wait(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    asks = next_pairs(database, ITEMS, budget=20, batch_size=5, random_state=0)
    answers = answer_all(asks, W)
    answers.loc[3, "value"] = np.nan
    first = record_answers(database, answers)
    assert (first.n_recorded, first.n_unanswered, first.n_read_before, first.n_pending) == (4, 1, 0, 1)
    filled = answer_all(asks, W)
    second = record_answers(database, filled)
    assert (second.n_recorded, second.n_read_before, second.n_pending, second.n_measured) == (1, 4, 0, 5)
    swapped = filled.rename(columns={"i": "j", "j": "i"})  # either order names the same pair
    assert record_answers(database, swapped).n_read_before == 5
    assert len(MeasurementStore(database)) == 5


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda a: a.assign(i=["zz"] + list(a["i"].iloc[1:])), ["row 0 names 'zz'", "not an item"]),
        (lambda a: a.assign(j=a["i"]), ["pairs", "with itself"]),
        (lambda a: a.assign(value=[1.5] + [0.5] * (len(a) - 1)), ["1.5", "in [0, 1]"]),
        (lambda a: a.assign(value=[np.inf] + [0.5] * (len(a) - 1)), ["inf", "in [0, 1]"]),
        (lambda a: pd.concat([a, a.iloc[:1].assign(value=0.25)], ignore_index=True), ["rows 0 and 5", "asked once"]),
        (lambda a: pd.concat([a, pd.DataFrame({"i": ["p00"], "j": ["p11"], "value": [0.5]})], ignore_index=True),
         ["('p00', 'p11')", "never asked"]),
        (lambda a: a.drop(columns="value"), ["no column 'value'"]),
    ],
)
def test_bad_answers_are_refused_and_nothing_is_recorded(tmp_path, edit, words):
    W = similarities()
    database = tmp_path / "s.db"
    asks = next_pairs(database, ITEMS, budget=20, batch_size=5, random_state=0)
    answers = answer_all(asks, W)
    if "p00" in set(answers["i"]) and "p11" in set(answers["j"]):  # keep the never-asked pair never asked
        pytest.skip("the pair was asked")
    with pytest.raises(PaucityError) as caught:
        record_answers(database, edit(answers))
    for word in words:
        assert word in str(caught.value)
    assert len(MeasurementStore(database)) == 0 and len(MeasurementStore(database).pending()) == 5


def test_an_answer_to_a_pair_answered_already_is_refused_unless_it_is_the_same(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    asks = next_pairs(database, ITEMS, budget=20, batch_size=5, random_state=0)
    answers = answer_all(asks, W)
    record_answers(database, answers)
    with pytest.raises(InputError, match="answered already .* does not wait for another"):
        record_answers(database, answers.assign(value=0.123))


def test_a_resumed_session_keeps_its_settings(tmp_path):
    database = tmp_path / "s.db"
    next_pairs(database, ITEMS, budget=20, batch_size=5, strategy="shamir_tishby", random_state=0)
    with pytest.raises(ParameterError, match="strategy='shamir_tishby'; strategy='random' would make another session"):
        next_pairs(database, strategy="random")
    with pytest.raises(ParameterError, match="random_state=0"):
        next_pairs(database, random_state=1)
    assert next_pairs(database, strategy="SHAMIR_TISHBY", random_state=0).n_new == 0
    resumed = next_pairs(database, budget=40, batch_size=8)  # budget and batch size may change
    assert resumed.budget == 40 and resumed.n_new == 3 and resumed.settings["strategy"] == "shamir_tishby"
    with pytest.raises(InputError, match="the session has 12 items but items names 3"):
        next_pairs(database, ["a", "b", "c"])


@pytest.mark.parametrize(
    "items, settings, error, words",
    [
        (None, {}, ParameterError, ["new database", "items="]),
        (["a", "b"], {}, InputError, ["2 item(s)", "at least 3"]),
        (["a", "b", "a"], {}, InputError, ["'a' twice"]),
        (["a", "", "c"], {}, InputError, ["no name at position 1"]),
        (ITEMS, {"budget": 67}, ParameterError, ["budget=67", "66 possible"]),
        (ITEMS, {"repeats": 0}, ParameterError, ["repeats"]),
        (ITEMS, {"n_clusters": 13}, ParameterError, ["n_clusters=13"]),
        (ITEMS, {"random_state": -1}, ParameterError, ["random_state"]),
        (ITEMS, {"strategy": "best"}, ParameterError, ["strategy"]),
    ],
)
def test_a_session_that_cannot_start_leaves_no_database(tmp_path, items, settings, error, words):
    database = tmp_path / "s.db"
    with pytest.raises(error) as caught:
        next_pairs(database, items, **settings)
    for word in words:
        assert word in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_answers_without_a_session_create_nothing(tmp_path):
    answers = pd.DataFrame({"i": ["a"], "j": ["b"], "value": [0.5]})
    with pytest.raises(InputError, match="holds no session"):
        record_answers(tmp_path / "none.db", answers)
    assert list(tmp_path.iterdir()) == []
    store = MeasurementStore(tmp_path / "bare.db", n_items=4)  # a store made from Python, without item names
    store.close()
    with pytest.raises(InputError, match="no session with item names"):
        record_answers(tmp_path / "bare.db", answers)


def test_a_database_of_another_program_is_refused_untouched(tmp_path):
    database = tmp_path / "other.db"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE photos (name TEXT)")
    before = database.read_bytes()
    with pytest.raises(ReaderError, match="written by another program"):
        next_pairs(database, ITEMS)
    with pytest.raises(ReaderError, match="written by another program"):
        record_answers(database, pd.DataFrame({"i": ["a"], "j": ["b"], "value": [0.5]}))
    assert database.read_bytes() == before


def test_a_store_started_from_python_continues_by_name(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    ActiveSpectralClustering(budget=10, batch_size=5, random_state=2, store=database).fit(MatrixOracle(W))
    asks = next_pairs(database, ITEMS, budget=20, batch_size=5)
    assert asks.n_measured == 10 and asks.settings["random_state"] == 2 and asks.n_new == 5


def test_reading_items_and_answers(tmp_path):
    (tmp_path / "items.csv").write_text("photo,room\n00024,kitchen\nNA,hall\n3,hall\n")
    assert read_items(tmp_path / "items.csv") == ["00024", "NA", "3"]
    assert read_items(tmp_path / "items.csv", item_column="room") == ["kitchen", "hall", "hall"]
    with pytest.raises(InputError, match="no column 'name'"):
        read_items(tmp_path / "items.csv", item_column="name")
    (tmp_path / "a.tsv").write_text("left\tright\tsim\n00024\tNA\t0.5\nNA\t3\t\n")
    answers = read_answers(tmp_path / "a.tsv", i_column="left", j_column="right", value_column="sim")
    assert answers["i"].tolist() == ["00024", "NA"] and np.isnan(answers["value"].iloc[1])
    (tmp_path / "bad.csv").write_text("i,j,value\na,b,0.5\nc,,0.5\n")
    with pytest.raises(InputError, match="data row 2 but names no item in column 'j'"):
        read_answers(tmp_path / "bad.csv")


# -- withdrawing asks ----------------------------------------------------------------------------------------------
def test_withdrawn_asks_free_the_budget_and_are_asked_again(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    asks = next_pairs(database, ITEMS, budget=8, batch_size=5, random_state=0)
    record_answers(database, answer_all(asks, W).iloc[:1])
    gone = withdraw_asks(database, asks.pairs.iloc[[3, 1]].rename(columns={"i": "j", "j": "i"}))  # either order
    pd.testing.assert_frame_equal(gone.to_frame(), asks.pairs.iloc[[3, 1]][["i", "j"]].reset_index(drop=True))
    assert (gone.n_withdrawn, gone.n_pending, gone.n_measured, gone.budget) == (2, 2, 1, 8)
    store = MeasurementStore(database)  # reopened: the withdrawal is in the database
    assert len(store.pending()) == 2 and len(store) == 1
    store.close()
    with pytest.raises(InputError, match="never asked \\(or was withdrawn\\)"):
        record_answers(database, answer_all(asks, W).iloc[[3]])
    again = next_pairs(database)  # 8 - 1 measured - 2 pending: 5 may go out, batch_size 5 tops up 3
    assert again.n_new == 3 and len(again.pairs) == 5
    pd.testing.assert_frame_equal(again.pairs.iloc[:2], asks.pairs.iloc[[2, 4]].reset_index(drop=True))
    everything = withdraw_asks(database)  # every pending ask, in the order asked
    pd.testing.assert_frame_equal(everything.withdrawn, again.pairs[["i", "j"]])
    assert (everything.n_pending, everything.n_measured) == (0, 1)
    assert withdraw_asks(database).n_withdrawn == 0  # nothing pending: nothing to withdraw, no error


def test_withdrawing_every_ask_gives_the_same_pairs_again(tmp_path):
    database = tmp_path / "s.db"
    asks = next_pairs(database, ITEMS, budget=20, batch_size=5, random_state=0)
    withdraw_asks(database)
    again = next_pairs(database)
    assert again.n_new == 5
    pd.testing.assert_frame_equal(again.pairs, asks.pairs)  # nothing measured: the same choice


@pytest.mark.parametrize(
    "edit, error, words",
    [
        (lambda a: a.assign(i=["zz"] + list(a["i"].iloc[1:])), InputError, ["row 0 names 'zz'", "not an item"]),
        (lambda a: a.assign(j=a["i"]), InputError, ["row 0 pairs", "with itself"]),
        ("never", InputError,
         ["row 5 withdraws ('NEVER_I', 'NEVER_J'), which does not wait for an answer (it was never asked, or was "
          "withdrawn); withdraw only pairs that wait for an answer (5 do). Nothing was withdrawn."]),
        (lambda a: pd.concat([a, a.iloc[[2]]], ignore_index=True), InputError,
         ["row 5 withdraws", "named by rows 2 and 5 but was asked once"]),
        ("answered", InputError, ["row 0 withdraws", "answered already"]),
        (lambda a: a.iloc[:0], InputError, ["names no pair to withdraw", "pairs=None"]),
        (lambda a: a.drop(columns="j"), InputError, ["no column 'j'"]),
        (lambda a: a.assign(i=[None] + list(a["i"].iloc[1:])), InputError, ["row 0 has no item in column 'i'"]),
        (lambda a: a.to_numpy(), InputTypeError, ["pandas DataFrame with columns i and j"]),
    ],
)
def test_bad_withdrawals_are_refused_and_nothing_is_withdrawn(tmp_path, edit, error, words):
    W = similarities()
    database = tmp_path / "s.db"
    asks = next_pairs(database, ITEMS, budget=20, batch_size=6, random_state=0)
    record_answers(database, answer_all(asks, W).iloc[:1])
    pending = asks.pairs.iloc[1:][["i", "j"]].reset_index(drop=True)
    asked = {frozenset(pair) for pair in zip(asks.pairs["i"], asks.pairs["j"])}
    never = next((a, b) for a in ITEMS for b in ITEMS if a < b and frozenset((a, b)) not in asked)
    if edit == "answered":
        pairs = asks.pairs.iloc[[0, 1, 2]][["i", "j"]]
    elif edit == "never":
        pairs = pd.concat([pending, pd.DataFrame({"i": [never[0]], "j": [never[1]]})], ignore_index=True)
    else:
        pairs = edit(pending)
    before = MeasurementStore(database).pending().tolist()
    with pytest.raises(error) as caught:
        withdraw_asks(database, pairs)
    for word in words:
        assert word.replace("NEVER_I", never[0]).replace("NEVER_J", never[1]) in str(caught.value)
    assert "\n" not in str(caught.value)
    store = MeasurementStore(database)
    assert store.pending().tolist() == before and len(before) == 5 and len(store) == 1


def test_withdrawing_without_a_session_creates_nothing(tmp_path):
    with pytest.raises(InputError, match="holds no session"):
        withdraw_asks(tmp_path / "none.db")
    assert list(tmp_path.iterdir()) == []
    MeasurementStore(tmp_path / "bare.db", n_items=4).close()
    with pytest.raises(InputError, match="no session with item names"):
        withdraw_asks(tmp_path / "bare.db")


def test_reading_pairs(tmp_path):
    (tmp_path / "p.tsv").write_text("left\tright\tvalue\n00024\tNA\t\nNA\t3\t0.5\n")
    pairs = read_pairs(tmp_path / "p.tsv", i_column="left", j_column="right")
    assert pairs.columns.tolist() == ["i", "j"] and pairs.index.tolist() == [1, 2] and pairs.index.name == "row"
    assert pairs["i"].tolist() == ["00024", "NA"] and pairs["j"].tolist() == ["NA", "3"]
    (tmp_path / "bad.csv").write_text("i,j\na,b\nc,\n")
    with pytest.raises(InputError, match="no item name in column 'j', data row 2; name both items"):
        read_pairs(tmp_path / "bad.csv")
    with pytest.raises(InputError, match="no column 'i' \\(the i column\\).*Name the columns of the two items\\."):
        read_pairs(tmp_path / "p.tsv")
    (tmp_path / "header.csv").write_text("i,j\n")
    with pytest.raises(ReaderError, match="a header but no rows"):
        read_pairs(tmp_path / "header.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ReaderError, match="is empty"):
        read_pairs(tmp_path / "empty.csv")
    with pytest.raises(ParameterError, match="i_column"):
        read_pairs(tmp_path / "p.tsv", i_column=3)


# -- fuzzing the answers reader ------------------------------------------------------------------------------------
CELLS = st.one_of(
    st.sampled_from(["p00", "p01", "p05", "p11", "zz", "", "NA", "nan", "0.5", "1", "0", "-1", "1e9", "inf", "x",
                     '"p00"', "p00,p01", " p00", "0.25 ", "\u00e9"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=5),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """A session over ITEMS with its first five pairs asked, and those pairs; each example copies the database."""
    database = tmp_path_factory.mktemp("started") / "s.db"
    asked = next_pairs(database, ITEMS, budget=20, batch_size=5, random_state=0).pairs
    return database, asked


def copy_of(database, folder):
    """The database copied whole (through SQLite's backup, so nothing still in its write-ahead log is lost)."""
    copy = folder / database.name
    with sqlite3.connect(database) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    source.close()
    target.close()
    return copy


HEADERS = st.one_of(
    st.just(["i", "j", "value"]),
    st.permutations(["i", "j", "value"]),
    st.lists(st.sampled_from(["i", "j", "value", "worker", "", "i"]), min_size=0, max_size=4),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(header=HEADERS, rows=st.lists(st.lists(CELLS, min_size=0, max_size=4), max_size=6),
       separator=st.sampled_from([",", ";", "\t"]), ending=st.sampled_from([".csv", ".tsv", ".txt"]))
def test_any_answers_file_is_read_and_recorded_or_refused_with_a_paucity_error(tmp_path_factory, started, header,
                                                                               rows, separator, ending):
    folder = tmp_path_factory.mktemp("fuzz")
    database = copy_of(started[0], folder)
    path = folder / f"answers{ending}"
    path.write_text("\n".join(separator.join(line) for line in [header, *rows]) + "\n", encoding="utf-8")
    store = MeasurementStore(database)
    try:
        answers = read_answers(path)
        record_answers(database, answers, source=path.name)
    except PaucityError as error:
        assert str(error) and "\n" not in str(error).strip()
        assert len(store) == 0 and len(store.pending()) == 5  # nothing recorded
        return
    finally:
        store.close()
    assert len(MeasurementStore(database)) <= 5


# -- fuzzing the pairs reader and withdrawals ----------------------------------------------------------------------
PAIR_HEADERS = st.one_of(
    st.just(["i", "j"]),
    st.permutations(["i", "j", "value"]),
    st.lists(st.sampled_from(["i", "j", "value", "worker", "", "i"]), min_size=0, max_size=4),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(header=PAIR_HEADERS, rows=st.lists(st.lists(CELLS, min_size=0, max_size=4), max_size=6),
       separator=st.sampled_from([",", ";", "\t"]), ending=st.sampled_from([".csv", ".tsv", ".txt"]))
def test_any_pairs_file_is_withdrawn_whole_or_refused_with_a_paucity_error(tmp_path_factory, started, header, rows,
                                                                           separator, ending):
    folder = tmp_path_factory.mktemp("fuzz")
    database = copy_of(started[0], folder)
    asked = started[1]
    path = folder / f"pairs{ending}"
    path.write_text("\n".join(separator.join(line) for line in [header, *rows]) + "\n", encoding="utf-8")
    try:
        done = withdraw_asks(database, read_pairs(path))
    except PaucityError as error:
        assert str(error) and "\n" not in str(error).strip()
        store = MeasurementStore(database)
        assert store.pending().shape == (5, 2)  # nothing withdrawn
        store.close()
        return
    named = {frozenset(pair) for pair in zip(done.withdrawn["i"], done.withdrawn["j"])}
    assert named <= {frozenset(pair) for pair in zip(asked["i"], asked["j"])}
    assert done.n_withdrawn == len(named) == len(read_pairs(path)) and done.n_pending == 5 - done.n_withdrawn
