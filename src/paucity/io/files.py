"""Writing outputs atomically, and checking an output path before any work.

The writers (:func:`write_csv`, :func:`write_text`, :func:`write_figure`, and
:func:`paucity.io.write_h5ad`) write to a temporary file next to the target
and rename it onto the target only once writing succeeded
(:func:`atomic_path`), so a failed command leaves nothing behind and never
half a file. :func:`check_output_path` refuses, before the work starts, a path
that could not be written at the end.

Every CSV paucity writes (:func:`write_csv`, :func:`csv_text`) goes through
:func:`neutralize_formulas`: a text cell that a spreadsheet would run as a
formula (one starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return) is written with a leading ``'``, and paucity's readers remove it again
(:func:`restore_formulas`).
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import ParameterError

if TYPE_CHECKING:  # pandas is imported by whoever passes a DataFrame
    import pandas

__all__ = [
    "FORMULA_STARTS",
    "atomic_path",
    "StagedCopy",
    "file_version",
    "remove_later",
    "check_output_path",
    "csv_text",
    "neutralize_formulas",
    "restore_formulas",
    "write_csv",
    "write_text",
    "write_figure",
]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""The first characters that make a spreadsheet read a text cell as a formula (OWASP, "CSV injection")."""

_QUOTE = "'"


def check_output_path(path, *, option: str = "out", suffixes: tuple[str, ...] | None = None,
                      inputs: dict | None = None) -> Path:
    """Check that ``path`` can be written as a file, before any work is done.

    Parameters
    ----------
    path : str or path-like
        Where a result will be written.
    option : str
        How the user named it (``"--out"`` on the command line), for the message.
    suffixes : tuple of str, optional
        Accepted file name endings (lower case), e.g. ``(".json",)``.
    inputs : dict, optional
        The files the command reads, ``{how the user named it: path}``: an
        output that is one of them is refused (writing it would replace the
        input with the result).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        The path is a folder, ends with a path separator, its folder does not
        exist or cannot be written, or it has another ending than ``suffixes``.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_output_path(folder, option="--out")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: --out ... is a folder; give a file path such as ....
    """
    text = os.fspath(path)
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.is_dir():
        example = path / "result"
        raise ParameterError(f"{option} {text} is a folder; give a file path such as {example}.")
    folder = path.parent
    if not folder.is_dir():
        raise ParameterError(f"the folder of {option} ({folder}) does not exist; create it first.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ParameterError(f"{option} {text} cannot be written: no permission to write in {folder}.")
    if path.exists() and not os.access(path, os.W_OK):
        raise ParameterError(f"{option} {text} exists and cannot be overwritten (no write permission).")
    if suffixes is not None and not path.name.lower().endswith(tuple(suffixes)):
        raise ParameterError(f"{option} {text} must end with {' or '.join(suffixes)}.")
    for name, source in (inputs or {}).items():
        if source is not None and Path(source).exists() and path.exists() and path.resolve() == Path(source).resolve():
            raise ParameterError(f"{option} {text} is also {name}, which the command reads; writing it would replace "
                                 "the input with the result. Give another file.")
    return path


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


#: Bytes of a staged copy made at a time.
COPY_PIECE = 32 * 2**20


def _copy_range(source: int, target: int, offset: int, count: int) -> int:
    """Copy ``count`` bytes at ``offset`` from one open file to the other, in the kernel where it can; returns
    the bytes copied (0 at the end of the source)."""
    try:
        return os.copy_file_range(source, target, count, offset, offset)
    except (AttributeError, OSError):  # another system, or file systems that do not allow it
        os.lseek(source, offset, os.SEEK_SET)
        data = os.read(source, count)
        os.lseek(target, offset, os.SEEK_SET)
        return os.write(target, data)


def file_version(path) -> tuple | None:
    """What changes when a file is replaced or written: its inode, size and modification time (None: no file).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> file_version(target) is None
    True
    >>> _ = target.write_text("done")
    >>> len(file_version(target))
    3
    """
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


class StagedCopy:
    """A copy of a file made ahead of time, in a background thread, to be changed and swapped in at the next write.

    A program that rewrites a large file atomically (copy, change the copy, rename it onto the file) makes
    the copy when it starts and after each write, while the person is busy elsewhere; the write itself then
    only changes the copy and renames it. :meth:`take` hands the copy over only when the file is still the
    one copied (same inode, size and modification time before and after the copy), so a file that another
    program replaced or wrote meanwhile is never overwritten with an old copy: the caller copies it then.

    The copy is a hidden file beside the original, named after this process
    (``.<name>.paucity-staged-<pid>-<random>``). :meth:`discard` removes it; a copy left by a process that no longer
    runs (killed) is removed by :meth:`remove_stale`.

    Parameters
    ----------
    path : str or path-like
        The file to copy.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "cells.h5ad"
    >>> _ = target.write_text("version 1")
    >>> staged = StagedCopy(target).start()
    >>> copy = staged.take()
    >>> copy.read_text()
    'version 1'
    >>> _ = target.write_text("version 2, written by someone else")
    >>> staged = StagedCopy(target).start()
    >>> _ = target.write_text("version 3")       # changed after the copy began: no copy is handed over
    >>> staged.take() is None
    True
    """

    def __init__(self, path):
        self.path = Path(path)
        self.copy = self.path.with_name(f".{self.path.name}.paucity-staged-{os.getpid()}-{secrets.token_hex(4)}")
        self._thread: threading.Thread | None = None
        self._ready = False
        self._before = None  # the version of the file copied
        self._stop = False

    def start(self) -> "StagedCopy":
        """Begin copying in a background thread; returns ``self``. The thread runs at the lowest CPU priority
        (where the system allows), so that the program's own work goes first on a busy machine."""
        self._thread = threading.Thread(target=self._make, name="paucity-staged-copy", daemon=True)
        self._thread.start()
        return self

    def _make(self) -> None:
        try:  # on Linux a thread's niceness is its own
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except (AttributeError, OSError):
            pass
        before = file_version(self.path)
        try:
            self._copy_gently()
        except OSError:  # a full disk, a read-only folder: the next write copies the file itself
            self.copy.unlink(missing_ok=True)
            return
        self._before = before
        self._ready = before is not None and file_version(self.path) == before

    def _copy_gently(self) -> None:
        """Copy the file piece by piece (a discarded copy stops at the next piece), then put it on the disk
        (renaming a file whose blocks are not yet allocated onto another makes the file system, ext4's
        ``auto_da_alloc``, write it out then: 0.2 s per 400 MB of the save). Resting between the pieces, to
        leave the program more of the machine, made a 2 GB copy take half a minute on a slow disk, and a save
        in that time waited up to 2.8 s for it; at full speed it is done in seconds."""
        with open(self.path, "rb") as source, open(self.copy, "wb") as target:
            size = os.fstat(source.fileno()).st_size
            done = 0
            while done < size:
                if self._stop:  # discarded: the copy is not wanted
                    raise OSError("the copy was discarded")
                sent = _copy_range(source.fileno(), target.fileno(), done, min(COPY_PIECE, size - done))
                if sent == 0:  # the file shrank while it was copied: take() will not hand it over
                    break
                done += sent
            os.fsync(target.fileno())
        shutil.copystat(self.path, self.copy)

    def take(self) -> Path | None:
        """The copy, now the caller's to change and rename, if the file is still the one copied; else None.

        Waits for a copy still being made.
        """
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._ready and file_version(self.path) == self._before:
            self._ready = False
            return self.copy
        self._ready = False
        self.copy.unlink(missing_ok=True)
        return None

    def discard(self) -> None:
        """Stop a copy still being made, and remove it."""
        if self._thread is not None:
            self._stop = True
            self._thread.join()
            self._thread = None
        self._ready = False
        self.copy.unlink(missing_ok=True)

    @staticmethod
    def remove_stale(path) -> list[Path]:
        """Remove the copies of ``path`` (and files waiting for :func:`remove_later`) left by processes that no
        longer run; returns what was removed."""
        path = Path(path)
        removed = []
        for prefix in (f".{path.name}.paucity-staged-", f".{path.name}.bak.paucity-old-"):
            for found in path.parent.glob(glob.escape(prefix) + "*"):
                pid = found.name[len(prefix):].partition("-")[0]
                if pid.isdigit() and not _alive(int(pid)):
                    found.unlink(missing_ok=True)
                    removed.append(found)
        return removed


def remove_later(path) -> None:
    """Remove ``path`` in a background thread.

    Removing the last link of a large file frees its blocks, which takes the file system about 0.1 s per
    400 MB (ext4): time a person should not wait for. A file given here is best named
    ``.<name>.bak.paucity-old-<pid>-<anything>`` beside ``<name>``, so that :meth:`StagedCopy.remove_stale` removes
    one that a killed process left.
    """
    threading.Thread(target=Path(path).unlink, kwargs={"missing_ok": True}, name="paucity-remove",
                     daemon=True).start()


def _neutralized(value):
    """A text value with ``'`` before a formula's first character; anything else as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return _QUOTE + value
    return value


def _neutralized_labels(index: "pandas.Index") -> "pandas.Index":
    """An index (or header) whose text labels and level names are neutralized."""
    import pandas as pd

    if isinstance(index, pd.MultiIndex):
        levels = [_neutralized_labels(index.get_level_values(k)) for k in range(index.nlevels)]
        return pd.MultiIndex.from_arrays(levels, names=[_neutralized(name) for name in index.names])
    if index.dtype.kind == "O" or isinstance(index.dtype, (pd.StringDtype, pd.CategoricalDtype)):
        index = index.map(_neutralized)
    return index.set_names(_neutralized(index.name))


def _neutralized_values(column: "pandas.Series") -> "pandas.Series":
    """A column whose text cells are neutralized; numbers, booleans and dates are returned as they are."""
    import pandas as pd

    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = dtype.categories
        if not (categories.dtype.kind == "O" or isinstance(categories.dtype, pd.StringDtype)):
            return column
        renamed = categories.map(_neutralized)
        if renamed.equals(categories):
            return column
        if renamed.has_duplicates:  # both "=a" and "'=a" are categories: write the column as text
            return column.astype(object).map(_neutralized)
        return column.cat.rename_categories(renamed)
    if isinstance(dtype, pd.StringDtype):
        return column.map(_neutralized, na_action="ignore").astype(dtype)
    if dtype.kind == "O":
        return column.map(_neutralized, na_action="ignore")
    return column


def neutralize_formulas(frame: "pandas.DataFrame") -> "pandas.DataFrame":
    """A copy of ``frame`` whose text cells cannot run as spreadsheet formulas.

    A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
    carriage return (:data:`FORMULA_STARTS`) is opened by Excel and LibreOffice
    as a formula ("CSV injection"); it gets a leading ``'``, which spreadsheets
    read as "text follows". Text cells are those of object and string columns,
    the string categories of categorical columns, and the text labels of the
    index and of the header (with the names of their levels). Numbers,
    booleans and dates are never changed: ``-0.5`` in a float column stays
    ``-0.5``. Other text is left as it is.

    Parameters
    ----------
    frame : pandas.DataFrame or pandas.Series

    Returns
    -------
    pandas.DataFrame or pandas.Series
        A new object; ``frame`` is not changed.

    See Also
    --------
    restore_formulas : what paucity's readers do to undo it.

    Notes
    -----
    Reading the file back with :func:`paucity.io.read_frame` (text columns)
    removes the ``'``. A text that already starts with ``'`` and then a
    formula character is written as it is, so it cannot be told apart from
    a neutralized one: read back, it loses its ``'``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"item": ["=SUM(A1:A2)", "-b", "c"], "score": [-0.5, 1.0, 2.0]})
    >>> neutralize_formulas(frame)
               item  score
    0  '=SUM(A1:A2)   -0.5
    1           '-b    1.0
    2             c    2.0
    """
    import pandas as pd

    if isinstance(frame, pd.Series):
        result = _neutralized_values(frame).copy()
        result.index = _neutralized_labels(frame.index)
        return result.rename(_neutralized(frame.name))
    result = frame.copy()
    for position in range(result.shape[1]):
        column = result.iloc[:, position]
        changed = _neutralized_values(column)
        if changed is not column:
            result.isetitem(position, changed)
    result.index = _neutralized_labels(result.index)
    result.columns = _neutralized_labels(result.columns)
    return result


def restore_formulas(values: "pandas.Series") -> "pandas.Series":
    """Undo :func:`neutralize_formulas` on text read back: ``'`` before a formula character is removed.

    A text cell that starts with ``'`` followed by ``=``, ``+``, ``-``, ``@``,
    a tab or a carriage return loses that first ``'``; any other cell
    (missing, numbers, other text) is returned as it is. A name that really
    starts with ``'=`` (or ``'`` and another formula character) cannot be
    told apart from a neutralized one and loses its ``'`` too.

    Parameters
    ----------
    values : pandas.Series, pandas.Index or sequence of str

    Returns
    -------
    pandas.Series or pandas.Index
        Of the same kind as ``values`` (a sequence gives a Series).

    Examples
    --------
    >>> import pandas as pd
    >>> restore_formulas(pd.Series(["'=SUM(A1:A2)", "'-b", "'quoted", "c"])).tolist()
    ['=SUM(A1:A2)', '-b', "'quoted", 'c']
    """
    import pandas as pd

    if not isinstance(values, (pd.Series, pd.Index)):
        values = pd.Series(list(values), dtype=object)
    return values.map(_restored)


def _restored(value):
    if isinstance(value, str) and value.startswith(_QUOTE) and value[1:2] in FORMULA_STARTS:
        return value[1:]
    return value


def _prepared(frame: "pandas.DataFrame", kwargs: dict) -> tuple["pandas.DataFrame", dict]:
    """The neutralized frame and ``to_csv``'s arguments that name its columns or header, neutralized alike."""
    kwargs = dict(kwargs)
    columns = kwargs.pop("columns", None)
    if columns is not None:  # chosen by their names before the names change
        frame = frame.loc[:, list(columns)] if not isinstance(columns, str) else frame.loc[:, [columns]]
    if not isinstance(kwargs.get("header", True), bool):
        kwargs["header"] = [_neutralized(name) for name in kwargs["header"]]
    label = kwargs.get("index_label")
    if label is not None and label is not False:
        kwargs["index_label"] = _neutralized(label) if isinstance(label, str) else [_neutralized(x) for x in label]
    if "lineterminator" not in kwargs and "quoting" not in kwargs and _holds_carriage_return(frame):
        # the csv module quotes a field only when it holds a character of the line ending: a text with a carriage
        # return left bare would be read back as two lines
        kwargs["lineterminator"] = "\r\n"
    return neutralize_formulas(frame), kwargs


def _holds_carriage_return(frame) -> bool:
    """Whether a text cell, category, index or header label of ``frame`` contains a carriage return."""
    import pandas as pd

    def text(values) -> bool:
        return any(isinstance(value, str) and "\r" in value for value in values)

    labels = [frame.index] + ([frame.columns] if isinstance(frame, pd.DataFrame) else [])
    for index in labels:
        for level in range(index.nlevels):
            if text(index.get_level_values(level).unique()) or text([index.names[level]]):
                return True
    columns = [frame.iloc[:, k] for k in range(frame.shape[1])] if isinstance(frame, pd.DataFrame) else [frame]
    for column in columns:
        if isinstance(column.dtype, pd.CategoricalDtype):
            if text(column.cat.categories):
                return True
        elif (column.dtype.kind == "O" or isinstance(column.dtype, pd.StringDtype)) and text(column):
            return True
    return text([getattr(frame, "name", None)])


def csv_text(frame: "pandas.DataFrame", **to_csv_kwargs) -> str:
    """The CSV text of a DataFrame, its formula cells neutralized, for a download.

    :func:`neutralize_formulas`, then :meth:`pandas.DataFrame.to_csv`; keyword
    arguments go to ``to_csv`` (``columns``, ``header`` and ``index_label``
    name the columns as in ``frame``).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"gene": ['=HYPERLINK("http://x","y")', "CD3E"], "score": [-0.5, 2.0]})
    >>> print(csv_text(table, index=False), end="")
    gene,score
    "'=HYPERLINK(""http://x"",""y"")",-0.5
    CD3E,2.0
    """
    frame, kwargs = _prepared(frame, to_csv_kwargs)
    return frame.to_csv(None, **kwargs)


def write_csv(df: "pandas.DataFrame", path, **kwargs) -> None:
    """Write a DataFrame with :meth:`pandas.DataFrame.to_csv`, atomically, its formula cells neutralized.

    Keyword arguments go to ``to_csv``; a ``.gz`` path is compressed. Text
    cells, index and header labels that a spreadsheet would run as a formula
    get a leading ``'`` (:func:`neutralize_formulas`); numbers are written as
    they are. :func:`paucity.io.read_frame` removes the ``'`` again.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> write_csv(pd.DataFrame({"gene": ["CD3E", "-x"], "score": [0.5, -1.0]}), target, index=False)
    >>> print(target.read_text(), end="")
    gene,score
    CD3E,0.5
    '-x,-1.0
    """
    df, kwargs = _prepared(df, kwargs)
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
