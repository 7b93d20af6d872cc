"""Writing outputs atomically, and checking an output path before any work.

The writers (:func:`write_csv`, :func:`write_text`, :func:`write_figure`, and
:func:`paucity.io.write_h5ad`) write to a temporary file next to the target
and rename it onto the target only once writing succeeded
(:func:`atomic_path`), so a failed command leaves nothing behind and never
half a file. :func:`check_output_path` refuses, before the work starts, a path
that could not be written at the end.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import ParameterError

if TYPE_CHECKING:  # pandas is imported by whoever passes a DataFrame
    import pandas

__all__ = ["atomic_path", "check_output_path", "write_csv", "write_text", "write_figure"]


def check_output_path(path, *, option: str = "out", suffixes: tuple[str, ...] | None = None) -> Path:
    """Check that ``path`` can be written as a file, before any work is done.

    Parameters
    ----------
    path : str or path-like
        Where a result will be written.
    option : str
        How the user named it (``"--out"`` on the command line), for the message.
    suffixes : tuple of str, optional
        Accepted file name endings (lower case), e.g. ``(".json",)``.

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


def write_csv(df: "pandas.DataFrame", path, **kwargs) -> None:
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
