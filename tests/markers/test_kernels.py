"""The marker explorer's cross-validation kernels against plain NumPy."""

import numpy as np
import pytest
import scipy.sparse as sp

from paucity.markers._kernels import centroid_products, nearest_centroid_hits


@pytest.mark.parametrize("n_cells", [7, 40_000, 70_001])  # one block of cells, two, three
def test_centroid_products_are_each_cells_row_times_its_folds_centroids(n_cells):
    rng = np.random.default_rng(n_cells)
    n_genes, n_folds, n_classes = 6, 3, 4
    X = sp.random(n_cells, n_genes, density=0.2, format="csc", random_state=1) * 5
    fold = rng.integers(0, n_folds, n_cells)
    centroids = rng.normal(size=(n_folds, n_classes, n_genes))
    out = np.zeros((n_cells, n_classes))
    centroid_products(X.indptr.astype(np.int64), X.indices, X.data, fold, centroids, out)
    dense = X.toarray()
    expected = np.einsum("ij,icj->ic", dense, centroids[fold])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_nearest_centroid_hits_count_each_folds_right_answers_first_of_equals():
    rng = np.random.default_rng(0)
    n_cells, n_folds, n_classes = 500, 4, 3
    products = rng.normal(size=(n_cells, n_classes))
    products[:10] = 0.0  # cells with nothing stored: every group at its centroid's norm
    norms = rng.random((n_folds, n_classes))
    norms[:, 1] = norms[:, 0]  # ties: the first group wins, as numpy's argmin says
    fold = rng.integers(0, n_folds, n_cells)
    codes = rng.integers(0, n_classes, n_cells)
    hits = np.zeros(n_folds, dtype=np.int64)
    nearest_centroid_hits(products, norms, fold, codes, hits)
    nearest = np.argmin(norms[fold] - 2.0 * products, axis=1)
    np.testing.assert_array_equal(hits, np.bincount(fold, weights=nearest == codes, minlength=n_folds))
