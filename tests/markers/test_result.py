"""MarkerResult: the one result of marker selection, its AnnData layout, and scanpy's getter and plots on it."""

import anndata
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from paucity._errors import InputError, ParameterError
from paucity.markers import InfoSelector, MarkerResult, find_markers, get, select


def make_adata(n=300, m=14, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["B", "NK", "T"], size=n)
    X = rng.poisson(1.0, size=(n, m)).astype(np.float32)
    X[:, 2] += 4 * (groups == "T")
    X[:, 7] += 4 * (groups == "NK")
    X[:, 11] += 3 * (groups == "B")
    obs = pd.DataFrame({"cell_type": pd.Categorical(groups)}, index=[f"cell{i}" for i in range(n)])
    return anndata.AnnData(sp.csr_matrix(X), obs=obs, var=pd.DataFrame(index=[f"gene{j}" for j in range(m)]))


def test_find_markers_is_the_estimator_named():
    adata = make_adata()
    result = find_markers(adata, "cell_type", method="jmi", n_features=4)
    fitted = InfoSelector(method="jmi", n_features=4).fit(adata.X, adata.obs["cell_type"].to_numpy())
    assert result.names == tuple(f"gene{j}" for j in fitted.selected_)
    np.testing.assert_array_equal(result.feature_index, fitted.selected_)
    np.testing.assert_array_equal(result.selection_scores, fitted.selection_scores_)
    np.testing.assert_array_equal(result.relevance, fitted.scores_[fitted.selected_])
    assert result.steps.tolist() == [1, 2, 3, 4]
    assert result.method == "jmi" and result.mode == "multiclass"
    assert "uns" not in vars(result) and "paucity_markers" not in adata.uns  # finding writes nothing
    with pytest.raises(Exception):
        result.names = ()  # frozen


def test_to_frame_to_dict_and_get_agree():
    adata = make_adata()
    result = find_markers(adata, "cell_type", n_features=3)
    frame = result.to_frame()
    assert list(frame.columns) == ["names", "step", "selection_scores", "scores", "feature_index"]
    as_dict = result.to_dict()
    assert as_dict["names"] == list(result.names) and as_dict["params"]["n_features"] == 3
    result.write(adata, key_added="mk")
    pd.testing.assert_frame_equal(get(adata, "mk"), frame)


@pytest.mark.parametrize("mode", ["multiclass", "binary"])
def test_write_then_read_through_an_h5ad_file(tmp_path, mode):
    adata = make_adata()
    result = find_markers(adata, "cell_type", method="cife", n_features=6, mode=mode)
    result.write(adata, key_added="mk")
    adata.write_h5ad(tmp_path / "a.h5ad")
    back = MarkerResult.read(anndata.read_h5ad(tmp_path / "a.h5ad"), "mk")
    assert back.names == result.names
    np.testing.assert_array_equal(back.feature_index, result.feature_index)
    np.testing.assert_array_equal(back.selection_scores, result.selection_scores)
    np.testing.assert_array_equal(back.relevance, result.relevance)
    np.testing.assert_array_equal(back.steps, result.steps)
    assert back.params == {k: v for k, v in result.params.items()}
    assert back.groups == result.groups
    if mode == "binary":
        assert set(back.per_group) == {"B", "NK", "T"}
        for group, (names, scores) in result.per_group.items():
            assert back.per_group[group][0] == names
            np.testing.assert_array_equal(back.per_group[group][1], scores)


def test_binary_mode_stores_each_groups_own_list_under_its_name():
    adata = make_adata()
    fitted = InfoSelector(method="jmi", n_features=6, mode="binary").fit(adata.X, adata.obs["cell_type"].to_numpy())
    select(adata, "cell_type", method="jmi", n_features=6, mode="binary")
    stored = adata.uns["paucity_markers"]
    assert stored["names"].dtype.names == ("B", "NK", "T")
    length = min(len(chosen) for chosen in fitted.selected_per_class_.values())
    for group, chosen in fitted.selected_per_class_.items():
        assert stored["names"][group].tolist() == [f"gene{j}" for j in chosen[:length]]
        np.testing.assert_allclose(stored["scores"][group], fitted.selection_scores_per_class_[group][:length],
                                   rtol=1e-6)
        assert stored["groups"][group]["names"].tolist() == [f"gene{j}" for j in chosen]
    # the planted marker of each group heads its own list
    assert [stored["names"][g][0] for g in ("B", "NK", "T")] == ["gene11", "gene7", "gene2"]


def test_read_refuses_what_paucity_did_not_write():
    adata = make_adata()
    with pytest.raises(InputError, match="adata.uns has no 'paucity_markers'"):
        get(adata)
    adata.uns["paucity_markers"] = {"something": 1}
    with pytest.raises(InputError, match="is not a marker selection of paucity"):
        get(adata)
    select(adata, "cell_type", n_features=3, key_added="mk")
    adata.uns["mk"]["selection"]["step"] = np.array([1, 2])
    with pytest.raises(InputError, match="damaged: its column 'step'"):
        get(adata, "mk")
    with pytest.raises(ParameterError, match="key_added must be a non-empty string"):
        find_markers(adata, "cell_type", n_features=2).write(adata, key_added="")


def test_a_selection_stored_by_paucity_0_1_is_read():
    adata = make_adata()
    adata.uns["old"] = {  # the table's columns beside params, as paucity 0.1 stored them
        "params": {"method": "mim", "n_features": 2, "mode": "multiclass"},
        "names": np.array(["gene2", "gene7"], dtype=object), "step": np.array([1, 2]),
        "selection_scores": np.array([0.5, 0.4]), "scores": np.array([0.5, 0.4]), "feature_index": np.array([2, 7]),
    }
    assert get(adata, "old")["names"].tolist() == ["gene2", "gene7"]


# -- scanpy's getter and plots read the result ---------------------------------------------------------------------
scanpy = pytest.importorskip("scanpy", reason="scanpy reads the result in these tests")


@pytest.fixture
def plotting():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


@pytest.mark.parametrize("mode", ["multiclass", "binary"])
def test_scanpys_getter_reads_the_result(mode):
    adata = make_adata()
    select(adata, "cell_type", method="cife", n_features=6, mode=mode, key_added="mk")
    ours = get(adata, "mk")
    if mode == "multiclass":
        theirs = scanpy.get.rank_genes_groups_df(adata, group="all", key="mk")
        assert theirs["names"].tolist() == ours["names"].tolist()
        np.testing.assert_allclose(theirs["scores"], ours["selection_scores"], rtol=1e-6)
    else:
        theirs = scanpy.get.rank_genes_groups_df(adata, group=None, key="mk")
        assert set(theirs["group"]) == {"B", "NK", "T"}
        for group, names in theirs.groupby("group", observed=True)["names"]:
            assert names.tolist() == adata.uns["mk"]["names"][group].tolist()
        nk = scanpy.get.rank_genes_groups_df(adata, group="NK", key="mk")
        assert nk["names"].iloc[0] == "gene7"
    assert theirs["pvals"].isna().all()  # paucity computes no p-values; the field is NaN, not made up


@pytest.mark.parametrize("mode", ["multiclass", "binary"])
@pytest.mark.parametrize("plot", ["rank_genes_groups_dotplot", "rank_genes_groups_matrixplot",
                                  "rank_genes_groups_heatmap", "rank_genes_groups_stacked_violin",
                                  "rank_genes_groups"])
def test_scanpys_plots_draw_the_result(plotting, mode, plot):
    adata = make_adata()
    # the plots order the groups by a dendrogram of X_pca, or of X when there are fewer than 50 genes, which scanpy
    # cannot average when X is sparse (its own rank_genes_groups plots fail the same way on these 14 genes)
    adata.X = adata.X.toarray()
    select(adata, "cell_type", method="cife", n_features=4, mode=mode, key_added="mk")
    draw = getattr(scanpy.pl, plot)
    drawn = draw(adata, key="mk", n_genes=2, show=False)
    assert drawn is not None or plotting.get_fignums()
    figure = plotting.gcf()
    text = " ".join(t.get_text() for ax in figure.axes for t in ax.get_xticklabels() + ax.get_yticklabels() + ax.texts)
    expected = get(adata, "mk")["names"].tolist()
    if mode == "binary":
        expected = [adata.uns["mk"]["names"][g][0] for g in ("B", "NK", "T")]  # each group's first gene
    for gene in expected[:2]:
        assert gene in text, (plot, gene)
