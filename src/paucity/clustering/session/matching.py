"""Which waiting ask each row of a table answers or withdraws, and who may answer a pair.

Read inside the locked transaction of :meth:`~paucity.clustering.ClusteringSession.record`
and ``withdraw``: every row must name a pair that waits for an answer (in
either order, as often as it was asked), or the whole call is refused,
naming the row; an answer recorded already (the same pair and value) is a
file read again and is skipped.
"""

from __future__ import annotations

import numpy as np

from ..._errors import AnsweredAlreadyError, PairNotHeldError, PairNotWaitingError

__all__ = ["match_answers", "match_withdrawals", "check_held"]


def check_held(ask, holder: str, pair, seen, now: float, shown: str, *, lease_seconds: float) -> None:
    """Refuse an answer or a skip of ``holder`` to a pair someone else holds (or they answered or skipped):
    :class:`~paucity.PairNotHeldError`."""
    expired = ask.lease_until is not None and ask.lease_until < now
    if ask.annotator == holder:
        return
    if (ask.annotator is None or expired) and pair not in seen:
        return  # nobody holds it (a restarted page, an expired lease): theirs if they never had it
    raise PairNotHeldError(
        f"the pair {shown} was not shown to {holder!r} (or was given to someone else after {lease_seconds:.0f} s); "
        "ask for the next pair."
    )


def match_answers(pairs: np.ndarray, values: np.ndarray, shown: list[str], rows: np.ndarray, asks: list, *,
                  state, holder: str | None, seen, now: float, lease_seconds: float) -> tuple[np.ndarray, list]:
    """Which rows answer a waiting ask (True) and which repeat an answer recorded before (False), and who held
    each waiting ask answered (its annotator; None for nobody named).

    Parameters
    ----------
    pairs : ndarray of shape (m, 2)
        The answered rows' pairs as indices, i < j.
    values : ndarray of shape (m,)
    shown : list of str
        Each pair as the row names it, for messages.
    rows : ndarray of shape (m,)
        Each row's data row number, for messages.
    asks : list of Ask
        The pending asks, in the order asked.
    state : LoopState
        What the loop knows of the answers (to tell a repeat from a second answer).
    holder : str or None
        The annotator answering (each pair must then be theirs), or None for any.
    """
    waiting: dict[tuple[int, int], list] = {}
    for ask in asks:
        waiting.setdefault((ask.i, ask.j), []).append(ask)
    take = np.zeros(len(rows), dtype=bool)
    held_by: list = [None] * len(rows)
    taken_at: dict[tuple[int, int], object] = {}
    for k, (i, j) in enumerate(pairs):
        pair = (int(i), int(j))
        if waiting.get(pair):
            if holder is not None:
                check_held(waiting[pair][0], holder, pair, seen, now, shown[k], lease_seconds=lease_seconds)
            held_by[k] = waiting[pair].pop(0).annotator or None
            take[k] = True
            taken_at[pair] = rows[k]
        elif state.recorded_before(pair, float(values[k]), holder):
            continue  # read before
        elif pair in taken_at:
            raise PairNotWaitingError(
                f"answers data rows {taken_at[pair]} and {rows[k]} both answer {shown[k]}, which was asked once; "
                "keep one of the two rows."
            )
        elif state.n_answers(pair):
            raise AnsweredAlreadyError(
                f"answers data row {rows[k]} answers {shown[k]}, which was answered already "
                f"({state.n_answers(pair)} answer(s) recorded) and does not wait for another; remove the row."
            )
        else:
            raise PairNotWaitingError(
                f"answers data row {rows[k]} answers {shown[k]}, which was never asked (or was withdrawn); answer "
                "only the pairs the session asked for."
            )
    return take, held_by


def match_withdrawals(pairs: np.ndarray, shown: list[str], asks: list, answered: set) -> np.ndarray:
    """The rows of a withdrawal as pending pairs (i < j), each checked to wait for an answer; errors name the data
    row (counted from 1). ``answered``: the pairs answered already (for the message)."""
    waiting: dict[tuple[int, int], int] = {}
    for ask in asks:
        waiting[(ask.i, ask.j)] = waiting.get((ask.i, ask.j), 0) + 1
    n_pending = sum(waiting.values())
    taken_at: dict[tuple[int, int], int] = {}
    for k, (i, j) in enumerate(pairs):
        pair, row = (int(i), int(j)), k + 1
        if waiting.get(pair, 0) == 0:
            if pair in taken_at:
                why = f"is named by data rows {taken_at[pair]} and {row} but was asked once; keep one of the two rows"
            elif pair in answered:
                why = "does not wait for an answer (it was answered already)"
            else:
                why = "does not wait for an answer (it was never asked, or was withdrawn)"
            raise PairNotWaitingError(
                f"pairs data row {row} withdraws {shown[k]}, which {why}; withdraw only pairs that wait for an answer "
                f"({n_pending} do). Nothing was withdrawn."
            )
        waiting[pair] -= 1
        taken_at[pair] = row
    return np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
