"""Every measurement ever made, in a database: SQLite by default (WAL mode), any SQLAlchemy URL for a team.

A measurement is a row (order, i, j, value, time, source); pairs asked but
not yet answered are kept apart as *pending*, so that a session killed at any
point starts again where it stopped: what was answered is in the database, and
what was asked is asked again, nothing measured twice. SQLAlchemy is imported
only when a store is opened.
"""

from __future__ import annotations

import dataclasses
import os
import time as _time
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, ParameterError, ReaderError
from ._checks import check_n_items, check_pairs, check_values
from .estimates import RunningEstimates, SimilarityEstimates

__all__ = ["MeasurementStore", "STORE_FORMAT", "STORE_VERSION"]

#: What the store writes in its ``paucity_store`` table, to recognize its own databases.
STORE_FORMAT = "paucity.clustering measurement store"
STORE_VERSION = 1
_TABLES = ("paucity_store", "paucity_measurements", "paucity_pending")


class MeasurementStore:
    """Measurements of pairwise similarities, persisted in a database.

    Parameters
    ----------
    database : str or os.PathLike
        A file path (an SQLite database, created when missing) or an
        SQLAlchemy URL such as ``"sqlite:///session.db"`` or
        ``"postgresql://user@host/clustering"``. The database must be new
        (empty) or written by a MeasurementStore; a database written by
        another program is refused.
    n_items : int, optional
        The number of items measured. Stored with the data: reopening with a
        different number is refused, and pairs naming items beyond it too.

    Attributes
    ----------
    url : str
        The database's SQLAlchemy URL.

    Notes
    -----
    Three tables: ``paucity_store`` (key/value: the format, its version,
    ``n_items`` and the session's settings), ``paucity_measurements`` (one
    row per measurement: id, i < j, value, time in seconds since the epoch,
    source) and ``paucity_pending`` (pairs asked and not yet answered). SQLite
    runs in write-ahead-log mode with ``synchronous=NORMAL``: a committed
    measurement survives the process being killed. Running estimates per pair
    follow seed 003, §2.5 (:class:`~paucity.clustering.SimilarityEstimates`).

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

    def __init__(self, database, *, n_items: int | None = None):
        if isinstance(database, MeasurementStore):
            database = database.url
        if not isinstance(database, (str, os.PathLike)):
            raise ParameterError(
                f"MeasurementStore: database must be a file path or an SQLAlchemy URL, got {database!r}."
            )
        text = os.fspath(database)
        if "://" in text:
            self.url = text
            self._path = None
        else:
            path = Path(text).expanduser()
            if path.is_dir():
                raise ParameterError(f"MeasurementStore: {text} is a directory; give the path of a database file.")
            if not path.parent.exists():
                raise ParameterError(
                    f"MeasurementStore: the folder of {text} does not exist; create it or choose another path."
                )
            self._path = path.resolve()
            self.url = f"sqlite:///{self._path}"
        self._engine = None
        self._tables = None
        self._open()
        if n_items is not None:
            self.set_n_items(n_items)

    # -- the connection ------------------------------------------------------------------------------------------
    def _open(self) -> None:
        import sqlalchemy as sa

        try:
            engine = sa.create_engine(self.url)
        except Exception as exc:  # an unknown dialect, a malformed URL, a missing driver
            raise ParameterError(f"MeasurementStore: cannot use the database URL {self.url!r}: {exc}") from None
        # look before touching: a database of another program must not even get a new journal mode
        try:
            existing = set(sa.inspect(engine).get_table_names())
        except sa.exc.DatabaseError as exc:
            raise ReaderError(f"{self._shown()} is not a database a MeasurementStore can open: {_reason(exc)}") from None
        except sa.exc.SQLAlchemyError as exc:
            raise ReaderError(f"cannot open {self._shown()}: {_reason(exc)}") from None
        finally:
            engine.dispose()
        if existing and "paucity_store" not in existing:
            shown = ", ".join(sorted(existing)[:5]) + (", ..." if len(existing) > 5 else "")
            raise ReaderError(
                f"{self._shown()} was written by another program (it has the tables {shown} and no paucity_store "
                "table); give a new file, or the database of an earlier paucity session."
            )
        engine = sa.create_engine(self.url)
        if engine.dialect.name == "sqlite":

            @sa.event.listens_for(engine, "connect")
            def _write_ahead_log(connection, _record):
                cursor = connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                cursor.execute("PRAGMA busy_timeout=30000")
                cursor.close()

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
            sa.Column("value", sa.Float, nullable=False),
            sa.Column("time", sa.Float, nullable=False),
            sa.Column("source", sa.Text, nullable=False),
        )
        pending = sa.Table(
            "paucity_pending", metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("i", sa.Integer, nullable=False),
            sa.Column("j", sa.Integer, nullable=False),
            sa.Column("time", sa.Float, nullable=False),
        )
        self._engine = engine
        self._tables = {"store": store, "measurements": measurements, "pending": pending}
        if not existing:
            with engine.begin() as connection:
                metadata.create_all(connection)
                connection.execute(
                    store.insert(),
                    [{"key": "format", "value": STORE_FORMAT}, {"key": "version", "value": str(STORE_VERSION)}],
                )
            return
        meta = self.metadata
        if meta.get("format") != STORE_FORMAT or set(_TABLES) - existing:
            engine.dispose()
            self._engine = None
            raise ReaderError(
                f"{self._shown()} was written by another program (its paucity_store table does not describe a "
                "measurement store); give a new file, or the database of an earlier paucity session."
            )
        if int(meta.get("version", "0")) > STORE_VERSION:
            engine.dispose()
            self._engine = None
            raise ReaderError(
                f"{self._shown()} was written by a newer paucity (store version {meta['version']}, this one reads "
                f"up to {STORE_VERSION}); upgrade paucity."
            )

    def _shown(self) -> str:
        return str(self._path) if self._path is not None else self.url

    @property
    def engine(self):
        """The SQLAlchemy engine (reopened after :meth:`close` or unpickling)."""
        if self._engine is None:
            self._open()
        return self._engine

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
        self._engine = None
        self._tables = None

    def __deepcopy__(self, memo):
        # copies share the database, not the connections (scikit-learn's clone deep-copies parameters)
        copy = MeasurementStore.__new__(MeasurementStore)
        copy.__setstate__(self.__getstate__())
        return copy

    def __repr__(self) -> str:
        return f"MeasurementStore({self._shown()!r})"

    # -- settings ------------------------------------------------------------------------------------------------
    @property
    def metadata(self) -> dict[str, str]:
        """The key/value settings the store holds (format, version, n_items, a session's settings)."""
        table = self._table("store")
        with self.engine.connect() as connection:
            return {row.key: row.value for row in connection.execute(table.select())}

    def update_metadata(self, values: dict) -> None:
        """Write settings (values stored as text)."""
        import sqlalchemy as sa

        table = self._table("store")
        with self.engine.begin() as connection:
            for key, value in values.items():
                connection.execute(sa.delete(table).where(table.c.key == str(key)))
                connection.execute(table.insert(), {"key": str(key), "value": str(value)})

    @property
    def n_items(self) -> int | None:
        """The number of items, or None when not set yet."""
        value = self.metadata.get("n_items")
        return None if value is None else int(value)

    def set_n_items(self, n_items: int) -> None:
        """Set the number of items; refused when the store already holds a different one."""
        n_items = check_n_items(n_items)
        known = self.n_items
        if known is None:
            pairs = self._all_pairs()
            if len(pairs) and pairs.max() >= n_items:
                raise InputError(
                    f"{self._shown()} holds measurements of item {int(pairs.max())}, but n_items={n_items} numbers "
                    f"the items 0..{n_items - 1}."
                )
            self.update_metadata({"n_items": n_items})
        elif known != n_items:
            raise InputError(
                f"{self._shown()} holds a session over {known} items, but n_items={n_items} was given; "
                f"pass n_items={known}, or a new database for the new items."
            )

    def _table(self, name: str):
        if self._tables is None:
            self._open()
        return self._tables[name]

    # -- measurements --------------------------------------------------------------------------------------------
    def add(self, pairs, values, *, source: str = "oracle", time: float | None = None) -> None:
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
        """
        import sqlalchemy as sa

        pairs = self._check_pairs(pairs)
        values = check_values(values, len(pairs))
        if not isinstance(source, str):
            raise ParameterError(f"MeasurementStore.add: source must be a string, got {source!r}.")
        when = _time.time() if time is None else float(time)
        if len(pairs) == 0:
            return
        measurements, pending = self._table("measurements"), self._table("pending")
        rows = [
            {"i": int(i), "j": int(j), "value": float(v), "time": when, "source": source}
            for (i, j), v in zip(pairs, values)
        ]
        with self.engine.begin() as connection:
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

    def add_pending(self, pairs, *, time: float | None = None) -> None:
        """Record pairs asked and not yet answered."""
        pairs = self._check_pairs(pairs)
        if len(pairs) == 0:
            return
        when = _time.time() if time is None else float(time)
        with self.engine.begin() as connection:
            connection.execute(
                self._table("pending").insert(), [{"i": int(i), "j": int(j), "time": when} for i, j in pairs]
            )

    def pending(self) -> np.ndarray:
        """The pairs asked and not answered, in the order asked, as an (m, 2) array (i < j)."""
        table = self._table("pending")
        with self.engine.connect() as connection:
            rows = connection.execute(table.select().order_by(table.c.id)).all()
        return np.array([(row.i, row.j) for row in rows], dtype=np.int64).reshape(-1, 2)

    def withdraw_pending(self, pairs=None) -> np.ndarray:
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
        table = self._table("pending")
        withdrawn: list[tuple[int, int]] = []
        # each delete removes one row or none, so the pairs withdrawn are exactly the rows deleted, even when
        # another process answers an ask meanwhile; the first delete starts the transaction
        with self.engine.begin() as connection:
            if pairs is None:
                rows = connection.execute(sa.select(table.c.id, table.c.i, table.c.j).order_by(table.c.id)).all()
                for row in rows:
                    if connection.execute(sa.delete(table).where(table.c.id == row.id)).rowcount:
                        withdrawn.append((int(row.i), int(row.j)))
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

    def measurements(self) -> pd.DataFrame:
        """Every measurement in the order made: order, i, j, value, time, source, repeat.

        ``order`` counts from 1; ``repeat`` is 1 for a pair's first
        measurement, 2 for its second, and so on.
        """
        table = self._table("measurements")
        with self.engine.connect() as connection:
            rows = connection.execute(table.select().order_by(table.c.id)).all()
        frame = pd.DataFrame(
            {
                "order": np.array([row.id for row in rows], dtype=np.int64),
                "i": np.array([row.i for row in rows], dtype=np.int64),
                "j": np.array([row.j for row in rows], dtype=np.int64),
                "value": np.array([row.value for row in rows], dtype=np.float64),
                "time": np.array([row.time for row in rows], dtype=np.float64),
                "source": pd.array([row.source for row in rows], dtype=object),
            }
        )
        frame["repeat"] = frame.groupby(["i", "j"]).cumcount().to_numpy(dtype=np.int64) + 1
        return frame

    def __len__(self) -> int:
        import sqlalchemy as sa

        table = self._table("measurements")
        with self.engine.connect() as connection:
            return int(connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())

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

    def _all_pairs(self) -> np.ndarray:
        frame = self.measurements()
        return frame[["i", "j"]].to_numpy()

    def _check_pairs(self, pairs) -> np.ndarray:
        n_items = self.n_items
        return check_pairs(pairs, n_items if n_items is not None else np.iinfo(np.int64).max)


def _reason(exc) -> str:
    """The driver's own words, on one line."""
    original = getattr(exc, "orig", None)
    return str(original if original is not None else exc).splitlines()[0]
