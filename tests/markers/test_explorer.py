"""The explorer's state: scores equal a fresh search on the same selection, whatever the path to it."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time

import anndata
import numpy as np
import pandas as pd
import pytest

from paucity._errors import ParameterError
from paucity.info import BinnedMatrix, discretize
from paucity.markers import MarkerExplorer, MarkerResult, Stepwise, get, make_objective

from ..info.reference import joint_entropy
from ._cells import GENES, small_adata


def mutual_information(x, s) -> float:
    return joint_entropy(x) + joint_entropy(s) - joint_entropy(x, s)


def conditional_information(x, s, y) -> float:
    return joint_entropy(x, y) + joint_entropy(s, y) - joint_entropy(x, s, y) - joint_entropy(y)


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
    stored = MarkerResult.read(anndata.read_h5ad(h5ad_path))
    assert stored.names == ("LYZ", "CD3E", "MS4A1")
    assert stored.steps.tolist() == [1, 2, 3]
    assert stored.params["method"] == "cife" and stored.params["groupby"] == "cell_type"
    backup = anndata.read_h5ad(first["backup"])
    assert get(backup)["names"].tolist() == ["LYZ", "CD3E"]
    assert anndata.read_h5ad(h5ad_path).var["paucity_markers"].sum() == 3
    # beside them only hidden files of the explorer's own (the copy the next save changes, see below)
    assert sorted(p.name for p in h5ad_path.parent.iterdir() if not p.name.startswith(".")) == \
        ["cells.h5ad", "cells.h5ad.bak"]


def _staged(path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.paucity-staged-"))


def _wait_for_staged(path) -> list[str]:
    deadline = time.monotonic() + 30
    while not _staged(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return _staged(path)


def test_a_save_changes_a_copy_made_beforehand_then_the_backup_it_replaces(h5ad_path):
    """The copy of the file that the first save changes is made in the background when the explorer opens (a
    person saving 400 MB waits for the entries, not for a copy); every later save changes the backup it
    replaces (the file two saves back), so no copy of the whole file is made again. Copies go with the
    explorer."""
    explorer = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    first = _wait_for_staged(h5ad_path)
    assert len(first) == 1 and f"-{os.getpid()}-" in first[0]
    explorer.add("LYZ")
    explorer.export_h5ad()
    assert _staged(h5ad_path) == []  # it became the file; the file at the start is the backup
    start = h5ad_path.with_name("cells.h5ad.bak").stat().st_ino
    explorer.add("CD3E")
    explorer.export_h5ad()
    assert h5ad_path.stat().st_ino == start  # the backup, brought up to date, is the file now
    explorer.add("MS4A1")
    explorer.export_h5ad()
    assert _staged(h5ad_path) == []
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == ["LYZ", "CD3E", "MS4A1"]
    assert get(anndata.read_h5ad(h5ad_path.with_name("cells.h5ad.bak")))["names"].tolist() == ["LYZ", "CD3E"]
    assert sorted(p.name for p in h5ad_path.parent.iterdir() if p.name.startswith(".cells.h5ad")) == []
    explorer.add("GNLY")
    del explorer
    gc.collect()
    assert _staged(h5ad_path) == []


def test_saves_soon_after_each_other_under_several_keys_keep_every_entry(h5ad_path):
    """A copy made before some saves is brought up to date by writing again every key the explorer saved: the
    file holds each key's last selection, and what was in it at the start, whichever copy a save used."""
    from paucity.io import update_h5ad

    other = anndata.read_h5ad(h5ad_path)
    other.uns["note"] = "there before"
    update_h5ad(h5ad_path, other, uns=["note"])
    explorer = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    explorer.add("LYZ")
    explorer.export_h5ad()  # under paucity_markers
    explorer.add("CD3E")
    explorer.export_h5ad("second")
    explorer.add("MS4A1")
    explorer.export_h5ad("third")
    explorer.remove("MS4A1")
    explorer.export_h5ad("third")
    back = anndata.read_h5ad(h5ad_path)
    assert str(back.uns["note"]) == "there before"
    assert get(back)["names"].tolist() == ["LYZ"]
    assert get(back, "second")["names"].tolist() == ["LYZ", "CD3E"]
    assert get(back, "third")["names"].tolist() == ["LYZ", "CD3E"]
    assert back.var["second"].sum() == 2 and back.var["paucity_markers"].sum() == 1


def test_a_copy_made_before_another_program_wrote_the_file_is_not_used(h5ad_path):
    """What another program writes into the file after the copy was made is kept: the save copies the file anew."""
    from paucity.io import update_h5ad

    explorer = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    assert _wait_for_staged(h5ad_path)
    time.sleep(0.05)  # a file system's clock may be coarse: the write below must change the modification time
    other = anndata.read_h5ad(h5ad_path)
    other.uns["note"] = "written by someone else"
    update_h5ad(h5ad_path, other, uns=["note"])
    explorer.add("LYZ")
    explorer.export_h5ad()
    back = anndata.read_h5ad(h5ad_path)
    assert str(back.uns["note"]) == "written by someone else"
    assert get(back)["names"].tolist() == ["LYZ"]
    for gene in ("CD3E", "MS4A1"):  # and on the copies made from the changed file, and its backup
        explorer.add(gene)
        explorer.export_h5ad()
    back = anndata.read_h5ad(h5ad_path)
    assert str(back.uns["note"]) == "written by someone else"
    assert get(back)["names"].tolist() == ["LYZ", "CD3E", "MS4A1"]
    # another write between two saves: the copies made before it are not used, and it is kept
    time.sleep(0.05)
    other = anndata.read_h5ad(h5ad_path)
    other.uns["later"] = "written between two saves"
    update_h5ad(h5ad_path, other, uns=["later"])
    explorer.remove("LYZ")
    explorer.export_h5ad()
    explorer.add("LYZ")
    explorer.export_h5ad()
    back = anndata.read_h5ad(h5ad_path)
    assert str(back.uns["later"]) == "written between two saves" and str(back.uns["note"]) == "written by someone else"
    assert get(back)["names"].tolist() == ["CD3E", "MS4A1", "LYZ"]


def test_copies_left_by_a_killed_server_are_removed_at_the_next_start(h5ad_path):
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(finished.stdout)
    left = [h5ad_path.with_name(f".cells.h5ad.paucity-staged-{dead}-00000000"),
            h5ad_path.with_name(f".cells.h5ad.bak.paucity-old-{dead}-00000000")]
    alive = h5ad_path.with_name(f".cells.h5ad.paucity-staged-{os.getppid()}-00000000")  # a running process's
    for path in [*left, alive]:
        path.write_bytes(b"copy")
    explorer = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    assert not any(path.exists() for path in left)
    assert alive.exists()
    del explorer


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
    assert explorer.cross_validated_error()["error_rate"] is None
    explorer.add("ACTB")
    noise = explorer.cross_validated_error()
    assert noise["genes"] == ["ACTB"] and noise["n_folds"] == 5 and not noise["superseded"]
    for gene in ["LYZ", "CD3E", "MS4A1"]:
        explorer.add(gene)
    assert explorer.cross_validated_error()["error_rate"] < noise["error_rate"]


# -- picking up where the person left off ------------------------------------------------------------------------
def test_a_saved_selection_is_taken_up_again_with_its_objective_and_log(h5ad_path, explorer):
    explorer.set_objective("jmi", "T cell")
    explorer.add("CD3E")
    explorer.take(2)
    saved = explorer.selection
    explorer.export_h5ad()
    again = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    assert again.restored == {"restored": True, "n_genes": 3, "reason": None}
    assert again.selection == saved
    assert (again.method, again.target) == ("jmi", "T cell")
    assert [event["action"] for event in again.history()] == ["objective", "add", "take", "take", "restore"]
    # the scores shown are those of a fresh search on the restored selection
    expected = fresh_scores(again._adata, "jmi", saved, target="T cell")
    shown = {c["gene"]: c["score"] for c in again.candidates(20)}
    for gene, score in shown.items():
        assert score == pytest.approx(expected[GENES.index(gene)], abs=1e-12)
    assert [s["score"] for s in again.state()["selection"]] == pytest.approx(
        [s["score"] for s in explorer.state()["selection"]])
    # saving again what it opened with asks nothing
    again.add(again.candidates(1)[0]["gene"])
    assert again.export_h5ad()["n_genes"] == 4


def test_a_selection_made_by_select_is_taken_up(h5ad_path, adata):
    from paucity.markers import select

    select(adata, "cell_type", method="mrmr", n_features=3)
    explorer = MarkerExplorer(adata, "cell_type", path=h5ad_path)
    assert explorer.restored["restored"] and explorer.method == "mrmr"
    assert explorer.selection == get(adata)["names"].tolist()


def test_what_cannot_be_taken_up_is_said(adata):
    from paucity.markers import select

    select(adata, "cell_type", method="degree", n_features=2, mode="binary")
    explorer = MarkerExplorer(adata, "cell_type")
    assert explorer.restored["restored"] and explorer.method == "cife"
    assert "'degree' is not offered here" in explorer.restored["reason"]
    assert "binary mode" in explorer.restored["reason"]
    other = adata.copy()
    other.obs["other"] = other.obs["cell_type"]
    explorer = MarkerExplorer(other, "other")
    assert explorer.restored == {"restored": False, "n_genes": len(get(adata)),
                                 "reason": "it was chosen for the groups of 'cell_type', not 'other'"}
    assert explorer.selection == []


def test_save_asks_before_replacing_another_selection(h5ad_path, explorer):
    from paucity.markers.explorer import SelectionConflict

    other = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    explorer.add("LYZ")
    explorer.export_h5ad()
    other.add("MS4A1")
    with pytest.raises(SelectionConflict, match=r"already holds another selection under 'paucity_markers' "
                                                r"\(1 genes: LYZ\)") as refused:
        other.export_h5ad()
    assert refused.value.suggested_key == "paucity_markers_2"
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == ["LYZ"]  # nothing replaced
    assert other.export_h5ad(refused.value.suggested_key)["key"] == "paucity_markers_2"
    back = anndata.read_h5ad(h5ad_path)
    assert get(back)["names"].tolist() == ["LYZ"]  # the other page's selection is still there
    assert get(back, "paucity_markers_2")["names"].tolist() == ["MS4A1"]
    assert back.var["paucity_markers"].sum() == 1 and back.var["paucity_markers_2"].sum() == 1
    other.add("CD3E")
    assert other.export_h5ad()["key"] == "paucity_markers_2"  # the next Save goes where the last one went
    explorer.add("CD3E")
    explorer.export_h5ad()  # its own saved selection: no question
    other_saved = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path, key_added="paucity_markers_2")
    assert other_saved.selection == ["MS4A1", "CD3E"]
    replaced = MarkerExplorer(anndata.read_h5ad(h5ad_path), "cell_type", path=h5ad_path)
    replaced.remove("LYZ")
    explorer.add("NKG7")
    explorer.export_h5ad()
    replaced.export_h5ad(overwrite=True)
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == ["CD3E"]


@pytest.mark.parametrize("method", ["cife", "jmi", "mrmr", "mifs", "entropy2", "mim"])
def test_explain_adds_up_to_the_score(explorer, method):
    explorer.set_objective(method)
    explorer.add("LYZ")
    explorer.add("CD3E")
    selected = explorer.selection
    binned = explorer._binned
    for candidate in explorer.candidates(4):
        why = explorer.explain(candidate["gene"])
        assert why["score"] == pytest.approx(candidate["score"], abs=1e-12)
        assert why["base"] + sum(t["contribution"] for t in why["terms"]) == pytest.approx(why["score"], abs=1e-12)
        assert [t["gene"] for t in why["terms"]] == ([] if method == "mim" else selected)
        x = binned.column(GENES.index(candidate["gene"]))
        for term in why["terms"]:
            s = binned.column(GENES.index(term["gene"]))
            assert term["redundancy"] == pytest.approx(mutual_information(x, s), abs=1e-9)
            if method in ("cife", "jmi"):
                y = explorer.codes
                assert term["conditional"] == pytest.approx(conditional_information(x, s, y), abs=1e-9)
            else:
                assert term["conditional"] is None
        assert why["note"]


def test_explain_says_why_cife_ranks_a_gene_of_low_relevance_high():
    """pbmc68k_reduced as the page showed it: after four genes, CIFE's candidates score far above their relevance."""
    pytest.importorskip("scanpy", reason="scanpy's bundled pbmc68k_reduced")
    from paucity.datasets import pbmc68k_reduced

    explorer = MarkerExplorer(pbmc68k_reduced(), "bulk_labels")
    explorer.take(4)
    top = explorer.candidates(1)[0]
    why = explorer.explain(top["gene"])
    assert top["score"] > 3 * top["relevance"]
    assert sum(t["conditional"] for t in why["terms"]) > sum(t["redundancy"] for t in why["terms"])
    assert why["note"].startswith("CIFE adds back the redundancy the groups explain")


def test_explain_refuses_a_selected_gene_and_an_unknown_one(explorer):
    explorer.add("LYZ")
    with pytest.raises(ParameterError, match="'LYZ' is selected"):
        explorer.explain("LYZ")
    with pytest.raises(ParameterError, match="'LYZZ' is not in the data"):
        explorer.explain("LYZZ")


def test_a_cross_validation_overtaken_by_a_newer_one_returns_at_once(explorer):
    import threading

    explorer.take(3)
    release, started = threading.Event(), threading.Event()
    answers = {}
    original = explorer._cv_lock

    class Slow:  # holds the first request inside the lock until a second one is waiting
        def __enter__(self):
            original.acquire()
            started.set()
            release.wait(10)

        def __exit__(self, *exc):
            original.release()

    explorer._cv_lock = Slow()
    first = threading.Thread(target=lambda: answers.setdefault("first", explorer.cross_validated_error()))
    first.start()
    started.wait(10)
    explorer._cv_lock = original
    queued = threading.Thread(target=lambda: answers.setdefault("queued", explorer.cross_validated_error()))
    queued.start()
    while explorer._cv_latest < 2:
        pass
    newest = threading.Thread(target=lambda: answers.setdefault("newest", explorer.cross_validated_error()))
    newest.start()
    while explorer._cv_latest < 3:
        pass
    release.set()
    for thread in (first, queued, newest):
        thread.join(10)
    for overtaken in ("first", "queued"):  # both waited while a newer request came
        assert answers[overtaken] == {"error_rate": None, "n_folds": 5, "superseded": True, "genes": None}
    assert not answers["newest"]["superseded"] and answers["newest"]["genes"] == explorer.selection
    assert answers["newest"]["error_rate"] == explorer.cross_validated_error()["error_rate"]


def test_the_version_grows_with_every_change(explorer):
    seen = [explorer.version]
    explorer.add("LYZ")
    seen.append(explorer.version)
    explorer.set_objective("jmi")
    seen.append(explorer.version)
    explorer.undo()
    seen.append(explorer.version)
    assert seen == sorted(set(seen))
    explorer.candidates(5)
    assert explorer.version == seen[-1]  # reading changes nothing


def test_the_cross_validation_is_scikit_learns_nearest_centroid_on_stratified_folds():
    """The page's check, computed from the sparse expression, equals scikit-learn's NearestCentroid fold by fold."""
    import scipy.sparse as sp
    from sklearn.neighbors import NearestCentroid

    from paucity.markers.explorer import _nearest_centroid_error, _stratified_folds

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, 900)
    X = sp.random(900, 6, density=0.4, random_state=4, format="csc") * 3
    X = X + sp.csc_matrix(np.outer(codes == 2, [1, 0, 0, 2, 0, 0]))
    fold = _stratified_folds(codes, 4, 5, 0)
    per_fold = np.array([np.bincount(codes[fold == f], minlength=4) for f in range(5)])
    assert (per_fold.max(axis=0) - per_fold.min(axis=0)).max() <= 1  # each group split evenly
    accuracies = []
    for f in range(5):
        train, test = fold != f, fold == f
        model = NearestCentroid().fit(X[train].toarray(), codes[train])
        accuracies.append(np.mean(model.predict(X[test].toarray()) == codes[test]))
    assert _nearest_centroid_error(X, codes, 4, fold) == pytest.approx(1 - np.mean(accuracies), abs=1e-12)
    assert _nearest_centroid_error(X.toarray(), codes, 4, fold) == pytest.approx(1 - np.mean(accuracies), abs=1e-12)


def test_the_cross_validation_reads_the_chosen_genes_in_place_and_keeps_their_sums():
    """Genes chosen from the whole matrix give the error of the matrix of those genes alone, and the sums kept
    from one call serve the next (a selection one gene larger) without changing its answer."""
    import scipy.sparse as sp

    from paucity.markers.explorer import _nearest_centroid_error, _stratified_folds

    rng = np.random.default_rng(5)
    codes = rng.integers(0, 3, 2000)
    X = sp.random(2000, 8, density=0.3, random_state=6, format="csc", dtype=np.float32) * 4
    X = sp.csc_matrix(X + sp.csc_matrix(np.outer(codes == 1, [0, 2, 0, 0, 1, 0, 0, 3]).astype(np.float32)))
    fold = _stratified_folds(codes, 3, 5, 1)
    kept: dict = {}
    for columns in ([7, 1], [1, 4, 7], [0, 4, 1, 7]):
        alone = _nearest_centroid_error(X[:, sorted(columns)], codes, 3, fold)
        assert _nearest_centroid_error(X, codes, 3, fold, columns=columns, kept_sums=kept) == alone
        assert _nearest_centroid_error(X.toarray(), codes, 3, fold, columns=columns) == alone
    assert sorted(kept) == [0, 1, 4, 7]


def test_a_backed_file_is_explored_as_the_same_file_in_memory_and_saved_into(h5ad_path, adata):
    """paucity serve markers opens its file backed: the matrix is read once into the explorer's columns, the
    file's handle is closed, and the explorer answers and saves as it does on the AnnData in memory."""
    from paucity import io
    from paucity.markers import MarkerExplorer

    adata.write_h5ad(h5ad_path.with_name("copy.h5ad"))
    backed = io.read(h5ad_path, backed=True)
    assert backed.isbacked and not isinstance(backed.X, np.ndarray)
    on_disk = MarkerExplorer(backed, "cell_type", path=h5ad_path)
    backed.file.close()
    in_memory = MarkerExplorer(anndata.read_h5ad(h5ad_path.with_name("copy.h5ad")), "cell_type",
                               path=h5ad_path.with_name("copy.h5ad"))
    for explorer in (on_disk, in_memory):
        explorer.take(2)
        explorer.add("GNLY")
    different = {"journal", "file", "restart"}  # the two files' names
    assert {k: v for k, v in on_disk.state().items() if k not in different} == \
        {k: v for k, v in in_memory.state().items() if k not in different}
    assert on_disk.cross_validated_error() == in_memory.cross_validated_error()
    np.testing.assert_array_equal(on_disk.expression("LYZ"), in_memory.expression("LYZ"))
    assert on_disk.embedding()[0] == "X_umap"
    np.testing.assert_array_equal(on_disk.embedding()[1], in_memory.embedding()[1])
    on_disk.export_h5ad()
    stored = anndata.read_h5ad(h5ad_path)
    assert MarkerResult.read(stored).names == on_disk.result().names
    np.testing.assert_array_equal(stored.X, adata.X)  # the matrix stays as it was in the file


def test_a_backed_files_removal_is_said_at_save(h5ad_path):
    from paucity import io
    from paucity.markers import MarkerExplorer

    backed = io.read(h5ad_path, backed=True)
    explorer = MarkerExplorer(backed, "cell_type", path=h5ad_path)
    backed.file.close()
    explorer.add("LYZ")
    h5ad_path.unlink()
    with pytest.raises(ParameterError, match="was removed while the explorer ran"):
        explorer.export_h5ad()
    assert explorer.selection == ["LYZ"]  # nothing lost: the journal and the page still hold it


def test_a_group_against_the_rest_from_the_all_groups_counts_is_the_counted_one(adata):
    """Switching to one group against the rest sums the all-groups tables (no pass over the cells); the
    relevances, the candidates' scores and the genes the search takes are those of counting that target afresh,
    to the bit."""
    from paucity.markers import MarkerExplorer

    derived = MarkerExplorer(adata, "cell_type", method="cife")  # the all-groups target exists from the start
    counted = MarkerExplorer(adata, "cell_type", method="entropy2")  # it does not: the target is counted
    derived.take(2)
    for gene in derived.selection:
        counted.add(gene)
    derived.set_objective("jmi", "Monocyte")
    counted.set_objective("jmi", "Monocyte")
    monocyte = derived.groups.index("Monocyte")
    assert derived.candidates(12) == counted.candidates(12)
    assert None in derived._targets and None not in counted._targets
    assert derived._targets[monocyte].labelled is None and counted._targets[monocyte].labelled is not None
    np.testing.assert_array_equal(derived._targets[monocyte].univariate, counted._targets[monocyte].univariate)
    assert derived.take(3) == counted.take(3)
    scores = [[s["score"] for s in e.state()["selection"][2:]] for e in (derived, counted)]  # the genes taken
    assert scores[0] == scores[1]
    assert derived.explain(derived.candidates(1)[0]["gene"]) == counted.explain(counted.candidates(1)[0]["gene"])
