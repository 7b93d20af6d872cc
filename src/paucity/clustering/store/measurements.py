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

import dataclasses
import time as _time
from collections import namedtuple

import numpy as np
import pandas as pd

from ..._errors import InputError, NoSessionError, ParameterError
from .._checks import check_n_items, check_pairs, check_values
from ..estimates import RunningEstimates, SimilarityEstimates
from .adjudications import AdjudicationRecords
from .adjudications import define_tables as adjudication_tables
from .annotators import AnnotatorRecords
from .annotators import define_tables as annotator_tables
from .gold import GoldRecords
from .gold import define_tables as gold_tables
from .requests import RequestKeys
from .requests import define_tables as request_tables
from .database import POSTGRES_DRIVER, new_engine, resolve_database, shown_url, transaction
from .format import (STORE_FORMAT, STORE_VERSION, check_format, empty_word, initialize, look, metadata_in, upgrade,
                     write_metadata)

__all__ = ["MeasurementStore", "Ask", "STORE_FORMAT", "STORE_VERSION"]

#: A pending ask as :meth:`MeasurementStore.pending_rows` gives it: annotator None is held by nobody,
#: lease_until None has no end.
Ask = namedtuple("Ask", "id i j annotator lease_until")

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
        existing = look(self.url, self._path, self.shown)  # before touching: another program's gets no WAL file
        engine = new_engine(self.url)
        self._engine = engine
        self._tables = _schema()
        try:
            if not existing:
                if not self._create:
                    raise NoSessionError(
                        f"{self.shown} holds no session (it is {empty_word(self._path)}); start one with items first "
                        "(ClusteringSession.create, or paucity cluster-session start DB --items FILE)."
                    )
                with self.transaction(lock=True) as connection:
                    initialize(connection, self._tables, self.shown)
            else:
                version = check_format(existing, self.read_metadata, self.shown)
                if version < STORE_VERSION:
                    with self.transaction(lock=True) as connection:
                        upgrade(connection, self._tables)
        except BaseException:
            self.close()
            raise

    @property
    def path(self):
        """The SQLite file (a :class:`pathlib.Path`), or None for a server."""
        return self._path

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

    def transaction(self, *, lock: bool = False):
        """A connection in one transaction, committed when the block ends (rolled back if it raises).

        With ``lock`` the transaction holds the store's write lock from its
        start to its end: no other writer runs meanwhile, in any process
        (:func:`~paucity.clustering.store.database.transaction`). Readers are
        never blocked (SQLite's WAL, PostgreSQL's MVCC).
        """
        return transaction(self.engine, shown=self.shown, lock=lock)

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
            write_metadata(connection, self._table("store"), values)
            return
        with self.transaction(lock=True) as connection:
            write_metadata(connection, self._table("store"), values)

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

        meta = metadata_in(connection, self._table("store"))
        known = None if meta.get("n_items") is None else int(meta["n_items"])
        if known is None:
            table = self._table("measurements")
            largest = connection.execute(sa.select(sa.func.max(table.c.j))).scalar()  # i < j in every row
            if largest is not None and largest >= n_items:
                raise InputError(
                    f"{self.shown} holds measurements of item {int(largest)}, but n_items={n_items} numbers "
                    f"the items 0..{n_items - 1}."
                )
            write_metadata(connection, self._table("store"), {"n_items": n_items})
        elif known != n_items:
            raise InputError(
                f"{self.shown} holds a session over {known} items, but n_items={n_items} was given; "
                f"pass n_items={known}, or a new database for the new items."
            )

    def table(self, name: str):
        """The SQLAlchemy table ``name`` (store, measurements, pending, skips, annotators, gold, gold_answers,
        request_keys), for the statements of the store's rooms (:attr:`annotators`, :attr:`gold`,
        :attr:`requests`)."""
        return self._table(name)

    @property
    def annotators(self) -> AnnotatorRecords:
        """The statements on the session's annotators (:mod:`~paucity.clustering.store.annotators`)."""
        return AnnotatorRecords(self)

    @property
    def gold(self) -> GoldRecords:
        """The statements on the gold pairs and their answers (:mod:`~paucity.clustering.store.gold`)."""
        return GoldRecords(self)

    @property
    def adjudications(self) -> AdjudicationRecords:
        """The statements on the coordinator's adjudications (:mod:`~paucity.clustering.store.adjudications`)."""
        return AdjudicationRecords(self)

    @property
    def requests(self) -> RequestKeys:
        """The statements on the keys of requests (:mod:`~paucity.clustering.store.requests`)."""
        return RequestKeys(self)

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

    def count_pair(self, i: int, j: int, *, connection=None) -> int:
        """Measurements of the pair (i, j), i < j."""
        import sqlalchemy as sa

        table = self._table("measurements")
        query = sa.select(sa.func.count()).select_from(table).where(table.c.i == int(i), table.c.j == int(j))
        return int(self.rows(query, connection)[0][0])

    def count_source(self, source: str, *, connection=None) -> int:
        """Measurements of one source (an annotator, a file, an oracle)."""
        import sqlalchemy as sa

        table = self._table("measurements")
        query = sa.select(sa.func.count()).select_from(table).where(table.c.source == source)
        return int(self.rows(query, connection)[0][0])

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
    tables = {"store": store, "measurements": measurements, "pending": pending, "skips": skips}
    # each room of the store keeps its tables beside its statements
    for define in (annotator_tables, gold_tables, request_tables, adjudication_tables):
        tables.update(define(metadata))
    return tables


def _measurement_frame(rows) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "order": np.array([row.id for row in rows], dtype=np.int64),
            "i": np.array([row.i for row in rows], dtype=np.int64),
            "j": np.array([row.j for row in rows], dtype=np.int64),
            "value": np.array([row.value for row in rows], dtype=np.float64),
            "time": np.array([row.time for row in rows], dtype=np.float64),
            "source": pd.Series([row.source for row in rows], dtype=object),  # object, empty or not (pandas 3)
        }
    )
