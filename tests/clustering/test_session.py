"""ClusteringSession: one owner of a session in a database, its verbs, its settings written once, and its refusals.

Tests taking the ``database`` fixture run on an SQLite file and on a fresh database of a throw-away PostgreSQL
server. The concurrency of many processes on one session is tested in ``test_concurrency.py``.
"""

from __future__ import annotations

import pickle
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paucity._errors import InputError, InputTypeError, PaucityError, ParameterError, ReaderError
from paucity.clustering import (
    ActiveSpectralClustering,
    ClusteringSession,
    MatrixOracle,
    MeasurementStore,
    SessionExistsError,
    next_pairs,
    read_answers,
    read_pairs,
    record_answers,
    withdraw_asks,
)

from ._v1_store import write_version_1


def similarities(n=12, seed=0, shift=3.0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [shift, 0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)


ITEMS = [f"p{k:02d}" for k in range(12)]


def answer_all(asks, W, names=ITEMS):
    position = {name: k for k, name in enumerate(names)}
    values = [W[position[i], position[j]] for i, j in zip(asks.pairs["i"], asks.pairs["j"])]
    return asks.pairs.assign(value=values)


def started(database, **settings):
    return ClusteringSession.create(database, ITEMS, **{"budget": 20, "batch_size": 5, "random_state": 0, **settings})


# -- the loop, round by round --------------------------------------------------------------------------------------
def test_a_session_answered_round_by_round_is_the_estimator_with_batches(database):
    W = similarities()
    with ClusteringSession.create(database, ITEMS, budget=30, batch_size=4, random_state=3) as session:
        assert session.created and session.budget == 30
        asks = session.ask()
        assert asks.n_new == 4 and asks.budget == 30 and asks.annotator == ""
        rounds = 0
        while len(asks.pairs):
            done = session.record(answer_all(asks, W), source=f"round-{rounds}")
            asks = session.ask()
            rounds += 1
        assert asks.spent and rounds == 8  # 7 rounds of 4, one of 2
        measured = session.answers()
    model = ActiveSpectralClustering(budget=30, batch_size=4, random_state=3).fit(MatrixOracle(W))
    names = np.asarray(ITEMS, dtype=object)
    np.testing.assert_array_equal(measured[["i", "j"]].to_numpy(), names[model.queries_[["i", "j"]].to_numpy()])
    np.testing.assert_array_equal(done.labels, model.labels_)
    assert measured["source"].iloc[-1] == "round-7"
    assert done.to_frame().columns.tolist() == ["item", "label", "embedding"]


def test_sqlite_and_postgresql_give_the_same_pairs_for_the_same_random_state(tmp_path, postgres_server):
    W = similarities(n=12, seed=5)
    chosen = []
    for database in (str(tmp_path / "s.db"), postgres_server.new_database()):
        pairs = []
        with ClusteringSession.create(database, ITEMS, budget=24, batch_size=6, interleave=True,
                                      random_state=11) as session:
            for who in ("ann", "bob", "ann", "cat"):
                asks = session.ask(3, annotator=who)
                pairs.append(asks.pairs.copy())
                session.record(answer_all(asks, W), annotator=who)
        chosen.append(pd.concat(pairs, ignore_index=True))
    pd.testing.assert_frame_equal(chosen[0], chosen[1])


# -- asking --------------------------------------------------------------------------------------------------------
def test_asking_again_for_one_annotator_gives_their_pairs_and_another_gets_others(database):
    W = similarities()
    with started(database, batch_size=6) as session:
        first = session.ask(3, annotator="ann")
        again = session.ask(3, annotator="ann")  # a crash before the pairs were handed out loses nothing
        pd.testing.assert_frame_equal(again.pairs, first.pairs)
        assert again.n_new == 0 and first.n_new == 3
        other = session.ask(3, annotator="bob")
        assert other.n_new == 3 and not set(zip(other.pairs["i"], other.pairs["j"])) & set(
            zip(first.pairs["i"], first.pairs["j"]))
        full = session.ask(3, annotator="cat")  # six pairs wait, the session's batch size: none for cat
        assert len(full.pairs) == 0 and full.n_elsewhere == 6 and not full.spent
        session.record(answer_all(first, W).iloc[:2], annotator="ann")
        topped = session.ask(3, annotator="ann")  # ann holds one; two new ones make up three
        assert topped.pairs.iloc[:1].equals(first.pairs.iloc[2:].reset_index(drop=True)) and topped.n_new == 2


def test_pairs_nobody_holds_go_to_the_next_asker_and_leases_end(database):
    with started(database, batch_size=4) as session:
        held = session.ask(2, annotator="ann", lease_seconds=0)  # a lease that has ended at once
        taken = session.ask(2, annotator="bob")
        pd.testing.assert_frame_equal(taken.pairs, held.pairs)  # the ended leases are free: bob gets them
        assert taken.n_new == 0
        assert session.release("bob") == 2
        cat = session.ask(4, annotator="cat")
        assert cat.pairs.iloc[:2].equals(held.pairs) and cat.n_new == 2


def test_a_skipped_pair_never_goes_back_to_who_skipped_it(database):
    with started(database, batch_size=1, budget=3) as session:
        pair = session.ask(1, annotator="ann").pairs.iloc[0]
        session.skip("ann", pair["i"], pair["j"])
        assert len(session.ask(1, annotator="ann").pairs) == 0  # the one waiting pair is the one ann skipped
        assert session.ask(1, annotator="bob").pairs.iloc[0].equals(pair)
        with pytest.raises(ParameterError, match="was not shown to 'ann'"):
            session.skip("ann", pair["i"], pair["j"])
    with ClusteringSession.open(database) as reopened:  # the skip is in the database
        assert len(reopened.ask(1, annotator="ann").pairs) == 0


def test_an_annotator_answers_only_what_they_hold(database):
    W = similarities()
    with started(database, batch_size=4) as session:
        mine = session.ask(1, annotator="ann")
        theirs = session.ask(1, annotator="bob")
        with pytest.raises(ParameterError, match="was not shown to 'ann'"):
            session.record(answer_all(theirs, W), annotator="ann")
        done = session.record(answer_all(mine, W), annotator="ann")
        assert done.n_recorded == 1 and session.answers()["source"].tolist() == ["ann"]
        again = session.record(answer_all(mine, W), annotator="ann")  # sent twice: recorded once
        assert again.n_recorded == 0 and again.n_read_before == 1


def test_with_repeats_a_pair_is_not_handed_again_to_who_answered_it(database):
    W = similarities(n=4)
    with ClusteringSession.create(database, ITEMS[:4], budget=12, repeats=2, batch_size=1,
                                  random_state=0) as session:
        seen = set()
        for _ in range(12):
            asks = session.ask(1, annotator="ann")
            if not len(asks.pairs):
                break
            pair = (asks.pairs["i"].iloc[0], asks.pairs["j"].iloc[0])
            assert pair not in seen  # never a pair ann answered
            seen.add(pair)
            session.record(answer_all(asks, W, ITEMS[:4]), annotator="ann")
        assert not asks.spent and asks.n_elsewhere == 1  # a repeat of a pair ann answered waits for someone else
        repeat = session.ask(1, annotator="bob").pairs
        assert (repeat["i"].iloc[0], repeat["j"].iloc[0]) in seen


def test_ask_refuses_bad_arguments(database):
    with started(database) as session:
        for n in (0, -1, 1.5, True):
            with pytest.raises(ParameterError, match="n must be an integer >= 1"):
                session.ask(n)
        for name in ("", " ", "a\nb", "x" * 101, 3):
            with pytest.raises(ParameterError, match="annotator must be a name"):
                session.ask(annotator=name)
        with pytest.raises(ParameterError, match="lease_seconds"):
            session.ask(annotator="ann", lease_seconds=-1)


# -- recording -----------------------------------------------------------------------------------------------------
def test_answers_read_again_are_recorded_once_and_empty_values_wait(database):
    W = similarities()
    with started(database) as session:
        asks = session.ask()
        answers = answer_all(asks, W)
        answers.loc[3, "value"] = np.nan
        first = session.record(answers)
        assert (first.n_recorded, first.n_unanswered, first.n_read_before, first.n_pending) == (4, 1, 0, 1)
        filled = answer_all(asks, W)
        second = session.record(filled)
        assert (second.n_recorded, second.n_read_before, second.n_pending, second.n_measured) == (1, 4, 0, 5)
        swapped = filled.rename(columns={"i": "j", "j": "i"})  # either order names the same pair
        assert session.record(swapped).n_read_before == 5
    assert len(MeasurementStore(database)) == 5


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda a: a.assign(i=["zz"] + list(a["i"].iloc[1:])), ["data row 1 names 'zz'", "not an item"]),
        (lambda a: a.assign(j=a["i"]), ["pairs", "with itself"]),
        (lambda a: a.assign(value=[1.5] + [0.5] * (len(a) - 1)), ["1.5", "in [0, 1]"]),
        (lambda a: a.assign(value=[np.inf] + [0.5] * (len(a) - 1)), ["inf", "in [0, 1]"]),
        (lambda a: a.assign(value=["nan"] + [0.5] * (len(a) - 1)), ["has 'nan' in column 'value', data row 1"]),
        (lambda a: pd.concat([a, a.iloc[:1].assign(value=0.25)], ignore_index=True), ["data rows 1 and 6", "asked once"]),
        (lambda a: pd.concat([a, pd.DataFrame({"i": ["p00"], "j": ["p11"], "value": [0.5]})], ignore_index=True),
         ["('p00', 'p11')", "never asked"]),
        (lambda a: a.drop(columns="value"), ["no column 'value'"]),
    ],
)
def test_bad_answers_are_refused_and_nothing_is_recorded(tmp_path, edit, words):
    W = similarities()
    database = tmp_path / "s.db"
    with started(database) as session:
        answers = answer_all(session.ask(), W)
        if "p00" in set(answers["i"]) and "p11" in set(answers["j"]):  # keep the never-asked pair never asked
            pytest.skip("the pair was asked")
        with pytest.raises(PaucityError) as caught:
            session.record(edit(answers))
    for word in words:
        assert word in str(caught.value)
    assert len(MeasurementStore(database)) == 0 and len(MeasurementStore(database).pending()) == 5


def test_an_answer_to_a_pair_answered_already_is_refused_unless_it_is_the_same(database):
    W = similarities()
    with started(database) as session:
        answers = answer_all(session.ask(), W)
        session.record(answers)
        with pytest.raises(InputError, match="answered already .* does not wait for another"):
            session.record(answers.assign(value=0.123))
        with pytest.raises(InputTypeError, match="pandas DataFrame"):
            session.record(answers.to_numpy())


# -- settings, written once ----------------------------------------------------------------------------------------
def test_a_session_keeps_its_settings_and_refuses_others_naming_both(database):
    with started(database, strategy="shamir_tishby", price=0.05) as session:
        asks = session.ask()
    for changed, words in (
        ({"strategy": "random"}, "has strategy='shamir_tishby'; strategy='random' would make another session"),
        ({"random_state": 1}, "has random_state=0; random_state=1 would make another session"),
        ({"budget": 40, "batch_size": 8}, "has budget=20, batch_size=5; budget=40, batch_size=8 would make"),
        ({"price": 0.1}, "has price=0.05; price=0.1"),
    ):
        with pytest.raises(ParameterError) as caught:
            ClusteringSession.open(database, **changed)
        assert words in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
    with ClusteringSession.open(database, strategy="SHAMIR_TISHBY", random_state=0, budget=20) as same:
        assert same.ask().pairs.equals(asks.pairs) and not same.created
        assert same.settings.strategy == "shamir_tishby" and same.settings.price == 0.05
    with pytest.raises(InputError, match="the session has 12 items but items names 3"):
        ClusteringSession.open(database, items=["a", "b", "c"])
    with pytest.raises(SessionExistsError, match="holds a session already"):
        ClusteringSession.create(database, ITEMS)
    with ClusteringSession.create(database, ITEMS, exist_ok=True, budget=20) as resumed:
        assert not resumed.created and resumed.settings.random_state == 0
    with pytest.raises(ParameterError, match="would make another session"):
        ClusteringSession.create(database, ITEMS, exist_ok=True, batch_size=7)


def test_a_session_without_a_seed_draws_one_and_keeps_it(database):
    with ClusteringSession.create(database, ITEMS) as session:
        seed = session.settings.random_state
        assert isinstance(seed, int) and session.settings.batch_size == 20 and session.budget == 7
    with ClusteringSession.open(database) as again:
        assert again.settings.random_state == seed


def test_a_larger_budget_is_given_by_extend_only(database):
    W = similarities()
    with started(database, budget=5) as session:
        session.record(answer_all(session.ask(), W))
        assert session.ask().spent
        with pytest.raises(ParameterError, match="fewer than the session's 5"):
            session.extend(4)
        session.extend(8)
        assert session.budget == 8 and session.settings.budget == 8
        assert session.ask().n_new == 3
    with ClusteringSession.open(database) as reopened:
        assert reopened.budget == 8 and reopened.status().budget_left == 0


@pytest.mark.parametrize(
    "items, settings, error, words",
    [
        (["a", "b"], {}, InputError, ["2 item(s)", "at least 3"]),
        (["a", "b", "a"], {}, InputError, ["'a' twice"]),
        (["a", "", "c"], {}, InputError, ["no name at position 1"]),
        ("abc", {}, InputTypeError, ["sequence of item names"]),
        (ITEMS, {"budget": 67}, ParameterError, ["budget=67", "66 possible"]),
        (ITEMS, {"repeats": 0}, ParameterError, ["repeats"]),
        (ITEMS, {"n_clusters": 13}, ParameterError, ["n_clusters=13"]),
        (ITEMS, {"random_state": -1}, ParameterError, ["random_state"]),
        (ITEMS, {"strategy": "best"}, ParameterError, ["strategy"]),
        (ITEMS, {"strategy": "random", "interleave": True}, ParameterError, ["interleave", "changes nothing"]),
        (ITEMS, {"price": -1}, ParameterError, ["price"]),
        (ITEMS, {"price": float("inf")}, ParameterError, ["price must be a number >= 0, got inf"]),
    ],
)
def test_a_session_that_cannot_start_writes_nothing(tmp_path, items, settings, error, words):
    database = tmp_path / "s.db"
    with pytest.raises(error) as caught:
        ClusteringSession.create(database, items, **settings)
    for word in words:
        assert word in str(caught.value)
    assert list(tmp_path.iterdir()) == []
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(error):
        ClusteringSession.create(empty, items, **settings)
    assert empty.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_opening_what_holds_no_session_creates_nothing(tmp_path):
    with pytest.raises(InputError, match="holds no session \\(it is a file that does not exist\\)"):
        ClusteringSession.open(tmp_path / "none.db")
    (tmp_path / "empty.db").write_bytes(b"")
    with pytest.raises(InputError, match="holds no session \\(it is an empty file\\)"):
        ClusteringSession.open(tmp_path / "empty.db")
    assert (tmp_path / "empty.db").read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]
    MeasurementStore(tmp_path / "bare.db", n_items=4).close()  # a store made from Python, without a session
    with pytest.raises(InputError, match="holds no session \\(measurements at most"):
        ClusteringSession.open(tmp_path / "bare.db")
    with ClusteringSession.create(tmp_path / "bare.db", ["a", "b", "c", "d"]) as session:  # it can become one
        assert session.created


@pytest.mark.parametrize("make", ["table", "view"])
def test_a_database_of_another_program_is_refused_untouched(tmp_path, make):
    database = tmp_path / "other.db"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE photos (name TEXT)" if make == "table" else "CREATE VIEW photos AS SELECT 1")
    connection.close()
    before = database.read_bytes()
    with pytest.raises(ReaderError, match="written by another program"):
        ClusteringSession.create(database, ITEMS)
    with pytest.raises(ReaderError, match="written by another program"):
        ClusteringSession.open(database)
    assert database.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_a_damaged_session_record_is_one_clear_line(tmp_path):
    database = tmp_path / "s.db"
    started(database).close()
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE paucity_store SET value = '{\"strategy\": 1' WHERE key = 'settings'")
    connection.close()
    with pytest.raises(ReaderError, match="is damaged: its session record cannot be read") as caught:
        ClusteringSession.open(database)
    assert "\n" not in str(caught.value)


def test_a_store_started_by_the_estimator_is_a_session_over_numbered_items(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    ActiveSpectralClustering(budget=10, batch_size=5, random_state=2, store=database).fit(MatrixOracle(W))
    with ClusteringSession.open(database, batch_size=5, random_state=2) as session:
        assert session.items == tuple(str(k) for k in range(12))
        assert session.status().n_measured == 10 and session.ask().spent
        session.extend(20)
        assert session.ask().n_new == 5


def test_a_version_1_session_of_next_pairs_opens_with_its_settings(tmp_path):
    """A session started by an earlier paucity (its settings as JSON under "session") goes on unchanged."""
    database = tmp_path / "v1.db"
    write_version_1(database,
                    "INSERT INTO paucity_store VALUES ('n_items', '4'), ('items', '[\"a\", \"b\", \"c\", \"d\"]'), "
                    "('seed', '3'), ('session', '{\"strategy\": \"random\", \"interleave\": false, \"budget\": 5, "
                    "\"repeats\": 1, \"batch_size\": 2, \"n_clusters\": 2, \"random_state\": 3}');"
                    "INSERT INTO paucity_pending (i, j, time) VALUES (0, 1, 1.0);")
    with ClusteringSession.open(database) as session:
        assert session.items == ("a", "b", "c", "d") and session.settings.strategy == "random"
        assert session.settings.random_state == 3 and session.budget == 5
        asks = session.ask(2, annotator="ann")  # the old ask, held by nobody, comes first
        assert asks.pairs[["i", "j"]].values.tolist()[0] == ["a", "b"] and asks.n_new == 1


# -- withdrawing ---------------------------------------------------------------------------------------------------
def test_withdrawn_asks_free_the_budget_and_are_asked_again(database):
    W = similarities()
    with started(database, budget=8) as session:
        asks = session.ask()
        session.record(answer_all(asks, W).iloc[:1])
        gone = session.withdraw(asks.pairs.iloc[[3, 1]].rename(columns={"i": "j", "j": "i"}))  # either order
        pd.testing.assert_frame_equal(gone.to_frame(), asks.pairs.iloc[[3, 1]][["i", "j"]].reset_index(drop=True))
        assert (gone.n_withdrawn, gone.n_pending, gone.n_measured, gone.budget) == (2, 2, 1, 8)
    store = MeasurementStore(database)  # reopened: the withdrawal is in the database
    assert len(store.pending()) == 2 and len(store) == 1
    store.close()
    with ClusteringSession.open(database) as session:
        with pytest.raises(InputError, match="never asked \\(or was withdrawn\\)"):
            session.record(answer_all(asks, W).iloc[[3]])
        again = session.ask()  # 8 - 1 measured - 2 pending: 5 may go out, batch_size 5 tops up 3
        assert again.n_new == 3 and len(again.pairs) == 5
        pd.testing.assert_frame_equal(again.pairs.iloc[:2], asks.pairs.iloc[[2, 4]].reset_index(drop=True))
        everything = session.withdraw()  # every pending ask, in the order asked
        pd.testing.assert_frame_equal(everything.withdrawn, again.pairs[["i", "j"]])
        assert (everything.n_pending, everything.n_measured) == (0, 1)
        assert session.withdraw().n_withdrawn == 0  # nothing pending: nothing to withdraw, no error


def test_an_annotators_asks_are_withdrawn_together(database):
    with started(database, batch_size=6) as session:
        ann = session.ask(3, annotator="ann")
        bob = session.ask(2, annotator="bob")
        gone = session.withdraw(annotator="ann")
        pd.testing.assert_frame_equal(gone.to_frame(), ann.pairs[["i", "j"]])
        assert gone.n_pending == 2 and session.waiting()["annotator"].tolist() == ["bob", "bob"]
        with pytest.raises(ParameterError, match="pairs or an annotator, not both"):
            session.withdraw(bob.pairs, annotator="bob")


def test_withdrawing_every_ask_gives_the_same_pairs_again(database):
    with started(database) as session:
        asks = session.ask()
        session.withdraw()
        again = session.ask()
    assert again.n_new == 5
    pd.testing.assert_frame_equal(again.pairs, asks.pairs)  # nothing measured: the same choice


@pytest.mark.parametrize(
    "edit, error, words",
    [
        (lambda a: a.assign(i=["zz"] + list(a["i"].iloc[1:])), InputError, ["data row 1 names 'zz'", "not an item"]),
        (lambda a: a.assign(j=a["i"]), InputError, ["data row 1 pairs", "with itself"]),
        ("never", InputError,
         ["data row 6 withdraws ('NEVER_I', 'NEVER_J'), which does not wait for an answer (it was never asked, or was "
          "withdrawn); withdraw only pairs that wait for an answer (5 do). Nothing was withdrawn."]),
        (lambda a: pd.concat([a, a.iloc[[2]]], ignore_index=True), InputError,
         ["data row 6 withdraws", "named by data rows 3 and 6 but was asked once"]),
        ("answered", InputError, ["data row 1 withdraws", "answered already"]),
        (lambda a: a.iloc[:0], InputError, ["names no pair to withdraw", "pairs=None"]),
        (lambda a: a.drop(columns="j"), InputError, ["no column 'j'"]),
        (lambda a: a.assign(i=[None] + list(a["i"].iloc[1:])), InputError, ["no item name in column 'i', data row 1"]),
        (lambda a: a.to_numpy(), InputTypeError, ["pandas DataFrame with columns i and j"]),
    ],
)
def test_bad_withdrawals_are_refused_and_nothing_is_withdrawn(tmp_path, edit, error, words):
    W = similarities()
    database = tmp_path / "s.db"
    with started(database, batch_size=6) as session:
        asks = session.ask()
        session.record(answer_all(asks, W).iloc[:1])
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
            session.withdraw(pairs)
    for word in words:
        assert word.replace("NEVER_I", never[0]).replace("NEVER_J", never[1]) in str(caught.value)
    assert "\n" not in str(caught.value)
    store = MeasurementStore(database)
    assert store.pending().tolist() == before and len(before) == 5 and len(store) == 1


# -- what a session says of itself ---------------------------------------------------------------------------------
def test_status_counts_answers_pairs_waiting_cost_and_annotators(database):
    W = similarities()
    with started(database, budget=12, batch_size=6, price=0.05) as session:
        ann = session.ask(4, annotator="ann")
        session.ask(2, annotator="bob", lease_seconds=0)
        session.record(answer_all(ann, W), annotator="ann")
        status = session.status()
    assert (status.n_measured, status.n_pending, status.n_out, status.budget, status.budget_left) == (4, 2, 0, 12, 6)
    assert status.cost == 0.2 and not status.spent
    assert status.annotators.to_dict("list") == {"annotator": ["ann"], "n_answers": [4], "n_holding": [0]}
    summary = status.to_dict()
    assert summary["settings"]["price"] == 0.05 and sum(summary["cluster_sizes"].values()) == 12
    assert status.to_frame().columns.tolist() == ["item", "label", "embedding"]


def test_a_session_is_read_alike_from_another_process_and_after_pickling(database):
    W = similarities()
    with started(database) as session:
        session.record(answer_all(session.ask(), W))
        clusters = session.clusters()
        copy = pickle.loads(pickle.dumps(session))
    with copy:
        np.testing.assert_array_equal(copy.clusters().labels, clusters.labels)
        assert copy.ask(annotator="ann").n_new == 5


# -- the functions of earlier releases -----------------------------------------------------------------------------
def test_the_old_functions_warn_and_still_work(tmp_path):
    W = similarities()
    database = tmp_path / "s.db"
    with pytest.warns(FutureWarning, match="next_pairs is deprecated"):
        asks = next_pairs(database, ITEMS, budget=20, batch_size=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert len(asks.pairs) == 5 and next_pairs(database).n_new == 0
        done = record_answers(database, answer_all(asks, W).iloc[:2])
        assert done.n_recorded == 2
        assert withdraw_asks(database).n_withdrawn == 3


# -- fuzzing the answers reader, the pairs reader and the session's checks ------------------------------------------
CELLS = st.one_of(
    st.sampled_from(["p00", "p01", "p05", "p11", "zz", "", "NA", "nan", "0.5", "1", "0", "-1", "1e9", "inf", "x",
                     '"p00"', "p00,p01", " p00", "0.25 ", "\u00e9"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=5),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    """A session over ITEMS with its first five pairs asked, and those pairs; each example copies the database."""
    database = tmp_path_factory.mktemp("started") / "s.db"
    with started(database) as session:
        pairs = session.ask().pairs
    return database, pairs


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


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(header=HEADERS, rows=st.lists(st.lists(CELLS, min_size=0, max_size=4), max_size=6),
       separator=st.sampled_from([",", ";", "\t"]), ending=st.sampled_from([".csv", ".tsv", ".txt"]))
def test_any_answers_file_is_read_and_recorded_or_refused_with_a_paucity_error(tmp_path_factory, asked, header,
                                                                               rows, separator, ending):
    folder = tmp_path_factory.mktemp("fuzz")
    database = copy_of(asked[0], folder)
    path = folder / f"answers{ending}"
    path.write_text("\n".join(separator.join(line) for line in [header, *rows]) + "\n", encoding="utf-8")
    store = MeasurementStore(database)
    try:
        answers = read_answers(path)
        with ClusteringSession.open(database) as session:
            session.record(answers, source=path.name)
    except PaucityError as error:
        assert str(error) and "\n" not in str(error).strip()
        assert len(store) == 0 and len(store.pending()) == 5  # nothing recorded
        return
    finally:
        store.close()
    assert len(MeasurementStore(database)) <= 5


PAIR_HEADERS = st.one_of(
    st.just(["i", "j"]),
    st.permutations(["i", "j", "value"]),
    st.lists(st.sampled_from(["i", "j", "value", "worker", "", "i"]), min_size=0, max_size=4),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(header=PAIR_HEADERS, rows=st.lists(st.lists(CELLS, min_size=0, max_size=4), max_size=6),
       separator=st.sampled_from([",", ";", "\t"]), ending=st.sampled_from([".csv", ".tsv", ".txt"]))
def test_any_pairs_file_is_withdrawn_whole_or_refused_with_a_paucity_error(tmp_path_factory, asked, header, rows,
                                                                           separator, ending):
    folder = tmp_path_factory.mktemp("fuzz")
    database = copy_of(asked[0], folder)
    path = folder / f"pairs{ending}"
    path.write_text("\n".join(separator.join(line) for line in [header, *rows]) + "\n", encoding="utf-8")
    try:
        with ClusteringSession.open(database) as session:
            done = session.withdraw(read_pairs(path))
    except PaucityError as error:
        assert str(error) and "\n" not in str(error).strip()
        store = MeasurementStore(database)
        assert store.pending().shape == (5, 2)  # nothing withdrawn
        store.close()
        return
    named = {frozenset(pair) for pair in zip(done.withdrawn["i"], done.withdrawn["j"])}
    assert named <= {frozenset(pair) for pair in zip(asked[1]["i"], asked[1]["j"])}
    assert done.n_withdrawn == len(named) == len(read_pairs(path)) and done.n_pending == 5 - done.n_withdrawn


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(settings_=st.fixed_dictionaries({}, optional={
    "strategy": st.sampled_from(["iu_red", "random", "IU_RED", "x", 3]),
    "budget": st.one_of(st.integers(-2, 80), st.floats(-1, 2), st.just(float("nan"))),
    "batch_size": st.one_of(st.integers(-1, 30), st.just(2.5)),
    "repeats": st.integers(-1, 4),
    "n_clusters": st.integers(0, 14),
    "random_state": st.one_of(st.integers(-3, 2**40), st.just("seed")),
    "price": st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just("free")),
    "lease_seconds": st.one_of(st.floats(-5, 1e6), st.just(float("nan"))),
    "interleave": st.one_of(st.booleans(), st.just("yes")),
}))
def test_any_settings_start_a_session_or_are_refused_writing_nothing(tmp_path_factory, settings_):
    folder = tmp_path_factory.mktemp("settings")
    try:
        with ClusteringSession.create(folder / "s.db", ITEMS, **settings_) as session:
            assert 1 <= session.budget <= 66 * session.settings.repeats
    except PaucityError as error:
        assert str(error) and "\n" not in str(error).strip()
        assert list(folder.iterdir()) == []
