"""Tightening: projected subgradient ascent on the original PDA objective (seed 004).

After RELAX, the direction is improved on the non-convex objective itself,
``J(β) = D(βᵀX, βᵀY)`` over unit vectors β whose support is that of the
RELAX solution (SPARDA keeps ``k = ‖β_relax‖₀`` features). For the squared
Wasserstein divergence ``J(β) = min_M βᵀ W_M β`` and its subgradient is
``2 Σ M_ij (pᵢ − qⱼ)(xᵢ − yⱼ)`` over the monotone coupling
(:func:`~paucity.differences.divergences.wasserstein_gradient`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._errors import InputError
from .._validation import Interval, check_parameter
from .divergences import Divergence, Wasserstein, check_pair, project_sample
from .projections import canonical_direction

__all__ = ["TightenResult", "tighten"]


@dataclass(frozen=True)
class TightenResult:
    """What :func:`tighten` returns.

    Attributes
    ----------
    beta : ndarray
        The best unit direction found (zero off the support, first non-zero entry positive).
    value : float
        ``D(βᵀX, βᵀY)`` there.
    trace : ndarray
        The divergence at every iterate.
    n_iter : int
    """

    beta: np.ndarray
    value: float
    trace: np.ndarray
    n_iter: int


def tighten(
    X,
    Y,
    beta,
    *,
    divergence: Divergence | None = None,
    support=None,
    step: float = 0.5,
    patience: int = 30,
    max_iter: int = 500,
) -> TightenResult:
    """Improve a direction by projected subgradient ascent on the unit sphere.

    Parameters
    ----------
    X : array of shape (n, d)
    Y : array of shape (m, d)
    beta : array of shape (d,)
        The starting direction (the RELAX solution, a restart, ...).
    divergence : Divergence, default=Wasserstein()
    support : array of int or bool, optional
        Features allowed to be non-zero; by default those non-zero in ``beta``.
    step : float, default=0.5
        Step t moves β by ``step/√t`` along the normalized subgradient before
        β is renormalized.
    patience : int, default=30
        Stop after this many iterations without a better value.
    max_iter : int, default=500

    Returns
    -------
    TightenResult

    Notes
    -----
    Seed 004, the "tighten" step of the two-step relax–tighten procedure
    (steepest ascent on the original non-convex objective, restricted to the
    RELAX support). The value never decreases from the start: the best iterate
    is returned. Each step costs O((n + m)(s + log(n + m))) for a support of
    s features: only the support's columns are read.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3)); Y = rng.normal(size=(70, 3)); Y[:, 2] *= 3.0
    >>> result = tighten(X, Y, np.array([0.5, 0.5, 0.7]))
    >>> int(np.argmax(np.abs(result.beta))), bool(abs(result.beta[2]) > 0.95)
    (2, True)
    """
    divergence = Wasserstein() if divergence is None else divergence
    beta = np.asarray(beta, dtype=np.float64).ravel()
    d = beta.shape[0]
    if not np.isfinite(beta).all() or not np.any(beta):
        raise InputError("beta must be a finite, non-zero direction.")
    if support is None:
        mask = np.abs(beta) > 0
    else:
        support = np.asarray(support)
        if support.dtype == bool:
            if support.shape != (d,):
                raise InputError(f"support has {support.shape[0]} entries but beta has {d}.")
            mask = support.copy()
        else:
            if len(support) and (support.min() < 0 or support.max() >= d):
                raise InputError(f"support names a feature outside 0..{d - 1}.")
            mask = np.zeros(d, dtype=bool)
            mask[support.astype(np.int64)] = True
    if not mask.any():
        raise InputError("support is empty; give at least one feature.")
    check_parameter(step, "step", [Interval(numbers.Real, 0, None, closed="neither")], owner="tighten")
    check_parameter(patience, "patience", [Interval(numbers.Integral, 1, None)], owner="tighten")
    check_parameter(max_iter, "max_iter", [Interval(numbers.Integral, 1, None)], owner="tighten")
    beta = np.where(mask, beta, 0.0)
    if not np.any(beta):
        beta = mask / np.sqrt(mask.sum())
    norm = np.linalg.norm(beta)
    if norm < 1e-150 and np.isfinite(norm):  # tiny weights (a start whose mass lay off the support): ‖β‖² underflows
        beta = beta / np.abs(beta).max()
        norm = np.linalg.norm(beta)
    beta = beta / norm
    X, Y, beta = check_pair(X, Y, beta)  # once: every step below reuses the validated matrices
    divergence._check_parameters()
    columns = np.flatnonzero(mask)
    if len(columns) < d:  # the ascent moves only the support's weights: work on those columns alone
        X, Y, beta, mask = X[:, columns], Y[:, columns], beta[columns], np.ones(len(columns), dtype=bool)

    def evaluate(direction):
        return divergence._gradient(X, Y, project_sample(X, direction), project_sample(Y, direction))

    value, gradient = evaluate(beta)
    best_value, best_beta = value, beta
    trace = [value]
    since_best = 0
    iteration = 0
    for iteration in range(1, max_iter + 1):
        gradient = np.where(mask, gradient, 0.0)
        # only the part of the subgradient tangent to the sphere moves β
        tangent = gradient - (gradient @ beta) * beta
        norm = np.linalg.norm(tangent)
        if norm <= 1e-14 * max(1.0, np.linalg.norm(gradient)):
            break
        beta = beta + step / np.sqrt(iteration) * tangent / norm
        beta /= np.linalg.norm(beta)
        value, gradient = evaluate(beta)
        trace.append(value)
        if value > best_value:
            best_value, best_beta = value, beta
            since_best = 0
        else:
            since_best += 1
            if since_best >= patience:
                break
    full = np.zeros(d)
    full[columns] = best_beta
    return TightenResult(
        beta=canonical_direction(full), value=float(best_value), trace=np.asarray(trace), n_iter=iteration
    )
