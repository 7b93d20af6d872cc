"""Measures of how well a ranking or a score vector matches the truth.

Every measure takes score vectors, higher is better: an estimator's
``scores_``, a true log-weight vector, or ``-np.arange(n)`` for the order
"item 0 first, item 1 second, ...". Two vectors are compared item by item: as
arrays they must be in the same item order; as pandas Series they are aligned
on their labels. A position is a 0-based place in the order best first.

All pair-counting measures run in O(n log n) time and O(n) memory, so they can
compare rankings of millions of items; none forms the ``n × n`` matrix of pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ShapeMismatchError
from .._validation import BOOLEAN, Options, check_parameter, check_random_state
from .comparisons import Comparisons, require_no_ties

__all__ = [
    "PairCounts",
    "displacement",
    "held_out_error",
    "kendall_tau_b",
    "kendall_tau_distance",
    "l2_error",
    "max_displacement",
    "order_by_scores",
    "pair_counts",
    "positions",
    "spearman_footrule",
]

_TIE_RULES = ("first", "random")


# -- input ----------------------------------------------------------------------------------------
def _vector(values, name: str) -> np.ndarray:
    """A 1-D float64 array of finite-or-infinite, non-NaN numbers."""
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.to_numpy()
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise InputTypeError(f"{name} must be a sequence of scores (one per item), got a single value {values!r}.")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:  # ragged nested sequences
        raise InputTypeError(f"{name} could not be read as a vector of scores: {error}") from None
    if array.dtype.kind == "c":
        raise InputTypeError(f"{name} must hold real numbers, got complex values.")
    try:
        array = array.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must hold numbers (one score per item), got values such as {array.flat[0]!r}.") from None
    if array.ndim != 1:
        raise InputError(f"{name} must be 1-dimensional (one score per item), got shape {array.shape}.")
    return array


def _check_not_nan(array: np.ndarray, name: str, labels=None) -> None:
    bad = np.isnan(array)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        where = f"item {labels[first]!r}" if labels is not None else f"position {first}"
        raise InputError(f"{name} has a missing value (NaN) for {where}; drop or fill it before comparing.")


def _unique_index(series: pd.Series, name: str) -> None:
    if not series.index.is_unique:
        duplicated = series.index[series.index.duplicated()][0]
        raise InputError(f"{name} has two entries for item {duplicated!r}; give one score per item.")


def _paired(a, b, name_a: str, name_b: str):
    """Two score vectors in the same item order, and the item labels when known.

    Two Series are aligned on their labels (they must hold the same items);
    otherwise the vectors are taken in the order given and must have equal length.
    """
    labels = None
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        _unique_index(a, name_a)
        _unique_index(b, name_b)
        labels = a.index
        if not a.index.equals(b.index):
            missing = a.index.difference(b.index, sort=False)
            if len(missing):
                raise InputError(
                    f"item {missing[0]!r} has a score in {name_a} but not in {name_b}; "
                    "both Series must be indexed by the same items."
                )
            extra = b.index.difference(a.index, sort=False)
            if len(extra):
                raise InputError(
                    f"item {extra[0]!r} has a score in {name_b} but not in {name_a}; "
                    "both Series must be indexed by the same items."
                )
            b = b.reindex(a.index)
    elif isinstance(a, pd.Series):
        labels = a.index
    elif isinstance(b, pd.Series):
        labels = b.index
    x = _vector(a, name_a)
    z = _vector(b, name_b)
    if len(x) != len(z):
        raise ShapeMismatchError(
            f"{name_a} has {len(x)} entries but {name_b} has {len(z)}; give one score per item in both."
        )
    _check_not_nan(x, name_a, labels)
    _check_not_nan(z, name_b, labels)
    return x, z, labels


# -- orders ---------------------------------------------------------------------------------------
def order_by_scores(scores: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """Positions sorted best first; ties in item order, or at random when ``rng`` is given.

    Examples
    --------
    >>> order_by_scores(np.array([0.1, 0.5, 0.1])).tolist()
    [1, 0, 2]
    """
    scores = np.asarray(scores, dtype=np.float64)
    if rng is None:
        return np.lexsort((np.arange(len(scores)), -scores))
    return np.lexsort((rng.permutation(len(scores)), -scores))


# -- counting pairs -------------------------------------------------------------------------------
def _tied_pairs(sorted_values: np.ndarray) -> int:
    """Number of pairs of equal values in a sorted vector."""
    n = len(sorted_values)
    if n < 2:
        return 0
    breaks = np.flatnonzero(sorted_values[1:] != sorted_values[:-1]) + 1
    runs = np.diff(np.concatenate(([0], breaks, [n]))).astype(np.int64)
    return int((runs * (runs - 1) // 2).sum())


def _dense_ranks(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Ranks 0, 1, ... of the distinct values (equal values share a rank), and the tied pairs."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.empty(len(values), dtype=bool)
    if len(values):
        new[0] = False
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[order] = np.cumsum(new)
    return ranks, _tied_pairs(ordered)


def _inversions(sequence: np.ndarray) -> int:
    """Number of pairs ``k < l`` with ``sequence[k] > sequence[l]`` (equal values are not inverted).

    ``sequence`` holds non-negative integers. The pairs are counted one bit of
    the values at a time, from the highest: a pair is inverted at the first bit
    where its two values differ, so at each bit the count is, within each group
    of values sharing the higher bits, the number of (1 before 0) pairs in
    sequence order. The groups are then split stably by the bit. Each of the
    ``log2(max)`` rounds is a few vectorized O(n) passes.
    """
    n = len(sequence)
    if n < 2:
        return 0
    seq = np.array(sequence, dtype=np.int64)
    index = np.arange(n, dtype=np.int64)
    new_group = np.empty(n, dtype=bool)
    total = 0
    for bit in range(int(seq.max()).bit_length() - 1, -1, -1):
        ones = (seq >> bit) & 1
        higher = seq >> (bit + 1)
        new_group[0] = True
        np.not_equal(higher[1:], higher[:-1], out=new_group[1:])
        start = np.maximum.accumulate(np.where(new_group, index, 0))
        ones_before = np.cumsum(ones) - ones
        ones_before_in_group = ones_before - ones_before[start]
        zero = ones == 0
        total += int(ones_before_in_group[zero].sum())
        if bit == 0:
            break
        # split each group stably: its zeros first, then its ones
        starts = np.flatnonzero(new_group)
        sizes = np.diff(np.append(starts, n))
        zeros_in_group = sizes - np.add.reduceat(ones, starts)
        group = np.cumsum(new_group) - 1
        target = np.where(zero, index - ones_before_in_group, start + zeros_in_group[group] + ones_before_in_group)
        moved = np.empty_like(seq)
        moved[target] = seq
        seq = moved
    return total


@dataclass(frozen=True)
class PairCounts:
    """How the ``n (n - 1) / 2`` pairs of items compare under two score vectors.

    Attributes
    ----------
    concordant : int
        Pairs ordered the same way by both (``P`` of eq. 3.10).
    discordant : int
        Pairs ordered opposite ways (``Q``).
    ties_a : int
        Pairs tied in the first vector only (``T``).
    ties_b : int
        Pairs tied in the second vector only (``U``).
    ties_both : int
        Pairs tied in both.
    """

    concordant: int
    discordant: int
    ties_a: int
    ties_b: int
    ties_both: int

    @property
    def n_pairs(self) -> int:
        """All pairs of items, ``n (n - 1) / 2``."""
        return self.concordant + self.discordant + self.ties_a + self.ties_b + self.ties_both


def _counts(a: np.ndarray, b: np.ndarray) -> PairCounts:
    n = len(a)
    total = n * (n - 1) // 2
    if n < 2:
        return PairCounts(0, 0, 0, 0, 0)
    ranks_b, tied_b = _dense_ranks(b)
    # sort by a, and by b within ties of a, so that pairs tied in a are never inverted in b
    order = np.lexsort((ranks_b, a))
    a_sorted = a[order]
    b_sorted = ranks_b[order]
    tied_a = _tied_pairs(a_sorted)
    same = np.empty(n, dtype=bool)
    same[0] = False
    same[1:] = (a_sorted[1:] == a_sorted[:-1]) & (b_sorted[1:] == b_sorted[:-1])
    runs = np.diff(np.concatenate(([0], np.flatnonzero(~same), [n]))).astype(np.int64)
    tied_both = int((runs * (runs - 1) // 2).sum())
    discordant = _inversions(b_sorted)
    concordant = total - discordant - tied_a - tied_b + tied_both
    return PairCounts(concordant, discordant, tied_a - tied_both, tied_b - tied_both, tied_both)


def pair_counts(a, b) -> PairCounts:
    """Count the concordant, discordant and tied pairs of two score vectors.

    Parameters
    ----------
    a, b : array-like or pandas.Series of shape (n_items,)
        Two scores per item. Series are aligned on their labels.

    Returns
    -------
    PairCounts
        Exact integer counts of the ``n (n - 1) / 2`` pairs.

    Notes
    -----
    The counts ``P``, ``Q``, ``T`` and ``U`` of Kendall's tau-b (seed 000,
    eq. 3.10), computed in O(n log n): the items are sorted by ``a`` (ties by
    ``b``) and the discordant pairs are the inversions of ``b`` in that order.

    Examples
    --------
    >>> pair_counts([1, 2, 3, 3], [1, 3, 2, 2])
    PairCounts(concordant=3, discordant=2, ties_a=0, ties_b=0, ties_both=1)
    """
    x, z, _ = _paired(a, b, "a", "b")
    return _counts(x, z)


# -- correlation ----------------------------------------------------------------------------------
def kendall_tau_b(a, b) -> float:
    """Kendall's tau-b rank correlation of two score vectors.

    Parameters
    ----------
    a, b : array-like or pandas.Series of shape (n_items,)
        Two scores per item (for instance estimated and true scores). Series
        are aligned on their labels; arrays must be in the same item order.

    Returns
    -------
    float
        In [-1, 1]; 1 when the two vectors order every pair the same way.
        NaN when tau-b is undefined: fewer than two items, or a vector with
        all values equal (no pair is ordered by it).

    Notes
    -----
    Implements eq. 3.10 of seed 000 (chapter 3, §3.4),

    .. math:: \\tau(\\alpha, \\beta) = \\frac{P - Q}{\\sqrt{(P + Q + T)(P + Q + U)}},

    where ``P`` counts concordant pairs, ``Q`` discordant pairs, ``T`` pairs
    tied only in ``a`` and ``U`` pairs tied only in ``b``; pairs tied in both
    count nowhere. The counts are exact integers (see :func:`pair_counts`) and
    the cost is O(n log n). As the seed notes, tau-b is undefined for the
    uniform output of an estimator that returns constant scores.

    Examples
    --------
    >>> round(kendall_tau_b([1, 2, 3, 4], [10, 20, 40, 30]), 6)
    0.666667
    >>> round(kendall_tau_b([1, 1, 2], [1, 2, 3]), 6)
    0.816497
    >>> kendall_tau_b([5, 5, 5], [1, 2, 3])
    nan
    """
    counts = pair_counts(a, b)
    p, q = counts.concordant, counts.discordant
    denominator = (p + q + counts.ties_a) * (p + q + counts.ties_b)
    if denominator == 0:
        return float("nan")
    return float((p - q) / np.sqrt(float(denominator)))


# -- positions and distances ----------------------------------------------------------------------
def _tie_rule(ties: str, random_state, owner: str):
    rule = check_parameter(ties, "ties", [Options(*_TIE_RULES)], owner=owner)
    return check_random_state(random_state) if rule == "random" else None


def _positions_of(values: np.ndarray, rng) -> np.ndarray:
    order = order_by_scores(values, rng)
    out = np.empty(len(values), dtype=np.int64)
    out[order] = np.arange(len(values), dtype=np.int64)
    return out


def positions(scores, *, ties: str = "first", random_state=None):
    """The 0-based position of each item in the order best first.

    Parameters
    ----------
    scores : array-like or pandas.Series of shape (n_items,)
        Higher is better.
    ties : {"first", "random"}, default "first"
        How items with equal scores are ordered: by their order in ``scores``
        (the earlier item first), or uniformly at random (as seed 003 does).
    random_state : int, numpy.random.Generator or None
        Randomness of ``ties="random"``.

    Returns
    -------
    numpy.ndarray of int64, or pandas.Series when ``scores`` is one
        ``positions[k]`` is the place of item ``k``: 0 for the best item.

    Notes
    -----
    This is ``π(j)`` of seed 003, §5.2, shifted to count from 0.

    Examples
    --------
    >>> positions([0.2, 0.9, 0.5]).tolist()
    [2, 0, 1]
    >>> positions([1, 1, 0]).tolist()
    [0, 1, 2]
    """
    x = _vector(scores, "scores")
    labels = scores.index if isinstance(scores, pd.Series) else None
    _check_not_nan(x, "scores", labels)
    out = _positions_of(x, _tie_rule(ties, random_state, "positions"))
    return out if labels is None else pd.Series(out, index=labels, name="position")


def kendall_tau_distance(scores, true_scores, *, ties: str = "half", random_state=None) -> float:
    """Number of pairs of items that the scores put in the wrong order.

    Parameters
    ----------
    scores : array-like or pandas.Series of shape (n_items,)
        Estimated scores, higher is better.
    true_scores : array-like or pandas.Series of shape (n_items,)
        True scores, higher is better (``-np.arange(n)`` for the order
        "item 0 first, item 1 second, ...").
    ties : {"half", "first", "random"}, default "half"
        What a pair tied in ``scores`` but not in ``true_scores`` counts:
        ``"half"`` counts it as half an inversion, the expected count when
        ties are broken uniformly at random (as seed 003 does), without the
        randomness; ``"first"`` and ``"random"`` first turn ``scores`` into
        a strict order (see :func:`positions`) and count whole inversions.
    random_state : int, numpy.random.Generator or None
        Randomness of ``ties="random"``.

    Returns
    -------
    float
        The number of inverted pairs, between 0 and ``n (n - 1) / 2``; a
        multiple of 1/2 with ``ties="half"``, a whole number otherwise.

    Notes
    -----
    Implements eq. 5.1 of seed 003, ``inv(π̂) = Σ_{π*(i) < π*(j)} 1(π̂(j) < π̂(i))``.
    Pairs tied in ``true_scores`` have no true order and never count. The
    count is exact and takes O(n log n) (see :func:`pair_counts`). Divide by
    ``n (n - 1) / 2`` for the normalized distance.

    Examples
    --------
    >>> truth = [3, 2, 1, 0]                  # item 0 best
    >>> kendall_tau_distance([3, 1, 2, 0], truth)
    1.0
    >>> kendall_tau_distance([1, 1, 0, 0], truth)  # two tied pairs, half each
    1.0
    >>> kendall_tau_distance([0, 1, 2, 3], truth)
    6.0
    """
    rule = check_parameter(ties, "ties", [Options("half", *_TIE_RULES)], owner="kendall_tau_distance")
    x, z, _ = _paired(scores, true_scores, "scores", "true_scores")
    if rule != "half":
        rng = check_random_state(random_state) if rule == "random" else None
        x = -_positions_of(x, rng).astype(np.float64)
    counts = _counts(x, z)
    return counts.discordant + counts.ties_a / 2


def displacement(scores, true_scores, *, ties: str = "first", random_state=None):
    """How far each item is from its true position: ``|π̂(j) − π*(j)|``.

    Parameters
    ----------
    scores : array-like or pandas.Series of shape (n_items,)
        Estimated scores, higher is better.
    true_scores : array-like or pandas.Series of shape (n_items,)
        True scores, higher is better; expected to be a strict order
        (equal true scores are placed in item order).
    ties : {"first", "random"}, default "first"
        How items with equal estimated scores are ordered (see :func:`positions`).
    random_state : int, numpy.random.Generator or None
        Randomness of ``ties="random"``.

    Returns
    -------
    numpy.ndarray of int64, or pandas.Series when a score vector is a Series
        The displacement of each item, in item order.

    Notes
    -----
    The set ``{|π̂(j) − π*(j)|}`` of seed 003, §5.2 (whose maximum is eq. 5.3
    and whose sum is eq. 5.2). Positions are 0-based, best first; the cost is
    two sorts, O(n log n).

    Examples
    --------
    >>> displacement([1, 3, 2, 0], [3, 2, 1, 0]).tolist()
    [2, 1, 1, 0]
    """
    x, z, labels = _paired(scores, true_scores, "scores", "true_scores")
    out = np.abs(_positions_of(x, _tie_rule(ties, random_state, "displacement")) - _positions_of(z, None))
    return out if labels is None else pd.Series(out, index=labels, name="displacement")


def spearman_footrule(scores, true_scores, *, ties: str = "first", random_state=None) -> int:
    """Spearman's footrule: the total displacement ``Σ_j |π̂(j) − π*(j)|``.

    Parameters
    ----------
    scores, true_scores, ties, random_state
        As for :func:`displacement`.

    Returns
    -------
    int
        Between 0 and ``floor(n² / 2)``.

    Notes
    -----
    Implements eq. 5.2 of seed 003. Diaconis and Graham's inequality
    ``inv ≤ dis ≤ 2 inv`` relates it to :func:`kendall_tau_distance` when
    both see the same strict order (the same ``ties`` rule and seed).

    Examples
    --------
    >>> spearman_footrule([1, 3, 2, 0], [3, 2, 1, 0])
    4
    """
    return int(np.sum(np.asarray(displacement(scores, true_scores, ties=ties, random_state=random_state))))


def max_displacement(scores, true_scores, *, ties: str = "first", random_state=None) -> int:
    """The largest displacement ``max_j |π̂(j) − π*(j)|``.

    Parameters
    ----------
    scores, true_scores, ties, random_state
        As for :func:`displacement`.

    Returns
    -------
    int
        Between 0 and ``n - 1``.

    Notes
    -----
    Implements eq. 5.3 of seed 003.

    Examples
    --------
    >>> max_displacement([1, 3, 2, 0], [3, 2, 1, 0])
    2
    """
    values = np.asarray(displacement(scores, true_scores, ties=ties, random_state=random_state))
    return int(values.max()) if len(values) else 0


# -- held-out comparisons -------------------------------------------------------------------------
def _item_scores(scores, comparisons: Comparisons) -> np.ndarray:
    """Scores in the order of ``comparisons.items``; NaN for items that were never compared."""
    items = comparisons.items
    if isinstance(scores, pd.Series):
        _unique_index(scores, "scores")
        values = _vector(scores, "scores")
        if scores.index.equals(items):
            out = values
        else:
            where = scores.index.get_indexer(items)
            out = np.full(len(items), np.nan)
            found = where >= 0
            out[found] = values[where[found]]
            compared = np.zeros(len(items), dtype=bool)
            compared[comparisons.i] = True
            compared[comparisons.j] = True
            missing = compared & ~found
            if missing.any():
                raise InputError(
                    f"scores has no entry for item {items[int(np.flatnonzero(missing)[0])]!r}, which is compared "
                    "in the held-out comparisons; score every compared item (or drop its comparisons)."
                )
    else:
        out = _vector(scores, "scores")
        if len(out) != len(items):
            raise ShapeMismatchError(
                f"scores has {len(out)} entries but the comparisons are over {len(items)} items; give a score per "
                "item in the order of comparisons.items, or a pandas Series indexed by item label."
            )
    return out


def held_out_error(scores, comparisons: Comparisons) -> float:
    """Fraction of comparisons whose winner has the lower score.

    Parameters
    ----------
    scores : pandas.Series or array-like
        A score per item, higher is better: a Series indexed by item label
        (aligned to ``comparisons.items``; it may hold other items too), or
        an array in the order of ``comparisons.items``.
    comparisons : Comparisons
        Held-out comparisons.

    Returns
    -------
    float
        The weighted fraction of comparisons won by the lower-scored item; a
        comparison between two equally scored items counts one half. Each
        comparison weighs its weight (1 when the comparisons have none).

    Notes
    -----
    The test error of seed 000, §3.5.1: "the fraction of comparisons in the
    test dataset in which the item with the lower predicted score was
    preferred". ``1 - held_out_error`` is what a ranker's ``score`` returns.

    Examples
    --------
    >>> import pandas as pd
    >>> from paucity.ranking import Comparisons
    >>> held = Comparisons.from_winners(["a", "b", "c"], ["b", "c", "a"])
    >>> round(held_out_error(pd.Series({"a": 3.0, "b": 2.0, "c": 1.0}), held), 6)
    0.333333
    >>> held_out_error([1.0, 1.0, 0.0], held)  # a and b tied: half an error
    0.5
    """
    if not isinstance(comparisons, Comparisons):
        raise InputTypeError(
            f"comparisons must be a paucity.ranking.Comparisons, got {type(comparisons).__name__}."
        )
    require_no_ties(comparisons, "held_out_error")
    values = _item_scores(scores, comparisons)
    left = values[comparisons.i]
    right = values[comparisons.j]
    bad = np.isnan(left) | np.isnan(right)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        item = comparisons.i[first] if np.isnan(left[first]) else comparisons.j[first]
        raise InputError(f"scores is NaN for item {comparisons.items[item]!r}, which is compared; fill it first.")
    winner_lower = np.where(comparisons.y == 1, right < left, left < right)
    error = winner_lower + 0.5 * (left == right)
    weights = comparisons.observation_weights
    total = weights.sum()
    if not total > 0:
        raise InputError("the held-out comparisons all have weight 0; give at least one positive weight.")
    return float(np.dot(error, weights) / total)


# -- score error ----------------------------------------------------------------------------------
def l2_error(estimated_weights, true_weights, *, log: bool = False) -> float:
    """Relative ℓ2 error of normalized weights, ``‖π̂ − π‖₂ / ‖π‖₂``.

    Parameters
    ----------
    estimated_weights : array-like or pandas.Series of shape (n_items,)
        Estimated BTL weights ``ŵ`` (non-negative, not all zero), or their
        logarithms when ``log=True``.
    true_weights : array-like or pandas.Series of shape (n_items,)
        True weights ``w`` (or log-weights when ``log=True``). Series are
        aligned on their labels.
    log : bool, default False
        Both inputs are log-weights ``v = ln w``; they are exponentiated after
        subtracting their maximum, so large log-weights do not overflow.
        A log-weight of ``-inf`` is a weight of zero.

    Returns
    -------
    float
        ``‖ŵ/Σŵ − w/Σw‖₂ / ‖w/Σw‖₂``; 0 when the estimate is proportional to
        the truth. Scale-free: multiplying either weight vector by a constant
        (adding one to a log-weight vector) does not change it.

    Notes
    -----
    The ℓ2 error ``‖π̂ − π‖ / ‖π‖`` of seed 000, §3.4, where ``π`` and ``π̂``
    are the weight vectors normalized to sum to one (the stationary
    distribution of RankCentrality is normalized that way).

    Examples
    --------
    >>> l2_error([2.0, 4.0], [1.0, 2.0])
    0.0
    >>> round(l2_error([1.0, 1.0], [1.0, 3.0]), 6)
    0.447214
    >>> round(l2_error([0.0, 0.0], [0.0, 1.0986122886681098], log=True), 6)
    0.447214
    """
    log = check_parameter(log, "log", [BOOLEAN], owner="l2_error")
    x, z, labels = _paired(estimated_weights, true_weights, "estimated_weights", "true_weights")
    if len(x) == 0:
        raise InputError("the weight vectors are empty; give a weight per item.")
    normalized = []
    for name, values in (("estimated_weights", x), ("true_weights", z)):
        if log:
            if np.isposinf(values).any():
                raise InputError(f"{name} has an infinite log-weight; log-weights must be finite or -inf.")
            top = values.max()
            if not np.isfinite(top):
                raise InputError(f"{name} has every log-weight -inf (all weights zero); give a finite one.")
            values = np.exp(values - top)
        else:
            if not np.isfinite(values).all():
                raise InputError(f"{name} has an infinite weight; weights must be finite (pass log=True for log-weights).")
            if (values < 0).any():
                first = int(np.flatnonzero(values < 0)[0])
                where = f"item {labels[first]!r}" if labels is not None else f"position {first}"
                raise InputError(
                    f"{name} has a negative weight at {where}; BTL weights are positive "
                    "(pass log=True if these are log-weights)."
                )
            scale = values.max()
            if not scale > 0:
                raise InputError(f"{name} are all zero; at least one weight must be positive.")
            values = values / scale
        normalized.append(values / values.sum())
    estimate, truth = normalized
    return float(np.linalg.norm(estimate - truth) / np.linalg.norm(truth))
