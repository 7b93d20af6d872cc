r"""Balanced and unbalanced rank estimation (BRE, URE): ranking by counting.

Seed 003, chapter 5, §5.4 (the two estimators) and §5.6 (online and
distributed ranking). Both scores are sums over comparisons, so they are
computed from each item's weighted number of wins and losses, which add up
over batches (``partial_fit``) and over blocks of a Dask array
(:mod:`paucity.ranking.distributed`).

Reading of the seed in paucity's convention
-------------------------------------------
In the seed, :math:`\bar c_{i,j} = 1` when ``i`` precedes ``j`` (``i`` is
better; position 1 is the top) and the score :math:`\hat\Pi` grows *down*
the ranking:

- BRE (unnumbered display of §5.4):
  :math:`\hat\Pi(j) = \sum_{i \ne j} s_{i,j}(2\bar c_{i,j} - 1) / (2m(n))`,
- URE (§5.4): :math:`\hat\Pi(j) = \sum_{i \ne j} s_{i,j}\bar c_{i,j} / m(n)`.

An item ``t`` is preceded by the items it lost to, so with weighted counts

- BRE: :math:`\hat\Pi(t) = (\mathrm{losses}_t - \mathrm{wins}_t) / (2\hat m)`,
- URE: :math:`\hat\Pi(t) = \mathrm{losses}_t / \hat m`,

where the seed's :math:`m(n)` (each pair is measured with probability
:math:`m(n)/n`, so :math:`(n-1)m(n)/2` comparisons are expected) is estimated
as :math:`\hat m = 2M/(n-1)` from the total weight ``M`` of the comparisons
and the number ``n`` of items. paucity's ``scores_`` is :math:`-\hat\Pi`, so
that higher is better, as for every ranker.

On BTL's log scale (``log_scores_``)
------------------------------------
The counting scores are relative positions, not strengths, so they are put
on BTL's scale by what they estimate when the comparisons do follow BTL with
log-weights ``v`` and every pair is equally likely to be compared (the
seed's sampling model). A pair is then compared :math:`\hat m/n` times on
average, and the expected scores are

.. math::

    \mathrm{BRE}_t = \frac{1}{2n}\sum_{s \ne t} \tanh\frac{v_t - v_s}{2},
    \qquad
    \mathrm{URE}_t = -\frac{1}{n}\sum_{s \ne t} \sigma(v_s - v_t).

Both are Borda counts: increasing in :math:`v_t`, with slope 1/4 at equal
strengths (:math:`\tanh(x/2) \approx x/2`, :math:`\sigma(x) \approx 1/2 + x/4`), where
:math:`\mathrm{BRE}_t \approx (v_t - \bar v)/4` and
:math:`\mathrm{URE}_t \approx -(n-1)/(2n) + (v_t - \bar v)/4`. So
``log_scores_ = 4 (scores_ − mean(scores_))``: the centred log-weights to
first order in the strength differences. The map is linear, so it keeps
the order, the ties, the exact additivity of ``partial_fit`` and the
distributed sums, and it needs no fit of its own. Its limit: the counts
saturate (every comparison won), so with large strength differences the
extremes are compressed (``|log_scores_|`` is at most about 2); on such data
compare the order (``metrics.kendall_tau_b``), or use BTL or RankCentrality,
whose ``log_scores_`` estimate v itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import RANDOM_STATE, check_random_state, is_dask_array, validate_params
from .base import Ranker, as_comparisons, dask_comparisons_class

__all__ = ["BRE", "URE", "ItemCounts", "comparison_counts", "counting_scores", "counting_log_scores", "win_loss_sums"]


# -- kernel -----------------------------------------------------------------------------------------
def win_loss_sums(winners: np.ndarray, losers: np.ndarray, weights: np.ndarray | None, n: int):
    """Weighted number of wins and of losses of each of ``n`` items (float64).

    ``winners`` and ``losers`` hold positions in ``0..n-1``; no check is made.
    Unweighted counts are integers held exactly in float64, so sums of them
    (over batches or blocks) are exact whatever their order; so are sums of
    integer weights below 2**53.

    Examples
    --------
    >>> wins, losses = win_loss_sums(np.array([0, 0, 2]), np.array([1, 2, 1]), None, 3)
    >>> wins.tolist(), losses.tolist()
    ([2.0, 0.0, 1.0], [0.0, 2.0, 1.0])
    """
    if weights is None:
        wins = np.bincount(winners, minlength=n).astype(np.float64)
        losses = np.bincount(losers, minlength=n).astype(np.float64)
    else:
        wins = np.bincount(winners, weights=weights, minlength=n)
        losses = np.bincount(losers, weights=weights, minlength=n)
    return wins, losses


@dataclass(frozen=True)
class ItemCounts:
    """The sufficient statistics of BRE and URE for one set of comparisons.

    Attributes
    ----------
    wins, losses : ndarray of float64, shape (n_items,)
        Weighted number of comparisons each item won and lost.
    total_weight : float
        Total weight ``M`` of the comparisons (their number when unweighted).
    n_comparisons : int
        Number of comparisons (rows), whatever their weights.
    """

    wins: np.ndarray
    losses: np.ndarray
    total_weight: float
    n_comparisons: int


def comparison_counts(comparisons) -> ItemCounts:
    """Wins, losses and total weight of a :class:`~paucity.ranking.Comparisons`.

    Examples
    --------
    >>> from paucity.ranking import Comparisons
    >>> counts = comparison_counts(Comparisons.from_winners(["a", "a", "b"], ["b", "c", "c"]))
    >>> counts.wins.tolist(), counts.losses.tolist(), counts.total_weight
    ([2.0, 1.0, 0.0], [0.0, 1.0, 2.0], 3.0)
    """
    weights = comparisons.weights
    wins, losses = win_loss_sums(comparisons.winners, comparisons.losers, weights, comparisons.n_items)
    total = float(comparisons.n_comparisons) if weights is None else float(np.sum(weights))
    return ItemCounts(wins, losses, total, comparisons.n_comparisons)


def counting_scores(method: str, wins: np.ndarray, losses: np.ndarray, total_weight: float, n_items: int):
    r"""paucity's scores (:math:`-\hat\Pi`, higher is better) of BRE or URE.

    Parameters
    ----------
    method : {"bre", "ure"}
    wins, losses : ndarray of float64
        Weighted wins and losses per item.
    total_weight : float
        Total weight ``M`` of the comparisons, which gives :math:`\hat m = 2M/(n-1)`.
    n_items : int
        Number of items ``n`` (at least 2).

    Returns
    -------
    ndarray of float64
        BRE: :math:`(\mathrm{wins} - \mathrm{losses}) / (2\hat m)`;
        URE: :math:`-\mathrm{losses} / \hat m`.

    Notes
    -----
    Seed 003, §5.4, the BRE and URE score definitions, with the seed's
    :math:`\hat\Pi` (which grows down the ranking) negated.

    Examples
    --------
    >>> counting_scores("bre", np.array([2.0, 0.0]), np.array([0.0, 2.0]), 2.0, 2)
    array([ 0.25, -0.25])
    >>> counting_scores("ure", np.array([2.0, 0.0]), np.array([0.0, 2.0]), 2.0, 2)
    array([ 0. , -0.5])
    """
    if not total_weight > 0:
        raise InputError(
            f"the comparisons have total weight {total_weight}; give at least one comparison a positive weight."
        )
    m_hat = 2.0 * total_weight / (n_items - 1)
    if method == "bre":
        return (wins - losses) / (2.0 * m_hat)
    return (0.0 - losses) / m_hat  # 0.0 - x keeps +0.0 for items that never lost


def counting_log_scores(scores: np.ndarray) -> np.ndarray:
    """BRE's or URE's scores on BTL's centred log scale: ``4 (scores − mean(scores))``.

    The first-order inverse of the expected counting score under BTL with
    uniformly sampled pairs (see the module docstring).

    Examples
    --------
    >>> counting_log_scores(np.array([0.25, -0.25]))
    array([ 1., -1.])
    """
    scores = np.asarray(scores, dtype=np.float64)
    return 4.0 * (scores - scores.mean())


# -- estimators -------------------------------------------------------------------------------------
def _batch(X, y, sample_weight, model: str):
    """Item labels and ItemCounts of what fit or partial_fit was given."""
    dask_class = dask_comparisons_class()
    if dask_class is not None and isinstance(X, dask_class):
        if y is not None or sample_weight is not None:
            raise InputError(
                "y and sample_weight must not be given with a DaskComparisons object, which holds its own "
                "outcomes and weights."
            )
        return X.items, X.counts()
    if is_dask_array(X) or is_dask_array(y):
        raise InputTypeError(
            "fit was given a Dask array; wrap the positions, outcomes and weights in "
            "paucity.ranking.distributed.DaskComparisons(i, j, y, weights, items=...) to count them on Dask."
        )
    comparisons = as_comparisons(X, y, sample_weight, model=model)
    return comparisons.items, comparison_counts(comparisons)


class _CountingRanker(Ranker):
    """Shared machinery of BRE and URE (not used directly)."""

    _method = ""
    _parameter_constraints = {"random_state": [RANDOM_STATE]}

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y=None, sample_weight=None):
        """Score the items from all the comparisons at once.

        Parameters
        ----------
        X : Comparisons, DaskComparisons or array-like of shape (m, 2)
            The comparisons; or the two item labels of each comparison, with ``y``.
        y : array-like of {0, 1}, shape (m,), optional
            Only with an ``X`` of pairs: 1 when the second item was preferred.
        sample_weight : array-like of shape (m,), optional
            Only with an ``X`` of pairs: a non-negative weight per comparison.

        Returns
        -------
        self
        """
        for name in ("_wins", "_losses", "_total_weight", "_n_comparisons", "items_"):
            if hasattr(self, name):
                delattr(self, name)
        return self.partial_fit(X, y, sample_weight)

    def partial_fit(self, X, y=None, sample_weight=None):
        """Add a batch of comparisons to those already seen and score again.

        Items not seen before are appended to ``items_`` in the order of the
        batch's ``items``; the items already there keep their positions. The
        raw weighted sums of wins and losses are kept, so any sequence of
        batches gives exactly the scores of one :meth:`fit` on all of them
        (bit for bit when the weights are integers).

        Parameters
        ----------
        X, y, sample_weight
            As for :meth:`fit`.

        Returns
        -------
        self
        """
        params = validate_params(self)
        labels, counts = _batch(X, y, sample_weight, type(self).__name__)
        if not hasattr(self, "_wins"):
            items = pd.Index(labels)
            wins, losses = counts.wins.copy(), counts.losses.copy()
            total, n_comparisons = counts.total_weight, counts.n_comparisons
        else:
            items = self.items_
            positions = items.get_indexer(labels)
            new = positions < 0
            wins, losses = self._wins, self._losses
            if new.any():
                n_new = int(new.sum())
                positions[new] = np.arange(len(items), len(items) + n_new)
                items = items.append(pd.Index(labels[new]))
                wins = np.concatenate([wins, np.zeros(n_new)])
                losses = np.concatenate([losses, np.zeros(n_new)])
            else:
                wins, losses = wins.copy(), losses.copy()
            wins[positions] += counts.wins  # positions are distinct, so += is exact per item
            losses[positions] += counts.losses
            total = self._total_weight + counts.total_weight
            n_comparisons = self._n_comparisons + counts.n_comparisons
        scores = counting_scores(self._method, wins, losses, total, len(items))
        self._wins, self._losses = wins, losses
        self._total_weight, self._n_comparisons = total, n_comparisons
        self._set_scores(items, scores, counting_log_scores(scores), check_random_state(params["random_state"]))
        self.wins_ = pd.Series(wins.copy(), index=items, name="wins")
        self.losses_ = pd.Series(losses.copy(), index=items, name="losses")
        self.n_comparisons_ = int(n_comparisons)
        self.total_weight_ = float(total)
        self.m_ = 2.0 * total / (len(items) - 1)
        return self


class BRE(_CountingRanker):
    r"""Balanced rank estimation: score by wins minus losses.

    Parameters
    ----------
    random_state : int, numpy.random.Generator or None
        Breaks ties between equal scores at random; a fixed int gives the same
        ranking every time.

    Attributes
    ----------
    scores_ : pandas.Series
        :math:`-\hat\Pi` per item label (higher is better): BRE
        :math:`(\mathrm{wins} - \mathrm{losses})/(2\hat m)`, URE
        :math:`-\mathrm{losses}/\hat m`.
    log_scores_ : pandas.Series
        ``4 (scores_ − mean(scores_))``: BTL's centred log-weights to first
        order in the strength differences, under uniformly sampled pairs
        (see :mod:`paucity.ranking.counting`; extremes are compressed).
    ranking_ : pandas.Index
        Item labels, best first; ties broken at random with ``random_state``.
    items_ : pandas.Index
        Every item, in the order of positions (first-seen order across
        ``partial_fit`` batches).
    order_ : ndarray of int
        Positions of ``ranking_`` in ``items_``.
    wins_, losses_ : pandas.Series
        Weighted number of comparisons each item won and lost.
    n_comparisons_ : int
        Number of comparisons seen.
    total_weight_ : float
        Their total weight ``M``.
    m_ : float
        The estimate :math:`\hat m = 2M/(n-1)` of the seed's :math:`m(n)`.

    Notes
    -----
    Seed 003, §5.4, Balanced Rank Estimation:
    :math:`\hat\Pi(j) = \sum_{i \ne j} s_{i,j}(2\bar c_{i,j} - 1) / (2m(n))`,
    where :math:`\bar c_{i,j} = 1` when ``i`` precedes (beat) ``j``. In
    paucity's convention (``y = 1`` when ``j`` won) this is
    :math:`\hat\Pi(t) = (\mathrm{losses}_t - \mathrm{wins}_t)/(2\hat m)`
    with weighted counts and :math:`\hat m = 2M/(n-1)` (``M`` the total
    weight, ``n`` the number of items) estimating :math:`m(n)`; ``scores_`` is
    :math:`-\hat\Pi`. The seed shows (Theorems 5.4.1–5.4.2) that with each
    pair measured with probability :math:`c\log(n)/n` every item lands within
    a displacement :math:`\nu n` of its true position, uniformly along the
    ranking. ``partial_fit`` is the online extension of §5.6, and a
    :class:`~paucity.ranking.distributed.DaskComparisons` is scored from the
    partial scores of equations 5.32–5.33.

    Time is linear in the number of comparisons (two ``numpy.bincount``
    passes); memory is a few arrays of the comparisons' length.

    Examples
    --------
    >>> from paucity.ranking import BRE, Comparisons
    >>> c = Comparisons.from_winners(["a", "a", "c", "c", "a", "b"], ["b", "c", "b", "d", "d", "d"])
    >>> model = BRE(random_state=0).fit(c)
    >>> list(model.ranking_)
    ['a', 'c', 'b', 'd']
    >>> model.scores_.tolist()                 # (wins - losses) / (2 m), m = 2 * 6 / 3
    [0.375, -0.125, 0.125, -0.375]
    >>> model.partial_fit(Comparisons.from_winners(["e"], ["a"])).items_.tolist()
    ['a', 'b', 'c', 'd', 'e']
    >>> list(model.ranking_)                   # e and c tie; random_state breaks the tie
    ['a', 'e', 'c', 'b', 'd']
    """

    _method = "bre"


class URE(_CountingRanker):
    r"""Unbalanced rank estimation: score by the number of losses.

    Parameters
    ----------
    random_state : int, numpy.random.Generator or None
        Breaks ties between equal scores at random; a fixed int gives the same
        ranking every time.

    Attributes
    ----------
    scores_ : pandas.Series
        :math:`-\hat\Pi` per item label (higher is better): BRE
        :math:`(\mathrm{wins} - \mathrm{losses})/(2\hat m)`, URE
        :math:`-\mathrm{losses}/\hat m`.
    log_scores_ : pandas.Series
        ``4 (scores_ − mean(scores_))``: BTL's centred log-weights to first
        order in the strength differences, under uniformly sampled pairs
        (see :mod:`paucity.ranking.counting`; extremes are compressed).
    ranking_ : pandas.Index
        Item labels, best first; ties broken at random with ``random_state``.
    items_ : pandas.Index
        Every item, in the order of positions (first-seen order across
        ``partial_fit`` batches).
    order_ : ndarray of int
        Positions of ``ranking_`` in ``items_``.
    wins_, losses_ : pandas.Series
        Weighted number of comparisons each item won and lost.
    n_comparisons_ : int
        Number of comparisons seen.
    total_weight_ : float
        Their total weight ``M``.
    m_ : float
        The estimate :math:`\hat m = 2M/(n-1)` of the seed's :math:`m(n)`.

    Notes
    -----
    Seed 003, §5.4, Unbalanced Rank Estimation:
    :math:`\hat\Pi(j) = \sum_{i \ne j} s_{i,j}\bar c_{i,j} / m(n)`,
    the (scaled) number of measured items preceding ``j``. In paucity's
    convention this is :math:`\hat\Pi(t) = \mathrm{losses}_t/\hat m` with
    weighted losses and :math:`\hat m = 2M/(n-1)`; ``scores_`` is
    :math:`-\hat\Pi`. Items near the top have few items that can beat them,
    so their score varies little: the seed shows (Theorem 5.4.6, Figure
    5.1c) that URE places the top of the ranking more accurately than BRE on
    the same comparisons, and the bottom less accurately. Online
    (``partial_fit``) and distributed use are those of BRE (§5.6).

    Examples
    --------
    >>> from paucity.ranking import URE, Comparisons
    >>> c = Comparisons.from_winners(["a", "a", "c", "c", "a", "b"], ["b", "c", "b", "d", "d", "d"])
    >>> model = URE(random_state=0).fit(c)
    >>> list(model.ranking_)
    ['a', 'c', 'b', 'd']
    >>> model.losses_.tolist()
    [0.0, 2.0, 1.0, 3.0]
    >>> model.scores_.tolist()                 # -losses / m, m = 2 * 6 / 3
    [0.0, -0.5, -0.25, -0.75]
    """

    _method = "ure"
