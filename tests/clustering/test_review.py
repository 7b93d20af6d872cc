"""A reviewer's tools on a session: disagreements and adjudication, the quality rule, quotas, work and pay, and the
rules a coordinator changes after the start."""

import re
import sqlite3

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from paucity._errors import InputError, ParameterError
from paucity.cli.application import app
from paucity.clustering import ClusteringSession, MeasurementStore, fiedler_vector
from paucity.clustering.session.review import IDLE_SECONDS, iso_times

ITEMS = ["a", "b", "c", "d", "e", "f"]
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00")


def answered_by_two(database, values_ann, bob_for):
    """A session with repeats=2 whose first batch ann answers, then bob answers the pairs asked again: ``bob_for``
    gives bob's answer from ann's to the same pair."""
    session = ClusteringSession.create(database, ITEMS, budget=30, batch_size=5, repeats=2, random_state=0,
                                       strategy="random", price=0.5)
    asks = session.ask(annotator="ann").pairs.assign(value=values_ann)
    session.record(asks, annotator="ann")
    ann = {frozenset((i, j)): value for i, j, value in zip(asks["i"], asks["j"], asks["value"])}
    again = session.ask(annotator="bob").pairs
    return session, asks, again.assign(value=[bob_for(ann.get(frozenset(p), 0.5)) for p in zip(again["i"], again["j"])])


def _flip(value):
    """bob's answer to a pair ann answered ``value``: the opposite of 0.9, a near one of 0.1, the same otherwise."""
    return {0.9: 0.1, 0.1: 0.2}.get(value, value)


def _estimate(session, decided=None):
    """Ŵ of a session's answers, built here: each pair's median, ``decided`` ({(i, j): value}) over it."""
    position = {name: k for k, name in enumerate(ITEMS)}
    W = np.eye(len(ITEMS))
    values = {pair: np.median(group["value"]) for pair, group in session.answers().groupby(["i", "j"])}
    for (a, b), value in {**values, **(decided or {})}.items():
        W[position[a], position[b]] = W[position[b], position[a]] = value
    return W


def test_disagreements_list_the_pairs_answered_by_two_people_most_spread_first(tmp_path):
    session, asks, bob = answered_by_two(tmp_path / "s.db", [0.9, 0.8, 0.1, 0.5, 0.5], _flip)
    session.record(bob, annotator="bob")
    table = session.disagreements()
    assert len(table) >= 1 and table["n_annotators"].eq(2).all()
    first = table.iloc[0]
    assert (first["min"], first["max"]) == (0.1, 0.9) and first["spread"] == pytest.approx(0.8)
    assert first["answers"] in ("ann: 0.9; bob: 0.1", "bob: 0.1; ann: 0.9")
    assert table["spread"].is_monotonic_decreasing and np.isnan(first["adjudicated"])
    assert session.disagreements(min_annotators=3).empty
    session.exclude("bob")  # an excluded annotator's answers leave the comparison
    assert session.disagreements().empty


def test_an_adjudicated_value_counts_for_the_learner_the_answers_are_kept_and_exports_show_both(tmp_path):
    database = tmp_path / "s.db"
    session, asks, bob = answered_by_two(database, [0.9, 0.8, 0.1, 0.5, 0.5], _flip)
    session.record(bob, annotator="bob")
    i, j = session.disagreements().iloc[0][["i", "j"]]
    with pytest.raises(InputError, match="has no answer yet"):
        unanswered = next((a, b) for a in ITEMS for b in ITEMS if a < b and not ((session.answers()["i"] == a)
                                                                                & (session.answers()["j"] == b)).any())
        session.adjudicate(*unanswered, 0.5)
    with pytest.raises(ParameterError, match="similarity in \\[0, 1\\]"):
        session.adjudicate(i, j, 9)
    session.adjudicate(i, j, 0.3, by="carol")
    decided = session.adjudications()
    assert decided[["i", "j", "value", "by"]].values.tolist() == [[i, j, 0.3, "carol"]]
    assert len(session.answers()) == 10  # the answers stay
    exported = session.export()
    assert exported.loc[(exported["i"] == i) & (exported["j"] == j), "adjudicated"].eq(0.3).all()
    assert exported.loc[~((exported["i"] == i) & (exported["j"] == j)), "adjudicated"].isna().all()
    # the learner's estimate takes the decided value, in this process and in a new one
    expected = fiedler_vector(_estimate(session, {(i, j): 0.3})).vector
    assert not np.allclose(np.abs(fiedler_vector(_estimate(session)).vector), np.abs(expected), atol=1e-3)
    for reader in (session, ClusteringSession.open(database)):
        embedding = reader.clusters().embedding
        assert np.allclose(np.abs(embedding), np.abs(expected), atol=1e-8)
    session.adjudicate(i, j, None)  # taken back: the median of the answers counts again
    assert session.adjudications().empty
    assert np.allclose(np.abs(session.clusters().embedding), np.abs(fiedler_vector(_estimate(session)).vector),
                       atol=1e-8)


def test_the_quality_rule_pauses_an_annotator_below_the_threshold_and_a_resume_counts_again(tmp_path):
    session = ClusteringSession.create(tmp_path / "s.db", ITEMS, budget=10, batch_size=2, random_state=0,
                                       pause_below=0.5, pause_after=3)
    session.add_gold(pd.DataFrame({"i": ["a", "a", "b", "c"], "j": ["b", "c", "c", "d"], "value": [1.0, 1.0, 0, 0]}))

    def answer_gold(who, right):
        pair = session.gold_pair(who, take=True)
        known = session.gold_expected(*pair)
        session.record_gold(who, *pair, known if right else 1 - known)

    answer_gold("eve", False)
    answer_gold("eve", False)
    assert session.state_of("eve") == "active"  # fewer than pause_after gold answers: not judged yet
    answer_gold("eve", True)  # 1 of 3 right, below half
    assert session.state_of("eve") == "paused"
    reason = session.annotators().set_index("annotator").loc["eve", "reason"]
    assert reason == "paused automatically: 1 of 3 gold answers right (33%, below 50%)"
    with pytest.raises(ParameterError, match="'eve' is paused"):
        session.ask(annotator="eve")
    session.resume("eve")
    assert session.state_of("eve") == "active" and session.annotators()["reason"].isna().all()
    answer_gold("eve", True)  # counted from the resume: one answer is not yet enough to judge
    assert session.state_of("eve") == "active"
    answer_gold("ann", True)
    assert session.state_of("ann") == "active"


def test_a_quota_stops_an_annotator_and_a_change_lifts_it(tmp_path):
    database = tmp_path / "s.db"
    session = ClusteringSession.create(database, ITEMS, budget=12, batch_size=6, random_state=0, quota=2)
    asks = session.ask(annotator="ann")
    assert len(asks.pairs) == 2 and not asks.at_quota  # no more pairs held than may be answered
    session.record(asks.pairs.assign(value=0.5), annotator="ann")
    done = session.ask(annotator="ann")
    assert done.at_quota and done.pairs.empty
    assert len(session.ask(annotator="bob").pairs) == 2  # the others go on
    with ClusteringSession.open(database) as other:  # another process changes the rule
        other.change(quota=None)
    assert len(session.ask(annotator="ann").pairs) > 0


def test_only_the_rules_change_after_the_start_and_the_budget_only_rises(tmp_path):
    database = tmp_path / "s.db"
    session = ClusteringSession.create(database, ITEMS, budget=6, random_state=0)
    session.change(quota=5, pause_below=0.7, pause_after=4, gold_feedback=True, budget=8)
    reopened = ClusteringSession.open(database).settings
    assert (reopened.quota, reopened.pause_below, reopened.pause_after, reopened.gold_feedback) == (5, 0.7, 4, True)
    assert reopened.budget == 8
    for given, words in (({"batch_size": 3}, "batch_size is fixed when a session starts"),
                         ({"budget": 4}, "fewer than the session's 8; a budget is only raised"),
                         ({"quota": 0}, "quota must be an integer >= 1 or None"),
                         ({"pause_after": None}, "pause_after cannot be None"),
                         ({"bogus": 1}, "bogus is not a setting")):
        with pytest.raises(ParameterError, match=words):
            session.change(**given)
    assert ClusteringSession.open(database).settings == reopened  # nothing changed by a refused call
    with pytest.raises(ParameterError, match="the coordinator changes a rule with ClusteringSession.change"):
        ClusteringSession.open(database, quota=6)


def test_work_and_payments_count_answers_gold_and_excluded_and_time_on_task(tmp_path):
    database = tmp_path / "s.db"
    ClusteringSession.create(database, ITEMS, budget=10, random_state=0, price=0.25).close()
    with MeasurementStore(database) as store:  # answers at known times
        store.add([[0, 1]], [0.5], source="ann", time=100.0)
        store.add([[0, 2]], [0.5], source="ann", time=130.0)
        store.add([[0, 3]], [0.5], source="ann", time=1000.0)  # after a long break
        store.add([[1, 2]], [0.5], source="bob", time=50.0)
    with ClusteringSession.open(database) as session:
        session.exclude("bob")
        work = session.work().set_index("annotator")
        assert work.loc["ann", "time_on_task"] == 30 + IDLE_SECONDS and work.loc["ann", "n_answers"] == 3
        assert (work.loc["ann", "first_seen"], work.loc["ann", "last_seen"]) == (100.0, 1000.0)
        assert work.loc["bob", "n_answers"] == 0 and work.loc["bob", "n_excluded"] == 1
        payments = session.payments().set_index("annotator")
        assert payments.loc["ann", "n_paid"] == 3 and payments.loc["ann", "cost"] == 0.75
        assert payments.loc["bob", "cost"] == 0.25  # an excluded answer was asked for and is paid
    assert iso_times(pd.DataFrame({"time": [1000.0]}))["time"][0] == "1970-01-01T00:16:40.000+00:00"


def test_the_command_line_changes_the_rules_and_writes_payments(tmp_path):
    database = tmp_path / "s.db"
    ClusteringSession.create(database, ITEMS, budget=10, random_state=0).close()
    runner = CliRunner()
    done = runner.invoke(app, ["cluster-session", "change", str(database), "--quota", "3", "--pause-below", "0.6",
                               "--gold-feedback"])
    assert done.exit_code == 0, done.stderr
    settings = ClusteringSession.open(database).settings
    assert (settings.quota, settings.pause_below, settings.gold_feedback) == (3, 0.6, True)
    assert runner.invoke(app, ["cluster-session", "change", str(database), "--quota", "none"]).exit_code == 0
    assert ClusteringSession.open(database).settings.quota is None
    for args, words in ((["--batch-size", "3"], "No such option"), (["--quota", "many"], "--quota must be a number"),
                        ([], "say what to change")):
        bad = runner.invoke(app, ["cluster-session", "change", str(database), *args])
        assert bad.exit_code == 2 and words in bad.stderr, bad.stderr
    with ClusteringSession.open(database) as session:
        session.record(session.ask(annotator="ann").pairs.iloc[:1].assign(value=0.5), annotator="ann")
    status = runner.invoke(app, ["cluster-session", "status", str(database), "--payments", str(tmp_path / "pay.csv"),
                                 "--answers", str(tmp_path / "answers.csv")])
    assert status.exit_code == 0, status.stderr
    pay = pd.read_csv(tmp_path / "pay.csv")
    assert pay.columns.tolist() == ["annotator", "n_answers", "n_gold", "n_excluded", "n_paid", "cost", "last_seen",
                                    "time_on_task"]
    assert ISO.fullmatch(pay["last_seen"].iloc[0])
    assert ISO.fullmatch(pd.read_csv(tmp_path / "answers.csv")["time"].iloc[0])


def test_a_store_of_the_previous_version_opens_upgraded_its_data_and_keys_kept(tmp_path):
    database = tmp_path / "v3.db"
    with ClusteringSession.create(database, ITEMS, budget=10, random_state=0) as session:
        pair = session.ask(annotator="ann").pairs.iloc[:1]
        session.record(pair.assign(value=0.5), annotator="ann", key="k" * 20)
        session.invite(["ann"])
    with sqlite3.connect(database) as connection:  # back to what the previous release wrote
        connection.executescript(
            "DROP TABLE paucity_adjudications; ALTER TABLE paucity_annotators DROP COLUMN reason;"
            "ALTER TABLE paucity_annotators DROP COLUMN checked_from; ALTER TABLE paucity_request_keys DROP COLUMN digest;"
            "UPDATE paucity_store SET value = '3' WHERE key = 'version';")
    connection.close()
    with ClusteringSession.open(database) as session:
        assert session.answers()["value"].tolist() == [0.5] and not session.annotators().empty
        again = session.record(pair.assign(value=0.5), annotator="ann", key="k" * 20)  # a key kept before digests
        assert again.n_recorded == 0 and again.n_read_before == 1
        session.adjudicate(pair["i"].iloc[0], pair["j"].iloc[0], 0.25)
    with MeasurementStore(database) as store:
        assert store.metadata["version"] == "4"


def test_the_review_tools_work_on_postgresql(request):
    """Adjudications (a table whose column is named by, a word SQL reserves), the quality rule's columns and the
    request keys' digests, on a real PostgreSQL server."""
    from paucity._errors import KeyReusedError

    url = request.getfixturevalue("postgres_server").new_database()
    session, asks, bob = answered_by_two(url, [0.9, 0.8, 0.1, 0.5, 0.5], _flip)
    session.record(bob, annotator="bob", key="b" * 16)
    with pytest.raises(KeyReusedError):
        session.record(bob.assign(value=0.0), annotator="bob", key="b" * 16)
    i, j = session.disagreements().iloc[0][["i", "j"]]
    session.adjudicate(i, j, 0.3, by="carol")
    session.change(pause_below=0.5, pause_after=1)
    session.add_gold(pd.DataFrame({"i": ["a"], "j": ["f"], "value": [1.0]}))
    session.record_gold("dan", *session.gold_pair("dan", take=True), 0.0)
    with ClusteringSession.open(url) as other:
        assert other.adjudications()[["i", "j", "value", "by"]].values.tolist() == [[i, j, 0.3, "carol"]]
        assert other.state_of("dan") == "paused" and other.payments()["n_paid"].sum() == len(other.answers()) + 1
    session.close()


def test_a_postgresql_store_of_the_previous_version_is_upgraded(request):
    import sqlalchemy as sa

    url = request.getfixturevalue("postgres_server").new_database()
    with ClusteringSession.create(url, ITEMS, budget=10, random_state=0) as session:
        session.invite(["ann"])
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as connection:  # back to what the previous release wrote
        for statement in ("DROP TABLE paucity_adjudications", "ALTER TABLE paucity_annotators DROP COLUMN reason",
                          "ALTER TABLE paucity_annotators DROP COLUMN checked_from",
                          "ALTER TABLE paucity_request_keys DROP COLUMN digest",
                          "UPDATE paucity_store SET value = '3' WHERE key = 'version'"):
            connection.execute(sa.text(statement))
    engine.dispose()
    with ClusteringSession.open(url) as session:
        session.pause("ann")
        assert session.annotators()["reason"].tolist() == ["paused by the coordinator"]
    with MeasurementStore(url) as store:
        assert store.metadata["version"] == "4"
