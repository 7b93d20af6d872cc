"""Every measurement ever made, in a database: SQLite (WAL mode) by default, PostgreSQL for a team.

A measurement is a row (order, i, j, value, time, source); pairs asked but
not yet answered are kept apart as *pending* (with the annotator who holds
each one, and until when), so that a session killed at any point starts again
where it stopped: what was answered is in the database, and what was asked is
asked again, nothing measured twice. SQLAlchemy is imported only when a store
is opened.

Every write runs in :meth:`MeasurementStore.transaction` with ``lock=True``:
one transaction holding the database's write lock from its first statement to
its commit (``BEGIN IMMEDIATE`` on SQLite, a transaction-scoped advisory lock
on PostgreSQL), so that what a process reads in it is still true when it
commits. :class:`~paucity.clustering.ClusteringSession` builds its
guarantees on this.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time as _time
from collections import namedtuple
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, ParameterError, ReaderError
from ._checks import check_n_items, check_pairs, check_values
from .estimates import RunningEstimates, SimilarityEstimates

__all__ = ["MeasurementStore", "Ask", "STORE_FORMAT", "STORE_VERSION", "POSTGRES_DRIVER"]

#: A pending ask as :meth:`MeasurementStore.pending_rows` gives it: annotator None is held by nobody,
#: lease_until None has no end.
Ask = namedtuple("Ask", "id i j annotator lease_until")

#: What the store writes in its ``paucity_store`` table, to recognize its own databases.
STORE_FORMAT = "paucity.clustering measurement store"
#: 2: pending asks name the annotator who holds them (and until when); skipped pairs have a table.
#: 3: annotators (hashed access tokens, paused or revoked, answers excluded), gold pairs and their answers, and the
#: keys of the requests that recorded answers (a request sent twice records once).
STORE_VERSION = 3
#: The driver a ``postgresql://`` URL is opened with (the ``postgres`` extra installs it).
POSTGRES_DRIVER = "psycopg"
_TABLES = ("paucity_store", "paucity_measurements", "paucity_pending", "paucity_skips", "paucity_annotators",
           "paucity_gold", "paucity_gold_answers", "paucity_request_keys")
_V1_TABLES = ("paucity_store", "paucity_measurements", "paucity_pending")
#: The key of PostgreSQL's transaction-scoped advisory lock that serializes the writers of a store.
_LOCK_KEY = 0x70617563697479  # "paucity" in ASCII
#: How long a writer waits for the write lock of an SQLite store before giving up, in milliseconds.
BUSY_TIMEOUT_MS = 60_000
_SUFFIXES = ("-wal", "-shm", "-journal")


class MeasurementStore:
    """Measurements of pairwise similarities, persisted in a database.

    A :class:`~paucity.clustering.ClusteringSession` owns one: it keeps the
    items, the settings and the verbs of a session. Opened alone, a store
    gives read access to what a session measured, and the low-level writes
    the session is built on.

    Parameters
    ----------
    database : str or os.PathLike
        A file path (an SQLite database, created when missing) or an
        SQLAlchemy URL: ``"sqlite:///session.db"`` or
        ``"postgresql://user@host/clustering"`` (needs the ``postgres``
        extra: ``pip install 'paucity[postgres]'``). The database must be
        new (empty) or written by a MeasurementStore; a database written by
        another program (tables or views of its own) is refused untouched.
    n_items : int, optional
        The number of items measured. Stored with the data: reopening with a
        different number is refused, and pairs naming items beyond it too.

    Attributes
    ----------
    url : str
        The database's SQLAlchemy URL.

    Notes
    -----
    Four tables: ``paucity_store`` (key/value: the format, its version,
    ``n_items``, a session's items and settings), ``paucity_measurements``
    (one row per measurement: id, i < j, value, time in seconds since the
    epoch, source), ``paucity_pending`` (pairs asked and not yet answered:
    id, i, j, time, the annotator holding it, the end of its lease) and
    ``paucity_skips`` (pairs an annotator gave back unanswered). SQLite runs
    in write-ahead-log mode with ``synchronous=NORMAL``: a committed
    measurement survives the process being killed. Running estimates per pair
    follow seed 003, §2.5 (:class:`~paucity.clustering.SimilarityEstimates`).
    A store of version 1 (before annotators were kept) is brought to version
    2 the first time it is opened, in one transaction.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "session.db")
    >>> store = MeasurementStore(path, n_items=4)
    >>> store.add([[0, 1], [0, 1], [2, 3]], [0.9, 0.7, 0.2], source="worker-1")
    >>> store.measurements()[["order", "i", "j", "value", "source", "repeat"]]
       order  i  j  value    source  repeat
    0      1  0  1    0.9  worker-1       1
    1      2  0  1    0.7  worker-1       2
    2      3  2  3    0.2  worker-1       1
    >>> store.estimates().to_frame().round(4)
       i  j  n_repeats  median   sigma
    0  0  1          2     0.8  0.1000
    1  2  3          1     0.2  0.1414
    >>> store.close()
    >>> len(MeasurementStore(path))  # reopened: nothing lost
    3
    """

    def __init__(self, database, *, n_items: int | None = None, create: bool = True):
        self.url, self._path = resolve_database(database, owner="MeasurementStore")
        self._create = create
        self._engine = None
        self._tables = None
        self._n_items = None  # once set it never changes
        self._open()
        if n_items is not None:
            self.set_n_items(n_items)

    # -- the connection ------------------------------------------------------------------------------------------
    def _open(self) -> None:
        existing = self._look()  # before touching: a database of another program must not even get a WAL file
        engine = _engine(self.url)
        self._engine = engine
        self._tables = _schema()
        try:
            if not existing:
                if not self._create:
                    raise InputError(
                        f"{self.shown} holds no session (it is {self._empty_word()}); start one with items first "
                        "(ClusteringSession.create, or paucity cluster-session start DB --items FILE)."
                    )
                with self.transaction(lock=True) as connection:
                    self._initialize(connection)
            else:
                version = self._check_format(existing)
                if version < STORE_VERSION:
                    with self.transaction(lock=True) as connection:
                        self._upgrade(connection)
        except BaseException:
            self.close()
            raise

    def _empty_word(self) -> str:
        if self._path is not None and not self._path.exists():
            return "a file that does not exist"
        return "an empty file" if self._path is not None else "an empty database"

    def _look(self) -> dict[str, str]:
        """The objects the database holds now ({name: type}), read without writing anything."""
        import sqlalchemy as sa

        if self._path is not None:
            if not self._path.exists() or self._path.stat().st_size == 0:
                return {}
            import sqlite3

            try:
                connection = sqlite3.connect(f"file:{self._path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
            except sqlite3.Error as exc:
                raise ReaderError(f"cannot open {self.shown}: {exc}") from None
            try:
                rows = connection.execute(
                    "SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
                ).fetchall()
            except sqlite3.DatabaseError as exc:
                raise ReaderError(f"{self.shown} is not a database a MeasurementStore can open: {exc}") from None
            finally:
                connection.close()
            return {str(name): str(kind) for name, kind in rows}
        engine = sa.create_engine(self.url)
        try:
            inspector = sa.inspect(engine)
            found = {name: "table" for name in inspector.get_table_names()}
            found.update({name: "view" for name in inspector.get_view_names()})
            return found
        except sa.exc.SQLAlchemyError as exc:
            raise ReaderError(f"cannot open {self.shown}: {_reason(exc)}") from None
        finally:
            engine.dispose()

    def _check_format(self, existing: dict[str, str]) -> int:
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
                f"{self.shown} was written by another program (it has {held} and no paucity_store table); give a new "
                "file, or the database of an earlier paucity session."
            )
        meta = self.read_metadata()
        if meta.get("format") != STORE_FORMAT or set(_V1_TABLES) - set(existing):
            raise ReaderError(
                f"{self.shown} was written by another program (its paucity_store table does not describe a "
                "measurement store); give a new file, or the database of an earlier paucity session."
            )
        text = meta.get("version")
        try:
            version = int(str(text).strip())
        except (TypeError, ValueError):
            version = None
        if version is None or version < 1:
            raise ReaderError(
                f"{self.shown} is damaged: its store version is {text!r}, not a version paucity wrote; restore the "
                "database from a copy, or start a new one."
            )
        if version > STORE_VERSION:
            raise ReaderError(
                f"{self.shown} was written by a newer paucity (store version {version}, this one reads up to "
                f"{STORE_VERSION}); upgrade paucity."
            )
        if version == STORE_VERSION and set(_TABLES) - set(existing):
            missing = ", ".join(sorted(set(_TABLES) - set(existing)))
            raise ReaderError(f"{self.shown} is damaged: it lacks the table(s) {missing}; restore it from a copy.")
        return version

    def _initialize(self, connection) -> None:
        """Create the tables of a new store (inside the write lock, so that two processes create them once)."""
        found = _objects(connection)
        if found:  # another process made it while this one waited for the lock
            if "paucity_store" not in found:
                raise ReaderError(f"{self.shown} was written by another program while paucity opened it.")
            return
        metadata = self._tables["store"].metadata
        metadata.create_all(connection)
        connection.execute(
            self._tables["store"].insert(),
            [{"key": "format", "value": STORE_FORMAT}, {"key": "version", "value": str(STORE_VERSION)}],
        )

    def _upgrade(self, connection) -> None:
        """Bring an older store to this version: annotators and leases on pending asks (2), and the tables of
        skips (2), annotators, gold pairs and request keys (3)."""
        import sqlalchemy as sa

        meta = _metadata_in(connection, self._tables["store"])
        if int(meta.get("version", "0")) >= STORE_VERSION:
            return  # another process upgraded it while this one waited
        pending = sa.inspect(connection).get_columns("paucity_pending")
        names = {column["name"] for column in pending}
        if "annotator" not in names:
            connection.execute(sa.text("ALTER TABLE paucity_pending ADD COLUMN annotator TEXT"))
        if "lease_until" not in names:
            kind = "DOUBLE PRECISION" if connection.dialect.name == "postgresql" else "FLOAT"
            connection.execute(sa.text(f"ALTER TABLE paucity_pending ADD COLUMN lease_until {kind}"))
        for name in ("skips", "annotators", "gold", "gold_answers", "request_keys"):
            self._tables[name].create(connection, checkfirst=True)
        for index in self._tables["measurements"].indexes:
            index.create(connection, checkfirst=True)
        _write_metadata(connection, self._tables["store"], {"version": str(STORE_VERSION)})

    @property
    def shown(self) -> str:
        """The database as messages name it: its path, or its URL without the password."""
        if self._path is not None:
            return str(self._path)
        return shown_url(self.url).replace(f"+{POSTGRES_DRIVER}://", "://", 1)

    def _shown(self) -> str:
        return self.shown

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.url.split(":", 1)[0].split("+", 1)[0]

    @property
    def engine(self):
        """The SQLAlchemy engine (reopened after :meth:`close` or unpickling)."""
        if self._engine is None:
            self._open()
        return self._engine

    @contextlib.contextmanager
    def transaction(self, *, lock: bool = False):
        """A connection in one transaction, committed when the block ends (rolled back if it raises).

        With ``lock`` the transaction holds the store's write lock from its
        start to its end: no other writer runs meanwhile, in any process.
        SQLite: ``BEGIN IMMEDIATE`` (a writer waits up to a minute for
        another to finish); PostgreSQL: a transaction-scoped advisory lock.
        Readers are never blocked (SQLite's WAL, PostgreSQL's MVCC).
        """
        import sqlalchemy as sa

        engine = self.engine
        try:
            with engine.connect() as connection:
                if lock and self.dialect == "sqlite":
                    connection.execution_options(paucity_immediate=True)
                with connection.begin():
                    if lock and self.dialect == "postgresql":
                        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
                    yield connection
        except sa.exc.OperationalError as exc:
            reason = _reason(exc)
            if "locked" in reason or "busy" in reason:
                raise ReaderError(
                    f"{self.shown} stayed busy for {BUSY_TIMEOUT_MS // 1000} s (another process held its write "
                    "lock); try again."
                ) from None
            raise ReaderError(f"cannot use {self.shown}: {reason}") from None

    def rows(self, query, connection=None) -> list:
        """The rows of ``query``, read in ``connection`` or in a read transaction of their own."""
        if connection is not None:
            return connection.execute(query).all()
        with self.transaction() as connection:
            return connection.execute(query).all()

    def close(self) -> None:
        """Release the database connections (the store reopens on next use)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __getstate__(self):
        return {"url": self.url, "_path": self._path}

    def __setstate__(self, state) -> None:
        self.url, self._path = state["url"], state["_path"]
        self._create = True
        self._engine = None
        self._tables = None
        self._n_items = None

    def __deepcopy__(self, memo):
        # copies share the database, not the connections (scikit-learn's clone deep-copies parameters)
        copy = MeasurementStore.__new__(MeasurementStore)
        copy.__setstate__(self.__getstate__())
        return copy

    def __repr__(self) -> str:
        return f"MeasurementStore({self.shown!r})"

    # -- settings ------------------------------------------------------------------------------------------------
    def read_metadata(self, *, connection=None) -> dict[str, str]:
        """The key/value settings the store holds, read in ``connection`` (a transaction of its own by default)."""
        return {row.key: row.value for row in self.rows(self._table("store").select(), connection)}

    @property
    def metadata(self) -> dict[str, str]:
        """The key/value settings the store holds (format, version, n_items, a session's items and settings)."""
        return self.read_metadata()

    def update_metadata(self, values: dict, *, connection=None) -> None:
        """Write settings (values stored as text)."""
        if connection is not None:
            _write_metadata(connection, self._table("store"), values)
            return
        with self.transaction(lock=True) as connection:
            _write_metadata(connection, self._table("store"), values)

    @property
    def n_items(self) -> int | None:
        """The number of items, or None when not set yet."""
        if self._n_items is None:
            value = self.metadata.get("n_items")
            self._n_items = None if value is None else int(value)
        return self._n_items

    def set_n_items(self, n_items: int, *, connection=None) -> None:
        """Set the number of items; refused when the store already holds a different one."""
        n_items = check_n_items(n_items)
        if connection is None:
            with self.transaction(lock=True) as connection:
                self.set_n_items(n_items, connection=connection)
            return
        import sqlalchemy as sa

        meta = _metadata_in(connection, self._table("store"))
        known = None if meta.get("n_items") is None else int(meta["n_items"])
        if known is None:
            table = self._table("measurements")
            largest = connection.execute(sa.select(sa.func.max(table.c.j))).scalar()  # i < j in every row
            if largest is not None and largest >= n_items:
                raise InputError(
                    f"{self.shown} holds measurements of item {int(largest)}, but n_items={n_items} numbers "
                    f"the items 0..{n_items - 1}."
                )
            _write_metadata(connection, self._table("store"), {"n_items": n_items})
        elif known != n_items:
            raise InputError(
                f"{self.shown} holds a session over {known} items, but n_items={n_items} was given; "
                f"pass n_items={known}, or a new database for the new items."
            )

    def table(self, name: str):
        """The SQLAlchemy table ``name`` (store, measurements, pending, skips, annotators, gold, gold_answers,
        request_keys), for the session that owns the store to read and write in its transactions."""
        return self._table(name)

    def _table(self, name: str):
        if self._tables is None:
            self._open()
        return self._tables[name]

    # -- measurements --------------------------------------------------------------------------------------------
    def add(self, pairs, values, *, source: str = "oracle", time: float | None = None, connection=None) -> None:
        """Record measurements, and answer the pending asks of the same pairs (one per measurement).

        Parameters
        ----------
        pairs : array-like of shape (m, 2)
            Item indices, in either order.
        values : array-like of shape (m,)
            The measured similarities, in [0, 1].
        source : str, default="oracle"
            Who measured (a worker's id, an oracle's name).
        time : float, optional
            Seconds since the epoch; now by default.
        connection : optional
            A connection of :meth:`transaction` (``lock=True``) to write in;
            by default the measurements are written in a transaction of their own.
        """
        import sqlalchemy as sa

        pairs = self._check_pairs(pairs)
        values = check_values(values, len(pairs))
        if not isinstance(source, str):
            raise ParameterError(f"MeasurementStore.add: source must be a string, got {source!r}.")
        when = _time.time() if time is None else float(time)
        if len(pairs) == 0:
            return
        if connection is None:
            with self.transaction(lock=True) as connection:
                self.add(pairs, values, source=source, time=when, connection=connection)
            return
        measurements, pending = self._table("measurements"), self._table("pending")
        rows = [
            {"i": int(i), "j": int(j), "value": float(v), "time": when, "source": source}
            for (i, j), v in zip(pairs, values)
        ]
        connection.execute(measurements.insert(), rows)
        for i, j in pairs:
            first = (
                sa.select(pending.c.id)
                .where(pending.c.i == int(i), pending.c.j == int(j))
                .order_by(pending.c.id)
                .limit(1)
                .scalar_subquery()
            )
            connection.execute(sa.delete(pending).where(pending.c.id == first))

    def add_pending(self, pairs, *, time: float | None = None, annotator: str | None = None,
                    lease_until: float | None = None, connection=None) -> None:
        """Record pairs asked and not yet answered (held by ``annotator`` until ``lease_until``, when given)."""
        pairs = self._check_pairs(pairs)
        if len(pairs) == 0:
            return
        when = _time.time() if time is None else float(time)
        rows = [{"i": int(i), "j": int(j), "time": when, "annotator": annotator, "lease_until": lease_until}
                for i, j in pairs]
        if connection is None:
            with self.transaction(lock=True) as connection:
                connection.execute(self._table("pending").insert(), rows)
            return
        connection.execute(self._table("pending").insert(), rows)

    def pending(self, *, connection=None) -> np.ndarray:
        """The pairs asked and not answered, in the order asked, as an (m, 2) array (i < j)."""
        frame = self.pending_asks(connection=connection)
        return frame[["i", "j"]].to_numpy(dtype=np.int64).reshape(-1, 2)

    def pending_rows(self, *, connection=None) -> list:
        """Every pending ask in the order asked, as :data:`Ask` tuples (id, i, j, annotator, lease_until)."""
        import sqlalchemy as sa

        table = self._table("pending")
        query = sa.select(table.c.id, table.c.i, table.c.j, table.c.annotator, table.c.lease_until).order_by(table.c.id)
        return [Ask(*row) for row in self.rows(query, connection)]

    def measurement_rows(self, *, after: int = 0, connection=None) -> list:
        """The measurements whose order is larger than ``after``, as (order, i, j, value, source) tuples."""
        import sqlalchemy as sa

        table = self._table("measurements")
        query = (sa.select(table.c.id, table.c.i, table.c.j, table.c.value, table.c.source)
                 .where(table.c.id > int(after)).order_by(table.c.id))
        return [tuple(row) for row in self.rows(query, connection)]

    def pending_asks(self, *, connection=None) -> pd.DataFrame:
        """Every pending ask in the order asked: id, i, j, time, annotator (None: held by nobody), lease_until."""
        table = self._table("pending")
        rows = self.rows(table.select().order_by(table.c.id), connection)
        return pd.DataFrame(
            {
                "id": np.array([row.id for row in rows], dtype=np.int64),
                "i": np.array([row.i for row in rows], dtype=np.int64),
                "j": np.array([row.j for row in rows], dtype=np.int64),
                "time": np.array([row.time for row in rows], dtype=np.float64),
                "annotator": pd.array([row.annotator for row in rows], dtype=object),
                "lease_until": np.array([np.nan if row.lease_until is None else row.lease_until for row in rows],
                                        dtype=np.float64),
            }
        )

    def hold(self, ids, *, annotator: str | None, lease_until: float | None, connection) -> None:
        """Give the pending asks ``ids`` to ``annotator`` (None: to nobody) until ``lease_until`` (None: no end)."""
        import sqlalchemy as sa

        ids = [int(k) for k in ids]
        if not ids:
            return
        table = self._table("pending")
        connection.execute(
            sa.update(table).where(table.c.id.in_(ids)).values(annotator=annotator, lease_until=lease_until)
        )

    def withdraw_pending(self, pairs=None, *, connection=None) -> np.ndarray:
        """Withdraw pending asks: every one, or the given pairs; all of them or none, in one transaction.

        A withdrawn ask is no longer pending: no answer to it is expected,
        and it was never measured, so a later ask may choose the pair again.

        Parameters
        ----------
        pairs : array-like of shape (m, 2), optional
            The asks to withdraw, in either order; a pair asked twice and
            named once loses its earliest ask. None withdraws every pending ask.

        Returns
        -------
        ndarray of shape (m, 2)
            The pairs withdrawn (i < j): in the order given, or with
            ``pairs=None`` in the order asked.

        Raises
        ------
        InputError
            When a pair is not pending (never asked, answered already, or
            named more times than it waits for an answer); nothing is withdrawn.

        Examples
        --------
        >>> import tempfile, os
        >>> store = MeasurementStore(os.path.join(tempfile.mkdtemp(), "asks.db"), n_items=4)
        >>> store.add_pending([[0, 1], [2, 3], [1, 2]])
        >>> store.withdraw_pending([[3, 2]]).tolist()
        [[2, 3]]
        >>> store.pending().tolist()
        [[0, 1], [1, 2]]
        >>> store.withdraw_pending().tolist()  # every pending ask
        [[0, 1], [1, 2]]
        >>> store.close()
        """
        import sqlalchemy as sa

        if pairs is not None:
            pairs = self._check_pairs(pairs)
        if connection is None:
            with self.transaction(lock=True) as connection:
                return self.withdraw_pending(pairs, connection=connection)
        table = self._table("pending")
        withdrawn: list[tuple[int, int]] = []
        if pairs is None:
            rows = connection.execute(sa.select(table.c.id, table.c.i, table.c.j).order_by(table.c.id)).all()
            connection.execute(sa.delete(table))
            withdrawn = [(int(row.i), int(row.j)) for row in rows]
        else:
            named: dict[tuple[int, int], int] = {}
            for i, j in pairs:
                key = (int(i), int(j))
                named[key] = named.get(key, 0) + 1
                first = (
                    sa.select(table.c.id)
                    .where(table.c.i == key[0], table.c.j == key[1])
                    .order_by(table.c.id)
                    .limit(1)
                    .scalar_subquery()
                )
                if not connection.execute(sa.delete(table).where(table.c.id == first)).rowcount:
                    raise InputError(self._not_pending(connection, key, named[key]))  # rolled back
                withdrawn.append(key)
        return np.array(withdrawn, dtype=np.int64).reshape(-1, 2)

    def _not_pending(self, connection, key: tuple[int, int], named: int) -> str:
        """Why ``key`` cannot be withdrawn (read inside the failing transaction)."""
        import sqlalchemy as sa

        def count(table) -> int:
            query = sa.select(sa.func.count()).select_from(table).where(table.c.i == key[0], table.c.j == key[1])
            return int(connection.execute(query).scalar_one())

        if named > 1:
            asked = count(self._table("pending")) + named - 1  # this call's own deletes are seen here
            why = f"is named {named} times but waits for {asked} answer(s)"
        elif count(self._table("measurements")):
            why = "is not pending (answered already)"
        else:
            why = "is not pending (never asked, or withdrawn)"
        return (
            f"pair ({key[0]}, {key[1]}) {why}; withdraw only asks that wait for an answer "
            f"(pending() lists them). Nothing was withdrawn."
        )

    def clear_pending(self) -> None:
        """Forget every pending ask (the pairs will not be expected any more): :meth:`withdraw_pending` of all."""
        self.withdraw_pending()

    # -- skips ---------------------------------------------------------------------------------------------------
    def add_skip(self, i: int, j: int, annotator: str, *, connection) -> None:
        """Remember that ``annotator`` gave the pair (i, j) back unanswered."""
        connection.execute(self._table("skips").insert(),
                           {"i": int(i), "j": int(j), "annotator": str(annotator), "time": _time.time()})

    def skipped_by(self, annotator: str, *, connection=None) -> set[tuple[int, int]]:
        """The pairs ``annotator`` skipped."""
        import sqlalchemy as sa

        table = self._table("skips")
        query = sa.select(table.c.i, table.c.j).where(table.c.annotator == str(annotator))
        return {(int(i), int(j)) for i, j in self.rows(query, connection)}

    def skips(self, *, connection=None) -> pd.DataFrame:
        """Every skip in order: i, j, annotator, time."""
        table = self._table("skips")
        rows = self.rows(table.select().order_by(table.c.id), connection)
        return pd.DataFrame(
            {
                "i": np.array([row.i for row in rows], dtype=np.int64),
                "j": np.array([row.j for row in rows], dtype=np.int64),
                "annotator": pd.array([row.annotator for row in rows], dtype=object),
                "time": np.array([row.time for row in rows], dtype=np.float64),
            }
        )

    # -- reading -------------------------------------------------------------------------------------------------
    def measurements(self, *, after: int = 0, connection=None) -> pd.DataFrame:
        """Every measurement in the order made: order, i, j, value, time, source, repeat.

        ``order`` counts from 1; ``repeat`` is 1 for a pair's first
        measurement, 2 for its second, and so on. With ``after``, only the
        measurements whose order is larger (their ``repeat`` then counts
        from them only).
        """
        table = self._table("measurements")
        frame = _measurement_frame(self.rows(table.select().where(table.c.id > int(after)).order_by(table.c.id),
                                              connection))
        frame["repeat"] = frame.groupby(["i", "j"]).cumcount().to_numpy(dtype=np.int64) + 1
        return frame

    def recent(self, n: int, *, connection=None) -> pd.DataFrame:
        """The last ``n`` measurements, newest first: order, i, j, value, time, source."""
        table = self._table("measurements")
        return _measurement_frame(self.rows(table.select().order_by(table.c.id.desc()).limit(int(n)), connection))

    def counts_by_source(self, *, connection=None) -> dict[str, int]:
        """Measurements per source (an annotator, a file, an oracle)."""
        import sqlalchemy as sa

        table = self._table("measurements")
        query = sa.select(table.c.source, sa.func.count()).group_by(table.c.source)
        return {str(source): int(count) for source, count in self.rows(query, connection)}

    def __len__(self) -> int:
        import sqlalchemy as sa

        table = self._table("measurements")
        return int(self.rows(sa.select(sa.func.count()).select_from(table))[0][0])

    def estimates(self) -> SimilarityEstimates:
        """Running estimates of every measured pair (seed 003, §2.5): median, repeats, σ̂."""
        return dataclasses.replace(self.running_estimates(dense=False).snapshot(), n_items=self.n_items)

    def running_estimates(self, *, dense: bool = True) -> RunningEstimates:
        """The measurements replayed into a :class:`RunningEstimates` (dense matrices need ``n_items``)."""
        frame = self.measurements()
        running = RunningEstimates(self.n_items if dense else None)
        for i, j, value in zip(frame["i"].to_numpy(), frame["j"].to_numpy(), frame["value"].to_numpy()):
            running.add(int(i), int(j), float(value))
        return running

    def _check_pairs(self, pairs) -> np.ndarray:
        n_items = self.n_items
        return check_pairs(pairs, n_items if n_items is not None else np.iinfo(np.int64).max)


# -- the database behind a store ---------------------------------------------------------------------------------
def resolve_database(database, *, owner: str) -> tuple[str, Path | None]:
    """The SQLAlchemy URL of ``database`` (a path or a URL) and the SQLite file's path (None for a server).

    Refuses, with one line each: what is neither a path nor a URL, a folder,
    a missing folder, a folder that cannot be written (SQLite keeps its
    write-ahead log beside the file), a database other than SQLite and
    PostgreSQL, and a PostgreSQL URL without its driver.
    """
    if isinstance(database, MeasurementStore):
        return database.url, database._path
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


def _engine(url: str):
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(url)
    except Exception as exc:  # a malformed URL
        raise ParameterError(f"cannot use the database URL {shown_url(url)!r}: {_reason(exc)}") from None
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


def _schema() -> dict:
    import sqlalchemy as sa

    metadata = sa.MetaData()
    store = sa.Table(
        "paucity_store", metadata,
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    measurements = sa.Table(
        "paucity_measurements", metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("value", sa.Float(precision=53), nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
    )
    sa.Index("paucity_measurements_source", measurements.c.source)
    pending = sa.Table(
        "paucity_pending", metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
        sa.Column("annotator", sa.Text, nullable=True),
        sa.Column("lease_until", sa.Float(precision=53), nullable=True),
    )
    skips = sa.Table(
        "paucity_skips", metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("annotator", sa.Text, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
    )
    annotators = sa.Table(
        "paucity_annotators", metadata,
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=True, unique=True),  # SHA-256 of the access token
        sa.Column("state", sa.String(16), nullable=False),  # active, paused or revoked
        sa.Column("excluded", sa.Boolean, nullable=False),  # their answers left out of the clustering
        sa.Column("gold_i", sa.Integer, nullable=True),  # the gold pair on their screen
        sa.Column("gold_j", sa.Integer, nullable=True),
        sa.Column("changed", sa.Float(precision=53), nullable=False),
    )
    gold = sa.Table(
        "paucity_gold", metadata,
        sa.Column("i", sa.Integer, primary_key=True),
        sa.Column("j", sa.Integer, primary_key=True),
        sa.Column("value", sa.Float(precision=53), nullable=False),
    )
    gold_answers = sa.Table(
        "paucity_gold_answers", metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("value", sa.Float(precision=53), nullable=False),
        sa.Column("gold", sa.Float(precision=53), nullable=False),
        sa.Column("annotator", sa.Text, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
    )
    sa.Index("paucity_gold_answers_annotator", gold_answers.c.annotator)
    request_keys = sa.Table(
        "paucity_request_keys", metadata,
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("annotator", sa.Text, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
    )
    return {"store": store, "measurements": measurements, "pending": pending, "skips": skips,
            "annotators": annotators, "gold": gold, "gold_answers": gold_answers, "request_keys": request_keys}


def _measurement_frame(rows) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "order": np.array([row.id for row in rows], dtype=np.int64),
            "i": np.array([row.i for row in rows], dtype=np.int64),
            "j": np.array([row.j for row in rows], dtype=np.int64),
            "value": np.array([row.value for row in rows], dtype=np.float64),
            "time": np.array([row.time for row in rows], dtype=np.float64),
            "source": pd.array([row.source for row in rows], dtype=object),
        }
    )


def _objects(connection) -> set[str]:
    import sqlalchemy as sa

    inspector = sa.inspect(connection)
    return set(inspector.get_table_names()) | set(inspector.get_view_names())


def _metadata_in(connection, table) -> dict[str, str]:
    return {row.key: row.value for row in connection.execute(table.select())}


def _write_metadata(connection, table, values: dict) -> None:
    import sqlalchemy as sa

    for key, value in values.items():
        connection.execute(sa.delete(table).where(table.c.key == str(key)))
        connection.execute(table.insert(), {"key": str(key), "value": str(value)})


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


def _reason(exc) -> str:
    """The driver's own words, on one line."""
    original = getattr(exc, "orig", None)
    text = str(original if original is not None else exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
