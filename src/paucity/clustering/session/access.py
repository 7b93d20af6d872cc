"""Who may answer a session: annotators invited with personal tokens, paused, revoked, or left out.

:class:`AnnotatorAccess` is the session's collaborator for its annotators:
it gives each one invited a token (kept only as its hash, :mod:`paucity._tokens`),
pauses, resumes and revokes them (their pairs go back to the others at once),
excludes an annotator's answers from the clustering, and tells who a token
belongs to. Names follow the one rule of :func:`~paucity.clustering.session.rules.check_annotator`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._errors import AnnotatorStoppedError, InputTypeError
from ..._tokens import hash_token, new_token
from .rules import UNNAMED, check_annotator

__all__ = ["AnnotatorAccess", "STATES"]

#: An annotator's states: ``active`` answers, ``paused`` waits for the coordinator, ``revoked`` has no access.
STATES = ("active", "paused", "revoked")


def _names(names) -> list:
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        raise InputTypeError(f"names must be a list of annotator names, got {names!r}.")
    return list(names)


class AnnotatorAccess:
    """The annotators of one session (``ClusteringSession`` holds one; its methods of the same names call it).

    Parameters
    ----------
    store : MeasurementStore
    lock : threading.RLock
        The session's lock in this process.
    """

    def __init__(self, store, lock):
        self._store = store
        self._lock = lock

    def invite(self, names) -> dict[str, str | None]:
        """Give each annotator named a personal access token: ``{name: token}``, None for one invited already.

        Only a token's SHA-256 hash is kept in the database: the token is
        shown this once (the annotation page puts it in the annotator's
        link). An annotator invited already keeps their token (None here);
        :meth:`new_link` gives them a new one.
        """
        names = list(dict.fromkeys(check_annotator(name) for name in _names(names)))  # a name given twice is one
        tokens: dict[str, str | None] = {}
        with self._lock, self._store.transaction(lock=True) as connection:
            records = self._store.annotators
            for name in names:
                row = records.get(name, connection)
                if row is not None and row.token_hash is not None:
                    tokens[name] = None
                    continue
                token = new_token()
                records.put(connection, name, token_hash=hash_token(token), state="active")
                tokens[name] = token
        return tokens

    def new_link(self, annotator: str) -> str:
        """A new access token for ``annotator`` (the old one stops working at once); a revoked annotator is active
        again with it."""
        name = check_annotator(annotator)
        token = new_token()
        with self._lock, self._store.transaction(lock=True) as connection:
            self._store.annotators.put(connection, name, token_hash=hash_token(token), state="active")
        return token

    def set_state(self, annotator: str, state: str) -> None:
        """Make ``annotator`` active, paused or revoked by the coordinator; a paused or revoked one's pairs go back
        to the others. Resuming starts the quality rule's count again (``pause_below``)."""
        name = check_annotator(annotator)
        with self._lock, self._store.transaction(lock=True) as connection:
            reason = None if state == "active" else f"{state} by the coordinator"
            self.apply_state(connection, name, state, reason=reason)

    def apply_state(self, connection, name: str, state: str, *, reason: str | None) -> None:
        """Write an annotator's state in ``connection`` (the caller's locked transaction), with why."""
        import time

        # a paused or revoked annotator's gold pair leaves their screen; resuming keeps what is there
        extra = {"checked_from": time.time()} if state == "active" else {"gold": None}
        self._store.annotators.put(connection, name, state=state, reason=reason, **extra)
        if state != "active":  # their pairs go back to the others at once
            ids = [ask.id for ask in self._store.pending_rows(connection=connection) if ask.annotator == name]
            self._store.hold(ids, annotator=None, lease_until=None, connection=connection)

    def exclude(self, annotator: str, excluded: bool = True) -> None:
        """Leave every answer of ``annotator`` (or of an answers file, by its source name) out of the clustering,
        or, with ``excluded=False``, take them in again. The answers stay in the database, marked; excluded
        answers do not count against the budget, so their pairs may be asked again."""
        name = check_annotator(annotator)
        with self._lock, self._store.transaction(lock=True) as connection:
            self._store.annotators.put(connection, name, excluded=bool(excluded))

    def identify(self, token: str) -> tuple[str, str] | None:
        """The annotator a token belongs to, and their state (``"active"``, ``"paused"`` or ``"revoked"``); None
        for a token that is not an annotator's."""
        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        return self._store.annotators.by_token_hash(hash_token(token))

    def table(self) -> pd.DataFrame:
        """Every annotator the session knows: annotator, state, invited (holds a token), excluded, reason (why they
        were paused or revoked: by the coordinator, or by the quality rule; None when active)."""
        rows = sorted(self._store.annotators.rows().values(), key=lambda row: row.name)
        return pd.DataFrame({
            "annotator": pd.array([row.name for row in rows], dtype=object),
            "state": pd.array([row.state for row in rows], dtype=object),
            "invited": np.array([row.token_hash is not None for row in rows], dtype=bool),
            "excluded": np.array([bool(row.excluded) for row in rows], dtype=bool),
            "reason": pd.Series([row.reason for row in rows], dtype=object),  # None stays None (pandas 3: NaN in str)
        })

    def invited(self) -> bool:
        """Whether some annotator holds a personal token (then every annotator needs one)."""
        return any(row.token_hash is not None for row in self._store.annotators.rows().values())

    def state_of(self, annotator: str) -> str:
        """``"active"``, ``"paused"`` or ``"revoked"`` (an annotator the session does not know is active)."""
        return self._store.annotators.state(annotator) or "active"

    def answers_left(self, connection, annotator: str, quota: int | None) -> int | None:
        """How many more answers ``annotator`` may give under the session's ``quota`` (gold answers count too);
        None without a quota, or for asks made without a name."""
        if quota is None or annotator == UNNAMED:
            return None
        done = self._store.count_source(annotator, connection=connection)
        return max(0, int(quota) - done - self._store.gold.count_answers(annotator, connection))

    def refuse_stopped(self, annotator: str, connection) -> None:
        """A paused or revoked annotator neither gets pairs nor answers (:class:`~paucity.AnnotatorStoppedError`)."""
        if annotator == UNNAMED:
            return
        state = self._store.annotators.state(annotator, connection)
        if state in ("paused", "revoked"):
            raise AnnotatorStoppedError(
                f"{annotator!r} is {state} by the coordinator: no more pairs or answers for now.",
                annotator=annotator, state=state,
            )
