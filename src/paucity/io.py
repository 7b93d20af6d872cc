"""Reading count matrices from files, and writing outputs atomically.

:func:`read` turns the files single-cell and crowdsourcing users hold (h5ad,
csv/tsv/txt tables, 10x folders, Matrix Market files, parquet) into an
:class:`anndata.AnnData` with cells (samples) in rows, and optionally attaches
a label per cell. Anything wrong with a file raises
:class:`~paucity._errors.ReaderError` naming the file, never a library's own
traceback.

The writers (:func:`write_csv`, :func:`write_text`, :func:`write_h5ad`,
:func:`write_figure`) write to a temporary file next to the target and rename
it onto the target only once writing succeeded (:func:`atomic_path`), so a
failed command leaves nothing behind and never half a file.
"""

from __future__ import annotations

import gzip
import io
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anndata
import numpy as np
import pandas as pd
import scipy.io
import scipy.sparse as sp

from ._errors import ParameterError, PaucityError, ReaderError, ShapeMismatchError

__all__ = ["SUPPORTED_FORMATS", "read", "read_frame", "atomic_path", "write_csv", "write_text", "write_h5ad", "write_figure"]

SUPPORTED_FORMATS = (
    ".h5ad",
    ".csv",
    ".csv.gz",
    ".tsv",
    ".tsv.gz",
    ".txt",
    ".txt.gz",
    ".mtx",
    ".mtx.gz",
    ".parquet",
)
"""The file name endings :func:`read` accepts (besides 10x folders)."""

_SEPARATORS = {".csv": ",", ".tsv": "\t", ".txt": r"\s+"}


def read(path, *, labels=None, labels_column: str | None = None, transpose: bool = False) -> anndata.AnnData:
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
          are cells), sparse CSR ``float32``;
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
        cell. A header row is recognised and skipped.
    labels_column : str, optional
        The column of ``labels`` to use (the file must then have a header).
        Also the ``adata.obs`` column the labels are stored in; ``"label"``
        when not given.
    transpose : bool
        Transpose after reading, for files that store features in rows (a
        bare genes x cells ``.mtx``, a genes x cells table).

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
        adata = _read_10x(path)
    else:
        ending = _ending(_existing_file(path), SUPPORTED_FORMATS, also=" or a 10x folder")
        adata = _READERS.get(ending, _read_table)(path)
    if transpose:
        adata = adata.T
        if sp.issparse(adata.X):
            adata.X = adata.X.tocsr()
    if labels is not None:
        key = labels_column or "label"
        adata.obs[key] = _read_labels(Path(labels), labels_column, adata.obs_names, data_path=path)
    return adata


@contextmanager
def atomic_path(path) -> Iterator[Path]:
    """Yield a temporary path that replaces ``path`` when the block succeeds.

    The temporary file lies in the same directory as ``path`` (so the final
    :func:`os.replace` is atomic) and ends with the same suffixes (so libraries
    recognise the format). If the block raises, the temporary file is removed
    and ``path`` is left as it was.

    Parameters
    ----------
    path : str or path-like
        The file to write.

    Yields
    ------
    pathlib.Path
        Where to write; it does not exist yet.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    suffixes = "".join(path.suffixes)
    tmp = path.with_name(f".{path.name.removesuffix(suffixes)}.{secrets.token_hex(4)}.tmp{suffixes}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_csv(df: pd.DataFrame, path, **kwargs) -> None:
    """Write a DataFrame with :meth:`pandas.DataFrame.to_csv`, atomically.

    Keyword arguments go to ``to_csv``; a ``.gz`` path is compressed.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> write_csv(pd.DataFrame({"gene": ["CD3E"], "score": [0.5]}), target, index=False)
    >>> print(target.read_text(), end="")
    gene,score
    CD3E,0.5
    """
    with atomic_path(path) as tmp:
        df.to_csv(tmp, **kwargs)


def write_text(text: str, path) -> None:
    """Write a string as UTF-8, atomically.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "report.md"
    >>> write_text("# Markers\\n", target)
    >>> target.read_text()
    '# Markers\\n'
    """
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


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


def write_figure(fig, path, **kwargs) -> None:
    """Save a matplotlib figure with :meth:`~matplotlib.figure.Figure.savefig`, atomically.

    The format follows the suffix of ``path``; keyword arguments go to
    ``savefig``.

    Examples
    --------
    >>> import tempfile, pathlib, matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "curve.png"
    >>> write_figure(fig, target, dpi=50)
    >>> target.read_bytes()[:4]
    b'\\x89PNG'
    >>> plt.close(fig)
    """
    with atomic_path(path) as tmp:
        fig.savefig(tmp, **kwargs)


# --- files and formats -------------------------------------------------------


def _table_endings() -> tuple[str, ...]:
    return tuple(ext + gz for ext in _SEPARATORS for gz in ("", ".gz"))


def _existing_file(path: Path) -> Path:
    if not path.exists():
        raise ReaderError(f"{path} does not exist. Check the path and the current directory ({Path.cwd()}).")
    if path.stat().st_size == 0:
        raise ReaderError(f"{path} is empty.")
    return path


def _ending(path: Path, endings: tuple[str, ...], *, also: str = "") -> str:
    """The one of endings the file name ends with (case-insensitive)."""
    name = path.name.lower()
    for ending in sorted(endings, key=len, reverse=True):
        if name.endswith(ending):
            return ending
    raise ReaderError(f"{path} has an unknown extension; expected {', '.join(endings)}{also}.")


@contextmanager
def _reading(path: Path, what: str):
    """Turn a library's exception into a ReaderError naming the file."""
    try:
        yield
    except PaucityError:
        raise
    except Exception as exc:
        raise ReaderError(f"could not read {path} as {what}: {type(exc).__name__}: {exc}") from None


def _separator(path: Path) -> str:
    return _SEPARATORS[_ending(path, _table_endings()).removesuffix(".gz")]


# --- readers -------------------------------------------------------------------


def read_frame(path) -> pd.DataFrame:
    """Read a long-format table (.csv/.tsv/.txt, optionally gzipped, or .parquet) into a DataFrame.

    Columns keep their names; nothing is used as the index. Raises
    :class:`~paucity._errors.ReaderError` naming the file when it cannot be read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "games.csv").write_text("home,away,winner\\nA,B,A\\n")
    >>> read_frame(folder / "games.csv").columns.tolist()
    ['home', 'away', 'winner']
    """
    path = _existing_file(Path(path))
    ending = _ending(path, _table_endings() + (".parquet",))
    if ending == ".parquet":
        with _reading(path, "a parquet file"):
            frame = pd.read_parquet(path)
    else:
        with _reading(path, "a table"):
            frame = pd.read_csv(path, sep=_SEPARATORS[ending.removesuffix(".gz")])
    if frame.shape[0] == 0:
        raise ReaderError(f"{path} has a header but no rows.")
    return frame



def _read_h5ad(path: Path) -> anndata.AnnData:
    with _reading(path, "an h5ad file"):
        return anndata.read_h5ad(path)


def _read_table(path: Path) -> anndata.AnnData:
    with _reading(path, "a table"):
        return _frame_to_anndata(pd.read_csv(path, sep=_separator(path), index_col=0), path)


def _read_parquet(path: Path) -> anndata.AnnData:
    with _reading(path, "a parquet file"):
        df = pd.read_parquet(path)
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
    with _reading(_existing_file(path), "a Matrix Market file"):
        with opener(path, "rb") as raw, io.BufferedReader(_MatrixMarketStream(raw, path)) as stream:
            matrix = scipy.io.mmread(stream)
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
    with _reading(_existing_file(path), "a tab-separated list of names"):
        return pd.read_csv(path, sep="\t", header=None, dtype=str, keep_default_na=False)


def _read_labels(path: Path, column: str | None, cells: pd.Index, *, data_path: Path) -> pd.Categorical:
    """One label per cell from a labels file, matched by cell name or taken in row order."""
    with _reading(_existing_file(path), "a labels table"):
        raw = pd.read_csv(path, sep=_separator(path), header=None, dtype=str)
    by_name = raw.shape[1] > 1
    if column is not None:
        has_header = True
    elif by_name:
        has_header = raw.iloc[0, 0] not in cells
    else:
        has_header = len(raw) == len(cells) + 1
    header = [str(name) for name in raw.iloc[0]] if has_header else None
    table = raw.iloc[1:] if has_header else raw
    if table.empty:
        raise ReaderError(f"{path} has a header but no labels.")
    if column is not None:
        if column not in header:
            raise ParameterError(
                f"labels_column {column!r} is not a column of {path}; its columns are {', '.join(map(repr, header))}."
            )
        position = header.index(column)
    elif raw.shape[1] > 2:
        raise ParameterError(
            f"{path} has {raw.shape[1]} columns; pass labels_column to say which holds the labels "
            "(the file then needs a header row)."
        )
    else:
        position = raw.shape[1] - 1
    values = table.iloc[:, position].to_numpy()
    if not by_name:
        if len(values) != len(cells):
            raise ShapeMismatchError(
                f"{path} has {len(values)} labels but {data_path} has {len(cells)} cells; "
                "give one label per cell in row order, or two columns (cell, label) to match by name."
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
