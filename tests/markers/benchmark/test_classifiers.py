"""The random forest and nearest centroids score markers on held-out rows only (seed 000, §2.6.2)."""

import numpy as np
import pytest

from paucity._errors import ParameterError
from paucity.markers.benchmark import classification_error


def _two_classes():
    y = np.repeat([0, 1], 30)
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.poisson(1 + 10 * y), rng.poisson(3, 60)]).astype(float)
    return X, y, np.arange(0, 60, 2), np.arange(1, 60, 2)


def test_classifiers_train_on_training_rows_only():
    # the labels of the test rows are scrambled: a leak would show up as a perfect score on them
    X, y, train, test = _two_classes()
    flipped = y.copy()
    flipped[test] = 1 - flipped[test]
    for classifier in ("random_forest", "nearest_centroids"):
        assert classification_error(X, y, train, test, np.array([0]), classifier) < 0.2
        assert classification_error(X, flipped, train, test, np.array([0]), classifier) > 0.8


def test_random_forest_seed_from_a_generator():
    X, y, train, test = _two_classes()
    noisy = np.column_stack([X, np.random.default_rng(1).poisson(3, (60, 4))])
    columns = np.arange(6)
    seed = int(np.random.default_rng(4).integers(2**31))
    from_generator = classification_error(noisy, y, train, test, columns, "random_forest",
                                          random_state=np.random.default_rng(4), n_jobs=1)
    assert from_generator == classification_error(noisy, y, train, test, columns, "random_forest",
                                                  random_state=seed, n_jobs=1)
    with pytest.raises(ParameterError, match=r"random_state must be an integer in \[0, 4294967295\]"):
        classification_error(X, y, train, test, np.array([0]), "random_forest", random_state=-3)
