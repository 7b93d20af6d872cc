"""The two classifiers that score a set of markers: a random forest and nearest centroids (seed 000, §2.6.2)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ..._validation import check_choice
from .seeds import check_seed

__all__ = ["CLASSIFIERS", "N_TREES", "classification_error", "random_forest_input", "sklearn_jobs"]

CLASSIFIERS = ("random_forest", "nearest_centroids")
"""The classifiers of §2.6.2."""
N_TREES = 100
"""Trees of every random forest of the benchmark (the classifier and the importance baseline)."""
LIBRARY_SIZE = 1000.0
"""Counts per cell before log1p for the random forest (§2.6.2)."""
N_COMPONENTS = 30
"""Principal components of the nearest-centroid classifier (§2.6.2)."""


def random_forest_input(X, library_size: np.ndarray | None = None):
    """Counts scaled to 1,000 per cell, then log1p (sparse stays sparse).

    ``library_size`` is each row's total over all columns (default: X's row
    sums), so that a subset of columns is scaled as the whole cell is.
    """
    if library_size is None:
        library_size = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    scale = np.divide(LIBRARY_SIZE, library_size, out=np.zeros_like(library_size), where=library_size > 0)
    if sp.issparse(X):
        scaled = sp.csr_matrix(sp.diags(scale) @ X, dtype=np.float64)
        scaled.data = np.log1p(scaled.data)
        return scaled
    return np.log1p(np.asarray(X, dtype=np.float64) * scale[:, None])


def sklearn_jobs(n_jobs):
    """scikit-learn's ``n_jobs`` for paucity's: None (all cores) is -1 there."""
    return -1 if n_jobs is None else n_jobs


def classification_error(
    X,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    selected: np.ndarray,
    classifier: str,
    *,
    random_state=0,
    library_size: np.ndarray | None = None,
    n_jobs=None,
) -> float:
    """Error rate on ``test`` of a classifier trained on ``train``, using the ``selected`` columns only.

    Parameters
    ----------
    X : numpy.ndarray or scipy.sparse matrix of shape (n_samples, n_features)
        Counts.
    y : numpy.ndarray of int
        Class codes.
    train, test : numpy.ndarray of int
        Row indices.
    selected : numpy.ndarray of int
        Columns (markers) the classifier sees.
    classifier : {"random_forest", "nearest_centroids"}
    random_state : int, numpy.random.Generator or None, default=0
        Seed of the random forest; a Generator is drawn from once for an
        integer seed, and None draws one from fresh entropy.
    library_size : numpy.ndarray, optional
        Total count of each row over *all* columns (default: computed from X),
        for the random forest's scaling to 1,000 counts per cell.
    n_jobs : int or None
        Threads of the random forest (None: all cores); the result does not
        depend on it.

    Returns
    -------
    float
        #(wrongly classified) / #(test samples).

    Notes
    -----
    Seed 000, §2.6.2: the random forest (scikit-learn, 100 trees) sees the
    counts scaled to 1,000 per cell (the cell's total over all genes, a
    per-cell quantity, so nothing leaks between rows) then ``log1p``; the
    nearest-centroid classifier sees ``log1p`` of the counts projected onto
    the top 30 principal components of the training rows (fewer when fewer
    markers were selected). Only the selected columns are densified.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark import classification_error
    >>> y = np.repeat([0, 1], 20)
    >>> X = np.column_stack([10.0 * y + 1, np.ones(40)])
    >>> classification_error(X, y, np.arange(0, 40, 2), np.arange(1, 40, 2), np.array([0]), "nearest_centroids")
    0.0
    """
    classifier = check_choice(classifier, CLASSIFIERS, "classifier")
    random_state = check_seed(random_state)
    columns = X[:, selected]
    columns = columns.toarray() if sp.issparse(columns) else np.asarray(columns)
    columns = columns.astype(np.float64, copy=False)
    if classifier == "random_forest":
        from sklearn.ensemble import RandomForestClassifier

        if library_size is None:
            library_size = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
        features = random_forest_input(columns, library_size)
        model = RandomForestClassifier(n_estimators=N_TREES, random_state=random_state, n_jobs=sklearn_jobs(n_jobs))
        model.fit(features[train], y[train])
        predicted = model.predict(features[test])
    else:
        from sklearn.decomposition import PCA
        from sklearn.neighbors import NearestCentroid

        features = np.log1p(columns)
        if not np.any(np.ptp(features[train], axis=0) > 0):
            # markers constant on the training rows: every centroid is the same point, and the tie
            # goes to the first class, as nearest centroids' argmin does
            predicted = np.full(test.shape[0], np.min(y[train]))
        else:
            n_components = min(N_COMPONENTS, features.shape[1], train.shape[0])
            pca = PCA(n_components=n_components, svd_solver="full").fit(features[train])
            with warnings.catch_warnings():
                # sklearn's note that a class has a constant coordinate, and the division it makes of it,
                # concern its shrinkage statistics only, not the centroids used here
                warnings.filterwarnings("ignore", message=".*within_class_std_dev_", category=UserWarning)
                warnings.filterwarnings("ignore", category=RuntimeWarning, module="sklearn")
                model = NearestCentroid().fit(pca.transform(features[train]), y[train])
            predicted = model.predict(pca.transform(features[test]))
    return float(np.mean(predicted != y[test]))
