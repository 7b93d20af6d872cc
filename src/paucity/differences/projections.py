"""Projections and pairwise costs: the building blocks of the RELAX solver.

RELAX maximizes the dualized semidefinite relaxation of SPARDA over the set

    𝓑 = {B ∈ ℝ^{d×d} : B ⪰ 0, tr B = 1}

and dual vectors u ∈ ℝⁿ, v ∈ ℝᵐ by projected subgradient steps. Every
iteration needs

* the costs ``zᵢⱼᵀ B zᵢⱼ`` of all n·m pairs ``zᵢⱼ = xᵢ − yⱼ``
  (:func:`pair_costs`), to find the pairs whose dual constraint is active;
* the subgradient ``∑ᵢⱼ Iᵢⱼ zᵢⱼ zᵢⱼᵀ`` of the objective in B over those pairs
  (:func:`weighted_scatter`);
* the Euclidean projection of the updated B back onto 𝓑
  (:func:`project_unit_trace_psd`, built on :func:`project_simplex`), followed
  for SPARDA by the ℓ₁ proximal step (:func:`soft_threshold`).

Neither cost function loops over pairs nor forms a d × d matrix per pair: both
are a handful of matrix products, O(nmd + (n + m)d²) time and O(nm + d²) extra
memory.

The functions assume the data has been validated once by the caller (finite,
same number of columns); they check shapes, which is cheap, but do not scan
large inputs for NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._errors import InputError, ParameterError, ShapeMismatchError

__all__ = [
    "UnitTraceProjection",
    "project_simplex",
    "project_unit_trace_psd",
    "soft_threshold",
    "pair_costs",
    "weighted_scatter",
    "canonical_direction",
]


# -- small checks ---------------------------------------------------------------------------------
def _dense_finite(a, name: str, ndim: int) -> np.ndarray:
    if sp.issparse(a):
        raise InputError(f"{name} must be a dense array, got a scipy sparse matrix; convert it with .toarray().")
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != ndim:
        raise InputError(f"{name} must be {ndim}-dimensional, got an array of shape {a.shape}.")
    if a.size == 0:
        raise InputError(f"{name} is empty (shape {a.shape}); it needs at least one entry.")
    if not np.all(np.isfinite(a)):
        raise InputError(f"{name} contains NaN or infinite values; remove or impute them first.")
    return a


def _matrix(a, name: str):
    """A 2-D float array, or a scipy sparse matrix kept sparse (CSR)."""
    if sp.issparse(a):
        if a.ndim != 2:
            raise InputError(f"{name} must be 2-dimensional, got {a.ndim} dimensions.")
        return a.tocsr()
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2:
        raise InputError(f"{name} must be 2-dimensional (samples in rows), got an array of shape {a.shape}.")
    return a


def _row_sums(a) -> np.ndarray:
    return np.asarray(a.sum(axis=1), dtype=np.float64).ravel()


def _rowwise_dot(a, b: np.ndarray) -> np.ndarray:
    """``∑ₖ aᵢₖ bᵢₖ`` for each row i; ``a`` dense or sparse, ``b`` dense."""
    if sp.issparse(a):
        return _row_sums(a.multiply(b))
    return np.einsum("ik,ik->i", a, b)


def _dense(a) -> np.ndarray:
    return a.toarray() if sp.issparse(a) else np.asarray(a)


# -- the simplex ----------------------------------------------------------------------------------
def project_simplex(v, total: float = 1.0) -> np.ndarray:
    """Euclidean projection of a vector onto the simplex ``{x ≥ 0, ∑x = total}``.

    Parameters
    ----------
    v : array-like of shape (d,)
        The point to project, finite.
    total : float, default 1.0
        The sum of the projected vector, > 0.

    Returns
    -------
    ndarray of shape (d,)
        ``argmin ‖x − v‖₂`` over ``x ≥ 0`` with ``∑x = total``.

    Notes
    -----
    Seed 004, "Subgradient Algorithm for Semidefinite Relaxation", Projection
    Algorithm step 2: ``w* = argmin {‖w − diag(Λ)‖₂² : w ∈ [0, 1]^d,
    ‖w‖₁ = 1}`` (with ``total = 1`` the bound ``w ≤ 1`` is implied by
    ``w ≥ 0`` and ``∑w = 1``). The slides name a quadratic program; it is
    solved exactly here. The KKT conditions give ``x = max(v − θ, 0)`` for the
    θ with ``∑ max(v − θ, 0) = total``. With ``u`` the entries of v sorted in
    decreasing order, the support is the first ρ of them, where
    ``ρ = max{j : uⱼ − (u₁ + … + uⱼ − total)/j > 0}``, and
    ``θ = (u₁ + … + u_ρ − total)/ρ``. One sort: O(d log d) time, O(d) memory.

    Examples
    --------
    >>> project_simplex([1.0, 0.5, -1.0]).tolist()
    [0.75, 0.25, 0.0]
    >>> project_simplex([2.0, 2.0, 2.0], total=3.0).tolist()
    [1.0, 1.0, 1.0]
    """
    v = _dense_finite(v, "v", 1)
    total = float(total)
    if not np.isfinite(total) or total <= 0:
        raise ParameterError(f"total must be a finite number > 0, got {total}.")
    u = np.sort(v)[::-1]
    partial = np.cumsum(u) - total
    j = np.arange(1, v.size + 1)
    # The condition holds for a prefix of j (and always for j = 1), so ρ is its last index.
    rho = np.flatnonzero(u - partial / j > 0)[-1]
    theta = partial[rho] / (rho + 1)
    return np.maximum(v - theta, 0.0)


# -- the unit-trace PSD cone ----------------------------------------------------------------------
@dataclass(frozen=True)
class UnitTraceProjection:
    """What :func:`project_unit_trace_psd` returns with ``return_decomposition=True``.

    Attributes
    ----------
    matrix : ndarray of shape (d, d)
        The projection, symmetric, positive semidefinite, with unit trace.
    eigenvalues : ndarray of shape (d,)
        Its eigenvalues in decreasing order (non-negative, summing to 1).
    eigenvectors : ndarray of shape (d, d)
        Orthonormal eigenvectors in the columns, in the order of ``eigenvalues``.
    """

    matrix: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray

    @property
    def top_eigenvector(self) -> np.ndarray:
        """The unit eigenvector of the largest eigenvalue (its sign is arbitrary)."""
        return self.eigenvectors[:, 0]

    @property
    def top_share(self) -> float:
        """The largest eigenvalue's share of the trace; 1 means the projection has rank one."""
        return float(self.eigenvalues[0] / self.eigenvalues.sum())


def project_unit_trace_psd(B, *, return_decomposition: bool = False):
    """Frobenius projection of a square matrix onto ``{B ⪰ 0, tr B = 1}``.

    Parameters
    ----------
    B : array-like of shape (d, d)
        The matrix to project, finite. A non-symmetric B is projected through
        its symmetric part ``(B + Bᵀ)/2``, which has the same projection.
    return_decomposition : bool, default False
        Also return the eigen-decomposition of the projection (what RELAX needs
        for its output direction and to tell whether the relaxation was tight).

    Returns
    -------
    ndarray of shape (d, d) or UnitTraceProjection
        The symmetric positive semidefinite unit-trace matrix nearest to B in
        Frobenius norm; with ``return_decomposition=True``, a
        :class:`UnitTraceProjection` holding it with its eigenvalues (decreasing)
        and eigenvectors.

    Notes
    -----
    Seed 004, "Subgradient Algorithm for Semidefinite Relaxation", Projection
    Algorithm steps 1–3: ``QΛQᵀ`` = eigendecomposition of B,
    ``w* = argmin {‖w − diag(Λ)‖₂² : w ≥ 0, ‖w‖₁ = 1}``
    (:func:`project_simplex`), ``B̃ = Q diag(w*) Qᵀ``. The feasible set holds
    only symmetric matrices, which are orthogonal to the antisymmetric part of
    B, so symmetrizing first does not change the answer. Step 4 of the same
    algorithm (soft-thresholding, SPARDA only) is :func:`soft_threshold`,
    applied by the caller after this projection. Time O(d³) (one
    ``numpy.linalg.eigh``), memory O(d²).

    Examples
    --------
    >>> project_unit_trace_psd(np.diag([3.0, 1.0, -1.0])).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    >>> result = project_unit_trace_psd([[1.0, 0.5], [0.5, 1.0]], return_decomposition=True)
    >>> np.round(result.eigenvalues, 6).tolist(), round(result.top_share, 6)
    ([1.0, 0.0], 1.0)
    >>> np.round(np.abs(result.top_eigenvector), 6).tolist()
    [0.707107, 0.707107]
    """
    B = _dense_finite(B, "B", 2)
    if B.shape[0] != B.shape[1]:
        raise ShapeMismatchError(f"B must be square, got shape {B.shape}.")
    if not return_decomposition:
        return project_with_rank(B, None)[0]
    symmetric = 0.5 * (B + B.T)
    values, vectors = np.linalg.eigh(symmetric)
    values, vectors = values[::-1], vectors[:, ::-1]  # decreasing order
    weights = project_simplex(values)
    return UnitTraceProjection(matrix=_recompose(vectors, weights), eigenvalues=weights,
                               eigenvectors=np.ascontiguousarray(vectors))


def _top_eigenpairs(symmetric: np.ndarray, rank_hint: int | None = None):
    """The simplex weights of the largest eigenvalues (decreasing) and their eigenvectors, enough of them.

    The projection keeps the eigenvalues above a threshold θ that depends only
    on those it keeps; once the smallest eigenvalue computed gets weight zero,
    every smaller one would too. So when few are expected, only the top r are
    computed (LAPACK's ``syevr`` on an index range, which skips most of the
    back-transformation) and checked; when that falls short, or when many are
    expected, the whole decomposition is taken. Each attempt repeats the
    O(d³) reduction to tridiagonal form, so a second attempt is never a
    partial one: at d = 500 on one thread, the top 16 cost 13 ms, the top 64
    23 ms, the top 200 54 ms and all 500 34 ms. ``rank_hint`` is the rank of
    the previous projection (RELAX's ranks change slowly from step to step).
    """
    d = symmetric.shape[0]
    r = 16 if rank_hint is None else rank_hint + max(8, rank_hint // 4)
    if r <= d // 8:
        values, vectors = scipy.linalg.eigh(
            symmetric, subset_by_index=[d - r, d - 1], driver="evr", check_finite=False
        )
        weights = project_simplex(values[::-1])
        if weights[-1] == 0.0:
            return weights, vectors[:, ::-1]
    values, vectors = np.linalg.eigh(symmetric)
    return project_simplex(values[::-1]), vectors[:, ::-1]


def _recompose(vectors: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``Q diag(w) Qᵀ`` over the eigenvectors with a positive weight, symmetrized."""
    keep = weights > 0  # a prefix, since the projection keeps the order of the entries
    kept = vectors[:, keep]
    matrix = (kept * weights[keep]) @ kept.T
    return 0.5 * (matrix + matrix.T)


def project_with_rank(B: np.ndarray, rank_hint: int | None):
    """:func:`project_unit_trace_psd` of a finite square array, and the rank of the projection."""
    weights, vectors = _top_eigenpairs(0.5 * (B + B.T), rank_hint)
    return _recompose(vectors, weights), int((weights > 0).sum())


def project_with_factor(B: np.ndarray, rank_hint: int | None):
    """:func:`project_with_rank`, and a factor L (d × rank) with ``L Lᵀ`` the projection.

    ``L = Q₊ diag(√w₊)`` over the eigenvectors kept; RELAX computes its pair
    costs through it (:func:`low_rank_pair_costs`) while B stays of low rank.
    """
    weights, vectors = _top_eigenpairs(0.5 * (B + B.T), rank_hint)
    keep = weights > 0
    return _recompose(vectors, weights), vectors[:, keep] * np.sqrt(weights[keep])


# -- the l1 proximal step -------------------------------------------------------------------------
def soft_threshold(B, threshold: float) -> np.ndarray:
    """Entrywise soft-thresholding ``sign(b) · max(|b| − threshold, 0)``.

    Parameters
    ----------
    B : array-like
        Values to shrink (any shape; in RELAX, the d × d matrix just projected).
    threshold : float
        Amount of shrinkage, ≥ 0. In RELAX, ``λγ/‖∂B‖_F``.

    Returns
    -------
    ndarray of the shape of B
        The proximal point of ``threshold · ‖·‖₁`` at B, a new array.

    Notes
    -----
    Seed 004, "Subgradient Algorithm for Semidefinite Relaxation", Projection
    Algorithm step 4: ``B̃ᵣₛ ← sign(B̃ᵣₛ) · max{0, |B̃ᵣₛ| − δλ}`` with
    ``δ = γ/‖∂B‖_F``. The order follows the slides: the update
    ``B + γ ∂B/‖∂B‖_F`` is first projected onto ``{B ⪰ 0, tr B = 1}``
    (:func:`project_unit_trace_psd`) and the projection is then
    soft-thresholded by ``λγ/‖∂B‖_F``. The thresholded matrix stays symmetric
    but may leave the feasible set (its trace drops, and it can lose
    semidefiniteness); the next iteration's projection brings it back.

    Examples
    --------
    >>> soft_threshold([[1.0, -0.5], [-0.5, 0.125]], 0.25).tolist()
    [[0.75, -0.25], [-0.25, 0.0]]
    """
    threshold = float(threshold)
    if not np.isfinite(threshold) or threshold < 0:
        raise ParameterError(f"threshold must be a finite number >= 0, got {threshold}.")
    B = np.asarray(B, dtype=np.float64)
    return np.sign(B) * np.maximum(np.abs(B) - threshold, 0.0)


# -- pairwise costs and their scatter -------------------------------------------------------------
def _check_pair_shapes(X, Y) -> None:
    if X.shape[1] != Y.shape[1]:
        raise ShapeMismatchError(
            f"X has {X.shape[1]} columns but Y has {Y.shape[1]}; both must hold the same features."
        )


def pair_costs(X, Y, B) -> np.ndarray:
    """The n × m matrix of ``zᵢⱼᵀ B zᵢⱼ`` with ``zᵢⱼ = xᵢ − yⱼ``.

    Parameters
    ----------
    X : array-like or scipy sparse matrix of shape (n, d)
    Y : array-like or scipy sparse matrix of shape (m, d)
    B : array-like of shape (d, d)
        Only its symmetric part matters; it need not be semidefinite.

    Returns
    -------
    ndarray of shape (n, m)
        ``costs[i, j] = (xᵢ − yⱼ)ᵀ B (xᵢ − yⱼ)``.

    Notes
    -----
    Seed 004, "Semidefinite Relaxation": the dual objective's terms
    ``tr([Zᵢⱼ ⊗ Zᵢⱼ] B) = zᵢⱼᵀ B zᵢⱼ``, expanded as
    ``xᵢᵀ B xᵢ + yⱼᵀ B yⱼ − 2 xᵢᵀ B yⱼ`` (B symmetrized), so all n·m costs
    come from the products XB, YB and ``XB Yᵀ``: O(nmd + (n + m)d²) time,
    O(nm + (n + m)d) memory, sparse X and Y kept sparse. The expansion
    subtracts large numbers when the samples sit far from the origin; since
    ``zᵢⱼ`` does not change when X and Y are shifted by the same vector,
    centering the pooled data once beforehand keeps the costs accurate.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> Y = np.array([[1.0, 0.0]])
    >>> pair_costs(X, Y, np.eye(2)).tolist()
    [[1.0], [4.0]]
    """
    X, Y = _matrix(X, "X"), _matrix(Y, "Y")
    _check_pair_shapes(X, Y)
    B = np.asarray(B, dtype=np.float64)
    d = X.shape[1]
    if B.shape != (d, d):
        raise ShapeMismatchError(f"B must be {d} × {d} to match the {d} columns of X and Y, got shape {B.shape}.")
    B = 0.5 * (B + B.T)
    XB = np.asarray(X @ B)  # (n, d); B is symmetric, so (XB)ᵢ · yⱼ = xᵢᵀ B yⱼ
    YB = np.asarray(Y @ B)
    x_terms = _rowwise_dot(X, XB)
    y_terms = _rowwise_dot(Y, YB)
    cross = _dense(Y @ XB.T).T if sp.issparse(Y) else XB @ Y.T
    costs = cross
    costs *= -2.0
    costs += x_terms[:, None]
    costs += y_terms[None, :]
    return costs


def low_rank_pair_costs(X: np.ndarray, Y: np.ndarray, L: np.ndarray) -> np.ndarray:
    """:func:`pair_costs` for ``B = L Lᵀ`` given by its factor L (d × r), dense X and Y.

    ``zᵢⱼᵀ B zᵢⱼ = ‖Lᵀxᵢ − Lᵀyⱼ‖²`` expanded as for :func:`pair_costs`, with
    XL (n × r) in place of XB: O(nmr + (n + m)dr) time instead of
    O(nmd + (n + m)d²). The same costs up to rounding.
    """
    XL = X @ L
    YL = Y @ L
    costs = XL @ YL.T
    costs *= -2.0
    costs += np.einsum("ik,ik->i", XL, XL)[:, None]
    costs += np.einsum("ik,ik->i", YL, YL)[None, :]
    return costs


def weighted_scatter(X, Y, I) -> np.ndarray:
    """The d × d matrix ``∑ᵢⱼ Iᵢⱼ zᵢⱼ zᵢⱼᵀ`` with ``zᵢⱼ = xᵢ − yⱼ``.

    Parameters
    ----------
    X : array-like or scipy sparse matrix of shape (n, d)
    Y : array-like or scipy sparse matrix of shape (m, d)
    I : array-like or scipy sparse matrix of shape (n, m)
        Pair weights: an indicator of active pairs, a coupling, any real values.

    Returns
    -------
    ndarray of shape (d, d)
        The weighted scatter of the pair differences, symmetric.

    Notes
    -----
    Seed 004, "Subgradient Algorithm for Semidefinite Relaxation", RELAX step 7:
    ``∂B ← ∂B + Zᵢⱼ ⊗ Zᵢⱼ / m`` over the pairs with a negative margin, i.e. the
    subgradient in B is ``weighted_scatter(X, Y, I)`` for ``I`` the indicator of
    those pairs divided by m. Computed without visiting pairs as
    ``Xᵀ diag(I1) X + Yᵀ diag(Iᵀ1) Y − XᵀIY − YᵀIᵀX``: O(nnz(I)·d + (n + m)d²)
    time, O((n + m)d + d²) extra memory. It is the gradient in B of
    ``∑ᵢⱼ Iᵢⱼ zᵢⱼᵀ B zᵢⱼ``, so ``⟨weighted_scatter(X, Y, I), B⟩_F`` equals
    ``∑ I ⊙ pair_costs(X, Y, B)``. The same cancellation remark as for
    :func:`pair_costs` applies: center the pooled data first.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> Y = np.array([[1.0, 0.0]])
    >>> weighted_scatter(X, Y, np.array([[1.0], [0.5]])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    X, Y = _matrix(X, "X"), _matrix(Y, "Y")
    _check_pair_shapes(X, Y)
    n, m = X.shape[0], Y.shape[0]
    if sp.issparse(I):
        I = I.tocsr()
    else:
        I = np.asarray(I, dtype=np.float64)
    if I.ndim != 2 or I.shape != (n, m):
        raise ShapeMismatchError(
            f"I must be {n} × {m} (rows of X × rows of Y), got shape {I.shape}."
        )
    d = X.shape[1]
    nonzero = I.nnz if sp.issparse(I) else int(np.count_nonzero(I))
    if nonzero * d <= (2 * n + m) * d + n * m:
        return _scatter_of_differences(X, Y, I)
    if not sp.issparse(I) and nonzero <= n * m // 8:
        I = sp.csr_array(I)  # makes I Y cost nnz(I)·d instead of n·m·d
    row_weights = _row_sums(I)  # I 1
    column_weights = np.asarray(I.sum(axis=0), dtype=np.float64).ravel()  # Iᵀ 1
    IY = _dense(I @ Y)  # (n, d)
    cross = _dense(X.T @ IY)  # Xᵀ I Y
    x_part = _dense(X.T @ (X.multiply(row_weights[:, None]) if sp.issparse(X) else X * row_weights[:, None]))
    y_part = _dense(Y.T @ (Y.multiply(column_weights[:, None]) if sp.issparse(Y) else Y * column_weights[:, None]))
    scatter = x_part + y_part - cross - cross.T
    return 0.5 * (scatter + scatter.T)


def _scatter_of_differences(X, Y, I) -> np.ndarray:
    """``weighted_scatter`` pair by pair, ``Zᵀ diag(w) Z`` over the rows ``zᵢⱼ = xᵢ − yⱼ`` of the pairs with ``Iᵢⱼ ≠ 0``.

    O(nnz(I)·d²) time and O(nnz(I)·d) memory: cheaper than the expansion when
    few pairs carry weight, as in RELAX, where the active pairs number about
    n + m out of n·m once the duals settle, and exact without cancellation.
    """
    if sp.issparse(I):
        coo = sp.coo_array(I)
        rows, columns, weights = coo.row, coo.col, np.asarray(coo.data, dtype=np.float64)
    else:
        rows, columns = np.nonzero(I)
        weights = I[rows, columns]
    differences = X[rows] - Y[columns]
    if sp.issparse(differences):
        scatter = _dense(differences.T @ differences.multiply(weights[:, None]))
    else:
        scatter = differences.T @ (differences * weights[:, None])
    return 0.5 * (scatter + scatter.T)


def canonical_direction(beta: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """``beta`` or ``-beta``, whichever has its first non-zero entry (above ``tol``) positive.

    A direction and its negative project the samples equally well; PDA reports
    this one.

    Examples
    --------
    >>> canonical_direction(np.array([-0.6, 0.8])).tolist()
    [0.6, -0.8]
    """
    beta = np.asarray(beta, dtype=np.float64)
    nonzero = np.flatnonzero(np.abs(beta) > tol)
    return -beta if len(nonzero) and beta[nonzero[0]] < 0 else beta
