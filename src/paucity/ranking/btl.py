"""Bradley–Terry–Luce maximum likelihood (seed 000, equation 3.2)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from .._errors import InputError, InputTypeError, ParameterError
from .._parallel import kernel_threads
from .._validation import BOOLEAN, Interval, Options, validate_params
from . import _kernels
from .base import Ranker, as_comparisons, backtracking, check_penalty
from .comparisons import Comparisons, PairTable, shown_label
from .home_advantage import home_table, home_terms
from .ties import TIE_MODELS, check_tie_parameter, check_ties_connected, fit_ties, tie_table
from .uncertainty import LaplacePosterior, LaplaceUncertainty

__all__ = ["BTL", "BTLResult", "btl_maximum_likelihood"]


@dataclass(frozen=True)
class BTLResult:
    """What :func:`btl_maximum_likelihood` returns.

    Attributes
    ----------
    log_weights : ndarray
        v, centred to mean 0.
    log_likelihood : float
        The (unpenalized) log-likelihood at v.
    gradient_norm : float
        Largest absolute entry of the penalized gradient at v.
    n_iter : int
        Newton steps.
    n_products : int
        Hessian–vector products (conjugate-gradient iterations).
    converged : bool
    """

    log_weights: np.ndarray
    log_likelihood: float
    gradient_norm: float
    n_iter: int
    n_products: int
    converged: bool


def btl_maximum_likelihood(
    pairs: PairTable, *, alpha: float = 0.0, tol: float = 1e-9, max_iter: int = 100
) -> BTLResult:
    """Maximize the BTL log-likelihood, optionally L2-penalized, by Newton's method.

    Minimizes ``−ℓ(v) + (alpha/2)‖v‖²`` where ``ℓ`` is the log-likelihood of
    (3.2): each Newton direction solves ``(H + alpha I) d = −g`` by
    Jacobi-preconditioned conjugate gradients with matrix-free products (the
    Hessian is a weighted graph Laplacian over the distinct compared pairs),
    and a backtracking line search keeps every step a descent step.

    Parameters
    ----------
    pairs : PairTable
        The comparisons aggregated by pair (``Comparisons.pairs``).
    alpha : float, default=0
        Weight of the penalty ``(alpha/2)‖v‖²`` added to ``−ℓ(v)``; with
        ``alpha = 0`` the caller must have checked that the maximum exists
        (strongly connected comparison graph).
    tol : float, default=1e-9
        Stop when every entry of the penalized gradient is at most ``tol``
        (units: comparisons).
    max_iter : int, default=100
        Newton steps at most.

    Returns
    -------
    BTLResult

    Notes
    -----
    Memory is O(n + number of distinct pairs); the cost of a Hessian product is
    one pass over the pairs.

    Examples
    --------
    >>> from paucity.ranking import Comparisons
    >>> c = Comparisons.from_winners([0, 0, 1], [1, 1, 0])  # 0 beat 1 twice, lost once
    >>> result = btl_maximum_likelihood(c.pairs)
    >>> round(float(result.log_weights[0] - result.log_weights[1]), 6)  # log 2
    0.693147
    """
    # vector operations: BLAS threads only add synchronization; the pair kernels take the cores left idle
    with threadpool_limits(1, user_api="blas"), kernel_threads(None):
        return _newton(pairs, float(alpha), float(tol), int(max_iter))


def _newton(pairs: PairTable, alpha: float, tol: float, max_iter: int) -> BTLResult:
    n = pairs.n_items
    low = np.ascontiguousarray(pairs.low)
    high = np.ascontiguousarray(pairs.high)
    low_wins = np.ascontiguousarray(pairs.low_wins, dtype=np.float64)
    high_wins = np.ascontiguousarray(pairs.high_wins, dtype=np.float64)
    slope, curvature = np.empty(len(low)), np.empty(len(low))
    trial_slope, trial_curvature = np.empty(len(low)), np.empty(len(low))
    # start from the smoothed log-odds of each item's wins, or from 0 when that is worse
    wins = np.bincount(low, low_wins, minlength=n) + np.bincount(high, high_wins, minlength=n)
    losses = np.bincount(low, high_wins, minlength=n) + np.bincount(high, low_wins, minlength=n)
    v = np.log((wins + 0.5) / (losses + 0.5))
    v -= v.mean()
    loss = _kernels.btl_pair_terms(low, high, low_wins, high_wins, v, slope, curvature) + 0.5 * alpha * (v @ v)
    zero = np.zeros(n)
    zero_loss = _kernels.btl_pair_terms(low, high, low_wins, high_wins, zero, trial_slope, trial_curvature)
    if zero_loss < loss:
        v, loss = zero, zero_loss
        slope, trial_slope = trial_slope, slope
        curvature, trial_curvature = trial_curvature, curvature
    n_products = 0
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        gradient = alpha * v
        _kernels.scatter_pairs(low, high, slope, gradient)
        if np.abs(gradient).max() <= tol:
            converged = True
            n_iter -= 1
            break
        diagonal = alpha + np.bincount(low, curvature, minlength=n) + np.bincount(high, curvature, minlength=n)
        diagonal = np.where(diagonal > 0, diagonal, 1.0)
        norm = np.linalg.norm(gradient)
        if n_iter == 1:
            first_norm = norm
        # products are much cheaper than evaluating the pair terms, so solve each Newton system tightly
        forcing = min(0.01, np.sqrt(norm / first_norm)) * norm
        direction, products = _conjugate_gradients(low, high, curvature, alpha, -gradient, diagonal, forcing=forcing)
        n_products += products
        if alpha == 0:
            direction -= direction.mean()
        decrease = gradient @ direction
        if decrease >= 0:  # not a descent direction (round-off at the optimum)
            direction = -gradient / diagonal
            decrease = gradient @ direction
        def trial_loss(step):  # fills trial_slope and trial_curvature at the point tried last
            trial = v + step * direction
            return _kernels.btl_pair_terms(
                low, high, low_wins, high_wins, trial, trial_slope, trial_curvature
            ) + 0.5 * alpha * (trial @ trial)

        step, value = backtracking(trial_loss, loss, decrease)
        if step is None:
            break
        v, loss = v + step * direction, value
        slope, trial_slope = trial_slope, slope
        curvature, trial_curvature = trial_curvature, curvature
    else:
        # the last Newton step was taken: report the gradient at the point returned, not the one before it
        gradient = alpha * v
        _kernels.scatter_pairs(low, high, slope, gradient)
        converged = bool(np.abs(gradient).max() <= tol)
    v = v - v.mean()
    log_likelihood = -_kernels.btl_loss(low, high, low_wins, high_wins, v)
    return BTLResult(
        log_weights=v,
        log_likelihood=float(log_likelihood),
        gradient_norm=float(np.abs(gradient).max()),
        n_iter=n_iter,
        n_products=n_products,
        converged=converged,
    )


def _conjugate_gradients(low, high, weights, alpha, rhs, diagonal, forcing, max_products=500):
    """Preconditioned CG for ``(L + alpha I) d = rhs`` with L the weighted pair Laplacian."""
    d = np.zeros_like(rhs)
    residual = rhs.copy()
    z = residual / diagonal
    p = z.copy()
    rz = residual @ z
    products = 0
    for products in range(1, max_products + 1):
        lp = alpha * p
        _kernels.laplacian_product(low, high, weights, p, lp)
        curvature = p @ lp
        if curvature <= 0:
            break
        step = rz / curvature
        d += step * p
        residual -= step * lp
        if np.linalg.norm(residual) <= forcing:
            break
        z = residual / diagonal
        rz_next = residual @ z
        p = z + (rz_next / rz) * p
        rz = rz_next
    return d, products


class BTL(LaplaceUncertainty, Ranker):
    """Bradley–Terry–Luce maximum likelihood, optionally L2-regularized.

    Under BTL item ``j`` is preferred to ``i`` with probability
    ``1 / (1 + exp(vᵢ − vⱼ))``; the estimator minimizes

    ``−ℓ(v) + (alpha/2)‖v‖²``,

    the negative log-likelihood (3.2) of the comparisons plus an L2 penalty of
    weight ``alpha`` (the MAP estimate under a Gaussian prior of variance
    ``1/alpha``).

    Parameters
    ----------
    alpha : float, default=0.0
        Weight of the penalty ``(alpha/2)‖v‖²`` added to the negative
        log-likelihood. With ``alpha = 0`` the maximum exists only when the
        directed comparison graph (an edge from each loser to its winner) is
        strongly connected; otherwise ``fit`` raises an error that says so.
    tol : float, default=1e-9
        Stop when the largest entry of the gradient is at most ``tol``.
    max_iter : int, default=100
        Newton steps at most.
    ties : {None, "davidson", "rao-kupper"}, default=None
        Model draws: with a tie model, ``y`` may be 0.5 for a draw (see
        :mod:`paucity.ranking.ties`), and the tie parameter is estimated with
        v; ``fit`` then takes pairs ``X`` with outcomes ``y`` in {0, 0.5, 1}
        (or a :class:`~paucity.ranking.Comparisons`, which has no draws).
    home_advantage : bool, default=False
        Estimate a home advantage h with the scores: the first item ``i`` of
        each comparison is at home and wins with probability
        ``σ(v_i − v_j + h)`` (see :mod:`paucity.ranking.home_advantage`).
        Not with ``ties``.

    Attributes
    ----------
    scores_ : pandas.Series
        The log-weights v, centred to mean 0, indexed by item label.
    tie_parameter_ : float
        With ``ties``: Davidson's ν (a draw between equals has probability
        ν / (2 + ν)) or Rao–Kupper's θ > 1.
    home_advantage_ : float
        With ``home_advantage=True``: h, in log-odds (the home side of two
        equal items wins with probability σ(h)).
    log_scores_ : pandas.Series
        The same v: BTL's scale is the common scale of every ranker's
        ``log_scores_``.
    ranking_ : pandas.Index
        Item labels, best first.
    log_likelihood_ : float
    n_iter_ : int
    converged_ : bool
    scores_std_ : pandas.Series
        Posterior standard deviation of each score under the Laplace
        approximation (computed on first use; see :meth:`covariance` and
        :meth:`rank_intervals`, and :mod:`paucity.ranking.uncertainty`).

    Notes
    -----
    Seed 000, equation (3.2) (logistic regression on ``e_j − e_i``). Solved by
    a Newton–conjugate-gradient method on the distinct compared pairs, so the
    cost grows with the number of pairs, not with n². Identifiability: the
    likelihood does not change when a constant is added to v, so v is centred.
    choix's ``opt_pairwise(alpha=a)`` penalizes ``a‖v‖²``: it matches
    ``BTL(alpha=2a)`` (see docs/benchmarks.md).

    Examples
    --------
    >>> from paucity.ranking import Comparisons, BTL
    >>> c = Comparisons.from_winners(["b", "c", "c", "a", "b"], ["a", "b", "a", "b", "c"])
    >>> BTL().fit(c).scores_.round(3).to_dict()
    {'a': -0.528, 'b': 0.0, 'c': 0.528}
    >>> round(BTL(alpha=1.0).fit(c).predict_proba("a", "c"), 3)
    0.623
    """

    _parameter_constraints = {
        "alpha": [Interval(numbers.Real, 0, None)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "ties": [None, Options(*TIE_MODELS)],
        "home_advantage": [BOOLEAN],
    }

    def __init__(self, alpha=0.0, tol=1e-9, max_iter=100, ties=None, home_advantage=False):
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.ties = ties
        self.home_advantage = home_advantage

    def fit(self, X, y=None, sample_weight=None):
        """Fit on a :class:`~paucity.ranking.Comparisons` (or pairs ``X`` with outcomes ``y``)."""
        params = validate_params(self)
        alpha, tol, max_iter = float(params["alpha"]), float(params["tol"]), int(params["max_iter"])
        if params["ties"] is not None and params["home_advantage"]:
            raise ParameterError("BTL takes ties or home_advantage=True, not both at once; fit one of the two models.")
        if params["ties"] is not None:
            return self._fit_ties(params["ties"], X, y, sample_weight, alpha, tol, max_iter)
        if params["home_advantage"]:
            return self._fit_home(X, y, sample_weight, alpha, tol, max_iter)
        self._fitted_ties = None
        comparisons = as_comparisons(X, y, sample_weight, model="BTL with ties=None")
        check_penalty(alpha, comparisons, "BTL")
        if alpha == 0:
            _check_mle_exists(comparisons)
        result = btl_maximum_likelihood(comparisons.pairs, alpha=alpha, tol=tol, max_iter=max_iter)
        self._keep_likelihood_fit(
            comparisons.items, result,
            f"BTL stopped after {result.n_iter} Newton steps with gradient {result.gradient_norm:.2e} "
            f"above tol={self.tol:g}.",
            stacklevel=2,
        )
        self._fitted_pairs = (comparisons.pairs, alpha)
        return self

    def _fit_ties(self, model, X, y, sample_weight, alpha, tol, max_iter):
        comparisons, outcome = _tied_comparisons(X, y, sample_weight)
        check_penalty(alpha, comparisons, "BTL")
        table = tie_table(comparisons.i, comparisons.j, outcome, comparisons.weights, comparisons.n_items)
        check_tie_parameter(model, table)
        if alpha == 0:
            check_ties_connected(table, comparisons.items)
        result = fit_ties(model, table, alpha=alpha, tol=tol, max_iter=max_iter)
        if alpha == 0 and (np.abs(result.log_weights).max() > 30 or abs(np.log(result.tie_parameter)) > 30):
            # the likelihood keeps rising towards infinite scores: some items never lost outright to the rest
            # except by draws, which a growing tie parameter explains; no finite maximum
            raise InputError(
                f"the BTL(ties={model!r}) maximum likelihood estimate does not exist: the likelihood keeps "
                "increasing as some scores and the tie parameter grow without bound. Use BTL(alpha=...) with alpha > 0."
            )
        self.tie_parameter_ = result.tie_parameter
        return self._keep_joint_fit(f"BTL(ties={model!r})", comparisons, table, alpha, result)

    def _fit_home(self, X, y, sample_weight, alpha, tol, max_iter):
        comparisons = as_comparisons(X, y, sample_weight, model="BTL(home_advantage=True)")
        check_penalty(alpha, comparisons, "BTL")
        table = home_table(comparisons.i, comparisons.j, comparisons.y, comparisons.weights, comparisons.n_items)
        if alpha == 0:
            _check_mle_exists(comparisons)
            if not (table.low_wins.sum() > 0 and table.high_wins.sum() > 0):
                raise InputError(
                    "the home advantage cannot be estimated: the home side (the first item, i) "
                    f"{'won' if table.high_wins.sum() == 0 else 'lost'} every comparison. Use BTL(alpha=...) with alpha > 0."
                )
        result = fit_ties("home", table, alpha=alpha, tol=tol, max_iter=max_iter, terms=home_terms)
        self.home_advantage_ = result.tie_parameter
        return self._keep_joint_fit("BTL(home_advantage=True)", comparisons, table, alpha, result)

    def _keep_joint_fit(self, model, comparisons, table, alpha, result):
        """The fitted attributes of a joint fit of the scores and one more parameter (ties, home advantage)."""
        self._keep_likelihood_fit(
            comparisons.items, result,
            f"{model} stopped after {result.n_iter} Newton steps with gradient {result.gradient_norm:.2e} "
            f"above tol={self.tol:g}.",
            stacklevel=4,
        )
        self._fitted_ties = (table, alpha, result)
        return self

    def _probability(self, a, b):
        v = self.scores_.to_numpy()
        if getattr(self, "_fitted_ties", None) is not None and self.home_advantage:
            # i (a) at home: j (b) wins with probability σ(v_j − v_i − h)
            return 1.0 / (1.0 + np.exp(v[a] - v[b] + self.home_advantage_))
        if getattr(self, "_fitted_ties", None) is not None:
            return _tie_model_win_probability(self.ties.lower(), v[b] - v[a], self.tie_parameter_)
        return 1.0 / (1.0 + np.exp(v[a] - v[b]))

    def _laplace_posterior(self) -> LaplacePosterior:
        """The Hessian at the fit: one edge per compared pair, weight ``n σ(δ)(1 − σ(δ))``.

        With ties, the v-block of the Hessian is a pair Laplacian too, and the
        tie parameter is integrated out: the posterior precision of v is the
        Schur complement ``L − b bᵀ/h``, a rank-one downdate.
        """
        if getattr(self, "_fitted_ties", None) is not None:
            table, alpha, result = self._fitted_ties
            return LaplacePosterior(
                self.scores_.to_numpy(), table.low, table.high, result.curvature, alpha,
                downdate=result.coupling / np.sqrt(result.tie_curvature),
            )
        pairs, alpha = self._fitted_pairs
        v = self.scores_.to_numpy()
        sigma = 1.0 / (1.0 + np.exp(-(v[pairs.low] - v[pairs.high])))
        weights = (np.asarray(pairs.low_wins) + np.asarray(pairs.high_wins)) * sigma * (1.0 - sigma)
        return LaplacePosterior(v, np.asarray(pairs.low), np.asarray(pairs.high), weights, alpha)


def _tie_model_win_probability(model, delta, tie_parameter):
    """Probability that the item ahead by ``delta`` wins outright (not a draw)."""
    if model == "davidson":
        return np.exp(delta / 2) / (np.exp(delta / 2) + np.exp(-delta / 2) + tie_parameter)
    return 1.0 / (1.0 + tie_parameter * np.exp(-delta))


def _tied_comparisons(X, y, sample_weight):
    """Comparisons (decisive outcomes only) and the outcome vector with 0.5 for draws."""
    if isinstance(X, Comparisons):
        if y is not None or sample_weight is not None:
            raise InputError("y and sample_weight must not be given with a Comparisons object, which holds its own.")
        return X, np.asarray(X.y, dtype=np.float64)
    if y is None:
        raise InputError("y is needed with X: 1 when the second item won, 0 when the first did, 0.5 for a draw.")
    try:
        outcome = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError("y must hold outcomes 0, 0.5 (a draw) or 1, one per comparison.") from None
    if outcome.ndim != 1:
        raise InputError(f"y must be 1-dimensional, one outcome per comparison, got shape {outcome.shape}.")
    bad = ~np.isin(outcome, (0.0, 0.5, 1.0))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(f"y must be 0, 0.5 (a draw) or 1; comparison {first} has y = {float(outcome[first]):g}.")
    decisive = np.where(outcome == 0.5, 0, outcome).astype(np.int8)
    return as_comparisons(X, decisive, sample_weight), outcome


def _check_mle_exists(comparisons: Comparisons) -> None:
    n_components = comparisons.pairs.strong_components()
    if n_components == 1:
        return
    wins = comparisons.win_counts()
    losses = comparisons.loss_counts()
    labels = comparisons.items
    if ((wins == 0) & (losses == 0)).any():
        example = f"item {shown_label(labels[np.flatnonzero((wins == 0) & (losses == 0))[0]])} was never compared"
    elif (losses == 0).any():
        example = f"item {shown_label(labels[np.flatnonzero(losses == 0)[0]])} never lost"
    elif (wins == 0).any():
        example = f"item {shown_label(labels[np.flatnonzero(wins == 0)[0]])} never won"
    else:
        example = "a group of items never lost to the rest"
    raise InputError(
        f"the BTL maximum likelihood estimate does not exist: the directed comparison graph (loser -> winner) has "
        f"{n_components} strongly connected components ({example}), so some scores would go to infinity. "
        "Use BTL(alpha=...) with alpha > 0, or RankCentrality(regularization='uniform')."
    )
