"""Reading count matrices from files into AnnData, and writing h5ad atomically.

:func:`read` turns the files single-cell users hold (h5ad, csv/tsv/txt
tables, 10x folders, Matrix Market files, parquet) into an
:class:`anndata.AnnData` with cells (samples) in rows, and optionally attaches
a label per cell. Anything wrong with a file raises
:class:`~paucity._errors.ReaderError` naming the file, never a library's own
traceback.
"""

from __future__ import annotations

import gzip
import inspect
import io
import os
from pathlib import Path

import anndata
import numpy as np
import pandas as pd
import scipy.io
import scipy.sparse as sp

from .._errors import ParameterError, ReaderError, ShapeMismatchError
from .._extras import require
from .files import atomic_path
from .formats import (MISSING_MARKERS, SUPPORTED_FORMATS, check_unique_columns, existing_file, file_ending, reading,
                      separator, text_encoding)

__all__ = ["read", "write_h5ad", "update_h5ad"]

#: scipy 1.18 warns unless mmread is told which sparse type to return (the default changes in 1.20); the
#: matrix is made a csr_matrix below either way.
_MMREAD_TYPE = {"spmatrix": True} if "spmatrix" in inspect.signature(scipy.io.mmread).parameters else {}


def read(
    path, *, labels=None, labels_column: str | None = None, labels_header: bool | None = None, transpose: bool = False,
    backed: bool = False,
) -> anndata.AnnData:
    """Read a matrix file into an AnnData with cells in rows.

    Parameters
    ----------
    path : str or path-like
        One of:

        - ``.h5ad``: read with :func:`anndata.read_h5ad`;
        - ``.csv``, ``.tsv``, ``.txt`` (optionally ``.gz``): a dense table whose
          first column holds the cell names and whose header holds the feature
          names; ``.txt`` is split on any whitespace;
        - ``.parquet``: like a table; cell names come from the stored index or,
          when there is none, from the first column if it is not numeric;
        - ``.mtx`` or ``.mtx.gz``: a Matrix Market file, read as stored (rows
          are cells; pass ``transpose=True`` for a genes x cells file), sparse
          CSR ``float32``. A bare ``.mtx`` has no cell or gene names: cells
          are named ``"0"``, ``"1"``, ... in row order, so its labels file
          gives one label per row in that order;
        - a 10x folder holding ``matrix.mtx``, ``features.tsv`` (or
          ``genes.tsv``) and ``barcodes.tsv``, each optionally ``.gz``. Its
          genes x cells matrix is transposed to cells x genes and kept sparse
          (CSR ``float32``); gene names come from the second column of the
          features file (made unique as scanpy does) and gene ids from the
          first, stored in ``var["gene_ids"]``.
    labels : str or path-like, optional
        A csv/tsv/txt file with a label per cell, stored in ``adata.obs``.
        With two or more columns, the first names the cell and the labels are
        matched by name (cells not listed get a missing label); with one
        column, the labels are taken in row order and there must be one per
        cell. Identifiers and labels are read as text, as written.
    labels_column : str, optional
        The column of ``labels`` to use (the file must then have a header).
        Also the ``adata.obs`` column the labels are stored in; ``"label"``
        when not given.
    labels_header : bool, optional
        Whether the first row of ``labels`` is a header. When not given
        (None) the rule is: with ``labels_column``, yes; with two or more
        columns, yes exactly when the first field of the first row is not a
        cell name; with one column, yes when the file has one row more than
        there are cells, no when it has as many rows as cells, and any other
        count is an error that states both counts.
    transpose : bool
        Transpose after reading, for files that store features in rows (a
        bare genes x cells ``.mtx``, a genes x cells table).
    backed : bool
        For an ``.h5ad``, leave ``X`` (and ``raw.X``) on disk, opened for
        reading (anndata's ``backed="r"``): a program that copies the matrix
        into a form of its own (the marker explorer's columns) need not hold
        the file's copy beside it. Other files cannot be read so; neither can
        a backed file be transposed.

    Returns
    -------
    anndata.AnnData
        Cells in ``obs``, features in ``var``; tables give a dense
        ``float64`` ``X``, Matrix Market files and 10x folders a sparse CSR
        ``float32`` ``X``, h5ad files what they hold.

    Raises
    ------
    ReaderError
        The file is missing, empty, of an unknown kind, or cannot be parsed
        (ragged rows, non-numeric values, garbled content), or the labels
        name cells that are not in the data.
    ShapeMismatchError
        A one-column labels file has a different number of labels than there
        are cells.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> counts = pd.DataFrame({"CD3E": [3, 0, 1], "MS4A1": [0, 5, 0]}, index=["c1", "c2", "c3"])
    >>> counts.to_csv(folder / "counts.csv")
    >>> _ = (folder / "labels.csv").write_text("cell,type\\nc1,T\\nc2,B\\nc3,T\\n")
    >>> adata = read(folder / "counts.csv", labels=folder / "labels.csv")
    >>> adata.shape
    (3, 2)
    >>> list(adata.var_names), list(adata.obs["label"])
    (['CD3E', 'MS4A1'], ['T', 'B', 'T'])
    """
    path = Path(path)
    if path.is_dir():
        if backed:
            raise ParameterError(f"{path} is a 10x folder; only an .h5ad file can be read backed (left on disk).")
        adata = _read_10x(path)
    else:
        ending = file_ending(existing_file(path), SUPPORTED_FORMATS, also=" or a 10x folder")
        if backed and ending != ".h5ad":
            raise ParameterError(f"{path.name} is not an .h5ad file; only an .h5ad can be read backed (left on disk).")
        if backed and transpose:
            raise ParameterError("a backed .h5ad cannot be transposed; read it whole (backed=False) to transpose it.")
        adata = _read_h5ad(path, backed=True) if backed else _READERS.get(ending, _read_table)(path)
    if transpose:
        adata = adata.T
        if sp.issparse(adata.X):
            adata.X = adata.X.tocsr()
    if labels is not None:
        key = labels_column or "label"
        adata.obs[key] = _read_labels(Path(labels), labels_column, labels_header, adata.obs_names, data_path=path)
    return adata


def write_h5ad(adata: anndata.AnnData, path) -> None:
    """Write an AnnData with :meth:`anndata.AnnData.write_h5ad`, atomically.

    Examples
    --------
    >>> import tempfile, pathlib, numpy as np, anndata
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "cells.h5ad"
    >>> write_h5ad(anndata.AnnData(np.eye(2, dtype=np.float32)), target)
    >>> read(target).shape
    (2, 2)
    """
    with atomic_path(path) as tmp:
        adata.write_h5ad(tmp)


def update_h5ad(path, adata: anndata.AnnData, *, uns=(), var=(), staged=None) -> None:
    """Write the entries ``uns`` of ``adata.uns`` and the columns ``var`` of ``adata.var`` into the ``.h5ad`` at
    ``path``, leaving everything else in the file as it is there, atomically.

    The file is copied beside itself, the entries are replaced in the copy,
    and the copy replaces the file (:func:`os.replace`): a crash leaves the
    old file or the new one, whole. What another program stored in the file
    since ``adata`` was read (other keys of ``uns``, other columns of
    ``var``) is kept, which writing the whole AnnData would lose; the matrix
    is copied, not encoded again.

    Parameters
    ----------
    path : str or path-like
        An existing ``.h5ad`` file with the cells and genes of ``adata``.
    adata : anndata.AnnData
    uns : sequence of str
        Keys of ``adata.uns`` to write (a key missing from ``adata.uns`` is removed from the file).
    var : sequence of str
        Columns of ``adata.var`` to write (a column missing from ``adata.var`` is removed from the file).
    staged : path-like, optional
        A copy of the file, made beforehand in the same folder while the file was as it is now
        (:meth:`paucity.io.StagedCopy.take` hands one over): it is changed and renamed onto the file
        instead of a copy made now, so the write costs the entries only. It is consumed either way.

    Raises
    ------
    paucity._errors.ReaderError
        When the file cannot be read as an h5ad, or its genes are not those of ``adata``.

    Examples
    --------
    >>> import tempfile, pathlib, numpy as np, anndata
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "cells.h5ad"
    >>> adata = anndata.AnnData(np.eye(2, dtype=np.float32))
    >>> write_h5ad(adata, target)
    >>> adata.uns["note"] = "checked"
    >>> update_h5ad(target, adata, uns=["note"])
    >>> str(read(target).uns["note"])
    'checked'
    """
    import shutil

    import h5py
    from anndata.io import read_elem, write_elem

    path = Path(path)
    uns, var = list(uns), list(var)
    with atomic_path(path) as tmp:
        if staged is not None:
            os.replace(staged, tmp)  # the same folder: a rename; a failure below removes it with tmp
        with reading(path, "an h5ad file"):
            if staged is None:
                shutil.copy2(path, tmp)
            handle = h5py.File(tmp, "r+")
        with handle:
            with reading(path, "an h5ad file"):
                stored_var = read_elem(handle["var"])
            if not pd.Index(stored_var.index).astype(str).equals(pd.Index(adata.var_names).astype(str)):
                raise ReaderError(f"{path} no longer holds the genes this data was read with (was it replaced?); "
                                  "nothing was written.")
            if var:
                for column in var:
                    if column in adata.var:
                        stored_var[column] = adata.var[column].to_numpy()
                    else:
                        stored_var = stored_var.drop(columns=column, errors="ignore")
                del handle["var"]
                write_elem(handle, "var", stored_var)
            group = handle.require_group("uns")
            for key in uns:
                if key in group:
                    del group[key]
                if key in adata.uns:
                    write_elem(group, key, adata.uns[key])


def _read_h5ad(path: Path, backed: bool = False) -> anndata.AnnData:
    with reading(path, "an h5ad file"):
        return anndata.read_h5ad(path, backed="r") if backed else anndata.read_h5ad(path)


def _read_table(path: Path) -> anndata.AnnData:
    sep = separator(path)
    with reading(path, "a table"):
        header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False,
                             encoding=text_encoding(path))
    names = [str(name) for name in header.iloc[0]]
    check_unique_columns(names, path)
    with reading(path, "a table"):
        # everything as text first: cell names stay as written ("0001" is not the number 1, "NA" is a name)
        frame = pd.read_csv(path, sep=sep, index_col=0, dtype=str, keep_default_na=False,
                            encoding=text_encoding(path))
        frame.index = frame.index.astype(str)
        frame = frame.apply(_numbers_of_text_column)
        return _frame_to_anndata(frame, path)


def _numbers_of_text_column(column: pd.Series) -> pd.Series:
    """A column read as text, as numbers (missing markers as NaN); as it was when some values are not numbers."""
    values = column.mask(column.isin(MISSING_MARKERS))
    try:
        return pd.to_numeric(values)
    except (TypeError, ValueError):
        return column


def _read_parquet(path: Path) -> anndata.AnnData:
    require("pyarrow", f"reading {path.name}")
    with reading(path, "a parquet file"):
        df = pd.read_parquet(path)
        check_unique_columns(list(df.columns), path)
        if isinstance(df.index, pd.RangeIndex) and len(df.columns) and not pd.api.types.is_numeric_dtype(df.iloc[:, 0]):
            df = df.set_index(df.columns[0])
        return _frame_to_anndata(df, path)


def _frame_to_anndata(df: pd.DataFrame, path: Path) -> anndata.AnnData:
    """A dense AnnData from a cells x features frame, checking every value is a number."""
    if df.shape[1] == 0:
        raise ReaderError(
            f"{path} has no data columns besides the cell names. "
            "Check that the separator matches the extension (',' for .csv, tab for .tsv)."
        )
    if df.shape[0] == 0:
        raise ReaderError(f"{path} has a header but no rows of data.")
    for name, column in df.items():
        if not pd.api.types.is_numeric_dtype(column):
            text = column[column.notna()].astype(str)
            bad = text[pd.to_numeric(text, errors="coerce").isna()]
            example = f"e.g. {bad.iloc[0]!r} in row {bad.index[0]!r}" if len(bad) else f"dtype {column.dtype}"
            raise ReaderError(
                f"{path}: column {name!r} holds non-numeric values ({example}). Every column but the first "
                "(the cell names) must hold numbers; drop text columns such as annotations."
            )
    values = df.to_numpy(dtype=np.float64, na_value=np.nan)
    missing = np.isnan(values)
    if missing.any():
        row, col = np.argwhere(missing)[0]
        raise ReaderError(
            f"{path} has {int(missing.sum())} missing value(s), the first in row {df.index[row]!r}, "
            f"column {df.columns[col]!r}. Rows may be short (ragged) or have empty fields; fill them in."
        )
    obs = pd.DataFrame(index=df.index.astype(str))
    var = pd.DataFrame(index=df.columns.astype(str))
    return anndata.AnnData(X=values, obs=obs, var=var)


class _MatrixMarketStream(io.RawIOBase):
    """A binary stream of a Matrix Market file that scipy can parse without crashing.

    scipy's parser (fast_matrix_market, scipy >= 1.12) looks for the end of
    each line with ``strchr``, which stops at a NUL byte: a NUL inside a line,
    or a last number cut off after its exponent (``2.5E-`` as the very last
    bytes), makes it read out of bounds and crash the interpreter with a
    segmentation fault. This stream refuses NUL bytes (Matrix Market is text)
    and ends the file with a newline.
    """

    def __init__(self, stream, path: Path):
        self._stream = stream
        self._path = path
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._stream.readinto(buffer)
        if n and b"\0" in memoryview(buffer)[:n].tobytes():
            raise ReaderError(f"{self._path} holds a NUL byte; it is not a text Matrix Market file.")
        if n == 0 and not self._ended and len(buffer):
            self._ended = True
            buffer[0] = ord("\n")
            return 1
        return n


def _read_mtx_matrix(path: Path) -> sp.csr_matrix:
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with reading(existing_file(path), "a Matrix Market file"):
        with opener(path, "rb") as raw, io.BufferedReader(_MatrixMarketStream(raw, path)) as stream:
            matrix = scipy.io.mmread(stream, **_MMREAD_TYPE)
        if np.iscomplexobj(matrix):
            raise ReaderError(f"{path} holds complex numbers; a count or expression matrix must be real.")
        return sp.csr_matrix(matrix, dtype=np.float32)


def _read_mtx(path: Path) -> anndata.AnnData:
    return anndata.AnnData(X=_read_mtx_matrix(path))


def _read_10x(folder: Path) -> anndata.AnnData:
    matrix = _read_mtx_matrix(_find_in(folder, "matrix.mtx")).T.tocsr()
    features_path = _find_in(folder, "features.tsv", "genes.tsv")
    barcodes_path = _find_in(folder, "barcodes.tsv")
    features = _read_names(features_path)
    barcodes = _read_names(barcodes_path)
    n_cells, n_genes = matrix.shape
    for listed, listed_path, n, what in (
        (features, features_path, n_genes, "genes"),
        (barcodes, barcodes_path, n_cells, "cells"),
    ):
        if len(listed) != n:
            raise ReaderError(
                f"{folder}: the matrix has {n} {what} but {listed_path.name} lists {len(listed)}; "
                "the files of the folder do not belong together."
            )
    names = features.iloc[:, 1 if features.shape[1] > 1 else 0]
    var = pd.DataFrame(index=anndata.utils.make_index_unique(pd.Index(names.to_numpy())))
    if features.shape[1] > 1:
        var["gene_ids"] = features.iloc[:, 0].to_numpy()
    if features.shape[1] > 2:
        var["feature_types"] = features.iloc[:, 2].to_numpy()
    obs = pd.DataFrame(index=barcodes.iloc[:, 0].to_numpy())
    return anndata.AnnData(X=matrix, obs=obs, var=var)


def _find_in(folder: Path, *names: str) -> Path:
    for name in names:
        for candidate in (folder / name, folder / f"{name}.gz"):
            if candidate.is_file():
                return candidate
    raise ReaderError(
        f"{folder} is a folder but not a 10x folder: it has no {' or '.join(names)} (optionally .gz). "
        "A 10x folder holds matrix.mtx, features.tsv (or genes.tsv) and barcodes.tsv."
    )


def _read_names(path: Path) -> pd.DataFrame:
    """A headerless tab-separated file of names (10x features or barcodes), as strings."""
    with reading(existing_file(path), "a tab-separated list of names"):
        return pd.read_csv(path, sep="\t", header=None, dtype=str, keep_default_na=False, encoding=text_encoding(path))


def _read_labels(path: Path, column: str | None, header: bool | None, cells: pd.Index, *, data_path: Path) -> pd.Categorical:
    """One label per cell from a labels file, matched by cell name or taken in row order."""
    with reading(existing_file(path), "a labels table"):
        raw = pd.read_csv(path, sep=separator(path), header=None, dtype=str, keep_default_na=False,
                          encoding=text_encoding(path))
    raw = raw.mask(raw == "")  # an empty field is a missing label; "NA" is a label like any other
    by_name = raw.shape[1] > 1
    if header is not None:
        has_header = bool(header)
    elif column is not None:
        has_header = True
    elif by_name:
        has_header = raw.iloc[0, 0] not in cells
    elif len(raw) == len(cells) + 1:
        has_header = True
    elif len(raw) == len(cells):
        has_header = False
    else:
        raise ShapeMismatchError(
            f"{path} has {len(raw)} rows (one label per row, or a header and {len(raw) - 1} labels) but "
            f"{data_path} has {len(cells)} cells. Give one label per cell in row order, or two columns (cell, "
            "label) to match by name; if the matrix stores genes in rows, transpose it."
        )
    if column is not None and not has_header:
        raise ParameterError(f"a labels column ({column!r}) was named but {path} is read without a header row.")
    header_row = [str(name) for name in raw.iloc[0]] if has_header else None
    table = raw.iloc[1:] if has_header else raw
    if table.empty:
        raise ReaderError(f"{path} has a header but no labels.")
    if column is not None:
        if column not in header_row:
            raise ParameterError(
                f"the labels column {column!r} is not a column of {path}; its columns are "
                f"{', '.join(map(repr, header_row))}."
            )
        position = header_row.index(column)
    elif raw.shape[1] > 2:
        raise ParameterError(
            f"{path} has {raw.shape[1]} columns; name the column that holds the labels "
            "(the file then needs a header row)."
        )
    else:
        position = raw.shape[1] - 1
    values = table.iloc[:, position].to_numpy()
    if not by_name:
        if len(values) != len(cells):
            raise ShapeMismatchError(
                f"{path} has {len(values)} labels but {data_path} has {len(cells)} cells; "
                "give one label per cell in row order, or two columns (cell, label) to match by name; "
                "if the matrix stores genes in rows, transpose it."
            )
        return pd.Categorical(values)
    labels = pd.Series(values, index=table.iloc[:, 0].astype(str).to_numpy())
    unknown = labels.index.difference(cells)
    if len(unknown):
        raise ReaderError(
            f"{path} names {len(unknown)} cell(s) that are not in {data_path} "
            f"(e.g. {', '.join(map(repr, unknown[:3]))}). The first column of a two-column labels file "
            "must hold the cell names."
        )
    if labels.index.has_duplicates:
        twice = labels.index[labels.index.duplicated()][0]
        raise ReaderError(f"{path} labels cell {twice!r} more than once; give one label per cell.")
    return pd.Categorical(labels.reindex(cells).to_numpy())


_READERS = {
    ".h5ad": _read_h5ad,
    ".mtx": _read_mtx,
    ".mtx.gz": _read_mtx,
    ".parquet": _read_parquet,
}
