"""The low-rank tracker of v̂₂ and g against dense eigendecompositions, under a stream of changes; the
component tracker against scipy; and the active loop's choices with the tracker against the dense path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from paucity.clustering import ActiveSpectralClustering, BetaNoise, MatrixOracle, spectral
from paucity.clustering.scores import iu_red_direction, nearest_to_boundary
from paucity.clustering.spectral import components, fiedler_of
from paucity.clustering.tracking import ComponentTracker, FiedlerTracker, ShiftInvertTracker


def clustered(n, seed):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [3, 0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)


def spanning_path(W_full, rng):
    n = len(W_full)
    W = np.eye(n)
    order = rng.permutation(n)
    for a, b in zip(order[:-1], order[1:]):
        W[a, b] = W[b, a] = W_full[a, b]
    return W


@pytest.mark.parametrize("seed", [0, 1])
def test_tracker_follows_the_dense_answer_as_pairs_are_added_and_changed(seed):
    """From a path (tiny, clustered eigenvalues) through many single-pair changes, some of them decreases."""
    rng = np.random.default_rng(seed)
    W_full = clustered(70, seed)
    W = spanning_path(W_full, rng)
    tracker = FiedlerTracker(70, max_rank=25)
    tracker.refresh(W)
    refreshes = 0
    for step in range(80):
        if not tracker.ready:
            tracker.refresh(W)
            refreshes += 1
        fiedler = tracker.fiedler(1)
        assert fiedler is not None, f"step {step}: the fast path gave up"
        dense = fiedler_of(W, dense_max=1000)
        assert fiedler.value == pytest.approx(dense.value, rel=1e-9, abs=1e-13)
        np.testing.assert_allclose(fiedler.vector, dense.vector, atol=1e-7)
        k = nearest_to_boundary(fiedler.vector)
        assert k == nearest_to_boundary(dense.vector)
        g = tracker.direction(k)
        np.testing.assert_allclose(g, iu_red_direction(W, dense, dense_max=1000).g, rtol=1e-6, atol=1e-9)
        i, j = rng.choice(70, 2, replace=False)
        if W[i, j] > 0 and step % 3 == 0:
            new = W[i, j] * 0.3  # a median that went down (repeats)
        else:
            new = W_full[i, j]
        tracker.update(i, j, new - W[i, j])
        W[i, j] = W[j, i] = new
    assert refreshes == 80 // 25


def test_tracker_on_two_components():
    W_full = clustered(66, 2)
    W = W_full.copy()
    W[:33, 33:] = W[33:, :33] = 0.0
    tracker = FiedlerTracker(66)
    tracker.refresh(W)
    fiedler = tracker.fiedler(2)
    dense = fiedler_of(W, dense_max=1000)
    assert abs(fiedler.value) < 1e-12 and fiedler.defined
    np.testing.assert_allclose(fiedler.vector, dense.vector, atol=1e-9)
    tracker.update(0, 40, 0.01)  # the bridge that joins them
    W[0, 40] = W[40, 0] = 0.01
    np.testing.assert_allclose(tracker.fiedler(1).vector, fiedler_of(W, dense_max=1000).vector, atol=1e-8)


@pytest.mark.parametrize("seed", [0, 1])
def test_shift_invert_tracker_follows_the_dense_answer_through_batches_of_changes(seed):
    """From a path through batches of 12 changes, some of them decreases (medians of repeats that went down)."""
    rng = np.random.default_rng(seed)
    W_full = clustered(70, seed)
    W = spanning_path(W_full, rng)
    tracker = ShiftInvertTracker(70)
    for update in range(25):
        assert not tracker.ready  # every update starts from the current matrix
        tracker.refresh(W)
        fiedler = tracker.fiedler(1)
        assert fiedler is not None, f"update {update}: the fast path gave up"
        dense = fiedler_of(W, dense_max=1000)
        assert fiedler.value == pytest.approx(dense.value, rel=1e-9, abs=1e-13)
        np.testing.assert_allclose(fiedler.vector, dense.vector, atol=1e-7)
        assert tracker.shift < fiedler.value  # the factorization certified it
        k = nearest_to_boundary(fiedler.vector)
        assert k == nearest_to_boundary(dense.vector)
        g, expected = tracker.direction(k), iu_red_direction(W, dense, dense_max=1000).g
        # to round-off relative to g's largest entries (the ones that decide the pair; g reaches 1e6 on a path,
        # and the two computations' round-off there differs between BLAS kernels by about 1e-8 of it)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7 * np.abs(expected).max())
        for _ in range(12):
            i, j = rng.choice(70, 2, replace=False)
            new = W[i, j] * 0.3 if (W[i, j] > 0 and rng.random() < 0.3) else W_full[i, j]
            W[i, j] = W[j, i] = new


def test_shift_invert_tracker_on_two_components():
    W_full = clustered(66, 2)
    W = W_full.copy()
    W[:33, 33:] = W[33:, :33] = 0.0
    tracker = ShiftInvertTracker(66)
    tracker.refresh(W)
    fiedler = tracker.fiedler(2)
    dense = fiedler_of(W, dense_max=1000)
    assert abs(fiedler.value) < 1e-12 and fiedler.defined
    np.testing.assert_allclose(fiedler.vector, dense.vector, atol=1e-9)
    W[0, 40] = W[40, 0] = 0.01  # the bridge that joins them
    tracker.refresh(W)
    np.testing.assert_allclose(tracker.fiedler(1).vector, fiedler_of(W, dense_max=1000).vector, atol=1e-8)


def test_component_tracker_matches_scipy_when_similarities_appear_and_vanish():
    rng = np.random.default_rng(3)
    n = 30
    W = np.eye(n)
    tracker = ComponentTracker(n)
    for _ in range(120):
        i, j = rng.choice(n, 2, replace=False)
        before = W[i, j]
        after = 0.0 if (before > 0 and rng.random() < 0.3) else rng.random()
        W[i, j] = W[j, i] = after
        tracker.change(i, j, before, after)
        count, labels = components(W)
        assert tracker.n_components(W) == count
        np.testing.assert_array_equal(tracker.labels(W), labels)


@pytest.mark.parametrize(
    "params",
    [
        dict(strategy="iu_red", budget=160),
        dict(strategy="iu_red", budget=200, batch_size=3, interleave=True),
        dict(strategy="random", budget=150),
        dict(strategy="iu_red", budget=170, repeats=2, noise=True),
        dict(strategy="iu_red", budget=150, n_clusters=3),
        dict(strategy="iu_red", budget=600, batch_size=10),
        dict(strategy="iu_red", budget=500, batch_size=8, interleave=True, repeats=2, noise=True),
    ],
    ids=["iu-red", "batches", "random", "repeats", "three-clusters", "shift-invert", "shift-invert-repeats"],
)
def test_the_tracker_makes_the_dense_paths_choices(monkeypatch, params):
    """Above 64 items the loop runs on the tracker; forcing the dense path gives the same queries and labels."""
    params = dict(params)
    noise = BetaNoise(concentration=30) if params.pop("noise", False) else None
    W = clustered(72, 4)
    reference = np.repeat([0, 1], 36)

    def run():
        oracle = MatrixOracle(W, noise=noise, random_state=0)
        return ActiveSpectralClustering(random_state=1, **params).fit(oracle, reference=reference)

    tracked = run()
    monkeypatch.setattr(spectral, "DENSE_MAX_ITEMS", 1000)
    dense = run()
    pd.testing.assert_frame_equal(tracked.queries_, dense.queries_)
    pd.testing.assert_frame_equal(tracked.history_, dense.history_)
    np.testing.assert_array_equal(tracked.labels_, dense.labels_)
    np.testing.assert_allclose(tracked.embedding_, dense.embedding_, atol=1e-7)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_fallen_weight_makes_the_tracker_count_again(seed):
    """The certificate's point is kept across rises only: cutting an item off lowers an eigenvalue that the
    warm-started iteration does not see, and the tracker must then refuse (or find it), never report the old pair."""
    W = clustered(40, seed)
    tracker = FiedlerTracker(40, max_rank=40)
    tracker.refresh(W)
    assert tracker.fiedler(1) is not None
    tracker.update(2, 3, 0.2)  # a rise: the point counted above still holds
    W[2, 3] += 0.2
    W[3, 2] += 0.2
    fiedler = tracker.fiedler(1)
    assert fiedler is not None
    np.testing.assert_allclose(fiedler.vector, fiedler_of(W, dense_max=1000).vector, atol=1e-7)
    item = int(np.argmin(np.abs(fiedler.vector - np.median(fiedler.vector[fiedler.vector > 0]))))
    for j in range(40):  # every weight of an item inside a cluster falls to almost nothing
        if j != item:
            new = 1e-7 * W[item, j]
            tracker.update(item, j, new - W[item, j])
            W[item, j] = W[j, item] = new
    fiedler = tracker.fiedler(1)
    dense = fiedler_of(W, dense_max=1000)
    if fiedler is not None:
        assert fiedler.value == pytest.approx(dense.value, rel=1e-6)
        np.testing.assert_allclose(fiedler.vector, dense.vector, atol=1e-7)
