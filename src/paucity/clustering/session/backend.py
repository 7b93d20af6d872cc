"""The estimator's backend on a session: :class:`SessionBackend` (``ClusteringSession.backend()``).

``ActiveSpectralClustering(store=...)`` runs its loop on a
:class:`~paucity.clustering.ClusteringSession`; this is the
:class:`~paucity.clustering.backend.LoopBackend` it talks to, by item index,
each call in the session's locked transaction (:meth:`LoopState.writing
<paucity.clustering.session.state.LoopState.writing>`).
"""

from __future__ import annotations

import numpy as np

from .._checks import check_pairs, check_values
from .rules import UNNAMED

__all__ = ["SessionBackend"]


class SessionBackend:
    """A session's asks and answers, for the estimator (a :class:`~paucity.clustering.backend.LoopBackend`).

    Parameters
    ----------
    state : LoopState
        The session's loop in this process.
    reference : array-like, optional
        A clustering for the loop's error curve.
    close : callable
        Releases the session's connections.
    """

    def __init__(self, state, *, reference=None, close=None):
        self._state = state
        self._close = close
        state.reference = None if reference is None else np.asarray(reference)
        with state.lock:
            state.catch_up()

    @property
    def loop(self):
        """The session's loop in this process."""
        return self._state.loop

    def pending(self) -> np.ndarray:
        """The pairs waiting for an answer (asked by any process), in the order asked."""
        state = self._state
        with state.lock:
            with state.store.transaction() as connection:
                state.sync(connection)
            return state.loop.pending_pairs()

    def choose(self, n: int) -> np.ndarray:
        """``n`` new pairs (fewer when the budget, counting pending asks, is nearly spent), held by nobody named."""
        state = self._state
        with state.lock:
            with state.writing() as write:
                loop = state.loop
                count = min(int(n), loop.budget - loop.n_measured - loop.n_pending)
                pairs = np.empty((0, 2), dtype=np.int64)
                if count > 0:
                    write.changed = True
                    pairs = loop.ask(count)
                    state.store.add_pending(pairs, annotator=UNNAMED, connection=write.connection)
            return pairs

    def record(self, pairs, values, *, source: str, check: bool = True) -> None:
        """Record answers to pairs that wait for one, in one locked transaction."""
        state = self._state
        pairs = check_pairs(pairs, state.n_items)
        values = check_values(values, len(pairs))
        with state.lock:
            with state.writing() as write:
                state.loop.check_asked(pairs)
                state.store.add(pairs, values, source=source, connection=write.connection)
                write.changed = True
                state.sync(write.connection)

    def withdraw(self, pairs) -> np.ndarray:
        """Withdraw waiting asks (None: every one), in one locked transaction."""
        state = self._state
        with state.lock:
            with state.writing() as write:
                if pairs is not None:
                    state.loop.check_asked(
                        pairs, hint="withdraw() takes pairs that ask() returned and wait for an answer")
                withdrawn = state.store.withdraw_pending(pairs, connection=write.connection)
                state.sync(write.connection)
            return withdrawn

    def close(self) -> None:
        """Release the session's database connections."""
        if self._close is not None:
            self._close()
