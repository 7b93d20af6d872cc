"""How the judgments modules name things in messages."""

from __future__ import annotations

__all__ = ["listing"]


def listing(names, limit: int = 5) -> str:
    """The first ``limit`` names, comma-separated, and how many more there are.

    Examples
    --------
    >>> listing(["a", "b", "c"], limit=2)
    'a, b and 1 more'
    """
    names = [str(name) for name in names]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
