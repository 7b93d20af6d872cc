"""Cells for the marker explorer's tests: a small AnnData with planted markers and a 2-D embedding, its file, and
an explorer on it (fixtures that a test module or conftest imports)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

GENES = ["CD3E", "CD3D", "MS4A1", "CD79A", "LYZ", "CST3", "NKG7", "GNLY", "ACTB", "GAPDH", "MALAT1", "B2M"]


def small_adata(n_cells: int = 240, seed: int = 0):
    """Three groups of cells, two planted markers each, a 2-D embedding in obsm["X_umap"]."""
    import anndata

    rng = np.random.default_rng(seed)
    groups = np.array(["B cell", "Monocyte", "T cell"])[rng.integers(0, 3, n_cells)]
    X = rng.poisson(0.6, size=(n_cells, len(GENES))).astype(np.float32)
    X[:, 0] += 3 * (groups == "T cell")
    X[:, 1] += 2 * (groups == "T cell")
    X[:, 2] += 3 * (groups == "B cell")
    X[:, 3] += 2 * (groups == "B cell")
    X[:, 4] += 3 * (groups == "Monocyte")
    X[:, 5] += 2 * (groups == "Monocyte")
    centres = {"B cell": (0, 0), "Monocyte": (5, 0), "T cell": (2, 4)}
    umap = np.array([centres[g] for g in groups]) + rng.normal(scale=0.6, size=(n_cells, 2))
    obs = pd.DataFrame({"cell_type": pd.Categorical(groups)}, index=[f"cell{i}" for i in range(n_cells)])
    adata = anndata.AnnData(X, obs=obs, var=pd.DataFrame(index=GENES))
    adata.obsm["X_umap"] = umap
    return adata


@pytest.fixture
def adata():
    return small_adata()


@pytest.fixture
def h5ad_path(tmp_path, adata):
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    return path


@pytest.fixture
def explorer(h5ad_path):
    """The marker explorer on the small AnnData's file."""
    import anndata

    from paucity.markers import MarkerExplorer

    return MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
