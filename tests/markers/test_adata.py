import anndata
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from paucity._errors import InputError, ParameterError
from paucity.markers import InfoSelector, select


def make_adata(n=240, m=12, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["B", "NK", "T"], size=n)
    X = rng.poisson(1.0, size=(n, m)).astype(np.float32)
    X[:, 2] += 4 * (groups == "T")
    X[:, 7] += 4 * (groups == "NK")
    obs = pd.DataFrame({"cell_type": pd.Categorical(groups)}, index=[f"cell{i}" for i in range(n)])
    var = pd.DataFrame(index=[f"gene{j}" for j in range(m)])
    adata = anndata.AnnData(sp.csr_matrix(X), obs=obs, var=var)
    adata.layers["counts"] = adata.X.copy()
    return adata


def test_results_stored_like_scanpy():
    adata = make_adata()
    table = select(adata, "cell_type", method="cife", n_features=3)
    expected = InfoSelector(method="cife", n_features=3).fit(adata.X, adata.obs["cell_type"].to_numpy())
    genes = [f"gene{j}" for j in expected.selected_]
    assert table["gene"].tolist() == genes
    assert table["rank"].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(table["score"], expected.scores_)
    result = adata.uns["paucity_markers"]
    assert result["genes"] == genes
    assert result["params"]["method"] == "cife"
    assert adata.var["paucity_markers"].sum() == 3
    assert adata.var.loc[genes, "paucity_markers"].all()


def test_binary_mode_stores_per_group_lists_and_h5ad_roundtrip(tmp_path):
    adata = make_adata()
    table = select(adata, "cell_type", method="jmi", n_features=6, mode="binary", key_added="mk")
    assert set(adata.uns["mk"]["per_group"]) == {"B", "NK", "T"}
    assert "gene2" in adata.uns["mk"]["per_group"]["T"][:1]
    assert set(table["group"]) <= {"B", "NK", "T"}
    adata.write_h5ad(tmp_path / "a.h5ad")
    back = anndata.read_h5ad(tmp_path / "a.h5ad")
    assert list(back.uns["mk"]["genes"]) == adata.uns["mk"]["genes"]


def test_layer_raw_and_copy():
    adata = make_adata()
    adata.raw = adata.copy()
    adata.X = sp.csr_matrix(np.zeros(adata.shape, dtype=np.float32))  # raw is used by default
    table = select(adata, "cell_type", n_features=2)
    assert set(table["gene"]) == {"gene2", "gene7"}
    from_layer = select(adata, "cell_type", n_features=2, layer="counts", key_added="from_layer")
    assert set(from_layer["gene"]) == {"gene2", "gene7"}
    copy, copied_table = select(adata, "cell_type", n_features=2, copy=True, key_added="only_copy")
    assert "only_copy" in copy.uns and "only_copy" not in adata.uns
    assert copied_table["gene"].tolist() == table["gene"].tolist()


def test_unsupervised_without_groupby():
    adata = make_adata()
    table = select(adata, None, method="entropy", n_features=2)
    assert len(table) == 2


def test_errors():
    adata = make_adata()
    with pytest.raises(InputError, match="groupby 'celltype' is not a column of adata.obs"):
        select(adata, "celltype")
    with pytest.raises(ParameterError, match="layer 'spliced' is not in adata.layers"):
        select(adata, "cell_type", layer="spliced")
    with pytest.raises(ParameterError, match="adata.raw is empty"):
        select(adata, "cell_type", use_raw=True)
    assert "paucity_markers" not in adata.uns  # nothing half-written
