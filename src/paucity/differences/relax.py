"""RELAX: the dualized semidefinite relaxation of SPARDA by projected subgradients (seed 004).

The relaxation of sparse principal differences analysis is

    max over B ⪰ 0, tr B = 1, u ∈ ℝⁿ, v ∈ ℝᵐ of
        (1/m) Σᵢⱼ min{0, zᵢⱼᵀ B zᵢⱼ − uᵢ − vⱼ} + (1/n) Σᵢ uᵢ + (1/m) Σⱼ vⱼ − λ‖B‖₁

with zᵢⱼ = xᵢ − yⱼ (slides, "Semidefinite Relaxation"). Each iteration takes
a subgradient step in u and v (step η) and a normalized step in B (step γ),
projects B back onto the unit-trace PSD cone and soft-thresholds it by
λγ/‖∂B‖_F (slides, "Subgradient Algorithm" and "Projection Algorithm"). All
n·m costs come from one matrix product (:func:`pair_costs`) and the B
subgradient from four (:func:`weighted_scatter`): an iteration costs
O(nmd + (n+m)d² + d³), not O(d³n²), and no d × d matrix is formed per pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._errors import ParameterError
from .projections import canonical_direction, pair_costs, project_unit_trace_psd, soft_threshold, weighted_scatter

__all__ = ["RelaxResult", "relax"]


@dataclass(frozen=True)
class RelaxResult:
    """What :func:`relax` returns.

    Attributes
    ----------
    beta : ndarray of shape (d,)
        The leading eigenvector of the best B (unit norm, first non-zero entry positive).
    matrix : ndarray of shape (d, d)
        The best B.
    objective : float
        The dual objective at the best B.
    trace : ndarray
        The objective at every iteration.
    best_iteration : int
    tightness : float
        The leading eigenvalue's share of the trace of the best B (1 when the
        relaxation is tight: B = ββᵀ).
    n_iter : int
    """

    beta: np.ndarray
    matrix: np.ndarray
    objective: float
    trace: np.ndarray
    best_iteration: int
    tightness: float
    n_iter: int


def _objective(costs, u, v, B, lam, n, m):
    slack = np.minimum(0.0, costs - u[:, None] - v[None, :])
    return slack.sum() / m + u.sum() / n + v.sum() / m - lam * np.abs(B).sum()


def relax(
    X: np.ndarray,
    Y: np.ndarray,
    *,
    lam: float = 0.0,
    step_B: float = 0.3,
    step_dual: float = 1.0,
    adaptive: bool = True,
    patience: int = 50,
    max_iter: int = 1000,
) -> RelaxResult:
    """Solve the dualized relaxation by projected subgradient ascent.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Y : ndarray of shape (m, d)
        Validated, finite samples of the two conditions (centre the pooled
        data first: the costs are computed in expanded form).
    lam : float, default=0
        λ of the ℓ₁ penalty on B (0: PDA's relaxation, no sparsity).
    step_B : float, default=0.3
        γ: step t moves B by γ/√t along the normalized subgradient.
    step_dual : float, default=1.0
        η, the step of the dual variables u and v.
    adaptive : bool, default=True
        Per-coordinate (Adagrad) steps for u and v: ``η g / √(Σ g²)``. With
        False, the slides' fixed steps ``η g``.
    patience : int, default=50
        T: stop after this many iterations without a better objective.
    max_iter : int, default=1000
        Stop after this many iterations in any case.

    Returns
    -------
    RelaxResult

    Notes
    -----
    Seed 004, "Semidefinite Relaxation" (the dual objective above) and the
    RELAX and Projection algorithms, with B projected first and then
    soft-thresholded. The indicator is ``zᵢⱼᵀBzᵢⱼ − uᵢ − vⱼ < 0``; its
    subgradients are ``∂u = 1/n − (I1)/m``, ``∂v = 1/m − (Iᵀ1)/m`` and
    ``∂B = Σᵢⱼ Iᵢⱼ zᵢⱼzᵢⱼᵀ / m``. The slides' fixed steps converge slowly
    (hundreds of iterations on six features still point at the wrong one);
    diminishing steps in B and Adagrad steps in u and v, which the slides
    suggest, reach the planted direction in a few hundred. Memory is
    O(nm + d²).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); Y = rng.normal(size=(50, 3)); Y[:, 1] *= 3.0
    >>> result = relax(X, Y)
    >>> int(np.argmax(np.abs(result.beta)))
    1
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    if lam < 0 or not np.isfinite(lam):
        raise ParameterError(f"lam must be a non-negative number, got {lam!r}.")
    for name, value in (("step_B", step_B), ("step_dual", step_dual)):
        if not (np.isfinite(value) and value > 0):
            raise ParameterError(f"{name} must be a positive number, got {value!r}.")
    n, d = X.shape
    m = Y.shape[0]
    B = np.full((d, d), 1.0 / d)  # β⁽⁰⁾β⁽⁰⁾ᵀ with β⁽⁰⁾ = (1/√d, ..., 1/√d)
    u = np.zeros(n)
    v = np.zeros(m)
    squares_u = np.full(n, 1e-12)
    squares_v = np.full(m, 1e-12)
    best = (-np.inf, B, 0)
    trace = []
    since_best = 0
    iteration = 0
    for iteration in range(1, max_iter + 1):
        costs = pair_costs(X, Y, B)
        value = _objective(costs, u, v, B, lam, n, m)
        trace.append(value)
        if value > best[0]:
            best = (value, B, iteration)
            since_best = 0
        else:
            since_best += 1
            if since_best >= patience:
                break
        active = (costs - u[:, None] - v[None, :]) < 0
        grad_u = 1.0 / n - active.sum(axis=1) / m
        grad_v = 1.0 / m - active.sum(axis=0) / m
        grad_B = weighted_scatter(X, Y, active.astype(np.float64)) / m
        if adaptive:
            squares_u += grad_u**2
            squares_v += grad_v**2
            u = u + step_dual * grad_u / np.sqrt(squares_u)
            v = v + step_dual * grad_v / np.sqrt(squares_v)
        else:
            u = u + step_dual * grad_u
            v = v + step_dual * grad_v
        norm = np.linalg.norm(grad_B)
        if norm == 0:
            continue
        step = step_B / np.sqrt(iteration)
        B = project_unit_trace_psd(B + step * grad_B / norm)
        if lam > 0:
            B = soft_threshold(B, lam * step / norm)
    best_value, best_B, best_iteration = best
    values, vectors = np.linalg.eigh((best_B + best_B.T) / 2)
    top = int(np.argmax(np.abs(values)))
    beta = canonical_direction(vectors[:, top])
    total = np.abs(values).sum()
    return RelaxResult(
        beta=beta,
        matrix=best_B,
        objective=float(best_value),
        trace=np.asarray(trace),
        best_iteration=int(best_iteration),
        tightness=float(np.abs(values[top]) / total) if total > 0 else 0.0,
        n_iter=iteration,
    )
