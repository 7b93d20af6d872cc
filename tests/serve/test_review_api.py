"""The coordinator's reviewing tools and the doors of a paid crowd, through the page's HTTP API: request keys that
cannot be reused, a revoked link in a browser, disagreements and adjudication, rules, quotas, payments."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest
from starlette.testclient import TestClient

from paucity.clustering import ClusteringSession, MeasurementStore
from paucity.serve import AnnotationSession, annotate_app

COORDINATOR = {"x-paucity-token": "c" * 32}
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00")


def items_table(n=10):
    return pd.DataFrame({"item": [f"photo{k:02d}" for k in range(n)]})


def names(reply):
    return reply["pair"]["i"]["name"], reply["pair"]["j"]["name"]


@pytest.fixture
def invited(tmp_path):
    session = AnnotationSession(tmp_path / "s.db", items_table(), budget=30, batch_size=6, random_state=0,
                                repeats=2)
    tokens = session.invite(["alice", "bob"])
    client = TestClient(annotate_app(session, token="c" * 32))
    return session, client, {name: {"x-paucity-token": token} for name, token in tokens.items()}, tmp_path / "s.db"


def stored(database) -> int:
    with MeasurementStore(database) as store:
        return len(store)


def test_a_key_is_one_request_its_repeat_answers_the_same_and_its_reuse_is_refused(invited):
    session, client, who, database = invited
    first = names(client.post("/api/next", json={}, headers=who["alice"]).json())
    body = {"i": first[0], "j": first[1], "value": 7, "key": "K" * 20}
    reply = client.post("/api/answer", json=body, headers=who["alice"])
    assert reply.status_code == 200 and stored(database) == 1
    again = client.post("/api/answer", json=body, headers=who["alice"])  # the reply was lost: sent again
    assert again.status_code == 200 and again.json() == reply.json() and stored(database) == 1
    second = names(reply.json())
    other_pair = client.post("/api/answer", json={"i": second[0], "j": second[1], "value": 3, "key": "K" * 20},
                             headers=who["alice"])
    assert other_pair.status_code == 409 and "used by another request" in other_pair.json()["error"]
    other_value = client.post("/api/answer", json={**body, "value": 2}, headers=who["alice"])
    assert other_value.status_code == 409
    bobs = names(client.post("/api/next", json={}, headers=who["bob"]).json())
    stolen = client.post("/api/answer", json={"i": bobs[0], "j": bobs[1], "value": 5, "key": "K" * 20},
                         headers=who["bob"])
    assert stolen.status_code == 409 and "of another annotator" in stolen.json()["error"]
    skip = client.post("/api/skip", json={"i": second[0], "j": second[1], "key": "K" * 20}, headers=who["alice"])
    assert skip.status_code == 409
    assert stored(database) == 1  # never a success with nothing stored: the refusals stored nothing either
    fresh = client.post("/api/answer", json={"i": second[0], "j": second[1], "value": 3, "key": "L" * 20},
                        headers=who["alice"])
    assert fresh.status_code == 200 and stored(database) == 2


def test_a_revoked_link_opened_in_a_browser_says_so_and_whom_to_ask(invited):
    session, client, who, _ = invited
    session.session.revoke("alice")
    page = client.get("/", headers={**who["alice"], "accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 403 and page.headers["content-type"].startswith("text/html")
    assert "revoked by the coordinator" in page.text and "ask the coordinator, who sent you the link" in page.text
    assert page.headers["content-security-policy"].endswith("frame-ancestors 'none'")
    api = client.post("/api/next", json={}, headers=who["alice"])
    assert api.status_code == 401 and "revoked" in api.json()["error"]
    nobody = client.get("/", headers={"accept": "text/html"})
    assert nobody.status_code == 401 and "needs an access token" in nobody.text


def test_the_coordinator_finds_disagreements_settles_them_and_exports_both(tmp_path):
    database = tmp_path / "four.db"  # 6 pairs, each asked twice: bob gets the pairs alice answered
    session = AnnotationSession(database, items_table(4), budget=12, batch_size=6, random_state=0, repeats=2)
    who = {name: {"x-paucity-token": token} for name, token in session.invite(["alice", "bob"]).items()}
    client = TestClient(annotate_app(session, token="c" * 32))
    answers = {}
    for name, value in (("alice", 9), ("bob", 0)):
        reply = client.post("/api/next", json={}, headers=who[name]).json()
        for _ in range(6):
            pair = names(reply)
            answers.setdefault(frozenset(pair), {})[name] = value
            reply = client.post("/api/answer", json={"i": pair[0], "j": pair[1], "value": value},
                                headers=who[name]).json()
            if reply["status"] != "pair":
                break
    both = [pair for pair, given in answers.items() if len(given) == 2]
    listed = client.get("/api/disagreements", headers=COORDINATOR).json()
    assert listed["n_pairs"] == len(both) > 0
    top = listed["pairs"][0]
    assert (top["spread"], top["min"], top["max"], top["adjudicated"]) == (9.0, 0.0, 9.0, None)
    assert client.get("/api/disagreements?sort=colour", headers=COORDINATOR).status_code == 400
    decided = client.post("/api/adjudicate", json={"i": top["i"], "j": top["j"], "value": 4}, headers=COORDINATOR)
    assert decided.status_code == 200 and decided.json()["done"]
    assert client.post("/api/adjudicate", json={"i": top["i"], "j": top["j"], "value": 10},
                       headers=COORDINATOR).status_code == 400
    after = client.get("/api/disagreements", headers=COORDINATOR).json()["pairs"]
    row = next(p for p in after if (p["i"], p["j"]) == (top["i"], top["j"]))
    assert row["adjudicated"]["value"] == 4 and row["adjudicated"]["by"] == "coordinator"
    assert ISO.fullmatch(row["adjudicated"]["when"])
    with ClusteringSession.open(database) as reopened:
        assert reopened.adjudications()["value"].tolist() == [pytest.approx(4 / 9)]
    exported = pd.read_csv(io.StringIO(client.get("/api/export/answers.csv", headers=COORDINATOR).text))
    mine = exported[(exported["i"] == top["i"]) & (exported["j"] == top["j"])]
    assert len(mine) == 2 and mine["adjudicated"].eq(4 / 9).all()  # the answers and the decision, both
    assert exported["time"].map(lambda text: bool(ISO.fullmatch(text))).all()
    progress = client.get("/api/progress", headers=COORDINATOR).json()
    assert progress["n_adjudicated"] == 1 and progress["n_disagreements"] == len(both)
    assert all(ISO.fullmatch(r["when"]) for r in progress["recent"])
    rows = {a["annotator"]: a for a in progress["annotators"]}
    assert ISO.fullmatch(rows["alice"]["last_seen"]) and rows["alice"]["time_on_task"] >= 0


def test_rules_set_from_the_page_pause_a_bad_annotator_and_stop_one_at_the_quota(tmp_path):
    session = AnnotationSession(tmp_path / "s.db", items_table(), budget=30, batch_size=6, random_state=0,
                                gold=pd.DataFrame({"i": ["photo00", "photo02", "photo04"],
                                                   "j": ["photo01", "photo03", "photo05"], "answer": [9, 9, 9]}),
                                gold_rate=1.0)
    client = TestClient(annotate_app(session, token="c" * 32, open_when_uninvited=True))
    changed = client.post("/api/settings", json={"pause_below": 0.5, "pause_after": 2, "gold_feedback": True},
                          headers=COORDINATOR)
    assert changed.status_code == 200 and changed.json()["settings"]["pause_below"] == 0.5
    assert client.post("/api/settings", json={"batch_size": 3}, headers=COORDINATOR).status_code == 400
    assert client.post("/api/settings", json={"quota": -1}, headers=COORDINATOR).status_code == 400
    reply = client.post("/api/next", json={"annotator": "eve"}).json()
    for _ in range(2):  # two gold pairs answered wrongly: eve is paused, and told the answer expected each time
        pair = names(reply)
        reply = client.post("/api/answer", json={"annotator": "eve", "i": pair[0], "j": pair[1], "value": 0}).json()
        assert reply["feedback"] == {"i": pair[0], "j": pair[1], "given": 0, "expected": 9}
    assert reply["status"] == "paused" and reply["reason"].startswith("paused automatically: 0 of 2 gold answers")
    rows = {a["annotator"]: a for a in client.get("/api/progress", headers=COORDINATOR).json()["annotators"]}
    assert rows["eve"]["state"] == "paused" and rows["eve"]["reason"].startswith("paused automatically")
    client.post("/api/annotators/resume", json={"annotator": "eve"}, headers=COORDINATOR)
    assert client.post("/api/next", json={"annotator": "eve"}).json()["status"] == "pair"
    client.post("/api/settings", json={"quota": 2}, headers=COORDINATOR)
    assert client.post("/api/next", json={"annotator": "eve"}).json()["status"] == "quota"  # 2 answers given
    client.post("/api/settings", json={"quota": None}, headers=COORDINATOR)
    assert client.post("/api/next", json={"annotator": "eve"}).json()["status"] == "pair"


def test_the_payment_export_counts_what_to_pay_each_annotator(invited):
    session, client, who, _ = invited
    for name in ("alice", "bob"):
        pair = names(client.post("/api/next", json={}, headers=who[name]).json())
        client.post("/api/answer", json={"i": pair[0], "j": pair[1], "value": 5}, headers=who[name])
    client.post("/api/annotators/exclude", json={"annotator": "bob"}, headers=COORDINATOR)
    pay = pd.read_csv(io.StringIO(client.get("/api/export/payments.csv", headers=COORDINATOR).text)).set_index(
        "annotator")
    assert pay.loc["alice", "n_answers"] == 1 and pay.loc["bob", "n_excluded"] == 1
    assert pay["n_paid"].tolist() == [1, 1] and pay["last_seen"].map(lambda t: bool(ISO.fullmatch(t))).all()
    assert client.get("/api/export/payments.json", headers=COORDINATOR).json()[0]["annotator"] == "alice"
    assert client.get("/api/export/payments.csv").status_code == 401
