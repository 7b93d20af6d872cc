"""One rule per thing, the same in Python, on the command line and on the page: an annotator's name, a token, and
errors that callers catch by type."""

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from paucity._errors import (AnnotatorStoppedError, AnsweredAlreadyError, NoSessionError, PairNotHeldError,
                             PairNotWaitingError, ParameterError)
from paucity._tokens import TOKEN_BYTES, hash_token, new_token
from paucity.cli.application import app
from paucity.clustering import AnnotationSession, ClusteringSession, MeasurementStore
from paucity.clustering.session.rules import check_annotator
from paucity.serve import annotate_app
from paucity.serve.access import new_token as page_token

ITEMS = [f"item{k}" for k in range(8)]
#: names the one rule refuses: a control character anywhere (a trailing newline too), invisible format characters,
#: nothing, too long, not text
REFUSED = ["alice\n", "al\tice", "bob\r", "eve\x7f", "zero\u200bwidth", "", "   ", "x" * 101, 3]
#: names it accepts, everywhere (the page once refused these with a rule of its own)
ACCEPTED = ["O'Brien (lab 2)", "José", "worker#17", "a" * 100, "../notes"]

runner = CliRunner()


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "s.db"
    ClusteringSession.create(path, ITEMS, budget=20, batch_size=4, random_state=0).close()
    return path


@pytest.mark.parametrize("name", REFUSED)
def test_a_bad_name_is_refused_by_the_rule_the_session_and_the_page_alike(database, name):
    with pytest.raises(ParameterError, match="annotator must be a name of 1 to 100 characters"):
        check_annotator(name)
    with ClusteringSession.open(database) as session:
        with pytest.raises(ParameterError, match="annotator must be a name"):
            session.ask(annotator=name)
        with pytest.raises(ParameterError, match="annotator must be a name"):
            session.invite([name])
        assert session.annotators().empty and session.waiting().empty  # nothing written
    client = TestClient(annotate_app(AnnotationSession(database), token="c" * 32, open_when_uninvited=True))
    invite = client.post("/api/annotators/invite", json={"names": [name]}, headers={"x-paucity-token": "c" * 32})
    assert invite.status_code == 400 and "annotator must be a name" in invite.json()["error"]
    if isinstance(name, str):
        asked = client.post("/api/next", json={"annotator": name})
        assert asked.status_code == 400 and "annotator must be a name" in asked.json()["error"]
    with ClusteringSession.open(database) as session:
        assert session.annotators().empty and session.waiting().empty


@pytest.mark.parametrize("name", ACCEPTED)
def test_a_good_name_is_the_same_name_everywhere(database, name):
    assert check_annotator(f"  {name} ") == name  # spaces around a name are not part of it
    client = TestClient(annotate_app(AnnotationSession(database), token="c" * 32, open_when_uninvited=True))
    shown = client.post("/api/next", json={"annotator": name})
    assert shown.status_code == 200 and shown.json()["annotator"] == name
    result = runner.invoke(app, ["cluster-session", "ask", str(database), "--annotator", name, "--out",
                                 str(database.parent / "asks.csv")])
    assert result.exit_code == 0, result.stderr
    with ClusteringSession.open(database) as session:
        assert set(session.waiting()["annotator"]) == {name}  # the page's and the command's asks are one person's


def test_a_name_with_a_newline_is_refused_on_the_command_line_and_nothing_is_written(database, tmp_path):
    for args in (["ask", str(database), "--annotator", "alice\n", "--out", str(tmp_path / "a.csv")],
                 ["withdraw", str(database), "--annotator", "alice\n"]):
        result = runner.invoke(app, ["cluster-session", *args])
        assert result.exit_code == 2 and "annotator must be a name" in result.stderr, result.stderr
    assert not (tmp_path / "a.csv").exists()
    with ClusteringSession.open(database) as session:
        assert session.waiting().empty


def test_every_token_follows_one_policy(database):
    with ClusteringSession.open(database) as session:
        token = session.invite(["ann"])["ann"]
        assert session.identify(token) == ("ann", "active")
        with MeasurementStore(database) as store:
            assert store.annotators.get("ann").token_hash == hash_token(token)  # only its hash is kept
    for made in (token, new_token(), page_token()):  # an annotator's, any, the coordinator's and the explorer's
        assert len(made) == len(new_token()) == 32 and TOKEN_BYTES == 24


def test_callers_catch_the_sessions_refusals_by_type(database, tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(NoSessionError):
        ClusteringSession.open(empty)
    with pytest.raises(NoSessionError):
        ClusteringSession.open(tmp_path / "missing.db")
    result = runner.invoke(app, ["cluster-session", "start", str(empty), "--out", str(tmp_path / "a.csv")])
    assert result.exit_code == 2 and "holds no session yet; give --items" in result.stderr
    with ClusteringSession.open(database) as session:
        asks = session.ask(annotator="ann").pairs
        pair = asks.iloc[[0]].assign(value=0.5)
        session.record(pair, annotator="ann")
        with pytest.raises(AnsweredAlreadyError, match="answered already"):
            session.record(pair.assign(value=0.25), annotator="ann")
        asked = {frozenset(p) for p in zip(asks["i"], asks["j"])}
        never = next((a, b) for a in ITEMS for b in ITEMS if a < b and frozenset((a, b)) not in asked)
        with pytest.raises(PairNotWaitingError, match="never asked"):
            session.record(pair.assign(i=never[0], j=never[1]))
        with pytest.raises(PairNotHeldError, match="not shown to 'bob'"):
            session.record(asks.iloc[[1]].assign(value=0.5), annotator="bob")
        session.pause("bob")
        with pytest.raises(AnnotatorStoppedError, match="'bob' is paused") as stopped:
            session.ask(annotator="bob")
        assert (stopped.value.annotator, stopped.value.state) == ("bob", "paused")
    page = AnnotationSession(database)
    with pytest.raises(PairNotWaitingError, match="does not wait for an answer"):
        page.answer("ann", pair["i"].iloc[0], pair["j"].iloc[0], 3)


def test_a_name_invited_twice_is_one_annotator(database):
    with ClusteringSession.open(database) as session:
        tokens = session.invite(["alice", " alice", "bob", "alice"])
        assert set(tokens) == {"alice", "bob"} and all(tokens.values())
        assert session.annotators()["annotator"].tolist() == ["alice", "bob"]
