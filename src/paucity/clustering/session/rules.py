"""One rule per thing a person types into a session: an annotator's name, a request's key.

The session, the command line and the annotation page all check names and
keys here, so that what one accepts the others accept too. Tokens follow the
one token policy of :mod:`paucity._tokens`.
"""

from __future__ import annotations

import unicodedata

from ..._errors import ParameterError
from ..._spelling import spelled

__all__ = ["check_annotator", "check_key", "UNNAMED", "LONGEST_ANNOTATOR"]

#: The annotator of asks made without a name (one person or a script).
UNNAMED = ""
#: The longest annotator's name, in characters.
LONGEST_ANNOTATOR = 100
#: Unicode categories refused in a name: control characters (a newline, a tab, DEL), invisible format characters
#: (a zero-width space, a direction override) and line or paragraph separators.
_REFUSED = ("Cc", "Cf", "Zl", "Zp")


def check_annotator(annotator) -> str:
    """An annotator's name: 1 to 100 characters, none of them a control or format character.

    Spaces around the name are removed (``" alice "`` is ``alice``); a
    control character anywhere, a trailing newline included, is refused, not
    removed: the name stored is the name given.

    Examples
    --------
    >>> check_annotator(" alice@lab ")
    'alice@lab'
    >>> check_annotator("alice\\n")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: annotator must be a name of 1 to 100 characters without control characters, got 'alice\\n'.
    """
    refused = not isinstance(annotator, str) or any(unicodedata.category(c) in _REFUSED for c in annotator)
    text = None if refused else annotator.strip()
    if not text or len(text) > LONGEST_ANNOTATOR:
        shown = annotator[:40] if isinstance(annotator, str) else annotator
        raise ParameterError(
            f"{spelled('annotator')} must be a name of 1 to {LONGEST_ANNOTATOR} characters without control "
            f"characters, got {shown!r}."
        )
    return text


def check_key(key) -> str:
    """A request's idempotency key: 8 to 100 letters, digits, ``-`` or ``_``.

    Examples
    --------
    >>> check_key("9f1c-22aa_b0")
    '9f1c-22aa_b0'
    """
    if not isinstance(key, str) or not 8 <= len(key) <= 100 or not all(c.isascii() and (c.isalnum() or c in "-_")
                                                                        for c in key):
        shown = key[:40] if isinstance(key, str) else key
        raise ParameterError(f"key must be 8 to 100 letters, digits, - or _ (a random id per request), got {shown!r}.")
    return key
