"""Reading long-format tables (comparisons, judgments, labels) into pandas, without AnnData."""

from __future__ import annotations

import numbers
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, LongRowError, ReaderError
from .._extras import require
from .files import restore_formulas
from .formats import (MAX_COLUMNS, MISSING_MARKERS, SEPARATORS, check_unique_columns, existing_file, file_ending,
                      reading, table_endings, text_encoding)

__all__ = ["read_frame", "read_header"]

#: read_csv's keywords that read every float exactly as written: pandas before 3.1 does so with
#: ``float_precision="round_trip"``; pandas 3.1 always does, and deprecates the keyword.
_EXACT_FLOATS = ({"float_precision": "round_trip"}
                if tuple(int(part) for part in re.findall(r"\d+", pd.__version__)[:2]) < (3, 1) else {})


def read_frame(
    path,
    *,
    text_columns: Sequence[str | int] = (),
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
    written: a float written by paucity or pandas comes back bit for bit. A
    row with more fields than the header is refused, naming it (pandas would
    otherwise take the first column as the index without a word). Parquet
    files keep their stored types, and a stored index becomes a column again.

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
    text_columns : sequence of str or int
        Columns to read as text, by name or by position: an integer is a
        column's position in the header (0 the first column, -1 the last),
        whatever its name, so that a caller who wants "the first column as
        text" reads the file once. Names that are not columns of the file,
        and positions past its last column, are ignored here (the caller
        reports a missing column in its own terms). A column whose header
        field is empty (an index written by ``DataFrame.to_csv``) is named
        ``"Unnamed: k"``, k its position, as pandas names it.
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
        The file is missing, empty, has no rows, cannot be parsed, or has two
        columns of the same name.
    LongRowError
        A row has more fields than the header (a :class:`ReaderError`; its
        ``row``, ``width`` and ``header_width`` say which row, how many
        fields it has and how many the header has).
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

    The first column as text, whatever its name:

    >>> read_frame(folder / "cells.csv", text_columns=[0])["cell"].tolist()
    ['007', '008']
    """
    spelled = {"index_column": "index_column", "numeric_columns": "numeric_columns", **(spelling or {})}
    path = existing_file(Path(path))
    ending = file_ending(path, table_endings() + (".parquet",))
    if ending == ".parquet":
        frame = _read_parquet(path, empty=False)
        text = _named(text_columns, list(frame.columns))
    else:
        sep = SEPARATORS[ending.removesuffix(".gz")]
        written, restored = _delimited_header(path, sep, rows=True)
        text = _named(text_columns, restored)
        frame = _read_delimited(path, sep, written, restored, text + ([index_column] if index_column is not None else []))
    text += [index_column] if index_column is not None else []
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


def read_header(path) -> list[str]:
    """The column names of a table, as :func:`read_frame` names them, without reading its rows.

    A header field that paucity's writer neutralized (``'=x``) is given back
    as it was (``=x``), an empty header field is named ``"Unnamed: k"`` (k
    its position), and a parquet file's stored index is a column, first, as
    :func:`read_frame` returns it. Only the first line of a delimited table
    is read, and only the schema of a parquet file.

    Parameters
    ----------
    path : str or path-like
        The table (.csv/.tsv/.txt, optionally gzipped, or .parquet).

    Returns
    -------
    list of str
        The column names, in the file's order.

    Raises
    ------
    ReaderError
        The file is missing, empty, cannot be parsed, or has two columns of
        the same name.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "games.csv").write_text(",home,'=away\\n1,a,b\\n")
    >>> read_header(folder / "games.csv")
    ['Unnamed: 0', 'home', '=away']
    """
    path = existing_file(Path(path))
    ending = file_ending(path, table_endings() + (".parquet",))
    if ending == ".parquet":
        return list(_read_parquet(path, empty=True).columns)
    return _delimited_header(path, SEPARATORS[ending.removesuffix(".gz")])[1]


def _named(columns: Sequence[str | int], names: list) -> list:
    """The columns asked for by name or by position (0 the first, -1 the last), as names; a position past the last
    column is left out, as is a name the table lacks later on."""
    named = []
    for column in columns:
        if isinstance(column, numbers.Integral) and not isinstance(column, bool):
            if -len(names) <= int(column) < len(names):
                named.append(names[int(column)])
        else:
            named.append(column)
    return named


def _read_parquet(path: Path, *, empty: bool):
    """A parquet table (its schema alone, as an empty frame, when ``empty``), a stored index made a column."""
    require("pyarrow", f"reading {path.name}")
    with reading(path, "a parquet file"):
        if empty:
            import pyarrow.parquet as pq

            frame = pq.read_schema(path).empty_table().to_pandas()
        else:
            frame = pd.read_parquet(path)
    if not isinstance(frame.index, pd.RangeIndex):  # a stored index is a column like the others
        frame = frame.reset_index()
    check_unique_columns(list(frame.columns), path)
    return frame


def _delimited_header(path: Path, sep: str, *, rows: bool = False) -> tuple[list[str], list[str]]:
    """The header's fields as written, and as read back (formula quotes removed); an empty field named as pandas
    names it. Read with Python's csv module, in milliseconds however wide; a header wider than
    :data:`~paucity.io.formats.MAX_COLUMNS` is refused, and with ``rows`` so is a table without a row under its
    header, before pandas would spend minutes on either."""
    written, more = _first_lines(path, sep)
    if len(written) > MAX_COLUMNS:
        raise ReaderError(
            f"{path} has a header of {len(written)} columns, more than the {MAX_COLUMNS} a table read here may have; "
            "give a long table (one row per value), or a count matrix as .h5ad or .mtx (paucity.io.read)."
        )
    if rows and not more:
        raise ReaderError(f"{path} has a header but no rows.")
    restored = list(restore_formulas(written))  # the names before paucity's writer neutralized them
    check_unique_columns(restored, path)
    # an empty header field (a written index) is named as pandas names it
    written = [name if name != "" else f"Unnamed: {k}" for k, name in enumerate(written)]
    restored = [name if name != "" else f"Unnamed: {k}" for k, name in enumerate(restored)]
    return written, restored


def _read_delimited(path: Path, sep: str, written: list[str], restored: list[str], text: Sequence) -> pd.DataFrame:
    as_text = [raw for raw, name in zip(written, restored) if name in set(text)]
    with reading(path, "a table"), warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(
                path,
                sep=sep,
                encoding=text_encoding(path),
                dtype={name: str for name in as_text},
                keep_default_na=False,
                na_values={name: MISSING_MARKERS for name in written if name not in as_text},
                index_col=False,  # never take the first column as the index when a row is longer
                **_EXACT_FLOATS,  # the numbers written, exactly
            )
        except (pd.errors.ParserWarning, pd.errors.ParserError) as error:
            longer = _first_longer_row(path, sep, len(written))
            if longer is None:
                if isinstance(error, pd.errors.ParserError):
                    raise
                longer = (1, None)
            row, width = longer
            raise LongRowError(
                f"{path} has a row longer than its header: data row {row} has more than the header's "
                f"{len(written)} field(s). Name every column in the header (the first line), or remove the extra "
                "fields (check the separator: ',' for .csv, tab for .tsv).",
                path=str(path), row=row, width=width, header_width=len(written),
            ) from None
    for name in as_text:  # an empty field is missing, as in every other column
        frame[name] = restore_formulas(frame[name].mask(frame[name] == ""))
    return frame.rename(columns={raw: name for raw, name in zip(written, restored) if raw != name})


def _first_lines(path: Path, sep: str) -> tuple[list[str], bool]:
    """The first non-blank line's fields, split as pandas splits them, and whether a non-blank line follows."""
    import csv
    import gzip
    import io

    encoding = text_encoding(path)
    with reading(path, "a table"):
        raw = gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")
        with raw, io.TextIOWrapper(raw, encoding=encoding, newline="") as handle:
            csv.field_size_limit(2**31 - 1)
            lines = (line.split() for line in handle) if sep == r"\s+" else csv.reader(handle, delimiter=sep)
            filled = (fields for fields in lines if fields and any(field.strip() for field in fields))
            header = next(filled, [])
            return header, next(filled, None) is not None


_LONG = "\x00paucity: a long row\x00"  # stands for a longer row while looking for one (no table holds it)


def _first_longer_row(path: Path, sep: str, width: int) -> tuple[int, int] | None:
    """The first data row (counted from 1) with more than ``width`` fields, and its number of fields, read as pandas
    would split it."""
    width = max(width, 1)
    fields: list[int] = []

    def longer(row: list[str]) -> list[str]:  # called, in order, for each row longer than the header
        fields.append(len(row))
        return [_LONG] * width

    # The header is read as the first row: its width is the names', so pandas takes no column as an index, and
    # every longer row reaches ``longer`` (whose rows are found again by their marks).
    with reading(path, "a table"):
        rows = pd.read_csv(path, sep=sep, header=None, dtype=str, keep_default_na=False, names=range(width),
                           engine="python", on_bad_lines=longer, encoding=text_encoding(path))
    marked = (rows[0] == _LONG).to_numpy()
    if not fields or not marked.any():
        return None
    return int(marked.argmax()), fields[0]


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
