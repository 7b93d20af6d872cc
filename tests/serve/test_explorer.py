"""The explorer's state: scores equal a fresh search on the same selection, whatever the path to it."""

from __future__ import annotations

import anndata
import numpy as np
import pandas as pd
import pytest

from paucity._errors import ParameterError
from paucity.info import BinnedMatrix, discretize
from paucity.markers import Stepwise, make_objective
from paucity.serve import MarkerExplorer

from .conftest import GENES, small_adata


def fresh_scores(adata, method, selection, target=None):
    """Every gene's score from a new search that adds ``selection`` in order (no prefilter)."""
    codes, classes = pd.factorize(adata.obs["cell_type"], sort=True)
    labels = codes.astype(np.int64) if target is None else (codes == list(classes).index(target)).astype(np.int64)
    search = Stepwise(BinnedMatrix.from_binned(discretize(adata.X, 5)), make_objective(method), labels=labels)
    for gene in selection:
        search.add(GENES.index(gene))
    return search.scores()


def shown_scores(explorer):
    scores = np.full(len(GENES), np.nan)
    for candidate in explorer.candidates(len(GENES)):
        scores[GENES.index(candidate["gene"])] = candidate["score"]
    return scores


def test_first_candidates_are_the_planted_markers(explorer):
    best = {c["gene"] for c in explorer.candidates(6)}
    assert best == {"CD3E", "CD3D", "MS4A1", "CD79A", "LYZ", "CST3"}


@pytest.mark.parametrize("method", ["cife", "jmi", "mrmr", "mim", "mifs"])
def test_scores_after_adds_and_removes_equal_a_fresh_search(explorer, adata, method):
    explorer.set_objective(method)
    for gene in ["LYZ", "CD3E", "ACTB", "MS4A1"]:
        explorer.add(gene)
    explorer.remove("ACTB")
    np.testing.assert_allclose(shown_scores(explorer), fresh_scores(adata, method, ["LYZ", "CD3E", "MS4A1"]), atol=1e-9)


def test_switching_objective_and_back_keeps_scores_in_step(explorer, adata):
    explorer.add("LYZ")
    explorer.set_objective("jmi")
    explorer.add("CD3E")
    explorer.set_objective("cife")        # the cife search was left at ["LYZ"]: it catches up
    np.testing.assert_allclose(shown_scores(explorer), fresh_scores(adata, "cife", ["LYZ", "CD3E"]), atol=1e-9)


def test_one_group_against_the_rest(explorer, adata):
    explorer.set_objective("cife", "B cell")
    assert explorer.candidates(1)[0]["gene"] in {"MS4A1", "CD79A"}
    explorer.add("MS4A1")
    np.testing.assert_allclose(shown_scores(explorer), fresh_scores(adata, "cife", ["MS4A1"], "B cell"), atol=1e-9)


def test_take_follows_the_greedy_choice(explorer, adata):
    taken = explorer.take(3)
    assert taken == explorer.selection
    scores = fresh_scores(adata, "cife", [])
    assert taken[0] == GENES[int(np.nanargmax(scores))]


def test_undo_walks_back_every_kind_of_change(explorer):
    changes = [
        lambda: explorer.add("LYZ"),
        lambda: explorer.add("CD3E"),
        lambda: explorer.reorder(["CD3E", "LYZ"]),
        lambda: explorer.set_objective("jmi", "T cell"),
        lambda: explorer.take(2),
        lambda: explorer.remove("LYZ"),
    ]
    seen = []
    for change in changes:
        seen.append((explorer.selection, explorer.method, explorer.target, explorer.candidates(5)))
        change()
    for expected in reversed(seen):
        explorer.undo()
        assert (explorer.selection, explorer.method, explorer.target, explorer.candidates(5)) == expected
    with pytest.raises(ParameterError, match="nothing to undo"):
        explorer.undo()


def test_reorder_needs_the_same_genes(explorer):
    explorer.add("LYZ")
    explorer.add("CD3E")
    with pytest.raises(ParameterError, match="each once"):
        explorer.reorder(["LYZ"])
    with pytest.raises(ParameterError, match="each once"):
        explorer.reorder(["LYZ", "LYZ"])
    assert explorer.selection == ["LYZ", "CD3E"]


def test_errors_name_the_problem_and_change_nothing(explorer):
    explorer.add("LYZ")
    before = explorer.state()
    for call, match in [
        (lambda: explorer.add("LYZ"), "already selected"),
        (lambda: explorer.add("NOPE"), "not in the data"),
        (lambda: explorer.add(""), "1 to 200 characters"),
        (lambda: explorer.remove("CD3E"), "not selected"),
        (lambda: explorer.take(0), "k must be"),
        (lambda: explorer.take(99), "k must be"),
        (lambda: explorer.set_objective("best"), "method must be"),
        (lambda: explorer.set_objective("cife", "Neuron"), "not a group"),
        (lambda: explorer.set_objective("entropy", "B cell"), "no target"),
    ]:
        with pytest.raises(ParameterError, match=match):
            call()
    assert explorer.state() == before


def test_a_misspelt_gene_gets_suggestions(explorer):
    with pytest.raises(ParameterError, match="Did you mean CD3E, CD3D"):
        explorer.add("cd3")


def test_find_puts_names_that_start_with_the_query_first(explorer):
    assert explorer.find("cd") == ["CD3E", "CD3D", "CD79A"]
    assert explorer.find("a") == ["ACTB", "MS4A1", "CD79A", "GAPDH", "MALAT1"]
    assert explorer.find("  ") == []


def test_unsupervised_objective(explorer):
    explorer.set_objective("entropy")
    assert explorer.target is None
    assert len(explorer.take(2)) == 2


def test_export_h5ad_keeps_a_backup_and_stores_the_table(explorer, h5ad_path):
    explorer.add("LYZ")
    explorer.add("CD3E")
    first = explorer.export_h5ad()
    assert first["n_genes"] == 2
    explorer.add("MS4A1")
    explorer.export_h5ad()
    stored = anndata.read_h5ad(h5ad_path).uns["paucity_markers"]
    assert list(stored["names"]) == ["LYZ", "CD3E", "MS4A1"]
    assert list(stored["step"]) == [1, 2, 3]
    assert stored["params"]["method"] == "cife" and stored["params"]["groupby"] == "cell_type"
    backup = anndata.read_h5ad(first["backup"])
    assert list(backup.uns["paucity_markers"]["names"]) == ["LYZ", "CD3E"]
    assert anndata.read_h5ad(h5ad_path).var["paucity_markers"].sum() == 3
    assert sorted(p.name for p in h5ad_path.parent.iterdir()) == ["cells.h5ad", "cells.h5ad.bak"]


def test_export_without_a_file_is_refused(adata):
    explorer = MarkerExplorer(adata, "cell_type")
    with pytest.raises(ParameterError, match="no file"):
        explorer.export_h5ad()


def test_table_matches_markers_select_columns(explorer):
    explorer.take(2)
    table = explorer.to_frame()
    assert list(table.columns) == ["names", "step", "selection_scores", "scores", "feature_index"]
    assert table["feature_index"].tolist() == [GENES.index(g) for g in table["names"]]


def test_cells_without_a_group_are_left_out():
    adata = small_adata()
    adata.obs["cell_type"] = adata.obs["cell_type"].astype(object)
    adata.obs.iloc[:10, 0] = None
    with pytest.warns(UserWarning):
        explorer = MarkerExplorer(adata, "cell_type")
    assert explorer.state()["n_cells"] == adata.n_obs - 10
    assert explorer.embedding()[1].shape == (adata.n_obs - 10, 2)


def test_bad_construction_is_one_clear_error(adata):
    with pytest.raises(ValueError, match="not a column"):
        MarkerExplorer(adata, "tissue")
    with pytest.raises(ParameterError, match="method must be"):
        MarkerExplorer(adata, "cell_type", method="degree")


def test_cross_validated_error_falls_as_markers_are_added(explorer):
    assert explorer.cross_validated_error() is None
    explorer.add("ACTB")
    noise = explorer.cross_validated_error()
    for gene in ["LYZ", "CD3E", "MS4A1"]:
        explorer.add(gene)
    assert explorer.cross_validated_error() < noise
