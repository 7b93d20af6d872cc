"""The marker explorer's cross-validation kernel against plain NumPy."""

import numpy as np
import pytest
import scipy.sparse as sp

from paucity.markers._kernels import BLOCK, nearest_centroid_hits


@pytest.mark.parametrize("n_chunks", [1, 2, 3])
@pytest.mark.parametrize("n_cells", [7, BLOCK, 2 * BLOCK + 5, 3 * BLOCK + 1])  # one block, a full one, several
def test_nearest_centroid_hits_count_each_folds_right_answers_first_of_equals(n_cells, n_chunks):
    rng = np.random.default_rng(n_cells)
    n_genes, n_folds, n_classes = 9, 3, 4
    X = sp.random(n_cells, n_genes, density=0.2, format="csc", random_state=1, dtype=np.float32) * 5
    X.data = np.round(X.data)  # whole counts: products of equal rows tie exactly
    columns = np.array([0, 2, 3, 7])
    fold = rng.integers(0, n_folds, n_cells)
    codes = rng.integers(0, n_classes, n_cells)
    centroids = rng.normal(size=(n_folds, n_classes, columns.shape[0]))
    centroids[:, 1] = centroids[:, 0]  # two groups at the same place: the first wins, as numpy's argmin says
    norms = np.ascontiguousarray((centroids * centroids).sum(axis=2))
    norms[0, 2] = norms[0, 3] = 0.5  # and ties among cells with nothing stored
    hits = np.zeros((n_chunks, n_folds), dtype=np.int64)
    for kernel in (nearest_centroid_hits.serial, nearest_centroid_hits.parallel):
        hits[:] = 0
        kernel(X.indptr.astype(np.int64), X.indices, X.data, columns, fold, codes,
               np.ascontiguousarray(centroids.transpose(0, 2, 1)), norms, n_chunks, hits)
        products = np.einsum("ij,icj->ic", X[:, columns].toarray().astype(np.float64), centroids[fold])
        nearest = np.argmin(norms[fold] - 2.0 * products, axis=1)
        np.testing.assert_array_equal(hits.sum(axis=0), np.bincount(fold, weights=nearest == codes,
                                                                     minlength=n_folds))
