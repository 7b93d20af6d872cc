"""Gold pairs in a session's store: pairs whose answer is known, and every annotator's answer to them.

Two tables: ``paucity_gold`` (i < j and the known similarity) and
``paucity_gold_answers`` (each answer to a gold pair, with the known value,
the annotator and the time). Gold answers are never measurements of the
clustering. The schema and every statement on these tables live here;
:class:`~paucity.clustering.session.gold.GoldPairs` gives them meaning.
"""

from __future__ import annotations

import time as _time
from collections import namedtuple

__all__ = ["GoldRecords", "GoldAnswer", "define_tables"]

#: One answer to a gold pair as the store keeps it.
GoldAnswer = namedtuple("GoldAnswer", "id i j value gold annotator time")


def define_tables(metadata) -> dict:
    """The gold pairs' tables, in ``metadata``."""
    import sqlalchemy as sa

    gold = sa.Table(
        "paucity_gold", metadata,
        sa.Column("i", sa.Integer, primary_key=True),
        sa.Column("j", sa.Integer, primary_key=True),
        sa.Column("value", sa.Float(precision=53), nullable=False),
    )
    gold_answers = sa.Table(
        "paucity_gold_answers", metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("i", sa.Integer, nullable=False),
        sa.Column("j", sa.Integer, nullable=False),
        sa.Column("value", sa.Float(precision=53), nullable=False),
        sa.Column("gold", sa.Float(precision=53), nullable=False),
        sa.Column("annotator", sa.Text, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
    )
    sa.Index("paucity_gold_answers_annotator", gold_answers.c.annotator)
    return {"gold": gold, "gold_answers": gold_answers}


class GoldRecords:
    """The statements on a store's gold pairs and their answers (``store.gold``); each reads or writes in
    ``connection``, or in a transaction of its own when none is given."""

    def __init__(self, store):
        self._store = store

    def put(self, connection, pairs) -> int:
        """Add gold pairs, ``[(i, j, value), ...]`` with i < j (the same pair again replaces its value); returns
        the number of gold pairs."""
        import sqlalchemy as sa

        table = self._store.table("gold")
        for i, j, value in pairs:
            connection.execute(sa.delete(table).where(table.c.i == int(i), table.c.j == int(j)))
            connection.execute(table.insert(), {"i": int(i), "j": int(j), "value": float(value)})
        return int(connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())

    def pairs(self, connection=None) -> list[tuple[int, int, float]]:
        """Every gold pair, ``(i, j, value)``, ordered by i then j."""
        table = self._store.table("gold")
        query = table.select().order_by(table.c.i, table.c.j)
        return [(int(row.i), int(row.j), float(row.value)) for row in self._store.rows(query, connection)]

    def count(self, connection=None) -> int:
        """How many gold pairs there are."""
        import sqlalchemy as sa

        table = self._store.table("gold")
        return int(self._store.rows(sa.select(sa.func.count()).select_from(table), connection)[0][0])

    def value(self, i: int, j: int, connection=None) -> float | None:
        """The known similarity of the gold pair (i, j), or None when it is not one."""
        import sqlalchemy as sa

        table = self._store.table("gold")
        rows = self._store.rows(sa.select(table.c.value).where(table.c.i == int(i), table.c.j == int(j)), connection)
        return float(rows[0][0]) if rows else None

    def answered_by(self, annotator: str, connection=None) -> set[tuple[int, int]]:
        """The gold pairs ``annotator`` answered."""
        import sqlalchemy as sa

        table = self._store.table("gold_answers")
        query = sa.select(table.c.i, table.c.j).where(table.c.annotator == annotator)
        return {(int(i), int(j)) for i, j in self._store.rows(query, connection)}

    def add_answer(self, connection, i: int, j: int, value: float, *, gold: float, annotator: str) -> None:
        """Record ``annotator``'s answer ``value`` to the gold pair (i, j), whose known value is ``gold``."""
        connection.execute(self._store.table("gold_answers").insert(), {
            "i": int(i), "j": int(j), "value": float(value), "gold": float(gold), "annotator": annotator,
            "time": _time.time()})

    def answers(self, connection=None) -> list[GoldAnswer]:
        """Every answer to a gold pair, in the order given."""
        import sqlalchemy as sa

        table = self._store.table("gold_answers")
        query = sa.select(table.c.id, table.c.i, table.c.j, table.c.value, table.c.gold, table.c.annotator,
                          table.c.time).order_by(table.c.id)
        return [GoldAnswer(*row) for row in self._store.rows(query, connection)]

    def answers_of(self, annotator: str, *, since: float | None = None, connection=None) -> list[tuple[float, float]]:
        """``annotator``'s answers to gold pairs (given after ``since``, when given), as (value, known) pairs."""
        import sqlalchemy as sa

        table = self._store.table("gold_answers")
        query = sa.select(table.c.value, table.c.gold).where(table.c.annotator == annotator)
        if since is not None:
            query = query.where(table.c.time > float(since))
        return [(float(value), float(known)) for value, known in self._store.rows(query.order_by(table.c.id),
                                                                                  connection)]

    def count_answers(self, annotator: str | None = None, connection=None) -> int:
        """How many answers to gold pairs there are (``annotator``'s, when given)."""
        import sqlalchemy as sa

        table = self._store.table("gold_answers")
        query = sa.select(sa.func.count()).select_from(table)
        if annotator is not None:
            query = query.where(table.c.annotator == annotator)
        return int(self._store.rows(query, connection)[0][0])
