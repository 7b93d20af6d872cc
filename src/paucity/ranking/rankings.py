"""Rankings of subsets of items, and choices of one item from a set.

Both are sequences of *choice stages*: a ranking ``σ = (σ₁, …, σₖ)`` (best
first) says that ``σ₁`` was chosen from ``{σ₁, …, σₖ}``, then ``σ₂`` from
``{σ₂, …, σₖ}``, and so on (k − 1 stages); a choice says that one item was
chosen from the set it was offered with (one stage). The Plackett–Luce model
(:class:`~paucity.ranking.PlackettLuce`) gives each stage the probability
``exp(v_winner) / Σ_{j in set} exp(v_j)``.

Labels are handled as by :class:`~paucity.ranking.Comparisons`: any hashable
labels, mapped to positions ``0..n_items-1`` in :attr:`items` (the labels
sorted when they can be, or the order given by ``items=``), and back.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ShapeMismatchError
from .._spelling import named
from .._validation import check_columns
from .comparisons import Comparisons, frozen, item_labels, shown_label

__all__ = ["Rankings", "Choices", "StagedObservations", "pairwise_breaking"]


def _sequences(values, name: str, what: str) -> list:
    """The observations of ``values`` as a list of 1-d label sequences."""
    if isinstance(values, pd.DataFrame):
        raise InputTypeError(
            f"{name} is a DataFrame; use {what}.from_frame(df, observation=..., item=..., ...) for a long table."
        )
    if isinstance(values, np.ndarray):
        if values.ndim != 2:
            raise InputError(
                f"{name} as an array must be 2-dimensional (one row per observation), got shape {values.shape}."
            )
        return values
    if isinstance(values, (str, bytes)) or np.isscalar(values) or values is None:
        raise InputTypeError(f"{name} must be a sequence of observations (each a sequence of item labels), got {values!r}.")
    try:
        rows = list(values)
    except TypeError:
        raise InputTypeError(f"{name} must be a sequence of observations, got {type(values).__name__}.") from None
    out = []
    for k, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or np.isscalar(row) or row is None:
            raise InputTypeError(
                f"{name}[{k}] is a single value {row!r}; each observation must be a sequence of item labels."
            )
        if isinstance(row, (set, frozenset)):
            row = sorted(row, key=repr)
        try:
            out.append(list(row))
        except TypeError:
            raise InputTypeError(f"{name}[{k}] is not a sequence of item labels.") from None
    return out


def _encode(flat, items, name: str, offsets: np.ndarray):
    """Item index and the positions of the labels in ``flat`` (errors name the observation)."""
    if isinstance(flat, np.ndarray) and flat.dtype.kind in "iu" and items is None:
        values = np.unique(flat)
        return pd.Index(values), np.searchsorted(values, flat), None
    array = flat if isinstance(flat, np.ndarray) else np.fromiter(flat, dtype=object, count=len(flat))
    missing = pd.isna(array) if array.dtype == object else np.zeros(len(array), dtype=bool)
    if np.any(missing):
        k = int(np.searchsorted(offsets, int(np.flatnonzero(missing)[0]), side="right") - 1)
        raise InputError(f"{name}[{k}] has a missing item label (NaN or None); drop or fill it.")
    try:
        labels = pd.Index(array, dtype=object) if array.dtype == object else pd.Index(array)
        if items is None:
            index = pd.Index(labels.unique())
            try:
                index = index.sort_values()
            except TypeError:  # labels of mixed, unorderable types keep first-seen order
                pass
        else:
            index = pd.Index(item_labels(items, "items"))
            if not index.is_unique:
                raise InputError(
                    f"items has duplicate label {shown_label(index[index.duplicated()][0])}; each item must appear once."
                )
        codes = index.get_indexer(labels)
    except TypeError as error:
        raise InputTypeError(f"item labels must be hashable (strings, numbers, tuples); {error}.") from None
    return index, codes, labels


class StagedObservations:
    """What :class:`Rankings` and :class:`Choices` share: observations stored flat, as positions."""

    _noun = "observation"

    def _store(self, members, offsets, n_stages, items: pd.Index) -> None:
        self.members = frozen(np.asarray(members, dtype=np.int64))
        self.offsets = frozen(np.asarray(offsets, dtype=np.int64))
        self.n_stages = frozen(np.asarray(n_stages, dtype=np.int64))
        self.items = items

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_observations(self) -> int:
        return len(self.offsets) - 1

    def __len__(self) -> int:
        return self.n_observations

    @property
    def sizes(self) -> np.ndarray:
        """Number of items in each observation."""
        return np.diff(self.offsets)

    def observation(self, k: int) -> list:
        """The item labels of observation ``k`` (best first for a ranking, chosen first for a choice)."""
        if not -self.n_observations <= k < self.n_observations:
            raise InputError(f"observation {k} is out of range of the {self.n_observations} observations.")
        k %= self.n_observations
        return list(self.items[self.members[self.offsets[k] : self.offsets[k + 1]]])

    def pairwise(self) -> Comparisons:
        """The pairwise breaking: every stage's winner preferred to each other item of its set.

        A ranking of k items gives ``k(k − 1)/2`` comparisons, a choice from a
        set of k items ``k − 1``; as ``(i=loser, j=winner, y=1)``.

        Examples
        --------
        >>> Rankings([["a", "b", "c"]]).pairwise().to_dataframe().values.tolist()
        [['b', 'a', 1], ['c', 'a', 1], ['c', 'b', 1]]
        """
        winners, losers = pairwise_breaking(self.members, self.offsets, self.n_stages)
        # built on positions (no hashing of labels), then given this set's labels
        comparisons = Comparisons(losers, winners, np.ones(len(winners), dtype=np.int8), items=pd.RangeIndex(self.n_items))
        comparisons.items = self.items
        return comparisons

    def _check_repeats(self) -> None:
        """An item may appear at most once in an observation."""
        order = np.repeat(np.arange(self.n_observations, dtype=np.int64), self.sizes)
        key = order * np.int64(self.n_items) + self.members
        sorted_key = np.sort(key)
        repeated = sorted_key[1:] == sorted_key[:-1]
        if repeated.any():
            bad = sorted_key[1:][repeated][0]
            k, item = divmod(int(bad), self.n_items)
            raise InputError(
                f"{self._noun} {k} names item {shown_label(self.items[item])} twice; each item may appear once in it."
            )


def pairwise_breaking(members, offsets, n_stages):
    """(winners, losers) of the pairwise breaking: each stage's winner against every later item of its set."""
    sizes = np.diff(offsets)
    winners, losers = [], []
    # stage t of every observation with more than t stages, vectorized over observations
    for t in range(int(n_stages.max()) if len(n_stages) else 0):
        active = np.flatnonzero(n_stages > t)
        start = offsets[active] + t
        rest = sizes[active] - t - 1  # items after the winner in this stage's set
        count = int(rest.sum())
        if count == 0:
            continue
        owner = np.repeat(np.arange(len(active)), rest)
        within = np.arange(count) - np.repeat(np.cumsum(rest) - rest, rest)
        winners.append(members[start[owner]])
        losers.append(members[start[owner] + 1 + within])
    if not winners:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(winners), np.concatenate(losers)


def _flatten(rows: list, name: str, noun: str, items):
    if isinstance(rows, np.ndarray):
        sizes = np.full(rows.shape[0], rows.shape[1], dtype=np.int64)
    else:
        sizes = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    if len(rows) == 0:
        raise InputError(f"there are no {noun}s; give at least one.")
    short = sizes < 2
    if short.any():
        k = int(np.flatnonzero(short)[0])
        raise InputError(f"{name}[{k}] holds {int(sizes[k])} item(s); a {noun} needs at least two different items.")
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    if isinstance(rows, np.ndarray):
        flat = rows.reshape(-1)
    else:
        flat = [label for row in rows for label in row]
    index, codes, labels = _encode(flat, items, name, offsets)
    if (codes < 0).any():
        first = int(np.flatnonzero(codes < 0)[0])
        k = int(np.searchsorted(offsets, first, side="right") - 1)
        raise InputError(
            f"{name}[{k}] names item {shown_label(labels[first])} that is not in items; add it to items or drop it."
        )
    return index, codes, offsets


class Rankings(StagedObservations):
    """An immutable set of rankings, each an ordering (best first) of a subset of the items.

    Parameters
    ----------
    rankings : sequence of sequences of hashable, or array of shape (m, k)
        One ranking per observation, best item first. Rankings may have
        different lengths (partial rankings: a judge orders only the items
        shown to them); each needs at least two different items.
    items : sequence of hashable, optional
        Every item, in the order of positions (to include items never ranked
        or to fix the order); by default the ranked labels, sorted when they
        can be.

    Attributes
    ----------
    members : ndarray of int64
        Positions in :attr:`items` of the ranked items, observation after
        observation, best first.
    offsets : ndarray of int64, length m + 1
        Observation ``k`` is ``members[offsets[k]:offsets[k + 1]]``.
    n_stages : ndarray of int64
        Choice stages of each observation (its length minus one).
    items : pandas.Index
    n_items, n_observations : int

    Notes
    -----
    A ranking lists every item it was made from. A top-``k`` list picked
    from a larger displayed set is not a ranking of its ``k`` items (the
    unlisted items were available at every pick): give its first pick as a
    :class:`Choices` observation instead. Storage is O(total items listed).

    Examples
    --------
    >>> from paucity.ranking import Rankings
    >>> r = Rankings([["cat", "ant", "bee"], ["bee", "cat"]])
    >>> r.n_items, r.n_observations, list(r.items)
    (3, 2, ['ant', 'bee', 'cat'])
    >>> r.observation(0)
    ['cat', 'ant', 'bee']
    """

    _noun = "ranking"

    def __init__(self, rankings, items=None):
        rows = _sequences(rankings, "rankings", "Rankings")
        index, codes, offsets = _flatten(rows, "rankings", "ranking", items)
        self._store(codes, offsets, np.diff(offsets) - 1, index)
        self._check_repeats()

    @classmethod
    def from_frame(
        cls, df: pd.DataFrame, *, observation: str = "observation", item: str = "item", position: str = "position",
        items=None,
    ) -> Rankings:
        """Rankings from a long-format table: one row per (observation, item, position).

        ``position`` orders the items of an observation, smallest first (the
        best item has the smallest position: 1, 2, 3, … or 0, 1, 2, …); two
        items of one observation may not share a position. Observations keep
        the order in which they first appear.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"observation": [7, 7, 7, 8, 8], "item": ["a", "b", "c", "c", "a"],
        ...                    "position": [2, 1, 3, 1, 2]})
        >>> Rankings.from_frame(df).observation(0)
        ['b', 'a', 'c']
        """
        frame = _columns(df, {"observation": observation, "item": item, "position": position})
        pos = frame[position]
        try:
            pos_values = pos.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise InputTypeError(f"column {position!r} must hold numeric positions (1 for the best item).") from None
        bad = ~np.isfinite(pos_values)
        if bad.any():
            raise InputError(f"column {position!r} has a missing or infinite position at data row {int(np.flatnonzero(bad)[0]) + 1}.")
        groups = _groups(frame[observation], observation)
        order = np.lexsort((pos_values, groups))
        g, p = groups[order], pos_values[order]
        tied = (g[1:] == g[:-1]) & (p[1:] == p[:-1])
        if tied.any():
            row = int(order[1:][tied][0])
            raise InputError(
                f"observation {shown_label(frame[observation].iloc[row])} has two items at position "
                f"{shown_label(pos.iloc[row])}; a ranking orders its items strictly (no ties)."
            )
        rows = _split(frame[item].to_numpy(dtype=object)[order], g)
        return cls(rows, items=items)

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame, **kwargs) -> Rankings:
        """The same as :meth:`from_frame` (its earlier name, kept as an alias)."""
        return cls.from_frame(df, **kwargs)

    def to_dataframe(self) -> pd.DataFrame:
        """The rankings as a long table: columns observation, item, position (1 = best)."""
        sizes = self.sizes
        observation = np.repeat(np.arange(self.n_observations), sizes)
        position = np.arange(len(self.members)) - np.repeat(self.offsets[:-1], sizes) + 1
        return pd.DataFrame({"observation": observation, "item": self.items[self.members], "position": position})

    def __repr__(self) -> str:
        return f"Rankings({self.n_observations} rankings of {self.n_items} items)"


class Choices(StagedObservations):
    """An immutable set of choices: one item chosen from the set it was offered with.

    Parameters
    ----------
    chosen : sequence of hashable, length m
        The chosen item of each observation.
    alternatives : sequence of sequences of hashable, length m
        The whole set offered at each observation, the chosen item included
        (a shopper picks 1 of 4 products: the 4 products). At least two
        different items each.
    items : sequence of hashable, optional
        As for :class:`Rankings`.

    Attributes
    ----------
    members : ndarray of int64
        Positions of the offered items, observation after observation, the
        chosen item first and the others in the order given.
    offsets, n_stages, items, n_items, n_observations
        As for :class:`Rankings` (``n_stages`` is 1 for every choice).

    Examples
    --------
    >>> from paucity.ranking import Choices
    >>> c = Choices(["b", "a"], [["a", "b", "c"], ["a", "c"]])
    >>> c.n_observations, c.observation(0)
    (2, ['b', 'a', 'c'])
    """

    _noun = "choice"

    def __init__(self, chosen, alternatives, items=None):
        sets = _sequences(alternatives, "alternatives", "Choices")
        if isinstance(sets, np.ndarray):
            sets = [list(row) for row in sets]
        winners = item_labels(chosen, "chosen")
        if len(winners) != len(sets):
            raise ShapeMismatchError(
                f"chosen has {len(winners)} entries but alternatives has {len(sets)}; give one chosen item per set."
            )
        rows = []
        for k, (winner, offered) in enumerate(zip(list(winners), sets)):
            where = [n for n, label in enumerate(offered) if _same(label, winner)]
            if not where:
                raise InputError(
                    f"choice {k}: chosen item {shown_label(winner)} is not among its alternatives; "
                    "alternatives is the whole set offered, the chosen item included."
                )
            first = where[0]
            rows.append([offered[first]] + offered[:first] + offered[first + 1 :])
        index, codes, offsets = _flatten(rows, "alternatives", "choice", items)
        self._store(codes, offsets, np.ones(len(rows), dtype=np.int64), index)
        self._check_repeats()

    @classmethod
    def from_frame(
        cls, df: pd.DataFrame, *, observation: str = "observation", item: str = "item", chosen: str = "chosen",
        items=None,
    ) -> Choices:
        """Choices from a long-format table: one row per (observation, offered item), ``chosen`` true for one.

        ``chosen`` is a boolean (or 0/1) column, true on exactly one row of
        each observation.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"observation": [1, 1, 1, 2, 2], "item": ["a", "b", "c", "a", "c"],
        ...                    "chosen": [0, 1, 0, 0, 1]})
        >>> Choices.from_frame(df).observation(1)
        ['c', 'a']
        """
        frame = _columns(df, {"observation": observation, "item": item, "chosen": chosen})
        flag = frame[chosen]
        if flag.isna().any():
            raise InputError(f"column {chosen!r} has a missing value at data row {int(np.flatnonzero(flag.isna().to_numpy())[0]) + 1}.")
        try:
            values = flag.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise InputTypeError(f"column {chosen!r} must be boolean or 0/1 (1 on the chosen item's row).") from None
        bad = (values != 0) & (values != 1)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"column {chosen!r} must be boolean or 0/1; data row {row + 1} has {shown_label(flag.iloc[row])}.")
        groups = _groups(frame[observation], observation)
        count = np.bincount(groups, weights=values, minlength=int(groups.max()) + 1)
        wrong = np.flatnonzero(count != 1)
        if len(wrong):
            label = frame[observation].iloc[int(np.flatnonzero(groups == wrong[0])[0])]
            raise InputError(
                f"observation {shown_label(label)} has {int(count[wrong[0]])} chosen items; mark exactly one per observation."
            )
        # chosen row first within each observation, the others in table order
        order = np.lexsort((np.arange(len(values)), 1 - values, groups))
        rows = _split(frame[item].to_numpy(dtype=object)[order], groups[order])
        return cls([row[0] for row in rows], rows, items=items)

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame, **kwargs) -> Choices:
        """The same as :meth:`from_frame` (its earlier name, kept as an alias)."""
        return cls.from_frame(df, **kwargs)

    def to_dataframe(self) -> pd.DataFrame:
        """The choices as a long table: columns observation, item, chosen."""
        sizes = self.sizes
        observation = np.repeat(np.arange(self.n_observations), sizes)
        chosen = np.zeros(len(self.members), dtype=bool)
        chosen[self.offsets[:-1]] = True
        return pd.DataFrame({"observation": observation, "item": self.items[self.members], "chosen": chosen})

    def __repr__(self) -> str:
        return f"Choices({self.n_observations} choices of {self.n_items} items)"


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays and other labels whose == is not a truth value
        return False


def _columns(df, roles: dict) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"from_frame needs a pandas DataFrame, got {type(df).__name__}.")
    for role, column in roles.items():
        if column is None:
            raise InputError(f"{named(role)} names no column; give the name of the {role} column.")
    check_columns(df, roles)
    if len(df) == 0:
        raise InputError("the table has no rows; give at least one observation.")
    return df


def _groups(column: pd.Series, name: str) -> np.ndarray:
    if column.isna().any():
        raise InputError(f"column {name!r} has a missing observation id at data row {int(np.flatnonzero(column.isna().to_numpy())[0]) + 1}.")
    try:
        codes, _ = pd.factorize(column, sort=False)
    except TypeError:
        raise InputTypeError(f"column {name!r} must hold hashable observation ids.") from None
    return codes.astype(np.int64)


def _split(values: np.ndarray, groups_sorted: np.ndarray) -> list:
    starts = np.flatnonzero(np.r_[True, groups_sorted[1:] != groups_sorted[:-1]])
    ends = np.r_[starts[1:], len(values)]
    return [list(values[a:b]) for a, b in zip(starts, ends)]
