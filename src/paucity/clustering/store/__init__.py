"""Every measurement of a session, and what a session keeps beside them, in a database.

:class:`MeasurementStore` is the store (:mod:`.measurements`: the measurements,
the pending asks and the skips, their schema and statements); it opens the
database (:mod:`.database`: an SQLite file in WAL mode or a PostgreSQL
server, one locked transaction per write) and holds the rooms whose tables and
statements live beside each other: the annotators (:mod:`.annotators`), the
gold pairs and their answers (:mod:`.gold`) and the keys of requests
(:mod:`.requests`). Importing it imports no SQLAlchemy; opening a store does.
"""

from .database import BUSY_TIMEOUT_MS, POSTGRES_DRIVER, remove_new_file, resolve_database, shown_url
from .measurements import STORE_FORMAT, STORE_VERSION, Ask, MeasurementStore

__all__ = ["MeasurementStore", "Ask", "STORE_FORMAT", "STORE_VERSION", "POSTGRES_DRIVER", "BUSY_TIMEOUT_MS",
           "resolve_database", "shown_url", "remove_new_file"]
