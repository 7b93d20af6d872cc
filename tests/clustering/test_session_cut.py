"""The session's cut setting: stored once, read by every process, the clusters everyone sees follow it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paucity._errors import ParameterError
from paucity.clustering import ActiveSpectralClustering, ClusteringSession, MatrixOracle, spectral_bisection
from paucity.clustering.store import MeasurementStore

from .test_cut import _blobs as blobs  # two overlapping blobs, where the three cuts differ
from .test_session import answer_all


def same_partition(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.array_equal(a == a[0], b == b[0])


@pytest.mark.parametrize("cut", ["sign", "ratio", "normalized"])
def test_the_clusters_of_a_session_follow_its_cut(tmp_path, cut):
    W = blobs(sizes=(30, 20), seed=3)
    names = [f"photo{k:03d}" for k in range(len(W))]
    settings = {"budget": 1.0, "batch_size": 400, "random_state": 0}
    with ClusteringSession.create(tmp_path / "s.db", names, cut=cut, **settings) as session:
        asks = session.ask()
        while len(asks.pairs):
            done = session.record(answer_all(asks, W, names))
            asks = session.ask()
        assert session.settings.cut == cut
        clusters = session.clusters()
    # every pair measured once: Ŵ is W, and the labels are the bisection of W by the same rule
    assert same_partition(clusters.labels, spectral_bisection(W, cut=cut))
    np.testing.assert_array_equal(done.labels, clusters.labels)
    model = ActiveSpectralClustering(cut=cut, **settings).fit(MatrixOracle(W))
    np.testing.assert_array_equal(clusters.labels, model.labels_)


def test_the_cut_changes_the_clusters_not_the_pairs(tmp_path):
    W = blobs()
    names = [f"p{k}" for k in range(len(W))]
    labels, asked = {}, {}
    for cut in ("sign", "ratio"):
        with ClusteringSession.create(tmp_path / f"{cut}.db", names, budget=0.3, batch_size=200, random_state=1,
                                      cut=cut) as session:
            asks = session.ask()
            while len(asks.pairs):
                session.record(answer_all(asks, W, names))
                asks = session.ask()
            labels[cut] = session.clusters().labels
            asked[cut] = session.answers()[["i", "j"]]
    assert asked["sign"].equals(asked["ratio"])
    assert not same_partition(labels["sign"], labels["ratio"])
    model = ActiveSpectralClustering(budget=0.3, batch_size=200, random_state=1, cut="ratio").fit(MatrixOracle(W))
    np.testing.assert_array_equal(labels["ratio"], model.labels_)


def test_a_session_keeps_its_cut_and_refuses_another(database):
    names = [f"p{k:02d}" for k in range(12)]
    with ClusteringSession.create(database, names, budget=20, batch_size=5, random_state=0, cut="Ratio") as session:
        assert session.settings.cut == "ratio"
        assert session.status().to_dict()["settings"]["cut"] == "ratio"
    with pytest.raises(ParameterError) as caught:
        ClusteringSession.open(database, cut="sign")
    message = str(caught.value)
    assert "has cut='ratio'; cut='sign' would make another session" in message and "\n" not in message
    with ClusteringSession.open(database, cut="RATIO") as same:
        assert same.settings.cut == "ratio"
    with ClusteringSession.open(database) as same:
        assert same.settings.cut == "ratio"


def test_a_bad_cut_is_refused_before_the_database_is_touched(tmp_path):
    with pytest.raises(ParameterError, match="cut") as caught:
        ClusteringSession.create(tmp_path / "s.db", ["a", "b", "c"], cut="median")
    assert "sign" in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "s.db").exists()


def test_a_session_stored_before_the_cut_existed_reads_as_the_seeds_rule(tmp_path):
    database = tmp_path / "old.db"
    with ClusteringSession.create(database, ["a", "b", "c", "d"], budget=3, batch_size=2, random_state=5) as session:
        session.ask()
    store = MeasurementStore(database)
    stored = json.loads(store.metadata["settings"])
    del stored["cut"]
    store.update_metadata({"settings": json.dumps(stored)})
    store.close()
    with ClusteringSession.open(database) as session:
        assert session.settings.cut == "sign" and session.settings.random_state == 5
    with pytest.raises(ParameterError, match="would make another session"):
        ClusteringSession.open(database, cut="normalized")


def test_the_estimator_on_a_store_keeps_its_cut(tmp_path):
    W = blobs(sizes=(12, 8))
    store = tmp_path / "est.db"
    model = ActiveSpectralClustering(budget=40, batch_size=10, random_state=0, cut="normalized", store=store)
    model.fit(MatrixOracle(W))
    with ClusteringSession.open(store) as session:
        assert session.settings.cut == "normalized"
    with pytest.raises(ParameterError, match="cut"):
        ActiveSpectralClustering(budget=40, batch_size=10, random_state=0, store=store).fit(MatrixOracle(W))
