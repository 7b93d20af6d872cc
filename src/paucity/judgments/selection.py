"""Greedy choice of a repeat vector within a budget: Algorithm 1 of seed 002 and the §4 baselines.

Every algorithm here starts from r = 0 and repeatedly buys what gains most
per unit of cost among what still fits in the budget: one more judgment of
an attribute (Scoring, Full), an attribute's k averaged judgments
(Averages), or one judgment copy (Copies). With unit costs, Scoring and Full
are exactly Algorithm 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numbers

import numpy as np
from threadpoolctl import threadpool_limits

from .._validation import Interval, check_parameter
from .objective import full_objective, repeat_matrix, scoring_terms

__all__ = ["GAIN_TOLERANCE", "GreedyPath", "forward_selection", "greedy_full", "greedy_scoring"]

_RELATIVE_TOLERANCE = 1e-10

#: Full and Scoring stop buying once no affordable judgment raises the objective by more than this
#: fraction of its current value: beyond that, a larger budget no longer changes the plan in any way
#: the estimates can tell apart (a gain of 1e-4 of the objective is far below their sampling error),
#: and every run ends after a bounded number of steps, however large the budget.
GAIN_TOLERANCE = 1e-4


@dataclass(frozen=True)
class GreedyPath:
    """The steps of a greedy run.

    Attributes
    ----------
    repeats : ndarray of int, shape (d,)
        Judgments per attribute after the last step.
    chosen : ndarray of int
        The attribute bought at each step.
    objective : ndarray
        The objective after each step (for the baselines: the training
        sum of squares explained).
    spent : float
        The cost of what was bought.
    exhausted : bool
        True when the run stopped with budget left that it could not use
        (nothing left to buy), as opposed to nothing affordable.
    saturated : bool
        True when the run stopped with budget left because no affordable
        purchase raised the objective by more than ``tol`` of its value
        (Full and Scoring; see :data:`GAIN_TOLERANCE`).
    """

    repeats: np.ndarray
    chosen: np.ndarray
    objective: np.ndarray
    spent: float
    exhausted: bool
    saturated: bool = False


def _path(repeats, chosen: list, values: list, costs: np.ndarray, *, exhausted: bool, saturated: bool) -> GreedyPath:
    """The run's result; ``spent`` sums the costs bought (budget − remaining would lose them next to a huge budget)."""
    chosen = np.asarray(chosen, dtype=np.int64)
    return GreedyPath(repeats, chosen, np.asarray(values), float(np.sum(costs[chosen])), exhausted, saturated)


def _affordable(costs: np.ndarray, remaining: float, available: np.ndarray) -> np.ndarray:
    return available & (costs <= remaining + 1e-12 * max(1.0, remaining))


def _pick(gains: np.ndarray, costs: np.ndarray, fits: np.ndarray) -> int:
    """The affordable candidate (``fits``) of largest gain per unit cost (lowest index on ties); -1 if none."""
    if not fits.any():
        return -1
    ratios = np.where(fits, gains / costs, -np.inf)
    return int(np.argmax(ratios))


def _check_tolerance(tol) -> float:
    return float(check_parameter(tol, "tol", [Interval(numbers.Real, 0, None)], owner="greedy"))


def greedy_scoring(correlation, external_variance, internal_variance, costs, budget: float, *,
                   tol: float = GAIN_TOLERANCE, bar=None) -> GreedyPath:
    """Algorithm 1 with the Scoring objective (zero-correlation assumption, §3.1).

    Parameters
    ----------
    correlation, external_variance, internal_variance : ndarray of shape (d,)
        b̂, σ̂² and v̂ (:class:`~paucity.judgments.estimates.Moments`).
    costs : ndarray of shape (d,)
        The cost of one judgment of each attribute, > 0.
    budget : float
        Total cost allowed per object.
    tol : float, default :data:`GAIN_TOLERANCE`
        Stop, with budget left (``saturated``), once no affordable judgment
        raises the objective by more than ``tol`` times its current value.
        0 spends the whole budget (and never ends on an infinite one).

    Returns
    -------
    GreedyPath

    Notes
    -----
    Each term b̂²/(σ̂² + v̂/r) is non-decreasing and concave in r, so with unit
    costs the greedy r maximizes obĵₛ over all r with Σ r ≤ B (Theorem 3.2,
    Lemma 3.3). Each step costs O(d). The stop at ``tol`` keeps the number
    of steps bounded: each term's gain falls like 1/r², so a useful
    attribute is bought about (v̂/σ̂² / tol)^½ times at most.

    Examples
    --------
    >>> path = greedy_scoring(np.array([1.0, 0.5]), np.array([0.1, 0.1]), np.array([1.0, 0.01]), np.ones(2), 3)
    >>> path.repeats.tolist()
    [2, 1]
    """
    d = len(correlation)
    repeats = np.zeros(d, dtype=np.int64)
    current = np.zeros(d)
    chosen, values = [], []
    remaining = float(budget)
    available = np.ones(d, dtype=bool)
    tol = _check_tolerance(tol)
    saturated = False
    while True:
        following = scoring_terms(repeats + 1.0, correlation, external_variance, internal_variance)
        gains = following - current
        fits = _affordable(costs, remaining, available)
        a = _pick(gains, costs, fits)
        if a < 0:
            break
        if gains[fits].max() <= tol * (values[-1] if values else 0.0):
            saturated = True
            break
        repeats[a] += 1
        current[a] = following[a]
        remaining -= costs[a]
        chosen.append(a)
        values.append(float(current.sum()))
        if bar is not None:
            bar.advance()
    return _path(repeats, chosen, values, costs, exhausted=False, saturated=saturated)


def greedy_full(correlation, external_covariance, internal_variance, costs, budget: float, *,
                tol: float = GAIN_TOLERANCE, bar=None) -> GreedyPath:
    """Algorithm 1 with the Full objective (§3.2): b̂ᵀ M_r⁺ b̂ on the attributes bought.

    Parameters
    ----------
    correlation : ndarray of shape (d,)
    external_covariance : ndarray of shape (d, d)
        Σ̂, positive semidefinite (MakePSD'd, plus any ridge).
    internal_variance : ndarray of shape (d,)
    costs : ndarray of shape (d,)
    budget : float
    tol : float, default :data:`GAIN_TOLERANCE`
        Stop, with budget left (``saturated``), once no affordable judgment
        raises the objective by more than ``tol`` times its current value.
        0 spends the whole budget (and never ends on an infinite one).

    Returns
    -------
    GreedyPath

    Notes
    -----
    Each step evaluates all d candidates from one pseudo-inverse P of the
    current block M (s × s, s ≤ min(d, steps so far)) instead of d
    pseudo-inverses: one more judgment of a bought attribute a changes M by
    δ eₐeₐᵀ with δ = v̂[a](1/(r[a]+1) − 1/r[a]), so by Sherman–Morrison the
    objective becomes obj − δ (Pb)ₐ² / (1 + δ Pₐₐ); a new attribute borders M
    with c = Σ̂[S, a] and μ = Σ̂[a, a] + v̂[a], and the objective grows by
    (b̂[a] − cᵀPb)² / (μ − cᵀPc) (the Schur complement). Where M is singular
    or a Schur complement vanishes (attributes without internal variance that
    repeat others), those candidates are evaluated with their own
    pseudo-inverse, as the seed defines the objective. A step costs
    O(s³ + s²d).

    Examples
    --------
    Two attributes that measure the same thing, the first with less
    internal noise: with a diagonal Σ̂ both would be bought, with the
    correlation the cleaner one takes most of the budget.

    >>> sigma = np.array([[1.0, 0.9], [0.9, 1.0]])
    >>> greedy_full(np.array([1.0, 0.9]), sigma, np.array([0.5, 2.0]), np.ones(2), 4).repeats.tolist()
    [4, 0]
    """
    d = len(correlation)
    repeats = np.zeros(d, dtype=np.int64)
    chosen, values = [], []
    remaining = float(budget)
    available = np.ones(d, dtype=bool)
    objective = 0.0
    diagonal = np.diag(external_covariance)
    tol = _check_tolerance(tol)
    saturated = False
    with threadpool_limits(1, user_api="blas"):  # small matrices: a second BLAS thread only adds waiting
        while True:
            gains = _full_gains(repeats, objective, correlation, external_covariance, diagonal, internal_variance)
            fits = _affordable(costs, remaining, available)
            a = _pick(gains, costs, fits)
            if a < 0:
                break
            if gains[fits].max() <= tol * objective:
                saturated = True
                break
            repeats[a] += 1
            remaining -= costs[a]
            objective = full_objective(repeats, correlation, external_covariance, internal_variance)
            chosen.append(a)
            values.append(objective)
            if bar is not None:
                bar.advance()
    return _path(repeats, chosen, values, costs, exhausted=False, saturated=saturated)


def _full_gains(repeats, objective, correlation, covariance, diagonal, internal_variance) -> np.ndarray:
    """obj(r + eₐ) − obj(r) for every attribute a."""
    d = len(correlation)
    used = np.flatnonzero(repeats > 0)
    gains = np.empty(d)
    if not len(used):
        with np.errstate(divide="ignore", invalid="ignore"):
            denominator = diagonal + internal_variance
            gains[:] = np.where(denominator > 0, correlation**2 / denominator, 0.0)
        return gains
    values, vectors = np.linalg.eigh(repeat_matrix(repeats, covariance, internal_variance))
    scale = max(float(np.abs(values).max()), np.finfo(float).tiny)
    regular = values.min() > _RELATIVE_TOLERANCE * scale
    b = correlation[used]
    slow = np.zeros(d, dtype=bool)
    if regular:
        P = (vectors / values) @ vectors.T
        Pb = P @ b
        # one more judgment of a bought attribute: a rank-one change of the diagonal
        r = repeats[used].astype(np.float64)
        delta = internal_variance[used] * (1.0 / (r + 1.0) - 1.0 / r)
        denominators = 1.0 + delta * np.diag(P)
        gains[used] = -delta * Pb**2 / denominators
        slow[used] = ~(denominators > _RELATIVE_TOLERANCE)
        # a new attribute: the bordered block's Schur complement
        new = np.setdiff1d(np.arange(d), used, assume_unique=True)
        if len(new):
            C = covariance[np.ix_(used, new)]  # s × (d − s)
            PC = P @ C
            schur = diagonal[new] + internal_variance[new] - np.einsum("ij,ij->j", C, PC)
            residual = correlation[new] - C.T @ Pb
            tolerance = _RELATIVE_TOLERANCE * np.maximum(diagonal[new] + internal_variance[new], scale)
            good = schur > tolerance
            gains[new] = np.where(good, residual**2 / np.where(good, schur, 1.0), 0.0)
            slow[new] = ~good
    else:
        slow[:] = True
    for a in np.flatnonzero(slow):
        following = repeats.copy()
        following[a] += 1
        gains[a] = full_objective(following, correlation, covariance, internal_variance) - objective
    return gains


def forward_selection(columns: np.ndarray, labels: np.ndarray, costs: np.ndarray, budget: float, *,
                      bar=None) -> GreedyPath:
    """Greedy forward selection of columns by least-squares training error, with an intercept.

    The baselines of seed 002, §4 (Averages: one column per attribute, the
    mean of its k judgments; Copies: one column per judgment copy). Each step
    adds the affordable column that most reduces the residual sum of squares
    per unit cost; the columns are kept orthogonalized against those chosen
    (Gram–Schmidt), so a step costs O(m p) for m objects and p columns.

    Parameters
    ----------
    columns : ndarray of shape (m, p)
    labels : ndarray of shape (m,)
    costs : ndarray of shape (p,)
    budget : float

    Returns
    -------
    GreedyPath
        ``repeats`` is 1 for each chosen column, 0 otherwise; ``objective``
        the explained sum of squares after each step; ``exhausted`` is True
        when every column was chosen and budget is left.

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> forward_selection(X, 2 * X[:, 0] + 1, np.ones(2), 1).chosen.tolist()
    [0]
    """
    p = columns.shape[1]
    residual = labels - labels.mean()
    orthogonal = columns - columns.mean(axis=0)
    norms0 = np.einsum("ij,ij->j", orthogonal, orthogonal)
    available = np.ones(p, dtype=bool)
    repeats = np.zeros(p, dtype=np.int64)
    chosen, values = [], []
    remaining = float(budget)
    explained = 0.0
    while available.any():
        norms = np.einsum("ij,ij->j", orthogonal, orthogonal)
        good = norms > _RELATIVE_TOLERANCE * np.maximum(norms0, np.finfo(float).tiny)
        with np.errstate(divide="ignore", invalid="ignore"):
            gains = np.where(good, (orthogonal.T @ residual) ** 2 / np.where(good, norms, 1.0), 0.0)
        j = _pick(gains, costs, _affordable(costs, remaining, available))
        if j < 0:
            break
        available[j] = False
        repeats[j] = 1
        remaining -= costs[j]
        explained += gains[j]
        chosen.append(j)
        values.append(explained)
        if good[j]:
            q = orthogonal[:, j] / np.sqrt(norms[j])
            residual = residual - q * (q @ residual)
            orthogonal = orthogonal - np.outer(q, q @ orthogonal)
        if bar is not None:
            bar.advance()
    exhausted = not available.any() and remaining > 0
    return _path(repeats, chosen, values, costs, exhausted=exhausted, saturated=False)
