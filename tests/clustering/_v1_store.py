"""A measurement store as the first format wrote it (no annotators, no skips), for the upgrade tests."""

from __future__ import annotations

import sqlite3

SCHEMA = (
    "CREATE TABLE paucity_store (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE paucity_measurements (id INTEGER PRIMARY KEY AUTOINCREMENT, i INTEGER NOT NULL, "
    "j INTEGER NOT NULL, value FLOAT NOT NULL, time FLOAT NOT NULL, source TEXT NOT NULL);"
    "CREATE TABLE paucity_pending (id INTEGER PRIMARY KEY AUTOINCREMENT, i INTEGER NOT NULL, "
    "j INTEGER NOT NULL, time FLOAT NOT NULL);"
    "INSERT INTO paucity_store VALUES ('format', 'paucity.clustering measurement store'), ('version', '1');"
)


def write_version_1(path, rows: str) -> None:
    """An SQLite file holding a version-1 store, with ``rows`` (SQL statements) added to it."""
    with sqlite3.connect(path) as connection:
        connection.executescript(SCHEMA + rows)
    connection.close()
