"""Reading long-format tables (comparisons, judgments, labels) into pandas, without AnnData."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, ReaderError
from .._extras import require
from .files import restore_formulas
from .formats import MISSING_MARKERS, SEPARATORS, check_unique_columns, existing_file, file_ending, reading, table_endings

__all__ = ["read_frame"]


def read_frame(
    path,
    *,
    text_columns: Sequence[str] = (),
    index_column: str | None = None,
    numeric_columns: Sequence[str] | bool = (),
    finite: bool = False,
    spelling: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read a long-format table (.csv/.tsv/.txt, optionally gzipped, or .parquet) into a DataFrame.

    The one reader of every table paucity reads (comparisons, rankings,
    labels, judgments, similarities, features, samples). Columns keep their
    names; nothing is used as the index unless ``index_column`` says so.
    Identifier and label columns named in ``text_columns`` (and the
    ``index_column``) are read as text, as written: ``"00024"`` stays
    ``"00024"`` (not 24), and ``NA``, ``None``, ``null`` or ``nan`` are names
    like any other, not missing values (an empty field is still missing).
    Other columns are parsed as pandas does; numbers are read exactly as
    written (``float_precision="round_trip"``: a float written by paucity or
    pandas comes back bit for bit). A row with more fields than the header
    is refused, naming it (pandas would otherwise take the first column as
    the index without a word). Parquet files keep their stored types, and a
    stored index becomes a column again.

    In a delimited table, a text cell of ``text_columns`` or a header field
    that starts with ``'`` followed by ``=``, ``+``, ``-``, ``@``, a tab or a
    carriage return loses that first ``'``: it is what paucity's writer
    (:func:`paucity.io.write_csv`) adds so that spreadsheets do not run the
    cell as a formula, and the name is given back as it was before writing.
    A name that really starts with ``'=`` (or ``'`` and another of those
    characters) cannot be told apart from one paucity wrote: it is read
    without its first ``'``.

    Parameters
    ----------
    path : str or path-like
        The table.
    text_columns : sequence of str
        Columns to read as text. Names that are not columns of the file are
        ignored here (the caller reports a missing column in its own terms).
        A column whose header field is empty (an index written by
        ``DataFrame.to_csv``) is named ``"Unnamed: k"``, k its position, as
        pandas names it.
    index_column : str, optional
        A column of identifiers, read as text, that becomes the index (named
        as the column). It must be a column of the file and have no empty
        field.
    numeric_columns : sequence of str, or bool
        Columns that must hold numbers, returned as float64 (an empty field
        or ``NA`` is NaN); ``True``: every column that is not text or the
        index. Text that is not a number is refused, naming the column, the
        value and its data row (counted from 1, the first row under the
        header).
    finite : bool
        Also refuse missing, NaN and infinite values in the numeric columns.
    spelling : mapping of str to str, optional
        How the caller's user spells this function's parameters in messages,
        e.g. ``{"index_column": "--index-column"}`` on the command line; by
        default the Python names.

    Raises
    ------
    ReaderError
        The file is missing, empty, has no rows, cannot be parsed, has a row
        longer than its header, or has two columns of the same name.
    InputError
        ``index_column`` or a column of ``numeric_columns`` is not in the
        table, an identifier is missing, or a numeric column holds text (or,
        with ``finite``, a missing or infinite value).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "games.csv").write_text("home,away,winner\\n00024,NA,NA\\n")
    >>> frame = read_frame(folder / "games.csv", text_columns=["home", "away", "winner"])
    >>> frame.columns.tolist(), frame.iloc[0].tolist()
    (['home', 'away', 'winner'], ['00024', 'NA', 'NA'])
    >>> _ = (folder / "cells.csv").write_text("cell,CD3E,MS4A1\\n007,0.1,2\\n008,1e-3,0\\n")
    >>> cells = read_frame(folder / "cells.csv", index_column="cell", numeric_columns=True)
    >>> cells.index.tolist(), cells["CD3E"].tolist(), cells["MS4A1"].dtype
    (['007', '008'], [0.1, 0.001], dtype('float64'))
    """
    spelled = {"index_column": "index_column", "numeric_columns": "numeric_columns", **(spelling or {})}
    path = existing_file(Path(path))
    text = list(text_columns) + ([index_column] if index_column is not None else [])
    ending = file_ending(path, table_endings() + (".parquet",))
    if ending == ".parquet":
        require("pyarrow", f"reading {path.name}")
        with reading(path, "a parquet file"):
            frame = pd.read_parquet(path)
        if not isinstance(frame.index, pd.RangeIndex):  # a stored index is a column like the others
            frame = frame.reset_index()
        check_unique_columns(list(frame.columns), path)
    else:
        frame = _read_delimited(path, SEPARATORS[ending.removesuffix(".gz")], text)
    if frame.shape[0] == 0:
        raise ReaderError(f"{path} has a header but no rows.")
    if index_column is not None:
        frame = _with_index(frame, path, index_column, spelled["index_column"])
    if numeric_columns is True:
        numeric = [name for name in frame.columns if name not in set(text)]
    elif numeric_columns is False:
        numeric = []
    else:
        numeric = list(numeric_columns)
    for name in numeric:
        frame[name] = _numbers(frame, path, name, spelled["numeric_columns"], finite,
                               spelled["index_column"] if numeric_columns is True and index_column is None else None)
    return frame


def _read_delimited(path: Path, sep: str, text: Sequence[str]) -> pd.DataFrame:
    with reading(path, "a table"):
        header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
    written = [str(name) for name in header.iloc[0]] if len(header) else []
    restored = list(restore_formulas(written))  # the names before paucity's writer neutralized them
    check_unique_columns(restored, path)
    # an empty header field (a written index) is named as pandas names it
    written = [name if name != "" else f"Unnamed: {k}" for k, name in enumerate(written)]
    restored = [name if name != "" else f"Unnamed: {k}" for k, name in enumerate(restored)]
    as_text = [raw for raw, name in zip(written, restored) if name in set(text)]
    with reading(path, "a table"), warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(
                path,
                sep=sep,
                dtype={name: str for name in as_text},
                keep_default_na=False,
                na_values={name: MISSING_MARKERS for name in written if name not in as_text},
                index_col=False,  # never take the first column as the index when a row is longer
                float_precision="round_trip",  # the numbers written, exactly
            )
        except (pd.errors.ParserWarning, pd.errors.ParserError) as error:
            longer = _first_longer_row(path, sep, len(written))
            if longer is None:
                if isinstance(error, pd.errors.ParserError):
                    raise
                longer = 1
            raise ReaderError(
                f"{path} has a row longer than its header: data row {longer} has more than the header's "
                f"{len(written)} field(s). Name every column in the header (the first line), or remove the extra "
                "fields (check the separator: ',' for .csv, tab for .tsv)."
            ) from None
    for name in as_text:  # an empty field is missing, as in every other column
        frame[name] = restore_formulas(frame[name].mask(frame[name] == ""))
    return frame.rename(columns={raw: name for raw, name in zip(written, restored) if raw != name})


def _first_longer_row(path: Path, sep: str, width: int) -> int | None:
    """The first data row (counted from 1) with more than ``width`` fields, read as pandas would split it."""
    with reading(path, "a table"):
        rows = pd.read_csv(path, sep=sep, header=None, skiprows=1, dtype=str, keep_default_na=False,
                           names=range(max(width, 1) + 1), index_col=False, engine="python",
                           on_bad_lines="skip")
    extra = rows[max(width, 1)].ne("") & rows[max(width, 1)].notna()
    if extra.any():
        return int(extra.to_numpy().argmax()) + 1
    return None


def _with_index(frame: pd.DataFrame, path: Path, column: str, option: str) -> pd.DataFrame:
    if column not in frame.columns:
        shown = ", ".join(map(repr, [str(name) for name in list(frame.columns)[:10]]))
        raise InputError(f"{option} {column!r} is not a column of {path}; its columns are {shown}.")
    ids = frame[column]
    if ids.isna().any():
        row = int(ids.isna().to_numpy().argmax()) + 1
        raise InputError(f"{path} has no id in column {column!r} ({option}), data row {row}; name every row.")
    return frame.set_index(column)


def _numbers(frame: pd.DataFrame, path: Path, name, option: str, finite: bool, index_option: str | None) -> pd.Series:
    if name not in frame.columns:
        shown = ", ".join(map(repr, [str(column) for column in list(frame.columns)[:10]]))
        raise InputError(f"{option}: {name!r} is not a column of {path}; its columns are {shown}.")
    column = frame[name]
    if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
        if pd.api.types.is_bool_dtype(column):
            converted = pd.Series(float("nan"), index=column.index)
        else:
            converted = pd.to_numeric(column.astype(object).where(column.notna()), errors="coerce")
        bad = converted.isna() & column.notna()
        if bad.any():
            row = int(bad.to_numpy().argmax())
            raise InputError(
                f"column {str(name)!r} of {path} is not numeric: data row {row + 1} has {column.iloc[row]!r}; "
                "it must hold numbers (an empty field is missing)"
                + (f", or, if it holds ids, pass {index_option} {str(name)!r}." if index_option else ".")
            )
        column = converted
    values = column.astype("float64")
    if finite:
        bad = ~np.isfinite(values.to_numpy())
        if bad.any():
            row = int(bad.argmax())
            raise InputError(
                f"column {str(name)!r} of {path} has {int(bad.sum())} missing, NaN or infinite value(s), the first "
                f"in data row {row + 1}; drop or impute them."
            )
    return values
