"""File names and formats shared by the readers: endings, separators, and errors that name the file."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from .._errors import PaucityError, ReaderError

__all__ = ["SUPPORTED_FORMATS", "SEPARATORS", "MISSING_MARKERS", "table_endings", "check_unique_columns", "existing_file",
           "file_ending", "reading", "separator", "text_encoding", "MAX_COLUMNS"]

#: The widest table header read (a wider one is refused at once, not parsed for minutes).
MAX_COLUMNS = 200_000
_GZIP = b"\x1f\x8b"
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))

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
    if path.is_dir():
        raise ReaderError(f"{path} is a folder; give a file.")
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


def text_encoding(path: Path) -> str:
    """How a text table is encoded: UTF-8, or what its byte-order mark says (a spreadsheet's "Unicode text" is
    UTF-16 with one, its "CSV UTF-8" UTF-8 with one). Gzip data under a name without ``.gz`` is refused, saying so.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,b\\n1,2\\n", encoding="utf-16")
    >>> text_encoding(path)
    'utf-16'
    """
    import gzip

    with open(path, "rb") as handle:
        start = handle.read(4)
    if start.startswith(_GZIP):
        if not path.name.lower().endswith(".gz"):
            raise ReaderError(f"{path} is gzip-compressed data under a name without .gz; name it {path.name}.gz "
                              "(paucity reads .csv.gz, .tsv.gz and .txt.gz), or decompress it (gunzip).")
        with gzip.open(path, "rb") as handle:
            start = handle.read(4)
    return next((encoding for bom, encoding in _BOMS if start.startswith(bom)), "utf-8")


@contextmanager
def reading(path: Path, what: str):
    """Turn a library's exception into a ReaderError naming the file (text in another encoding than UTF-8 said in
    words, with how to convert it)."""
    try:
        yield
    except PaucityError:
        raise
    except UnicodeError as exc:
        where = f" (byte {exc.object[exc.start:exc.start + 1].hex()} at position {exc.start})" \
            if isinstance(exc, UnicodeDecodeError) else ""
        raise ReaderError(
            f"{path} is not UTF-8 text{where}: save it as UTF-8 (a spreadsheet's \"CSV UTF-8\" or \"Unicode text\"), "
            f"or convert it, e.g. iconv -f latin1 -t utf-8 {path.name} > utf8-{path.name}."
        ) from None
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
