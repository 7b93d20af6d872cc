"""Clustering sessions: answers recorded per second by 8 processes at once, and the ask latency at 2,000 items.

Run from the repository root with paucity's development Python (``make install``)::

    python benchmarks/clustering_session.py                  # SQLite and PostgreSQL, about three minutes
    python benchmarks/clustering_session.py --backends sqlite

No library shares an active-clustering session between processes, so there is no anchor: the figures are
paucity's own, on SQLite (a file in a temporary folder) and on PostgreSQL (a throw-away server on the loopback,
Debian's ``postgresql``, as the tests start it; skipped with the reason where none can start).

**Answers per second.** A session over 200 items (IU-RED, ``batch_size=64``), and 8 processes released
together. Two loads:

- *record*: each process first asks 40 pairs of its own, then records their answers one per call
  (``record(..., annotator=..., cluster=False)``): the database's work for one answer, under the lock;
- *page*: each process does what the annotation page does for one annotator, 25 times: ask for one pair
  (``ask(1, annotator=..., lease_seconds=600)``, which chooses a new pair by one eigen-update when none is
  free), then record its answer.

The rate is the answers acknowledged by all processes over the time from the release to the last process's
end. Afterwards the database is checked: every acknowledged answer stored once, no pair measured twice, no
pair waiting twice.

**Ask latency at 2,000 items.** A session over 2,000 items (IU-RED, ``batch_size=500``), filled by rounds of
``ask(500)`` and ``record`` to 50,000 answers (2.5 % of the pairs) in this process. Then: the latency of
``ask(20, annotator=...)`` in a process that holds the session (answers synced; one eigen-update under the
lock), the median of 5, each after 20 answers; and the first ask of a new process
(``ClusteringSession.open`` and ``ask(20)``: it reads and replays the 50,000 answers, then updates).

Results are printed and written to ``benchmarks/results/clustering_session.json``; the figures in
``docs/benchmarks.md`` come from there.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "clustering_session.json"
N_PROCESSES = 8


def similarity(names: list[str]):
    """Two planted groups: 0.8 within, 0.1 across (what the annotators answer)."""
    half = len(names) // 2
    group = {name: k < half for k, name in enumerate(names)}
    return lambda i, j: 0.8 if group[i] == group[j] else 0.1


# -- the processes ---------------------------------------------------------------------------------------------------
def _wait(go: str) -> None:
    while not os.path.exists(go):
        time.sleep(0.0005)


def record_load(database: str, who: str, go: str, n: int):
    from paucity.clustering import ClusteringSession

    with ClusteringSession.open(database) as session:
        answer = similarity(list(session.items))
        pairs = session.ask(n, annotator=who).pairs
        _wait(go)
        start = time.perf_counter()
        for i, j in zip(pairs["i"], pairs["j"]):
            session.record(pd.DataFrame({"i": [i], "j": [j], "value": [answer(i, j)]}), annotator=who, cluster=False)
        return len(pairs), start, time.perf_counter(), [(i, j) for i, j in zip(pairs["i"], pairs["j"])]


def page_load(database: str, who: str, go: str, n: int):
    from paucity.clustering import ClusteringSession

    with ClusteringSession.open(database) as session:
        answer = similarity(list(session.items))
        session.status()  # the session read once, as a server that has been running
        _wait(go)
        start = time.perf_counter()
        done = []
        for _ in range(n):
            asks = session.ask(1, annotator=who, lease_seconds=600)
            if not len(asks.pairs):
                continue
            i, j = asks.pairs["i"].iloc[0], asks.pairs["j"].iloc[0]
            session.record(pd.DataFrame({"i": [i], "j": [j], "value": [answer(i, j)]}), annotator=who, cluster=False)
            done.append((i, j))
        return len(done), start, time.perf_counter(), done


def throughput(pool, database: str, load: str, folder: Path) -> dict:
    from paucity.clustering import ClusteringSession

    names = [f"item{k:04d}" for k in range(200)]
    with ClusteringSession.create(database, names, budget=10_000, batch_size=N_PROCESSES * 40, random_state=0):
        pass
    go = folder / f"go-{load}-{time.monotonic_ns()}"
    function, n = (record_load, 40) if load == "record" else (page_load, 25)
    pending = pool.starmap_async(function, [(database, f"annotator{k}", str(go), n) for k in range(N_PROCESSES)])
    time.sleep(3.0)  # every process has opened the session and waits
    go.write_text("")
    results = pending.get(timeout=1200)
    answered = sum(count for count, _, _, _ in results)
    began, ended = min(r[1] for r in results), max(r[2] for r in results)
    acknowledged = [pair for _, _, _, pairs in results for pair in pairs]
    with ClusteringSession.open(database) as session:
        stored = session.answers()
        waiting = session.waiting()
    pairs = list(zip(stored["i"], stored["j"]))
    sound = (sorted(pairs) == sorted(acknowledged) and len(set(pairs)) == len(pairs)
             and not waiting.duplicated(["i", "j"]).any())
    row = {"load": load, "answers": answered, "seconds": ended - began, "per_second": answered / (ended - began),
           "stored": len(stored), "none_lost_or_twice": bool(sound)}
    print(f"  {load}: {answered} answers in {row['seconds']:.2f} s, {row['per_second']:.0f} per second; "
          f"{len(stored)} stored, none lost or twice: {sound}", flush=True)
    return row


def latency(database: str, folder: Path) -> dict:
    from paucity.clustering import ClusteringSession

    names = [f"photo{k:04d}" for k in range(2000)]
    answer = similarity(names)
    fill_start = time.perf_counter()
    with ClusteringSession.create(database, names, budget=200_000, batch_size=500, random_state=0) as session:
        while session.status().n_measured < 50_000:
            asks = session.ask(500, annotator="filler")
            values = [answer(i, j) for i, j in zip(asks.pairs["i"], asks.pairs["j"])]
            session.record(asks.pairs.assign(value=values), annotator="filler", cluster=False)
        fill_seconds = time.perf_counter() - fill_start
        times = []
        for round_ in range(6):
            start = time.perf_counter()
            asks = session.ask(20, annotator=f"timed{round_}")
            times.append(time.perf_counter() - start)
            values = [answer(i, j) for i, j in zip(asks.pairs["i"], asks.pairs["j"])]
            session.record(asks.pairs.assign(value=values), annotator=f"timed{round_}", cluster=False)
    code = ("import sys, time; from paucity.clustering import ClusteringSession; t = time.perf_counter(); "
            "s = ClusteringSession.open(sys.argv[1]); s.ask(20, annotator='fresh'); print(time.perf_counter() - t)")
    fresh = subprocess.run([sys.executable, "-c", code, database], capture_output=True, text=True, check=True)
    row = {"n_items": 2000, "answers": 50_000 + 6 * 20, "fill_seconds": fill_seconds,
           "ask_seconds_median": float(np.median(times[1:])), "ask_seconds": times[1:],
           "first_ask_new_process_seconds": float(fresh.stdout.strip())}
    print(f"  2,000 items, {row['answers']} answers: ask(20) {row['ask_seconds_median'] * 1000:.0f} ms (median of 5); "
          f"first ask of a new process {row['first_ask_new_process_seconds']:.2f} s; filling took {fill_seconds:.0f} s",
          flush=True)
    return row


def machine() -> str:
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or platform.machine()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {os.cpu_count()} cores, {memory:.1f} GiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    load_before = os.getloadavg()
    report = {"machine": machine(), "python": platform.python_version(), "processes": N_PROCESSES, "backends": {}}
    folder = Path(tempfile.mkdtemp(prefix="paucity-session-bench-"))
    server = None
    context = multiprocessing.get_context("spawn")
    with context.Pool(N_PROCESSES) as pool:
        pool.map(_wait, [__file__] * N_PROCESSES)
        for backend in args.backends:
            if backend == "postgresql":
                from tests.postgres import PostgresServer, why_not

                reason = why_not()
                if reason is not None:
                    print(f"postgresql skipped: {reason}")
                    continue
                server = PostgresServer()
                url = server.new_database
            else:
                counter = iter(range(100))
                url = lambda: str(folder / f"s{next(counter)}.db")  # noqa: E731
            print(f"{backend}:", flush=True)
            report["backends"][backend] = {
                "throughput": [throughput(pool, url(), load, folder) for load in ("record", "page")],
                "latency": latency(url(), folder),
            }
    if server is not None:
        server.stop()
    report["load_average_before"] = load_before
    report["load_average_after"] = os.getloadavg()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=1))
    print(f"load average before {load_before}, after {report['load_average_after']}; wrote {RESULTS}")


if __name__ == "__main__":
    main()
