"""Plackett–Luce maximum likelihood and MAP on rankings and choices.

Under the Plackett–Luce model each choice stage (see
:mod:`paucity.ranking.rankings`) picks item ``w`` from a set ``A`` with
probability ``exp(v_w) / Σ_{j∈A} exp(v_j)``; on pairs it is BTL. Three
solvers:

``"newton"`` (default)
    Newton's method on ``−ℓ(v) + (alpha/2)‖v‖²`` with matrix-free Hessian
    products (each a pass over the stored observations) and Jacobi-
    preconditioned conjugate gradients, as :class:`~paucity.ranking.BTL`.
``"ilsr"``
    Iterative Luce spectral ranking (Maystre & Grossglauser, 2015): the
    stationary distribution of a Markov chain with a rate from each stage's
    losers to its winner of ``1 / Σ_{j∈A} exp(v_j)``, recomputed at the new
    ``v`` until it stops moving; its fixed point is the maximum likelihood
    estimate.
``"lsr"``
    One step of the above from ``v = 0``: the fast spectral estimate (the
    RankCentrality-like chain on the rankings' pairwise breaking, each pair
    weighted by the inverse size of its set). Consistent, but not the
    maximum likelihood estimate.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from threadpoolctl import threadpool_limits

from .._errors import InputError, InputTypeError, ParameterError
from .._validation import Interval, Options, validate_params
from . import _plackett_luce_kernels as kernels
from .base import Ranker, backtracking, check_penalty
from .comparisons import Comparisons, require_no_ties, shown_label
from .rankings import Choices, Rankings, pairwise_breaking, StagedObservations
from .stationary import stationary_distribution
from .transitions import Transition
from .uncertainty import LaplacePosterior, LaplaceUncertainty

__all__ = ["PlackettLuce", "PlackettLuceResult", "plackett_luce_maximum_likelihood", "plackett_luce_spectral"]

METHODS = ("newton", "ilsr", "lsr")


@dataclass(frozen=True)
class PlackettLuceResult:
    """What the Plackett–Luce solvers return.

    Attributes
    ----------
    log_weights : ndarray
        v, centred to mean 0.
    log_likelihood : float
        The (unpenalized) log-likelihood at v.
    gradient_norm : float
        Largest absolute entry of the penalized gradient at v.
    n_iter : int
        Newton steps, or chains solved (``"ilsr"``, ``"lsr"``).
    converged : bool
    """

    log_weights: np.ndarray
    log_likelihood: float
    gradient_norm: float
    n_iter: int
    converged: bool


def _arrays(data: StagedObservations):
    return (
        np.ascontiguousarray(data.members, dtype=np.int64),
        np.ascontiguousarray(data.offsets, dtype=np.int64),
        np.ascontiguousarray(data.n_stages, dtype=np.int64),
    )


def _gradient(members, offsets, n_stages, v, alpha, n):
    gradient = alpha * v
    diagonal = np.full(n, alpha)
    weight = np.empty(len(members))
    inv_total = np.empty(len(members))
    loss = kernels.pl_terms(members, offsets, n_stages, v, gradient, diagonal, weight, inv_total)
    return loss + 0.5 * alpha * (v @ v), gradient, diagonal, weight, inv_total


def plackett_luce_maximum_likelihood(
    data: StagedObservations, *, alpha: float = 0.0, tol: float = 1e-9, max_iter: int = 100
) -> PlackettLuceResult:
    """Minimize ``−ℓ(v) + (alpha/2)‖v‖²`` over the Plackett–Luce log-weights by Newton's method.

    Parameters
    ----------
    data : Rankings or Choices
    alpha : float, default=0
        Weight of the penalty ``(alpha/2)‖v‖²``; with ``alpha = 0`` the caller
        must have checked that the maximum exists.
    tol : float, default=1e-9
        Stop when every entry of the penalized gradient is at most ``tol``
        (units: choice stages).
    max_iter : int, default=100
        Newton steps at most.

    Returns
    -------
    PlackettLuceResult

    Notes
    -----
    Each Newton direction solves ``(H + alpha I) d = −g`` by conjugate
    gradients; a product with H costs one pass over the stored items, and
    memory is O(n_items + items listed).

    Examples
    --------
    >>> from paucity.ranking import Rankings
    >>> r = Rankings([[0, 1], [0, 1], [1, 0]])  # on pairs, Plackett–Luce is BTL
    >>> result = plackett_luce_maximum_likelihood(r)
    >>> round(float(result.log_weights[0] - result.log_weights[1]), 6)  # log 2
    0.693147
    """
    with threadpool_limits(1, user_api="blas"):
        return _newton(data, float(alpha), float(tol), int(max_iter))


def _newton(data, alpha, tol, max_iter, start=None):
    members, offsets, n_stages = _arrays(data)
    n = data.n_items
    v = np.zeros(n) if start is None else np.asarray(start, dtype=np.float64).copy()
    loss, gradient, diagonal, weight, inv_total = _gradient(members, offsets, n_stages, v, alpha, n)
    converged = False
    n_iter = 0
    first_norm = None
    for n_iter in range(1, max_iter + 1):
        if np.abs(gradient).max() <= tol:
            converged = True
            n_iter -= 1
            break
        norm = np.linalg.norm(gradient)
        first_norm = first_norm or norm
        forcing = min(0.01, np.sqrt(norm / first_norm)) * norm
        precondition = np.where(diagonal > 0, diagonal, 1.0)
        direction = _conjugate_gradients(members, offsets, weight, inv_total, alpha, -gradient, precondition, forcing)
        if alpha == 0:
            direction -= direction.mean()
        decrease = gradient @ direction
        if decrease >= 0:  # not a descent direction (round-off at the optimum)
            direction = -gradient / precondition
            decrease = gradient @ direction
        def trial_loss(step):
            trial = v + step * direction
            return kernels.pl_loss(members, offsets, n_stages, trial) + 0.5 * alpha * (trial @ trial)

        step, _ = backtracking(trial_loss, loss, decrease)
        if step is None:
            break
        v = v + step * direction
        loss, gradient, diagonal, weight, inv_total = _gradient(members, offsets, n_stages, v, alpha, n)
    else:
        converged = bool(np.abs(gradient).max() <= tol)
    v = v - v.mean()
    return PlackettLuceResult(
        log_weights=v,
        log_likelihood=float(-kernels.pl_loss(members, offsets, n_stages, v)),
        gradient_norm=float(np.abs(gradient).max()),
        n_iter=n_iter,
        converged=converged,
    )


def _conjugate_gradients(members, offsets, weight, inv_total, alpha, rhs, diagonal, forcing, max_products=500):
    """Preconditioned CG for ``(H + alpha I) d = rhs``."""
    d = np.zeros_like(rhs)
    residual = rhs.copy()
    z = residual / diagonal
    p = z.copy()
    rz = residual @ z
    for _ in range(max_products):
        hp = alpha * p
        kernels.pl_hessian_product(members, offsets, weight, inv_total, p, hp)
        curvature = p @ hp
        if curvature <= 0:
            break
        step = rz / curvature
        d += step * p
        residual -= step * hp
        if np.linalg.norm(residual) <= forcing:
            break
        z = residual / diagonal
        rz_next = residual @ z
        p = z + (rz_next / rz) * p
        rz = rz_next
    return d


def plackett_luce_spectral(
    data: StagedObservations, *, iterate: bool = True, tol: float = 1e-9, max_iter: int = 100
) -> PlackettLuceResult:
    """Luce spectral ranking: one chain (LSR) or the chain iterated to its fixed point (I-LSR).

    Parameters
    ----------
    data : Rankings or Choices
        The observations; the chain must be irreducible (checked by the caller).
    iterate : bool, default=True
        Recompute the chain at the new estimate until it stops moving
        (I-LSR, the maximum likelihood estimate); with False, one chain from
        ``v = 0`` (LSR).
    tol : float, default=1e-9
        I-LSR stops when no log-weight moved by more than ``tol``.
    max_iter : int, default=100
        Chains solved at most.

    Returns
    -------
    PlackettLuceResult

    Notes
    -----
    Maystre & Grossglauser (2015), "Fast and accurate inference of
    Plackett–Luce models", eqs. (8)–(9): the chain moves from each loser of a
    stage to its winner at rate ``1 / Σ_{j∈A} exp(v_j)``; its stationary
    distribution π gives ``v = log π`` (centred). Solved by
    :func:`~paucity.ranking.stationary.stationary_distribution` on the sparse chain.

    Examples
    --------
    >>> from paucity.ranking import Rankings
    >>> r = Rankings([[0, 1, 2], [1, 2, 0], [2, 0, 1]])
    >>> (np.round(plackett_luce_spectral(r).log_weights, 6) + 0.0).tolist()  # + 0.0 turns a -0.0 into 0.0
    [0.0, 0.0, 0.0]
    """
    with threadpool_limits(1, user_api="blas"):
        members, offsets, n_stages = _arrays(data)
        n = data.n_items
        sizes = np.diff(offsets)
        n_entries = int(np.sum(n_stages * (sizes - 1) - n_stages * (n_stages - 1) // 2))
        rows = np.empty(n_entries, dtype=np.int64)
        cols = np.empty(n_entries, dtype=np.int64)
        rates = np.empty(n_entries)
        v = np.zeros(n)
        converged = not iterate
        n_iter = 0
        for n_iter in range(1, (max_iter if iterate else 1) + 1):
            kernels.lsr_rates(members, offsets, n_stages, v, rows, cols, rates)
            chain = sp.csr_matrix((rates, (rows, cols)), shape=(n, n))
            chain.sum_duplicates()
            out_rates = np.asarray(chain.sum(axis=1)).ravel()
            transition = Transition(chain, chain.T.tocsr(), out_rates, float(out_rates.max()), "lsr")
            pi = stationary_distribution(transition, tol=1e-14).distribution
            with np.errstate(divide="ignore"):
                new = np.log(pi)
            new -= new.mean()
            change = np.abs(new - v).max()
            v = new
            if iterate and change <= tol:
                converged = True
                break
    loss, gradient, *_ = _gradient(members, offsets, n_stages, v, 0.0, n)
    return PlackettLuceResult(
        log_weights=v, log_likelihood=float(-loss), gradient_norm=float(np.abs(gradient).max()),
        n_iter=n_iter, converged=converged,
    )


class PlackettLuce(LaplaceUncertainty, Ranker):
    """Plackett–Luce maximum likelihood (or MAP) on rankings and choices.

    Each choice stage picks item ``w`` from its set ``A`` with probability
    ``exp(v_w) / Σ_{j∈A} exp(v_j)``; a ranking ``σ₁ ≻ … ≻ σₖ`` is the
    product of its ``k − 1`` stages. The estimator minimizes

    ``−ℓ(v) + (alpha/2)‖v‖²``,

    the MAP estimate under a Gaussian prior of variance ``1/alpha``.

    Parameters
    ----------
    alpha : float, default=0.0
        Weight of the penalty ``(alpha/2)‖v‖²``. With ``alpha = 0`` the maximum
        exists only when the pairwise breaking (an edge from each stage's
        losers to its winner) is strongly connected; ``fit`` raises an error
        otherwise. Only ``method="newton"`` takes ``alpha > 0``.
    method : {"newton", "ilsr", "lsr"}, default="newton"
        ``"newton"`` and ``"ilsr"`` give the same maximum likelihood estimate;
        ``"lsr"`` the one-step spectral estimate (see the module docstring).
    tol : float, default=1e-9
        ``"newton"``: the largest gradient entry at the end; ``"ilsr"``: the
        largest change of a log-weight between chains.
    max_iter : int, default=100
        Newton steps or chains at most.

    Attributes
    ----------
    scores_ : pandas.Series
        The log-weights v, centred to mean 0, indexed by item label.
    log_scores_ : pandas.Series
        The same v (BTL's scale: on pairs Plackett–Luce is BTL).
    ranking_ : pandas.Index
        Item labels, best first.
    log_likelihood_ : float
    n_iter_ : int
    converged_ : bool
    scores_std_ : pandas.Series
        Posterior standard deviation of each score under the Laplace
        approximation at the fit (computed on first use; see
        :meth:`covariance`, :meth:`rank_intervals` and
        :mod:`paucity.ranking.uncertainty`). With ``method="lsr"`` it is
        the curvature at the spectral estimate, which is not the optimum.

    Notes
    -----
    Plackett (1975), Luce (1959); the spectral solvers are Maystre &
    Grossglauser (2015). choix's ``opt_rankings(alpha=a)`` and
    ``opt_top1(alpha=a)`` penalize ``a‖v‖²``: they match
    ``PlackettLuce(alpha=2a)``; ``ilsr_rankings`` and ``ilsr_top1`` with
    their default ``alpha=0`` match ``PlackettLuce()`` (choix's ``alpha`` there
    is a pseudo-count added to the chain, not a penalty, and has no
    counterpart here).

    Examples
    --------
    >>> from paucity.ranking import Rankings, Choices, PlackettLuce
    >>> r = Rankings([["a", "b", "c"], ["b", "c", "a"], ["a", "c"], ["c", "b"]])
    >>> PlackettLuce().fit(r).scores_.round(3).to_dict()
    {'a': 0.16, 'b': 0.16, 'c': -0.321}
    >>> c = Choices(["a", "b", "a"], [["a", "b", "c"], ["b", "c"], ["a", "c"]])
    >>> PlackettLuce(alpha=0.5).fit(c).ranking_.tolist()
    ['a', 'b', 'c']
    """

    _parameter_constraints = {
        "alpha": [Interval(numbers.Real, 0, None)],
        "method": [Options(*METHODS)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
    }

    def __init__(self, alpha=0.0, method="newton", tol=1e-9, max_iter=100):
        self.alpha = alpha
        self.method = method
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y=None):
        """Fit on :class:`~paucity.ranking.Rankings` or :class:`~paucity.ranking.Choices` (or a list of rankings)."""
        params = validate_params(self)
        alpha, method = float(params["alpha"]), params["method"]
        if y is not None:
            raise InputError("y must not be given: rankings and choices hold their own outcomes.")
        data = _as_staged(X)
        check_penalty(alpha, data, "PlackettLuce")
        if alpha > 0 and method != "newton":
            raise ParameterError(
                f"PlackettLuce(method={method!r}) fits the maximum likelihood estimate and takes no penalty; "
                f"got alpha={alpha:g}. Use method='newton' for alpha > 0."
            )
        if alpha == 0:
            _check_mle_exists(data)
        if method == "newton":
            result = plackett_luce_maximum_likelihood(
                data, alpha=alpha, tol=float(params["tol"]), max_iter=int(params["max_iter"])
            )
        else:
            result = plackett_luce_spectral(
                data, iterate=method == "ilsr", tol=float(params["tol"]), max_iter=int(params["max_iter"])
            )
        self._keep_likelihood_fit(
            data.items, result,
            f"PlackettLuce(method={method!r}) stopped after {result.n_iter} steps without reaching "
            f"tol={self.tol:g} (gradient {result.gradient_norm:.2e}).",
            stacklevel=2,
        )
        self._fitted_data = (data, alpha)
        return self

    def _laplace_posterior(self) -> LaplacePosterior:
        """The Hessian at the fit: one edge per pair of items of each choice stage, weight ``p_a p_b``."""
        data, alpha = self._fitted_data
        members, offsets, n_stages = _arrays(data)
        sizes = np.diff(offsets)
        # a stage whose set has r items has r(r − 1)/2 pairs; r runs from the size down over the stages
        r = sizes[:, None] - np.arange(int(n_stages.max()))[None, :]
        live = np.arange(int(n_stages.max()))[None, :] < n_stages[:, None]
        n_edges = int(np.sum(np.where(live, r * (r - 1) // 2, 0)))
        low, high = np.empty(n_edges, dtype=np.int64), np.empty(n_edges, dtype=np.int64)
        weights = np.empty(n_edges)
        v = self.scores_.to_numpy()
        kernels.pl_hessian_edges(members, offsets, n_stages, v, low, high, weights)
        return LaplacePosterior(v, low, high, weights, alpha)

    def _probability(self, a, b):
        v = self.scores_.to_numpy()
        return 1.0 / (1.0 + np.exp(v[a] - v[b]))


def _as_staged(X) -> StagedObservations:
    if isinstance(X, (Rankings, Choices)):
        return X
    if isinstance(X, Comparisons):
        require_no_ties(X, "PlackettLuce")
    if X is None or isinstance(X, (pd.DataFrame, str, bytes)):
        raise InputTypeError(
            "fit needs Rankings or Choices (a long table: Rankings.from_frame / Choices.from_frame), "
            "or a list of rankings, each best first."
        )
    return Rankings(X)


def _check_mle_exists(data: StagedObservations) -> None:
    winners, losers = pairwise_breaking(np.asarray(data.members), np.asarray(data.offsets), np.asarray(data.n_stages))
    n = data.n_items
    graph = sp.csr_matrix((np.ones(len(winners)), (losers, winners)), shape=(n, n))
    n_components = int(connected_components(graph, directed=True, connection="strong")[0])
    if n_components == 1:
        return
    won = np.bincount(winners, minlength=n) > 0
    lost = np.bincount(losers, minlength=n) > 0
    if (~won & ~lost).any():
        example = f"item {shown_label(data.items[np.flatnonzero(~won & ~lost)[0]])} never appears"
    elif (~lost).any():
        example = f"item {shown_label(data.items[np.flatnonzero(~lost)[0]])} was never beaten"
    elif (~won).any():
        example = f"item {shown_label(data.items[np.flatnonzero(~won)[0]])} never beat another"
    else:
        example = "a group of items was never beaten by the rest"
    raise InputError(
        f"the Plackett–Luce maximum likelihood estimate does not exist: the graph from each stage's losers to "
        f"its winner has {n_components} strongly connected components ({example}), so some scores would go to "
        "infinity. Use PlackettLuce(alpha=...) with alpha > 0."
    )
