"""The coordinator's adjudications: the value that counts for a pair, set by a person, the answers kept.

One row per decision (i < j, the value on [0, 1] or None for a decision taken
back, who decided and when); the latest decision on a pair is the one that
counts. The table's schema and the statements on it live here;
:class:`~paucity.clustering.session.review.Review` gives them meaning.
"""

from __future__ import annotations

import time as _time
from collections import namedtuple

__all__ = ["AdjudicationRecords", "Adjudication", "define_tables"]

#: One decision as the store keeps it (``value`` None: the decision on that pair was taken back).
Adjudication = namedtuple("Adjudication", "id i j value by time")


def define_tables(metadata) -> dict:
    """The adjudications' table, in ``metadata``."""
    import sqlalchemy as sa

    adjudications = sa.Table(
        "paucity_adjudications", metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("value", sa.Float(precision=53), nullable=True),
        sa.Column("by", sa.Text, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
    )
    return {"adjudications": adjudications}


class AdjudicationRecords:
    """The statements on a store's adjudications (``store.adjudications``)."""

    def __init__(self, store):
        self._store = store

    def add(self, connection, i: int, j: int, value: float | None, *, by: str) -> None:
        """Decide the value of the pair (i, j), i < j (None takes the decision back)."""
        connection.execute(self._store.table("adjudications").insert(), {
            "i": int(i), "j": int(j), "value": None if value is None else float(value), "by": by,
            "time": _time.time()})

    def history(self, connection=None) -> list[Adjudication]:
        """Every decision, in the order taken."""
        table = self._store.table("adjudications")
        return [Adjudication(*row) for row in self._store.rows(table.select().order_by(table.c.id), connection)]

    def effective(self, connection=None) -> dict[tuple[int, int], Adjudication]:
        """The decision that counts for each pair: the latest, unless it was taken back."""
        latest: dict[tuple[int, int], Adjudication] = {}
        for row in self.history(connection):
            latest[(row.i, row.j)] = row
        return {pair: row for pair, row in latest.items() if row.value is not None}
