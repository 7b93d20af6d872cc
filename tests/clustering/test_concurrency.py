"""Many processes on one session at once: every pair handed out waits once, no answer is lost or stored twice.

Processes are started once per module (spawned, so each has its own interpreter and database connections) and
released together by a file appearing, so that their transactions meet; each round uses a new database. The same
tests run on SQLite and on a throw-away PostgreSQL server. Before the session took the database's write lock for
each verb, the start-and-ask race below left every pair of the first batch waiting three or four times (4
processes, every try).
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from paucity.clustering import ClusteringSession, MeasurementStore

from . import _workers

N_PROCESSES = 4


@pytest.fixture(scope="module")
def pool():
    context = multiprocessing.get_context("spawn")
    with context.Pool(N_PROCESSES) as workers:
        workers.map(_workers.wait_for, [__file__] * N_PROCESSES)  # started and waiting, before the first round
        yield workers


def released(pool, function, arguments, go: Path):
    """Run ``function`` on every argument tuple at once: the processes wait for ``go``, which appears last."""
    pending = pool.starmap_async(function, arguments)
    time.sleep(0.3)
    go.write_text("")
    return pending.get(timeout=300)


def pending_rows(database: str) -> pd.DataFrame:
    with MeasurementStore(database) as store:
        return store.pending_asks()


@pytest.mark.parametrize("rounds", [6])
def test_processes_starting_and_asking_at_once_get_disjoint_batches(pool, database, tmp_path, rounds):
    for round_ in range(rounds):
        url = database if round_ == 0 else _another(database, tmp_path, round_)
        go = tmp_path / f"go{round_}"
        results = released(pool, _workers.start_and_ask,
                           [(url, f"helper{k}", str(go), 10, 40) for k in range(N_PROCESSES)], go)
        assert [kind for kind, _, _ in results] == ["ok"] * N_PROCESSES, results
        batches = [set(pairs) for _, pairs, _ in results]
        assert all(len(batch) == 10 for batch in batches)
        handed = [pair for batch in batches for pair in batch]
        assert len(set(handed)) == len(handed) == 10 * N_PROCESSES  # no pair goes to two people
        assert sum(created for _, _, created in results) == 1  # started once
        rows = pending_rows(url)
        assert not rows.duplicated(["i", "j"]).any() and len(rows) == 10 * N_PROCESSES
        assert Counter(rows["annotator"]) == {f"helper{k}": 10 for k in range(N_PROCESSES)}


def test_a_full_session_gives_the_late_asker_nothing_rather_than_someone_elses_pairs(pool, database, tmp_path):
    go = tmp_path / "go"
    results = released(pool, _workers.start_and_ask,
                       [(database, f"helper{k}", str(go), 10, 25) for k in range(N_PROCESSES)], go)
    sizes = sorted(len(pairs) for _, pairs, _ in results)
    assert sum(sizes) == 25 and sizes[-1] == 10  # at most 25 wait at once: the late ones get less, or nothing
    handed = [pair for _, pairs, _ in results for pair in pairs]
    assert len(set(handed)) == len(handed)
    assert not pending_rows(database).duplicated(["i", "j"]).any()


def test_asks_answers_and_withdrawals_interleaved_lose_nothing_and_store_nothing_twice(pool, database, tmp_path):
    with ClusteringSession.create(database, _workers.ITEMS, budget=400, batch_size=12, random_state=1):
        pass
    go = tmp_path / "go"
    results = released(pool, _workers.churn,
                       [(database, f"helper{k}", str(go), 12, k) for k in range(N_PROCESSES)], go)
    answered = [pair for done, _, _ in results for pair in done]
    withdrawn = [pair for _, gone, _ in results for pair in gone]
    assert [refused for _, _, refused in results] == [[]] * N_PROCESSES
    with ClusteringSession.open(database) as session:
        stored = session.answers()
        waiting = session.waiting()
        status = session.status()
    pairs = list(zip(stored["i"], stored["j"]))
    assert Counter(pairs) == Counter(answered)  # every acknowledged answer, once
    assert len(set(pairs)) == len(pairs)  # repeats=1: no pair measured twice
    still = set(zip(waiting["i"], waiting["j"]))
    assert not still & set(pairs) and not waiting.duplicated(["i", "j"]).any()
    assert waiting["annotator"].isna().all()  # each process gave back what it held
    # a withdrawn pair was never measured and may be asked again (ClusteringSession.withdraw): one may wait again
    # at the end, asked anew, so the pairs still waiting are not checked against the withdrawn ones
    assert withdrawn  # the processes did withdraw, concurrently with the others' asks and answers
    assert status.n_measured == len(answered) and status.n_pending == len(waiting)


@pytest.mark.slow  # 8 to 37 s: run by make test-slow, to keep make test near ten minutes
def test_the_command_line_started_by_several_people_at_once(database, tmp_path):
    """The report's case: `cluster-session start` run by 4 people at the same moment, each with their own file."""
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "\n".join(_workers.ITEMS) + "\n")
    go = tmp_path / "go"
    code = ("import sys, tests.clustering._workers as w; w.wait_for(sys.argv[1]); from paucity.cli import main; "
            "sys.argv = ['paucity', *sys.argv[2:]]; main()")
    processes = [
        subprocess.Popen([sys.executable, "-c", code, str(go), "cluster-session", "start", database, "--items",
                          str(items), "--budget", "60", "--batch-size", "40", "-n", "10", "--random-state", "0", "--out",
                          str(tmp_path / f"a{k}.csv")], cwd=Path(__file__).parents[2], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for k in range(N_PROCESSES)
    ]
    time.sleep(2.0)  # the interpreters start; the go file lets them all open the database at once
    go.write_text("")
    outcomes = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0] * N_PROCESSES, outcomes
    assert sum("started a session" in out for out, _ in outcomes) == 1
    files = [pd.read_csv(tmp_path / f"a{k}.csv", dtype=str) for k in range(N_PROCESSES)]
    handed = [pair for table in files for pair in zip(table["i"], table["j"])]
    assert all(len(table) == 10 for table in files) and len(set(handed)) == 40
    assert not pending_rows(database).duplicated(["i", "j"]).any()


def _another(database: str, tmp_path: Path, round_: int) -> str:
    """A new database of the same kind as ``database`` for another round."""
    if "://" not in database:
        return str(tmp_path / f"round{round_}.db")
    base, _, name = database.rpartition("/")
    import psycopg

    server = base.split("@", 1)[1]
    host, port = server.split(":")
    fresh = f"{name}_{round_}"
    with psycopg.connect(f"host={host} port={port} user=paucity dbname=postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{fresh}"')
    return f"{base}/{fresh}"
