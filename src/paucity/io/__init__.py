"""Reading the files users hold, and writing outputs atomically.

- :func:`read_frame` (:mod:`paucity.io.tables`): long-format tables
  (comparisons, judgments, labels) into pandas, identifiers as text; imports
  neither AnnData nor Dask. :func:`read_header`: a table's column names as
  :func:`read_frame` names them, without reading its rows.
- :func:`read`, :func:`write_h5ad` and :func:`update_h5ad`
  (:mod:`paucity.io.matrices`): count matrices (h5ad, csv/tsv/txt, 10x
  folders, Matrix Market, parquet) into :class:`anndata.AnnData`, and back;
  the only part that imports anndata.
- :func:`atomic_path`, :func:`write_csv`, :func:`write_text`,
  :func:`write_figure`, :func:`check_output_path` (:mod:`paucity.io.files`):
  writes that leave nothing behind when they fail, and a check of an output
  path before any work; :class:`StagedCopy` and :func:`remove_later`, which take
  a large file's copy and removal out of the time a person waits for a save.
- :func:`neutralize_formulas`, :func:`csv_text` (:mod:`paucity.io.files`):
  text cells that a spreadsheet would run as formulas get a leading ``'`` in
  every CSV paucity writes (:func:`write_csv` applies it);
  :func:`read_frame` removes it again.

The names are loaded on first use, so ``from paucity.io import read_frame``
does not import anndata.
"""

from __future__ import annotations

from .._lazy import lazy_names

__all__ = [
    "SUPPORTED_FORMATS",
    "read",
    "read_frame",
    "read_header",
    "atomic_path",
    "StagedCopy",
    "file_version",
    "remove_later",
    "check_output_path",
    "write_csv",
    "csv_text",
    "neutralize_formulas",
    "write_text",
    "write_h5ad",
    "update_h5ad",
    "write_figure",
]

_HOME = {
    "SUPPORTED_FORMATS": "formats",
    "read": "matrices",
    "write_h5ad": "matrices",
    "update_h5ad": "matrices",
    "read_frame": "tables",
    "read_header": "tables",
    "atomic_path": "files",
    "StagedCopy": "files",
    "file_version": "files",
    "remove_later": "files",
    "check_output_path": "files",
    "write_csv": "files",
    "csv_text": "files",
    "neutralize_formulas": "files",
    "write_text": "files",
    "write_figure": "files",
}

__getattr__, __dir__ = lazy_names(__name__, _HOME)
