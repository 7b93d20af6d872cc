"""The annotators of a session in its store: who they are, their access, and whether their answers count.

One row per annotator the session knows: the SHA-256 hash of their access
token (never the token), their state (``active``, ``paused`` or
``revoked``), whether their answers are excluded from the clustering, and the
gold pair on their screen. The table's schema and every statement on it live
here; :class:`~paucity.clustering.session.access.AnnotatorAccess` gives them
meaning.
"""

from __future__ import annotations

import time as _time
from collections import namedtuple

__all__ = ["AnnotatorRecords", "AnnotatorRow", "KEEP", "define_tables"]

#: One annotator as the store keeps them (``gold_i``/``gold_j``: the gold pair on their screen, or None).
AnnotatorRow = namedtuple("AnnotatorRow", "name token_hash state excluded gold_i gold_j changed reason checked_from")
#: ``gold=KEEP`` in :meth:`AnnotatorRecords.put` leaves the gold pair on the annotator's screen as it is.
KEEP = object()


def define_tables(metadata) -> dict:
    """The annotators' table, in ``metadata``."""
    import sqlalchemy as sa

    annotators = sa.Table(
        "paucity_annotators", metadata,
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=True, unique=True),  # SHA-256 of the access token
        sa.Column("state", sa.String(16), nullable=False),  # active, paused or revoked
        sa.Column("excluded", sa.Boolean, nullable=False),  # their answers left out of the clustering
        sa.Column("gold_i", sa.Integer, nullable=True),  # the gold pair on their screen
        sa.Column("gold_j", sa.Integer, nullable=True),
        sa.Column("changed", sa.Float(precision=53), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),  # why they were paused or revoked
        sa.Column("checked_from", sa.Float(precision=53), nullable=True),  # the quality rule counts from here
    )
    return {"annotators": annotators}


class AnnotatorRecords:
    """The statements on a store's annotators (``store.annotators``); each reads or writes in ``connection``,
    or in a transaction of its own when none is given."""

    def __init__(self, store):
        self._store = store

    @property
    def _table(self):
        return self._store.table("annotators")

    def rows(self, connection=None) -> dict[str, AnnotatorRow]:
        """Every annotator: ``{name: AnnotatorRow}``."""
        table = self._table
        return {row.name: AnnotatorRow(row.name, row.token_hash, row.state, bool(row.excluded), row.gold_i,
                                       row.gold_j, row.changed, row.reason, row.checked_from)
                for row in self._store.rows(table.select(), connection)}

    def get(self, name: str, connection=None) -> AnnotatorRow | None:
        """One annotator, or None when the session does not know them."""
        return self.rows(connection).get(name)

    def state(self, name: str, connection=None) -> str | None:
        """``"active"``, ``"paused"`` or ``"revoked"``; None for an annotator the session does not know."""
        import sqlalchemy as sa

        table = self._table
        rows = self._store.rows(sa.select(table.c.state).where(table.c.name == name), connection)
        return str(rows[0][0]) if rows else None

    def excluded(self, connection=None) -> frozenset:
        """The names whose answers are left out of the clustering."""
        import sqlalchemy as sa

        table = self._table
        return frozenset(row[0] for row in self._store.rows(sa.select(table.c.name).where(table.c.excluded.is_(True)),
                                                             connection))

    def by_token_hash(self, token_hash: str, connection=None) -> tuple[str, str] | None:
        """``(name, state)`` of the annotator whose token has this hash, or None."""
        import sqlalchemy as sa

        table = self._table
        rows = self._store.rows(sa.select(table.c.name, table.c.state).where(table.c.token_hash == token_hash),
                                connection)
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    def put(self, connection, name: str, *, token_hash=KEEP, state=KEEP, excluded=KEEP, gold=KEEP, reason=KEEP,
            checked_from=KEEP) -> None:
        """Write an annotator's row, inserted when the session does not know them yet.

        Each field given replaces the stored one; one left out (``KEEP``)
        stays as it is, or takes its first value for a new annotator (no
        token, active, not excluded, no gold pair, no reason, the quality rule
        counting from the start). ``gold`` is the pair on their screen,
        ``(i, j)``, or None for none; ``reason`` why they were paused.
        """
        import sqlalchemy as sa

        table = self._table
        values = {"changed": _time.time()}
        for column, value in (("token_hash", token_hash), ("state", state), ("excluded", excluded),
                              ("reason", reason), ("checked_from", checked_from)):
            if value is not KEEP:
                values[column] = bool(value) if column == "excluded" else value
        if gold is not KEEP:
            values.update(gold_i=None if gold is None else int(gold[0]), gold_j=None if gold is None else int(gold[1]))
        known = connection.execute(sa.select(table.c.name).where(table.c.name == name)).first() is not None
        if known:
            connection.execute(sa.update(table).where(table.c.name == name).values(**values))
            return
        first = {"token_hash": None, "state": "active", "excluded": False, "gold_i": None, "gold_j": None,
                 "reason": None, "checked_from": None}
        connection.execute(table.insert(), {"name": name, **first, **values})
