"""Complete similarity matrices, with item names: :func:`read_similarities` and :func:`similarities_from_frame`.

What :func:`~paucity.clustering.simulate` and ``paucity cluster-active``
read: a square matrix, or a long table with one row per pair. Files go
through :func:`paucity.io.read_frame` (the header first, through
:func:`paucity.io.read_header`, to tell the layouts apart), item names read
as text, as written: ``00024`` stays ``00024``, ``NA`` is a name. A name that
starts with ``'`` and then ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return loses that ``'``, which paucity's CSV writer adds so that spreadsheets
do not run the name as a formula. The tables of a session (items, answers,
pairs) are :mod:`paucity.clustering.tables`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, LongRowError, ParameterError, ReaderError, ShapeMismatchError
from .._spelling import given, named, owner_prefix, spelled, spells
from .._validation import Instance, check_columns, check_parameter
from .tables import refuse_repeated

__all__ = ["read_similarities", "similarities_from_frame"]
#: A constraint: a string (a column name).
_TEXT = Instance(str, description="a string")


def read_similarities(path, *, i: str | None = None, j: str | None = None, value: str | None = None,
                      i_column: str | None = None, j_column: str | None = None,
                      value_column: str | None = None) -> pd.DataFrame:
    """Read a complete matrix of similarities, with item names, from a table.

    Two layouts are read:

    - a **square** table: the first column holds the item names and the
      header holds the same names (in any order), as ``DataFrame.to_csv``
      writes a matrix with names as index and columns (the header's first
      field may be empty); the diagonal is not used;
    - a **long** table with one row per pair: columns ``i``, ``j`` (item
      names) and ``value`` (the similarity), or the columns named by
      ``i``, ``j``, ``value``. Each pair once, in either
      order (both orders are accepted when they agree); a row pairing an item
      with itself is refused, naming the row (the diagonal is 1 by definition).

    A table with columns ``i``, ``j`` and ``value`` (or with any of the three
    column names given) is read as long, any other as square. Names are read
    as text: ``00024`` stays ``00024``, ``NA`` is a name.

    In a delimited table (either layout: the square one's first column and
    header too), a name that starts with ``'`` followed by ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return loses that first ``'``: it is
    what paucity's writer (:func:`paucity.io.write_csv`) adds so that
    spreadsheets do not run the name as a formula, and the matrix written by
    paucity is read back with its names as they were. A name that really
    starts with ``'=`` (or ``'`` and another of those characters) cannot be
    told apart from one paucity wrote: it is read without its first ``'``.

    Parameters
    ----------
    path : str or path-like
        A .csv/.tsv/.txt (optionally gzipped) or .parquet file.
    i, j, value : str, optional
        Columns of a long table (default ``"i"``, ``"j"``, ``"value"``); giving
        one says the table is long. The same keywords as
        :func:`similarities_from_frame` and the containers' ``from_frame``.
    i_column, j_column, value_column : str, optional
        The older spellings of ``i``, ``j`` and ``value``, still accepted;
        giving both spellings of one column is refused.

    Returns
    -------
    pandas.DataFrame
        The square matrix, item names as index and columns (in the order of
        first appearance), float64; NaN where a long table has no value for a
        pair. Values are not checked here (:func:`simulate` checks them).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pairs.csv"
    >>> _ = path.write_text("i,j,value\\n00024,NA,0.9\\nNA,b,0.2\\nb,00024,0.1\\n")
    >>> read_similarities(path)
           00024   NA    b
    00024    1.0  0.9  0.1
    NA       0.9  1.0  0.2
    b        0.1  0.2  1.0
    """
    from .. import io
    from ..io.formats import existing_file, file_ending, table_endings

    chosen = _column_keywords({"i": i, "j": j, "value": value},
                              {"i": i_column, "j": j_column, "value": value_column}, owner="read_similarities")
    path = existing_file(Path(path))
    columns = {key: (column if column is not None else key) for key, column in chosen.items()}
    ending = file_ending(path, table_endings() + (".parquet",))
    header = io.read_header(path)
    long = any(column is not None for column in chosen.values()) or set(columns.values()) <= set(header)
    if not long and header and header[0] in (columns["i"], columns["j"]) and \
            {columns["i"], columns["j"]} <= set(header):
        others = ", ".join(repr(name) for name in header if name not in (columns["i"], columns["j"]))
        raise InputError(
            f"{path} looks like a long table (columns {columns['i']!r} and {columns['j']!r}) but has no column "
            f"{columns['value']!r}; name its similarity column with {_value_option()}"
            + (f", one of {others}." if others else ".")
        )
    if long:
        return _square_from_long(path, columns)
    if len(header) == 3 and _looks_long(path, header):  # two columns of names and one of numbers: one row a pair
        raise InputError(
            f"{path} looks like a long table, one row per pair, whose columns are not named i, j and value; name "
            f"them: {(' ' if spells('i') else ', ').join(given(role, name) for role, name in zip(('i', 'j', 'value'), header))}"
            " (the two items' columns and the similarity's)."
        )
    return _read_square(path, ending, header)


def _column_keywords(primary: dict, older: dict, *, owner: str) -> dict:
    """Each role's column from its keyword (``i=``) or its older spelling (``i_column=``), never both; each a
    string when given."""
    columns = {}
    for role, column in primary.items():
        alias = older[role]
        if column is not None and alias is not None:
            raise ParameterError(
                f"{owner_prefix(owner)}{given(role, column)} and {given(role + '_column', alias)} both name the "
                f"{role} column; give one ({role + '_column'} is the older spelling of {role})."
            )
        name = role if column is not None else role + "_column"
        column = column if column is not None else alias
        if column is not None:
            check_parameter(column, name, [_TEXT], owner=owner)
        columns[role] = column
    return columns


def _value_option() -> str:
    """How the caller names the value column: ``--value-column`` on a command line, ``value=`` in Python."""
    return spelled("value_column") if spells("value_column") else named("value")


def similarities_from_frame(df: pd.DataFrame, *, i: str | None = None, j: str | None = None,
                            value: str | None = None) -> pd.DataFrame:
    """A complete matrix of similarities, with item names, from a table already in memory.

    The one constructor of a similarity table from a frame, as every data
    container of paucity has one (:meth:`paucity.ranking.Comparisons.from_frame`
    names its item columns ``i`` and ``j`` too, :meth:`paucity.judgments.Judgments.from_frame`
    its number ``value``); :func:`read_similarities` reads a file through
    :func:`paucity.io.read_frame` and calls it. Two layouts:

    - **long**: one row per pair, columns ``i``, ``j`` (item names) and
      ``value`` (the similarity), or the columns named by ``i``, ``j``,
      ``value``; each pair once, in either order (both orders when they
      agree); a row pairing an item with itself is refused naming its data
      row, counted from 1;
    - **square**: any other frame, its index and its columns naming the same
      items (in any order), as ``pandas`` holds a matrix with names.

    Parameters
    ----------
    df : pandas.DataFrame
    i, j, value : str, optional
        Columns of a long table (default ``"i"``, ``"j"``, ``"value"``); giving one says the table is long.

    Returns
    -------
    pandas.DataFrame
        The square matrix, item names as index and columns (in the order of
        first appearance), float64; NaN where a long table has no value for a
        pair. Values are not checked here (:func:`simulate` checks them).

    Examples
    --------
    >>> import pandas as pd
    >>> pairs = pd.DataFrame({"left": ["a", "a"], "right": ["b", "c"], "sim": [0.9, 0.1]})
    >>> similarities_from_frame(pairs, i="left", j="right", value="sim").loc["a"].tolist()
    [1.0, 0.9, 0.1]
    """
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"similarities_from_frame reads a pandas DataFrame, got {type(df).__name__}.")
    named = {"i": i, "j": j, "value": value}
    columns = {key: (given if given is not None else key) for key, given in named.items()}
    if any(given is not None for given in named.values()) or set(columns.values()) <= set(df.columns):
        if len(df) == 0:
            raise InputError("the table has no rows; give one row per pair.")
        return _long_to_square(df, "the table", columns)
    if len(df) == 0:
        raise InputError("the table has no rows; give one row and one column per item.")
    names = pd.Series([name for name in df.index], dtype=object)
    names = names.where(names.notna())
    values = df.copy()
    values.columns = [str(column) if not isinstance(column, str) else column for column in values.columns]
    return _square(names.reset_index(drop=True), values.reset_index(drop=True), "the table")


def _looks_long(path: Path, header: list[str]) -> bool:
    """Whether a table of three columns is a long table under other names: two columns of names (text) and one
    of numbers, its header not naming the items of its first column (as a square matrix's would)."""
    from .. import io

    try:
        frame = io.read_frame(path)
    except ReaderError:  # a row longer than the header, say: the square reader says what a square table holds
        return False
    kinds = [pd.api.types.is_numeric_dtype(frame[column]) for column in frame.columns]
    names = set(frame.iloc[:, 0].dropna().astype(str))
    return kinds == [False, False, True] and names != set(header[1:])


def _read_square(path: Path, ending: str, header: list[str]) -> pd.DataFrame:
    from .. import io

    if ending == ".parquet":
        frame = io.read_frame(path)  # names stored as the index come back as the first column
        names = frame.iloc[:, 0].astype(str).where(frame.iloc[:, 0].notna())
    else:
        if len(header) < 2:
            raise ReaderError(
                f"{path} has a single column; a square similarity matrix has the item names in its first column "
                "and one column per item (check the separator: ',' for .csv, tab for .tsv)."
            )
        try:
            frame = io.read_frame(path, text_columns=[0])
        except LongRowError as error:  # said in the words of a square matrix
            if error.width is None:
                raise
            raise ReaderError(
                f"{path} is a square similarity matrix, but its data row {error.row} has {error.width} fields and its "
                f"header has {len(header)}; the header must list every item name once after a first field for the "
                "names' column (which may be empty), and every row its item's name then one similarity per item "
                "(check the separator: ',' for .csv, tab for .tsv)."
            ) from None
        names = frame.iloc[:, 0]
    values = frame.iloc[:, 1:]
    values.columns = [str(column) for column in values.columns]
    if frame.shape[0] == 0:
        raise ReaderError(f"{path} has a header but no rows.")
    return _square(names, values, path)


def _square(names: pd.Series, values: pd.DataFrame, path) -> pd.DataFrame:
    """A square matrix from its row names and its columns of values (named by item), checked; ``path`` names
    the table in messages."""
    if names.isna().any():
        row = int(names.isna().to_numpy().argmax())
        raise InputError(f"{path} has no item name in data row {row + 1} (its first column); name every row.")
    names = [str(name) for name in names]
    refuse_repeated(names, f"{path} names the row")
    columns = list(values.columns)
    if len(names) != len(columns) or set(names) != set(columns):
        if len(names) != len(columns):
            raise ShapeMismatchError(
                f"{path} is not a square matrix: it has {len(names)} rows and {len(columns)} columns of similarities; "
                "a complete matrix has one row and one column per item, with the same names (or give a long table "
                "with columns i, j and value)."
            )
        missing = next(name for name in names if name not in set(columns))
        raise InputError(
            f"{path} is not a square matrix: row {missing!r} has no column of that name; the header must name the "
            "same items as the first column (or give a long table with columns i, j and value)."
        )
    for column in columns:
        if values[column].dtype.kind not in "fiub":
            converted = pd.to_numeric(values[column], errors="coerce")
            bad = converted.isna() & values[column].notna()
            row = int(bad.to_numpy().argmax())
            raise InputError(
                f"{path} has {values[column].iloc[row]!r} in row {names[row]!r}, column {column!r}; similarities "
                "must be numbers in [0, 1]."
            )
    matrix = pd.DataFrame(values.to_numpy(dtype=np.float64), index=pd.Index(names), columns=pd.Index(columns))
    return matrix.loc[:, names]


def _square_from_long(path: Path, columns: dict) -> pd.DataFrame:
    from .. import io

    frame = io.read_frame(path, text_columns=[columns["i"], columns["j"]])
    return _long_to_square(frame, path, columns)


def _long_to_square(frame: pd.DataFrame, path, columns: dict) -> pd.DataFrame:
    check_columns(frame, columns, what=str(path))
    first, second = frame[columns["i"]], frame[columns["j"]]
    for column, names in ((columns["i"], first), (columns["j"], second)):
        if names.isna().any():
            row = int(names.isna().to_numpy().argmax())
            raise InputError(f"{path} has no item name in column {column!r}, data row {row + 1}; name every item.")
    values = _numbers(frame[columns["value"]], path, columns["value"])
    items = list(pd.unique(np.column_stack([first.to_numpy(), second.to_numpy()]).ravel()))
    position = {name: k for k, name in enumerate(items)}
    a = np.array([position[name] for name in first], dtype=np.int64)
    b = np.array([position[name] for name in second], dtype=np.int64)
    off = a != b
    if not off.all():
        row = int(np.flatnonzero(~off)[0])
        raise InputError(
            f"{path} pairs {items[a[row]]!r} with itself in data row {row + 1}; a similarity table pairs two "
            "different items (an item's similarity to itself is 1): drop that row."
        )
    rows = np.flatnonzero(off)
    a, b, values = a[off], b[off], values[off]
    n = len(items)
    matrix = np.full((n, n), np.nan)
    np.fill_diagonal(matrix, 1.0)
    seen = np.full((n, n), -1, dtype=np.int64)
    for k, (i, j, value) in enumerate(zip(a, b, values)):
        if seen[i, j] >= 0:
            raise InputError(
                f"{path} gives the pair ({items[i]!r}, {items[j]!r}) twice (data rows {rows[seen[i, j]] + 1} and "
                f"{rows[k] + 1}); give each pair once."
            )
        seen[i, j] = k
        if seen[j, i] >= 0 and not (matrix[j, i] == value or (np.isnan(matrix[j, i]) and np.isnan(value))):
            raise InputError(
                f"{path} is not symmetric: ({items[j]!r}, {items[i]!r}) is {matrix[j, i]!r} (data row "
                f"{rows[seen[j, i]] + 1}) but ({items[i]!r}, {items[j]!r}) is {float(value)!r} (data row "
                f"{rows[k] + 1}); a similarity does not depend on the order of the pair."
            )
        matrix[i, j] = matrix[j, i] = value
    return pd.DataFrame(matrix, index=pd.Index(items), columns=pd.Index(items))


def _numbers(column: pd.Series, path, name: str) -> np.ndarray:
    """A column as float64; text that is not a number is an error naming its row (empty stays NaN)."""
    if column.dtype.kind in "fiub":
        return column.to_numpy(dtype=np.float64)
    converted = pd.to_numeric(column, errors="coerce")
    bad = converted.isna() & column.notna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise InputError(
            f"{path} has {column.iloc[row]!r} in column {name!r}, data row {row + 1}; a similarity is a number in "
            "[0, 1] (leave it empty when it is not known yet)."
        )
    return converted.to_numpy(dtype=np.float64)


