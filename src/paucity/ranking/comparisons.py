"""A set of pairwise comparisons between labelled items.

The convention is the seed's (seed 000, §3.1): an observation ``(i, j, y)``
says that items ``i`` and ``j`` were compared and ``y = 1`` when ``j`` was
preferred to ``i`` (``y = 0`` when ``i`` was); ``y = 0.5`` is a draw, which
only ``BTL(ties=...)`` can use (:func:`require_no_ties` is the one check every
other consumer calls).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._errors import InputError, InputTypeError, PaucityError, ShapeMismatchError
from .._spelling import named
from .._validation import check_columns

__all__ = ["Comparisons", "PairTable", "TIE_MODEL", "require_no_ties", "draw_message"]

# what every refusal of a draw names as the model to use instead
TIE_MODEL = "BTL(ties='davidson')"


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


def _labels(values, name: str) -> pd.Index:
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.to_numpy()
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise InputTypeError(f"{name} must be a sequence of item labels, got a single value {values!r}.")
    try:
        array = np.asarray(values)
    except Exception as error:  # ragged nested sequences, for instance
        array, problem = None, error
    if not isinstance(values, np.ndarray) and (array is None or array.ndim > 1 or array.dtype.kind in "US"):
        # numpy reads tuple labels as rows and turns labels of mixed types into strings: keep them as given
        array = _as_given(values, array)
    if array is None:
        raise InputTypeError(f"{name} could not be read as a sequence of item labels: {problem}") from None
    if array.ndim != 1:
        raise InputError(f"{name} must be 1-dimensional (one item per comparison), got shape {array.shape}.")
    if array.dtype.kind in "iu":
        return array  # integer labels: nothing can be missing, and no Index is needed yet
    index = pd.Index(array)
    if len(index) and index.isna().any():
        first = int(np.flatnonzero(index.isna())[0])
        raise InputError(f"{name} has a missing item label (NaN or None) at comparison {first}; drop or fill it.")
    return index


def _as_given(values, array):
    """A 1-d object array of the labels in ``values`` when they are all hashable; ``array`` otherwise."""
    try:
        labels = list(values)
    except TypeError:
        return array
    if array is not None and array.ndim == 1 and all(isinstance(label, (str, bytes)) for label in labels):
        return array  # genuinely strings
    try:
        for label in labels:
            hash(label)
    except TypeError:  # nested lists: a 2-d input, not labels
        return array
    return np.fromiter(labels, dtype=object, count=len(labels))


def _integer_codes(left, right, items):
    """Positions without hashing when the labels are non-negative integers (the common large case)."""
    if not (isinstance(left, np.ndarray) and isinstance(right, np.ndarray)):
        return None
    low = min(int(left.min()), int(right.min()))
    high = max(int(left.max()), int(right.max()))
    if low < 0:
        return None
    if items is None:
        if high > 4 * (len(left) + len(right)) + 1_000_000:
            return None
        present = np.zeros(high + 1, dtype=bool)
        present[left] = True
        present[right] = True
        position = np.cumsum(present) - 1
        return pd.Index(np.flatnonzero(present)), position[left], position[right]
    if isinstance(items, (pd.Series, pd.Index)):
        items = items.to_numpy()
    try:
        item_array = np.asarray(items)
    except (TypeError, ValueError, OverflowError):  # ragged or otherwise odd: the general path reports it
        return None
    if item_array.ndim != 1 or item_array.dtype.kind not in "iu" or len(item_array) == 0:
        return None
    n = len(item_array)
    if item_array[0] != 0 or item_array[-1] != n - 1 or (n > 1 and not (np.diff(item_array) == 1).all()):
        return None
    for name, codes in (("i", left), ("j", right)):
        if codes.max() >= n:
            first = int(np.flatnonzero(codes >= n)[0])
            raise InputError(
                f"{name} names item {int(codes[first])} (comparison {first}) that is not in items; "
                "add it to items or drop the comparison."
            )
    return pd.RangeIndex(n), left.astype(np.int64, copy=False), right.astype(np.int64, copy=False)


def _general_codes(left, right, items):
    left, right = pd.Index(left), pd.Index(right)
    if items is None:
        labels = left.append(right).unique()
        try:
            labels = labels.sort_values()
        except TypeError:  # labels of mixed, unorderable types keep first-seen order
            pass
        item_index = pd.Index(labels)
    else:
        item_index = _labels(items, "items")
        item_index = pd.Index(item_index)
        if not item_index.is_unique:
            duplicated = item_index[item_index.duplicated()][0]
            raise InputError(f"items has duplicate label {duplicated!r}; each item must appear once.")
    codes_i = item_index.get_indexer(left)
    codes_j = item_index.get_indexer(right)
    for name, codes, labels_ in (("i", codes_i, left), ("j", codes_j, right)):
        if (codes < 0).any():
            first = int(np.flatnonzero(codes < 0)[0])
            raise InputError(
                f"{name} names item {shown_label(labels_[first])} (comparison {first}) that is not in items; "
                "add it to items or drop the comparison."
            )
    return item_index, codes_i, codes_j


def item_labels(values, name: str):
    """The item labels of ``values`` as a 1-d array or Index, checked as :class:`Comparisons` checks ``i`` and ``j``.

    Examples
    --------
    >>> list(item_labels(["a", "b"], "items"))
    ['a', 'b']
    """
    return _labels(values, name)


def frozen(array) -> np.ndarray:
    """A contiguous read-only view of ``array``."""
    return _frozen(np.asarray(array))


def shown_label(label) -> str:
    """A label as users wrote it (numpy scalars shown as plain numbers)."""
    if isinstance(label, np.generic):
        label = label.item()
    return repr(label)


def draw_message(model: str, first: int) -> str:
    """The one-line refusal of a draw by ``model`` (comparison ``first`` is the first draw).

    Examples
    --------
    >>> draw_message("RankCentrality", 3)
    "RankCentrality cannot use draws (y = 0.5; comparison 3 is one): fit BTL(ties='davidson') (or ties='rao-kupper'), or drop the draws."
    """
    return (
        f"{model} cannot use draws (y = 0.5; comparison {first} is one): fit {TIE_MODEL} "
        "(or ties='rao-kupper'), or drop the draws."
    )


def require_no_ties(comparisons, model: str) -> None:
    """Raise :class:`~paucity.InputError` naming ``model`` when ``comparisons`` hold a draw (``y = 0.5``).

    The single check shared by every estimator, metric and reader that reads
    outcomes as 0/1 (all but ``BTL(ties=...)``).

    Examples
    --------
    >>> c = Comparisons(["a", "b"], ["b", "c"], [1, 0.5])
    >>> require_no_ties(c, "BRE")
    Traceback (most recent call last):
    ...
    paucity._errors.InputError: BRE cannot use draws (y = 0.5; comparison 1 is one): fit BTL(ties='davidson') (or ties='rao-kupper'), or drop the draws.
    """
    if comparisons.has_ties:
        raise InputError(draw_message(model, int(np.flatnonzero(np.asarray(comparisons.y) == 0.5)[0])))


_OUTCOMES = "0/1 outcomes (1 when j was preferred to i, 0.5 for a draw)"


def _outcomes(y, n: int) -> np.ndarray:
    if isinstance(y, (pd.Series, pd.Index)):
        y = y.to_numpy()
    try:
        array = np.asarray(y)
    except (TypeError, ValueError, OverflowError):  # ragged nested sequences, mixed text and bytes
        raise InputTypeError(f"y must hold {_OUTCOMES}, one per comparison.") from None
    if array.ndim != 1:
        raise InputError(f"y must be 1-dimensional (one outcome per comparison), got shape {array.shape}.")
    if len(array) != n:
        raise ShapeMismatchError(f"y has {len(array)} entries but i and j have {n}; give one outcome per comparison.")
    if array.dtype == bool:
        return array.astype(np.int8)
    if array.dtype.kind not in "iuf" and len(array):
        if array.dtype.kind == "c":
            raise InputTypeError(f"y must hold {_OUTCOMES}, got complex numbers.")
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputTypeError(f"y must hold {_OUTCOMES}, got values such as {array[0]!r}.") from None
    if array.dtype.kind == "f":
        bad = np.isnan(array)
        if bad.any():
            raise InputError(f"y has a missing outcome (NaN) at comparison {int(np.flatnonzero(bad)[0])}.")
    bad = (array != 0) & (array != 1) & (array != 0.5)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"y must be 0 (i preferred), 1 (j preferred) or 0.5 (a draw); comparison {first} has "
            f"y = {shown_label(array[first])}."
        )
    if array.dtype.kind == "f" and (array == 0.5).any():
        return array.astype(np.float64)  # draws: the outcomes stay fractional
    return array.astype(np.int8)


def _tie_flags(values, name: str) -> np.ndarray:
    """A bool per row from a bool or 0/1 column (the ``tie=`` column of :meth:`Comparisons.from_dataframe`).

    Text read from a file counts too: ``0``/``1`` and ``true``/``false`` (any case). A bad value is named with
    its data row, counted from 1 (the first row under the header).

    Examples
    --------
    >>> _tie_flags(["0", "1", "True", 0], "draw").tolist()
    [False, True, True, False]
    >>> _tie_flags(["0", "0", "1", "maybe"], "draw")
    Traceback (most recent call last):
    ...
    paucity._errors.InputError: column 'draw' (given as tie=) must hold booleans or 0/1 (1 for a draw); data row 4 has 'maybe'.
    """
    series = pd.Series(values)
    if series.isna().any():
        first = int(np.flatnonzero(series.isna().to_numpy())[0])
        raise InputError(
            f"column {name!r} (given as {named('tie')}) has a missing value at data row {first + 1}; use 1 for a draw, "
            "0 otherwise."
        )
    array = series.to_numpy()
    if array.dtype == bool:
        return array
    if array.dtype.kind in "iuf":
        bad = (array != 0) & (array != 1)
        if not bad.any():
            return array == 1
        first = int(np.flatnonzero(bad)[0])
        shown = shown_label(array[first])
    else:
        flags = [_tie_flag(value) for value in array]
        if all(flag is not None for flag in flags):
            return np.asarray(flags, dtype=bool)
        first = next(k for k, flag in enumerate(flags) if flag is None)
        shown = repr(array[first])
    raise InputError(
        f"column {name!r} (given as {named('tie')}) must hold booleans or 0/1 (1 for a draw); data row {first + 1} has {shown}."
    )


_TIE_WORDS = {"0": False, "1": True, "false": False, "true": True}


def _tie_flag(value):
    """True or False for one entry of a tie column (a boolean, 0/1, or their text), None when it is neither."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)) and value in (0, 1):
        return bool(value == 1)
    if isinstance(value, str):
        return _TIE_WORDS.get(value.strip().lower())
    return None


def _weights(weights, n: int) -> np.ndarray | None:
    if weights is None:
        return None
    if isinstance(weights, (pd.Series, pd.Index)):
        weights = weights.to_numpy()
    try:
        array = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputTypeError("weights must be numbers (a weight or count per comparison).") from None
    if array.ndim != 1 or len(array) != n:
        raise ShapeMismatchError(
            f"weights has shape {array.shape} but there are {n} comparisons; give one weight per comparison."
        )
    if not np.isfinite(array).all():
        first = int(np.flatnonzero(~np.isfinite(array))[0])
        raise InputError(f"weights has a non-finite value at comparison {first}; weights must be finite.")
    if (array < 0).any():
        first = int(np.flatnonzero(array < 0)[0])
        raise InputError(f"weights must be non-negative; comparison {first} has weight {array[first]}.")
    return array


class Comparisons:
    """An immutable set of pairwise comparisons between items.

    Parameters
    ----------
    i, j : sequence of hashable, length m
        The two items of each comparison. Any hashable labels (strings,
        integers, tuples); they are mapped to positions ``0..n_items-1`` in
        :attr:`items` and back.
    y : sequence of {0, 0.5, 1}, length m
        The outcome: 1 when ``j`` was preferred to ``i``, 0 when ``i`` was
        (the convention of seed 000, §3.1), 0.5 for a draw. Booleans are
        accepted. Only ``BTL(ties="davidson")`` and ``BTL(ties="rao-kupper")``
        can fit draws; every other estimator, metric and path refuses
        comparisons that hold one (see :attr:`has_ties`).
    weights : sequence of float, length m, optional
        A non-negative weight or count per comparison (an observation seen
        three times may be given once with weight 3).
    items : sequence of hashable, optional
        Every item, in the order of positions. Give it to include items that
        were never compared (they get a score from a regularized estimator) or
        to fix the order; by default the compared labels, sorted when they
        can be.
    features : pandas.DataFrame or array of shape (n_items, d), optional
        Item features for similarity regularization and the feature baselines.
        A DataFrame is aligned on its index (item labels); an array must have a
        row per item, in the order of :attr:`items`.
    similarity : array or sparse matrix of shape (n_items, n_items), optional
        A non-negative item–item similarity, in the order of :attr:`items`.

    Attributes
    ----------
    i, j : ndarray of int64
        Positions in :attr:`items` of the two items of each comparison.
    y : ndarray of int8, or of float64 when there is a draw
        The outcomes.
    has_ties : bool
        Whether any outcome is a draw (``y = 0.5``).
    weights : ndarray of float64 or None
    items : pandas.Index
    n_items, n_comparisons : int

    Notes
    -----
    Arrays are read-only; no ``n_items × n_items`` matrix is formed except a
    sparse one. Validation rejects an item compared with itself, outcomes
    other than 0, 0.5 and 1, missing labels or outcomes, an empty set, feature rows
    for unknown items and compared items without feature rows.

    Examples
    --------
    >>> from paucity.ranking import Comparisons
    >>> c = Comparisons.from_winners(["ant", "bee", "ant"], ["bee", "cat", "cat"])
    >>> c.n_items, c.n_comparisons
    (3, 3)
    >>> list(c.items)
    ['ant', 'bee', 'cat']
    >>> c.win_counts().tolist()
    [2.0, 1.0, 0.0]
    """

    def __init__(self, i, j, y, weights=None, items=None, *, features=None, similarity=None):
        left = _labels(i, "i")
        right = _labels(j, "j")
        if len(left) != len(right):
            raise ShapeMismatchError(f"i has {len(left)} entries but j has {len(right)}; give both items of each comparison.")
        m = len(left)
        if m == 0:
            raise InputError("there are no comparisons; give at least one (i, j, y) observation.")
        outcomes = _outcomes(y, m)
        weight = _weights(weights, m)
        fast = _integer_codes(left, right, items)
        if fast is not None:
            item_index, codes_i, codes_j = fast
        else:
            try:
                item_index, codes_i, codes_j = _general_codes(left, right, items)
            except TypeError as error:
                if isinstance(error, PaucityError):
                    raise
                raise InputTypeError(
                    f"item labels must be hashable (strings, numbers, tuples); {error}."
                ) from None
        same = codes_i == codes_j
        if same.any():
            first = int(np.flatnonzero(same)[0])
            raise InputError(
                f"comparison {first} compares item {shown_label(left[first])} with itself; a comparison needs two different items."
            )
        self.i = _frozen(codes_i.astype(np.int64))
        self.j = _frozen(codes_j.astype(np.int64))
        self.y = _frozen(outcomes)
        self.weights = None if weight is None else _frozen(weight)
        self.items = item_index
        self.features, self.feature_names = _features(features, item_index, self.i, self.j)
        self.similarity = _similarity(similarity, len(item_index))

    # -- constructors -----------------------------------------------------------------------------
    @classmethod
    def from_winners(cls, winners, losers, weights=None, items=None, **kwargs) -> Comparisons:
        """Comparisons from (winner, loser) pairs.

        Each pair becomes the observation ``(i=loser, j=winner, y=1)``.

        Examples
        --------
        >>> c = Comparisons.from_winners([1, 2], [0, 0])
        >>> c.y.tolist(), c.j.tolist()
        ([1, 1], [1, 2])
        """
        winners = _labels(winners, "winners")
        losers = _labels(losers, "losers")
        if len(winners) != len(losers):
            raise ShapeMismatchError(
                f"winners has {len(winners)} entries but losers has {len(losers)}; give one loser per winner."
            )
        return cls(losers, winners, np.ones(len(winners), dtype=np.int8), weights, items, **kwargs)

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        i: str,
        j: str,
        y: str | None = None,
        winner: str | None = None,
        weights: str | None = None,
        items=None,
        tie: str | None = None,
        **kwargs,
    ) -> Comparisons:
        """Comparisons from the named columns of a long-format table (one row per comparison).

        The one constructor from a table, as every data container of paucity
        has (:meth:`paucity.crowd.LabelMatrix.from_frame`,
        :meth:`paucity.judgments.Judgments.from_frame`, ...); read a file with
        :func:`paucity.io.read_frame` first. A bad row is named by its data
        row, counted from 1 (the first row under the header).

        Give the outcome either as ``y`` (a 0/1 column, 1 when the item in
        column ``j`` won, 0.5 for a draw) or as ``winner`` (a column holding
        the winning item's label, which must be one of the two compared).
        ``tie`` names a column of booleans or 0/1 marking draws: a row marked
        1 gets ``y = 0.5`` whatever its ``winner`` or ``y`` holds, and there
        that cell is ignored and may be missing (empty, NaN or None).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "y"], "b": ["y", "z"], "won": ["y", "y"]})
        >>> Comparisons.from_frame(df, i="a", j="b", winner="won").y.tolist()
        [1, 0]
        >>> games = df.assign(won=["y", None], draw=[False, True])
        >>> Comparisons.from_frame(games, i="a", j="b", winner="won", tie="draw").y.tolist()
        [1.0, 0.5]
        """
        if not isinstance(df, pd.DataFrame):
            raise InputTypeError(f"from_frame needs a pandas DataFrame, got {type(df).__name__}.")
        if (y is None) == (winner is None):
            raise InputError("give exactly one of y= (a 0/1 outcome column) or winner= (the winner's label column).")
        for role, column in (("i", i), ("j", j)):
            if column is None:
                raise InputError(f"{named(role)} names no column; give the column of the {role} items.")
        check_columns(df, {"i": i, "j": j, "y": y, "winner": winner, "weights": weights, "tie": tie})
        left, right = df[i], df[j]
        for role, column, labels in (("i", i, left), ("j", j, right)):
            if labels.isna().any():
                first = int(np.flatnonzero(labels.isna().to_numpy())[0])
                raise InputError(
                    f"column {column!r} (given as {named(role)}) has a missing item label at data row {first + 1}; "
                    "drop or fill it."
                )
        same = (left.to_numpy() == right.to_numpy())
        if same.any():
            first = int(np.flatnonzero(same)[0])
            raise InputError(
                f"data row {first + 1} compares item {shown_label(left.iloc[first])} with itself; a comparison "
                "needs two different items."
            )
        draw = np.zeros(len(df), dtype=bool) if tie is None else _tie_flags(df[tie].to_numpy(), tie)
        if winner is not None:
            won = df[winner]
            missing = won.isna().to_numpy() & ~draw
            if missing.any():
                first = int(np.flatnonzero(missing)[0])
                raise InputError(f"column {winner!r} has a missing winner at data row {first + 1}.")
            # compared as Python objects (a missing winner as None): pandas raises comparing a str column (pandas
            # 3's default for text) with one of mixed labels, and pd.NA (a "string" column's missing) has no truth
            won_labels = won.to_numpy(dtype=object, na_value=None)
            is_j = won_labels == right.to_numpy(dtype=object)
            is_i = won_labels == left.to_numpy(dtype=object)
            neither = ~(is_i | is_j | draw)
            if neither.any():
                first = int(np.flatnonzero(neither)[0])
                raise InputError(
                    f"data row {first + 1}: winner {won.iloc[first]!r} is neither of the compared items "
                    f"{left.iloc[first]!r} and {right.iloc[first]!r}."
                )
            outcome = is_j.astype(np.int8)
        else:
            outcome = df[y].to_numpy()
        if draw.any():
            outcome = pd.Series(outcome).astype(object).to_numpy(copy=True)  # written into: pandas 3's is read-only
            outcome[draw] = 0.5
        weight = None if weights is None else df[weights].to_numpy()
        return cls(left.to_numpy(), right.to_numpy(), outcome, weight, items, **kwargs)

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame, **kwargs) -> Comparisons:
        """The same as :meth:`from_frame` (its earlier name, kept as an alias).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "y"], "b": ["y", "z"], "won": ["y", "y"]})
        >>> Comparisons.from_dataframe(df, i="a", j="b", winner="won").y.tolist()
        [1, 0]
        """
        return cls.from_frame(df, **kwargs)

    # -- views ------------------------------------------------------------------------------------
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def n_comparisons(self) -> int:
        """Number of comparisons (rows)."""
        return len(self.y)

    def __len__(self) -> int:
        return self.n_comparisons

    def __repr__(self) -> str:
        extra = ""
        if self.features is not None:
            extra += f", {self.features.shape[1]} features"
        if self.similarity is not None:
            extra += ", similarity"
        if self.has_ties:
            n_draws = int((np.asarray(self.y) == 0.5).sum())
            extra = f", {n_draws} draw{'s' if n_draws > 1 else ''}" + extra
        return f"Comparisons({self.n_comparisons} comparisons of {self.n_items} items{extra})"

    @cached_property
    def has_ties(self) -> bool:
        """Whether any comparison is a draw (``y = 0.5``); only ``BTL(ties=...)`` fits those.

        Examples
        --------
        >>> Comparisons(["a", "b"], ["b", "c"], [1, 0.5]).has_ties
        True
        """
        y = np.asarray(self.y)
        return bool(y.dtype.kind == "f" and (y == 0.5).any())

    @property
    def winners(self) -> np.ndarray:
        """Position of the preferred item of each comparison (undefined, so an error, with a draw)."""
        require_no_ties(self, "Comparisons.winners")
        return np.where(self.y == 1, self.j, self.i)

    @property
    def losers(self) -> np.ndarray:
        """Position of the other item of each comparison (an error with a draw)."""
        require_no_ties(self, "Comparisons.losers")
        return np.where(self.y == 1, self.i, self.j)

    @property
    def observation_weights(self) -> np.ndarray:
        """The weights, or ones when none were given."""
        if self.weights is None:
            return np.ones(self.n_comparisons)
        return np.asarray(self.weights)

    def win_counts(self) -> np.ndarray:
        """Weighted number of comparisons each item won."""
        return np.bincount(self.winners, weights=self.observation_weights, minlength=self.n_items)

    def loss_counts(self) -> np.ndarray:
        """Weighted number of comparisons each item lost."""
        return np.bincount(self.losers, weights=self.observation_weights, minlength=self.n_items)

    @cached_property
    def wins(self) -> sp.csr_matrix:
        """Sparse ``n_items × n_items`` matrix: entry (a, b) is the weight of comparisons a won against b."""
        n = self.n_items
        matrix = sp.csr_matrix(
            (self.observation_weights, (self.winners, self.losers)), shape=(n, n), dtype=np.float64
        )
        matrix.sum_duplicates()
        return matrix

    @cached_property
    def pairs(self) -> PairTable:
        """The distinct compared pairs with the weight each side won (see :class:`PairTable`); an error with a draw."""
        require_no_ties(self, "Comparisons.pairs (win counts by pair)")
        return pair_table(self.i, self.j, self.y, self.weights, self.n_items)

    def to_dataframe(self) -> pd.DataFrame:
        """The comparisons as a table of labels: columns i, j, y (and weight)."""
        table = {"i": self.items[self.i], "j": self.items[self.j], "y": np.asarray(self.y)}
        if self.weights is not None:
            table["weight"] = np.asarray(self.weights)
        return pd.DataFrame(table)

    def position(self, labels) -> np.ndarray:
        """Positions in :attr:`items` of the given labels (an error names any unknown one)."""
        index = _labels(np.atleast_1d(np.asarray(labels, dtype=object)) if np.isscalar(labels) else labels, "labels")
        codes = self.items.get_indexer(index)
        if (codes < 0).any():
            raise InputError(f"item {index[int(np.flatnonzero(codes < 0)[0])]!r} is not one of the ranked items.")
        return codes

    # -- derived sets -----------------------------------------------------------------------------
    def subset(self, selection) -> Comparisons:
        """The comparisons at the given positions or boolean mask, over the same items."""
        selection = np.asarray(selection)
        if selection.dtype == bool:
            if len(selection) != self.n_comparisons:
                raise ShapeMismatchError(
                    f"the mask has {len(selection)} entries but there are {self.n_comparisons} comparisons."
                )
            selection = np.flatnonzero(selection)
        elif selection.size == 0:
            selection = selection.astype(np.int64)
        elif selection.dtype.kind not in "iu":
            raise InputTypeError("the selection must be integer positions or a boolean mask of the comparisons.")
        elif selection.ndim != 1:
            raise InputError(f"the selection must be 1-dimensional, got shape {selection.shape}.")
        else:
            outside = (selection >= self.n_comparisons) | (selection < -self.n_comparisons)
            if outside.any():
                raise InputError(
                    f"position {int(selection[outside][0])} of the selection is out of range of the "
                    f"{self.n_comparisons} comparisons."
                )
        return self._derived(
            self.i[selection], self.j[selection], self.y[selection],
            None if self.weights is None else self.weights[selection],
        )

    def with_features(self, features=None, *, similarity=None) -> Comparisons:
        """The same comparisons with item features and/or a similarity matrix attached.

        What is not given is kept from this object.
        """
        out = self._derived(self.i, self.j, self.y, self.weights)
        if features is not None:
            out.features, out.feature_names = _features(features, self.items, self.i, self.j)
        if similarity is not None:
            out.similarity = _similarity(similarity, self.n_items)
        return out

    def _derived(self, i, j, y, weights) -> Comparisons:
        if len(y) == 0:
            raise InputError("the selection holds no comparisons; give at least one.")
        out = object.__new__(Comparisons)
        out.i, out.j, out.y = _frozen(np.asarray(i)), _frozen(np.asarray(j)), _frozen(np.asarray(y))
        out.weights = None if weights is None else _frozen(np.asarray(weights))
        out.items = self.items
        out.features, out.feature_names, out.similarity = self.features, self.feature_names, self.similarity
        return out


@dataclass(frozen=True)
class PairTable:
    """Comparisons aggregated by unordered pair.

    Attributes
    ----------
    low, high : ndarray of int64
        The two items of each distinct pair, ``low < high``, sorted by (low, high).
    low_wins, high_wins : ndarray of float64
        Weight of the comparisons of the pair that ``low`` (``high``) won.
    n_items : int
    """

    low: np.ndarray
    high: np.ndarray
    low_wins: np.ndarray
    high_wins: np.ndarray
    n_items: int

    @property
    def totals(self) -> np.ndarray:
        return self.low_wins + self.high_wins

    def __len__(self) -> int:
        return len(self.low)

    def strong_components(self) -> int:
        """Strongly connected components of the graph with an edge from each loser to its winner.

        One component means RankCentrality's chain is irreducible and the BTL
        maximum likelihood estimate exists; an item never compared is a
        component of its own.
        """
        low, high = np.asarray(self.low), np.asarray(self.high)
        up = np.asarray(self.high_wins) > 0  # low lost to high: an edge low -> high
        down = np.asarray(self.low_wins) > 0
        rows = np.concatenate([low[up], high[down]])
        cols = np.concatenate([high[up], low[down]])
        n = self.n_items
        graph = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
        return int(connected_components(graph, directed=True, connection="strong")[0])


def pair_table(i, j, y, weights, n_items: int) -> PairTable:
    i = np.asarray(i)
    j = np.asarray(j)
    low = np.minimum(i, j)
    high = np.maximum(i, j)
    key = low * np.int64(n_items) + high
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    weight = np.ones(len(key)) if weights is None else np.asarray(weights, dtype=np.float64)[order]
    # the low item won when it was i and y = 0, or j and y = 1
    low_won = (np.asarray(i)[order] == low[order]) == (np.asarray(y)[order] == 0)
    low_wins = np.add.reduceat(np.where(low_won, weight, 0.0), starts)
    high_wins = np.add.reduceat(np.where(low_won, 0.0, weight), starts)
    keep = (low_wins + high_wins) > 0
    first = order[starts]
    return PairTable(
        low=_frozen(low[first][keep]),
        high=_frozen(high[first][keep]),
        low_wins=_frozen(low_wins[keep]),
        high_wins=_frozen(high_wins[keep]),
        n_items=n_items,
    )


def _features(features, items: pd.Index, i: np.ndarray, j: np.ndarray):
    if features is None:
        return None, None
    names = None
    if isinstance(features, pd.DataFrame):
        index = features.index
        unknown = ~index.isin(items)
        if unknown.any():
            raise InputError(
                f"features has a row for item {index[unknown][0]!r}, which is not among the items; "
                "pass items= to include items that were never compared."
            )
        if not index.is_unique:
            raise InputError(f"features has two rows for item {index[index.duplicated()][0]!r}.")
        positions = index.get_indexer(items)
        compared = np.zeros(len(items), dtype=bool)
        compared[i] = True
        compared[j] = True
        missing = (positions < 0) & compared
        if missing.any():
            raise InputError(
                f"features has no row for compared item {items[np.flatnonzero(missing)[0]]!r}; "
                "give a feature row for every compared item."
            )
        if (positions < 0).any():
            raise InputError(
                f"features has no row for item {items[np.flatnonzero(positions < 0)[0]]!r}; "
                "give a row for every item, or leave it out of items."
            )
        names = [str(c) for c in features.columns]
        frame = features.iloc[positions]
        try:
            values = frame.to_numpy(dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputTypeError("features must be numeric; encode categorical columns as numbers first.") from None
    else:
        try:
            values = np.asarray(features, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputTypeError("features must be a numeric array or a DataFrame indexed by item.") from None
        if values.ndim == 1:
            values = values[:, None]
        if values.ndim != 2:
            raise InputError(f"features must be 2-dimensional (items × features), got shape {values.shape}.")
        if values.shape[0] != len(items):
            raise ShapeMismatchError(
                f"features has {values.shape[0]} rows but there are {len(items)} items; give a row per item, "
                "or a DataFrame indexed by item label."
            )
    if values.shape[1] == 0:
        raise InputError("features has no columns.")
    if not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values).all(axis=1))[0])
        raise InputError(f"features has a missing or infinite value for item {items[row]!r}.")
    return _frozen(values), names


def _similarity(similarity, n: int):
    if similarity is None:
        return None
    if sp.issparse(similarity):
        matrix = sp.csr_matrix(similarity, dtype=np.float64)
        values = matrix.data
    else:
        try:
            matrix = np.asarray(similarity, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise InputTypeError("similarity must be a numeric matrix (dense or scipy sparse).") from None
        values = matrix
    if matrix.ndim != 2 or matrix.shape != (n, n):
        raise ShapeMismatchError(f"similarity has shape {matrix.shape} but there are {n} items; it must be {n} × {n}.")
    if not np.isfinite(values).all():
        raise InputError("similarity has a missing or infinite entry.")
    if (values < 0).any():
        raise InputError("similarity must be non-negative.")
    if isinstance(matrix, np.ndarray) and n > 2000:
        matrix = sp.csr_matrix(matrix)
    return matrix
