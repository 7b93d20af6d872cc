"""The annotation page for a paid, remote crowd: who may do what, safety headers, bounded bodies, no state changed by
GET, requests sent twice recorded once, gold pairs, agreement, exclusion, exports, instructions."""

from __future__ import annotations

import hashlib
import io
import sqlite3

import pandas as pd
import pytest
from starlette.testclient import TestClient

from paucity.clustering import ClusteringSession, MeasurementStore
from paucity.serve import AnnotationSession, annotate_app, markers_app
from paucity.serve.json_api import SECURITY_HEADERS

N_ITEMS = 12


def items_table(n=N_ITEMS, names=None):
    names = names or [f"photo{k:02d}" for k in range(n)]
    return pd.DataFrame({"item": names, "text": [f"scene {k // (len(names) // 2)}" for k in range(len(names))]})


@pytest.fixture
def session(tmp_path):
    return AnnotationSession(tmp_path / "s.db", items_table(), budget=30, batch_size=6, random_state=0, price=0.05)


def client_for(session, token="c00rdinator", *, open_when_uninvited=False):
    return TestClient(annotate_app(session, token=token, open_when_uninvited=open_when_uninvited))


def header(token):
    return {"x-paucity-token": token}


def names(reply):
    return reply["pair"]["i"]["name"], reply["pair"]["j"]["name"]


# -- identities ----------------------------------------------------------------------------------------------------
def test_invited_annotators_answer_as_themselves_and_cannot_open_the_coordinators_view(session, tmp_path):
    tokens = session.invite(["ann", "bob"])
    client = client_for(session)
    ann, bob, coordinator = header(tokens["ann"]), header(tokens["bob"]), header("c00rdinator")
    assert client.get("/api/me", headers=ann).json()["annotator"] == "ann"
    shown = client.post("/api/next", json={}, headers=ann).json()
    assert shown["status"] == "pair" and shown["annotator"] == "ann"
    pair = names(shown)
    as_bob = client.post("/api/answer", json={"annotator": "bob", "i": pair[0], "j": pair[1], "value": 5}, headers=ann)
    assert as_bob.status_code == 403 and "cannot answer as 'bob'" in as_bob.json()["error"]
    done = client.post("/api/answer", json={"i": pair[0], "j": pair[1], "value": 5}, headers=ann)
    assert done.status_code == 200 and done.json()["n_answered"] == 1
    for path in ("/coordinator", "/api/progress", "/api/export/answers.csv"):
        assert client.get(path, headers=ann).status_code == 403, path
    assert client.post("/api/annotators/invite", json={"names": ["eve"]}, headers=ann).status_code == 403
    assert client.post("/api/annotators/revoke", json={"annotator": "bob"}, headers=ann).status_code == 403
    assert client.post("/api/next", json={}, headers=coordinator).status_code == 403  # the coordinator answers nothing
    assert client.get("/api/next", headers=ann).status_code == 405
    for refused in ({}, header("a-guess"), header(tokens["ann"][:-1])):
        assert client.post("/api/next", json={"annotator": "ann"}, headers=refused).status_code == 401
    with MeasurementStore(tmp_path / "s.db") as store:
        assert store.measurements()["source"].tolist() == ["ann"]
    session.session.close()
    with sqlite3.connect(tmp_path / "s.db") as connection:  # only the SHA-256 of a token is kept
        kept = {row[0] for row in connection.execute("SELECT token_hash FROM paucity_annotators")}
    connection.close()
    assert kept == {hashlib.sha256(token.encode()).hexdigest() for token in tokens.values()}
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir() if path.name.startswith("s.db"))
    assert not any(token.encode() in stored for token in tokens.values())


def test_the_coordinator_pauses_resumes_and_revokes_and_it_takes_effect_at_once(session):
    tokens = session.invite(["ann", "bob"])
    client = client_for(session)
    ann, bob, coordinator = header(tokens["ann"]), header(tokens["bob"]), header("c00rdinator")
    held = names(client.post("/api/next", json={}, headers=bob).json())
    assert client.post("/api/annotators/pause", json={"annotator": "bob"}, headers=coordinator).json()["done"]
    assert client.post("/api/next", json={}, headers=bob).json()["status"] == "paused"
    late = client.post("/api/answer", json={"i": held[0], "j": held[1], "value": 3}, headers=bob)
    assert late.status_code == 400 and "paused by the coordinator" in late.json()["error"]
    assert names(client.post("/api/next", json={}, headers=ann).json()) == held  # bob's pair went back to the others
    client.post("/api/annotators/resume", json={"annotator": "bob"}, headers=coordinator)
    assert client.post("/api/next", json={}, headers=bob).json()["status"] == "pair"
    client.post("/api/annotators/revoke", json={"annotator": "bob"}, headers=coordinator)
    revoked = client.post("/api/next", json={}, headers=bob)
    assert revoked.status_code == 401 and "revoked" in revoked.json()["error"]
    link = client.post("/api/annotators/new-link", json={"annotator": "bob"}, headers=coordinator).json()["link"]
    fresh = header(link.split("token=")[1])
    assert client.post("/api/next", json={}, headers=fresh).json()["status"] == "pair"
    assert client.post("/api/next", json={}, headers=bob).status_code == 401  # the old link stays dead
    states = {a["annotator"]: a["state"] for a in client.get("/api/progress", headers=coordinator).json()["annotators"]}
    assert states == {"ann": "active", "bob": "active"}


def test_open_on_this_machine_for_annotators_until_someone_is_invited_and_never_for_the_coordinator(session):
    """On 127.0.0.1 with nobody invited, annotators come in by name; the coordinator's routes need the coordinator's
    token all the same: another user of a shared machine cannot invite an intruder, pause, read or export."""
    client = client_for(session, open_when_uninvited=True)
    assert client.post("/api/next", json={"annotator": "ann"}).json()["status"] == "pair"
    for path in ("/api/progress", "/api/export/answers.csv", "/api/export/payments.json", "/api/disagreements"):
        refused = client.get(path)
        assert refused.status_code == 401 and "coordinator's token" in refused.json()["error"], path
    assert client.get("/coordinator").status_code == 401
    assert "coordinator's token" in client.get("/coordinator", headers={"accept": "text/html"}).text
    for path, body in (("/api/annotators/invite", {"names": ["intruder"]}), ("/api/annotators/pause", {"annotator": "ann"}),
                       ("/api/adjudicate", {"i": "photo00", "j": "photo01", "value": 3}), ("/api/settings", {"quota": 1})):
        assert client.post(path, json=body).status_code == 401, path
    assert session.session.annotators().empty and session.session.settings.quota is None  # nothing changed
    coordinator = header("c00rdinator")
    assert client.get("/api/progress", headers=coordinator).status_code == 200
    invited = client.post("/api/annotators/invite", json={"names": ["cat", "dan"]}, headers=coordinator).json()["links"]
    assert set(invited) == {"cat", "dan"} and all("?token=" in link for link in invited.values())
    assert client.post("/api/next", json={"annotator": "ann"}).status_code == 401  # now everyone needs a link
    again = client.post("/api/annotators/invite", json={"names": ["cat"]}, headers=header("c00rdinator"))
    assert again.json()["links"] == {"cat": None}  # invited before: the link already sent still works


# -- safety --------------------------------------------------------------------------------------------------------
def test_every_response_carries_the_security_headers(session, explorer):
    tokens = session.invite(["ann"])
    annotate = client_for(session)
    markers = TestClient(markers_app(explorer, token="m"))
    responses = [
        annotate.get("/", headers=header(tokens["ann"])),
        annotate.get("/coordinator", headers=header("c00rdinator")),
        annotate.get("/static/annotate.js", headers=header("c00rdinator")),
        annotate.post("/api/next", json={}, headers=header(tokens["ann"])),
        annotate.get("/api/next", headers=header(tokens["ann"])),           # 405
        annotate.get("/api/nothing", headers=header("c00rdinator")),        # 404
        annotate.get("/"),                                                 # 401
        annotate.post("/api/answer", content=b"x" * 100_000, headers={"content-type": "application/json"}),  # 413
        markers.get("/", headers=header("m")),
        markers.get("/api/export.csv", headers=header("m")),
        markers.get("/"),
    ]
    assert [r.status_code for r in responses] == [200, 200, 200, 200, 405, 404, 401, 413, 200, 200, 401]
    for response in responses:
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name) == value, (response.request.url, name)
    policy = responses[0].headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "'unsafe-inline'" not in policy


def test_no_get_changes_state(session, tmp_path):
    client = client_for(session, open_when_uninvited=True)
    for path in ("/api/next?annotator=ghost", "/api/answer", "/api/skip", "/api/release",
                 "/api/annotators/invite", "/api/annotators/pause"):
        assert client.get(path).status_code == 405, path
    with MeasurementStore(tmp_path / "s.db") as store:
        assert len(store.pending()) == 0  # nobody took a pair by loading a URL


def test_an_answer_sent_twice_with_its_key_is_recorded_once(session, tmp_path):
    client = client_for(session, open_when_uninvited=True)
    pair = names(client.post("/api/next", json={"annotator": "ann"}).json())
    body = {"annotator": "ann", "i": pair[0], "j": pair[1], "value": 7, "key": "k" * 20}
    first = client.post("/api/answer", json=body).json()
    again = client.post("/api/answer", json=body)  # the first reply was lost; the page sends it again
    assert again.status_code == 200 and names(again.json()) == names(first)
    skipped = {"annotator": "ann", "i": names(first)[0], "j": names(first)[1], "key": "s" * 20}
    assert client.post("/api/skip", json=skipped).status_code == 200
    assert client.post("/api/skip", json=skipped).status_code == 200
    bad = client.post("/api/answer", json={**body, "key": "no spaces"})
    assert bad.status_code == 400 and "key must be" in bad.json()["error"]
    with MeasurementStore(tmp_path / "s.db") as store:
        assert store.measurements()["value"].tolist() == [7 / 9]


# -- gold pairs, agreement, exclusion, cost --------------------------------------------------------------------------
def test_gold_pairs_measure_accuracy_never_count_and_excluded_answers_leave_the_clustering(tmp_path):
    gold = pd.DataFrame({"i": ["photo00", "photo00", "photo06"], "j": ["photo01", "photo11", "photo07"],
                         "answer": [9, 0, 9]})
    session = AnnotationSession(tmp_path / "s.db", items_table(), budget=40, batch_size=8, random_state=0,
                                price=0.5, gold=gold, gold_rate=0.25)
    truth = {("photo00", "photo01"): 9, ("photo00", "photo11"): 0, ("photo06", "photo07"): 9}
    client = client_for(session, open_when_uninvited=True)
    seen_gold = {"ann": 0, "bob": 0}
    for who, wrong in (("ann", False), ("bob", True)):
        reply = client.post("/api/next", json={"annotator": who}).json()
        for _ in range(12):
            pair = names(reply)
            known = truth.get(pair) if pair in truth else truth.get(pair[::-1])
            if known is not None:
                # a gold pair on the annotator's screen (the learner may also ask a gold pair as a real one, which
                # its answer is then: bob answers against the truth either way)
                seen_gold[who] += session.session.gold_pair(who, take=False) is not None
                value = 9 - known if wrong else known
            else:
                value = 9 if pair[0][5] == pair[1][5] or abs(int(pair[0][5:]) - int(pair[1][5:])) < 6 else 0
            reply = client.post("/api/answer", json={"annotator": who, "i": pair[0], "j": pair[1], "value": value}).json()
    assert seen_gold == {"ann": 3, "bob": 3}  # one in four of 12 answers
    coordinator = header("c00rdinator")
    progress = client.get("/api/progress", headers=coordinator).json()
    assert progress["n_gold_answers"] == 6 and progress["n_answers"] == 18  # gold answers are not measurements
    with MeasurementStore(tmp_path / "s.db") as store:
        assert len(store) == 18
    rows = {a["annotator"]: a for a in progress["annotators"]}
    assert rows["ann"]["gold_accuracy"] == 1.0 and rows["bob"]["gold_accuracy"] == 0.0
    assert rows["bob"]["n_shared"] == 3 and rows["bob"]["difference"] == pytest.approx(9.0)
    assert progress["alpha"] is not None and progress["alpha"] < 0  # the two disagree on every shared pair
    assert progress["cost"] == pytest.approx(0.5 * 24) and progress["cost_gold"] == pytest.approx(3.0)
    client.post("/api/annotators/exclude", json={"annotator": "bob"}, headers=coordinator)
    after = client.get("/api/progress", headers=coordinator).json()
    assert after["n_answers"] == 9 and after["n_excluded"] == 9 and after["cost_excluded"] == pytest.approx(4.5)
    assert after["cost"] == pytest.approx(progress["cost"])  # excluded answers were paid for all the same
    with ClusteringSession.open(tmp_path / "s.db") as reopened:  # another process leaves them out too
        assert reopened.status().n_measured == 9
    exported = pd.read_csv(io.StringIO(client.get("/api/export/answers.csv", headers=coordinator).text))
    assert exported["gold"].sum() == 6 and exported.loc[exported["annotator"] == "bob", "excluded"].all()
    assert set(exported.columns) >= {"i", "j", "value", "answer", "annotator", "time", "gold", "gold_value", "excluded"}
    clusters = client.get("/api/export/clusters.json", headers=coordinator).json()
    assert len(clusters) == N_ITEMS and set(clusters[0]) == {"item", "label", "embedding"}


def test_exports_neutralize_formula_cells(tmp_path, adata):
    names = ['=HYPERLINK("http://x","y")', "+1", "-minus", "@at", "plain", "\tTab"] + [f"p{k}" for k in range(6)]
    session = AnnotationSession(tmp_path / "s.db", items_table(names=names), budget=10, batch_size=4, random_state=0)
    client = client_for(session, open_when_uninvited=True)
    for _ in range(4):
        reply = client.post("/api/next", json={"annotator": "ann"}).json()
        pair = names_of(reply)
        client.post("/api/answer", json={"annotator": "ann", "i": pair[0], "j": pair[1], "value": 4})
    clusters = client.get("/api/export/clusters.csv", headers=header("c00rdinator")).text.splitlines()[1:]
    written = {line.split(",")[0].strip('"') for line in clusters}
    assert "'+1" in written and "'-minus" in written and "'@at" in written and "plain" in written
    assert not any(cell[:1] in "=+-@\t\r" for cell in written)
    from paucity.serve import MarkerExplorer

    odd = adata.copy()
    odd.var_names = ["=cmd()"] + list(odd.var_names[1:])
    explorer = MarkerExplorer(odd, "cell_type")
    explorer.add("=cmd()")
    exported = TestClient(markers_app(explorer)).get("/api/export.csv").text
    assert "'=cmd()" in exported and "\n=cmd()" not in exported


def names_of(reply):
    return reply["pair"]["i"]["name"], reply["pair"]["j"]["name"]


def test_instructions_and_examples_are_shown_and_raw_html_is_not_run(tmp_path):
    examples = pd.DataFrame({"i": ["photo00", "photo00"], "j": ["photo01", "photo11"], "answer": [9, 0],
                             "note": ["the same kitchen", None]})
    session = AnnotationSession(tmp_path / "s.db", items_table(), budget=10, batch_size=4, random_state=0,
                                instructions="# How to answer\n\nSame room: **9**. <script>alert(1)</script>",
                                examples=examples)
    me = client_for(session, open_when_uninvited=True).get("/api/me", params={"annotator": "ann"}).json()
    assert "<h1>How to answer</h1>" in me["instructions"] and "<strong>9</strong>" in me["instructions"]
    assert "<script>" not in me["instructions"] and "&lt;script&gt;" in me["instructions"]
    assert [(e["i"]["name"], e["j"]["name"], e["answer"], e["note"]) for e in me["examples"]] == [
        ("photo00", "photo01", 9, "the same kitchen"), ("photo00", "photo11", 0, None)]
    with pytest.raises(ValueError, match="examples data row 1: 'zz' is not an item"):
        AnnotationSession(tmp_path / "s.db", items_table(), examples=examples.assign(i=["zz", "photo00"]))
    with pytest.raises(ValueError, match="examples has the answer 10 in column 'answer', data row 2"):
        AnnotationSession(tmp_path / "s.db", items_table(), examples=examples.assign(answer=[9, 10]))
