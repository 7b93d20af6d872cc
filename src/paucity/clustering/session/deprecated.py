"""The functions of earlier releases, each a thin wrapper of :class:`~paucity.clustering.ClusteringSession`."""

from __future__ import annotations

from ..._errors import warn
from .results import SessionAnswers, SessionAsks, SessionWithdrawal
from .session import ClusteringSession

__all__ = ["next_pairs", "record_answers", "withdraw_asks"]


def _deprecated(name: str, instead: str) -> None:
    warn(f"{name} is deprecated and will be removed; use {instead}.", FutureWarning)


def next_pairs(database, items=None, **settings) -> SessionAsks:
    """Start or resume a session and give the pairs to ask next (deprecated: :class:`ClusteringSession`).

    ``ClusteringSession.create(database, items, exist_ok=True, **settings)`` (or
    ``.open(database, **settings)`` without items), then ``ask()``.
    """
    _deprecated("next_pairs", "ClusteringSession.create(database, items, exist_ok=True).ask()")
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
