"""Tests of torus_classes: three classes on the torus with dense clusters and isolated points."""

from __future__ import annotations

import numpy as np
import pytest

from paucity._errors import ParameterError
from paucity.datasets import TorusClasses, torus_classes


def test_shapes_ranges_and_unpacking():
    draw = torus_classes(500, isolated_fraction=0.2, random_state=1)
    assert isinstance(draw, TorusClasses)
    X, y, isolated = draw
    assert X.shape == (500, 2) and y.shape == (500,) and isolated.shape == (500,)
    assert np.all(X >= -np.pi) and np.all(X < np.pi)
    assert set(np.unique(y)) <= {0, 1, 2} and y.dtype == np.int64
    assert isolated.sum() == 100
    assert np.allclose(draw.proba.sum(axis=1), 1.0)


def test_same_seed_same_draw_and_different_seed_differs():
    a, b, c = (torus_classes(100, random_state=s) for s in (7, 7, 8))
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


def _distance_to_nearest_center(X, centers):
    diff = np.angle(np.exp(1j * (X[:, None, :] - centers[None])))  # wrapped differences
    return np.sqrt((diff**2).sum(axis=2)).min(axis=1)


def test_clusters_are_dense_and_isolated_points_are_spread():
    draw = torus_classes(2000, n_clusters=3, isolated_fraction=0.1, concentration=30.0, random_state=0)
    distance = _distance_to_nearest_center(draw.X, draw.centers)
    # Von Mises with kappa 30: each angle has sd about 0.18, so the 2-d distance is mostly below 0.6.
    assert np.quantile(distance[~draw.isolated], 0.95) < 0.6
    assert np.median(distance[draw.isolated]) > 1.0
    # Isolated points are uniform: each angle's mean resultant length is near 0.
    for d in range(2):
        assert abs(np.mean(np.exp(1j * draw.X[draw.isolated, d]))) < 0.15


def test_labels_follow_the_true_probabilities():
    draw = torus_classes(20000, isolated_fraction=0.5, random_state=3)
    # The label frequencies match the mean true probabilities (binomial sd about 0.0035).
    assert np.allclose(np.bincount(draw.y, minlength=3) / draw.y.size, draw.proba.mean(axis=0), atol=0.015)
    # The most probable class is the label more often than chance.
    assert np.mean(draw.proba.argmax(axis=1) == draw.y) > 0.5


def test_strength_zero_gives_uniform_classes():
    draw = torus_classes(50, strength=0.0, random_state=0)
    assert np.allclose(draw.proba, 1 / 3)


def test_no_isolated_points():
    assert not torus_classes(30, isolated_fraction=0.0, random_state=0).isolated.any()


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"n": 2}, "n"), ({"n_clusters": 0}, "n_clusters"), ({"isolated_fraction": 1.5}, "isolated_fraction"),
     ({"concentration": 0.0}, "concentration"), ({"strength": -1.0}, "strength"),
     ({"random_state": "seed"}, "random_state")],
)
def test_bad_parameters(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        torus_classes(**kwargs)
