"""A session killed mid-run resumes from its database: nothing lost, nothing measured twice, and the same
choices as a session never interrupted."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, ParameterError
from paucity.clustering import ActiveSpectralClustering, ClusteringSession, MatrixOracle, MeasurementStore

PARAMS = dict(budget=45, batch_size=4, random_state=5)


def params(strategy: str) -> dict:
    """The run's settings; interleaving where it changes something (not with random pairs, which refuse it)."""
    return {**PARAMS, "interleave": strategy != "random"}


def similarities(n=14, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [2.5, 0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)


def run_until_killed(tmp_path, W, database, after: int, strategy: str) -> subprocess.CompletedProcess:
    """Fit in another process whose oracle calls os._exit once it would answer more than `after` pairs."""
    np.save(tmp_path / "W.npy", W)
    script = textwrap.dedent(
        f"""
        import os
        import numpy as np
        from paucity.clustering import ActiveSpectralClustering, MatrixOracle

        class Dying:
            def __init__(self, W):
                self.inner, self.n_items, self.answered = MatrixOracle(W), len(W), 0

            def query(self, pairs):
                if self.answered + len(pairs) > {after}:
                    os._exit(7)  # killed while the batch is out: no answer comes back
                self.answered += len(pairs)
                return self.inner.query(pairs)

        W = np.load({str(tmp_path / "W.npy")!r})
        ActiveSpectralClustering(strategy={strategy!r}, store={str(database)!r}, **{params(strategy)!r}).fit(Dying(W))
        """
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


@pytest.mark.parametrize("strategy, after, backend", [("iu_red", 21, "sqlite"), ("shamir_tishby", 30, "sqlite"),
                                                       ("random", 3, "sqlite"), ("iu_red", 21, "postgresql")])
def test_a_killed_session_resumes_with_nothing_lost_or_measured_twice(tmp_path, request, strategy, after, backend):
    W = similarities()
    database = tmp_path / "session.db" if backend == "sqlite" else request.getfixturevalue("postgres_server").new_database()
    result = run_until_killed(tmp_path, W, database, after, strategy)
    assert result.returncode == 7, result.stderr
    store = MeasurementStore(database)
    measured_before = store.measurements()
    assert len(measured_before) == after // 4 * 4  # every answered batch was committed
    assert len(store.pending()) == 4  # the batch in flight is remembered as asked
    store.close()

    oracle = MatrixOracle(W)
    resumed = ActiveSpectralClustering(strategy=strategy, store=database, **params(strategy)).fit(oracle)
    assert oracle.n_answered == 45 - len(measured_before)  # only what was missing was measured
    assert resumed.n_queries_ == 45
    store = MeasurementStore(database)
    everything = store.measurements()
    assert len(everything) == 45 and len(store.pending()) == 0
    assert not everything.duplicated(["i", "j"]).any()
    pd.testing.assert_frame_equal(everything.iloc[: len(measured_before)], measured_before)

    uninterrupted = ActiveSpectralClustering(strategy=strategy, **params(strategy)).fit(MatrixOracle(W))
    pd.testing.assert_frame_equal(resumed.queries_, uninterrupted.queries_)
    np.testing.assert_array_equal(resumed.labels_, uninterrupted.labels_)


def test_a_finished_session_is_not_extended_and_a_larger_budget_continues_through_extend(tmp_path):
    W = similarities(n=10, seed=1)
    database = tmp_path / "done.db"
    ActiveSpectralClustering(budget=12, store=database, random_state=0).fit(MatrixOracle(W))
    oracle = MatrixOracle(W)
    again = ActiveSpectralClustering(budget=12, store=database, random_state=0).fit(oracle)
    assert oracle.n_answered == 0 and again.n_queries_ == 12
    with pytest.raises(ParameterError, match="has budget=12; budget=20 would make another session.*extend"):
        ActiveSpectralClustering(budget=20, store=database, random_state=0).fit(oracle)
    with ClusteringSession.open(database) as session:
        session.extend(20)
    more = ActiveSpectralClustering(budget=20, store=database, random_state=0).fit(oracle)
    assert oracle.n_answered == 8 and more.n_queries_ == 20
    assert len(MeasurementStore(database)) == 20


def test_settings_that_differ_from_the_stores_are_refused_naming_both(tmp_path):
    database = tmp_path / "s.db"
    ActiveSpectralClustering(budget=12, store=database, random_state=0).fit(MatrixOracle(similarities(n=10)))
    before = MeasurementStore(database).measurements()
    with pytest.raises(ParameterError) as caught:
        ActiveSpectralClustering(budget=12, store=database, strategy="random", random_state=1).fit(
            MatrixOracle(similarities(n=10)))
    message = str(caught.value)
    assert "has strategy='iu_red', random_state=0; strategy='random', random_state=1 would make another" in message
    assert "\n" not in message
    pd.testing.assert_frame_equal(MeasurementStore(database).measurements(), before)


def test_the_human_loop_survives_a_restart(tmp_path):
    """ask, restart the program, tell: the answers are accepted because the asks were stored."""
    W = similarities(n=8, seed=2)
    database = tmp_path / "human.db"
    pairs = ActiveSpectralClustering(store=database, budget=10, batch_size=3, random_state=0).ask(n_items=8)
    later = ActiveSpectralClustering(store=database, budget=10, batch_size=3, random_state=0)
    fresh_pairs = later.ask()  # a new process asks for more: the three outstanding ones are not asked again
    assert not set(map(tuple, pairs)) & set(map(tuple, fresh_pairs))
    later.tell(pairs, W[pairs[:, 0], pairs[:, 1]], source="worker-7")
    store = MeasurementStore(database)
    assert store.measurements()["source"].tolist() == ["worker-7"] * 3
    assert sorted(map(tuple, store.pending())) == sorted(map(tuple, fresh_pairs))


def test_a_store_of_other_items_is_refused(tmp_path):
    database = tmp_path / "other.db"
    ActiveSpectralClustering(budget=3, store=database, random_state=0).fit(MatrixOracle(similarities(n=6)))
    with pytest.raises(InputError, match="session over 6 items, but n_items=8"):
        ActiveSpectralClustering(budget=3, store=database).fit(MatrixOracle(similarities(n=8)))


def test_answers_can_come_back_to_a_fresh_process(tmp_path):
    """A new process with the same store takes the answers to what an earlier one asked, without asking."""
    W = similarities(n=8, seed=3)
    database = tmp_path / "answers.db"
    pairs = ActiveSpectralClustering(store=database, budget=10, batch_size=4, random_state=0).ask(n_items=8)
    fresh = ActiveSpectralClustering(store=database, budget=10, batch_size=4, random_state=0)
    fresh.tell(pairs, W[pairs[:, 0], pairs[:, 1]])
    assert fresh.n_queries_ == 4 and len(MeasurementStore(database).pending()) == 0
    with pytest.raises(InputError, match="never asked|answered already"):
        ActiveSpectralClustering(store=database, budget=10, batch_size=4).tell(pairs[:1], [0.5])


def test_a_withdrawal_survives_reopening_and_the_resumed_session_measures_each_pair_once(tmp_path):
    """Withdraw in one process; a process that exits at once loses nothing; the next one asks the pairs afresh."""
    W = similarities(n=8, seed=4)
    database = tmp_path / "withdraw.db"
    script = textwrap.dedent(
        f"""
        import os
        from paucity.clustering import ActiveSpectralClustering

        model = ActiveSpectralClustering(store={str(database)!r}, budget=12, batch_size=5, random_state=0)
        pairs = model.ask(n_items=8)
        print(pairs.tolist())
        model.withdraw(pairs[1:4])
        os._exit(7)  # killed right after the withdrawal: no close, no clean exit
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 7, done.stderr
    pairs = np.array(json.loads(done.stdout))
    store = MeasurementStore(database)
    assert store.pending().tolist() == pairs[[0, 4]].tolist() and len(store) == 0
    later = ActiveSpectralClustering(store=database, budget=12, batch_size=5, random_state=0)
    with pytest.raises(InputError, match="never asked"):
        later.tell(pairs[1:2], [0.5])
    with pytest.raises(InputError, match="never asked"):
        later.withdraw(pairs[1:2])
    assert MeasurementStore(database).pending().tolist() == pairs[[0, 4]].tolist()
    later.fit(MatrixOracle(W))  # answers the two pending asks, then measures the rest of the budget
    measured = MeasurementStore(database).measurements()
    assert len(measured) == 12 and not measured.duplicated(["i", "j"]).any()
    assert measured[["i", "j"]].to_numpy()[:2].tolist() == pairs[[0, 4]].tolist()
    assert MeasurementStore(database).pending().shape == (0, 2)


def test_asks_of_an_earlier_process_are_withdrawn_by_a_fresh_one(tmp_path):
    database = tmp_path / "fresh.db"
    pairs = ActiveSpectralClustering(store=database, budget=10, batch_size=4, random_state=0).ask(n_items=8)
    fresh = ActiveSpectralClustering(store=database, budget=10, batch_size=4, random_state=0)
    np.testing.assert_array_equal(fresh.withdraw(), pairs)
    assert MeasurementStore(database).pending().shape == (0, 2)
    again = ActiveSpectralClustering(store=database, budget=10, batch_size=4, random_state=0).ask()
    np.testing.assert_array_equal(again, pairs)  # nothing was measured: the same pairs are chosen again
