"""Preconditioned conjugate gradients, optionally on the range of a projection: the one solve behind IU-RED's g.

IU-RED's direction g solves (L̂ − λ̂₂I)g = −Pe_k on the complement of the
constant vector and v̂₂ (seed 003, eq. 2.6): the operator is negative on
the constants and singular on v̂₂, what P removes, and positive definite on
the rest. IU-RED's scores above the dense size
(:mod:`~paucity.clustering.scores`) and both iterative trackers
(:mod:`~paucity.clustering.tracking`) solve it with this function; they
differ only in the operator, the preconditioner, the start and the
stopping rule, which are its arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["ConjugateGradientResult", "conjugate_gradients"]


@dataclass(frozen=True)
class ConjugateGradientResult:
    """What :func:`conjugate_gradients` found.

    Attributes
    ----------
    solution : ndarray of shape (n,)
        The last iterate (projected, when a projection was given).
    converged : bool
        Whether the updated residual met the stopping rule.
    stalled : bool
        Whether a search direction had curvature pᵀAp ≤ 0 (or NaN): the
        operator is not positive definite on the subspace searched, and the
        iteration stopped there.
    iterations : int
        Products with the operator made by the iteration, the one that
        stalled included (the start's residual not counted).
    residual : float
        ‖b − A x‖ recomputed for ``solution`` (not the updated residual,
        which drifts from it by round-off); NaN when the iteration stalled.
    """

    solution: np.ndarray
    converged: bool
    stalled: bool
    iterations: int
    residual: float


def conjugate_gradients(
    operator,
    rhs: np.ndarray,
    *,
    precondition: Callable[[np.ndarray], np.ndarray] | None = None,
    project: Callable[[np.ndarray], np.ndarray] | None = None,
    start: np.ndarray | None = None,
    tolerance: float = 1e-10,
    max_iter: int | None = None,
    operator_scale: float | None = None,
) -> ConjugateGradientResult:
    """Solve A x = b for a symmetric A, positive definite on the subspace solved on, by preconditioned CG.

    Parameters
    ----------
    operator : callable or matrix
        A: a function x ↦ A x on vectors of shape (n,), or anything with
        ``A @ x`` (an ndarray, a scipy.sparse matrix or LinearOperator).
    rhs : ndarray of shape (n,)
        b. With ``project``, it should lie in the projection's range already
        (it is used as given).
    precondition : callable, optional
        r ↦ M⁻¹r for a symmetric positive definite M; None for none (M = I).
    project : callable, optional
        The orthogonal projection onto the subspace the system is solved on,
        e.g. x ↦ x − mean(x) for a Laplacian, singular on the constants.
        When given it is applied to the start, to every product A p and
        M⁻¹r, and to the solution, so that round-off never grows a component
        outside the subspace. None: the whole space.
    start : ndarray of shape (n,), optional
        The first iterate (a warm start, e.g. the previous solution); zeros
        when None. It is copied, never changed.
    tolerance : float, default=1e-10
        The iteration stops once ‖r‖ ≤ tolerance · ‖b‖ for the updated
        residual r (see ``operator_scale``); it is tested at the start too.
    max_iter : int, optional
        Products with A at most; 10 n when None.
    operator_scale : float, optional
        When given, the test is ‖r‖ ≤ tolerance · (‖b‖ + operator_scale ·
        ‖x‖) at the current iterate x: a normwise backward error, for
        solutions much larger than b (an estimate of the size of A on the
        solution's subspace serves as the scale).

    Returns
    -------
    ConjugateGradientResult
        The solution, whether it converged or stalled, the iterations made
        and the recomputed residual ‖b − A x‖.

    Notes
    -----
    The preconditioned conjugate-gradient iteration of Hestenes and Stiefel
    (Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed.,
    Algorithm 9.1), with the curvature pᵀAp checked at every step: on a
    system that is not positive definite where it searches, it stops and
    says so rather than divide by a non-positive number. In paucity it
    solves seed 003's (L̂ − λ̂₂I)g = −Pe_k for IU-RED's score (eq. 2.6),
    which is positive definite on the complement of v̂₁ and v̂₂ alone:
    ``project`` keeps the iteration there. Memory: a few n-vectors besides
    what the operator and the preconditioner hold.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> found = conjugate_gradients(A, np.array([1.0, 2.0]), tolerance=1e-12)
    >>> np.round(found.solution, 4), found.converged, found.iterations
    (array([0.0909, 0.6364]), True, 2)

    A path's Laplacian is singular on the constants; on their complement it
    is definite, and a right-hand side summing to zero has one solution there:

    >>> L = np.array([[1.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]])
    >>> found = conjugate_gradients(L, np.array([1.0, 0.0, -1.0]), project=lambda x: x - x.mean(),
    ...                             precondition=lambda r: r / np.diag(L), tolerance=1e-12)
    >>> np.round(found.solution, 4) + 0.0, found.converged
    (array([ 1.,  0., -1.]), True)
    """
    apply = operator if callable(operator) else (lambda x: operator @ x)
    b = np.asarray(rhs, dtype=np.float64)
    if max_iter is None:
        max_iter = 10 * len(b)

    def product(x):
        q = apply(x)
        return q if project is None else project(q)

    def preconditioned(r):
        z = r if precondition is None else precondition(r)
        return z if project is None else project(z)

    bnorm = np.linalg.norm(b)

    def met(r, x) -> bool:
        if operator_scale is None:
            return bool(np.linalg.norm(r) <= tolerance * bnorm)
        return bool(np.linalg.norm(r) <= tolerance * (bnorm + operator_scale * np.linalg.norm(x)))

    if start is None:
        x = np.zeros_like(b)
        r = b.copy()
    else:
        x = np.array(start if project is None else project(start), dtype=np.float64)
        r = b - product(x)
    iterations = 0
    stalled = False
    converged = met(r, x)
    if not converged:
        z = preconditioned(r)
        p = z.copy()
        rz = r @ z
        while iterations < max_iter:
            q = product(p)
            iterations += 1
            curvature = p @ q
            if not curvature > 0:
                stalled = True
                break
            step = rz / curvature
            x += step * p
            r -= step * q
            if met(r, x):
                converged = True
                break
            z = preconditioned(r)
            rz, rz_old = r @ z, rz
            p = z + (rz / rz_old) * p
    if project is not None:
        x = project(x)
    residual = float("nan") if stalled else float(np.linalg.norm(b - product(x)))
    return ConjugateGradientResult(x, converged, stalled, iterations, residual)
