"""The misclustering error: the minimum over matchings of cluster names, checked by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from paucity._errors import InputError, ShapeMismatchError
from paucity.clustering import misclustering_error


def brute_force(labels, reference):
    """min over injective maps of labels' clusters into reference's (padded with "no cluster")."""
    names, targets = sorted(set(labels)), sorted(set(reference))
    slots = targets + [None] * len(names)
    best = 1.0
    for image in itertools.permutations(slots, len(names)):
        mapping = dict(zip(names, image))
        wrong = sum(mapping[a] != b for a, b in zip(labels, reference))
        best = min(best, wrong / len(labels))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_equals_the_brute_force_minimum(seed):
    rng = np.random.default_rng(seed)
    n = 12
    labels = rng.integers(0, rng.integers(2, 4), n)
    reference = rng.integers(0, rng.integers(2, 4), n)
    assert misclustering_error(labels, reference) == pytest.approx(brute_force(list(labels), list(reference)))


def test_hand_values():
    assert misclustering_error([0, 0, 1, 1], [1, 1, 0, 0]) == 0.0
    assert misclustering_error([0, 0, 0, 1], [1, 1, 0, 0]) == 0.25
    assert misclustering_error(["x", "y", "x", "y"], [0, 0, 1, 1]) == 0.5
    assert misclustering_error([0, 1, 2, 3], [0, 0, 0, 0]) == 0.75


def test_bad_input():
    with pytest.raises(ShapeMismatchError, match="labels has 3 entries but reference has 2"):
        misclustering_error([0, 1, 0], [0, 1])
    with pytest.raises(InputError, match="missing label at position 1"):
        misclustering_error([0, np.nan, 1], [0, 1, 1])
    with pytest.raises(ShapeMismatchError, match="1-dimensional"):
        misclustering_error([[0, 1]], [[0, 1]])
