"""The annotation page under a crowd: 50 simulated annotators answering for 2 minutes, on SQLite and PostgreSQL.

Run from the repository root with paucity's development Python (``make install``)::

    python benchmarks/annotation_crowd.py                     # both databases, about five minutes
    python benchmarks/annotation_crowd.py --seconds 30 --backends sqlite

No anchor: no library serves an active-clustering session to a crowd. ``paucity serve annotate`` runs as its own
process on the loopback, on a session over 200 items (IU-RED, ``batch_size=100``, a budget no run reaches), with
50 annotators invited (each answers with their personal token) and 5 gold pairs mixed in at the default rate.
50 simulated annotators, in one process of asyncio tasks over httpx, each loop as the page does: take a pair
(``POST /api/next``), answer it (``POST /api/answer`` with a random key; the reply carries the next pair), until
the time is up; twice: answering at once (the most the server does), and taking about 3 seconds per pair
(uniform between 1.5 and 4.5, a quick person). The latency is that of each answer request, from sending to the reply (which includes choosing
the annotator's next pair). The server and the simulated annotators share the machine's two cores.

Afterwards the database is read: the answers stored must be the answers acknowledged (each 200 reply), none
twice, and no pair measured twice. Results are printed and written to
``benchmarks/results/annotation_crowd.json``; the figures in ``docs/benchmarks.md`` come from there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "annotation_crowd.json"
N_ANNOTATORS = 50
N_ITEMS = 200


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(database: str, folder: Path):
    """``paucity serve annotate`` in a process of its own; returns it, its URL and every annotator's token."""
    items = folder / "items.csv"
    items.write_text("item,text\n" + "".join(f"photo{k:03d},group {k % 2}\n" for k in range(N_ITEMS)))
    gold = folder / "gold.csv"
    gold.write_text("i,j,answer\n" + "".join(f"photo{2 * k:03d},photo{2 * k + 2:03d},9\n" for k in range(5)))
    names = [f"annotator{k:02d}" for k in range(N_ANNOTATORS)]
    port = free_port()
    arguments = ["serve", "annotate", database, "--items", str(items), "--budget", "15000", "--batch-size", "100",
                 "--random-state", "0", "--gold", str(gold), "--port", str(port), "--invite", *names]
    code = "import sys; from paucity.cli import main; sys.argv = ['paucity', *sys.argv[1:]]; main()"
    process = subprocess.Popen([sys.executable, "-c", code, *arguments], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    tokens, url = {}, None
    for line in process.stdout:
        found = re.match(r"\s+(annotator\d+): (http://\S+)\?token=(\S+)", line)
        if found:
            tokens[found.group(1)] = found.group(3)
            url = found.group(2)
        if len(tokens) == N_ANNOTATORS:
            break
        if process.poll() is not None:
            raise RuntimeError("the server stopped: " + line)
    return process, url, tokens


async def annotate(client, url: str, token: str, until: float, latencies: list, acknowledged: list,
                   think: float) -> None:
    import random

    headers = {"x-paucity-token": token}
    reply = (await client.post(url + "api/next", json={}, headers=headers)).json()
    while time.monotonic() < until:
        if think:  # a person looks at the pair before answering: think seconds on average
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)
        if reply.get("status") != "pair":
            await asyncio.sleep(0.5)  # waiting for a pair to free up, as the page asks again
            reply = (await client.post(url + "api/next", json={}, headers=headers)).json()
            continue
        i, j = reply["pair"]["i"]["name"], reply["pair"]["j"]["name"]
        value = 8 if int(i[5:]) % 2 == int(j[5:]) % 2 else 1
        body = {"i": i, "j": j, "value": value, "key": uuid.uuid4().hex}
        start = time.perf_counter()
        response = await client.post(url + "api/answer", json=body, headers=headers)
        latencies.append(time.perf_counter() - start)
        if response.status_code == 200:
            acknowledged.append((token, i, j))
            reply = response.json()
        else:
            reply = (await client.post(url + "api/next", json={}, headers=headers)).json()


async def crowd(url: str, tokens: dict, seconds: float, think: float):
    import httpx

    latencies, acknowledged = [], []
    limits = httpx.Limits(max_connections=N_ANNOTATORS + 5)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        start = time.monotonic()
        until = start + seconds
        await asyncio.gather(*(annotate(client, url, token, until, latencies, acknowledged, think)
                               for token in tokens.values()))
        elapsed = time.monotonic() - start
    return latencies, acknowledged, elapsed


def run(backend: str, database: str, folder: Path, seconds: float, think: float) -> dict:
    from paucity.clustering import ClusteringSession

    process, url, tokens = start_server(database, folder)
    try:
        latencies, acknowledged, elapsed = asyncio.run(crowd(url, tokens, seconds, think))
    finally:
        process.terminate()
        process.wait(timeout=30)
    names = {token: name for name, token in tokens.items()}
    with ClusteringSession.open(database) as session:
        stored = session.answers()
        gold = session.gold_answers()
    stored_pairs = list(zip(stored["source"], stored["i"], stored["j"])) + list(
        zip(gold["annotator"], gold["i"], gold["j"]))
    expected = [(names[token], i, j) for token, i, j in acknowledged]
    sound = (sorted(stored_pairs) == sorted(expected) and not stored.duplicated(["i", "j"]).any())
    times = np.array(latencies) * 1000
    row = {"backend": backend, "think_seconds": think, "seconds": elapsed, "answers": len(acknowledged), "per_second": len(acknowledged) / elapsed,
           "gold_answers": int(len(gold)), "latency_ms_p50": float(np.percentile(times, 50)),
           "latency_ms_p95": float(np.percentile(times, 95)), "stored_equals_acknowledged": bool(sound)}
    print(f"  {backend}, {think:g} s to think: {row['answers']} answers in {elapsed:.0f} s ({row['per_second']:.1f} per second, "
          f"{row['gold_answers']} of them gold); latency p50 {row['latency_ms_p50']:.0f} ms, p95 "
          f"{row['latency_ms_p95']:.0f} ms; stored = acknowledged, none twice: {sound}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--think", type=float, nargs="+", default=[0.0, 3.0],
                        help="seconds each annotator takes per pair, on average (0: answer at once, the server's most)")
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from benchmarks.clustering_session import machine

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
                rows += [run(backend, server.new_database(), folder, args.seconds, think) for think in args.think]
            finally:
                server.stop()
        else:
            rows += [run(backend, str(folder / f"crowd-{think:g}.db"), folder, args.seconds, think)
                     for think in args.think]
    report = {"machine": machine(), "annotators": N_ANNOTATORS, "items": N_ITEMS, "seconds": args.seconds,
              "rows": rows, "load_average_before": load_before, "load_average_after": os.getloadavg()}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=1))
    print(f"load average before {load_before}, after {report['load_average_after']}; wrote {RESULTS}")


if __name__ == "__main__":
    main()
