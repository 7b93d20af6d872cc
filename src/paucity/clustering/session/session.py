"""A clustering session in a database, shared by the people who answer its questions: :class:`ClusteringSession`.

A session is an active spectral clustering whose similarities are measured by
people: it keeps the item names, one settings record written when it starts,
every answer with who gave it and when, and the pairs asked and not yet
answered with the annotator who holds each one. Everything lives in its
database (:class:`~paucity.clustering.MeasurementStore`: an SQLite file, or a
PostgreSQL server for a team), so that any number of processes — the command
line, Python, the annotation page — work on one session at once, and a
process killed at any point loses nothing.

The guarantee, and how it is kept: every verb that writes (:meth:`~ClusteringSession.ask`,
:meth:`~ClusteringSession.record`, :meth:`~ClusteringSession.withdraw`,
:meth:`~ClusteringSession.release`, :meth:`~ClusteringSession.skip`) reads the
session's state and writes its change in one transaction holding the
database's write lock (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on
PostgreSQL). So a pair waits for an answer at most once at a time, goes to
one annotator at a time, is answered once per ask, and a process that asks
while another does gets pairs of its own or none — never the same ones.
"""

from __future__ import annotations

import contextlib
import json
import math
import numbers
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ParameterError, ReaderError, warn
from .._json import plain as _plain
from .._spelling import given as _as_typed
from .._spelling import owner_prefix, spelled
from .._validation import Instance, Interval, Options, check_parameter
from ._checks import MIN_ITEMS, check_interleave, check_pairs, check_values
from .agreement import SessionQuality
from .files import check_columns, refuse_repeated

__all__ = [
    "ClusteringSession",
    "SessionSettings",
    "SessionAsks",
    "SessionAnswers",
    "SessionWithdrawal",
    "SessionStatus",
    "SessionClusters",
    "SessionExistsError",
    "SessionQuality",
    "check_annotator",
    "check_key",
    "hash_token",
    "next_pairs",
    "record_answers",
    "withdraw_asks",
]

#: The settings of a session, and their values when a session starts without them.
SESSION_DEFAULTS = {
    "strategy": "iu_red",
    "interleave": False,
    "budget": 0.1,
    "repeats": 1,
    "batch_size": 20,
    "n_clusters": 2,
    "random_state": None,
    "price": 0.0,
    "lease_seconds": 600.0,
    "cut": "sign",
}
_ITEMS_KEY = "items"
_SETTINGS_KEY = "settings"
_V1_SETTINGS_KEY = "session"  # where a version-1 store kept the settings of next_pairs
_SHOWN = 5  # names shown in a message before "..."
_UNNAMED = ""  # the annotator of asks made without a name
_LONGEST_ANNOTATOR = 100

_CONSTRAINTS = {
    "strategy": [Options("iu_red", "shamir_tishby", "random")],
    "interleave": [Instance(bool, np.bool_, description="True or False")],
    "budget": [Interval(numbers.Integral, 1, None), Interval(numbers.Real, 0, 1, closed="right")],
    "repeats": [Interval(numbers.Integral, 1, None)],
    "batch_size": [Interval(numbers.Integral, 1, None)],
    "n_clusters": [Interval(numbers.Integral, 2, None)],
    "random_state": [Interval(numbers.Integral, 0, None), None],
    "price": [Interval(numbers.Real, 0, None)],
    "lease_seconds": [Interval(numbers.Real, 0, None)],
    "cut": [Options("sign", "ratio", "normalized")],
}
_HINTS = {
    "budget": "Give a number of measurements (an int) or a fraction of the pairs (a float such as 0.1).",
    "strategy": "IU-RED is the seed's method; S&T and random are its baselines.",
    "random_state": "A session keeps its seed in the database, so it must be an integer.",
    "price": "It is the price of one answer, for the cost the coordinator sees.",
    "lease_seconds": "It is how long a pair shown on the annotation page stays with its annotator.",
    "cut": "sign is the seed's rule; ratio and normalized choose the threshold by RatioCut or NCut.",
}


class SessionExistsError(InputError):
    """The database holds a session already (raised by :meth:`ClusteringSession.create` without ``exist_ok``)."""


# -- settings and results ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SessionSettings:
    """The settings of a session: written once when it starts, read by every process afterwards.

    Attributes
    ----------
    strategy, interleave, repeats, n_clusters
        As :class:`~paucity.clustering.ActiveSpectralClustering`.
    budget : int or float
        As given when the session started (an int: measurements; a float:
        a fraction of the pairs times ``repeats``); ``ClusteringSession.budget``
        is the number of measurements. Raised only by :meth:`ClusteringSession.extend`.
    batch_size : int
        The most pairs waiting for an answer at once, all annotators together;
        new pairs are chosen by one eigen-update when fewer wait.
    random_state : int
        The seed of the session's random choices (drawn when the session
        started without one, and kept).
    price : float
        The price of one answer: the session's cost is ``price`` times its answers.
    lease_seconds : float
        How long a pair handed out on the annotation page stays with its
        annotator before it may go to another.
    cut : str
        How the clusters are read off each split of v̂₂ (as
        :class:`~paucity.clustering.ActiveSpectralClustering`): ``"sign"``,
        ``"ratio"`` or ``"normalized"``. It changes the clusters everyone
        sees, not the pairs asked. A session stored before this setting
        existed reads as ``"sign"``.
    """

    strategy: str
    interleave: bool
    budget: int | float
    repeats: int
    batch_size: int
    n_clusters: int
    random_state: int
    price: float
    lease_seconds: float
    cut: str = "sign"

    def to_dict(self) -> dict:
        """The settings as plain values (what the database keeps, as JSON)."""
        return asdict(self)


@dataclass(frozen=True)
class SessionClusters:
    """The clustering of every answer so far: one label per item, and v̂₂ of the current estimate Ŵ.

    Attributes
    ----------
    items : tuple of str
    labels : ndarray of int
        0..n_clusters−1, item 0 in cluster 0.
    embedding : ndarray
        v̂₂ of Ŵ: its sign is the cluster (of the first split), its size how
        far the item sits from the boundary.
    """

    items: tuple
    labels: np.ndarray
    embedding: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """One row per item: item, label, embedding."""
        return pd.DataFrame({"item": list(self.items), "label": self.labels, "embedding": self.embedding})

    def cluster_sizes(self) -> dict[int, int]:
        """Items per cluster."""
        labels, counts = np.unique(self.labels, return_counts=True)
        return {int(label): int(count) for label, count in zip(labels, counts)}


@dataclass(frozen=True)
class SessionAsks:
    """What :meth:`ClusteringSession.ask` returns: the pairs that wait for one annotator's answers.

    Attributes
    ----------
    pairs : pandas.DataFrame
        Columns i, j (item names) and value (empty, for the answer): every
        pair held by the annotator, in the order asked; the last ``n_new``
        were chosen by this call.
    n_new : int
        Pairs chosen by this call (by one eigen-update).
    annotator : str
        Who holds the pairs (``""`` for asks made without a name).
    n_items : int
    n_measured : int
        Answers recorded so far.
    n_pending : int
        Pairs waiting for an answer, with every annotator.
    budget : int
        The session's budget in measurements.
    settings : SessionSettings
    """

    pairs: pd.DataFrame
    n_new: int
    annotator: str
    n_items: int
    n_measured: int
    n_pending: int
    budget: int
    settings: SessionSettings

    def to_frame(self) -> pd.DataFrame:
        """The pairs to ask: i, j, value (empty)."""
        return self.pairs.copy()

    @property
    def spent(self) -> bool:
        """True when the budget is spent: every measurement made, none waits."""
        return len(self.pairs) == 0 and self.n_measured >= self.budget

    @property
    def n_elsewhere(self) -> int:
        """Pairs that wait for an answer from other annotators."""
        return self.n_pending - len(self.pairs)


@dataclass(frozen=True)
class SessionAnswers:
    """What :meth:`ClusteringSession.record` returns: what was recorded, and the clustering of every answer so far.

    Attributes
    ----------
    n_recorded : int
        Answers recorded by this call.
    n_read_before : int
        Rows skipped because the same answer to the same pair is in the database already (the file was
        read before).
    n_unanswered : int
        Rows skipped because their value is empty (not answered yet).
    n_measured : int
        Answers in the database.
    n_pending : int
        Pairs still waiting for an answer.
    budget : int
    clusters : SessionClusters or None
        The clustering of every answer so far (``items``, ``labels`` and
        ``embedding`` are its fields too); None when ``record`` was told not
        to cluster.
    """

    n_recorded: int
    n_read_before: int
    n_unanswered: int
    n_measured: int
    n_pending: int
    budget: int
    clusters: SessionClusters | None

    @property
    def items(self) -> tuple:
        """The item names, as in ``clusters``."""
        return self.clusters.items

    @property
    def labels(self) -> np.ndarray:
        """Each item's cluster, as in ``clusters``."""
        return self.clusters.labels

    @property
    def embedding(self) -> np.ndarray:
        """The clusters' spectral embedding of the items (see ``SessionClusters``)."""
        return self.clusters.embedding

    def to_frame(self) -> pd.DataFrame:
        """One row per item: item, label, embedding."""
        return self.clusters.to_frame()

    def cluster_sizes(self) -> dict[int, int]:
        """Items per cluster."""
        return self.clusters.cluster_sizes()


@dataclass(frozen=True)
class SessionWithdrawal:
    """What :meth:`ClusteringSession.withdraw` returns: the asks withdrawn, and the state of the session.

    Attributes
    ----------
    withdrawn : pandas.DataFrame
        Columns i, j (item names): the pairs withdrawn, i before j in the session's order of items; in the
        order given, or when every ask was withdrawn in the order asked.
    n_pending : int
        Pairs still waiting for an answer.
    n_measured : int
        Answers recorded so far.
    budget : int
        The session's budget in measurements (withdrawn asks no longer count against it).
    """

    withdrawn: pd.DataFrame
    n_pending: int
    n_measured: int
    budget: int

    @property
    def n_withdrawn(self) -> int:
        """Asks withdrawn."""
        return len(self.withdrawn)

    def to_frame(self) -> pd.DataFrame:
        """The pairs withdrawn: i, j."""
        return self.withdrawn.copy()


@dataclass(frozen=True)
class SessionStatus:
    """What :meth:`ClusteringSession.status` returns: where a session stands.

    Attributes
    ----------
    database : str
        The database, as messages name it (a URL without its password).
    settings : SessionSettings
    n_items : int
    n_measured : int
        Answers recorded.
    n_pending : int
        Pairs waiting for an answer.
    n_out : int
        Of those, the pairs an annotator holds now (the others wait for whoever asks next).
    budget : int
        In measurements.
    cost : float
        ``price`` times the answers.
    annotators : pandas.DataFrame
        One row per annotator or source of answers: annotator, n_answers, n_holding (pairs held now).
    clusters : SessionClusters
        The clustering of every answer so far.
    """

    database: str
    settings: SessionSettings
    n_items: int
    n_measured: int
    n_pending: int
    n_out: int
    budget: int
    cost: float
    annotators: pd.DataFrame
    clusters: SessionClusters

    @property
    def budget_left(self) -> int:
        """Measurements that may still be asked: the budget less the answers and the pairs waiting."""
        return max(0, self.budget - self.n_measured - self.n_pending)

    @property
    def spent(self) -> bool:
        """True when every measurement of the budget is made."""
        return self.n_measured >= self.budget

    def to_frame(self) -> pd.DataFrame:
        """The clustering: item, label, embedding."""
        return self.clusters.to_frame()

    def to_dict(self) -> dict:
        """The summary as plain values: the counts, budget, cost, the settings and the cluster sizes."""
        return {
            "database": self.database,
            "n_items": self.n_items,
            "n_measured": self.n_measured,
            "n_pending": self.n_pending,
            "n_out": self.n_out,
            "budget": self.budget,
            "budget_left": self.budget_left,
            "price": self.settings.price,
            "cost": self.cost,
            "settings": self.settings.to_dict(),
            "cluster_sizes": self.clusters.cluster_sizes(),
        }


# -- the session ---------------------------------------------------------------------------------------------------
class ClusteringSession:
    """One clustering session in a database: its items, its settings, and the verbs of the human loop.

    Open one with :meth:`create` (a new session over named items) or
    :meth:`open` (an existing one); it is a context manager. Any number of
    processes may hold the same session and use every verb at once.

    Verbs: :meth:`ask` (the pairs waiting for an annotator, then new ones),
    :meth:`record` (answers), :meth:`withdraw` (asks that will never be
    answered), :meth:`release` and :meth:`skip` (an annotator gives pairs
    back), :meth:`extend` (a larger budget); and to read: :meth:`status`,
    :meth:`clusters`, :meth:`answers`, :meth:`waiting`.

    Attributes
    ----------
    items : tuple of str
        The item names, in the order of the session.
    settings : SessionSettings
    budget : int
        The budget in measurements.
    database : str
        The database as messages name it.
    created : bool
        True when this object started the session.

    Notes
    -----
    The human loop of seed 003, chapter 2: an
    :class:`~paucity.clustering.ActiveSpectralClustering` whose answers come
    from people. Pairs are chosen as the estimator chooses them: a session
    whose every batch is answered before the next ask makes the estimator's
    choices with the same ``batch_size`` and ``random_state``. Each process
    keeps the estimate Ŵ in memory and reads only the answers recorded since
    its last read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> database = pathlib.Path(tempfile.mkdtemp()) / "photos.db"
    >>> with ClusteringSession.create(database, ["a", "b", "c", "d", "e"], budget=6, batch_size=3,
    ...                               random_state=0) as session:
    ...     asks = session.ask(annotator="ann")
    ...     done = session.record(asks.pairs.assign(value=[0.9, 0.8, 0.1]))
    >>> len(asks.pairs), done.n_measured, done.n_pending
    (3, 3, 0)
    >>> with ClusteringSession.open(database) as session:  # any process, later
    ...     session.status().budget_left
    3
    """

    def __init__(self, store, items, settings: SessionSettings, *, created: bool = False):
        self._store = store
        self._items = tuple(items)
        self._position = {name: k for k, name in enumerate(self._items)}
        self._settings = settings
        self._budget = _measurements(settings, len(self._items))
        self.created = created
        self._lock = threading.RLock()
        self._loop = None
        self._seen = 0  # the order of the last answer the loop holds
        self._values: dict[tuple[int, int], list[float]] = {}
        self._sources: dict[tuple[int, int], list[str]] = {}
        self._answered_by: dict[str, set[tuple[int, int]]] = {}
        self._excluded: frozenset = frozenset()  # the annotators whose answers the loop leaves out
        self._reference = None

    # -- opening -------------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, database, items, *, strategy=None, interleave=None, budget=None, repeats=None, batch_size=None,
               n_clusters=None, random_state=None, price=None, lease_seconds=None, cut=None,
               exist_ok: bool = False) -> "ClusteringSession":
        """Start a session over ``items`` in ``database``.

        Parameters
        ----------
        database : str or path-like
            An SQLite file (created when missing; an empty file becomes the
            session's database) or a URL: ``sqlite:///photos.db``,
            ``postgresql://user@host/name`` (the ``postgres`` extra).
        items : sequence of str
            The item names (at least 3, each once).
        strategy, interleave, budget, repeats, batch_size, n_clusters, random_state, price, lease_seconds, cut
            The settings (:class:`SessionSettings`; None takes the default:
            ``"iu_red"``, False, 0.1, 1, 20, 2, a drawn seed, 0, 600, ``"sign"``).
            ``random_state`` is an integer or None.
        exist_ok : bool, default=False
            When the database holds a session already: with False refuse
            (:class:`SessionExistsError`); with True open it, provided its
            items are ``items`` and the settings given equal its own.

        Returns
        -------
        ClusteringSession

        Notes
        -----
        Every input is checked before the database is touched: a call that
        fails on its input writes nothing, not even a new file. The settings
        are written once, in the transaction that starts the session; two
        processes starting one session at once both get it, started once.
        """
        names = check_items(items)
        given = _given(strategy=strategy, interleave=interleave, budget=budget, repeats=repeats,
                       batch_size=batch_size, n_clusters=n_clusters, random_state=random_state, price=price,
                       lease_seconds=lease_seconds, cut=cut)
        settings = _new_settings(given, len(names), owner="ClusteringSession")
        return cls._start(database, names, settings, given, exist_ok=exist_ok, owner="ClusteringSession")

    @classmethod
    def _start(cls, database, names, settings, given, *, exist_ok: bool, owner: str) -> "ClusteringSession":
        from .store import MeasurementStore

        store = database if isinstance(database, MeasurementStore) else MeasurementStore(database)
        try:
            with store.transaction(lock=True) as connection:
                meta = _metadata(store, connection)
                stored = _stored_session(store, meta, given)
                if stored is None:
                    store.set_n_items(len(names), connection=connection)
                    store.update_metadata({_ITEMS_KEY: json.dumps(names), _SETTINGS_KEY: json.dumps(settings.to_dict())},
                                          connection=connection)
                    return cls(store, names, settings, created=True)
            stored_items, stored_settings = stored
            if not exist_ok:
                raise SessionExistsError(
                    f"{store.shown} holds a session already ({len(stored_items)} items, "
                    f"{_spelled(stored_settings.strategy)}); open it with ClusteringSession.open, or give a new database."
                )
            if list(stored_items) != list(names):
                raise InputError(f"{_items_differ(stored_items, names)} in {store.shown}; leave the items out to resume "
                                 "it, or give a new database.")
            _refuse_other_settings(store, stored_settings, given, len(names), owner=owner)
            return cls(store, stored_items, stored_settings)
        except BaseException:
            store.close()
            raise

    @classmethod
    def open(cls, database, *, items=None, strategy=None, interleave=None, budget=None, repeats=None,
             batch_size=None, n_clusters=None, random_state=None, price=None,
             lease_seconds=None, cut=None) -> "ClusteringSession":
        """Open the session a database holds.

        Parameters
        ----------
        database : str or path-like
            As :meth:`create`; it must hold a session.
        items : sequence of str, optional
            When given, they must be the session's (same names, same order).
        strategy, interleave, budget, repeats, batch_size, n_clusters, random_state, price, lease_seconds, cut
            When given, each must equal the session's: a setting that differs
            is refused with one line naming both values (a larger budget is
            given by :meth:`extend`).

        Returns
        -------
        ClusteringSession
        """
        from .store import MeasurementStore

        given = _given(strategy=strategy, interleave=interleave, budget=budget, repeats=repeats,
                       batch_size=batch_size, n_clusters=n_clusters, random_state=random_state, price=price,
                       lease_seconds=lease_seconds, cut=cut)
        _check_given(given)
        names = None if items is None else check_items(items)
        store = database if isinstance(database, MeasurementStore) else MeasurementStore(database, create=False)
        try:
            stored = _stored_session(store, store.metadata, given)
            if stored is None:
                raise InputError(
                    f"{store.shown} holds no session (measurements at most, with no items and settings); start one "
                    "with ClusteringSession.create(database, items) or paucity cluster-session start DB --items FILE."
                )
            stored_items, stored_settings = stored
            if names is not None and list(names) != list(stored_items):
                raise InputError(f"{_items_differ(stored_items, names)} in {store.shown}; leave the items out to "
                                 "resume it, or give a new database.")
            _refuse_other_settings(store, stored_settings, given, len(stored_items), owner="ClusteringSession")
        except BaseException:
            store.close()
            raise
        return cls(store, stored_items, stored_settings)

    @classmethod
    def _for_estimator(cls, params: dict, n_items) -> "ClusteringSession":
        """The session of ``ActiveSpectralClustering(store=...)``: opened, or started over items named 0..n−1."""
        from .loop import base_seed
        from .store import MeasurementStore

        owner = "ActiveSpectralClustering"
        given = {name: params[name] for name in ("strategy", "interleave", "budget", "repeats", "batch_size",
                                                  "n_clusters", "cut")}
        random_state = params["random_state"]
        if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
            given["random_state"] = int(random_state)
        store = params["store"]
        store = store if isinstance(store, MeasurementStore) else MeasurementStore(store)
        try:
            stored = _stored_session(store, store.metadata, given)
            if stored is not None:
                stored_items, settings = stored
                if n_items is not None and int(n_items) != len(stored_items):
                    raise InputError(
                        f"{store.shown} holds a session over {len(stored_items)} items, but n_items={int(n_items)} "
                        f"was given; pass n_items={len(stored_items)}, or a new database for the new items."
                    )
                _refuse_other_settings(store, settings, given, len(stored_items), owner=owner)
                return cls(store, stored_items, settings)
            if n_items is None:
                n_items = store.n_items
            if n_items is None:
                raise ParameterError(
                    f"{owner}: the number of items is unknown; pass n_items=..., or an oracle with an n_items "
                    "attribute (MatrixOracle has one)."
                )
            from ._checks import check_n_items

            n = check_n_items(n_items)
            given.setdefault("random_state", base_seed(random_state))
            settings = _new_settings(given, n, owner=owner)
            return cls._start(store, [str(k) for k in range(n)], settings, given, exist_ok=True, owner=owner)
        except BaseException:
            store.close()
            raise

    # -- what a session is ---------------------------------------------------------------------------------------
    @property
    def items(self) -> tuple:
        """The item names, in the order of the similarity matrix."""
        return self._items

    @property
    def settings(self) -> SessionSettings:
        """The settings the session was started with (one record, fixed)."""
        return self._settings

    @property
    def budget(self) -> int:
        """Measurements the session may take, in all."""
        return self._budget

    @property
    def database(self) -> str:
        """The session's database, as shown in messages (a password hidden)."""
        return self._store.shown

    def __repr__(self) -> str:
        return f"ClusteringSession({self.database!r}, {len(self._items)} items)"

    def close(self) -> None:
        """Release the database connections (they are opened again on the next verb)."""
        self._store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __getstate__(self):
        return {"store": self._store, "items": self._items, "settings": self._settings, "created": self.created,
                "reference": self._reference}

    def __setstate__(self, state) -> None:
        self.__init__(state["store"], state["items"], state["settings"], created=state["created"])
        self._reference = state["reference"]

    # -- the verbs -----------------------------------------------------------------------------------------------
    def ask(self, n=None, *, annotator=None, lease_seconds=None) -> SessionAsks:
        """The pairs for ``annotator`` to answer: those they hold, then waiting ones nobody holds, then new ones.

        Asking again for the same annotator before answering gives the same
        pairs (a crash between asking and handing the pairs out loses
        nothing); another annotator gets other pairs. New pairs are chosen by
        one eigen-update, as long as fewer than ``batch_size`` pairs wait for
        an answer (all annotators together) and the budget allows: when it
        does not, fewer pairs come back, none when every waiting pair is
        with someone else (ask again once answers come in).

        Parameters
        ----------
        n : int, optional
            How many pairs the annotator should hold; the session's
            ``batch_size`` by default.
        annotator : str, optional
            Who the pairs go to (1 to 100 characters, no control characters);
            None for the asks of one person or script that names nobody.
        lease_seconds : float, optional
            Hold the pairs for this long only: after that another annotator
            may get them (the annotation page uses the session's
            ``lease_seconds``). None: until answered or withdrawn.

        Returns
        -------
        SessionAsks
        """
        n = self._batch(n)
        holder = _UNNAMED if annotator is None else check_annotator(annotator)
        if lease_seconds is not None:
            lease_seconds = float(check_parameter(lease_seconds, "lease_seconds", _CONSTRAINTS["lease_seconds"],
                                                  owner="ClusteringSession.ask"))
        with self._lock:
            with self._writing() as write:
                connection, asks, now = write.connection, write.asks, time.time()
                self._refuse_stopped(holder, connection)
                until = None if lease_seconds is None else now + lease_seconds
                seen = self._seen_by(holder, connection) if holder != _UNNAMED else set()
                taken = [ask.id for ask in asks if ask.annotator == holder]
                for ask in asks:
                    if len(taken) >= n:
                        break
                    free = ask.annotator is None or (ask.lease_until is not None and ask.lease_until < now)
                    if free and ask.annotator != holder and (ask.i, ask.j) not in seen:
                        taken.append(ask.id)
                self._store.hold(taken, annotator=holder, lease_until=until, connection=connection)
                room = min(n - len(taken), self._settings.batch_size - len(asks),
                           self._budget - self._loop.n_measured - len(asks))
                new = np.empty((0, 2), dtype=np.int64)
                if room > 0:
                    write.changed = True
                    new = self._loop.ask(room)
                    # a pair asked again (repeats) that this annotator answered waits for someone else
                    again = np.array([(int(i), int(j)) in seen for i, j in new], dtype=bool).reshape(-1)
                    self._store.add_pending(new[~again], annotator=holder, lease_until=until, connection=connection)
                    self._store.add_pending(new[again], annotator=None, connection=connection)
                    new = new[~again]
                after = self._store.pending_rows(connection=connection)
            self._loop.set_pending([(ask.i, ask.j) for ask in after])
            held = [(ask.i, ask.j) for ask in after if ask.annotator == holder]
            return SessionAsks(
                pairs=_named_pairs(held, self._items),
                n_new=len(new),
                annotator=holder,
                n_items=len(self._items),
                n_measured=self._loop.n_measured,
                n_pending=len(after),
                budget=self._budget,
                settings=self._settings,
            )

    def record(self, answers, *, source: str | None = None, annotator: str | None = None, key: str | None = None,
               cluster: bool = True) -> SessionAnswers:
        """Record answers to the pairs the session asked, and cluster every answer so far.

        Each answered row must name a pair that waits for an answer, in
        either order, once. Rows with an empty value (NaN) are skipped (not
        answered yet). A row naming a pair that does not wait for an answer
        is an error, unless the same answer (same pair, same value) is
        recorded already: the file was read before (perhaps by a run that
        was interrupted), and the row is skipped. So reading a file again, or
        again after filling in more of it, records each answer once. All the
        answers of a call are recorded in one transaction: all or none.

        Parameters
        ----------
        answers : pandas.DataFrame
            Columns i, j (item names) and value (the similarity in [0, 1], NaN
            when not answered yet), as :func:`~paucity.clustering.read_answers` gives.
        source : str, optional
            Who answered (a file name, an annotator), stored with each
            answer; ``annotator`` by default, else ``"answers"``.
        annotator : str, optional
            The annotator answering: each pair must then be one they hold
            (or one nobody holds that they neither answered nor skipped).
            None accepts answers to any waiting pair.
        key : str, optional
            The request's idempotency key (8 to 100 letters, digits, ``-`` or
            ``_``): a request sent again with the same key (its first reply was
            lost) records nothing more and reports its answers as recorded before.
        cluster : bool, default=True
            Cluster every answer so far (one eigen-update). The annotation
            page, which shows the next pair instead, leaves it out: the
            result's ``clusters`` is then None.

        Returns
        -------
        SessionAnswers
        """
        holder = None if annotator is None else check_annotator(annotator)
        key = None if key is None else check_key(key)
        if source is None:
            source = holder if holder is not None else "answers"
        check_parameter(source, "source", [Instance(str, description="a string")], owner="ClusteringSession.record")
        frame = _answers_frame(answers)
        answered = ~np.isnan(frame["value"].to_numpy())
        rows = frame.index[answered]
        first = frame["i"].to_numpy()[answered]
        second = frame["j"].to_numpy()[answered]
        values = frame["value"].to_numpy()[answered]
        pairs = np.empty((len(rows), 2), dtype=np.int64)
        for k, (row, a, b) in enumerate(zip(rows, first, second)):
            for name in (a, b):
                if name not in self._position:
                    raise InputError(
                        f"answers row {row} names {name!r}, which is not an item of the session "
                        f"({_few(self._items)}); check the spelling (names are compared as text, exactly)."
                    )
            if a == b:
                raise InputError(f"answers row {row} pairs {a!r} with itself; a similarity is between two items.")
            pairs[k] = sorted((self._position[a], self._position[b]))
        outside = (values < 0) | (values > 1) | ~np.isfinite(values)
        if outside.any():
            k = int(np.flatnonzero(outside)[0])
            raise InputError(
                f"answers row {rows[k]} gives {float(values[k])!r} for ({first[k]!r}, {second[k]!r}); similarities "
                "must be in [0, 1]. Rescale the answers (e.g. a rating r on 1..10 as r / 10)."
            )
        with self._lock:
            with self._writing() as write:
                connection, now = write.connection, time.time()
                if holder is not None:
                    self._refuse_stopped(holder, connection)
                repeated = key is not None and not self._new_key(key, holder or source, connection)
                waiting: dict[tuple[int, int], list] = {}
                for ask in write.asks:
                    waiting.setdefault((ask.i, ask.j), []).append(ask)
                seen = self._seen_by(holder, connection) if holder is not None else set()
                take = np.zeros(len(rows), dtype=bool)
                taken_at: dict[tuple[int, int], object] = {}
                for k, (i, j) in enumerate(pairs if not repeated else ()):  # a request sent again: recorded then
                    key = (int(i), int(j))
                    shown = f"({first[k]!r}, {second[k]!r})"
                    if waiting.get(key):
                        if holder is not None:
                            self._check_held(waiting[key][0], holder, key, seen, now, shown)
                        waiting[key].pop(0)
                        take[k] = True
                        taken_at[key] = rows[k]
                    elif self._recorded_before(key, float(values[k]), holder):
                        continue  # read before
                    elif key in taken_at:
                        raise InputError(
                            f"answers rows {taken_at[key]} and {rows[k]} both answer {shown}, which was asked once; "
                            "keep one of the two rows."
                        )
                    elif key in self._values:
                        raise InputError(
                            f"answers row {rows[k]} answers {shown}, which was answered already "
                            f"({len(self._values[key])} answer(s) recorded) and does not wait for another; remove "
                            "the row."
                        )
                    else:
                        raise InputError(
                            f"answers row {rows[k]} answers {shown}, which was never asked (or was withdrawn); answer "
                            "only the pairs the session asked for."
                        )
                if take.any():
                    self._store.add(pairs[take], values[take], source=source, connection=connection)
                    write.changed = True
                    self._sync(connection)  # the loop takes the answers as committed below
            return SessionAnswers(
                n_recorded=int(take.sum()),
                n_read_before=int(len(rows) - take.sum()),
                n_unanswered=int((~answered).sum()),
                n_measured=self._loop.n_measured,
                n_pending=self._loop.n_pending,
                budget=self._budget,
                clusters=self._clusters() if cluster else None,
            )

    def withdraw(self, pairs=None, *, annotator: str | None = None) -> SessionWithdrawal:
        """Withdraw asks that will never be answered: the pairs named, an annotator's, or every one.

        An ask is withdrawn when its answer will not come (the annotator
        left, the pair went out by mistake). A withdrawn pair no longer waits
        for an answer (an answer to it is refused as never asked), no longer
        counts against the budget, and may be asked again: it was never
        measured, and when nothing else changed the strategy chooses it
        again, so it can go to another annotator. Every row must name a pair
        that waits for an answer, in either order; otherwise nothing is
        withdrawn. The withdrawal is one transaction: all or nothing.

        Parameters
        ----------
        pairs : pandas.DataFrame, optional
            Columns i and j (item names), one row per ask to withdraw, as
            :func:`~paucity.clustering.read_pairs` gives (other columns are
            not used). None withdraws every pending ask (of ``annotator``).
        annotator : str, optional
            With ``pairs=None``: withdraw only the asks this annotator holds.

        Returns
        -------
        SessionWithdrawal
        """
        frame = None if pairs is None else _pairs_frame(pairs)
        holder = None if annotator is None else check_annotator(annotator)
        if frame is not None and holder is not None:
            raise ParameterError("withdraw takes pairs or an annotator, not both; the pairs named are withdrawn "
                                 "whoever holds them.")
        with self._lock:
            with self._writing() as write:
                connection, asks = write.connection, write.asks
                if frame is not None:
                    chosen = _pending_named(frame, self._items, asks, set(self._values))
                    withdrawn = self._store.withdraw_pending(chosen, connection=connection)
                elif holder is not None:
                    withdrawn = np.array([(ask.i, ask.j) for ask in asks if ask.annotator == holder],
                                         dtype=np.int64).reshape(-1, 2)
                    if len(withdrawn):
                        self._store.withdraw_pending(withdrawn, connection=connection)
                else:
                    withdrawn = self._store.withdraw_pending(None, connection=connection)
                self._sync(connection)
            return SessionWithdrawal(
                withdrawn=_named_pairs(withdrawn, self._items).drop(columns="value"),
                n_pending=self._loop.n_pending,
                n_measured=self._loop.n_measured,
                budget=self._budget,
            )

    def release(self, annotator: str) -> int:
        """Give back, unanswered, every pair ``annotator`` holds (they closed the page): the next asker gets them.

        Returns
        -------
        int
            The pairs given back.
        """
        holder = check_annotator(annotator)
        with self._lock, self._store.transaction(lock=True) as connection:
            ids = [ask.id for ask in self._store.pending_rows(connection=connection) if ask.annotator == holder]
            self._store.hold(ids, annotator=None, lease_until=None, connection=connection)
            return len(ids)

    def skip(self, annotator: str, i: str, j: str, *, key: str | None = None) -> None:
        """``annotator`` gives the pair (i, j) back unanswered: someone else gets it, they never get it again.

        ``key``: the request's idempotency key, as :meth:`record` takes it (a skip sent again does nothing)."""
        holder = check_annotator(annotator)
        request = None if key is None else check_key(key)
        key, shown = self._pair_of(i, j)
        with self._lock:
            with self._writing() as write:
                connection = write.connection
                if request is not None and not self._new_key(request, holder, connection):
                    return
                asks = [ask for ask in write.asks if (ask.i, ask.j) == key]
                if not asks:
                    raise ParameterError(f"the pair {shown} does not wait for an answer (answered already, or "
                                         "never asked).")
                self._check_held(asks[0], holder, key, self._seen_by(holder, connection), time.time(), shown)
                self._store.hold([ask.id for ask in asks], annotator=None, lease_until=None, connection=connection)
                self._store.add_skip(key[0], key[1], holder, connection=connection)

    def extend(self, budget) -> "ClusteringSession":
        """Raise the session's budget (an int: measurements; a float: a fraction of the pairs times ``repeats``).

        The budget is the one setting that changes after a session starts,
        and only upwards, by this verb: a finished session continues.
        """
        check_parameter(budget, "budget", _CONSTRAINTS["budget"], owner="ClusteringSession.extend",
                        hint=_HINTS["budget"])
        settings = replace(self._settings, budget=budget)
        measurements = _measurements(settings, len(self._items), owner="ClusteringSession.extend")
        with self._lock, self._store.transaction(lock=True) as connection:
            stored = _stored_session(self._store, _metadata(self._store, connection))
            current = stored[1] if stored is not None else self._settings
            now = _measurements(current, len(self._items))
            if measurements < now:
                raise ParameterError(
                    f"{owner_prefix('ClusteringSession.extend')}{_as_typed('budget', budget)} is {measurements} "
                    f"measurements, fewer than the session's {now}; a budget is only raised."
                )
            settings = replace(current, budget=budget)
            self._store.update_metadata({_SETTINGS_KEY: json.dumps(settings.to_dict())}, connection=connection)
        self._settings, self._budget = settings, measurements
        if self._loop is not None:
            self._loop.budget = measurements
        return self

    # -- annotators: access, pause, exclusion -------------------------------------------------------------------
    def invite(self, names) -> dict[str, str | None]:
        """Give each annotator named a personal access token: ``{name: token}``, None for one invited already.

        Only a token's SHA-256 hash is kept in the database: the token is
        shown this once (the annotation page puts it in the annotator's
        link). An annotator invited already keeps their token (None here);
        :meth:`new_link` gives them a new one.
        """
        names = [check_annotator(name) for name in _names(names)]
        tokens: dict[str, str | None] = {}
        with self._lock, self._store.transaction(lock=True) as connection:
            known = self._annotator_rows(connection)
            for name in names:
                row = known.get(name)
                if row is not None and row.token_hash is not None:
                    tokens[name] = None
                    continue
                token = new_token()
                self._put_annotator(connection, name, token_hash=hash_token(token), state="active",
                                    excluded=bool(row.excluded) if row is not None else False, known=row is not None)
                tokens[name] = token
        return tokens

    def new_link(self, annotator: str) -> str:
        """A new access token for ``annotator`` (the old one stops working at once); a revoked annotator is active
        again with it."""
        name = check_annotator(annotator)
        token = new_token()
        with self._lock, self._store.transaction(lock=True) as connection:
            row = self._annotator_rows(connection).get(name)
            self._put_annotator(connection, name, token_hash=hash_token(token), state="active",
                                excluded=bool(row.excluded) if row is not None else False, known=row is not None)
        return token

    def pause(self, annotator: str) -> None:
        """Stop handing pairs to ``annotator`` (their pairs go back to the others); :meth:`resume` lets them go on."""
        self._set_state(annotator, "paused")

    def resume(self, annotator: str) -> None:
        """Let a paused annotator answer again."""
        self._set_state(annotator, "active")

    def revoke(self, annotator: str) -> None:
        """End ``annotator``'s access at once: their token no longer works and their pairs go back to the others."""
        self._set_state(annotator, "revoked")

    def exclude(self, annotator: str, excluded: bool = True) -> None:
        """Leave every answer of ``annotator`` (or of an answers file, by its source name) out of the clustering,
        or, with ``excluded=False``, take them in again. The answers stay in the database, marked; excluded
        answers do not count against the budget, so their pairs may be asked again."""
        name = check_annotator(annotator)
        with self._lock, self._store.transaction(lock=True) as connection:
            row = self._annotator_rows(connection).get(name)
            self._put_annotator(connection, name, token_hash=None if row is None else row.token_hash,
                                state="active" if row is None else row.state, excluded=bool(excluded),
                                known=row is not None)

    def identify(self, token: str) -> tuple[str, str] | None:
        """The annotator a token belongs to, and their state (``"active"``, ``"paused"`` or ``"revoked"``); None for
        a token that is not an annotator's."""
        import sqlalchemy as sa

        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        table = self._store.table("annotators")
        rows = self._store.rows(sa.select(table.c.name, table.c.state).where(table.c.token_hash == hash_token(token)))
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    def annotators(self) -> pd.DataFrame:
        """Every annotator the session knows: annotator, state, invited (holds a token), excluded."""
        rows = sorted(self._annotator_rows().values(), key=lambda row: row.name)
        return pd.DataFrame({
            "annotator": pd.array([row.name for row in rows], dtype=object),
            "state": pd.array([row.state for row in rows], dtype=object),
            "invited": np.array([row.token_hash is not None for row in rows], dtype=bool),
            "excluded": np.array([bool(row.excluded) for row in rows], dtype=bool),
        })

    # -- gold pairs ----------------------------------------------------------------------------------------------
    def add_gold(self, pairs) -> int:
        """Add pairs whose answer is known (columns i, j and value, a similarity in [0, 1]; the same pair again
        replaces its value). Gold pairs are shown to annotators like any other (the annotation page mixes them in)
        and their answers measure each annotator's accuracy; they are never measurements of the clustering.
        Returns the number of gold pairs."""
        frame = _answers_frame(pairs)
        if frame["value"].isna().any():
            row = frame.index[int(np.flatnonzero(frame["value"].isna().to_numpy())[0])]
            raise InputError(f"gold row {row} has no value; a gold pair needs its known similarity in [0, 1].")
        import sqlalchemy as sa

        rows = []
        for row, a, b, value in zip(frame.index, frame["i"], frame["j"], frame["value"]):
            for name in (a, b):
                if name not in self._position:
                    raise InputError(f"gold row {row} names {name!r}, which is not an item of the session "
                                     f"({_few(self._items)}).")
            if a == b:
                raise InputError(f"gold row {row} pairs {a!r} with itself; a gold pair is two items.")
            if not 0 <= value <= 1:
                raise InputError(f"gold row {row} gives {float(value)!r} for ({a!r}, {b!r}); a known similarity is "
                                 "in [0, 1].")
            i, j = sorted((self._position[a], self._position[b]))
            rows.append({"i": i, "j": j, "value": float(value)})
        table = self._store.table("gold")
        with self._lock, self._store.transaction(lock=True) as connection:
            for values in rows:
                connection.execute(sa.delete(table).where(table.c.i == values["i"], table.c.j == values["j"]))
                connection.execute(table.insert(), values)
            return int(connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())

    def gold(self) -> pd.DataFrame:
        """The gold pairs: i, j (item names), value (the known similarity)."""
        table = self._store.table("gold")
        rows = self._store.rows(table.select().order_by(table.c.i, table.c.j))
        names = np.asarray(self._items, dtype=object)
        return pd.DataFrame({"i": names[[row.i for row in rows]] if rows else [],
                             "j": names[[row.j for row in rows]] if rows else [],
                             "value": [float(row.value) for row in rows]})

    def gold_pair(self, annotator: str, *, take: bool) -> tuple[str, str] | None:
        """The gold pair on ``annotator``'s screen; with ``take``, when none is, a gold pair they have not answered,
        put on their screen. None when there is none."""
        import sqlalchemy as sa

        holder = check_annotator(annotator)
        names = self._items
        with self._lock, self._store.transaction(lock=take) as connection:
            row = self._annotator_rows(connection).get(holder)
            if row is not None and row.gold_i is not None:
                return names[row.gold_i], names[row.gold_j]
            if not take:
                return None
            self._refuse_stopped(holder, connection)
            answers = self._store.table("gold_answers")
            done = {(int(i), int(j)) for i, j in connection.execute(
                sa.select(answers.c.i, answers.c.j).where(answers.c.annotator == holder))}
            skipped = self._store.skipped_by(holder, connection=connection)
            gold = self._store.table("gold")
            for i, j in connection.execute(sa.select(gold.c.i, gold.c.j).order_by(gold.c.i, gold.c.j)):
                if (i, j) not in done and (i, j) not in skipped:
                    self._put_annotator(connection, holder, token_hash=None if row is None else row.token_hash,
                                        state="active" if row is None else row.state,
                                        excluded=False if row is None else bool(row.excluded),
                                        known=row is not None, gold=(i, j))
                    return names[i], names[j]
            return None

    def record_gold(self, annotator: str, i: str, j: str, value: float, *, key: str | None = None) -> bool:
        """Record ``annotator``'s answer (a similarity in [0, 1]) to the gold pair on their screen; returns False
        when the request was recorded before (its key seen) or the pair is not their gold pair."""
        import sqlalchemy as sa

        holder = check_annotator(annotator)
        request = None if key is None else check_key(key)
        pair, _ = self._pair_of(i, j)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
            raise ParameterError(f"value must be a similarity in [0, 1], got {value!r}.")
        with self._lock, self._store.transaction(lock=True) as connection:
            if request is not None and not self._new_key(request, holder, connection):
                return False
            row = self._annotator_rows(connection).get(holder)
            if row is None or (row.gold_i, row.gold_j) != pair:
                return False
            gold = self._store.table("gold")
            known = connection.execute(sa.select(gold.c.value).where(gold.c.i == pair[0], gold.c.j == pair[1])).scalar()
            connection.execute(self._store.table("gold_answers").insert(), {
                "i": pair[0], "j": pair[1], "value": float(value), "gold": float(known), "annotator": holder,
                "time": time.time()})
            self._put_annotator(connection, holder, token_hash=row.token_hash, state=row.state,
                                excluded=bool(row.excluded), known=True, gold=None)
            return True

    def skip_gold(self, annotator: str) -> None:
        """``annotator`` skips the gold pair on their screen (it is not shown to them again)."""
        holder = check_annotator(annotator)
        with self._lock, self._store.transaction(lock=True) as connection:
            row = self._annotator_rows(connection).get(holder)
            if row is None or row.gold_i is None:
                return
            self._store.add_skip(row.gold_i, row.gold_j, holder, connection=connection)
            self._put_annotator(connection, holder, token_hash=row.token_hash, state=row.state,
                                excluded=bool(row.excluded), known=True, gold=None)

    def gold_answers(self) -> pd.DataFrame:
        """Every answer to a gold pair: i, j (item names), value, gold (the known value), annotator, time."""
        table = self._store.table("gold_answers")
        rows = self._store.rows(table.select().order_by(table.c.id))
        names = np.asarray(self._items, dtype=object)
        return pd.DataFrame({
            "i": pd.array([names[row.i] for row in rows], dtype=object),
            "j": pd.array([names[row.j] for row in rows], dtype=object),
            "value": np.array([row.value for row in rows], dtype=np.float64),
            "gold": np.array([row.gold for row in rows], dtype=np.float64),
            "annotator": pd.array([row.annotator for row in rows], dtype=object),
            "time": np.array([row.time for row in rows], dtype=np.float64),
        })

    # -- quality and export --------------------------------------------------------------------------------------
    def export(self) -> pd.DataFrame:
        """Every answer, gold answers included: i, j, value, annotator, time, gold (True for a gold pair's answer),
        gold_value (the known value, NaN otherwise), excluded (an excluded annotator's answer), in the order given."""
        answers = self.answers()
        excluded = self._excluded_sources()
        real = pd.DataFrame({
            "i": answers["i"], "j": answers["j"], "value": answers["value"], "annotator": answers["source"],
            "time": answers["time"], "gold": False, "gold_value": np.nan,
            "excluded": answers["source"].isin(excluded).to_numpy(),
        })
        gold = self.gold_answers()
        marked = pd.DataFrame({
            "i": gold["i"], "j": gold["j"], "value": gold["value"], "annotator": gold["annotator"],
            "time": gold["time"], "gold": True, "gold_value": gold["gold"],
            "excluded": gold["annotator"].isin(excluded).to_numpy(),
        })
        frames = [frame for frame in (real, marked) if len(frame)]
        if not frames:
            return real
        return pd.concat(frames, ignore_index=True).sort_values("time", kind="stable").reset_index(drop=True)

    def quality(self) -> SessionQuality:
        """Each annotator's accuracy on gold pairs and agreement with the others, and Krippendorff's alpha.

        See :func:`~paucity.clustering.agreement.annotator_quality`."""
        from .agreement import annotator_quality

        table = self.export()
        states = self.annotators()
        return annotator_quality(table, states)

    # -- reading -------------------------------------------------------------------------------------------------
    def status(self) -> SessionStatus:
        """Where the session stands: answers, pairs waiting and held, budget, cost, annotators, clusters so far."""
        with self._lock:
            self._refresh_settings()
            with self._store.transaction() as connection:
                asks = self._sync(connection)
                counts = self._store.counts_by_source(connection=connection)
            now = time.time()
            holding: dict[str, int] = {}
            for ask in asks:
                if ask.annotator is not None and not (ask.lease_until is not None and ask.lease_until < now):
                    holding[ask.annotator] = holding.get(ask.annotator, 0) + 1
            names = sorted(set(counts) | set(holding))
            annotators = pd.DataFrame({
                "annotator": pd.array(names, dtype=object),
                "n_answers": np.array([counts.get(name, 0) for name in names], dtype=np.int64),
                "n_holding": np.array([holding.get(name, 0) for name in names], dtype=np.int64),
            })
            return SessionStatus(
                database=self.database,
                settings=self._settings,
                n_items=len(self._items),
                n_measured=self._loop.n_measured,
                n_pending=len(asks),
                n_out=sum(holding.values()),
                budget=self._budget,
                cost=round(self._settings.price * self._loop.n_measured, 10),  # 12 x 0.05 is 0.6
                annotators=annotators,
                clusters=self._clusters(),
            )

    def clusters(self) -> SessionClusters:
        """The clustering of every answer so far."""
        with self._lock:
            self._catch_up()
            return self._clusters()

    def answers(self, *, last: int | None = None) -> pd.DataFrame:
        """Every answer in the order recorded: order, i, j (item names), value, time, source, repeat.

        With ``last``, the last answers only, newest first (without the repeat column).
        """
        frame = self._store.measurements() if last is None else self._store.recent(last)
        names = np.asarray(self._items, dtype=object)
        frame["i"] = names[frame["i"].to_numpy()]
        frame["j"] = names[frame["j"].to_numpy()]
        return frame

    def held_by(self, annotator: str) -> list[tuple[str, str]]:
        """The pairs ``annotator`` holds now (whose lease has not ended), in the order asked."""
        holder = check_annotator(annotator)
        now = time.time()
        names = self._items
        return [(names[ask.i], names[ask.j]) for ask in self._store.pending_rows()
                if ask.annotator == holder and not (ask.lease_until is not None and ask.lease_until < now)]

    def answer_count(self, annotator: str) -> tuple[int, int]:
        """How many answers ``annotator`` gave: to real pairs, and to gold pairs."""
        import sqlalchemy as sa

        measurements, gold = self._store.table("measurements"), self._store.table("gold_answers")
        query = sa.select(
            sa.select(sa.func.count()).select_from(measurements).where(measurements.c.source == annotator)
            .scalar_subquery(),
            sa.select(sa.func.count()).select_from(gold).where(gold.c.annotator == annotator).scalar_subquery(),
        )
        real, golden = self._store.rows(query)[0]
        return int(real), int(golden)

    def state_of(self, annotator: str) -> str:
        """``"active"``, ``"paused"`` or ``"revoked"`` (an annotator the session does not know is active)."""
        import sqlalchemy as sa

        table = self._store.table("annotators")
        rows = self._store.rows(sa.select(table.c.state).where(table.c.name == annotator))
        return str(rows[0][0]) if rows else "active"

    def answer_counts(self) -> dict[str, int]:
        """Answers per source (the annotator, or the file they came from)."""
        return self._store.counts_by_source()

    def waiting(self) -> pd.DataFrame:
        """Every pair waiting for an answer, in the order asked: i, j, annotator (None: nobody), asked, lease_until."""
        asks = self._store.pending_asks()
        names = np.asarray(self._items, dtype=object)
        return pd.DataFrame({
            "i": names[asks["i"].to_numpy()], "j": names[asks["j"].to_numpy()], "annotator": asks["annotator"],
            "asked": asks["time"], "lease_until": asks["lease_until"],
        })

    # -- what the estimator uses (item indices, its own checks) --------------------------------------------------
    def _loop_for_estimator(self, reference) -> None:
        self._reference = reference
        with self._lock:
            self._catch_up()

    def _waiting_pairs(self) -> np.ndarray:
        with self._lock:
            with self._store.transaction() as connection:
                self._sync(connection)
            return self._loop.pending_pairs()

    def _choose(self, n: int) -> np.ndarray:
        """``n`` new pairs (fewer when the budget, counting pending asks, is nearly spent), held by nobody named."""
        with self._lock:
            with self._writing() as write:
                loop = self._loop
                count = min(int(n), loop.budget - loop.n_measured - loop.n_pending)
                pairs = np.empty((0, 2), dtype=np.int64)
                if count > 0:
                    write.changed = True
                    pairs = loop.ask(count)
                    self._store.add_pending(pairs, annotator=_UNNAMED, connection=write.connection)
            return pairs

    def _record_pairs(self, pairs: np.ndarray, values: np.ndarray, *, source: str) -> None:
        pairs = check_pairs(pairs, len(self._items))
        values = check_values(values, len(pairs))
        with self._lock:
            with self._writing() as write:
                self._loop.check_asked(pairs)
                self._store.add(pairs, values, source=source, connection=write.connection)
                write.changed = True
                self._sync(write.connection)

    def _withdraw_pairs(self, pairs) -> np.ndarray:
        with self._lock:
            with self._writing() as write:
                if pairs is not None:
                    self._loop.check_asked(
                        pairs, hint="withdraw() takes pairs that ask() returned and wait for an answer")
                withdrawn = self._store.withdraw_pending(pairs, connection=write.connection)
                self._sync(write.connection)
            return withdrawn

    # -- internals -----------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _writing(self):
        """One transaction holding the database's write lock, the loop brought up to it: yields a
        :class:`_Write` (its ``connection`` and the pending ``asks``). A caller sets ``changed`` before it changes
        the loop: if the transaction then fails, the loop is read again from the database by the next verb."""
        self._catch_up(exclusions=False)  # the bulk of a replay, outside the lock
        write = _Write()
        try:
            with self._store.transaction(lock=True) as connection:
                write.connection = connection
                write.asks = self._sync(connection)
                yield write
        except BaseException:
            if write.changed:
                self._loop = None
            raise

    def _batch(self, n) -> int:
        if n is None:
            return self._settings.batch_size
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ParameterError(f"{owner_prefix('ClusteringSession.ask')}{spelled('n')} must be an integer >= 1, "
                                 f"got {n!r}.")
        return int(n)

    def _ensure_loop(self) -> None:
        if self._loop is None:
            from .loop import new_loop

            settings = self._settings
            params = {"strategy": settings.strategy, "interleave": settings.interleave, "repeats": settings.repeats,
                      "batch_size": settings.batch_size, "n_clusters": settings.n_clusters, "cut": settings.cut}
            self._loop = new_loop(len(self._items), params, budget=self._budget, seed=settings.random_state,
                                  reference=self._reference)
            self._seen = 0
            self._values, self._sources, self._answered_by = {}, {}, {}

    def _catch_up(self, connection=None, *, exclusions: bool = True) -> None:
        """Give the loop the answers recorded since it last read them (outside the lock: the bulk of a replay).

        Answers of excluded annotators are left out of the loop; when the coordinator excludes (or takes back)
        one, the loop is built again from every answer (``exclusions=False`` skips that check, which the locked
        transaction that follows makes)."""
        excluded = self._excluded_sources(connection) if exclusions else self._excluded
        if excluded != self._excluded:
            self._loop, self._excluded = None, excluded
        self._ensure_loop()
        n = len(self._items)
        for order, i, j, value, source in self._store.measurement_rows(after=self._seen, connection=connection):
            if not 0 <= i < j < n:
                raise ReaderError(f"{self.database} is damaged: it holds a measurement of the pair ({i}, {j}) of "
                                  f"a session over {n} items.")
            self._seen = order
            self._answered_by.setdefault(source, set()).add((i, j))
            if source in excluded:
                continue
            value = float(value)
            self._loop.remember_measurement(i, j, value)
            self._values.setdefault((i, j), []).append(value)
            self._sources.setdefault((i, j), []).append(source)

    def _excluded_sources(self, connection=None) -> frozenset:
        import sqlalchemy as sa

        table = self._store.table("annotators")
        rows = self._store.rows(sa.select(table.c.name).where(table.c.excluded.is_(True)), connection)
        return frozenset(row[0] for row in rows)

    def _sync(self, connection) -> list:
        """Bring the loop up to the database in ``connection``: the answers since its last read, and every pending
        ask. Returns the pending asks (:data:`~paucity.clustering.store.Ask` tuples), in the order asked."""
        self._catch_up(connection)
        asks = self._store.pending_rows(connection=connection)
        self._loop.set_pending([(ask.i, ask.j) for ask in asks])
        return asks

    def _clusters(self) -> SessionClusters:
        labels, fiedler = self._loop.clusters()
        return SessionClusters(items=self._items, labels=np.asarray(labels), embedding=np.asarray(fiedler.vector))

    def _refresh_settings(self) -> None:
        """Read the settings again (another process may have raised the budget)."""
        stored = _stored_session(self._store, self._store.metadata)
        if stored is not None and stored[1] != self._settings:
            self._settings = stored[1]
            self._budget = _measurements(self._settings, len(self._items))
            if self._loop is not None:
                self._loop.budget = self._budget

    def _annotator_rows(self, connection=None) -> dict:
        table = self._store.table("annotators")
        return {row.name: row for row in self._store.rows(table.select(), connection)}

    def _put_annotator(self, connection, name: str, *, token_hash, state: str, excluded: bool, known: bool,
                       gold=False) -> None:
        """Write an annotator's row (``gold``: the gold pair on their screen, None for none, False to keep it)."""
        import sqlalchemy as sa

        table = self._store.table("annotators")
        values = {"token_hash": token_hash, "state": state, "excluded": bool(excluded), "changed": time.time()}
        if gold is not False:
            values.update(gold_i=None if gold is None else int(gold[0]), gold_j=None if gold is None else int(gold[1]))
        if known:
            connection.execute(sa.update(table).where(table.c.name == name).values(**values))
        else:
            values.setdefault("gold_i", None)
            values.setdefault("gold_j", None)
            connection.execute(table.insert(), {"name": name, **values})

    def _set_state(self, annotator: str, state: str) -> None:
        name = check_annotator(annotator)
        with self._lock, self._store.transaction(lock=True) as connection:
            row = self._annotator_rows(connection).get(name)
            gold = None if state != "active" else False
            self._put_annotator(connection, name, token_hash=None if row is None else row.token_hash, state=state,
                                excluded=False if row is None else bool(row.excluded), known=row is not None,
                                gold=gold)
            if state != "active":  # their pairs go back to the others at once
                ids = [ask.id for ask in self._store.pending_rows(connection=connection) if ask.annotator == name]
                self._store.hold(ids, annotator=None, lease_until=None, connection=connection)

    def _refuse_stopped(self, annotator: str, connection) -> None:
        """A paused or revoked annotator neither gets pairs nor answers."""
        import sqlalchemy as sa

        if annotator == _UNNAMED:
            return
        table = self._store.table("annotators")
        state = connection.execute(sa.select(table.c.state).where(table.c.name == annotator)).scalar()
        if state in ("paused", "revoked"):
            raise ParameterError(f"{annotator!r} is {state} by the coordinator: no more pairs or answers for now.")

    def _new_key(self, key: str, annotator: str, connection) -> bool:
        """Remember a request's key; False when it was seen before (the request is a repeat)."""
        import sqlalchemy as sa

        table = self._store.table("request_keys")
        if connection.execute(sa.select(table.c.key).where(table.c.key == key)).first() is not None:
            return False
        connection.execute(table.insert(), {"key": key, "annotator": annotator, "time": time.time()})
        return True

    def _recorded_before(self, key, value: float, holder: str | None) -> bool:
        """The same answer to the same pair is recorded (by ``holder``, when one answers)."""
        return any(value == recorded and (holder is None or source == holder)
                   for recorded, source in zip(self._values.get(key, ()), self._sources.get(key, ())))

    def _seen_by(self, annotator: str, connection) -> set[tuple[int, int]]:
        """The pairs ``annotator`` answered or skipped (never handed to them again)."""
        return self._answered_by.get(annotator, set()) | self._store.skipped_by(annotator, connection=connection)

    def _check_held(self, ask, holder: str, key, seen, now: float, shown: str) -> None:
        """Refuse an answer or a skip of ``holder`` to a pair someone else holds (or they answered or skipped)."""
        expired = ask.lease_until is not None and ask.lease_until < now
        if ask.annotator == holder:
            return
        if (ask.annotator is None or expired) and key not in seen:
            return  # nobody holds it (a restarted page, an expired lease): theirs if they never had it
        lease = self._settings.lease_seconds
        raise ParameterError(
            f"the pair {shown} was not shown to {holder!r} (or was given to someone else after {lease:.0f} s); "
            "ask for the next pair."
        )

    def _pair_of(self, i, j) -> tuple[tuple[int, int], str]:
        for name in (i, j):
            if not isinstance(name, str) or name not in self._position:
                shown = name[:40] if isinstance(name, str) else name
                raise ParameterError(f"{shown!r} is not an item of this session; answer the pair the page showed.")
        a, b = sorted((self._position[i], self._position[j]))
        return (a, b), f"({i!r}, {j!r})"


class _Write:
    """What :meth:`ClusteringSession._writing` yields: the locked transaction's connection and pending asks."""

    def __init__(self):
        self.connection = None
        self.asks: list = []
        self.changed = False


# -- checks --------------------------------------------------------------------------------------------------------
def check_annotator(annotator) -> str:
    """An annotator's name: 1 to 100 characters, no control characters (surrounding spaces removed).

    Examples
    --------
    >>> check_annotator(" alice@lab ")
    'alice@lab'
    >>> check_annotator("")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: annotator must be a name of 1 to 100 characters without control characters, got ''.
    """
    text = annotator.strip() if isinstance(annotator, str) else None
    if not text or len(text) > _LONGEST_ANNOTATOR or any(ord(c) < 32 or ord(c) == 127 for c in text):
        shown = annotator[:40] if isinstance(annotator, str) else annotator
        raise ParameterError(
            f"{spelled('annotator')} must be a name of 1 to {_LONGEST_ANNOTATOR} characters without control "
            f"characters, got {shown!r}."
        )
    return text


def check_key(key) -> str:
    """A request's idempotency key: 8 to 100 letters, digits, ``-`` or ``_``."""
    if not isinstance(key, str) or not 8 <= len(key) <= 100 or not all(c.isascii() and (c.isalnum() or c in "-_")
                                                                        for c in key):
        shown = key[:40] if isinstance(key, str) else key
        raise ParameterError(f"key must be 8 to 100 letters, digits, - or _ (a random id per request), got {shown!r}.")
    return key


def new_token() -> str:
    """A fresh random access token (192 bits, URL-safe)."""
    import secrets

    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest of a token: what the database keeps instead of the token.

    Examples
    --------
    >>> hash_token("abc")[:16]
    'ba7816bf8f01cfea'
    """
    import hashlib

    return hashlib.sha256(token.encode()).hexdigest()


def _names(names) -> list:
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        raise InputTypeError(f"names must be a list of annotator names, got {names!r}.")
    return list(names)


def check_items(items) -> list[str]:
    """Item names: a sequence of at least 3 distinct, non-empty names (as text)."""
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise InputTypeError(f"items must be a sequence of item names, got {items!r}.")
    names = list(items)
    for k, name in enumerate(names):
        if name is None or (isinstance(name, float) and np.isnan(name)) or str(name) == "":
            raise InputError(f"items has no name at position {k}; name every item.")
    names = [str(name) for name in names]
    refuse_repeated(names, "items names")
    if len(names) < MIN_ITEMS:
        raise InputError(
            f"items names {len(names)} item(s), but clustering by spectral bisection needs at least {MIN_ITEMS}."
        )
    return names


def _given(**settings) -> dict:
    return {name: value for name, value in settings.items() if value is not None}


def _check_given(given: dict, owner: str = "ClusteringSession") -> dict:
    checked = {}
    for name, value in given.items():
        checked[name] = check_parameter(value, name, _CONSTRAINTS[name], owner=owner, hint=_HINTS.get(name))
    for name in ("price", "lease_seconds"):
        if name in checked and not math.isfinite(float(checked[name])):
            raise ParameterError(f"{owner_prefix(owner)}{spelled(name)} must be a finite number, got {checked[name]!r}.")
    return checked


def _new_settings(given: dict, n: int, *, owner: str) -> SessionSettings:
    """The settings of a new session over ``n`` items: the given ones checked, the others the defaults."""
    from .loop import base_seed

    values = {**SESSION_DEFAULTS, **_check_given(given, owner)}
    if values["random_state"] is None:
        values["random_state"] = base_seed(None)
    settings = SessionSettings(
        strategy=str(values["strategy"]),
        interleave=bool(values["interleave"]),
        budget=_plain(values["budget"]),
        repeats=int(values["repeats"]),
        batch_size=int(values["batch_size"]),
        n_clusters=int(values["n_clusters"]),
        random_state=int(values["random_state"]),
        price=float(values["price"]),
        lease_seconds=float(values["lease_seconds"]),
        cut=str(values["cut"]).lower(),
    )
    check_interleave(settings.strategy, settings.interleave, owner=owner)
    if settings.n_clusters > n:
        raise ParameterError(f"{owner_prefix(owner)}{_as_typed('n_clusters', settings.n_clusters)} but there are only "
                             f"{n} items.")
    _measurements(settings, n, owner=owner)
    return settings


def _measurements(settings: SessionSettings, n: int, owner: str = "ClusteringSession") -> int:
    from .loop import resolve_budget

    return resolve_budget(settings.budget, n, settings.repeats, owner=owner)


def _refuse_other_settings(store, stored: SessionSettings, given: dict, n: int, *, owner: str) -> None:
    """One line naming every setting given that differs from the session's, and both values."""
    given = _check_given(given, owner)
    differ = []
    for name, value in given.items():
        have = getattr(stored, name)
        if name == "budget":
            same = _measurements(replace(stored, budget=value), n, owner=owner) == _measurements(stored, n)
        elif name in ("price", "lease_seconds"):
            same = float(value) == float(have)
        elif name == "interleave":
            same = bool(value) == bool(have)
        elif name in ("strategy", "cut"):
            same = str(value).lower() == str(have).lower()
        else:
            same = int(value) == int(have)
        if not same:
            differ.append((name, have, _plain(value)))
    if differ:
        stored_text = ", ".join(_as_typed(name, have) for name, have, _ in differ)
        given_text = ", ".join(_as_typed(name, value) for name, _, value in differ)
        names = ", ".join(spelled(name) for name, _, _ in differ)
        extend = " (a larger budget is given by extend)" if any(name == "budget" for name, _, _ in differ) else ""
        raise ParameterError(
            f"{owner_prefix(owner)}the session in {store.shown} has {stored_text}; {given_text} would make another "
            "session. "
            f"Leave {names} out (or give the session's) to resume it{extend}, or give a new database."
        )


def _metadata(store, connection) -> dict:
    return store.read_metadata(connection=connection)


def _stored_session(store, meta: dict, given: dict | None = None) -> tuple[list[str], SessionSettings] | None:
    """The items and settings a database keeps (a version-1 store's, read as they were), or None.

    A version-1 store written by ``ActiveSpectralClustering`` kept no budget and
    no batch size: the ones ``given`` (else the defaults) stand for them.
    """
    n_text = meta.get("n_items")
    if _SETTINGS_KEY in meta:
        raw = meta[_SETTINGS_KEY]
    elif _V1_SETTINGS_KEY in meta or "seed" in meta:
        raw = None
    else:
        return None
    try:
        if raw is not None:
            values = json.loads(raw)
        else:  # version 1: next_pairs' JSON, or the keys ActiveSpectralClustering wrote
            values = dict(SESSION_DEFAULTS)
            if _V1_SETTINGS_KEY in meta:
                values.update(json.loads(meta[_V1_SETTINGS_KEY]))
            else:
                values.update(strategy=meta.get("strategy", "iu_red"), interleave=meta.get("interleave") == "True",
                              repeats=int(meta.get("repeats", 1)), n_clusters=int(meta.get("n_clusters", 2)))
                values.update({name: given[name] for name in ("budget", "batch_size") if name in (given or {})})
            if "seed" in meta:
                values["random_state"] = int(meta["seed"])
        values.setdefault("cut", SESSION_DEFAULTS["cut"])  # stored before the setting existed: the seed's rule
        fields = {name: values[name] for name in SESSION_DEFAULTS}
        items = json.loads(meta[_ITEMS_KEY]) if _ITEMS_KEY in meta else [str(k) for k in range(int(n_text))]
        items = [str(name) for name in items]
        settings = SessionSettings(**fields)
        if settings.random_state is None or len(items) < MIN_ITEMS:
            raise ValueError("incomplete")
    except (TypeError, ValueError, KeyError) as exc:
        raise ReaderError(
            f"{store.shown} is damaged: its session record cannot be read ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else 'incomplete'}); restore it from a copy."
        ) from None
    return items, settings


def _spelled(strategy: str) -> str:
    return strategy.replace("_", "-")


def _items_differ(stored: Sequence[str], given: Sequence[str]) -> str:
    if len(stored) != len(given):
        return f"the session has {len(stored)} items but items names {len(given)}"
    k = next(k for k, (a, b) in enumerate(zip(stored, given)) if a != b)
    return f"the session's item {k} is {stored[k]!r} but items names {given[k]!r} there"


def _answers_frame(answers) -> pd.DataFrame:
    if not isinstance(answers, pd.DataFrame):
        raise InputTypeError(
            f"answers must be a pandas DataFrame with columns i, j and value (read_answers gives one), got "
            f"{type(answers).__name__}."
        )
    check_columns(answers, "answers", {"i": "i", "j": "j", "value": "value"})
    column = answers["value"]
    if column.dtype.kind in "fiub":
        values = column.to_numpy(dtype=np.float64)
    else:
        converted = pd.to_numeric(column, errors="coerce")
        bad = converted.isna() & column.notna()
        if bad.any():
            row = column.index[int(bad.to_numpy().argmax())]
            raise InputError(f"answers row {row} has {column.loc[row]!r} as its value; a similarity is a number in "
                             "[0, 1] (NaN while the pair is not answered yet).")
        values = converted.to_numpy(dtype=np.float64)
    frame = pd.DataFrame({"i": answers["i"].to_numpy(dtype=object), "j": answers["j"].to_numpy(dtype=object),
                          "value": values}, index=answers.index)
    answered = ~np.isnan(values)
    for role in ("i", "j"):
        missing = frame[role].isna().to_numpy() & answered
        if missing.any():
            row = frame.index[int(np.flatnonzero(missing)[0])]
            raise InputError(f"answers row {row} has a value but no item in column {role!r}; name both items.")
        frame[role] = [None if name is None or (isinstance(name, float) and np.isnan(name)) else str(name)
                       for name in frame[role]]
    return frame


def _pairs_frame(pairs) -> pd.DataFrame:
    if not isinstance(pairs, pd.DataFrame):
        raise InputTypeError(
            f"pairs must be a pandas DataFrame with columns i and j (read_pairs gives one), or None to withdraw "
            f"every pending ask; got {type(pairs).__name__}."
        )
    check_columns(pairs, "pairs", {"i": "i", "j": "j"}, what="of the two items")
    if len(pairs) == 0:
        raise InputError("pairs names no pair to withdraw; give one row per ask, or pairs=None to withdraw every "
                         "pending ask.")
    frame = pd.DataFrame({"i": pairs["i"].to_numpy(dtype=object), "j": pairs["j"].to_numpy(dtype=object)},
                         index=pairs.index)
    for role in ("i", "j"):
        missing = frame[role].isna().to_numpy()
        if missing.any():
            row = frame.index[int(np.flatnonzero(missing)[0])]
            raise InputError(f"pairs row {row} has no item in column {role!r}; name both items.")
        frame[role] = [str(name) for name in frame[role]]
    return frame


def _pending_named(frame: pd.DataFrame, names: Sequence[str], asks: list, answered: set) -> np.ndarray:
    """The rows of ``frame`` as item indices (i < j), each checked to wait for an answer; errors name the row."""
    position = {name: k for k, name in enumerate(names)}
    waiting: dict[tuple[int, int], int] = {}
    for ask in asks:
        waiting[(ask.i, ask.j)] = waiting.get((ask.i, ask.j), 0) + 1
    n_pending = sum(waiting.values())
    taken_at: dict[tuple[int, int], object] = {}
    pairs = np.empty((len(frame), 2), dtype=np.int64)
    for k, (row, a, b) in enumerate(zip(frame.index, frame["i"], frame["j"])):
        for name in (a, b):
            if name not in position:
                raise InputError(
                    f"pairs row {row} names {name!r}, which is not an item of the session ({_few(names)}); check the "
                    "spelling (names are compared as text, exactly)."
                )
        if a == b:
            raise InputError(f"pairs row {row} pairs {a!r} with itself; an ask is about two items.")
        key = tuple(sorted((position[a], position[b])))
        shown = f"({a!r}, {b!r})"
        if waiting.get(key, 0) == 0:
            if key in taken_at:
                why = f"is named by rows {taken_at[key]} and {row} but was asked once; keep one of the two rows"
            elif key in answered:
                why = "does not wait for an answer (it was answered already)"
            else:
                why = "does not wait for an answer (it was never asked, or was withdrawn)"
            raise InputError(
                f"pairs row {row} withdraws {shown}, which {why}; withdraw only pairs that wait for an answer "
                f"({n_pending} do). Nothing was withdrawn."
            )
        waiting[key] -= 1
        taken_at[key] = row
        pairs[k] = key
    return pairs


def _named_pairs(pairs: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    labels = np.asarray(names, dtype=object)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)  # (m, 2) item indices, or a list of pairs
    return pd.DataFrame(
        {"i": labels[pairs[:, 0]], "j": labels[pairs[:, 1]], "value": np.full(len(pairs), np.nan)}
    )


def _few(names: Sequence[str]) -> str:
    shown = ", ".join(repr(name) for name in names[:_SHOWN])
    return f"{len(names)} items: {shown}{', ...' if len(names) > _SHOWN else ''}"


# -- the functions of earlier releases -----------------------------------------------------------------------------
def _deprecated(name: str, instead: str) -> None:
    warn(f"{name} is deprecated and will be removed; use {instead}.", FutureWarning)


def next_pairs(database, items=None, *, strategy=None, interleave=None, budget=None, repeats=None, batch_size=None,
               n_clusters=None, random_state=None) -> SessionAsks:
    """Start or resume a session and give the pairs to ask next (deprecated: :class:`ClusteringSession`).

    ``ClusteringSession.create(database, items, exist_ok=True, ...)`` (or
    ``.open(database, ...)`` without items), then ``ask()``.
    """
    _deprecated("next_pairs", "ClusteringSession.create(database, items, exist_ok=True).ask()")
    settings = dict(strategy=strategy, interleave=interleave, budget=budget, repeats=repeats, batch_size=batch_size,
                    n_clusters=n_clusters, random_state=random_state)
    if items is not None:
        session = ClusteringSession.create(database, items, exist_ok=True, **settings)
    else:
        session = ClusteringSession.open(database, **settings)
    with session:
        return session.ask()


def record_answers(database, answers, *, source: str = "answers") -> SessionAnswers:
    """Record answers to a session's pairs (deprecated: ``ClusteringSession.open(database).record(answers)``)."""
    _deprecated("record_answers", "ClusteringSession.open(database).record(answers)")
    with ClusteringSession.open(database) as session:
        return session.record(answers, source=source)


def withdraw_asks(database, pairs=None) -> SessionWithdrawal:
    """Withdraw asks (deprecated: ``ClusteringSession.open(database).withdraw(pairs)``)."""
    _deprecated("withdraw_asks", "ClusteringSession.open(database).withdraw(pairs)")
    with ClusteringSession.open(database) as session:
        return session.withdraw(pairs)
