"""Synthetic pairwise comparisons: the generators of the ranking experiments.

- :func:`btl_scores` and :func:`btl_comparisons`: Bradley–Terry–Luce scores
  and comparisons of uniformly drawn pairs (seed 000, §3.4).
- :func:`sample_pairs`: uniform pairs of distinct items, with or without
  replacement, vectorized and without enumerating the ``n (n - 1) / 2`` pairs.
- :func:`flip_comparisons`: every pair measured independently, each outcome
  flipped with probability ``1 - p`` (seed 003, §5.2).
- :func:`feature_experiment`: the three feature experiments of seed 000, §3.5.2.

Items are the integer positions ``0 .. n_items - 1`` unless labels are given.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._validation import BOOLEAN, Interval, check_parameter, check_random_state
from ..ranking.comparisons import Comparisons

__all__ = [
    "FeatureExperiment",
    "btl_comparisons",
    "btl_scores",
    "feature_experiment",
    "flip_comparisons",
    "sample_pairs",
]

# Sampling without replacement draws pair codes with replacement and drops
# repeats; when more than this fraction of all pairs is wanted it permutes all
# pair codes instead (repeats would then be frequent).
_DENSE_FRACTION = 0.25
# The largest item count for which pairs are drawn without replacement: pair
# codes n (n - 1) / 2 and their decoding stay well inside int64.
_MAX_ITEMS_WITHOUT_REPLACEMENT = 2**31


def _check(value, name: str, constraint, owner: str):
    return check_parameter(value, name, [constraint], owner=owner)


def _real(low=None, high=None) -> Interval:
    """A finite number, within [low, high] when given."""
    return Interval(numbers.Real, low, high)


def _count(minimum: int) -> Interval:
    return Interval(numbers.Integral, minimum, None)


# -- scores ---------------------------------------------------------------------------------------
def btl_scores(n_items: int, *, low: float = 0.0, high: float = 5.0, random_state=None) -> np.ndarray:
    """Draw Bradley–Terry–Luce log-weights uniformly at random.

    Parameters
    ----------
    n_items : int
        Number of items.
    low, high : float, default 0 and 5
        The log-weights ``v_i`` are uniform on ``[low, high)``.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    numpy.ndarray of float64, shape (n_items,)
        Log-weights ``v``; the BTL weights are ``w = exp(v)``.

    Notes
    -----
    The scores of the synthetic experiments of seed 000, §3.4: ``v_i`` uniform
    on ``[0, 5]`` and ``w_i = exp(v_i)``, so the weights span a factor
    ``b = max w / min w`` of up to ``e^5 ≈ 148``.

    Examples
    --------
    >>> v = btl_scores(4, random_state=0)
    >>> v.shape, bool(((0 <= v) & (v < 5)).all())
    ((4,), True)
    """
    n = _check(n_items, "n_items", _count(1), "btl_scores")
    low = float(_check(low, "low", _real(), "btl_scores"))
    high = float(_check(high, "high", _real(), "btl_scores"))
    if high < low:
        raise ParameterError(f"high ({high}) must be at least low ({low}).")
    return check_random_state(random_state).uniform(low, high, size=n)


# -- pairs ----------------------------------------------------------------------------------------
def _decode_pairs(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pair ``(low, high)``, ``low < high``, numbered ``high (high - 1) / 2 + low``."""
    high = np.floor((1.0 + np.sqrt(1.0 + 8.0 * codes.astype(np.float64))) / 2.0).astype(np.int64)
    # the square root is inexact for large codes: step high to the exact value
    high -= high * (high - 1) // 2 > codes
    high += (high + 1) * high // 2 <= codes
    return codes - high * (high - 1) // 2, high


def _distinct_codes(total: int, n_codes: int, rng: np.random.Generator) -> np.ndarray:
    """``n_codes`` distinct integers uniform in ``[0, total)``, in random order."""
    if n_codes == 0:
        return np.zeros(0, dtype=np.int64)
    if n_codes > _DENSE_FRACTION * total:
        return rng.permutation(total)[:n_codes].astype(np.int64, copy=False)
    # Draw with replacement and drop repeats: whatever their number, the
    # distinct codes are a uniformly random set (every code plays the same
    # part), and a random n_codes of them in random order are a uniform sample
    # without replacement. Draw enough for n_codes distinct ones on average,
    # plus a margin, and top up in the rare case that falls short.
    expected = -total * math.log1p(-n_codes / total)
    distinct = _sorted_distinct(rng.integers(0, total, size=int(expected + 4.0 * math.sqrt(expected) + 16)))
    while len(distinct) < n_codes:
        more = rng.integers(0, total, size=2 * (n_codes - len(distinct)) + 16)
        distinct = _sorted_distinct(np.concatenate([distinct, more]))
    return distinct[rng.permutation(len(distinct))[:n_codes]]


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    values = np.sort(values.astype(np.int64, copy=False))
    keep = np.empty(len(values), dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def sample_pairs(n_items: int, n_pairs: int, *, replace: bool = True, random_state=None):
    """Draw pairs of distinct items uniformly at random.

    Parameters
    ----------
    n_items : int
        Number of items (at least 2); items are ``0 .. n_items - 1``.
    n_pairs : int
        Number of pairs to draw.
    replace : bool, default True
        Draw with replacement (a pair may repeat), or without (each unordered
        pair at most once; ``n_pairs`` may then be at most ``n (n - 1) / 2``).
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    i, j : numpy.ndarray of int64, shape (n_pairs,)
        The two items of each pair, ``i != j``. Each unordered pair is equally
        likely, and its orientation is uniformly random.

    Notes
    -----
    The pair distribution of seed 000, §3.4 ("choose m pairs of items,
    uniformly at random from all possible pairs"); without replacement it is
    the measurement set of seed 003, §5.2.

    With replacement, ``i`` is uniform and ``j`` uniform among the other
    items. Without replacement, the unordered pairs are numbered
    ``0 .. n (n - 1) / 2 - 1``; slightly more than ``n_pairs`` numbers are
    drawn with replacement, repeats are dropped (the distinct numbers are a
    uniformly random set) and a random ``n_pairs`` of them are kept, in
    random order (when more than a quarter of all pairs is asked for, a
    permutation of all numbers is used instead). Memory is a few integer
    arrays of length ``n_pairs``; the ``n (n - 1) / 2`` pairs are never
    listed unless a quarter of them is asked for. Twenty million pairs of a
    million items take a few seconds.

    Examples
    --------
    >>> i, j = sample_pairs(5, 10, replace=False, random_state=0)
    >>> len({(min(a, b), max(a, b)) for a, b in zip(i, j)})
    10
    >>> bool((i != j).all())
    True
    """
    n = int(_check(n_items, "n_items", _count(2), "sample_pairs"))
    m = int(_check(n_pairs, "n_pairs", _count(0), "sample_pairs"))
    replace = _check(replace, "replace", BOOLEAN, "sample_pairs")
    rng = check_random_state(random_state)
    if replace:
        i = rng.integers(0, n, size=m, dtype=np.int64)
        j = rng.integers(0, n - 1, size=m, dtype=np.int64)
        j += j >= i
        return i, j
    if n > _MAX_ITEMS_WITHOUT_REPLACEMENT:
        raise ParameterError(
            f"n_items={n} is too many to draw pairs without replacement (at most {_MAX_ITEMS_WITHOUT_REPLACEMENT}); "
            "with this many items pairs rarely repeat, so use replace=True."
        )
    total = n * (n - 1) // 2
    if m > total:
        raise ParameterError(
            f"n_pairs={m} is more than the {total} distinct pairs of {n} items; "
            "lower n_pairs or draw with replace=True."
        )
    low, high = _decode_pairs(_distinct_codes(total, m, rng))
    swap = rng.random(m) < 0.5
    return np.where(swap, high, low), np.where(swap, low, high)


# -- BTL comparisons ------------------------------------------------------------------------------
def _check_pairs(pairs, n: int):
    if not isinstance(pairs, (tuple, list)) or len(pairs) != 2:
        raise InputTypeError("pairs must be a tuple (i, j) of two integer arrays of item positions.")
    out = []
    for name, values in zip(("i", "j"), pairs):
        array = np.asarray(values)
        if array.ndim != 1:
            raise InputError(f"pairs: {name} must be 1-dimensional, got shape {array.shape}.")
        if array.dtype.kind not in "iu" and len(array):
            raise InputTypeError(f"pairs: {name} must hold integer item positions, got dtype {array.dtype}.")
        array = array.astype(np.int64, copy=False)
        outside = (array < 0) | (array >= n)
        if outside.any():
            first = int(np.flatnonzero(outside)[0])
            raise InputError(
                f"pairs: {name}[{first}] = {array[first]} is not an item position; positions run from 0 to {n - 1}."
            )
        out.append(array)
    i, j = out
    if len(i) != len(j):
        raise ShapeMismatchError(f"pairs: i has {len(i)} entries but j has {len(j)}; give both items of each pair.")
    same = i == j
    if same.any():
        first = int(np.flatnonzero(same)[0])
        raise InputError(f"pairs: pair {first} compares item {i[first]} with itself; a pair needs two different items.")
    return i, j


def _items(items, labels, n: int):
    if items is None:
        return labels
    index = pd.Index(items.to_numpy() if isinstance(items, (pd.Series, pd.Index)) else np.asarray(items))
    if index.ndim != 1 or len(index) != n:
        raise ShapeMismatchError(f"items has {len(index)} labels but there are {n} scores; give one label per item.")
    return index


def btl_comparisons(
    scores,
    n_comparisons: int | None = None,
    *,
    pairs=None,
    replace: bool = True,
    items=None,
    random_state=None,
):
    """Draw comparisons whose outcomes follow the Bradley–Terry–Luce model.

    Parameters
    ----------
    scores : array-like or pandas.Series of shape (n_items,)
        Log-weights ``v`` (``w = exp(v)``), for instance from :func:`btl_scores`.
        A Series gives the item labels (its index) unless ``items`` is given.
    n_comparisons : int, optional
        Number of comparisons, of pairs drawn by :func:`sample_pairs`. Give
        this or ``pairs``.
    pairs : tuple (i, j) of integer arrays, optional
        The pairs to compare, as item positions ``0 .. n_items - 1``.
    replace : bool, default True
        Whether drawn pairs may repeat (ignored with ``pairs``).
    items : sequence of hashable, optional
        Item labels, one per score. By default the positions ``0 .. n_items - 1``
        (or the index of a Series).
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    paucity.ranking.Comparisons
        Over all ``n_items`` items, compared or not; ``y = 1`` when ``j`` won.

    Notes
    -----
    The BTL model of seed 000, eq. 3.1: ``P(i ≺ j) = w_j / (w_i + w_j) =
    1 / (1 + exp(v_i − v_j))``, the probability that ``j`` is preferred,
    evaluated as a logistic function of ``v_j − v_i`` so that large score gaps
    do not overflow. Outcomes are independent given the pairs.

    With integer items (the default) the comparisons are built from
    positions, which is the fast path: twenty million comparisons of a
    million items take a few seconds, mostly the checks of
    :class:`~paucity.ranking.Comparisons`. Labels cost a hash lookup per
    comparison on top.

    Examples
    --------
    >>> c = btl_comparisons(btl_scores(20, random_state=0), 100, random_state=1)
    >>> c.n_items, c.n_comparisons
    (20, 100)
    >>> c = btl_comparisons([0.0, 50.0], pairs=([0, 0, 1], [1, 1, 0]), random_state=0)
    >>> c.y.tolist()  # item 1 wins every time
    [1, 1, 0]
    """
    labels = scores.index if isinstance(scores, pd.Series) else None
    if isinstance(scores, (pd.Series, pd.Index)):
        scores = scores.to_numpy()
    try:
        v = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError("scores must be numbers: a log-weight per item.") from None
    if v.ndim != 1:
        raise InputError(f"scores must be 1-dimensional (a log-weight per item), got shape {v.shape}.")
    if len(v) < 2:
        raise InputError(f"there must be at least 2 items to compare, got {len(v)} scores.")
    if not np.isfinite(v).all():
        first = int(np.flatnonzero(~np.isfinite(v))[0])
        raise InputError(f"scores has a missing or infinite log-weight at position {first}; log-weights must be finite.")
    n = len(v)
    rng = check_random_state(random_state)
    if pairs is None:
        if n_comparisons is None:
            raise ParameterError("give n_comparisons (how many pairs to draw) or pairs=(i, j).")
        n_comparisons = _check(n_comparisons, "n_comparisons", _count(0), "btl_comparisons")
        i, j = sample_pairs(n, n_comparisons, replace=replace, random_state=rng)
    else:
        if n_comparisons is not None:
            raise ParameterError("give n_comparisons or pairs, not both.")
        i, j = _check_pairs(pairs, n)
    if len(i) == 0:
        raise ParameterError("there would be no comparisons; ask for at least one.")
    y = (rng.random(len(i)) < expit(v[j] - v[i])).astype(np.int8)
    index = _items(items, labels, n)
    if index is None:
        return Comparisons(i, j, y, items=np.arange(n))
    return Comparisons(index[i], index[j], y, items=index)


# -- the flip model -------------------------------------------------------------------------------
def flip_comparisons(n_items: int, *, rate: float, p: float = 1.0, ranking=None, random_state=None):
    """Measure every pair independently and flip each outcome with probability ``1 - p``.

    Parameters
    ----------
    n_items : int
        Number of items (at least 2).
    rate : float in [0, 1]
        The probability that a pair is measured, ``m(n) / n`` in seed 003
        (for instance ``c log(n) / n``).
    p : float in [0, 1], default 1
        The probability that a measured outcome is correct (1: noiseless).
    ranking : sequence of int, optional
        The true order, best first: a permutation of ``0 .. n_items - 1``.
        By default item 0 is best, item 1 second, and so on.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    paucity.ranking.Comparisons
        Over the items ``0 .. n_items - 1`` (all of them, measured or not),
        each measured pair once, in random order and orientation. With the
        default order the true scores are ``-np.arange(n_items)``; with a
        ``ranking`` they are ``scores[ranking[k]] = -k``.

    Notes
    -----
    The measurement model of seed 003, §5.2: each of the ``n (n - 1) / 2``
    pairs is measured independently with probability ``m(n) / n`` (without
    replacement), and each measured binary comparison is flipped
    independently with probability ``1 - p``. The number of measured pairs is
    drawn from its Binomial distribution and that many distinct pairs are
    drawn uniformly (:func:`sample_pairs`), which has the same distribution
    and never visits the unmeasured pairs: 8000 items at ``rate = 5 log(n) / n``
    (about 180 000 pairs) take a fraction of a second.

    Examples
    --------
    >>> c = flip_comparisons(50, rate=0.2, p=1.0, random_state=0)
    >>> truth = -np.arange(50)
    >>> bool(((truth[c.j] > truth[c.i]) == (c.y == 1)).all())  # noiseless: always right
    True
    """
    n = int(_check(n_items, "n_items", _count(2), "flip_comparisons"))
    rate = float(_check(rate, "rate", _real(0, 1), "flip_comparisons"))
    p = float(_check(p, "p", _real(0, 1), "flip_comparisons"))
    rng = check_random_state(random_state)
    if ranking is None:
        place = np.arange(n, dtype=np.int64)
    else:
        order = np.asarray(ranking)
        if order.ndim != 1 or len(order) != n or order.dtype.kind not in "iu":
            raise InputError(f"ranking must be a permutation of 0 .. {n - 1} (the items best first).")
        if not np.array_equal(np.sort(order), np.arange(n)):
            raise InputError(f"ranking must list each item 0 .. {n - 1} exactly once (the items best first).")
        place = np.empty(n, dtype=np.int64)
        place[order] = np.arange(n, dtype=np.int64)
    total = n * (n - 1) // 2
    n_measured = int(rng.binomial(total, rate))
    if n_measured == 0:
        raise ParameterError(
            f"no pair was measured (rate={rate} over {total} pairs); raise rate to get at least one comparison."
        )
    i, j = sample_pairs(n, n_measured, replace=False, random_state=rng)
    correct = place[j] < place[i]  # j is truly better
    flipped = rng.random(n_measured) >= p
    y = (correct ^ flipped).astype(np.int8)
    return Comparisons(i, j, y, items=np.arange(n))


# -- feature experiments --------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FeatureExperiment:
    """Items with features and BTL weights that depend on them.

    Attributes
    ----------
    number : int
        Which experiment of seed 000, §3.5.2 (1, 2 or 3).
    features : numpy.ndarray of shape (n_items, d)
        The points ``x_i``.
    omega : numpy.ndarray of shape (n_directions, d)
        The random directions ``ω_h`` the weights are built from.
    weights : numpy.ndarray of shape (n_items,)
        The BTL weights ``w_i > 0``.
    """

    number: int
    features: np.ndarray
    omega: np.ndarray
    weights: np.ndarray

    @property
    def log_weights(self) -> np.ndarray:
        """The BTL scores ``v = ln w``."""
        return np.log(self.weights)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return self.features.shape[0]

    def comparisons(self, n_comparisons: int, *, replace: bool = True, random_state=None):
        """BTL comparisons of uniformly drawn pairs, with the features attached.

        Examples
        --------
        >>> c = feature_experiment(3, random_state=0).comparisons(50, random_state=1)
        >>> c.n_comparisons, c.features.shape
        (50, (1000, 10))
        """
        drawn = btl_comparisons(self.log_weights, n_comparisons, replace=replace, random_state=random_state)
        return drawn.with_features(self.features)

    def __repr__(self) -> str:
        return f"FeatureExperiment(number={self.number}, n_items={self.n_items}, n_features={self.features.shape[1]})"


# (points, dimension, directions) of each experiment
_EXPERIMENTS = {1: (1000, 1, 1), 2: (1600, 2, 4), 3: (1000, 10, 5)}


def feature_experiment(number: int, *, n_items: int | None = None, random_state=None) -> FeatureExperiment:
    """The synthetic items with features of seed 000, §3.5.2.

    Parameters
    ----------
    number : {1, 2, 3}
        The experiment:

        1. 1000 points ``x`` uniform on ``[0, 4]``, ``ω ~ N(0, 1)``,
           ``w = exp(cos(5 ω x))``.
        2. 1600 points uniform on ``[0, 4]²``, ``ω_1 .. ω_4 ~ N(0, I_2)``,
           ``w = Σ_{h=1,2} exp(cos(5 ω_hᵀ x)) + Σ_{h=3,4} exp(ω_hᵀ x / 10)``.
        3. 1000 points uniform on ``[0, 4]^10``, ``ω_1 .. ω_5 ~ N(0, I_10)``,
           ``w = Σ_{h=1..5} exp(ω_hᵀ x / 10)``.
    n_items : int, optional
        Number of points, instead of the seed's 1000, 1600 or 1000.
    random_state : int, numpy.random.Generator or None
        The points are drawn first, then the directions.

    Returns
    -------
    FeatureExperiment
        ``features``, ``omega``, ``weights`` and ``log_weights``; its
        ``comparisons(m)`` draws BTL comparisons of uniform pairs with the
        features attached, as the seed's experiments do.

    Notes
    -----
    Seed 000, §3.5.2 (Experiments 1–3), used there to compare
    similarity-regularized RankCentrality with the RankSVM baselines of
    §3.5.3. Experiment 1 suits random Fourier features, experiment 3 a linear
    scoring function.

    Examples
    --------
    >>> e = feature_experiment(1, random_state=0)
    >>> e.features.shape, e.weights.shape
    ((1000, 1), (1000,))
    >>> bool(np.allclose(e.weights, np.exp(np.cos(5 * e.omega[0, 0] * e.features[:, 0]))))
    True
    """
    number = int(_check(number, "number", Interval(numbers.Integral, 1, 3), "feature_experiment"))
    size, dimension, directions = _EXPERIMENTS[number]
    if n_items is not None:
        size = int(_check(n_items, "n_items", _count(2), "feature_experiment"))
    rng = check_random_state(random_state)
    x = rng.uniform(0.0, 4.0, size=(size, dimension))
    omega = rng.standard_normal((directions, dimension))
    projections = x @ omega.T  # (size, directions): ω_hᵀ x_i
    if number == 1:
        weights = np.exp(np.cos(5.0 * projections[:, 0]))
    elif number == 2:
        weights = np.exp(np.cos(5.0 * projections[:, :2])).sum(axis=1) + np.exp(projections[:, 2:] / 10.0).sum(axis=1)
    else:
        weights = np.exp(projections / 10.0).sum(axis=1)
    return FeatureExperiment(number=number, features=x, omega=omega, weights=weights)
