"""Which comparisons to ask for next: pairs scored under a fitted model's Laplace posterior.

A new comparison of items a and b adds ``c (e_a − e_b)(e_a − e_b)ᵀ`` to the
posterior precision of the log-scores, ``c = p(1 − p)`` with ``p`` the
model's probability that b is preferred to a (its expected Fisher
information). With ``s = Var(v_a − v_b)`` under the current posterior:

``"information"``
    The expected information gain about v, ``½ log(1 + c s)`` (the change of
    the posterior's log-determinant, by the matrix determinant lemma).
``"uncertainty"``
    The posterior probability that the fitted order of a and b is wrong,
    ``Φ(−|v_a − v_b| / √s)``: the pairs whose ranks are likeliest to swap.
``"random"``
    Pairs drawn uniformly from the candidates (the baseline).

Pairs are picked greedily: after each pick the posterior is updated by the
rank-one change above (Sherman–Morrison: ``Σ ← Σ − w wᵀ`` with
``w = Σx √(c / (1 + c s))``), and every candidate's ``s`` by
``(w_a − w_b)²`` — no refit and no new factorization per pair, so a round
costs O(candidates) per pick plus one posterior solve ``Σx``.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy.special import expit, ndtr

from .._errors import InputError, ParameterError
from .._spelling import given, owner_prefix, spelled
from .._validation import Interval, Options, check_parameter, check_random_state
from . import uncertainty
from .uncertainty import LaplaceUncertainty

__all__ = ["suggest_pairs", "STRATEGIES", "ALL_PAIRS_LIMIT", "NEIGHBOURS"]

STRATEGIES = ("information", "uncertainty", "random")
#: Up to this many items the default candidates are all pairs; beyond, each item with its ranking neighbours.
ALL_PAIRS_LIMIT = 300
#: Places on each side in the fitted ranking that default candidates reach beyond ``ALL_PAIRS_LIMIT`` items.
NEIGHBOURS = 10


def suggest_pairs(model, n, strategy="information", candidates=None, random_state=None) -> pd.DataFrame:
    """The ``n`` pairs whose comparison is expected to teach the fitted model most.

    Parameters
    ----------
    model : BTL or PlackettLuce
        A fitted model with a Laplace posterior (``scores_std_``); BTL without
        ``ties`` or ``home_advantage``.
    n : int
        Pairs to suggest (at most the number of candidates).
    strategy : {"information", "uncertainty", "random"}, default="information"
        How pairs are scored (see the module docstring).
    candidates : array-like of shape (m, 2) or DataFrame with two columns, optional
        The pairs that may be asked, as item labels; a pair is unordered, so
        (a, b) and (b, a) are one candidate. By default every pair up
        to 300 items, and beyond, each item with the 10 items on each side of
        it in the fitted ranking.
    random_state : int, numpy.random.Generator or None
        The seed of ``"random"``; the other strategies use no randomness and
        refuse one.

    Returns
    -------
    pandas.DataFrame
        One row per suggested pair in the order picked: ``i``, ``j`` (labels),
        ``score`` (the strategy's score when picked, given the pairs picked
        before it; for ``"random"`` the information gain), ``probability``
        (the model's probability that j is preferred to i).

    Notes
    -----
    Up to 2,000 items the posterior covariance is formed densely once, so
    every candidate's ``Var(v_a − v_b)`` is exact; beyond, the variances are
    the probe estimates of ``scores_std_`` and the covariance between the two
    items of a candidate is neglected until one of them is picked (each
    pick's ``Σx`` is an exact conjugate-gradient solve).

    Examples
    --------
    >>> from paucity.ranking import BTL, Comparisons, suggest_pairs
    >>> c = Comparisons.from_winners(["a", "a", "b", "c", "c", "d"], ["b", "c", "c", "d", "a", "b"])
    >>> model = BTL(alpha=1.0).fit(c)
    >>> suggest_pairs(model, 2)[["i", "j"]].values.tolist()
    [['a', 'd'], ['b', 'd']]
    """
    if not isinstance(model, LaplaceUncertainty):
        raise InputError(f"suggest_pairs needs a fitted BTL or PlackettLuce, got {type(model).__name__}.")
    if getattr(model, "ties", None) is not None or getattr(model, "home_advantage", False):
        raise ParameterError(
            "suggest_pairs scores plain pairwise comparisons; fit BTL without ties or home_advantage for it."
        )
    strategy = check_parameter(strategy, "strategy", [Options(*STRATEGIES)], owner="suggest_pairs")
    n = check_parameter(n, "n", [Interval(numbers.Integral, 1, None)], owner="suggest_pairs")
    if random_state is not None and strategy != "random":
        raise ParameterError(
            f"{owner_prefix('suggest_pairs')}{given('strategy', strategy)} uses no randomness, so "
            f"{spelled('random_state')} would be ignored; leave it out, or use {given('strategy', 'random')}."
        )
    posterior = model._posterior()
    v = posterior.mean
    n_items = posterior.n_items
    a, b = _candidates(model, candidates, n_items)
    if n > len(a):
        raise InputError(f"{given('n', n)} but there are only {len(a)} candidate pairs; ask for at most {len(a)}.")
    rng = check_random_state(random_state)

    if n_items <= uncertainty.DENSE_LIMIT:
        covariance = _dense_covariance(posterior)

        def solve(x):
            return covariance @ x

        s = np.diag(covariance)[a] + np.diag(covariance)[b] - 2 * covariance[a, b]
    else:
        variances = model.scores_std_.to_numpy() ** 2

        def solve(x):
            return posterior.apply(x)

        s = variances[a] + variances[b]
    s = np.maximum(s, 0.0)
    p = expit(v[b] - v[a])
    c = p * (1.0 - p)
    updates: list[np.ndarray] = []
    available = np.ones(len(a), dtype=bool)
    order = rng.permutation(len(a)) if strategy == "random" else None
    picked, scores = [], []
    for step in range(n):
        information = 0.5 * np.log1p(c * s)
        if strategy == "random":
            k = int(order[step])
            score = information[k]
        else:
            values = information if strategy == "information" else ndtr(-np.abs(v[a] - v[b]) / np.sqrt(np.maximum(s, 1e-300)))
            values = np.where(available, values, -np.inf)
            k = int(np.argmax(values))
            score = values[k]
        available[k] = False
        picked.append(k)
        scores.append(float(score))
        # Σx for x = e_a − e_b under the current posterior: the first posterior, less the picks' rank-one terms
        x = np.zeros(n_items)
        x[a[k]], x[b[k]] = 1.0, -1.0
        column = solve(x)
        for w in updates:
            column -= w * (w @ x)
        s_x = column[a[k]] - column[b[k]]
        w = column * np.sqrt(c[k] / (1.0 + c[k] * s_x))
        updates.append(w)
        s = np.maximum(s - (w[a] - w[b]) ** 2, 0.0)
    chosen = np.asarray(picked, dtype=np.int64)
    items = model.items_
    return pd.DataFrame(
        {"i": items[a[chosen]], "j": items[b[chosen]], "score": scores, "probability": p[chosen]}
    )


def _dense_covariance(posterior) -> np.ndarray:
    """The centred posterior covariance, from one dense inverse (at most ``DENSE_LIMIT`` items)."""
    n = posterior.n_items
    dense = posterior.matrix().toarray()
    if posterior.downdate is not None:
        dense -= np.outer(posterior.downdate, posterior.downdate)
    if posterior.alpha == 0:
        return np.linalg.inv(dense + 1.0 / n) - 1.0 / n
    inverse = np.linalg.inv(dense)
    return inverse - inverse.mean(axis=0) - inverse.mean(axis=1)[:, None] + inverse.mean()


def _candidates(model, candidates, n_items: int):
    if candidates is None:
        if n_items <= ALL_PAIRS_LIMIT:
            a, b = np.triu_indices(n_items, k=1)
            return a.astype(np.int64), b.astype(np.int64)
        order = np.asarray(model.order_)
        rows = []
        for shift in range(1, NEIGHBOURS + 1):
            rows.append(np.column_stack([order[:-shift], order[shift:]]))
        pairs = np.concatenate(rows)
        return pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    if isinstance(candidates, pd.DataFrame):
        if candidates.shape[1] != 2:
            raise InputError(f"candidates must have two columns (the two items of each pair), got {candidates.shape[1]}.")
        candidates = candidates.to_numpy()
    pairs = np.asarray(candidates, dtype=object)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or len(pairs) == 0:
        raise InputError(f"candidates must have shape (m, 2) with m >= 1, the two items of each pair; got {pairs.shape}.")
    a = model._positions(pairs[:, 0], "candidates")
    b = model._positions(pairs[:, 1], "candidates")
    same = a == b
    if same.any():
        raise InputError(
            f"candidate pair {int(np.flatnonzero(same)[0]) + 1} (counted from 1: a table's data row) of "
            f"{spelled('candidates')} names one item twice; a pair needs two items."
        )
    # a pair is unordered: (a, b) and (b, a) are one candidate, kept where it first appears
    _, first = np.unique(np.minimum(a, b) * n_items + np.maximum(a, b), return_index=True)
    keep = np.sort(first)
    return a[keep].astype(np.int64), b[keep].astype(np.int64)
