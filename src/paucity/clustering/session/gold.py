"""Gold pairs: pairs whose answer is known, mixed into each annotator's queue to measure their accuracy.

:class:`Gold` is the session's collaborator for its gold pairs: it adds them
(:class:`~paucity.clustering.tables.GoldPairs`), puts one on an annotator's
screen when one is due (:func:`gold_due`), records the answer apart from the
measurements (a gold answer never enters the clustering), and lists them.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from ..._errors import ParameterError
from ..tables import GoldPairs
from .rules import check_annotator, check_key

__all__ = ["Gold", "gold_due", "GOLD_RATE"]

#: The share of gold pairs in each annotator's queue, by default.
GOLD_RATE = 0.1


def gold_due(n_real: int, n_gold: int, rate: float) -> bool:
    """Whether a gold pair is due: fewer than ``rate`` of an annotator's answers (the next one counted) went to gold
    pairs.

    Examples
    --------
    >>> [gold_due(n, 0, 0.25) for n in range(5)]
    [False, False, False, True, True]
    """
    if rate <= 0:
        return False
    return n_gold < math.floor(rate * (n_real + n_gold + 1))


class Gold:
    """The gold pairs of one session (``ClusteringSession`` holds one; its gold methods call it).

    Parameters
    ----------
    store : MeasurementStore
    items : SessionItems
        The session's items.
    access : AnnotatorAccess
        Who may answer (a paused or revoked annotator gets no gold pair; one whose gold answers fall below the
        session's ``pause_below`` is paused).
    state : LoopState
        The session's settings (``pause_below``, ``pause_after``) and its lock.
    """

    def __init__(self, store, items, access, state):
        self._store = store
        self._items = items
        self._access = access
        self._state = state
        self._lock = state.lock

    def add(self, pairs) -> int:
        """Add gold pairs (a :class:`GoldPairs`, or a frame with columns i, j and value or answer); the same pair
        again replaces its value. Returns the number of gold pairs."""
        table = pairs if isinstance(pairs, GoldPairs) else GoldPairs.from_frame(pairs)
        rows = []
        for k, (a, b, value) in enumerate(zip(table.i, table.j, table.value), start=1):
            i, j = sorted(self._items.index(name, where=f"gold data row {k}") for name in (a, b))
            rows.append((i, j, float(value)))
        with self._lock, self._store.transaction(lock=True) as connection:
            return self._store.gold.put(connection, rows)

    def table(self) -> pd.DataFrame:
        """The gold pairs: i, j (item names), value (the known similarity)."""
        rows = self._store.gold.pairs()
        names = np.asarray(self._items.names, dtype=object)
        return pd.DataFrame({"i": names[[i for i, _, _ in rows]] if rows else [],
                             "j": names[[j for _, j, _ in rows]] if rows else [],
                             "value": [value for _, _, value in rows]})

    def count(self) -> int:
        """How many gold pairs there are."""
        return self._store.gold.count()

    def on_screen(self, annotator: str, *, take: bool) -> tuple[str, str] | None:
        """The gold pair on ``annotator``'s screen; with ``take``, when none is, a gold pair they have neither
        answered nor skipped, put on their screen. None when there is none."""
        holder = check_annotator(annotator)
        names = self._items.names
        with self._lock, self._store.transaction(lock=take) as connection:
            row = self._store.annotators.get(holder, connection)
            if row is not None and row.gold_i is not None:
                return names[row.gold_i], names[row.gold_j]
            if not take:
                return None
            self._access.refuse_stopped(holder, connection)
            if self._access.answers_left(connection, holder, self._state.settings.quota) == 0:
                return None
            done = self._store.gold.answered_by(holder, connection)
            skipped = self._store.skipped_by(holder, connection=connection)
            for i, j, _ in self._store.gold.pairs(connection):
                if (i, j) not in done and (i, j) not in skipped:
                    self._store.annotators.put(connection, holder, gold=(i, j))
                    return names[i], names[j]
            return None

    def record(self, annotator: str, i: str, j: str, value: float, *, key: str | None = None) -> bool:
        """Record ``annotator``'s answer (a similarity in [0, 1]) to the gold pair on their screen; False when the
        request was recorded before (its key seen) or the pair is not their gold pair.

        With the session's ``pause_below``, an annotator whose share of right
        gold answers (:func:`~paucity.clustering.agreement.gold_right`) since
        they were last resumed falls below it, once they gave ``pause_after``
        of them, is paused in the same transaction, the reason kept."""
        holder = check_annotator(annotator)
        request = None if key is None else check_key(key)
        pair = self._items.pair_of(i, j)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
            raise ParameterError(f"value must be a similarity in [0, 1], got {value!r}.")
        with self._lock, self._store.transaction(lock=True) as connection:
            asked = f"gold {pair[0]} {pair[1]} {float(value)!r}"
            if request is not None and not self._store.requests.claim(connection, request, holder, asked):
                return False
            row = self._store.annotators.get(holder, connection)
            if row is None or (row.gold_i, row.gold_j) != pair:
                return False
            known = self._store.gold.value(*pair, connection)
            self._store.gold.add_answer(connection, *pair, float(value), gold=known, annotator=holder)
            self._store.annotators.put(connection, holder, gold=None)
            self._apply_rule(connection, holder, since=row.checked_from)
            return True

    def _apply_rule(self, connection, annotator: str, *, since: float | None) -> None:
        """Pause ``annotator`` when the quality rule says so (the session's ``pause_below`` and ``pause_after``)."""
        from ..agreement import gold_right

        self._state.refresh_settings(connection)  # a rule changed by another process counts at once
        settings = self._state.settings
        if settings.pause_below is None:
            return
        answers = self._store.gold.answers_of(annotator, since=since, connection=connection)
        if len(answers) < settings.pause_after:
            return
        right = int(gold_right(*zip(*answers)).sum())
        if right / len(answers) < settings.pause_below:
            reason = (f"paused automatically: {right} of {len(answers)} gold answers right "
                      f"({right / len(answers):.0%}, below {settings.pause_below:.0%})")
            self._access.apply_state(connection, annotator, "paused", reason=reason)

    def expected(self, i: str, j: str) -> float | None:
        """The known similarity of the gold pair (i, j), or None when it is not one."""
        return self._store.gold.value(*self._items.pair_of(i, j))

    def skip(self, annotator: str) -> None:
        """``annotator`` skips the gold pair on their screen (it is not shown to them again)."""
        holder = check_annotator(annotator)
        with self._lock, self._store.transaction(lock=True) as connection:
            row = self._store.annotators.get(holder, connection)
            if row is None or row.gold_i is None:
                return
            self._store.add_skip(row.gold_i, row.gold_j, holder, connection=connection)
            self._store.annotators.put(connection, holder, gold=None)

    def answers(self) -> pd.DataFrame:
        """Every answer to a gold pair: i, j (item names), value, gold (the known value), annotator, time."""
        rows = self._store.gold.answers()
        names = np.asarray(self._items.names, dtype=object)
        return pd.DataFrame({
            "i": pd.array([names[row.i] for row in rows], dtype=object),
            "j": pd.array([names[row.j] for row in rows], dtype=object),
            "value": np.array([row.value for row in rows], dtype=np.float64),
            "gold": np.array([row.gold for row in rows], dtype=np.float64),
            "annotator": pd.array([row.annotator for row in rows], dtype=object),
            "time": np.array([row.time for row in rows], dtype=np.float64),
        })

