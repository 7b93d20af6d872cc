"""Two `paucity serve annotate` processes on one session: a crowd spread over both loses nothing and shares no pair.

The session is started once and its annotators invited from Python; then two servers are started on the same
database (each on a free port of its own), and 50 simulated annotators (asyncio tasks over httpx) answer,
annotator k always on server k % 2: take a pair (``POST /api/next``), answer it at once with a fresh random key
(``POST /api/answer``, whose reply carries the next pair), until a fixed number of answers is acknowledged in
all. Afterwards the database is read. Every acknowledged answer is stored once, with its annotator; no pair is
measured twice (``repeats=1``); and no pair was shown to two annotators. Nobody here skips, gives a pair back or
lets a lease run out (600 s), so a pair shown to one annotator stays theirs until they answer it, and is never
asked again after: any pair that two annotators were shown, at any time, is a pair the two servers handed out
twice. The same on PostgreSQL and on one SQLite file (WAL) shared by the two processes. The slow tests run a
longer crowd, and one whose every request goes to the next process, as a round-robin proxy sends them.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections import Counter, defaultdict

import httpx
import pytest

from paucity.clustering import ClusteringSession

from .conftest import Served

N_ITEMS = 100
N_ANNOTATORS = 50
N_SERVERS = 2
#: How long a server may take to start and answer, and the crowd to finish: deadlines, not measurements.
START_SECONDS = 90
CROWD_SECONDS = 240
HEADER = "x-paucity-token"


def start_session(url: str) -> dict[str, str]:
    """Start the session once and invite the annotators: every annotator's token."""
    items = [f"photo{k:03d}" for k in range(N_ITEMS)]
    with ClusteringSession.create(url, items, budget=3000, batch_size=100, random_state=0) as session:
        return session.invite([f"annotator{k:02d}" for k in range(N_ANNOTATORS)])


def wait_until_answering(served: Served, token: str) -> None:
    """Poll the server until it answers an annotator's request (a deadline, no blind sleep)."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        if served.process.poll() is not None:
            pytest.fail("a server stopped: " + "".join(line for line in served.lines if line))
        try:
            if httpx.get(served.url + "api/me", headers={HEADER: token}, timeout=10).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the server at {served.url} did not answer within {START_SECONDS} s")
        time.sleep(0.1)


def coordinator_token(served: Served) -> str:
    line = served.wait_for_line("coordinator:")
    assert line is not None, served.lines
    return line.strip().rsplit("token=", 1)[1]


def pair_of(reply: dict) -> tuple[str, str] | None:
    if reply.get("status") != "pair":
        return None
    return reply["pair"]["i"]["name"], reply["pair"]["j"]["name"]


async def post(client, url: str, body: dict, headers: dict, crowd: dict):
    """POST; sent again, the same body (so the same key), when the connection drops before the reply, as the page
    does. A server closes a connection kept alive after 5 idle seconds, and a request sent on it just then is
    lost before it is read; one that was read and answered is answered once (its key)."""
    for attempt in range(5):
        try:
            return await client.post(url, json=body, headers=headers)
        except httpx.TransportError:
            if attempt == 4:
                raise
            crowd["sent_again"] += 1


async def annotate(client, urls: list[str], name: str, token: str, crowd: dict) -> None:
    """One annotator: next, then answer at once, until the crowd has its answers; each request to the next of
    ``urls`` (one server, or both in turn)."""
    headers = {HEADER: token}
    servers = itertools.cycle(urls)
    response = await post(client, next(servers) + "api/next", {}, headers, crowd)
    while time.monotonic() < crowd["until"]:
        assert response.status_code == 200, (name, response.status_code, response.text)
        shown = pair_of(response.json())
        if shown is not None:
            crowd["shown"].append((name, frozenset(shown)))
        if len(crowd["acknowledged"]) >= crowd["target"]:
            crowd["holding"][name] = shown  # what this annotator holds when they stop
            return
        if shown is None:  # every waiting pair is with someone else (batch_size allows 100): ask again
            response = await post(client, next(servers) + "api/next", {}, headers, crowd)
            continue
        i, j = shown
        value = 8 if int(i[5:]) % 2 == int(j[5:]) % 2 else 1
        body = {"i": i, "j": j, "value": value, "key": uuid.uuid4().hex}
        response = await post(client, next(servers) + "api/answer", body, headers, crowd)
        if response.status_code == 200:
            crowd["acknowledged"].append((name, frozenset(shown), value / 9))
        else:
            crowd["refused"].append((name, shown, response.status_code, response.text))
            return


async def crowd_on(urls: list[str], tokens: dict[str, str], target: int, spread: str) -> dict:
    crowd = {"target": target, "until": time.monotonic() + CROWD_SECONDS, "shown": [], "acknowledged": [],
             "refused": [], "holding": {}, "sent_again": 0}
    limits = httpx.Limits(max_connections=N_ANNOTATORS + 10)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        await asyncio.gather(*(annotate(client, theirs(urls, k, spread), name, token, crowd)
                               for k, (name, token) in enumerate(sorted(tokens.items()))))
    return crowd


def theirs(urls: list[str], k: int, spread: str) -> list[str]:
    """The servers annotator k talks to: server k mod 2 always (``"annotator"``), or each request to the next
    one, as a round-robin proxy does (``"request"``)."""
    first = k % len(urls)
    return [urls[first]] if spread == "annotator" else urls[first:] + urls[:first]


def run_two_servers(url: str, target: int, spread: str = "annotator") -> None:
    tokens = start_session(url)
    servers = []
    try:
        for _ in range(N_SERVERS):  # the same command twice: a port of its own each (--port 0 picks a free one)
            servers.append(Served("serve", "annotate", url, "--port", "0"))
        some_token = next(iter(tokens.values()))
        for served in servers:
            wait_until_answering(served, some_token)
        assert len({served.url for served in servers}) == N_SERVERS
        crowd = asyncio.run(crowd_on([served.url for served in servers], tokens, target, spread))

        # the coordinator's token is each process's own; each process counts every answer, whichever took it
        coordinators = [coordinator_token(served) for served in servers]
        progress = [httpx.get(served.url + "api/progress", headers={HEADER: token}, timeout=60)
                    for served, token in zip(servers, coordinators)]
        other = httpx.get(servers[1].url + "api/progress", headers={HEADER: coordinators[0]}, timeout=60)
        alive = [served.process.poll() is None for served in servers]
    finally:
        for served in servers:
            served.stop()

    # no pair shown to two annotators: with no skip, release or lapsed lease, a pair stays with the first one
    # shown it until they answer, and an answered pair is never asked again (repeats=1)
    shown_to = defaultdict(set)
    for name, pair in crowd["shown"]:
        shown_to[pair].add(name)
    twice = {tuple(sorted(pair)): sorted(names) for pair, names in shown_to.items() if len(names) > 1}
    assert twice == {}, f"pairs shown to two annotators: {twice}"
    assert crowd["refused"] == []
    assert alive == [True] * N_SERVERS, "".join(line for served in servers for line in served.lines if line)
    assert len(crowd["acknowledged"]) >= target
    answered_by = Counter(name for name, _, _ in crowd["acknowledged"])
    assert set(answered_by) == set(tokens)  # every annotator answered, on both servers
    assert [response.status_code for response in progress] == [200] * N_SERVERS, progress[0].text
    assert [response.json()["n_answers"] for response in progress] == [len(crowd["acknowledged"])] * N_SERVERS
    assert other.status_code in (401, 403)  # one process's coordinator link does not open the other's

    with ClusteringSession.open(url) as session:
        stored = session.answers()
        waiting = session.waiting()
        status = session.status()
    rows = [(source, frozenset((i, j)), round(value, 9))
            for source, i, j, value in zip(stored["source"], stored["i"], stored["j"], stored["value"])]
    expected = [(name, pair, round(value, 9)) for name, pair, value in crowd["acknowledged"]]
    assert Counter(rows) == Counter(expected)  # every acknowledged answer, once, with its annotator and value
    pairs = [pair for _, pair, _ in rows]
    assert len(set(pairs)) == len(pairs)  # repeats=1: no pair measured twice
    assert status.n_measured == len(expected)
    # what is still waiting: each pair once, none answered already, each annotator holding the pair last shown
    assert not waiting.duplicated(["i", "j"]).any()
    still = {frozenset((i, j)): holder for i, j, holder in zip(waiting["i"], waiting["j"], waiting["annotator"])}
    assert not set(still) & set(pairs)
    for name, pair in crowd["holding"].items():
        if pair is not None:
            assert still.get(frozenset(pair)) == name


@pytest.mark.parametrize("target", [300])
def test_fifty_annotators_on_two_server_processes_lose_nothing_and_share_no_pair(database, target):
    run_two_servers(database, target)


@pytest.mark.slow  # about a minute on each database
@pytest.mark.parametrize("target", [2000])
def test_a_longer_crowd_on_two_server_processes(database, target):
    run_two_servers(database, target)


@pytest.mark.slow
@pytest.mark.parametrize("target", [400])
def test_each_request_to_the_next_process_as_a_round_robin_proxy_sends_them(database, target):
    """An annotator's pair handed out by one process and answered through the other: what an annotator holds
    is in the database, so a proxy need not keep an annotator on one process."""
    run_two_servers(database, target, spread="request")
