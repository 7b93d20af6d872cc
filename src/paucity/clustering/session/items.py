"""The items of a session: their names in the session's order, and pairs of them as indices or as names.

Every verb speaks of items by name, the loop and the store by index (i < j
in each pair); :class:`SessionItems` turns one into the other and names the
items in messages.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..._errors import InputError, InputTypeError, ParameterError
from .._checks import MIN_ITEMS
from ..tables import refuse_repeated

__all__ = ["SessionItems", "check_items"]

_SHOWN = 5  # names shown in a message before "..."


def check_items(items) -> list[str]:
    """Item names: a sequence of at least 3 distinct, non-empty names (as text)."""
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise InputTypeError(f"items must be a sequence of item names, got {items!r}.")
    names = list(items)
    for k, name in enumerate(names):
        if name is None or (isinstance(name, float) and np.isnan(name)) or str(name) == "":
            raise InputError(f"items has no name at position {k}; name every item.")
    names = [str(name) for name in names]
    refuse_repeated(names, "items names")
    if len(names) < MIN_ITEMS:
        raise InputError(
            f"items names {len(names)} item(s), but clustering by spectral bisection needs at least {MIN_ITEMS}."
        )
    return names


class SessionItems:
    """The item names of a session, in its order (``names``), and their positions.

    Examples
    --------
    >>> items = SessionItems(["a", "b", "c"])
    >>> items.pair_of("c", "a"), items.named([[0, 2]]).values.tolist()
    ((0, 2), [['a', 'c', nan]])
    """

    def __init__(self, names: Sequence[str]):
        self.names = tuple(names)
        self.position = {name: k for k, name in enumerate(self.names)}

    def __len__(self) -> int:
        return len(self.names)

    def few(self) -> str:
        """``"12 items: 'a', 'b', 'c', 'd', 'e', ..."``: the items, for a message."""
        shown = ", ".join(repr(name) for name in self.names[:_SHOWN])
        return f"{len(self.names)} items: {shown}{', ...' if len(self.names) > _SHOWN else ''}"

    def pair_of(self, i, j) -> tuple[int, int]:
        """The pair (i, j) of item names as indices, i < j (a ParameterError for a name that is not an item, in
        the words of the annotation page, which sent it)."""
        for name in (i, j):
            if not isinstance(name, str) or name not in self.position:
                shown = name[:40] if isinstance(name, str) else name
                raise ParameterError(f"{shown!r} is not an item of this session; answer the pair the page showed.")
        a, b = sorted((self.position[i], self.position[j]))
        return a, b

    def index(self, name: str, *, where: str) -> int:
        """One item's index; an InputError naming ``where`` (``"answers data row 3"``) for a name that is not an
        item."""
        if name not in self.position:
            raise InputError(
                f"{where} names {name!r}, which is not an item of the session ({self.few()}); check the spelling "
                "(names are compared as text, exactly)."
            )
        return self.position[name]

    def named(self, pairs) -> pd.DataFrame:
        """Pairs of indices as a table of names: i, j and an empty value column (for the answer)."""
        labels = np.asarray(self.names, dtype=object)
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return pd.DataFrame({"i": labels[pairs[:, 0]], "j": labels[pairs[:, 1]], "value": np.full(len(pairs), np.nan)})
