"""Stationary distributions of (regularized) comparison chains, never dense.

The chain is ``M = [(1 − λ) Q̂ + (λ/n) 1 1ᵀ] D′`` with ``Q̂`` a
:class:`~paucity.ranking.transitions.Transition`, ``λ ∈ [0, 1)`` and ``D′``
an optional row-stochastic :class:`~paucity.ranking.similarity.Similarity`
(``D′ = I`` when absent); its stationary distribution is the leading left
eigenvector ``π = π M`` with ``π·1 = 1``. ``M`` is only ever applied to
vectors: the rank-one teleportation term of ``D_λ`` is never formed.

Three solvers:

``"linear"`` (default)
    Moves the rank-one term to the right-hand side, ``π (I − (1−λ) Q̂ D′) =
    (λ/n) 1ᵀ D′``, and solves it by GMRES with a Jacobi preconditioner. For
    λ = 0 (an irreducible chain) the singular system ``π (I − M) = 0`` is made
    regular by adding ``(1/n) 1 1ᵀ``, whose solution is the stationary
    distribution with ``π·1 = 1``.
``"power"``
    Power iteration ``π ← π M`` from the uniform distribution.
``"arpack"``
    ARPACK's implicitly restarted Arnoldi method (``scipy.sparse.linalg.eigs``)
    on ``Mᵀ`` for the eigenvalue of largest magnitude.

Every solver reports the residual ``‖π M − π‖₁`` of what it returns, and
stops when it falls below ``tol``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse.linalg as spla
from threadpoolctl import threadpool_limits

from .._errors import PaucityWarning, warn
from .._validation import Interval, Options, check_parameter
from .similarity import Similarity
from .transitions import Transition

__all__ = ["StationaryResult", "stationary_distribution", "SOLVERS"]

SOLVERS = ("linear", "power", "arpack")


@dataclass(frozen=True)
class StationaryResult:
    """What :func:`stationary_distribution` returns.

    Attributes
    ----------
    distribution : ndarray
        π, non-negative, summing to 1.
    residual : float
        ``‖π M − π‖₁``.
    n_iter : int
        Matrix–vector products with the chain.
    solver : str
    converged : bool
        Whether ``residual <= tol``.
    """

    distribution: np.ndarray
    residual: float
    n_iter: int
    solver: str
    converged: bool


def left_multiply(x: np.ndarray, transition: Transition, lam: float, similarity: Similarity | None) -> np.ndarray:
    """``x M`` for a row vector ``x`` (see the module docstring for ``M``)."""
    n = transition.n_items
    y = (1.0 - lam) * transition.left_multiply(x) + (lam / n) * x.sum()
    return y if similarity is None else similarity.left_multiply(y)


def stationary_distribution(
    transition: Transition,
    *,
    lam: float = 0.0,
    similarity: Similarity | None = None,
    solver: str = "linear",
    tol: float = 1e-10,
    max_iter: int | None = None,
) -> StationaryResult:
    """Leading left eigenvector of ``[(1 − λ) Q̂ + (λ/n) 11ᵀ] D′``.

    Parameters
    ----------
    transition : Transition
    lam : float in [0, 1)
        λ of ``D_λ = (1 − λ) I + (λ/n) 11ᵀ`` (Algorithm 7). With ``lam = 0`` the
        chain must be irreducible (checked by the caller).
    similarity : Similarity, optional
        D′ of similarity-based regularization (§3.5).
    solver : {"linear", "power", "arpack"}
    tol : float
        Target residual ``‖π M − π‖₁``.
    max_iter : int, optional
        Cap on matrix–vector products (defaults: 20·n for ``"power"``, 10,000
        otherwise).

    Returns
    -------
    StationaryResult

    Notes
    -----
    Seed 000, Algorithms 6 and 7 and §3.5. Memory is O(n + nnz(R)) plus, for
    ``"linear"``, a Krylov basis of 30 vectors of length n.

    Examples
    --------
    >>> from paucity.ranking import Comparisons
    >>> from paucity.ranking.transitions import transition_matrix
    >>> c = Comparisons.from_winners([0, 1, 1, 2, 0], [1, 0, 2, 0, 2])
    >>> result = stationary_distribution(transition_matrix(c, "nos"))
    >>> np.round(result.distribution, 6).tolist()
    [0.333333, 0.555556, 0.111111]
    """
    lam = check_parameter(lam, "lam", [Interval(numbers.Real, 0, 1, closed="left")], owner="stationary_distribution")
    solver = check_parameter(solver, "solver", [Options(*SOLVERS)], owner="stationary_distribution")
    with threadpool_limits(1, user_api="blas"):  # vector operations: threads only add synchronization
        return _solve(transition, lam, similarity, solver, tol, max_iter)


def _solve(transition, lam, similarity, solver, tol, max_iter):
    n = transition.n_items
    if solver == "linear":
        pi, n_iter = _linear(transition, lam, similarity, tol, max_iter or 10_000)
    elif solver == "power":
        pi, n_iter = _power(transition, lam, similarity, tol, max_iter or 20 * n + 1000)
    else:
        pi, n_iter = _arpack(transition, lam, similarity, tol, max_iter or 10_000)
    pi = np.where(pi < 0, 0.0, pi)  # round-off of the solvers, not probability mass
    total = pi.sum()
    pi = pi / total if total > 0 else np.full(n, 1.0 / n)
    residual = float(np.abs(left_multiply(pi, transition, lam, similarity) - pi).sum())
    return StationaryResult(distribution=pi, residual=residual, n_iter=n_iter, solver=solver, converged=residual <= tol)


def _linear(transition, lam, similarity, tol, max_iter):
    n = transition.n_items
    diagonal_q = 1.0 - transition.out_rates / transition.scale
    counter = [0]
    if lam > 0:
        b = np.full(n, lam / n)
        if similarity is not None:
            b = similarity.left_multiply(b)

        def apply(x):
            counter[0] += 1
            y = (1.0 - lam) * transition.left_multiply(x)
            if similarity is not None:
                y = similarity.left_multiply(y)
            return x - y

        jacobi = 1.0 - (1.0 - lam) * diagonal_q * _diagonal(similarity, n)
    else:
        b = np.full(n, 1.0 / n)

        def apply(x):
            counter[0] += 1
            y = transition.left_multiply(x)
            if similarity is not None:
                y = similarity.left_multiply(y)
            return x - y + x.sum() / n

        jacobi = 1.0 - diagonal_q * _diagonal(similarity, n) + 1.0 / n
    jacobi = np.where(jacobi > 1e-300, jacobi, 1.0)
    operator = spla.LinearOperator((n, n), matvec=apply, dtype=np.float64)
    preconditioner = spla.LinearOperator((n, n), matvec=lambda x: x / jacobi, dtype=np.float64)
    x0 = np.full(n, 1.0 / n)
    # GMRES's tolerance is on the 2-norm of the residual relative to ‖b‖; the 1-norm target is tol.
    relative = tol / (np.sqrt(n) * np.linalg.norm(b)) / 4.0
    pi = x0
    for _ in range(20):
        pi, _info = spla.gmres(
            operator, b, x0=pi, rtol=max(relative, 1e-15), atol=0.0, restart=30, maxiter=max(1, max_iter // 30),
            M=preconditioner,
        )
        if np.abs(apply(pi) - b).sum() <= tol / 2 or counter[0] >= max_iter:
            break
    return pi, counter[0]


def _diagonal(similarity: Similarity | None, n: int) -> np.ndarray:
    """The diagonal of D′ (ones without one): with that of Q̂, the Jacobi preconditioner of M."""
    if similarity is None:
        return np.ones(n)
    if similarity.matrix is not None:
        return np.asarray(similarity.matrix.diagonal()).ravel()
    return np.asarray(similarity.onehot.multiply(similarity.onehot).sum(axis=1)).ravel() / similarity.tau + similarity.diagonal


def _power(transition, lam, similarity, tol, max_iter):
    n = transition.n_items
    pi = np.full(n, 1.0 / n)
    for iteration in range(1, max_iter + 1):
        nxt = left_multiply(pi, transition, lam, similarity)
        nxt /= nxt.sum()
        change = np.abs(nxt - pi).sum()
        pi = nxt
        if change <= tol:
            return pi, iteration
    return pi, max_iter


def _arpack(transition, lam, similarity, tol, max_iter):
    n = transition.n_items
    counter = [0]

    def apply(x):
        counter[0] += 1
        return left_multiply(x, transition, lam, similarity)

    if n < 3:
        return _power(transition, lam, similarity, tol, 100_000)
    operator = spla.LinearOperator((n, n), matvec=apply, dtype=np.float64)
    try:
        values, vectors = spla.eigs(operator, k=1, which="LM", tol=tol / 10, maxiter=max_iter, v0=np.full(n, 1.0 / n))
    except spla.ArpackNoConvergence as error:
        warn(f"ARPACK did not converge: {error}; returning its best vector.", PaucityWarning)
        vectors = error.eigenvectors if error.eigenvectors.size else np.full((n, 1), 1.0 / n)
    vector = np.real(vectors[:, 0])
    if vector.sum() < 0:
        vector = -vector
    return vector, counter[0]
