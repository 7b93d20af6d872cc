"""Shared data and a recording user method for the benchmark's tests."""

import numpy as np
import pytest

from paucity.datasets import make_scrna_counts

FAST = dict(n_features=[2, 4], n_folds=3, classifiers=["nearest_centroids"], full_data=False, n_jobs=1)
"""A small, quick protocol: two marker counts, three folds, one classifier, no full-data step."""


class Recorder:
    """A user method that remembers what it saw and picks the columns of highest mean."""

    def __init__(self):
        self.calls = []

    def __call__(self, X, y, n_features):
        self.calls.append((X.copy(), y.copy(), n_features))
        means = np.asarray(X.mean(axis=0)).ravel()
        return np.argsort(-means, kind="stable")[:n_features]


@pytest.fixture(scope="package")
def tiny():
    return make_scrna_counts(n_cells=90, n_genes=30, n_types=3, n_markers=9, random_state=0)


@pytest.fixture()
def fast():
    return dict(FAST)


@pytest.fixture()
def recorder():
    return Recorder()
