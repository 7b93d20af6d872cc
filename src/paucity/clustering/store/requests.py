"""The keys of the requests that changed a session: a request sent again with its key changes nothing more.

The annotation page sends each answer or skip with a random key; when its
first reply is lost it sends the same request again. The table's schema and
the statements on it live here.
"""

from __future__ import annotations

import time as _time

__all__ = ["RequestKeys", "define_tables"]


def define_tables(metadata) -> dict:
    """The request keys' table, in ``metadata``."""
    import sqlalchemy as sa

    request_keys = sa.Table(
        "paucity_request_keys", metadata,
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("annotator", sa.Text, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
    )
    return {"request_keys": request_keys}


class RequestKeys:
    """The statements on a store's request keys (``store.requests``)."""

    def __init__(self, store):
        self._store = store

    def claim(self, connection, key: str, annotator: str) -> bool:
        """Remember ``key`` as ``annotator``'s request; False when it was seen before (the request is a repeat)."""
        import sqlalchemy as sa

        table = self._store.table("request_keys")
        if connection.execute(sa.select(table.c.key).where(table.c.key == key)).first() is not None:
            return False
        connection.execute(table.insert(), {"key": key, "annotator": annotator, "time": _time.time()})
        return True
