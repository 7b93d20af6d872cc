"""Recognizing a store's database: a new one, one of another program, a damaged or newer one, an older one.

A MeasurementStore is opened only on a database that is empty or was written
by a MeasurementStore: :func:`look` reads what a database holds without
writing anything (another program's database must not even get a WAL file),
:func:`check_format` refuses what is not a store of a version this paucity
reads, :func:`initialize` creates a new store's tables and :func:`upgrade`
brings an older store to this version, in one transaction.
"""

from __future__ import annotations

from ..._errors import ReaderError
from .database import BUSY_TIMEOUT_MS, engine_options, objects, reason, unreachable

__all__ = ["STORE_FORMAT", "STORE_VERSION", "look", "check_format", "initialize", "upgrade", "empty_word",
           "metadata_in", "write_metadata"]

#: What the store writes in its ``paucity_store`` table, to recognize its own databases.
STORE_FORMAT = "paucity.clustering measurement store"
#: 2: pending asks name the annotator who holds them (and until when); skipped pairs have a table.
#: 3: annotators (hashed access tokens, paused or revoked, answers excluded), gold pairs and their answers, and the
#: keys of the requests that recorded answers (a request sent twice records once).
#: 4: a request key keeps a digest of its request (a key reused by another request is refused); an annotator's
#: row says why they were paused and since when the quality rule counts; the coordinator's adjudications.
STORE_VERSION = 4
_TABLES = ("paucity_store", "paucity_measurements", "paucity_pending", "paucity_skips", "paucity_annotators",
           "paucity_gold", "paucity_gold_answers", "paucity_request_keys", "paucity_adjudications")
_V1_TABLES = ("paucity_store", "paucity_measurements", "paucity_pending")


def empty_word(path) -> str:
    """How a message names a database that holds nothing."""
    if path is not None and not path.exists():
        return "a file that does not exist"
    return "an empty file" if path is not None else "an empty database"

def look(url: str, path, shown: str) -> dict[str, str]:
    """The objects the database holds now ({name: type}), read without writing anything."""
    import sqlalchemy as sa

    if path is not None:
        if not path.exists() or path.stat().st_size == 0:
            return {}
        import sqlite3

        try:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error as exc:
            raise ReaderError(f"cannot open {shown}: {exc}") from None
        try:
            rows = connection.execute(
                "SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise ReaderError(f"{shown} is not a database a MeasurementStore can open: {exc}") from None
        finally:
            connection.close()
        return {str(name): str(kind) for name, kind in rows}
    engine = sa.create_engine(url, **engine_options(url))
    try:
        inspector = sa.inspect(engine)
        found = {name: "table" for name in inspector.get_table_names()}
        found.update({name: "view" for name in inspector.get_view_names()})
        return found
    except sa.exc.SQLAlchemyError as exc:
        text = reason(exc)
        if "timeout" in text:
            raise ReaderError(unreachable(url, text)) from None
        raise ReaderError(f"cannot open {shown}: {text}") from None
    finally:
        engine.dispose()

def check_format(existing: dict[str, str], read_metadata, shown: str) -> int:
    """The version of a database that holds something: refuse another program's, a damaged or newer one."""
    if existing.get("paucity_store") != "table":
        tables = sorted(name for name, kind in existing.items() if kind == "table")
        views = sorted(name for name, kind in existing.items() if kind == "view")
        if tables:
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            held = f"the tables {shown}"
        elif views:
            shown = ", ".join(views[:5]) + (", ..." if len(views) > 5 else "")
            held = f"the views {shown}"
        else:
            held = "indexes or triggers of its own"
        raise ReaderError(
            f"{shown} was written by another program (it has {held} and no paucity_store table); give a new "
            "file, or the database of an earlier paucity session."
        )
    meta = read_metadata()
    if meta.get("format") != STORE_FORMAT or set(_V1_TABLES) - set(existing):
        raise ReaderError(
            f"{shown} was written by another program (its paucity_store table does not describe a "
            "measurement store); give a new file, or the database of an earlier paucity session."
        )
    text = meta.get("version")
    try:
        version = int(str(text).strip())
    except (TypeError, ValueError):
        version = None
    if version is None or version < 1:
        raise ReaderError(
            f"{shown} is damaged: its store version is {text!r}, not a version paucity wrote; restore the "
            "database from a copy, or start a new one."
        )
    if version > STORE_VERSION:
        raise ReaderError(
            f"{shown} was written by a newer paucity (store version {version}, this one reads up to "
            f"{STORE_VERSION}); upgrade paucity."
        )
    if version == STORE_VERSION and set(_TABLES) - set(existing):
        missing = ", ".join(sorted(set(_TABLES) - set(existing)))
        raise ReaderError(f"{shown} is damaged: it lacks the table(s) {missing}; restore it from a copy.")
    return version

def initialize(connection, tables: dict, shown: str) -> None:
    """Create the tables of a new store (inside the write lock, so that two processes create them once)."""
    found = objects(connection)
    if found:  # another process made it while this one waited for the lock
        if "paucity_store" not in found:
            raise ReaderError(f"{shown} was written by another program while paucity opened it.")
        return
    metadata = tables["store"].metadata
    metadata.create_all(connection)
    connection.execute(
        tables["store"].insert(),
        [{"key": "format", "value": STORE_FORMAT}, {"key": "version", "value": str(STORE_VERSION)}],
    )

def upgrade(connection, tables: dict) -> None:
    """Bring an older store to this version: annotators and leases on pending asks (2), and the tables of
    skips (2), annotators, gold pairs and request keys (3), and adjudications and the new columns of the
    annotators and request keys (4)."""
    import sqlalchemy as sa

    meta = metadata_in(connection, tables["store"])
    if int(meta.get("version", "0")) >= STORE_VERSION:
        return  # another process upgraded it while this one waited
    pending = sa.inspect(connection).get_columns("paucity_pending")
    names = {column["name"] for column in pending}
    if "annotator" not in names:
        connection.execute(sa.text("ALTER TABLE paucity_pending ADD COLUMN annotator TEXT"))
    if "lease_until" not in names:
        kind = "DOUBLE PRECISION" if connection.dialect.name == "postgresql" else "FLOAT"
        connection.execute(sa.text(f"ALTER TABLE paucity_pending ADD COLUMN lease_until {kind}"))
    for name in ("skips", "annotators", "gold", "gold_answers", "request_keys", "adjudications"):
        tables[name].create(connection, checkfirst=True)
    for name in ("annotators", "request_keys"):  # columns added in version 4 to tables of version 3
        have = {column["name"] for column in sa.inspect(connection).get_columns(tables[name].name)}
        for column in tables[name].columns:
            if column.name not in have:
                kind = column.type.compile(dialect=connection.dialect)
                connection.execute(sa.text(f"ALTER TABLE {tables[name].name} ADD COLUMN {column.name} {kind}"))
    for index in tables["measurements"].indexes:
        index.create(connection, checkfirst=True)
    write_metadata(connection, tables["store"], {"version": str(STORE_VERSION)})


def metadata_in(connection, table) -> dict[str, str]:
    """The key/value rows of the ``paucity_store`` table, read in ``connection``."""
    return {row.key: row.value for row in connection.execute(table.select())}


def write_metadata(connection, table, values: dict) -> None:
    """Write key/value rows of the ``paucity_store`` table (values stored as text)."""
    import sqlalchemy as sa

    for key, value in values.items():
        connection.execute(sa.delete(table).where(table.c.key == str(key)))
        connection.execute(table.insert(), {"key": str(key), "value": str(value)})


