"""The annotation page under a crowd: 50 or 200 annotators on one or two server processes, SQLite and PostgreSQL.

Run from the repository root with paucity's development Python (``make install``)::

    python benchmarks/annotation_crowd.py                     # every combination, about 25 minutes
    python benchmarks/annotation_crowd.py --seconds 30 --backends sqlite --processes 1 --annotators 50
    python benchmarks/annotation_crowd.py --think 3 --processes 1 2 --annotators 50 200

No anchor: no library serves an active-clustering session to a crowd. ``paucity serve annotate`` runs as its own
process on the loopback, on a session over 200 items (IU-RED, ``batch_size`` twice the number of annotators
and at least 100, so that every annotator can hold a pair; a budget no run reaches), with every annotator
invited (each answers with their personal token) and 5 gold pairs mixed in at the default rate. With
``--processes 2`` a second ``paucity serve annotate`` is started on the same database once the first has started
the session (its own port, and the same items table; the settings, annotators and gold pairs are the
database's), as a team would behind a reverse proxy, and the annotators are spread over the two: annotator k
always talks to process k mod 2.

The simulated annotators (50 or 200), in one process of asyncio tasks over httpx, each loop as the page does:
take a pair (``POST /api/next``), answer it (``POST /api/answer`` with a fresh random key; the reply carries the
next pair), until the time is up; answering at once (think 0: the most the servers do), or taking about 3
seconds per pair (think 3: uniform between 1.5 and 4.5 s, a quick person). The latency is that of each answer
request, from sending to the reply (which includes choosing the annotator's next pair); a request whose
connection drops before the reply (the server closes a kept-alive connection after 5 idle seconds, and a request
sent on it just then is lost) is sent again with the same key, as the page does, and its latency runs to the
reply. The servers, the
database and the simulated annotators share the machine's cores. Every combination of ``--backends``,
``--processes``, ``--annotators`` and ``--think`` runs for ``--seconds`` (60 by default; the first runs of this
benchmark, with one process and 50 annotators, ran for 120), each on a new database.

Afterwards the database is read: the answers stored must be the answers acknowledged (each 200 reply), none
twice, and no pair measured twice; and, from the replies, no pair (gold pairs apart, which every annotator
answers) was shown to two annotators. The load average is read before and after each run. Results are printed
and written to ``benchmarks/results/annotation_crowd.json`` (``--json`` names another file); the figures in ``docs/benchmarks.md`` come from there.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "annotation_crowd.json"
N_ITEMS = 200
N_GOLD = 5
#: How long a server may take to start and answer its first request.
START_SECONDS = 120
CODE = "import sys; from paucity.cli import main; sys.argv = ['paucity', *sys.argv[1:]]; main()"
HEADER = "x-paucity-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``paucity serve annotate ...`` in a process of its own, every line it prints kept (read by a thread)."""

    def __init__(self, arguments: list[str]):
        self.process = subprocess.Popen([sys.executable, "-c", CODE, *arguments], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"})
        self.lines: list[str] = []
        self.ended = False
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def wait_for(self, done, what: str):
        """Wait until ``done(lines)`` is true (or the deadline, or the process's end); returns its value."""
        with self._changed:
            self._changed.wait_for(lambda: done(self.lines) or self.ended, timeout=START_SECONDS)
            if not done(self.lines):
                raise RuntimeError(f"the server printed no {what}: " + "".join(self.lines[-20:]))
            return done(self.lines)

    def url(self) -> str:
        def found(lines):
            return next((m.group(1) for line in lines if (m := re.match(r"paucity annotation page: (http://\S+)",
                                                                          line))), None)

        return self.wait_for(found, "URL")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def wait_until_answering(url: str, token: str, server: Server) -> None:
    """Poll the server until it answers an annotator's request, within a deadline."""
    import httpx

    deadline = time.monotonic() + START_SECONDS
    while True:
        if server.process.poll() is not None:
            raise RuntimeError("a server stopped: " + "".join(server.lines[-20:]))
        try:
            if httpx.get(url + "api/me", headers={HEADER: token}, timeout=30).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server at {url} did not answer within {START_SECONDS} s")
        time.sleep(0.2)


def start_servers(database: str, folder: Path, processes: int, annotators: int):
    """The session's first server (which starts it and invites everyone), then the others on the same database.

    Returns the servers, their URLs and every annotator's token."""
    items = folder / "items.csv"
    items.write_text("item,text\n" + "".join(f"photo{k:03d},group {k % 2}\n" for k in range(N_ITEMS)))
    gold = folder / "gold.csv"
    gold.write_text("i,j,answer\n" + "".join(f"photo{2 * k:03d},photo{2 * k + 2:03d},9\n" for k in range(N_GOLD)))
    names = [f"annotator{k:03d}" for k in range(annotators)]
    batch_size = max(100, 2 * annotators)
    servers = [Server(["serve", "annotate", database, "--items", str(items), "--budget", "15000", "--batch-size",
                       str(batch_size), "--random-state", "0", "--gold", str(gold), "--port", str(free_port()),
                       "--invite", *names])]
    try:
        def links(lines):
            found = dict(m.groups() for line in lines if (m := re.match(r"\s+(annotator\d+): http://\S+\?token=(\S+)",
                                                                        line)))
            return found if len(found) == annotators else None

        tokens = servers[0].wait_for(links, "annotator links")
        for _ in range(processes - 1):  # the session, its annotators and gold pairs exist: the page's items only
            servers.append(Server(["serve", "annotate", database, "--items", str(items), "--port", str(free_port())]))
        urls = [server.url() for server in servers]
        for server, url in zip(servers, urls):
            wait_until_answering(url, tokens[names[0]], server)
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers, urls, tokens


async def post(client, url: str, body: dict, headers: dict, crowd: dict):
    """POST, sent again (the same body, so the same key) when the connection drops before the reply, as the page
    does: a server closes a kept-alive connection idle for 5 s, and a request sent on it just then is lost."""
    import httpx

    for attempt in range(5):
        try:
            return await client.post(url, json=body, headers=headers)
        except httpx.TransportError:
            if attempt == 4:
                raise
            crowd["sent_again"] += 1


async def annotate(client, url: str, token: str, until: float, crowd: dict, think: float) -> None:
    headers = {HEADER: token}
    reply = (await post(client, url + "api/next", {}, headers, crowd)).json()
    while time.monotonic() < until:
        if think:  # a person looks at the pair before answering: think seconds on average
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)
        if reply.get("status") != "pair":
            await asyncio.sleep(0.5)  # waiting for a pair to free up, as the page asks again
            reply = (await post(client, url + "api/next", {}, headers, crowd)).json()
            continue
        i, j = reply["pair"]["i"]["name"], reply["pair"]["j"]["name"]
        crowd["shown"][frozenset((i, j))].add(token)
        value = 8 if int(i[5:]) % 2 == int(j[5:]) % 2 else 1
        body = {"i": i, "j": j, "value": value, "key": uuid.uuid4().hex}
        start = time.perf_counter()
        response = await post(client, url + "api/answer", body, headers, crowd)
        crowd["latencies"].append(time.perf_counter() - start)
        if response.status_code == 200:
            crowd["acknowledged"].append((token, i, j))
            reply = response.json()
        else:
            crowd["refused"].append(response.status_code)
            reply = (await post(client, url + "api/next", {}, headers, crowd)).json()


async def crowd_on(urls: list[str], tokens: dict, seconds: float, think: float) -> tuple[dict, float]:
    import httpx

    crowd = {"latencies": [], "acknowledged": [], "refused": [], "shown": defaultdict(set), "sent_again": 0}
    limits = httpx.Limits(max_connections=len(tokens) + 5)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        start = time.monotonic()
        until = start + seconds
        await asyncio.gather(*(annotate(client, urls[k % len(urls)], token, until, crowd, think)
                               for k, token in enumerate(tokens.values())))
        elapsed = time.monotonic() - start
    return crowd, elapsed


def run(backend: str, database: str, folder: Path, seconds: float, think: float, processes: int,
        annotators: int) -> dict:
    from paucity.clustering import ClusteringSession

    load_before = os.getloadavg()
    servers, urls, tokens = start_servers(database, folder, processes, annotators)
    try:
        crowd, elapsed = asyncio.run(crowd_on(urls, tokens, seconds, think))
    finally:
        for server in servers:
            server.stop()
    load_after = os.getloadavg()
    names = {token: name for name, token in tokens.items()}
    with ClusteringSession.open(database) as session:
        stored = session.answers()
        gold = session.gold_answers()
        gold_pairs = {frozenset(pair) for pair in zip(session.gold()["i"], session.gold()["j"])}
    stored_pairs = list(zip(stored["source"], stored["i"], stored["j"])) + list(
        zip(gold["annotator"], gold["i"], gold["j"]))
    acknowledged = crowd["acknowledged"]
    expected = [(names[token], i, j) for token, i, j in acknowledged]
    sound = sorted(stored_pairs) == sorted(expected) and not stored.duplicated(["i", "j"]).any()
    shared = sum(1 for pair, holders in crowd["shown"].items() if pair not in gold_pairs and len(holders) > 1)
    times = np.array(crowd["latencies"]) * 1000
    row = {"backend": backend, "processes": processes, "annotators": annotators, "think_seconds": think,
           "batch_size": max(100, 2 * annotators), "seconds": elapsed, "answers": len(acknowledged),
           "per_second": len(acknowledged) / elapsed, "gold_answers": int(len(gold)), "refused": len(crowd["refused"]),
           "sent_again": crowd["sent_again"],
           "latency_ms_p50": float(np.percentile(times, 50)), "latency_ms_p95": float(np.percentile(times, 95)),
           "stored_equals_acknowledged": bool(sound), "pairs_shown_to_two": shared,
           "load_average_before": list(load_before), "load_average_after": list(load_after)}
    print(f"  {backend}, {processes} process(es), {annotators} annotators, {think:g} s to think: {row['answers']} "
          f"answers in {elapsed:.0f} s ({row['per_second']:.1f} per second, {row['gold_answers']} of them gold, "
          f"{row['refused']} refused, {row['sent_again']} sent again); latency p50 {row['latency_ms_p50']:.0f} ms, "
          f"p95 {row['latency_ms_p95']:.0f} ms; stored = acknowledged, none twice: {sound}; pairs shown to two: "
          f"{shared}; load {load_before[0]:.2f} -> {load_after[0]:.2f}", flush=True)
    return row


def versions() -> dict:
    import sqlite3

    import sqlalchemy

    import paucity

    found = {"paucity": paucity.__version__, "python": platform.python_version(), "sqlalchemy": sqlalchemy.__version__,
             "sqlite": sqlite3.sqlite_version}
    try:
        import psycopg

        found["psycopg"] = psycopg.__version__
    except ImportError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long each combination runs")
    parser.add_argument("--think", type=float, nargs="+", default=[0.0, 3.0],
                        help="seconds each annotator takes per pair, on average (0: answer at once, the server's most)")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2], choices=[1, 2, 3, 4],
                        help="server processes on the one session; the annotators are spread over them")
    parser.add_argument("--annotators", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"where to write the results (default {RESULTS.name})")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from benchmarks.clustering_session import machine

    combinations = list(itertools.product(args.think, args.processes, args.annotators))
    load_before = os.getloadavg()
    folder = Path(tempfile.mkdtemp(prefix="paucity-crowd-bench-"))
    rows = []
    for backend in args.backends:
        if backend == "postgresql":
            from tests.postgres import PostgresServer, why_not

            reason = why_not()
            if reason is not None:
                print(f"postgresql skipped: {reason}")
                continue
            server = PostgresServer()
            try:
                rows += [run(backend, server.new_database(), folder, args.seconds, think, processes, annotators)
                         for think, processes, annotators in combinations]
                postgres = postgres_version(server)
            finally:
                server.stop()
        else:
            rows += [run(backend, str(folder / f"crowd-{think:g}-{processes}-{annotators}.db"), folder, args.seconds,
                         think, processes, annotators) for think, processes, annotators in combinations]
    found = versions()
    if any(row["backend"] == "postgresql" for row in rows):
        found["postgresql"] = postgres
    report = {"machine": machine(), "versions": found, "items": N_ITEMS, "seconds": args.seconds, "rows": rows,
              "load_average_before": load_before, "load_average_after": os.getloadavg()}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(f"load average before {load_before}, after {report['load_average_after']}; wrote {args.json.name}")


def postgres_version(server) -> str:
    """The throw-away server's PostgreSQL version (``SHOW server_version``)."""
    import psycopg

    with psycopg.connect(f"host=127.0.0.1 port={server.port} user=paucity dbname=postgres") as connection:
        return connection.execute("SHOW server_version").fetchone()[0].split()[0]


if __name__ == "__main__":
    main()
