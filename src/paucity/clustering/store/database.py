"""Where a store lives: an SQLite file (write-ahead log) or a PostgreSQL server, and one transaction at a time.

:func:`resolve_database` turns what a user gives (a path, a URL) into an
SQLAlchemy URL, refusing what cannot hold a session; :func:`new_engine` opens
it (SQLite in WAL mode, transactions that will write begun ``IMMEDIATE``);
:func:`locked_transaction` is the one transaction a writer holds the store's
write lock in. SQLAlchemy is imported only when a store is opened.
"""

from __future__ import annotations

import contextlib
import os
import time as _time
from pathlib import Path

from ..._errors import ParameterError, ReaderError

__all__ = ["resolve_database", "shown_url", "new_engine", "transaction", "remove_new_file", "reason", "objects",
           "POSTGRES_DRIVER", "BUSY_TIMEOUT_MS"]

#: The driver a ``postgresql://`` URL is opened with (the ``postgres`` extra installs it).
POSTGRES_DRIVER = "psycopg"
#: The key of PostgreSQL's transaction-scoped advisory lock that serializes the writers of a store.
LOCK_KEY = 0x70617563697479  # "paucity" in ASCII
#: How long a writer waits for the write lock of an SQLite store before giving up, in milliseconds.
BUSY_TIMEOUT_MS = 60_000
#: How long to wait for a PostgreSQL server to answer a new connection, in seconds (the driver's default waits on:
#: a server that accepts the connection and never answers held a command for two minutes).
CONNECT_TIMEOUT_S = 10
_SUFFIXES = ("-wal", "-shm", "-journal")


@contextlib.contextmanager
def transaction(engine, *, shown: str, lock: bool = False):
    """A connection in one transaction, committed when the block ends (rolled back if it raises).

    With ``lock`` the transaction holds the store's write lock from its
    start to its end: no other writer runs meanwhile, in any process.
    SQLite: ``BEGIN IMMEDIATE`` (a writer waits up to a minute for
    another to finish); PostgreSQL: a transaction-scoped advisory lock.
    Readers are never blocked (SQLite's WAL, PostgreSQL's MVCC). ``shown``
    names the database in messages.
    """
    import sqlalchemy as sa

    dialect = engine.dialect.name
    try:
        with engine.connect() as connection:
            if lock and dialect == "sqlite":
                connection.execution_options(paucity_immediate=True)
            with connection.begin():
                if lock and dialect == "postgresql":
                    connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
                yield connection
    except sa.exc.OperationalError as exc:
        text = reason(exc)
        if "timeout" in text and dialect == "postgresql":
            raise ReaderError(unreachable(engine.url, text)) from None
        if "locked" in text or "busy" in text:
            raise ReaderError(
                f"{shown} stayed busy for {BUSY_TIMEOUT_MS // 1000} s (another process held its write "
                "lock); try again."
            ) from None
        raise ReaderError(f"cannot use {shown}: {text}") from None


def resolve_database(database, *, owner: str) -> tuple[str, Path | None]:
    """The SQLAlchemy URL of ``database`` (a path or a URL) and the SQLite file's path (None for a server).

    Refuses, with one line each: what is neither a path nor a URL, a folder,
    a missing folder, a folder that cannot be written (SQLite keeps its
    write-ahead log beside the file), a database other than SQLite and
    PostgreSQL, and a PostgreSQL URL without its driver.
    """
    if hasattr(database, "url") and hasattr(database, "path"):  # a MeasurementStore
        return database.url, database.path
    if not isinstance(database, (str, os.PathLike)):
        raise ParameterError(f"{owner}: database must be a file path or an SQLAlchemy URL, got {database!r}.")
    text = os.fspath(database)
    if "://" not in text:
        path = _checked_file(Path(text), owner=owner)
        return f"sqlite:///{path}", path
    scheme = text.split("://", 1)[0].lower()
    dialect, _, driver = scheme.partition("+")
    if dialect == "sqlite":
        rest = text.split("://", 1)[1]
        if rest in ("", "/") or rest.startswith("/:memory:"):
            raise ParameterError(
                f"{owner}: {text!r} is an in-memory database, which no other process can share and which is lost "
                "when the process ends; give a file."
            )
        path = Path(rest[1:])
        checked = _checked_file(path, owner=owner)
        return f"sqlite:///{checked}", checked
    if dialect in ("postgresql", "postgres"):
        if driver and driver != POSTGRES_DRIVER:
            raise ParameterError(
                f"{owner}: {shown_url(text)} names the driver {driver!r}; paucity opens PostgreSQL with "
                f"{POSTGRES_DRIVER} (write postgresql://... or postgresql+{POSTGRES_DRIVER}://...)."
            )
        import importlib.util

        if importlib.util.find_spec(POSTGRES_DRIVER) is None:
            raise ParameterError(
                f"{owner}: a postgresql:// URL needs the PostgreSQL driver {POSTGRES_DRIVER}, which is not "
                "installed; install it with: pip install 'paucity[postgres]'."
            )
        return f"postgresql+{POSTGRES_DRIVER}://" + text.split("://", 1)[1], None
    raise ParameterError(
        f"{owner}: {shown_url(text)} is a {dialect} database; a session lives in an SQLite file (a path) or on a "
        "PostgreSQL server (postgresql://user@host/name)."
    )


def _checked_file(path: Path, *, owner: str) -> Path:
    path = path.expanduser()
    if path.is_dir():
        raise ParameterError(f"{owner}: {path} is a directory; give the path of a database file.")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.exists():
        raise ParameterError(f"{owner}: the folder of {path} does not exist; create it or choose another path.")
    resolved = path.resolve()
    if not os.access(resolved.parent, os.W_OK | os.X_OK):
        raise ParameterError(
            f"{owner}: the folder {resolved.parent} cannot be written, and an SQLite database needs to write beside "
            "its file (its write-ahead log); move the database to a folder you can write, or make this one writable."
        )
    if resolved.exists() and not os.access(resolved, os.R_OK | os.W_OK):
        raise ParameterError(f"{owner}: {resolved} cannot be read and written; check its permissions.")
    return resolved


def shown_url(url: str) -> str:
    """A URL as messages show it: the password hidden.

    Examples
    --------
    >>> shown_url("postgresql+psycopg://ann:secret@db.lab/photos")
    'postgresql+psycopg://ann:***@db.lab/photos'
    """
    try:
        import sqlalchemy as sa

        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:  # a URL SQLAlchemy cannot parse is shown up to its host
        head, _, rest = url.partition("://")
        return f"{head}://{rest.rsplit('@', 1)[-1]}"


def engine_options(url: str) -> dict:
    """The options of an engine on ``url``: a connection timeout on PostgreSQL (:data:`CONNECT_TIMEOUT_S`)."""
    if url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres"):
        return {"connect_args": {"connect_timeout": CONNECT_TIMEOUT_S}}
    return {}


def new_engine(url: str):
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(url, **engine_options(url))
    except Exception as exc:  # a malformed URL
        raise ParameterError(f"cannot use the database URL {shown_url(url)!r}: {reason(exc)}") from None
    if engine.dialect.name == "sqlite":

        @sa.event.listens_for(engine, "connect")
        def _write_ahead_log(connection, _record):
            connection.isolation_level = None  # transactions are begun below, IMMEDIATE when they will write
            cursor = connection.cursor()
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            _write_ahead(cursor)
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @sa.event.listens_for(engine, "begin")
        def _begin(connection):
            immediate = connection.get_execution_options().get("paucity_immediate", False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _write_ahead(cursor) -> None:
    """Put the database in WAL mode. A new file changes mode under an exclusive lock, for which SQLite does not
    wait: when another process holds the file (it is creating the same session), try again until it lets go."""
    import sqlite3

    deadline = _time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.001
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or _time.monotonic() > deadline:
                raise
        _time.sleep(pause)
        pause = min(pause * 2, 0.05)


def objects(connection) -> set[str]:
    import sqlalchemy as sa

    inspector = sa.inspect(connection)
    return set(inspector.get_table_names()) | set(inspector.get_view_names())


def remove_new_file(path: Path | None, existed: bool, size: int) -> None:
    """Undo the creation of an SQLite file by a call that failed: remove it (or empty it again) and its journals."""
    if path is None:
        return
    if not existed:
        path.unlink(missing_ok=True)
    elif size == 0 and path.exists():
        path.write_bytes(b"")
    for suffix in _SUFFIXES:
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def unreachable(url, text: str) -> str:
    """What a connection that timed out is told: the server's host and port, and the time waited."""
    import sqlalchemy as sa

    parsed = sa.engine.make_url(str(url)) if not hasattr(url, "host") else url
    where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
    return (f"the PostgreSQL server at {where} did not answer within {CONNECT_TIMEOUT_S} s ({text}); check the host, "
            "the port and that the server runs.")


def reason(exc) -> str:
    """The driver's own words, on one line."""
    original = getattr(exc, "orig", None)
    text = str(original if original is not None else exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
