"""Where the estimator's asks and answers live: the small protocol between the estimator and its storage.

:class:`~paucity.clustering.ActiveSpectralClustering` talks to a
:class:`LoopBackend` only: :meth:`~LoopBackend.pending`,
:meth:`~LoopBackend.choose`, :meth:`~LoopBackend.record`,
:meth:`~LoopBackend.withdraw` (and ``loop``, whose state the estimator
publishes, and ``close``). Two implement it: :class:`InMemoryBackend`, the
loop in this process, and :class:`~paucity.clustering.session.backend.SessionBackend`,
a :class:`~paucity.clustering.ClusteringSession`'s database
(``ClusteringSession.backend()``), each call in the session's locked
transaction. Pairs are item indices, i < j in each row.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["LoopBackend", "InMemoryBackend"]


@runtime_checkable
class LoopBackend(Protocol):
    """The asks and answers of one run of the active loop, wherever they are kept.

    Attributes
    ----------
    loop : ActiveLoop
        The loop whose estimate, clusters and log the estimator publishes.
    """

    loop: object

    def pending(self) -> np.ndarray:
        """The pairs asked and not answered, in the order asked (asked by an earlier process too)."""

    def choose(self, n: int) -> np.ndarray:
        """Up to ``n`` new pairs to measure (fewer when the budget, counting pending asks, is nearly spent),
        remembered as asked."""

    def record(self, pairs: np.ndarray, values: np.ndarray, *, source: str, check: bool) -> None:
        """Record the answers to pairs that were asked (``check``: refuse a pair that does not wait for one)."""

    def withdraw(self, pairs) -> np.ndarray:
        """Withdraw asks that will never be answered (None: every one); returns the pairs withdrawn."""

    def close(self) -> None:
        """Release what the backend holds open (database connections)."""


class InMemoryBackend:
    """The estimator's asks and answers, kept by its loop in this process (no ``store``).

    Examples
    --------
    >>> from paucity.clustering.loop import new_loop
    >>> settings = {"strategy": "random", "interleave": False, "repeats": 1, "batch_size": 2, "n_clusters": 2,
    ...             "cut": "sign"}
    >>> backend = InMemoryBackend(new_loop(5, settings, budget=3, seed=0))
    >>> isinstance(backend, LoopBackend), len(backend.choose(5)), len(backend.pending())
    (True, 3, 3)
    """

    def __init__(self, loop):
        self.loop = loop

    def pending(self) -> np.ndarray:
        """The pairs asked and not answered, in the order asked."""
        return self.loop.pending_pairs()

    def choose(self, n: int) -> np.ndarray:
        """Up to ``n`` new pairs (fewer when the budget, counting pending asks, is nearly spent)."""
        loop = self.loop
        remaining = loop.budget - loop.n_measured - loop.n_pending
        return loop.ask(min(n, remaining)) if remaining > 0 else np.empty((0, 2), dtype=np.int64)

    def record(self, pairs, values, *, source: str, check: bool) -> None:
        """Record answers (``check``: refuse a pair that was not asked)."""
        if check:
            self.loop.check_asked(pairs)
        self.loop.record(pairs, values)

    def withdraw(self, pairs):
        """Withdraw asks that will never be answered (None: every one)."""
        if pairs is not None:
            self.loop.check_asked(pairs, hint="withdraw() takes pairs that ask() returned and wait for an answer")
        return self.loop.withdraw(pairs)

    def close(self) -> None:
        """Nothing to release: the loop lives in this process."""
