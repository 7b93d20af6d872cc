"""File names and formats shared by the readers: endings, separators, and errors that name the file."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from .._errors import PaucityError, ReaderError

__all__ = ["SUPPORTED_FORMATS", "SEPARATORS", "MISSING_MARKERS", "table_endings", "check_unique_columns", "existing_file", "file_ending", "reading", "separator"]

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
"""The file name endings :func:`paucity.io.read` accepts (besides 10x folders)."""

SEPARATORS = {".csv": ",", ".tsv": "\t", ".txt": r"\s+"}
"""The field separator of each table ending."""

MISSING_MARKERS = sorted(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
     "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)
"""pandas' default missing-value markers: applied to numeric columns only, never to names read as text."""


def table_endings() -> tuple[str, ...]:
    """The endings of delimited tables, plain and gzipped."""
    return tuple(ext + gz for ext in SEPARATORS for gz in ("", ".gz"))


def existing_file(path: Path) -> Path:
    """``path``, once it is known to exist and not to be empty."""
    if not path.exists():
        raise ReaderError(f"{path} does not exist. Check the path and the current directory ({Path.cwd()}).")
    if path.stat().st_size == 0:
        raise ReaderError(f"{path} is empty.")
    return path


def file_ending(path: Path, endings: tuple[str, ...], *, also: str = "") -> str:
    """The one of endings the file name ends with (case-insensitive)."""
    name = path.name.lower()
    for ending in sorted(endings, key=len, reverse=True):
        if name.endswith(ending):
            return ending
    raise ReaderError(f"{path} has an unknown extension; expected {', '.join(endings)}{also}.")


@contextmanager
def reading(path: Path, what: str):
    """Turn a library's exception into a ReaderError naming the file."""
    try:
        yield
    except PaucityError:
        raise
    except Exception as exc:
        raise ReaderError(f"could not read {path} as {what}: {type(exc).__name__}: {exc}") from None


def separator(path: Path) -> str:
    """The field separator of a table file, from its ending."""
    return SEPARATORS[file_ending(path, table_endings()).removesuffix(".gz")]


def check_unique_columns(names, path: Path) -> None:
    """Refuse a table whose header names two columns alike (pandas would rename one silently)."""
    seen: set = set()
    for name in names:
        if name in seen:
            raise ReaderError(
                f"{path} has two columns named {name!r}; rename one so that every column has its own name."
            )
        seen.add(name)
