"""The measurement store: SQLite in WAL mode and PostgreSQL through SQLAlchemy Core, running estimates (seed 003
§2.5), refusal of foreign, damaged and newer databases, and nothing lost when the process is killed.

The tests taking the ``database`` fixture run twice: on an SQLite file and on a fresh database of a throw-away
PostgreSQL server (skipped, with the reason, where none can start)."""

from __future__ import annotations

import copy
import pickle
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, ParameterError, ReaderError
from paucity.clustering import MeasurementStore
from paucity.clustering.estimates import PRIOR_SIGMA, RunningEstimates

from ._v1_store import write_version_1


def test_measurements_survive_reopening(database):
    path = database
    with MeasurementStore(path, n_items=5) as store:
        store.add([[1, 0], [2, 4]], [0.5, 0.25], source="a", time=10.0)
        store.add([[0, 1]], [0.75], source="b", time=11.0)
    frame = MeasurementStore(str(path)).measurements()
    assert frame[["order", "i", "j", "repeat"]].values.tolist() == [[1, 0, 1, 1], [2, 2, 4, 1], [3, 0, 1, 2]]
    assert frame["value"].tolist() == [0.5, 0.25, 0.75]
    assert frame["source"].tolist() == ["a", "a", "b"]
    assert frame["time"].tolist() == [10.0, 10.0, 11.0]
    assert MeasurementStore(path).n_items == 5


def test_sqlite_runs_in_write_ahead_log_mode(tmp_path):
    path = tmp_path / "wal.db"
    MeasurementStore(path).add([[0, 1]], [0.3])
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_url_works_like_a_path(tmp_path):
    path = tmp_path / "url.db"
    MeasurementStore(f"sqlite:///{path}", n_items=3).add([[0, 2]], [1.0])
    assert len(MeasurementStore(path)) == 1


def test_running_estimates_follow_section_2_5(database):
    """Median of repeats; σ̂ = √(1/12) unmeasured, s after one, s/√r after r; s pooled over repeated pairs."""
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 6, (60, 2))
    pairs = pairs[(pairs[:, 0] != pairs[:, 1]) & (pairs.min(axis=1) > 0)]  # item 0 is never measured
    values = rng.random(len(pairs))
    store = MeasurementStore(database, n_items=6)
    store.add(pairs, values)
    estimates = store.estimates()
    frame = pd.DataFrame({"i": pairs.min(axis=1), "j": pairs.max(axis=1), "value": values})
    groups = frame.groupby(["i", "j"])["value"]
    squares = groups.apply(lambda x: ((x - x.mean()) ** 2).sum())
    counts = groups.count()
    s = np.sqrt(squares.sum() / (counts - 1).sum())
    assert estimates.pooled_sd == pytest.approx(s)
    expected = pd.DataFrame({"median": groups.median(), "n_repeats": counts, "sigma": s / np.sqrt(counts)})
    np.testing.assert_allclose(estimates.median, expected["median"].to_numpy())
    np.testing.assert_array_equal(estimates.n_repeats, expected["n_repeats"].to_numpy())
    np.testing.assert_allclose(estimates.sigma, expected["sigma"].to_numpy())
    unmeasured = next((a, b) for a in range(6) for b in range(a + 1, 6) if (a, b) not in counts.index)
    assert estimates.sigma_of(*unmeasured) == pytest.approx(np.sqrt(1 / 12))
    W = estimates.matrix()
    assert W[unmeasured] == 0 and np.all(np.diag(W) == 1) and np.allclose(W, W.T)


def test_before_any_repeat_sigma_stays_at_its_prior():
    running = RunningEstimates(4)
    running.add(0, 1, 0.9)
    assert np.isnan(running.pooled_sd)
    sigma = running.sigma_matrix()
    assert sigma[0, 1] == pytest.approx(PRIOR_SIGMA) and sigma[2, 3] == pytest.approx(PRIOR_SIGMA)
    running.add(1, 0, 0.5)
    assert running.pooled_sd == pytest.approx(np.std([0.9, 0.5], ddof=1))
    assert running.sigma_matrix()[1, 0] == pytest.approx(np.std([0.9, 0.5], ddof=1) / np.sqrt(2))
    assert running.W[0, 1] == pytest.approx(0.7) and running.counts[1, 0] == 2


def test_pending_asks_are_answered_one_per_measurement(database):
    store = MeasurementStore(database, n_items=4)
    store.add_pending([[0, 1], [2, 3], [1, 0]])
    store.add([[1, 0]], [0.4])
    assert store.pending().tolist() == [[2, 3], [0, 1]]
    store.add([[3, 2], [0, 2]], [0.1, 0.2])  # (0, 2) was never asked: recorded, nothing to answer
    assert store.pending().tolist() == [[0, 1]]
    store.clear_pending()
    assert store.pending().shape == (0, 2)


def test_a_killed_writer_loses_nothing_committed(database):
    """A process killed between asking and answering: every answer before is there, the ask is pending."""
    path = database
    script = textwrap.dedent(
        f"""
        import os
        from paucity.clustering import MeasurementStore
        store = MeasurementStore({str(path)!r}, n_items=10)
        for t in range(100):
            pair = [[t % 9, 9]]
            store.add_pending(pair)
            if t == 7:
                os._exit(3)
            store.add(pair, [t / 100])
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 3, result.stderr
    store = MeasurementStore(path)
    assert store.measurements()["value"].tolist() == [t / 100 for t in range(7)]
    assert store.pending().tolist() == [[7, 9]]


def test_a_database_of_another_program_is_refused_untouched(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(ReaderError, match="written by another program") as caught:
        MeasurementStore(path)
    assert "\n" not in str(caught.value) and "users" in str(caught.value)
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 200)
    with pytest.raises(ReaderError, match="not a database") as caught:
        MeasurementStore(path)
    assert "\n" not in str(caught.value)


def test_a_foreign_table_of_the_same_name_is_refused(tmp_path):
    path = tmp_path / "same-name.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE paucity_store (key TEXT, value TEXT)")
        connection.execute("INSERT INTO paucity_store VALUES ('format', 'something else')")
    with pytest.raises(ReaderError, match="another program"):
        MeasurementStore(path)


def test_bad_arguments(tmp_path):
    with pytest.raises(ParameterError, match="directory"):
        MeasurementStore(tmp_path)
    with pytest.raises(ParameterError, match="folder"):
        MeasurementStore(tmp_path / "missing" / "x.db")
    with pytest.raises(ParameterError, match="file path or an SQLAlchemy URL"):
        MeasurementStore(42)
    with pytest.raises(ParameterError, match="a nosuchdialect database; a session lives in an SQLite file"):
        MeasurementStore("nosuchdialect://host/db")
    with pytest.raises(ParameterError, match="in-memory database"):
        MeasurementStore("sqlite://")
    with pytest.raises(ParameterError, match="names the driver 'psycopg2'"):
        MeasurementStore("postgresql+psycopg2://ann:secret@localhost/db")


def test_bad_items_and_values(database):
    store = MeasurementStore(database, n_items=4)
    with pytest.raises(InputError, match="session over 4 items, but n_items=6"):
        MeasurementStore(database, n_items=6)
    with pytest.raises(InputError, match="unknown item"):
        store.add([[0, 4]], [0.5])
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        store.add([[0, 1]], [1.5])
    with pytest.raises(InputError, match="with itself"):
        store.add_pending([[2, 2]])
    assert len(store) == 0


def test_a_store_without_n_items_refuses_a_smaller_one_later(database):
    loose = MeasurementStore(database)
    loose.add([[0, 7]], [0.5])
    with pytest.raises(InputError, match="item 7"):
        loose.set_n_items(5)


def test_a_database_of_only_views_is_another_programs(tmp_path):
    path = tmp_path / "views.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE VIEW answers AS SELECT 1 AS x")
    before = path.read_bytes()
    with pytest.raises(ReaderError, match="written by another program .*the views answers"):
        MeasurementStore(path)
    assert path.read_bytes() == before


def test_a_damaged_or_newer_version_is_refused_untouched(tmp_path):
    path = tmp_path / "v.db"
    MeasurementStore(path, n_items=3).close()
    for version, words in (("abc", "is damaged: its store version is 'abc'"), ("0", "is damaged"),
                           ("99", "written by a newer paucity (store version 99")):
        with sqlite3.connect(path) as connection:
            connection.execute("UPDATE paucity_store SET value = ? WHERE key = 'version'", (version,))
        connection.close()
        before = path.read_bytes()
        with pytest.raises(ReaderError, match=words.replace("(", r"\(")) as caught:
            MeasurementStore(path)
        assert "\n" not in str(caught.value) and path.read_bytes() == before


def test_a_version_1_store_is_upgraded_in_place_with_its_data(tmp_path):
    """A store of the first format (no annotators, no skips) opens, its measurements and asks kept."""
    path = tmp_path / "v1.db"
    write_version_1(path, "INSERT INTO paucity_store VALUES ('n_items', '4');"
                          "INSERT INTO paucity_measurements (i, j, value, time, source) VALUES (0, 1, 0.5, 1.0, 'a');"
                          "INSERT INTO paucity_pending (i, j, time) VALUES (2, 3, 2.0);")
    store = MeasurementStore(path)
    assert store.metadata["version"] == "4" and len(store) == 1
    asks = store.pending_asks()
    assert asks[["i", "j"]].values.tolist() == [[2, 3]] and asks["annotator"].isna().all()
    assert store.skips().empty
    store.close()


def test_a_url_is_shown_without_its_password():
    from paucity.clustering.store import shown_url

    assert shown_url("postgresql://ann:secret@db.lab:5432/photos") == "postgresql://ann:***@db.lab:5432/photos"


def test_a_postgresql_url_without_its_driver_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name, *a))
    with pytest.raises(ParameterError, match=r"needs the PostgreSQL driver psycopg.*pip install 'paucity\[postgres\]'"):
        MeasurementStore("postgresql://ann:secret@localhost/photos")


def test_copies_share_the_database(database):
    store = MeasurementStore(database, n_items=3)
    store.add([[0, 1]], [0.5])
    for other in (copy.deepcopy(store), pickle.loads(pickle.dumps(store))):
        assert other.url == store.url and len(other) == 1


# -- withdrawing pending asks --------------------------------------------------------------------------------------
def test_withdrawn_asks_are_no_longer_pending_and_stay_withdrawn_after_reopening(database):
    path = database
    with MeasurementStore(path, n_items=5) as store:
        store.add_pending([[0, 1], [2, 3], [1, 4], [0, 1]])
        withdrawn = store.withdraw_pending([[3, 2], [1, 0]])  # either order; the earliest ask of (0, 1) goes
        assert withdrawn.tolist() == [[2, 3], [0, 1]] and withdrawn.dtype == np.int64
        assert store.pending().tolist() == [[1, 4], [0, 1]]
    reopened = MeasurementStore(path)
    assert reopened.pending().tolist() == [[1, 4], [0, 1]] and len(reopened) == 0  # nothing measured
    assert reopened.pending_asks()["id"].tolist() == [3, 4]  # the later ask of (0, 1) is the one left
    assert reopened.withdraw_pending().tolist() == [[1, 4], [0, 1]]  # all, in the order asked
    assert MeasurementStore(path).pending().shape == (0, 2)
    assert reopened.withdraw_pending().shape == (0, 2)  # nothing pending: nothing to withdraw


@pytest.mark.parametrize(
    "pairs, words",
    [
        ([[0, 1], [1, 2]], "pair (1, 2) is not pending (never asked, or withdrawn)"),
        ([[0, 1], [2, 3]], "pair (2, 3) is not pending (answered already)"),
        ([[0, 2], [2, 0]], "pair (0, 2) is named 2 times but waits for 1 answer(s)"),
        ([[0, 1], [0, 9]], "unknown item"),
        ([[0, 1], [3, 3]], "with itself"),
    ],
)
def test_withdrawing_an_ask_that_is_not_pending_withdraws_nothing(database, pairs, words):
    path = database
    store = MeasurementStore(path, n_items=5)
    store.add_pending([[0, 1], [0, 2], [2, 3]])
    store.add([[2, 3]], [0.5])
    with pytest.raises(InputError) as caught:
        store.withdraw_pending(pairs)
    message = str(caught.value)
    assert words in message and "\n" not in message
    if "pending" in words or "named" in words:
        assert "Nothing was withdrawn" in message
    assert MeasurementStore(path).pending().tolist() == [[0, 1], [0, 2]]  # the first delete was rolled back


def test_clear_pending_withdraws_every_ask(database):
    store = MeasurementStore(database, n_items=3)
    store.add_pending([[0, 1], [1, 2]])
    store.clear_pending()
    assert store.pending().shape == (0, 2) and len(store) == 0
