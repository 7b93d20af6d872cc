"""Reading long-format tables (comparisons, judgments, labels) into pandas, without AnnData."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .._errors import ReaderError
from .._extras import require
from .files import restore_formulas
from .formats import MISSING_MARKERS, SEPARATORS, check_unique_columns, existing_file, file_ending, reading, table_endings

__all__ = ["read_frame"]


def read_frame(path, *, text_columns: Sequence[str] = ()) -> pd.DataFrame:
    """Read a long-format table (.csv/.tsv/.txt, optionally gzipped, or .parquet) into a DataFrame.

    Columns keep their names; nothing is used as the index. Identifier and
    label columns named in ``text_columns`` are read as text, as written:
    ``"00024"`` stays ``"00024"`` (not 24), and ``NA``, ``None``, ``null`` or
    ``nan`` are names like any other, not missing values (an empty field is
    still missing). Other columns are parsed as pandas does. Parquet files
    keep their stored types.

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

    Raises
    ------
    ReaderError
        The file is missing, empty, has no rows, cannot be parsed, or has two
        columns of the same name.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "games.csv").write_text("home,away,winner\\n00024,NA,NA\\n")
    >>> frame = read_frame(folder / "games.csv", text_columns=["home", "away", "winner"])
    >>> frame.columns.tolist(), frame.iloc[0].tolist()
    (['home', 'away', 'winner'], ['00024', 'NA', 'NA'])
    """
    path = existing_file(Path(path))
    ending = file_ending(path, table_endings() + (".parquet",))
    if ending == ".parquet":
        require("pyarrow", f"reading {path.name}")
        with reading(path, "a parquet file"):
            frame = pd.read_parquet(path)
        check_unique_columns(list(frame.columns), path)
    else:
        sep = SEPARATORS[ending.removesuffix(".gz")]
        with reading(path, "a table"):
            header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
        written = [str(name) for name in header.iloc[0]] if len(header) else []
        restored = list(restore_formulas(written))  # the names before paucity's writer neutralized them
        check_unique_columns(restored, path)
        # an empty header field (a written index) is named as pandas names it
        written = [name if name != "" else f"Unnamed: {k}" for k, name in enumerate(written)]
        restored = [name if name != "" else f"Unnamed: {k}" for k, name in enumerate(restored)]
        text = [raw for raw, name in zip(written, restored) if name in set(text_columns)]
        with reading(path, "a table"):
            frame = pd.read_csv(
                path,
                sep=sep,
                dtype={name: str for name in text},
                keep_default_na=False,
                na_values={name: MISSING_MARKERS for name in written if name not in text},
            )
            for name in text:  # an empty field is missing, as in every other column
                frame[name] = restore_formulas(frame[name].mask(frame[name] == ""))
        frame = frame.rename(columns={raw: name for raw, name in zip(written, restored) if raw != name})
    if frame.shape[0] == 0:
        raise ReaderError(f"{path} has a header but no rows.")
    return frame
