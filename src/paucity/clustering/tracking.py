"""v̂₂ and IU-RED's g under a stream of single-pair changes, without an eigendecomposition per step.

Each measurement changes one weight, so L̂ changes by δ(eᵢ − eⱼ)(eᵢ − eⱼ)ᵀ,
a rank-one term. :class:`FiedlerTracker` keeps the eigendecomposition
L̂₀ = V Λ Vᵀ of the Laplacian at its last refresh (on the complement of 1)
and writes the current one in that basis as

    M = Λ + Z D Zᵀ,   Z = [Vᵀ(eᵢ − eⱼ) for each change since],  D = diag(δ),

a diagonal plus a low-rank term. Then

- (M − σI)⁻¹ applies in O(n t) by the Woodbury identity after an O(n t²)
  factorization (t changes since the refresh), for a shift σ just below the
  previous λ̂₂;
- the smallest eigenpairs come from shift-and-invert subspace iteration with
  Rayleigh–Ritz, warm-started from the previous step's block;
- Sylvester's law of inertia certifies that none was missed: the number of
  eigenvalues of M below θ is #(Λ < θ) + #pos(D⁻¹ + Zᵀ(Λ − θ)⁻¹Z) − #pos(D);
- g solves (M − λ̂₂I + c ŷ₂ŷ₂ᵀ)h = −Pb by the Woodbury identity again, and
  every answer is checked by its residual.

Anything that does not converge or does not check returns None, and the
caller refreshes (one dense eigendecomposition). The cost of a step is
O(n t²) plus the O(n²) of returning to the item basis; a refresh, O(n³),
comes once every ``max_rank`` changes.
"""

from __future__ import annotations

import numpy as np

from .spectral import REPEATED_TOLERANCE, FiedlerVector, canonical_sign, dense_spectrum, laplacian

__all__ = ["FiedlerTracker", "ComponentTracker"]


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

    def __init__(self, n: int, *, max_rank: int = 48, block: int = 4):
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
        self.Z = np.empty((m, 0))
        self.d = np.empty(0)
        self.Y = np.eye(m, self.block)
        self.theta = self.lam[: self.block].copy()

    def _scale(self) -> float:
        return max(2.0 * float(self.degrees.max()), np.finfo(float).tiny)

    def update(self, i: int, j: int, delta: float) -> None:
        """w_ij changed by delta (both orders): one more rank-one term (or, when full, a refresh is due)."""
        if self.V is None or delta == 0.0:
            return
        if self.rank >= self.max_rank:
            self.V = None  # the next use refreshes
            return
        self.degrees[i] += delta
        self.degrees[j] += delta
        self.Z = np.column_stack([self.Z, self.V[i] - self.V[j]])
        self.d = np.append(self.d, delta)

    # -- linear algebra in the fixed basis -----------------------------------------------------------------------
    def _apply_M(self, X: np.ndarray) -> np.ndarray:
        return self.lam[:, None] * X + self.Z @ (self.d[:, None] * (self.Z.T @ X))

    def _solver(self, shift: float, margin: float, columns=None, weights=None):
        """A function applying (M − shift·I + columns·diag(weights)·columnsᵀ)⁻¹, by the Woodbury identity.

        The diagonal Λ − shift is kept at least ``margin`` away from 0: entries
        closer are set to ``margin`` and the difference joins the low-rank term,
        so the identity never divides by a near-zero eigenvalue gap.
        """
        A = self.lam - shift
        close = np.flatnonzero(np.abs(A) < margin)
        diagonal = A.copy()
        diagonal[close] = margin
        m = len(A)
        unit = np.zeros((m, len(close)))
        unit[close, np.arange(len(close))] = 1.0
        parts = [self.Z, unit] + ([columns] if columns is not None else [])
        U = np.column_stack(parts)
        w = np.concatenate([self.d, A[close] - margin] + ([weights] if weights is not None else []))
        if len(w) == 0:
            return lambda X: X / diagonal[:, None]
        Us = U / diagonal[:, None]
        K = np.diag(1.0 / w) + U.T @ Us

        def apply(X):
            return X / diagonal[:, None] - Us @ np.linalg.solve(K, Us.T @ X)

        return apply

    def _count_below(self, theta: float) -> int:
        """The number of eigenvalues of M below θ (Sylvester's law of inertia on the bordered matrix)."""
        below = int(np.count_nonzero(self.lam < theta))
        if len(self.d) == 0:
            return below
        K = np.diag(1.0 / self.d) + self.Z.T @ (self.Z / (self.lam - theta)[:, None])
        return below + int(np.count_nonzero(np.linalg.eigvalsh(K) > 0)) - int(np.count_nonzero(self.d > 0))

    # -- the answers ----------------------------------------------------------------------------------------------
    def fiedler(self, n_components: int, max_iter: int = 12) -> FiedlerVector | None:
        """λ̂₂ and v̂₂ of the current Laplacian, or None when the fast path cannot vouch for them."""
        scale = self._scale()
        Y = self.Y
        solve = None
        converged = False
        for iteration in range(max_iter + 1):
            if iteration in (1, 2, 4):
                # shift and invert just below the current estimate of λ̂₂ (the Ritz value is an upper bound),
                # moved as the estimate improves
                spacing = max(theta[1] - theta[0], 1e-12 * scale)
                solve = self._solver(theta[0] - 0.01 * spacing, 0.005 * spacing)
            if iteration:
                Y = solve(Y)
            Y, _ = np.linalg.qr(Y)
            MY = self._apply_M(Y)
            theta, C = np.linalg.eigh(Y.T @ MY)
            Y, MY = Y @ C, MY @ C
            residual = np.linalg.norm(MY - Y * theta, axis=0)
            gap = theta[1] - theta[0]
            # v̂₂ to about 1e-10 (its error is residual / gap); λ̂₃ only to place the certificate's point
            if residual[0] <= max(1e-10 * gap, 1e-13 * scale) and residual[1] <= max(
                0.1 * (theta[2] - theta[1]), 1e-10 * scale
            ):
                converged = True
                break
        if not converged or not np.all(np.isfinite(theta)) or not self._certified(theta):
            return None
        self.Y, self.theta = Y, theta
        vector = self.V @ Y[:, 0]
        vector = canonical_sign(vector / np.linalg.norm(vector))
        defined = bool(gap - residual[1] > REPEATED_TOLERANCE * scale)
        return FiedlerVector(float(theta[0]), vector, float(theta[1]), n_components, defined, None)

    def _certified(self, theta: np.ndarray) -> bool:
        """Exactly two eigenvalues of M lie below a point between the second and third Ritz values."""
        low, high = theta[1], theta[2]
        if not high > low:
            return False
        for fraction in (0.5, 0.3, 0.7, 0.15, 0.85):
            point = low + fraction * (high - low)
            if np.min(np.abs(self.lam - point)) > 1e-6 * (high - low):
                return self._count_below(point) == 2
        return False

    def direction(self, k: int) -> np.ndarray | None:
        """g = R e_k in the item basis, for the v̂₂ of the last :meth:`fiedler`; None when it does not check."""
        y = self.Y[:, 0]
        lam2, lam3 = self.theta[0], self.theta[1]
        gap = lam3 - lam2
        b = self.V[k]
        q = b - (y @ b) * y
        # (M − λ̂₂I + gap·ŷ₂ŷ₂ᵀ) is invertible, and its solution for a right-hand side orthogonal to ŷ₂ is too
        solve = self._solver(lam2, 0.5 * gap, columns=y[:, None], weights=np.array([gap]))
        h = solve(-q[:, None])[:, 0]
        h -= (y @ h) * y
        residual = self._apply_M(h[:, None])[:, 0] - lam2 * h + q
        if not np.linalg.norm(residual) <= 1e-8 * (np.linalg.norm(q) + gap * np.linalg.norm(h)):
            return None
        return self.V @ h


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
