"""The explorer's journal of unsaved changes: written after every change, taken up by the next explorer on the same
file and groupby, refused for another file or groupby, removed by a save."""

from __future__ import annotations

import json
import shutil

import anndata
import pytest

from paucity._errors import PaucityWarning
from paucity.markers import MarkerExplorer, get
from paucity.markers.explorer import JOURNAL_FORMAT, journal_path


def reopen(path, groupby="cell_type", said=None, **kwargs):
    """An explorer on the file again; ``said``: the warning it gives about the journal."""
    adata = anndata.read_h5ad(path)  # read outside pytest.warns, which would give anndata's own warnings again
    if said is None:
        return MarkerExplorer(adata, groupby, path=path, **kwargs)
    with pytest.warns(PaucityWarning, match=said):
        return MarkerExplorer(adata, groupby, path=path, **kwargs)


def journal(path) -> dict:
    return json.loads(journal_path(path).read_text(encoding="utf-8"))


def test_every_change_is_written_at_once(explorer, h5ad_path):
    assert not journal_path(h5ad_path).exists()  # opening writes nothing
    explorer.add("LYZ")
    entry = journal(h5ad_path)["selections"]["cell_type"]
    assert entry["selection"] == ["LYZ"] and entry["method"] == "cife" and entry["target"] is None
    explorer.set_objective("jmi", "T cell")
    explorer.take(2)
    explorer.reorder(list(reversed(explorer.selection)))
    explorer.remove("LYZ")
    stored = journal(h5ad_path)
    assert stored["format"] == JOURNAL_FORMAT and stored["file"] == h5ad_path.name
    assert (stored["n_cells"], stored["n_genes"]) == (240, 12)
    entry = stored["selections"]["cell_type"]
    assert entry["selection"] == explorer.selection
    assert (entry["method"], entry["target"]) == ("jmi", "T cell")
    assert [e["action"] for e in entry["history"]] == ["add", "objective", "take", "take", "reorder", "remove"]
    explorer.undo()
    assert journal(h5ad_path)["selections"]["cell_type"]["selection"] == explorer.selection
    assert [p.name for p in h5ad_path.parent.iterdir() if ".tmp" in p.name] == []  # written whole, then renamed


def test_the_next_explorer_takes_it_up(explorer, h5ad_path):
    explorer.set_objective("mrmr")
    explorer.add("CD3E")
    explorer.take(2)
    shown = explorer.state()["selection"]
    again = reopen(h5ad_path, said=r"took up the unsaved selection of 3 gene\(s\) kept in "
                                   r"cells.h5ad.paucity-journal.json \(its server stopped before a save\)\.$")
    assert again.selection == explorer.selection and again.method == "mrmr"
    assert again.state()["selection"] == shown  # each gene's score when it was added, as the page showed it
    assert again.recovered == {"recovered": True, "n_genes": 3, "journal": journal_path(h5ad_path).name,
                               "reason": None}
    assert again.restored is None
    assert [e["action"] for e in again.history()] == ["objective", "add", "take", "take", "recover"]
    assert [c["gene"] for c in again.candidates(5)] == [c["gene"] for c in explorer.candidates(5)]


def test_the_journal_comes_before_the_saved_selection(explorer, h5ad_path):
    explorer.add("LYZ")
    explorer.export_h5ad()
    assert not journal_path(h5ad_path).exists()  # saved: nothing unsaved is left
    explorer.add("CD3E")
    again = reopen(h5ad_path, said="took up the unsaved selection of 2 gene")
    assert again.selection == ["LYZ", "CD3E"] and again.recovered["recovered"]
    assert get(anndata.read_h5ad(h5ad_path))["names"].tolist() == ["LYZ"]
    again.add("MS4A1")
    assert again.export_h5ad()["n_genes"] == 3  # its own file's selection: replaced without a question
    assert not journal_path(h5ad_path).exists()
    assert reopen(h5ad_path).restored["restored"]


def test_another_groupby_is_refused_and_its_entry_kept(explorer, h5ad_path, adata):
    explorer.add("LYZ")
    adata.obs["lineage"] = adata.obs["cell_type"].astype(str)
    adata.write_h5ad(h5ad_path)
    other = reopen(h5ad_path, "lineage", said="not taken up: it holds unsaved selections for the groups of "
                                              "'cell_type', not 'lineage'")
    assert other.selection == [] and other.recovered["recovered"] is False
    assert "not 'lineage'" in other.recovered["reason"] and "'cell_type'" in other.recovered["reason"]
    other.add("CD3E")
    entries = journal(h5ad_path)["selections"]
    assert entries["cell_type"]["selection"] == ["LYZ"] and entries["lineage"]["selection"] == ["CD3E"]
    other.export_h5ad()  # the other grouping's unsaved work stays
    assert list(journal(h5ad_path)["selections"]) == ["cell_type"]
    assert reopen(h5ad_path, said="took up").selection == ["LYZ"]


def test_another_files_journal_is_refused(explorer, h5ad_path, tmp_path):
    from tests.markers._cells import small_adata

    explorer.add("LYZ")
    copy = tmp_path / "copy.h5ad"
    shutil.copy(h5ad_path, copy)
    shutil.copy(journal_path(h5ad_path), journal_path(copy))  # a journal named for copy.h5ad, written for cells.h5ad
    kept = journal_path(copy).read_text(encoding="utf-8")
    refused = reopen(copy, said="not taken up: it belongs to another file")
    assert refused.selection == [] and not refused.recovered["recovered"]
    assert "belongs to another file ('cells.h5ad'" in refused.recovered["reason"]
    assert refused.recovered["reason"].endswith("it was kept as copy.h5ad.paucity-journal.json.old")
    refused.add("CD3E")  # its own journal, the refused one kept beside it
    assert journal_path(copy).with_name("copy.h5ad.paucity-journal.json.old").read_text(encoding="utf-8") == kept
    assert journal(copy)["file"] == "copy.h5ad"
    bigger = tmp_path / "cells.h5ad"
    small_adata(n_cells=300).write_h5ad(bigger)  # the same name, other cells
    other = reopen(bigger, said="not taken up")
    assert other.selection == [] and "240 cells x 12 genes" in other.recovered["reason"]


def test_an_unreadable_journal_is_said_and_kept_aside(h5ad_path):
    journal_path(h5ad_path).write_text("{not json", encoding="utf-8")
    explorer = reopen(h5ad_path, said="was not taken up: it could not be read")
    assert explorer.selection == [] and "could not be read" in explorer.recovered["reason"]
    assert not journal_path(h5ad_path).exists()
    assert (h5ad_path.parent / "cells.h5ad.paucity-journal.json.old").read_text(encoding="utf-8") == "{not json"


def test_a_journal_that_cannot_be_written_is_said(explorer, h5ad_path, monkeypatch):
    import paucity.io

    def refuse(text, path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(paucity.io, "write_text", refuse)
    with pytest.warns(UserWarning, match="could not be written to .*lost if the server stops"):
        explorer.add("LYZ")
    assert explorer.state()["journal"]["error"].endswith("could not be written: Permission denied")
    assert explorer.selection == ["LYZ"]  # the change itself is made


def test_without_a_file_there_is_no_journal(adata):
    explorer = MarkerExplorer(adata, "cell_type")
    explorer.add("LYZ")
    assert explorer.state()["journal"] is None and explorer.state()["restart"] is None


def test_the_restart_command_serves_the_file_as_it_is_served(h5ad_path):
    command = reopen(h5ad_path, n_bins=4, key_added="mine").restart_command()
    assert command.startswith("paucity serve markers /") and str(h5ad_path.name) in command
    assert command.endswith("--groupby cell_type --n-bins 4 --key mine")
