"""The one token policy: every access token paucity makes, and how it is kept and compared.

A token is 24 random bytes (192 bits), URL-safe text of 32 characters: the
marker explorer's and the annotation coordinator's (new each run) and each
annotator's personal link. A stored token is kept only as its SHA-256 hash
(:func:`hash_token`); tokens are compared in constant time (:func:`same_token`).
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["TOKEN_BYTES", "new_token", "hash_token", "same_token"]

#: Random bytes in a token: 192 bits, beyond guessing however many requests are made.
TOKEN_BYTES = 24


def new_token() -> str:
    """A fresh random token (:data:`TOKEN_BYTES` bytes, URL-safe text).

    Examples
    --------
    >>> token = new_token()
    >>> len(token), token == new_token()
    (32, False)
    """
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest of a token: what a database keeps instead of the token.

    Examples
    --------
    >>> hash_token("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def same_token(given: str, expected: str) -> bool:
    """Whether a token given equals the one expected, compared in constant time.

    Examples
    --------
    >>> same_token("abc", "abc"), same_token("abc", "abd")
    (True, False)
    """
    return secrets.compare_digest(given.encode(), expected.encode())
