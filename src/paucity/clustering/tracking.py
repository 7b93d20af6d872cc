"""v̂₂ and IU-RED's g under a stream of single-pair changes, without an eigendecomposition per step.

Each measurement changes one weight, so L̂ changes by δ(eᵢ − eⱼ)(eᵢ − eⱼ)ᵀ,
a rank-one term. :class:`FiedlerTracker` keeps the eigendecomposition
L̂₀ = V Λ Vᵀ of the Laplacian at its last refresh (on the complement of 1)
and writes the current one in that basis as

    M = Λ + Z D Zᵀ,   Z = [Vᵀ(eᵢ − eⱼ) for each change since],  D = diag(δ),

a diagonal plus a low-rank term. Then

- (M − σI)⁻¹ applies in O(n t) by the Woodbury identity, for a shift σ
  just below λ̂₂ (t changes since the refresh); its O(n t²) parts are kept
  from step to step and bordered by each change in O(n t), and σ is chosen
  again only when λ̂₂ has moved away from it;
- the smallest eigenpairs come from shift-and-invert subspace iteration with
  Rayleigh–Ritz, warm-started from the previous step's block;
- Sylvester's law of inertia certifies that none was missed: the number of
  eigenvalues of M below θ is #(Λ < θ) + #pos(D⁻¹ + Zᵀ(Λ − θ)⁻¹Z) − #pos(D),
  counted again only when a weight has fallen or λ̂₃ has passed the last
  point counted (while weights only rise, no eigenvalue falls);
- g solves (M − λ̂₂I)h = −Pb on the complement of ŷ₂ by iterative
  refinement with the same (M − σI)⁻¹, and every answer is checked by its
  residual.

Anything that does not converge or does not check returns None, and the
caller refreshes (one dense eigendecomposition). The cost of a step is
O(n t) plus the O(n²) of returning to the item basis; a refresh, O(n³),
comes once every ``max_rank`` changes.

With many changes per update (batches) the low-rank term grows too fast, and
:class:`ShiftInvertTracker` takes over: one Cholesky factorization of the
Laplacian shifted just below λ̂₂ per update, and the same warm-started
iteration in the item basis. The sparse path, with no n × n matrix, has its
own tracker (:class:`~paucity.clustering.sparse.SparseTracker`).
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from .conjugate import conjugate_gradients
from .spectral import REPEATED_TOLERANCE, FiedlerVector, canonical_sign, dense_spectrum, laplacian

__all__ = ["FiedlerTracker", "ShiftInvertTracker", "ComponentTracker"]


class FiedlerTracker:
    """λ̂₂, v̂₂ (and IU-RED's g) of a Laplacian changed one pair at a time.

    Parameters
    ----------
    n : int
        Number of items.
    max_rank : int
        Changes absorbed before the next refresh.
    block : int
        Eigenpairs tracked (at least 3: λ̂₂, λ̂₃ and one above for the certificate).
    """

    def __init__(self, n: int, *, max_rank: int = 96, block: int = 4):
        self.n = n
        self.max_rank = max_rank
        self.block = min(block, n - 1)
        self.V = None

    # -- state ----------------------------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """True when a refresh has been made and there is room for another change."""
        return self.V is not None and self.rank < self.max_rank

    @property
    def rank(self) -> int:
        return 0 if self.V is None else len(self.d)

    def refresh(self, W: np.ndarray) -> None:
        """Eigendecompose the Laplacian of the dense W (the one O(n³) step)."""
        L = laplacian(W)
        self.degrees = np.diag(L).copy()
        self.lam, self.V = dense_spectrum(L, self._scale())
        m = len(self.lam)
        self._Z = np.zeros((m, self.max_rank), order="F")  # columns Vᵀ(eᵢ − eⱼ), filled in order
        self._d = np.zeros(self.max_rank)
        self._t = 0
        self.Y = np.eye(m, self.block)
        self.theta = self.lam[: self.block].copy()
        self._point = None  # a point with exactly two eigenvalues of M below it, while no weight has fallen since
        self._shift = None  # the shift of the kept inverse (M − σI)⁻¹, None when it must be rebuilt
        width = self.max_rank + 16  # room for the changes and a few eigenvalues of Λ next to the shift
        self._U = np.zeros((m, width), order="F")
        self._Us = np.zeros((m, width), order="F")

    @property
    def Z(self) -> np.ndarray:
        return self._Z[:, : self._t]

    @property
    def d(self) -> np.ndarray:
        return self._d[: self._t]

    def _scale(self) -> float:
        return max(2.0 * float(self.degrees.max()), np.finfo(float).tiny)

    def update(self, i: int, j: int, delta: float) -> None:
        """w_ij changed by delta (both orders): one more rank-one term (or, when full, a refresh is due)."""
        if self.V is None or delta == 0.0:
            return
        if self.rank >= self.max_rank:
            self.V = None  # the next use refreshes
            return
        if delta < 0:
            self._point = None  # eigenvalues may fall: the next certificate counts afresh
            self._shift = None  # and below the shift: it is chosen again
        self.degrees[i] += delta
        self.degrees[j] += delta
        z = self.V[i] - self.V[j]
        self._Z[:, self._t] = z
        self._d[self._t] = delta
        self._t += 1
        if self._shift is not None:
            r = self._r
            self._Kinv, pivot = _kernels.shift_append(
                z, float(delta), self._diagonal, self._U[:, :r], self._Us[:, :r], self._Kinv, self._U[:, r],
                self._Us[:, r],
            )
            self._r += 1
            if not abs(pivot) > 1e-8:  # a bordered inverse on a tiny pivot: rebuilt at the next step instead
                self._shift = None

    # -- linear algebra in the fixed basis (compiled kernels) ---------------------------------------------------
    def _apply_M(self, X: np.ndarray) -> np.ndarray:
        return _kernels.apply_low_rank(self.lam, self.Z, self.d, np.ascontiguousarray(X))

    def _count_below(self, theta: float) -> int:
        """The number of eigenvalues of M below θ (Sylvester's law of inertia on the bordered matrix)."""
        return int(_kernels.count_below(self.lam, self.Z, self.d, float(theta)))

    # -- the answers ----------------------------------------------------------------------------------------------
    def fiedler(self, n_components: int, max_iter: int = 12) -> FiedlerVector | None:
        """λ̂₂ and v̂₂ of the current Laplacian, or None when the fast path cannot vouch for them.

        Shift-and-invert subspace iteration from the previous step's block,
        with the kept inverse (M − σI)⁻¹ for a shift σ below λ̂₂: the Woodbury
        parts of that shift are bordered by each change (O(n·t) per change
        instead of O(n·t²) per step), and chosen again just below the current
        Ritz value λ̂₂ (an upper bound) when λ̂₂ has moved away from σ by more
        than :data:`SHIFT_DRIFT` of the gap, when the kept shift's few
        iterations do not converge, or when a weight falls; v̂₂ to a residual
        of 1e-10 of the gap.
        """
        scale = self._scale()
        Y = np.ascontiguousarray(self.Y)
        converged = False
        if self._shift is not None:
            Y, theta, residual, converged = _kernels.tracker_iterate(
                self.lam, self.Z, self.d, Y, scale, KEPT_SHIFT_ITERATIONS, self._shift, *self._kept()
            )
            converged = converged and theta[0] > self._shift
        if not converged:
            if self._shift is None:  # Rayleigh–Ritz on the last block places the new shift
                Y, theta, residual, converged = _kernels.tracker_iterate(
                    self.lam, self.Z, self.d, Y, scale, 0, 0.0, *self._kept(empty=True)
                )
            if not converged:
                if not np.all(np.isfinite(theta)) or not self._reshift(theta, scale):
                    return None
                Y, theta, residual, converged = _kernels.tracker_iterate(
                    self.lam, self.Z, self.d, Y, scale, max_iter, self._shift, *self._kept()
                )
        if not converged or not np.all(np.isfinite(theta)) or not self._certified(theta, scale):
            return None
        self.Y, self.theta = Y, theta
        if self._shift is not None and theta[0] - self._shift > SHIFT_DRIFT * (theta[1] - theta[0]):
            self._shift = None  # λ̂₂ has moved on: the next step chooses the shift again
        gap = theta[1] - theta[0]
        vector = self.V @ Y[:, 0]
        vector = canonical_sign(vector / np.linalg.norm(vector))
        defined = bool(gap - residual[1] > REPEATED_TOLERANCE * scale)
        return FiedlerVector(float(theta[0]), vector, float(theta[1]), n_components, defined, None)

    def _kept(self, empty: bool = False):
        """The kept inverse's parts as the kernels take them: (diagonal, Us, Kinv)."""
        if empty or self._shift is None:
            return np.ones(len(self.lam)), np.zeros((len(self.lam), 0), order="F"), np.zeros((0, 0))
        return self._diagonal, self._Us[:, : self._r], self._Kinv

    def _reshift(self, theta: np.ndarray, scale: float) -> bool:
        """Build the Woodbury parts for a shift just below the Ritz value λ̂₂ (O(n·t²)); False when they do not fit."""
        spacing = max(theta[1] - theta[0], 1e-12 * scale)
        shift = float(theta[0] - 1e-4 * spacing)
        margin = 5e-5 * spacing
        r = self._t + int(np.count_nonzero(np.abs(self.lam - shift) < margin))
        if r > self._U.shape[1]:
            self._shift = None
            return False
        diagonal, Kinv = _kernels.shift_parts(self.lam, self.Z, self.d, shift, margin, self._U[:, :r], self._Us[:, :r])
        if not np.all(np.isfinite(Kinv)):
            self._shift = None
            return False
        self._diagonal, self._Kinv, self._r, self._shift = diagonal, Kinv, r, shift
        return True

    def _certified(self, theta: np.ndarray, scale: float) -> bool:
        """Exactly two eigenvalues of M (λ̂₂ and λ̂₃) lie below a point between the second and third Ritz values.

        Counted by Sylvester's law of inertia at such a point, which is then
        kept: while every change since has raised a weight (δ ≥ 0, so by
        Weyl's inequalities no eigenvalue of M has fallen), λ̂₄ is still above
        it, and a later step whose second Ritz value (an upper bound on λ̂₃)
        is below it needs no new count.
        """
        low, high = theta[1], theta[2]
        if not high > low:
            return False
        if self._point is not None and low < self._point - 1e-12 * scale:
            return True
        for fraction in (0.5, 0.3, 0.7, 0.15, 0.85):
            point = low + fraction * (high - low)
            if np.min(np.abs(self.lam - point)) > 1e-6 * (high - low):
                if self._count_below(point) == 2:
                    self._point = point
                    return True
                return False
        return False

    def direction(self, k: int) -> np.ndarray | None:
        """g = R e_k in the item basis, for the v̂₂ of the last :meth:`fiedler`; None when it does not check."""
        y = np.ascontiguousarray(self.Y[:, 0])
        lam2, lam3 = self.theta[0], self.theta[1]
        b = np.ascontiguousarray(self.V[k])
        ok = False
        if self._shift is not None:  # refined with the kept shifted inverse: no factorization of its own
            h, ok = _kernels.tracker_direction_refined(
                self.lam, self.Z, self.d, y, float(lam2), float(lam3 - lam2), b, self._shift, *self._kept(),
                REFINEMENT_STEPS,
            )
        if not ok:
            h, ok = _kernels.tracker_direction(self.lam, self.Z, self.d, y, float(lam2), float(lam3 - lam2), b)
        if not ok:
            return None
        return self.V @ h


#: Refinement steps for IU-RED's g on the dense path before its own factorization is tried (each gains at least
#: about one and a half digits while λ̂₂ is within SHIFT_DRIFT of the gap from the shift).
REFINEMENT_STEPS = 12
#: How far λ̂₂ may move from the kept shift, as a fraction of the gap λ̂₃ − λ̂₂, before the shift is chosen again:
#: the iteration and g's refinement then gain at least ~1.3 digits a step.
SHIFT_DRIFT = 0.05
#: Iterations with the kept shift before it is chosen again.
KEPT_SHIFT_ITERATIONS = 4


class ComponentTracker:
    """Connected components of the graph of positive similarities, kept by union-find as pairs are measured.

    A similarity that drops back to 0 (a median of repeats) cannot be undone
    by union-find: the components are then recomputed from Ŵ at the next
    :meth:`state`.
    """

    def __init__(self, n: int):
        self.parent = np.arange(n)
        self.count = n
        self.stale = False

    def _find(self, a: int) -> int:
        parent = self.parent
        root = a
        while parent[root] != root:
            root = parent[root]
        while parent[a] != root:  # path compression
            parent[a], a = root, parent[a]
        return root

    def change(self, i: int, j: int, before: float, after: float) -> None:
        """The similarity of {i, j} went from ``before`` to ``after``."""
        if after > 0 and not self.stale:
            a, b = self._find(i), self._find(j)
            if a != b:
                self.parent[a] = b
                self.count -= 1
        elif before > 0 and after <= 0:
            self.stale = True

    def n_components(self, W: np.ndarray) -> int:
        """The number of components (recomputed from W when a similarity dropped to 0)."""
        if self.stale:
            from .spectral import components

            count, labels = components(W)
            first = np.full(count, -1)
            for item, label in enumerate(labels):
                if first[label] < 0:
                    first[label] = item
            self.parent = first[labels]  # each component's first item is its root
            self.count = count
            self.stale = False
        return self.count

    def labels(self, W: np.ndarray) -> np.ndarray:
        """A label per item, numbered by first appearance (as scipy's connected_components numbers them)."""
        self.n_components(W)
        roots = self.parent.copy()
        while True:
            up = roots[roots]
            if np.array_equal(up, roots):
                break
            roots = up
        _, first, inverse = np.unique(roots, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first)] = np.arange(len(first))
        return rank[inverse.ravel()]



class ShiftInvertTracker:
    """λ̂₂, v̂₂ (and IU-RED's g) of a Laplacian changed many pairs at a time: one factorization per update.

    Each update factors the current Laplacian, with the constant vector moved
    to the top of the spectrum (L̂′ = L̂ + c·11ᵀ/n), shifted just below the
    previous λ̂₂: A = L̂′ − σI = CCᵀ (Cholesky). Measured similarities only
    add to L̂ in the positive semidefinite order, so no eigenvalue falls and
    the factorization succeeding certifies σ < λ̂₂ (when a median of repeats
    falls, a lower shift is tried). Then

    - the smallest eigenpairs come from warm-started shift-and-invert subspace
      iteration with A⁻¹ and Rayleigh–Ritz on L̂, checked by their residuals;
      with σ close below λ̂₂ a few iterations suffice;
    - g solves (L̂ − λ̂₂I)h = −P⊥e_k on the complement of 1 and v̂₂ by
      preconditioned conjugate gradients, the preconditioner being exact on
      the Ritz block and A⁻¹ elsewhere, checked by its residual.

    A factorization is O(n³/3), a fifth to a tenth of a full
    eigendecomposition's cost, and the rest of an update is O(n²) per
    iteration, whatever the number of changes since the last one: this is
    the path for batches, where :class:`FiedlerTracker`'s low-rank term would
    grow by the batch size at every update. Anything that does not converge
    or does not check returns None, and the caller takes the dense path.

    Parameters
    ----------
    n : int
        Number of items.
    block : int
        Ritz vectors kept (at least 3).
    """

    def __init__(self, n: int, *, block: int = 8):
        self.n = n
        self.block = min(block, n - 1)
        self.Y = None
        self.theta = None
        self.indptr = np.zeros(n + 1, dtype=np.int64)
        self.indices = np.zeros(4 * n, dtype=np.int64)
        self.weights = np.zeros(4 * n)
        self.degrees = np.zeros(n)
        self.sparse = True
        self.buffer = None  # n × n, holds the factor of the current update

    @property
    def ready(self) -> bool:
        """Always False: every update starts with :meth:`refresh` on the current Ŵ."""
        return False

    def refresh(self, W: np.ndarray) -> None:
        """Take the current Ŵ (read, not copied); the next :meth:`fiedler` factors its Laplacian.

        The measured pairs are few (a budget of a few percent), so L̂ is applied
        through Ŵ's nonzeros by rows, gathered here in one scan; past a quarter
        of the matrix, the dense product is as fast.
        """
        self.W = W
        W = np.ascontiguousarray(W)
        count = _kernels.adjacency(W, self.indptr, self.indices, self.weights, self.degrees)
        if count > len(self.indices) and count <= W.size // 4:
            self.indices = np.zeros(2 * count, dtype=np.int64)
            self.weights = np.zeros(2 * count)
            _kernels.adjacency(W, self.indptr, self.indices, self.weights, self.degrees)
        self.sparse = count <= len(self.indices)
        self.diagonal = self.degrees + np.diag(W)  # L̂ = diag(degrees) − (Ŵ − diag(Ŵ))

    def update(self, i: int, j: int, delta: float) -> None:
        """Nothing to do: the next update refreshes from Ŵ."""

    def _apply_L(self, X: np.ndarray) -> np.ndarray:
        """L̂ X for the Ŵ of the current update, without forming L̂."""
        if not self.sparse:
            return self.diagonal[:, None] * X - self.W @ X
        X = np.ascontiguousarray(X)
        out = np.empty_like(X)
        _kernels.laplacian_apply(self.indptr, self.indices, self.weights, self.degrees, X, out)
        return out

    def _shifts(self, scale: float) -> list[float]:
        """Shifts to try, nearest below λ̂₂ first."""
        shifts = []
        if self.theta is not None and self.Y is not None:
            # λ̂₂ has not fallen (measurements only add to L̂) and is at most the Ritz value of the last block on the
            # new Laplacian: first a shift just below that value (less its residual), then one below the last λ̂₂
            Y = self.Y
            LY = self._apply_L(Y)
            theta, C = np.linalg.eigh(Y.T @ LY)
            residual = np.linalg.norm(LY @ C - Y @ C * theta, axis=0)
            low, spacing = float(self.theta[0]), max(float(self.theta[1] - self.theta[0]), 1e-9 * scale)
            near = float(theta[0] - 1.5 * residual[0] - 0.02 * max(theta[1] - theta[0], 1e-9 * scale))
            if near > low:
                shifts.append(near)
            shifts += [low - 0.05 * spacing, low - 2.0 * spacing]
        shifts.append(-1e-3 * scale)
        return shifts

    def _factor(self, scale: float) -> bool:
        """Cholesky factor of L̂′ − σI for the first shift that is below every eigenvalue of L̂′."""
        from scipy.linalg import eigh, lapack

        n = self.n
        lift = (2.0 * scale + 1.0) / n  # the constant vector's eigenvalue, 2·scale + 1, above every other
        diagonal = np.diag_indices(n)
        shifts = self._shifts(scale)
        if len(shifts) == 1:
            # no earlier estimate: the two smallest eigenvalues (bisection on the tridiagonal form)
            A = lift - self.W
            A[diagonal] = self.degrees + lift
            low, high = eigh(A, subset_by_index=[0, 1], eigvals_only=True, driver="evr")
            spacing = max(float(high - low), 1e-9 * scale)
            shifts = [low - 0.05 * spacing, low - 2.0 * spacing] + shifts
        if self.buffer is None:
            self.buffer = np.empty((n, n))
        A = self.buffer
        for shift in shifts:
            np.subtract(lift, self.W, out=A)
            A[diagonal] = self.degrees + lift - shift
            # A is symmetric: its transpose is the same matrix in Fortran order, factored in place without a copy
            factor, info = lapack.dpotrf(A.T, lower=1, clean=0, overwrite_a=1)
            if info == 0:
                self.factor, self.shift = factor, float(shift)
                return True
        return False

    def _solve(self, X: np.ndarray) -> np.ndarray:
        """(L̂′ − σI)⁻¹ X by the Cholesky factor (one vector: two triangular solves, a third of ``potrs``' time)."""
        from scipy.linalg import blas, lapack

        if X.ndim == 1:
            return blas.dtrsv(self.factor, blas.dtrsv(self.factor, X, lower=1), lower=1, trans=1)
        out, _ = lapack.dpotrs(self.factor, X, lower=1)
        return out

    def fiedler(self, n_components: int, max_iter: int = 40) -> FiedlerVector | None:
        """λ̂₂ and v̂₂ of the Laplacian of the Ŵ of the last refresh, or None when the fast path cannot vouch for them."""
        n = self.n
        scale = max(2.0 * float(self.degrees.max()), np.finfo(float).tiny)
        if not self._factor(scale):
            return None
        Y = self.Y
        if Y is None:
            Y = np.random.default_rng(n).standard_normal((n, self.block))
        converged = False
        for iteration in range(max_iter + 1):
            if iteration:
                Y = self._solve(Y)
            Y = Y - Y.mean(axis=0)  # on the complement of 1
            Y, _ = np.linalg.qr(Y)
            LY = self._apply_L(Y)
            theta, C = np.linalg.eigh(Y.T @ LY)
            Y, LY = Y @ C, LY @ C
            residual = np.linalg.norm(LY - Y * theta, axis=0)
            gap = theta[1] - theta[0]
            # v̂₂ to about 1e-10 (its error is residual / gap); λ̂₃ only to place the shift of the next update
            if residual[0] <= max(1e-10 * gap, 1e-13 * scale) and residual[1] <= max(0.1 * gap, 1e-10 * scale):
                converged = True
                break
        if not converged or not np.all(np.isfinite(theta)) or theta[0] <= self.shift:
            self.Y, self.theta = None, None
            return None
        self.Y, self.theta = Y, theta
        vector = canonical_sign(Y[:, 0] / np.linalg.norm(Y[:, 0]))
        defined = bool(gap - residual[1] > REPEATED_TOLERANCE * scale)
        return FiedlerVector(float(theta[0]), vector, float(theta[1]), n_components, defined, None)

    def direction(self, k: int, max_iter: int = 60) -> np.ndarray | None:
        """g = R e_k for the v̂₂ of the last :meth:`fiedler`; None when it does not check."""
        Y, theta = self.Y, self.theta
        lam2 = theta[0]
        y = Y[:, 0]
        rest, values = Y[:, 1:], theta[1:] - lam2
        if not np.all(values > 0):
            return None

        def project(x):
            x = x - x.mean()
            return x - (y @ x) * y

        def operator(x):
            return project(self._apply_L(x[:, None])[:, 0] - lam2 * x)

        def precondition(r):
            # exact on the Ritz block, the factored inverse on the rest
            inside = rest.T @ r
            outside = r - rest @ inside
            return project(rest @ (inside / values) + self._solve(outside - outside.mean()))

        b = np.zeros(self.n)
        b[k] = 1.0
        b = -project(b)
        bnorm = np.linalg.norm(b)
        gap = values[0]
        # started from the Ritz block's part of the answer; stopped at a backward error of 1e-10, checked at 1e-8
        found = conjugate_gradients(operator, b, precondition=precondition, start=rest @ ((rest.T @ b) / values),
                                    tolerance=1e-10, max_iter=max_iter, operator_scale=gap)
        h = found.solution
        if found.stalled or not found.residual <= 1e-8 * (bnorm + gap * np.linalg.norm(h)):
            return None
        return h
