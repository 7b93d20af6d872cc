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

import numbers
import time
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from ..._errors import InputError, InputTypeError, ParameterError, PairNotWaitingError
from ..._spelling import given as as_typed
from ..._spelling import owner_prefix, spelled
from ..._validation import Instance, check_parameter
from ..settings import SessionSettings, setting
from ..tables import Answers, Pairs
from .access import AnnotatorAccess
from .gold import Gold
from . import opening
from .coordinator import CoordinatorVerbs
from .items import SessionItems
from .matching import check_held, match_answers, match_withdrawals
from .review import Review
from .results import SessionAnswers, SessionAsks, SessionClusters, SessionStatus, SessionWithdrawal
from .rules import UNNAMED, check_annotator, check_key
from .state import LoopState
from .stored import check_changes, measurements, read_record, write_settings

__all__ = ["ClusteringSession"]


class ClusteringSession(CoordinatorVerbs):
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
        self._items = SessionItems(items)
        self._state = LoopState(store, len(self._items), settings)
        self._access = AnnotatorAccess(store, self._state.lock)
        self._gold = Gold(store, self._items, self._access, self._state)
        self._review = Review(self, store, self._items, self._state.lock)
        self.created = created

    # -- opening -------------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, database, items, *, exist_ok: bool = False, **settings) -> "ClusteringSession":
        """Start a session over ``items`` in ``database``.

        Parameters
        ----------
        database : str or path-like
            An SQLite file (created when missing; an empty file becomes the
            session's database) or a URL: ``sqlite:///photos.db``,
            ``postgresql://user@host/name`` (the ``postgres`` extra).
        items : sequence of str
            The item names (at least 3, each once).
        exist_ok : bool, default=False
            When the database holds a session already: with False refuse
            (:class:`~paucity.SessionExistsError`); with True open it, provided
            its items are ``items`` and the settings given equal its own.
        **settings
            The settings, by name (:class:`SessionSettings` lists them:
            ``strategy``, ``budget``, ``batch_size``, ...); one left out, or
            None, takes its default (``random_state``: a drawn seed, kept). A
            name that is not a setting is refused.

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
        return opening.create(cls, database, items, settings, exist_ok=exist_ok)

    @classmethod
    def open(cls, database, *, items=None, **settings) -> "ClusteringSession":
        """Open the session a database holds.

        Parameters
        ----------
        database : str or path-like
            As :meth:`create`; it must hold a session
            (:class:`~paucity.NoSessionError` otherwise).
        items : sequence of str, optional
            When given, they must be the session's (same names, same order).
        **settings
            When given, each must equal the session's: a setting that differs
            is refused with one line naming both values (a larger budget is
            given by :meth:`extend`).

        Returns
        -------
        ClusteringSession
        """
        return opening.open_session(cls, database, items, settings)

    @classmethod
    def for_estimator(cls, store, params: Mapping, *, n_items=None) -> "ClusteringSession":
        """The session of ``ActiveSpectralClustering(store=...)``: opened, or started over items named 0..n−1.

        Parameters
        ----------
        store : str, path-like or MeasurementStore
        params : mapping
            The estimator's checked parameters (its settings; ``random_state``
            may be a Generator or None, which draws the seed of a new session).
        n_items : int, optional
            The number of items (by default the store's), needed to start a session.
        """
        return opening.for_estimator(cls, store, params, n_items=n_items)

    def backend(self, reference=None):
        """The estimator's :class:`~paucity.clustering.backend.LoopBackend` on this session: its asks and answers
        by item index, each in the session's locked transaction. ``reference``: a clustering for the error curve."""
        from .backend import SessionBackend

        return SessionBackend(self._state, reference=reference, close=self.close)

    # -- what a session is ---------------------------------------------------------------------------------------
    @property
    def items(self) -> tuple:
        """The item names, in the order of the similarity matrix."""
        return self._items.names

    @property
    def settings(self) -> SessionSettings:
        """The settings the session was started with (one record, fixed)."""
        return self._state.settings

    @property
    def budget(self) -> int:
        """Measurements the session may take, in all."""
        return self._state.budget

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
        return {"store": self._store, "items": self.items, "settings": self.settings, "created": self.created,
                "reference": self._state.reference}

    def __setstate__(self, state) -> None:
        self.__init__(state["store"], state["items"], state["settings"], created=state["created"])
        self._state.reference = state["reference"]

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
        holder = UNNAMED if annotator is None else check_annotator(annotator)
        if lease_seconds is not None:
            lease_seconds = float(check_parameter(lease_seconds, "lease_seconds", setting("lease_seconds").constraints,
                                                  owner="ClusteringSession.ask"))
        state, store = self._state, self._store
        with state.lock:
            with state.writing() as write:
                connection, asks, now = write.connection, write.asks, time.time()
                self._access.refuse_stopped(holder, connection)
                left = self._access.answers_left(connection, holder, state.settings.quota)
                if left is not None:  # an annotator near the quota holds no more pairs than they may answer
                    mine = [ask.id for ask in asks if ask.annotator == holder]
                    store.hold(mine[left:], annotator=None, lease_until=None, connection=connection)
                    asks = [ask if ask.id not in set(mine[left:]) else ask._replace(annotator=None) for ask in asks]
                    n = min(n, left)
                until = None if lease_seconds is None else now + lease_seconds
                seen = state.seen_by(holder, connection) if holder != UNNAMED else set()
                taken = [ask.id for ask in asks if ask.annotator == holder]
                for ask in asks:
                    if len(taken) >= n:
                        break
                    free = ask.annotator is None or (ask.lease_until is not None and ask.lease_until < now)
                    if free and ask.annotator != holder and (ask.i, ask.j) not in seen:
                        taken.append(ask.id)
                store.hold(taken, annotator=holder, lease_until=until, connection=connection)
                loop = state.loop
                room = min(n - len(taken), state.settings.batch_size - len(asks),
                           state.budget - loop.n_measured - len(asks))
                new = np.empty((0, 2), dtype=np.int64)
                if room > 0:
                    write.changed = True
                    new = loop.ask(room)
                    # a pair asked again (repeats) that this annotator answered waits for someone else
                    again = np.array([(int(i), int(j)) in seen for i, j in new], dtype=bool).reshape(-1)
                    store.add_pending(new[~again], annotator=holder, lease_until=until, connection=connection)
                    store.add_pending(new[again], annotator=None, connection=connection)
                    new = new[~again]
                after = store.pending_rows(connection=connection)
            state.loop.set_pending([(ask.i, ask.j) for ask in after])
            held = [(ask.i, ask.j) for ask in after if ask.annotator == holder]
            return SessionAsks(
                pairs=self._items.named(held),
                n_new=len(new),
                annotator=holder,
                n_items=len(self._items),
                n_measured=state.loop.n_measured,
                n_pending=len(after),
                budget=state.budget,
                settings=state.settings,
                at_quota=left == 0,
            )

    def record(self, answers, *, source: str | None = None, annotator: str | None = None, key: str | None = None,
               cluster: bool = True) -> SessionAnswers:
        """Record answers to the pairs the session asked, and cluster every answer so far.

        Each answered row must name a pair that waits for an answer, in
        either order, once. Rows with an empty value (NaN) are skipped (not
        answered yet). A row naming a pair that does not wait for an answer
        is an error (:class:`~paucity.PairNotWaitingError`;
        :class:`~paucity.AnsweredAlreadyError` when it was answered already),
        unless the same answer (same pair, same value) is recorded already:
        the file was read before (perhaps by a run that was interrupted), and
        the row is skipped. So reading a file again, or again after filling
        in more of it, records each answer once. All the answers of a call
        are recorded in one transaction: all or none.

        Parameters
        ----------
        answers : Answers or pandas.DataFrame
            Columns i, j (item names) and value (the similarity in [0, 1], NaN
            when not answered yet), as :func:`~paucity.clustering.read_answers`
            gives (a frame is read by :meth:`Answers.from_frame
            <paucity.clustering.tables.Answers.from_frame>`).
        source : str, optional
            Who answered, stored with each answer: by default ``annotator``,
            else, for each pair, the annotator who held it (``"answers"`` for
            a pair nobody named held). A file's name is not a person: the
            command line credits the holders.
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
        if source is None and holder is not None:
            source = holder
        if source is not None:
            check_parameter(source, "source", [Instance(str, description="a string")], owner="ClusteringSession.record")
        table = answers if isinstance(answers, Answers) else Answers.from_frame(answers)
        for k, (a, b) in enumerate(zip(table.i, table.j), start=1):  # a row not answered yet names items too
            for name in (a, b):
                if name is not None:
                    self._items.index(name, where=f"answers data row {k}")
        answered = table.answered
        rows = np.flatnonzero(answered) + 1
        first, second, values = table.i[answered], table.j[answered], table.value[answered]
        pairs = np.empty((len(rows), 2), dtype=np.int64)
        for k, (row, a, b) in enumerate(zip(rows, first, second)):
            where = f"answers data row {row}"
            if a == b and a in self._items.position:
                raise InputError(f"{where} pairs {a!r} with itself; a similarity is between two items.")
            pairs[k] = sorted(self._items.index(name, where=where) for name in (a, b))
        outside = (values < 0) | (values > 1) | ~np.isfinite(values)
        if outside.any():
            k = int(np.flatnonzero(outside)[0])
            raise InputError(
                f"answers data row {rows[k]} gives {float(values[k])!r} for ({first[k]!r}, {second[k]!r}); "
                "similarities must be in [0, 1]. Rescale the answers (e.g. a rating r on 1..10 as r / 10)."
            )
        shown = [f"({a!r}, {b!r})" for a, b in zip(first, second)]
        state, store = self._state, self._store
        with state.lock:
            with state.writing() as write:
                connection = write.connection
                if holder is not None:
                    self._access.refuse_stopped(holder, connection)
                asked = "answer " + " ".join(f"{i},{j},{v!r}" for (i, j), v in zip(pairs.tolist(), values.tolist()))
                who = holder or source or "answers"
                repeated = key is not None and not store.requests.claim(connection, key, who, asked)
                take = np.zeros(len(rows), dtype=bool)
                if not repeated:  # a request sent again: recorded then
                    seen = state.seen_by(holder, connection) if holder is not None else set()
                    take, held_by = match_answers(pairs, values, shown, rows, write.asks, state=state, holder=holder,
                                                  seen=seen, now=time.time(),
                                                  lease_seconds=state.settings.lease_seconds)
                    credited = [source or held or "answers" for held in held_by]  # each answer to whom held it
                    for name in dict.fromkeys(c for c, taken in zip(credited, take) if taken):
                        mine = take & np.array([c == name for c in credited], dtype=bool)
                        store.add(pairs[mine], values[mine], source=name, connection=connection)
                if take.any():
                    write.changed = True
                    state.sync(connection)  # the loop takes the answers as committed below
            return SessionAnswers(
                n_recorded=int(take.sum()),
                n_read_before=int(len(rows) - take.sum()),
                n_unanswered=int((~answered).sum()),
                n_measured=state.loop.n_measured,
                n_pending=state.loop.n_pending,
                budget=state.budget,
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
        withdrawn (:class:`~paucity.PairNotWaitingError`). The withdrawal is
        one transaction: all or nothing.

        Parameters
        ----------
        pairs : Pairs or pandas.DataFrame, optional
            Columns i and j (item names), one row per ask to withdraw, as
            :func:`~paucity.clustering.read_pairs` gives (other columns are
            not used). None withdraws every pending ask (of ``annotator``).
        annotator : str, optional
            With ``pairs=None``: withdraw only the asks this annotator holds.

        Returns
        -------
        SessionWithdrawal
        """
        if pairs is not None and not isinstance(pairs, (Pairs, pd.DataFrame)):
            raise InputTypeError(
                f"pairs must be a pandas DataFrame with columns i and j (read_pairs gives one), or None to withdraw "
                f"every pending ask; got {type(pairs).__name__}."
            )
        table = None if pairs is None else (pairs if isinstance(pairs, Pairs) else Pairs.from_frame(pairs))
        holder = None if annotator is None else check_annotator(annotator)
        if table is not None and holder is not None:
            raise ParameterError("withdraw takes pairs or an annotator, not both; the pairs named are withdrawn "
                                 "whoever holds them.")
        if table is not None and len(table) == 0:
            raise InputError("pairs names no pair to withdraw; give one row per ask, or pairs=None to withdraw every "
                             "pending ask.")
        named = np.empty((0 if table is None else len(table), 2), dtype=np.int64)
        for k, (a, b) in enumerate(zip(table.i, table.j) if table is not None else ()):
            where = f"pairs data row {k + 1}"
            if a == b and a in self._items.position:
                raise InputError(f"{where} pairs {a!r} with itself; an ask is about two items.")
            named[k] = sorted(self._items.index(name, where=where) for name in (a, b))
        state, store = self._state, self._store
        with state.lock:
            with state.writing() as write:
                connection, asks = write.connection, write.asks
                if table is not None:
                    shown = [f"({a!r}, {b!r})" for a, b in zip(table.i, table.j)]
                    chosen = match_withdrawals(named, shown, asks, state.answered())
                    withdrawn = store.withdraw_pending(chosen, connection=connection)
                elif holder is not None:
                    withdrawn = np.array([(ask.i, ask.j) for ask in asks if ask.annotator == holder],
                                         dtype=np.int64).reshape(-1, 2)
                    if len(withdrawn):
                        store.withdraw_pending(withdrawn, connection=connection)
                else:
                    withdrawn = store.withdraw_pending(None, connection=connection)
                state.sync(connection)
            return SessionWithdrawal(
                withdrawn=self._items.named(withdrawn).drop(columns="value"),
                n_pending=state.loop.n_pending,
                n_measured=state.loop.n_measured,
                budget=state.budget,
            )

    def release(self, annotator: str) -> int:
        """Give back, unanswered, every pair ``annotator`` holds (they closed the page): the next asker gets them.

        Returns
        -------
        int
            The pairs given back.
        """
        holder = check_annotator(annotator)
        with self._state.lock, self._store.transaction(lock=True) as connection:
            ids = [ask.id for ask in self._store.pending_rows(connection=connection) if ask.annotator == holder]
            self._store.hold(ids, annotator=None, lease_until=None, connection=connection)
            return len(ids)

    def skip(self, annotator: str, i: str, j: str, *, key: str | None = None) -> None:
        """``annotator`` gives the pair (i, j) back unanswered: someone else gets it, they never get it again.

        ``key``: the request's idempotency key, as :meth:`record` takes it (a skip sent again does nothing)."""
        holder = check_annotator(annotator)
        request = None if key is None else check_key(key)
        pair, shown = self._items.pair_of(i, j), f"({i!r}, {j!r})"
        state, store = self._state, self._store
        with state.lock:
            with state.writing() as write:
                connection = write.connection
                if request is not None and not store.requests.claim(connection, request, holder,
                                                                    f"skip {pair[0]},{pair[1]}"):
                    return
                asks = [ask for ask in write.asks if (ask.i, ask.j) == pair]
                if not asks:
                    raise PairNotWaitingError(f"the pair {shown} does not wait for an answer (answered already, or "
                                              "never asked).")
                check_held(asks[0], holder, pair, state.seen_by(holder, connection), time.time(), shown,
                           lease_seconds=state.settings.lease_seconds)
                store.hold([ask.id for ask in asks], annotator=None, lease_until=None, connection=connection)
                store.add_skip(pair[0], pair[1], holder, connection=connection)

    def extend(self, budget) -> "ClusteringSession":
        """Raise the session's budget (an int: measurements; a float: a fraction of the pairs times ``repeats``).

        A finished session continues. The same as ``change(budget=...)``.
        """
        return self._change({"budget": budget}, owner="ClusteringSession.extend")

    def change(self, **settings) -> "ClusteringSession":
        """Change settings that may change after a session starts: those :class:`SessionSettings` does not fix
        (``quota``, ``pause_below``, ``pause_after``, ``gold_feedback``; ``budget``, only raised). None
        removes a setting that may be None (``quota=None``: no limit). Every process of the session reads the
        change with its next verb."""
        return self._change(settings, owner="ClusteringSession.change")

    def _change(self, settings: dict, *, owner: str) -> "ClusteringSession":
        changed = check_changes(settings, owner=owner)
        n = len(self._items)
        if "budget" in changed:
            measurements(replace(self.settings, budget=changed["budget"]), n, owner=owner)
        with self._state.lock, self._store.transaction(lock=True) as connection:
            stored = read_record(self._store, self._store.read_metadata(connection=connection))
            current = stored[1] if stored is not None else self.settings
            if "budget" in changed:
                wanted, now = measurements(replace(current, **changed), n), measurements(current, n)
                if wanted < now:
                    raise ParameterError(
                        f"{owner_prefix(owner)}{as_typed('budget', changed['budget'])} is {wanted} measurements, "
                        f"fewer than the session's {now}; a budget is only raised."
                    )
            settings = replace(current, **changed)
            write_settings(self._store, connection, settings)
        self._state.set_settings(settings)
        return self

    # -- reading -------------------------------------------------------------------------------------------------
    def status(self) -> SessionStatus:
        """Where the session stands: answers, pairs waiting and held, budget, cost, annotators, clusters so far."""
        state = self._state
        with state.lock:
            state.refresh_settings()
            with self._store.transaction() as connection:
                asks = state.sync(connection)
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
            n_measured = state.loop.n_measured
            return SessionStatus(
                database=self.database,
                settings=state.settings,
                n_items=len(self._items),
                n_measured=n_measured,
                n_pending=len(asks),
                n_out=sum(holding.values()),
                budget=state.budget,
                cost=round(state.settings.price * n_measured, 10),  # 12 x 0.05 is 0.6
                annotators=annotators,
                clusters=self._clusters(),
            )

    def clusters(self) -> SessionClusters:
        """The clustering of every answer so far."""
        with self._state.lock:
            self._state.catch_up()
            return self._clusters()

    def answers(self, *, last: int | None = None) -> pd.DataFrame:
        """Every answer in the order recorded: order, i, j (item names), value, time, source, repeat.

        With ``last``, the last answers only, newest first (without the repeat column).
        """
        frame = self._store.measurements() if last is None else self._store.recent(last)
        names = np.asarray(self.items, dtype=object)
        frame["i"] = names[frame["i"].to_numpy()]
        frame["j"] = names[frame["j"].to_numpy()]
        return frame

    def held_by(self, annotator: str) -> list[tuple[str, str]]:
        """The pairs ``annotator`` holds now (whose lease has not ended), in the order asked."""
        holder = check_annotator(annotator)
        now = time.time()
        names = self.items
        return [(names[ask.i], names[ask.j]) for ask in self._store.pending_rows()
                if ask.annotator == holder and not (ask.lease_until is not None and ask.lease_until < now)]

    def answer_count(self, annotator: str) -> tuple[int, int]:
        """How many answers ``annotator`` gave: to real pairs, and to gold pairs."""
        return self._store.count_source(annotator), self._store.gold.count_answers(annotator)

    def answer_counts(self) -> dict[str, int]:
        """Answers per source (the annotator, or the file they came from)."""
        return self._store.counts_by_source()

    def waiting(self) -> pd.DataFrame:
        """Every pair waiting for an answer, in the order asked: i, j, annotator (None: nobody), asked, lease_until."""
        asks = self._store.pending_asks()
        names = np.asarray(self.items, dtype=object)
        return pd.DataFrame({
            "i": names[asks["i"].to_numpy()], "j": names[asks["j"].to_numpy()], "annotator": asks["annotator"],
            "asked": asks["time"], "lease_until": asks["lease_until"],
        })

    # -- internals -----------------------------------------------------------------------------------------------
    def _batch(self, n) -> int:
        if n is None:
            return self.settings.batch_size
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ParameterError(f"{owner_prefix('ClusteringSession.ask')}{spelled('n')} must be an integer >= 1, "
                                 f"got {n!r}.")
        return int(n)

    def _clusters(self) -> SessionClusters:
        labels, embedding = self._state.clusters()
        return SessionClusters(items=self.items, labels=labels, embedding=embedding)
