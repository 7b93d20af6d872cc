import anndata
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from paucity._errors import InputError, ParameterError
from paucity.markers import InfoSelector, get, select


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


def table_of(adata, key="paucity_markers"):
    return get(adata, key)


def test_results_stored_like_scanpy():
    adata = make_adata()
    assert select(adata, "cell_type", method="cife", n_features=3) is None
    expected = InfoSelector(method="cife", n_features=3).fit(adata.X, adata.obs["cell_type"].to_numpy())
    genes = [f"gene{j}" for j in expected.selected_]
    result = adata.uns["paucity_markers"]
    assert result["params"] == {
        "groupby": "cell_type", "reference": "rest", "method": "cife", "use_raw": False,
        "n_features": 3, "mode": "multiclass", "n_bins": 5, "prefilter": 5000,
    }
    # scanpy's layout: one record field per group; a multiclass selection is the one group "all"
    for field in ("names", "scores", "logfoldchanges", "pvals", "pvals_adj", "relevance", "step"):
        assert result[field].dtype.names == ("all",) and result[field].shape == (3,), field
    assert result["names"]["all"].tolist() == genes
    np.testing.assert_allclose(result["scores"]["all"], expected.selection_scores_, rtol=1e-6)  # float32, as scanpy
    assert np.isnan(result["pvals"]["all"]).all() and np.isnan(result["logfoldchanges"]["all"]).all()
    table = table_of(adata)
    assert table["names"].tolist() == genes
    assert table["step"].tolist() == [1, 2, 3]
    assert table["feature_index"].tolist() == expected.selected_.tolist()
    np.testing.assert_array_equal(table["selection_scores"], expected.selection_scores_)
    np.testing.assert_array_equal(table["scores"], expected.scores_[expected.selected_])
    assert adata.var["paucity_markers"].dtype == bool
    assert adata.var["paucity_markers"].sum() == 3
    assert adata.var.loc[genes, "paucity_markers"].all()
    np.testing.assert_array_equal(adata.var["paucity_markers_score"], expected.scores_)


def test_binary_mode_names_the_group_of_each_gene_and_h5ad_roundtrip(tmp_path):
    adata = make_adata()
    select(adata, "cell_type", method="jmi", n_features=6, mode="binary", key_added="mk")
    expected = InfoSelector(method="jmi", n_features=6, mode="binary").fit(adata.X, adata.obs["cell_type"].to_numpy())
    table = table_of(adata, "mk")
    assert list(table.columns) == ["names", "group", "step", "selection_scores", "scores", "feature_index"]
    assert table["names"].tolist() == [f"gene{j}" for j in expected.selected_]
    # the round-robin merge: each gene comes from the group (and step) that gave it first
    lists = {group: [f"gene{j}" for j in chosen] for group, chosen in expected.selected_per_class_.items()}
    for gene, group, step in zip(table["names"], table["group"], table["step"]):
        assert lists[group][step - 1] == gene
        assert all(gene not in lists[other][: step - 1] for other in lists)
    assert set(table["names"][:2]) == {"gene2", "gene7"}  # the two planted markers lead
    adata.write_h5ad(tmp_path / "a.h5ad")
    back = anndata.read_h5ad(tmp_path / "a.h5ad")
    pd.testing.assert_frame_equal(table_of(back, "mk")[table.columns], table, check_dtype=False)
    assert back.uns["mk"]["params"]["mode"] == "binary"
    assert back.var["mk"].tolist() == adata.var["mk"].tolist()


def test_layer_raw_and_copy():
    adata = make_adata()
    adata.raw = adata.copy()
    adata.X = sp.csr_matrix(np.zeros(adata.shape, dtype=np.float32))  # raw is used by default
    select(adata, "cell_type", n_features=2)
    assert set(get(adata)["names"]) == {"gene2", "gene7"}
    assert adata.uns["paucity_markers"]["params"]["use_raw"] is True
    select(adata, "cell_type", n_features=2, layer="counts", key_added="from_layer")
    assert set(get(adata, "from_layer")["names"]) == {"gene2", "gene7"}
    assert adata.uns["from_layer"]["params"]["layer"] == "counts"
    before = adata.copy()
    copy = select(adata, "cell_type", n_features=2, copy=True, key_added="only_copy")
    assert "only_copy" in copy.uns and "only_copy" in copy.var
    assert "only_copy" not in adata.uns and "only_copy" not in adata.var
    assert list(adata.var.columns) == list(before.var.columns)
    assert get(copy, "only_copy")["names"].tolist() == get(adata)["names"].tolist()


def test_raw_with_more_genes_than_var():
    adata = make_adata()
    adata.raw = adata.copy()
    small = adata[:, [1, 2, 3, 7]].copy()  # var keeps four genes, raw all twelve
    select(small, "cell_type", n_features=2)
    assert set(get(small)["names"]) == {"gene2", "gene7"}
    assert small.var["paucity_markers"].tolist() == [False, True, False, True]
    full = InfoSelector(n_features=2).fit(adata.X, adata.obs["cell_type"].to_numpy())
    np.testing.assert_array_equal(small.var["paucity_markers_score"], full.scores_[[1, 2, 3, 7]])


def test_unsupervised_without_groupby():
    adata = make_adata()
    select(adata, None, method="entropy", n_features=2)
    table = table_of(adata)
    assert len(table) == 2
    np.testing.assert_array_equal(table["scores"], table["selection_scores"])  # H(x): the entropy is the score
    assert "groupby" not in adata.uns["paucity_markers"]["params"]


def test_errors():
    adata = make_adata()
    with pytest.raises(InputError, match="groupby 'celltype' is not a column of adata.obs"):
        select(adata, "celltype")
    with pytest.raises(ParameterError, match="layer 'spliced' is not in adata.layers"):
        select(adata, "cell_type", layer="spliced")
    with pytest.raises(ParameterError, match="adata.raw is empty"):
        select(adata, "cell_type", use_raw=True)
    with pytest.raises(ParameterError, match="method 'cife' is supervised: pass groupby"):
        select(adata, None)
    with pytest.raises(ParameterError, match="method 'entropy' is unsupervised and uses no labels, so groupby='cell_type'"):
        select(adata, "cell_type", method="entropy")
    with pytest.raises(ParameterError, match="degree=3 applies only to method='degree'"):
        select(adata, "cell_type", method="cife", degree=3)
    with pytest.raises(ParameterError, match="n_bins must be an integer in"):
        select(adata, "cell_type", n_bins=1)
    with pytest.raises(ParameterError, match="select: key_added must be a string"):
        select(adata, "cell_type", key_added=3)
    with pytest.raises(ParameterError, match="select: copy must be True or False"):
        select(adata, "cell_type", copy="yes")
    assert "paucity_markers" not in adata.uns  # nothing half-written
    assert "paucity_markers" not in adata.var


def test_constant_genes_are_named_in_the_warning():
    from paucity._errors import PaucityWarning

    adata = make_adata()
    X = adata.X.toarray()
    X[:, 5] = 0.0
    adata.X = sp.csr_matrix(X)
    with pytest.warns(PaucityWarning, match=r"1 of 12 features are constant after binning \(gene5\)"):
        select(adata, "cell_type", n_features=2)
    assert adata.var.loc["gene5", "paucity_markers_score"] == 0.0


def test_a_groupby_column_of_mixed_types_names_the_column_and_the_fix():
    adata = make_adata()
    labels = adata.obs["cell_type"].astype(str).to_numpy().astype(object)
    labels[:10] = 7
    adata.obs["mixed"] = labels
    with pytest.raises(InputError, match=r"adata.obs\['mixed'\] mixes labels of different types.*astype\(str\)"):
        select(adata, groupby="mixed", n_features=2)
