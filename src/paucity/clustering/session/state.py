"""What one process of a session holds in memory: the active loop, brought up to its database on every verb.

Each process keeps the estimate Ŵ (an :class:`~paucity.clustering.loop.ActiveLoop`)
and reads only the answers recorded since its last read. :class:`LoopState`
is that memory: the session's verbs and the estimator's backend both write
through :meth:`LoopState.writing`, one transaction holding the database's
write lock with the loop brought up to it.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from ..._errors import ReaderError
from ..settings import SessionSettings
from .stored import measurements, read_record

__all__ = ["LoopState", "Write"]


class Write:
    """What :meth:`LoopState.writing` yields: the locked transaction's ``connection``, the pending ``asks``
    (:data:`~paucity.clustering.store.Ask` tuples, in the order asked) and ``changed``, which a caller sets
    before it changes the loop."""

    def __init__(self):
        self.connection = None
        self.asks: list = []
        self.changed = False


class LoopState:
    """The active loop of one session in this process, and what it knows of the answers.

    Parameters
    ----------
    store : MeasurementStore
    n_items : int
    settings : SessionSettings
    reference : array-like, optional
        A reference clustering for the loop's error curve (the estimator's ``fit(reference=...)``).

    Attributes
    ----------
    lock : threading.RLock
        Held by every verb of the session in this process (the annotation page serves requests on threads).
    settings : SessionSettings
    budget : int
        The budget in measurements.
    """

    def __init__(self, store, n_items: int, settings: SessionSettings, *, reference=None):
        self.store = store
        self.n_items = n_items
        self.settings = settings
        self.budget = measurements(settings, n_items)
        self.reference = reference
        self.lock = threading.RLock()
        self._loop = None
        self._seen = 0  # the order of the last answer the loop holds
        self._values: dict[tuple[int, int], list[float]] = {}
        self._sources: dict[tuple[int, int], list[str]] = {}
        self._answered_by: dict[str, set[tuple[int, int]]] = {}
        self._excluded: frozenset = frozenset()  # the annotators whose answers the loop leaves out
        self._decided: dict = {}  # the coordinator's adjudications the loop holds: {(i, j): value}

    # -- the loop ------------------------------------------------------------------------------------------------
    @property
    def loop(self):
        """The :class:`~paucity.clustering.loop.ActiveLoop` (built from the settings when none is held)."""
        if self._loop is None:
            from ..loop import new_loop

            self._loop = new_loop(self.n_items, self.settings.to_dict(), budget=self.budget,
                                  seed=self.settings.random_state, reference=self.reference)
            self._seen = 0
            self._values, self._sources, self._answered_by = {}, {}, {}
        return self._loop

    def forget(self) -> None:
        """Drop the loop: the next verb builds it again from every answer in the database."""
        self._loop = None

    def set_settings(self, settings: SessionSettings) -> None:
        """Take settings written since (``extend`` raises the budget)."""
        self.settings = settings
        self.budget = measurements(settings, self.n_items)
        if self._loop is not None:
            self._loop.budget = self.budget

    def refresh_settings(self, connection=None) -> None:
        """Read the settings again (another process may have raised the budget or changed a rule)."""
        stored = read_record(self.store, self.store.read_metadata(connection=connection))
        if stored is not None and stored[1] != self.settings:
            self.set_settings(stored[1])

    def clusters(self) -> tuple[np.ndarray, np.ndarray]:
        """The labels and v̂₂ of every answer the loop holds."""
        labels, fiedler = self.loop.clusters()
        return np.asarray(labels), np.asarray(fiedler.vector)

    # -- reading the database ------------------------------------------------------------------------------------
    def catch_up(self, connection=None, *, exclusions: bool = True) -> None:
        """Give the loop the answers recorded since it last read them (outside the lock: the bulk of a replay).

        Answers of excluded annotators are left out of the loop, and a pair the coordinator adjudicated counts
        with the value decided; when the coordinator excludes (or takes back) an annotator, or decides a pair,
        the loop is built again from every answer (``exclusions=False`` skips those checks, which the locked
        transaction that follows makes)."""
        if exclusions:
            excluded = self.store.annotators.excluded(connection)
            decided = {pair: row.value for pair, row in self.store.adjudications.effective(connection).items()}
        else:
            excluded, decided = self._excluded, self._decided
        if excluded != self._excluded or decided != self._decided:
            self._loop, self._excluded, self._decided = None, excluded, decided
        fresh = self._loop is None
        loop = self.loop
        n = self.n_items
        for order, i, j, value, source in self.store.measurement_rows(after=self._seen, connection=connection):
            if not 0 <= i < j < n:
                raise ReaderError(f"{self.store.shown} is damaged: it holds a measurement of the pair ({i}, {j}) "
                                  f"of a session over {n} items.")
            self._seen = order
            self._answered_by.setdefault(source, set()).add((i, j))
            if source in excluded:
                continue
            value = float(value)
            loop.remember_measurement(i, j, value)
            self._values.setdefault((i, j), []).append(value)
            self._sources.setdefault((i, j), []).append(source)
        if fresh:
            for (i, j), value in self._decided.items():
                loop.decide(i, j, value)

    def sync(self, connection) -> list:
        """Bring the loop up to the database in ``connection``: the settings, the answers since its last read, and
        every pending ask. Returns the pending asks (:data:`~paucity.clustering.store.Ask` tuples), in the order asked."""
        self.refresh_settings(connection)
        self.catch_up(connection)
        asks = self.store.pending_rows(connection=connection)
        self.loop.set_pending([(ask.i, ask.j) for ask in asks])
        return asks

    @contextlib.contextmanager
    def writing(self):
        """One transaction holding the database's write lock, the loop brought up to it: yields a :class:`Write`.
        A caller sets ``changed`` before it changes the loop: if the transaction then fails, the loop is read
        again from the database by the next verb."""
        self.catch_up(exclusions=False)  # the bulk of a replay, outside the lock
        write = Write()
        try:
            with self.store.transaction(lock=True) as connection:
                write.connection = connection
                write.asks = self.sync(connection)
                yield write
        except BaseException:
            if write.changed:
                self._loop = None
            raise

    # -- what the loop knows of the answers ----------------------------------------------------------------------
    def n_answers(self, pair: tuple[int, int]) -> int:
        """The answers to ``pair`` the loop holds (excluded annotators' left out)."""
        return len(self._values.get(pair, ()))

    def answered(self) -> set[tuple[int, int]]:
        """The pairs the loop holds an answer to."""
        return set(self._values)

    def recorded_before(self, pair: tuple[int, int], value: float, holder: str | None) -> bool:
        """The same answer to the same pair is recorded (by ``holder``, when one answers)."""
        return any(value == recorded and (holder is None or source == holder)
                   for recorded, source in zip(self._values.get(pair, ()), self._sources.get(pair, ())))

    def seen_by(self, annotator: str, connection) -> set[tuple[int, int]]:
        """The pairs ``annotator`` answered or skipped (never handed to them again)."""
        return self._answered_by.get(annotator, set()) | self.store.skipped_by(annotator, connection=connection)
