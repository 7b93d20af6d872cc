"""The keys of the requests that changed a session: a request sent again with its key changes nothing more.

The annotation page sends each answer or skip with a random key; when its
first reply is lost it sends the same request again. A key is kept with a
digest of its request (who, what, which pair, which value): the same request
again is a repeat, another request with the same key is refused
(:class:`~paucity.KeyReusedError`). The table's schema and the statements on
it live here.
"""

from __future__ import annotations

import hashlib
import time as _time

from ..._errors import KeyReusedError

__all__ = ["RequestKeys", "define_tables"]


def define_tables(metadata) -> dict:
    """The request keys' table, in ``metadata``."""
    import sqlalchemy as sa

    request_keys = sa.Table(
        "paucity_request_keys", metadata,
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("annotator", sa.Text, nullable=False),
        sa.Column("time", sa.Float(precision=53), nullable=False),
        sa.Column("digest", sa.String(64), nullable=True),  # SHA-256 of the request; None: kept before version 4
    )
    return {"request_keys": request_keys}


class RequestKeys:
    """The statements on a store's request keys (``store.requests``)."""

    def __init__(self, store):
        self._store = store

    def claim(self, connection, key: str, annotator: str, request: str) -> bool:
        """Remember ``key`` as ``annotator``'s ``request`` (a text that says what it does); False when the same
        request was made with it before (a repeat). The key with another request, or another annotator's, is
        refused: :class:`~paucity.KeyReusedError`."""
        import sqlalchemy as sa

        table = self._store.table("request_keys")
        digest = hashlib.sha256(request.encode()).hexdigest()
        seen = connection.execute(sa.select(table.c.annotator, table.c.digest).where(table.c.key == key)).first()
        if seen is None:
            connection.execute(table.insert(), {"key": key, "annotator": annotator, "time": _time.time(),
                                                "digest": digest})
            return True
        if seen.annotator == annotator and seen.digest in (digest, None):  # None: a key kept before digests
            return False
        raise KeyReusedError(
            f"the request key {key[:40]!r} was used by another request"
            + (" of another annotator" if seen.annotator != annotator else " (another pair or value)")
            + "; send each request with a new random key (the page does), and the same key only to repeat it."
        )
