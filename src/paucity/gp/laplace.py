"""The Laplace approximation of heavy-tailed process classification (seed 003, §4.5, eqs. 4.9-4.12).

Plain functions on validated arrays. The C latent Gaussian processes share one
kernel matrix ``K0`` (n x n), so the prior covariance of ``z`` (class-major: all
n points of class 1, then class 2, ...) is block-diagonal with C equal blocks.
Arrays indexed by class and point are shaped ``(C, n)``.

With ``f = warp(z)`` elementwise (``d = f'``, ``e = f''``, ``t = f'''``),
``π`` the softmax over classes of every point and ``y`` one-hot,

- ``J(z) = y'f − Σ_i log Σ_c exp f_ic − ½ z'K⁻¹z − ½ log|K| − (nC/2) log 2π``
- ``∇J = d ⊙ (y − π) − K⁻¹z``
- ``H = −∇²J = K⁻¹ + M``, ``M = D W D − diag(e ⊙ (y − π))``,
  ``W = diag(π) − Π Π'``, ``D = diag(d)``.

``M`` couples only the C classes of one point: ``M = diag(λ) − U U'`` with
``λ = d²π − e(y − π)`` and ``U`` the (nC x n) matrix whose column i holds
``u_i = d_i ⊙ π_i`` in the rows of point i.

Every solve and log-determinant goes through :class:`Curvature`, which
factors H through that structure: one n x n factorization per class and one
for the classes' coupling (Woodbury), never the dense (nC x nC) matrix and
never ``K⁻¹``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas, cho_solve, cholesky, lapack, solve_triangular
from scipy.special import expit, logsumexp, ndtri

from .marginals import get_marginal, warp

__all__ = [
    "Curvature",
    "Mode",
    "LaplaceFit",
    "kernel_cholesky",
    "find_mode",
    "laplace_fit",
    "log_posterior",
    "predictive_moments",
    "predictive_proba",
    "quasi_normals",
    "binary_gaussian_proba",
]


def softmax(F: np.ndarray) -> np.ndarray:
    """Softmax over classes (axis 0) of a (C, ...) array."""
    return np.exp(F - logsumexp(F, axis=0, keepdims=True))


def kernel_cholesky(K0: np.ndarray) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of ``K0 + jitter·I`` and the jitter used.

    The jitter starts at 1e-10 times the mean diagonal and grows by 100 until
    the factorization succeeds (duplicated points make ``K0`` singular).
    """
    scale = float(np.mean(np.diag(K0))) if K0.size else 1.0
    scale = scale if scale > 0 else 1.0
    eye = np.eye(K0.shape[0])
    for exponent in (-10, -8, -6, -4, -2):
        jitter = scale * 10.0**exponent
        try:
            return cholesky(K0 + jitter * eye, lower=True, check_finite=False), jitter
        except np.linalg.LinAlgError:
            continue
    raise np.linalg.LinAlgError("the kernel matrix is not positive definite even with a jitter of 1% of its diagonal")


def _log_lik(F: np.ndarray, Y: np.ndarray) -> float:
    """Σ_i (f_{i, y_i} − log Σ_c exp f_ic), the softmax log-likelihood (4.9)."""
    return float(np.sum(Y * F) - np.sum(logsumexp(F, axis=0)))


#: A class whose ``λ_c`` has at most this fraction of entries ≤ 0 is factored through the positive
#: entries and a Woodbury correction of rank = the number of negative ones (O(n²k) on top of the
#: positive route); above it, through K's Cholesky factor (about three times the positive route).
LOWRANK_MAX_FRACTION = 0.125


class _ClassBlock:
    """``S_c = (K⁻¹ + diag(λ_c))⁻¹`` for one class, factored without ``K⁻¹``.

    Three routes, by the signs of ``λ_c``:

    - ``"positive"``, every ``λ_c ≥ 0`` (always for the Gaussian marginal): with
      ``B = I + Λ^½ K Λ^½ = RR'``, ``S = K − KΛ^½B⁻¹Λ^½K``, and ``u'Su`` for a
      diagonal u is ``u²/λ − (R⁻¹t)'(R⁻¹t)``, ``t = u/√λ``: one Cholesky factor,
      its inverse and a triangular product, about n³ flops.
    - ``"lowrank"``, a few ``λ_c ≤ 0`` (a heavy-tailed map's ``e ⊙ (y − π)`` term
      turns a handful of points negative): ``S₊`` as above with those entries
      set to 0, its k columns at them, and by Woodbury
      ``S = S₊ + S₊E (D⁻¹ − E'S₊E)⁻¹ E'S₊`` with ``D = −diag(λ_J)`` at the
      negative entries J, a positive rank-k correction ``WW'``: O(n²k) more.
    - ``"general"``, many ``λ_c < 0``: with ``K = LL'``, ``B = I + L'ΛL = RR'`` and
      ``S = (R⁻¹L')'(R⁻¹L')``, about 3n³ flops.

    Every route gives ``logdet = log|K| + log|K⁻¹ + Λ|``, and raises
    ``LinAlgError`` where ``K⁻¹ + Λ`` is not positive definite.
    """

    def __init__(self, K0, L0, lam, u):
        self.K0, self.L0, self.lam = K0, L0, lam
        n = lam.shape[0]
        above = lam > 0.0
        # the positive form subtracts u²/λ − ‖R⁻¹t‖²: take it only where u²/λ ≤ 4 (no cancellation to speak of)
        safe = bool(np.all(~above | (u**2 <= 4.0 * lam)))
        off = np.flatnonzero(~above & ((lam != 0.0) | (u != 0.0)))  # the entries the positive form gets wrong
        if safe and off.size == 0:
            self.route = "positive"
        elif safe and off.size <= LOWRANK_MAX_FRACTION * n:
            self.route = "lowrank"
        else:
            self.route = "general"
        self.positive = self.route == "positive"
        self._explicit = None
        if self.route == "general":
            weighted = np.sqrt(np.abs(lam))[:, None] * L0
            plus, minus = weighted[above], weighted[lam < 0]
            B = plus.T @ plus - minus.T @ minus
            B[np.diag_indices(n)] += 1.0
            self.R = cholesky(B, lower=True, check_finite=False)
            Z = solve_triangular(self.R, L0.T, lower=True, check_finite=False)
            self._S = Z.T @ Z
            self.UtSU = u[:, None] * self._S * u[None, :]
            self.logdet = 2.0 * float(np.sum(np.log(np.diag(self.R))))
            self._explicit = self._S
            return
        lam_plus = np.where(above, lam, 0.0)
        root = np.sqrt(lam_plus)
        B = np.multiply(K0, root[:, None])
        B *= root
        B.flat[:: n + 1] += 1.0
        self.root = root
        self.R = lower_cholesky(B)
        inv_R = lapack_trtri(self.R)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(above, u / np.where(above, root, 1.0), 0.0)
        self.t = t  # u/√λ (0 where λ ≤ 0), so that u ⊙ S₊K⁻¹x = t ⊙ B⁻¹Λ^½x where λ > 0
        # −(R⁻¹ diag(t))'(R⁻¹ diag(t)) + diag(t²), in place; its lower triangle is all N's Cholesky reads
        self.UtSU = lower_gram(inv_R * t[None, :], overwrite=True)
        self.UtSU *= -1.0
        self.UtSU.flat[:: n + 1] += t**2
        self._inv_R = inv_R
        self.logdet = 2.0 * float(np.sum(np.log(np.diag(self.R))))
        self.W = None
        if self.route == "positive":
            return
        # S₊'s columns at the entries where λ ≤ 0, and u'S₊u's rows and columns there
        self.off = off
        self.K_off = K0[:, off]
        S_off = self.K_off - K0 @ (root[:, None] * (inv_R.T @ (inv_R @ (root[:, None] * self.K_off))))
        UtSU_off = u[:, None] * S_off * u[off][None, :]
        self.UtSU[:, off] = UtSU_off
        self.UtSU[off, :] = UtSU_off.T
        negative = lam[off] < 0.0
        if np.any(negative):
            J = off[negative]
            D = -lam[J]
            G = np.diag(1.0 / D) - S_off[J][:, negative]
            C_G = cholesky(G, lower=True, check_finite=False)  # fails where K⁻¹ + Λ is not positive definite
            self.W = solve_triangular(C_G, S_off[:, negative].T, lower=True, check_finite=False).T  # S = S₊ + WW'
            uW = u[:, None] * self.W
            self.UtSU += uW @ uW.T
            self.logdet += float(np.sum(np.log(D))) + 2.0 * float(np.sum(np.log(np.diag(C_G))))
            self.Kinv_W = cho_solve((L0, True), self.W, check_finite=False)

    def apply(self, x):
        """``S x`` for x of shape (n,) or (n, k)."""
        if self.route == "general":
            return self._S @ x
        Kx = self.K0 @ x
        w = self.root.reshape((-1,) + (1,) * (x.ndim - 1)) * Kx
        w = cho_solve((self.R, True), w, check_finite=False)
        out = Kx - self.K0 @ (self.root.reshape((-1,) + (1,) * (x.ndim - 1)) * w)
        if self.W is not None:
            out += self.W @ (self.W.T @ x)
        return out

    def explicit(self):
        """S as an (n, n) array."""
        if self._explicit is None:
            X = blas.dtrmm(1.0, self._inv_R * self.root[None, :], self.K0, lower=1)  # R⁻¹Λ^½K
            self._explicit = self.K0 - X.T @ X
            if self.W is not None:
                self._explicit += self.W @ self.W.T
        return self._explicit

    def predictive_terms(self, K_star_T, k_star_diag):
        """For m test points (``K_star_T`` is n x m): ``k** − k*'K⁻¹k* + k*'K⁻¹SK⁻¹k*`` and
        ``SK⁻¹k*`` (n x m), the latter for the positive and low-rank routes only (else None)."""
        if self.route == "general":
            return None, None
        V = solve_triangular(self.R, self.root[:, None] * K_star_T, lower=True, check_finite=False)
        var = k_star_diag - np.sum(V**2, axis=0)  # k** − k*'Λ^½B⁻¹Λ^½k*, Λ^½B⁻¹Λ^½ = K⁻¹ − K⁻¹S₊K⁻¹
        BLk = solve_triangular(self.R, V, lower=True, trans="T", check_finite=False)  # B⁻¹Λ^½k*
        return var, BLk


class Curvature:
    """The factored matrix ``H = K⁻¹ + M`` through its structure (seed 003, §4.5).

    ``M = diag(λ) − UU'`` couples only the C classes of one point, so by
    Woodbury ``H = S⁻¹ − UU'`` with ``S = (K⁻¹ + diag(λ))⁻¹`` block-diagonal
    (one n x n block per class, :class:`_ClassBlock`) and

    ``H⁻¹ = S + SU N⁻¹ U'S``, ``N = I − U'SU`` (n x n),
    ``log|K|^C |H| = Σ_c log|B_c| + log|N|``.

    H is positive definite exactly when every ``S_c`` and N are, since
    ``S⁻¹ = H + UU'``. About ``C·n³`` flops where every ``λ ≥ 0`` and
    ``3C·n³`` otherwise, against ``(nC)³/3`` for a dense factorization, and
    never ``K⁻¹``.

    Parameters
    ----------
    K0, L0 : ndarray (n, n)
        The shared kernel matrix and its lower Cholesky factor.
    diag : ndarray (C, n)
        The diagonal of M (``λ − u²``).
    u : ndarray (C, n)
        The per-point vectors of the coupling between classes.

    Attributes
    ----------
    ok : bool
        Whether H is positive definite (every factorization succeeded).
    logdet : float
        ``log|K|^C + log|H|`` (when ok).
    """

    def __init__(self, K0, L0, diag, u):
        C, n = diag.shape
        self.K0, self.L0, self.diag, self.u, self.C, self.n = K0, L0, diag, u, C, n
        self.lam = diag + u**2
        self.ok, self.logdet, self._P = False, np.nan, None
        if not (np.isfinite(self.lam).all() and np.isfinite(u).all()):
            return
        try:
            self.blocks = [_ClassBlock(K0, L0, self.lam[c], u[c]) for c in range(C)]
            N = np.array(self.blocks[0].UtSU, order="F")
            for block in self.blocks[1:]:
                N += block.UtSU
            N *= -1.0
            N.flat[:: n + 1] += 1.0
            self.chol_N = lower_cholesky(N)
        except np.linalg.LinAlgError:
            return
        self.ok = True
        self.logdet = sum(block.logdet for block in self.blocks) + 2.0 * float(np.sum(np.log(np.diag(self.chol_N))))

    def solve(self, x: np.ndarray) -> np.ndarray:
        """``H⁻¹ x`` for x of shape (C, n)."""
        Sx = np.stack([block.apply(xc) for block, xc in zip(self.blocks, x)])
        w = cho_solve((self.chol_N, True), np.sum(self.u * Sx, axis=0), check_finite=False)
        return Sx + np.stack([block.apply(uc * w) for block, uc in zip(self.blocks, self.u)])

    def coupling(self) -> list[np.ndarray]:
        """``P_c = chol(N)⁻¹ diag(u_c) S_c`` (n x n each): ``H⁻¹_{ck} = δ_ck S_c + P_c'P_k``."""
        if self._P is None:
            self._P = [solve_triangular(self.chol_N, uc[:, None] * block.explicit(), lower=True, check_finite=False)
                       for block, uc in zip(self.blocks, self.u)]
        return self._P

    def point_blocks(self) -> np.ndarray:
        """The C x C block of H⁻¹ at every point, shape (n, C, C)."""
        P = self.coupling()
        V = np.empty((self.n, self.C, self.C))
        for c in range(self.C):
            for k in range(c, self.C):
                V[:, c, k] = V[:, k, c] = np.einsum("ri,ri->i", P[c], P[k])
            V[:, c, c] += np.diag(self.blocks[c].explicit())
        return V

    def sum_of_R_blocks(self) -> np.ndarray:
        """``Σ_c R_cc`` (n x n) for ``R = M − M H⁻¹ M``."""
        C = self.C
        Mp = [[(self.diag[c] if c == k else -self.u[c] * self.u[k]) for k in range(C)] for c in range(C)]
        out = np.diag(np.sum(self.diag, axis=0))
        for k, block in enumerate(self.blocks):
            rows = np.stack([Mp[k][c] for c in range(C)], axis=1)  # (n, C): M's row k at every point
            out -= block.explicit() * (rows @ rows.T)
        P = self.coupling()
        for c in range(C):
            Q = P[0] * Mp[0][c][None, :]
            for k in range(1, C):
                Q += P[k] * Mp[k][c][None, :]
            out -= Q.T @ Q
        return out

    def apply_M(self, G: np.ndarray) -> np.ndarray:
        """``M G`` for G of shape (C, n, ...), M acting on the leading (C, n) axes."""
        extra = (slice(None), slice(None)) + (None,) * (G.ndim - 2)
        UtG = np.einsum("ci,ci...->i...", self.u, G)
        return (self.diag + self.u**2)[extra] * G - self.u[extra] * UtG[None]

    def predictive(self, K_star: np.ndarray, k_star_diag: np.ndarray) -> np.ndarray:
        """The covariance of q(z* | X, y) at m test points, shape (m, C, C).

        ``k_** δ_ck − k_*'K⁻¹k_* δ_ck + k_*'K⁻¹H⁻¹K⁻¹k_*``: per class the
        prior's conditional variance plus ``k_*'K⁻¹S_cK⁻¹k_*``, and the
        coupling ``y_c'y_k`` with ``y_c = chol(N)⁻¹ (u_c ⊙ S_cK⁻¹k_*)``.
        Every term is computed without ``K⁻¹``.
        """
        m = K_star.shape[0]
        C = self.C
        cov = np.zeros((m, C, C))
        Y = []
        V = None
        for c, block in enumerate(self.blocks):
            if block.route != "general":
                # u ⊙ S₊K⁻¹k* = t ⊙ B⁻¹Λ^½k* where λ > 0, since Λ^½(I + KΛ)⁻¹ = B⁻¹Λ^½
                var, BLk = block.predictive_terms(K_star.T, k_star_diag)
                uSKk = block.t[:, None] * BLk
                if block.route == "lowrank":
                    # elsewhere (I + KΛ₊)⁻¹ = I − KΛ^½B⁻¹Λ^½, and S = S₊ + WW' adds (W'K⁻¹k*)² and W W'K⁻¹k*
                    off = block.off
                    uSKk[off] = self.u[c][off, None] * (K_star.T[off] - block.K_off.T @ (block.root[:, None] * BLk))
                    if block.W is not None:
                        Q = block.Kinv_W.T @ K_star.T
                        var = var + np.sum(Q**2, axis=0)
                        uSKk += self.u[c][:, None] * (block.W @ Q)
            else:
                if V is None:
                    V = solve_triangular(self.L0, K_star.T, lower=True, check_finite=False)
                    prior = k_star_diag - np.sum(V**2, axis=0)
                W = solve_triangular(block.R, V, lower=True, check_finite=False)
                var = prior + np.sum(W**2, axis=0)
                uSKk = self.u[c][:, None] * (
                    self.L0 @ solve_triangular(block.R, W, lower=True, trans="T", check_finite=False))
            cov[:, c, c] = np.clip(var, 0.0, None)
            Y.append(solve_triangular(self.chol_N, uSKk, lower=True, check_finite=False))
        for c in range(C):
            for k in range(c, C):
                cov[:, c, k] += np.sum(Y[c] * Y[k], axis=0)
                if k != c:
                    cov[:, k, c] = cov[:, c, k]
        return cov


def lapack_trtri(R):
    """The inverse of a lower triangular matrix (LAPACK's trtri)."""
    inv, info = lapack.dtrtri(R, lower=1)  # R's upper triangle is zero (cholesky's clean output), so is inv's
    if info != 0:
        raise np.linalg.LinAlgError("singular triangular factor")
    return inv


def lower_cholesky(A):
    """The lower Cholesky factor of a symmetric positive definite A (overwritten), zeros above.

    A C-ordered symmetric A is its own transpose, a Fortran-ordered array that LAPACK factors in
    place: no copy."""
    R, info = lapack.dpotrf(A.T if A.flags.c_contiguous else A, lower=1, overwrite_a=1, clean=1)
    if info != 0:
        raise np.linalg.LinAlgError("the matrix is not positive definite")
    return R


def lower_gram(X, overwrite=False):
    """The lower triangle of ``X'X`` for a lower triangular X, zeros above (LAPACK's lauum: a third
    of a general product's flops)."""
    G, info = lapack.dlauum(X, lower=1, overwrite_c=int(overwrite))
    if info != 0:
        raise np.linalg.LinAlgError("lauum failed")
    return G


@dataclass(frozen=True)
class Mode:
    """The mode of J: ``z = K a`` (both (C, n)), the iterations run and whether it converged.

    ``n_iter`` counts the iterations that evaluated ∇J, the one that found the mode included: at least 1, also
    for a search warm-started at its mode.
    """

    z: np.ndarray
    a: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    gradient_norm: float


def _log_joint(a, z, Y, marginal, b, sigma):
    """J(z) without the constant −½ log|K| − (nC/2) log 2π, with ``a = K⁻¹z``.

    −inf where the map or its first two derivatives overflow, so that the
    line search never steps there.
    """
    w = warp(z, marginal, b=b, sigma=sigma)
    if not (np.isfinite(w.f).all() and np.isfinite(w.df).all() and np.isfinite(w.d2f).all()):
        return -np.inf
    return _log_lik(w.f, Y) - 0.5 * float(np.sum(a * z))


# a chord step (the last factorization kept) must shrink the gradient's largest entry at least this much,
# or the next step factors the curvature afresh
REFACTOR_CONTRACTION = 0.2


def _latent(L0, a):
    """``z = K a`` as ``L0 (L0' a)`` per class: the same K as the factor, so ``a'z = ‖L0'a‖² ≥ 0``."""
    return (a @ L0) @ L0.T


def find_mode(L0, K0, Y, *, marginal, b, sigma, a0=None, max_iter=100, tol=1e-6) -> Mode:
    """The mode ẑ of J(z) by a Newton-like ascent with a positive definite curvature (seed 003, §4.5).

    −∇²J need not be positive definite (the ``e ⊙ (y − π)`` term), so plain
    Newton may step downhill. Each step uses ``H = −∇²J`` where it is positive
    definite (Newton's step, quadratic convergence near the mode) and
    ``B = K⁻¹ + D W D`` (always positive definite) elsewhere; either way
    ``Δz = H⁻¹∇J`` or ``B⁻¹∇J`` is an ascent direction.
    The iterate is kept as ``a = K⁻¹ z`` (``z = K a``), with a backtracking
    (Armijo) line search on J. A factorization is kept for the next steps
    (chord steps, O(Cn²) each instead of O(Cn³)) while they shrink the
    largest entry of ∇J at least fivefold (``REFACTOR_CONTRACTION``) with a
    full step; otherwise the next step factors the curvature afresh. Stops
    when the largest entry of ``∇J = d ⊙ (y − π) − a`` is below ``tol``, or
    when a fresh step's predicted gain ``∇J'Δz`` is below the round-off of J
    (1e-14·max(1, |J|)): with an ill-conditioned K the gradient cannot be
    computed more finely. Either way up to three more chord steps polish the
    mode while they lower ∇J, since log|H| in (4.11) moves at first order
    with ẑ.

    Parameters
    ----------
    L0, K0 : ndarray (n, n)
        The lower Cholesky factor of the shared kernel matrix, and the
        matrix itself (unused: ``z = K a`` is formed as ``L0 (L0' a)`` so that
        ``a'z ≥ 0`` whatever K's conditioning).
    Y : ndarray (C, n)
        One-hot labels, class-major.
    marginal, b, sigma
        The copula map (see :func:`paucity.gp.marginals.warp`).
    a0 : ndarray (C, n), optional
        Starting point (a warm start); zeros by default.
    max_iter : int
    tol : float

    Returns
    -------
    Mode
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return _find_mode(L0, K0, Y, marginal, b, sigma, a0, max_iter, tol)


def _find_mode(L0, K0, Y, marginal, b, sigma, a0, max_iter, tol):
    C, n = Y.shape
    a = np.zeros((C, n))
    z = np.zeros((C, n))
    obj = _log_joint(a, z, Y, marginal, b, sigma)
    if a0 is not None:  # a warm start, unless it is worse than the prior mean
        z0 = _latent(L0, np.asarray(a0, dtype=float))
        obj0 = _log_joint(a0, z0, Y, marginal, b, sigma)
        if np.isfinite(obj0) and obj0 > obj:
            a, z, obj = np.array(a0, dtype=float), z0, obj0
    grad_norm = np.inf
    curv, fresh, stalls, previous_obj, indefinite_at = None, False, 0, -np.inf, np.inf
    for iteration in range(1, max_iter + 1):
        w = warp(z, marginal, b=b, sigma=sigma)
        pi = softmax(w.f)
        grad = w.df * (Y - pi) - a
        previous_norm, grad_norm = grad_norm, float(np.max(np.abs(grad)))
        if not np.isfinite(grad_norm):
            raise np.linalg.LinAlgError("the mode search reached latent values where the copula map overflows")
        if grad_norm < tol:
            if curv is not None:  # polish with the factorization in hand: log|H| moves at first order with ẑ
                z, a, obj, grad_norm = _polish(curv, L0, Y, z, a, obj, grad, grad_norm, marginal, b, sigma, tol)
            return Mode(z, a, obj, iteration, True, grad_norm)
        flat = obj - previous_obj <= 1e-12 * max(1.0, abs(obj))
        stalls = stalls + 1 if fresh and flat and grad_norm >= previous_norm else 0
        if stalls >= 2:  # two Newton steps in a row raised J by its round-off only and did not lower ∇J
            return Mode(z, a, obj, iteration, True, grad_norm)
        if curv is None or grad_norm > REFACTOR_CONTRACTION * previous_norm:
            # after H was found indefinite, B is used until the gradient has shrunk tenfold: trying H
            # costs a factorization that fails
            exact = not grad_norm > 0.1 * indefinite_at
            curv, is_H = _newton_curvature(K0, L0, Y, w, pi, exact=exact)
            fresh = True
            if exact and not is_H:
                indefinite_at = grad_norm
        else:
            fresh = False  # the last factorization still contracts the gradient fast: keep it (a chord step)
        # (K⁻¹ + N) z_new = N z + d(y − π), N = M or DWD where factored; then a_new = rhs − N z_new
        Nz = curv.apply_M(z)
        rhs = Nz + w.df * (Y - pi)
        z_new = curv.solve(rhs)
        a_new = rhs - curv.apply_M(z_new)
        da = a_new - a
        dz = _latent(L0, da)
        slope = float(np.sum(grad * dz))
        if slope <= 1e-14 * max(1.0, abs(obj)):  # a Newton step would raise J by less than its round-off
            if fresh:  # take such steps while they lower ∇J (J cannot tell), then stop
                z, a, obj, grad_norm = _polish(curv, L0, Y, z, a, obj, grad, grad_norm, marginal, b, sigma, tol)
                return Mode(z, a, obj, iteration, True, grad_norm)
            curv = None  # judge round-off with the curvature at this point, not an old one
            continue
        step = 1.0
        for _ in range(40):
            a_try, z_try = a + step * da, z + step * dz
            obj_try = _log_joint(a_try, z_try, Y, marginal, b, sigma)
            if np.isfinite(obj_try) and obj_try >= obj + 1e-4 * step * slope:
                break
            step *= 0.5
        else:
            if fresh:
                return Mode(z, a, obj, iteration, False, grad_norm)
            curv = None
            continue
        if step < 1.0:
            curv = None  # a damped step: the curvature has moved too far to keep
        previous_obj = obj
        a, z, obj = a_try, z_try, obj_try
    w = warp(z, marginal, b=b, sigma=sigma)
    grad_norm = float(np.max(np.abs(w.df * (Y - softmax(w.f)) - a)))
    return Mode(z, a, obj, max_iter, grad_norm < tol, grad_norm)


def _polish(curv, L0, Y, z, a, obj, grad, grad_norm, marginal, b, sigma, tol, steps=3):
    """Up to ``steps`` more chord steps with a factorization already made (no new one: each costs
    O(Cn²)), each kept only if it lowers the gradient's largest entry without lowering J, stopping
    below ``tol·1e-3``."""
    for _ in range(steps):
        if grad_norm < 1e-3 * tol:
            break
        rhs = curv.apply_M(z) + (grad + a)  # N z + d ⊙ (y − π)
        z_new = curv.solve(rhs)
        a_new = rhs - curv.apply_M(z_new)
        z_new = _latent(L0, a_new)
        obj_new = _log_joint(a_new, z_new, Y, marginal, b, sigma)
        if not np.isfinite(obj_new) or obj_new < obj - 1e-14 * max(1.0, abs(obj)):
            break
        w = warp(z_new, marginal, b=b, sigma=sigma)
        grad_new = w.df * (Y - softmax(w.f)) - a_new
        norm_new = float(np.max(np.abs(grad_new)))
        if not norm_new < grad_norm:
            break
        z, a, obj, grad, grad_norm = z_new, a_new, obj_new, grad_new, norm_new
    return z, a, obj, grad_norm


def _newton_curvature(K0, L0, Y, w, pi, exact=True):
    """H = −∇²J factored where positive definite (tried only if ``exact``), else B = K⁻¹ + DWD
    (always positive definite). Returns the factored matrix and whether it is H."""
    u = w.df * pi
    dwd = w.df**2 * pi * _one_minus(pi)
    curv = Curvature(K0, L0, dwd - w.d2f * (Y - pi), u) if exact else None
    if curv is not None and curv.ok:
        return curv, True
    curv = Curvature(K0, L0, dwd, u)
    if not curv.ok:  # only with non-finite derivatives: the latent values left the map's range
        raise np.linalg.LinAlgError("the mode search reached latent values where the copula map overflows")
    return curv, False


def _one_minus(pi):
    """``1 − π_c`` as the sum of the other classes' probabilities (accurate where π_c is near 1)."""
    C = pi.shape[0]
    return np.stack([np.sum(pi[np.arange(C) != c], axis=0) for c in range(C)])


def _hessian_parts(z, Y, marginal, b, sigma, mask):
    """The copula map, π, the diagonal of M and u at z."""
    w = warp(z, marginal, b=b, sigma=sigma)
    pi = softmax(w.f)
    E = mask * w.d2f * (Y - pi)
    return w, pi, w.df**2 * pi * _one_minus(pi) - E, w.df * pi


def log_posterior(z, K0, Y, *, marginal, b, sigma):
    """J(z), ∇J and H = −∇²J as a dense (nC x nC) matrix, class-major (a slow check, O((nC)²) memory).

    Parameters
    ----------
    z : ndarray (C, n)
    K0 : ndarray (n, n)
        The shared kernel matrix.
    Y : ndarray (C, n)
        One-hot labels.
    marginal, b, sigma
        The copula map.

    Returns
    -------
    value : float
        ``J(z) = y'f − Σ_i log Σ_c exp f_ic − ½ z'K⁻¹z − ½ log|K| − (nC/2) log 2π``.
    gradient : ndarray (C, n)
        ``d ⊙ (y − π) − K⁻¹z``.
    hessian : ndarray (nC, nC)
        ``K⁻¹ + DWD − diag(e ⊙ (y − π))``.
    """
    C, n = Y.shape
    L0, _ = cholesky(K0, lower=True, check_finite=False), None
    a = cho_solve((L0, True), z.T, check_finite=False).T
    w, pi, diag, u = _hessian_parts(z, Y, marginal, b, sigma, np.ones((C, n)))
    logdet_K = 2.0 * C * float(np.sum(np.log(np.diag(L0))))
    value = _log_lik(w.f, Y) - 0.5 * float(np.sum(a * z)) - 0.5 * logdet_K - 0.5 * C * n * np.log(2 * np.pi)
    gradient = w.df * (Y - pi) - a
    K_inv = cho_solve((L0, True), np.eye(n), check_finite=False)
    H = np.zeros((C * n, C * n))
    idx = np.arange(n)
    for c in range(C):
        H[c * n:(c + 1) * n, c * n:(c + 1) * n] = K_inv
        for k in range(C):
            H[c * n + idx, k * n + idx] += diag[c] if c == k else -u[c] * u[k]
    return value, gradient, H


@dataclass(frozen=True)
class LaplaceFit:
    """The Laplace approximation at one set of parameters.

    Attributes
    ----------
    log_marginal_likelihood : float
        Eq. (4.11), ``J(ẑ) − ½ log|H(ẑ)| + (nC/2) log 2π``.
    gradient_theta : ndarray or None
        Its derivative in each kernel hyperparameter (the kernel's log-space
        theta when ``dK0`` is the kernel's gradient).
    gradient_log_b : float or None
        Its derivative in log b.
    mode : Mode
    clipped : bool
        Whether H was not positive definite at the mode and the positive
        entries of ``e ⊙ (y − π)`` were dropped from it.
    mask : ndarray (C, n)
        1 where the ``e ⊙ (y − π)`` term is kept in H, 0 where dropped.
    curvature : Curvature
        The factored H at the mode, for the predictive covariance.
    mode_sensitivity : ndarray (p + 1, C, n) or None
        With the gradient: ``∂ẑ/∂θ_j`` for the p kernel parameters and
        ``∂ẑ/∂ log b`` last, so that a search at nearby parameters can start
        from the first-order prediction of its mode.
    """

    log_marginal_likelihood: float
    gradient_theta: np.ndarray | None
    gradient_log_b: float | None
    mode: Mode
    clipped: bool
    mask: np.ndarray
    curvature: Curvature
    mode_sensitivity: np.ndarray | None = None


def laplace_fit(K0, Y, *, marginal, b, sigma, dK0=None, L0=None, a0=None, z0=None, max_iter=100, tol=1e-6,
                gradient=False) -> LaplaceFit:
    """Eq. (4.11) and its gradient (4.12) in the kernel parameters and log b, through the mode.

    Parameters
    ----------
    K0 : ndarray (n, n)
        The kernel matrix shared by the C latent processes.
    Y : ndarray (C, n)
        One-hot labels, class-major.
    marginal, b, sigma
        The copula map.
    dK0 : ndarray (n, n, p), optional
        Derivatives of K0 in p hyperparameters (as a scikit-learn kernel
        returns with ``eval_gradient=True``); needed for the gradient.
    L0 : ndarray (n, n), optional
        Cholesky factor of K0 (computed when missing).
    a0 : ndarray (C, n), optional
        Warm start of the mode search.
    z0 : ndarray (C, n), optional
        Warm start given as latent values (used when ``a0`` is None):
        ``a0 = K⁻¹z0``.
    max_iter, tol
        Of :func:`find_mode`.
    gradient : bool
        Compute the gradient.

    Returns
    -------
    LaplaceFit

    Notes
    -----
    With ``a = K⁻¹ẑ``, ``log q = Ψ(f̂) − ½ a'ẑ − ½ log|I + L'ML|`` where
    ``Ψ`` is the log-likelihood (4.9) and ``|I + L'ML| = |K||H|``. At the
    mode ∇J = 0, so the implicit dependence of J(ẑ) on the parameters
    vanishes; that of ``log|H|`` does not. With ``R = M(I + KM)⁻¹ = M − M H⁻¹ M``
    and ``s_j = tr(H⁻¹ ∂M/∂z_j)`` (only the C x C point blocks of H⁻¹ enter),
    for a kernel parameter θ

    ``∂ log q/∂θ = ½ a'K̇a − ½ tr(R K̇) − ½ r'K̇a``, ``r = (I − RK) s``,

    since ``∂ẑ/∂θ = H⁻¹K⁻¹K̇a = (I − KR) K̇ a``. For b, every one of f, f',
    f'', f''' at fixed z is itself divided by b, so
    ``∂ log q/∂b = (y − π)'f/b − ½ tr(H⁻¹ ∂_b M) − ½ s'H⁻¹ ∂_b∇J``.

    If H is not positive definite at the mode (possible only where the ascent
    stopped short of a maximum or at a numerically flat one), the positive
    entries of ``e ⊙ (y − π)`` are dropped, ``H = B + diag(max(0, −e(y − π)))``
    with ``B = K⁻¹ + DWD``, which is positive definite; ``clipped`` says so.
    """
    C, n = Y.shape
    if L0 is None:
        L0, jitter = kernel_cholesky(K0)
        K0 = K0 + jitter * np.eye(n)
    if a0 is None and z0 is not None:
        a0 = cho_solve((L0, True), np.asarray(z0, dtype=float).T, check_finite=False).T
    mode = find_mode(L0, K0, Y, marginal=marginal, b=b, sigma=sigma, a0=a0, max_iter=max_iter, tol=tol)
    z, a = mode.z, mode.a
    mask = np.ones((C, n))
    w, pi, lam, u = _hessian_parts(z, Y, marginal, b, sigma, mask)
    curv = Curvature(K0, L0, lam, u)
    clipped = False
    if not curv.ok:
        clipped = True
        mask = (w.d2f * (Y - pi) < 0).astype(float)
        w, pi, lam, u = _hessian_parts(z, Y, marginal, b, sigma, mask)
        curv = Curvature(K0, L0, lam, u)
        if not curv.ok:
            raise np.linalg.LinAlgError("the Hessian of the log posterior is not positive definite at the mode")
    value = _log_lik(w.f, Y) - 0.5 * float(np.sum(a * z)) - 0.5 * curv.logdet
    if not gradient:
        return LaplaceFit(value, None, None, mode, clipped, mask, curv)
    V = curv.point_blocks()  # (n, C, C): the point blocks of H⁻¹
    d, e, t, f = w.df, w.d2f, w.d3f, w.f
    Vdiag = np.einsum("icc->ci", V)
    Vu = np.einsum("icd,di->ci", V, u)

    def pi_jacobian_t(weights):  # Σ_c weights_c ∂π_c/∂z_k, for every k
        return d * pi * (weights - np.sum(weights * pi, axis=0, keepdims=True))

    s = (Vdiag * (2.0 * d * e * pi - mask * t * (Y - pi)) + pi_jacobian_t(Vdiag * (d**2 + mask * e))
         - 2.0 * Vu * e * pi - 2.0 * pi_jacobian_t(Vu * d))
    MKs = curv.apply_M(s @ K0)
    r = s - (MKs - curv.apply_M(curv.solve(MKs)))  # s − R K s, R = M − M H⁻¹ M
    grad_theta = None
    sensitivity = []
    if dK0 is not None:
        p = dK0.shape[2]
        R_sum = curv.sum_of_R_blocks()
        grad_theta = np.empty(p)
        for j in range(p):
            dK = dK0[:, :, j]
            dKa = a @ dK
            grad_theta[j] = 0.5 * np.sum(a * dKa) - 0.5 * np.sum(R_sum * dK) - 0.5 * np.sum(r * dKa)
            MdKa = curv.apply_M(dKa)
            sensitivity.append(dKa - (MdKa - curv.apply_M(curv.solve(MdKa))) @ K0)  # (I − KR) K̇ a
    # derivative in b
    centred_f = f - np.sum(pi * f, axis=0, keepdims=True)
    dpi_b = pi * centred_f / b
    dgrad_b = d * (Y - pi) / b - d * dpi_b
    ddiag_b = 2.0 * d**2 * pi / b + d**2 * dpi_b - mask * e * (Y - pi) / b + mask * e * dpi_b
    du_b = d * pi / b + d * dpi_b
    trace_b = float(np.sum(Vdiag * ddiag_b) - 2.0 * np.sum(Vu * du_b))
    dz_b = curv.solve(dgrad_b)
    grad_b = float(np.sum((Y - pi) * f) / b - 0.5 * trace_b - 0.5 * np.sum(s * dz_b))
    sensitivity.append(b * dz_b)
    return LaplaceFit(value, grad_theta, b * grad_b, mode, clipped, mask, curv, np.stack(sensitivity))


def predictive_moments(K_star, k_star_diag, a, curvature):
    """Mean and covariance of q(z* | X, y) for m test points (eq. 4.10's Gaussian part).

    Parameters
    ----------
    K_star : ndarray (m, n)
        Kernel between test and training points.
    k_star_diag : ndarray (m,)
        The kernel's diagonal at the test points.
    a : ndarray (C, n)
        ``K⁻¹ẑ`` at the mode.
    curvature : Curvature
        H at the mode, factored.

    Returns
    -------
    mean : ndarray (m, C)
        ``μ_c = k_*' a_c``.
    cov : ndarray (m, C, C)
        ``k_** δ_cc' − k_*'(K⁻¹ − K⁻¹H⁻¹K⁻¹)k_*`` (see :meth:`Curvature.predictive`):
        a sum of positive semi-definite terms, with no difference of large
        numbers beyond the Gaussian process's own.
    """
    return K_star @ a.T, curvature.predictive(K_star, k_star_diag)


def quasi_normals(n_points: int, n_dims: int) -> np.ndarray:
    """A fixed set of standard normal points for eq. (4.10)'s integral.

    The first ``n_points`` rounded up to a power of two of the scrambled
    Sobol' sequence in ``n_dims`` dimensions (scipy's, scrambled with seed 0),
    mapped to normals by ``Φ⁻¹``: the same points on every call, whatever the
    random state of the caller.

    Parameters
    ----------
    n_points : int
        The least number of points; the set has the next power of two.
    n_dims : int
        Their dimension (the number of classes).

    Returns
    -------
    ndarray (2^k, n_dims)
        Read-only.

    Examples
    --------
    >>> points = quasi_normals(1000, 3)
    >>> points.shape, bool(np.array_equal(points, quasi_normals(1000, 3)))
    ((1024, 3), True)
    """
    return _quasi_normals(max(0, int(np.ceil(np.log2(max(1, int(n_points)))))), int(n_dims))


@functools.lru_cache(maxsize=8)
def _quasi_normals(log2_points: int, n_dims: int) -> np.ndarray:
    from scipy.stats import qmc  # scipy.stats is slow to import: only when predicting

    uniform = qmc.Sobol(n_dims, scramble=True, seed=0).random_base2(log2_points)
    points = ndtri(uniform)
    points.setflags(write=False)
    return points


def predictive_proba(mean, cov, normals, *, marginal, b, sigma, chunk=2_000_000):
    """Eq. (4.10): the average of softmax(warp(z*)) over points z* of N(mean, cov).

    Every test point uses the same standard normal points ``normals``
    (n_points x C, e.g. :func:`quasi_normals`), scaled by a square root of its
    covariance, so a point's probabilities do not depend on which other
    points are predicted with it, and fixed points give a deterministic rule.

    Parameters
    ----------
    mean : ndarray (m, C)
    cov : ndarray (m, C, C)
    normals : ndarray (n_points, C)
        Equally weighted standard normal points.
    marginal, b, sigma
        The copula map.
    chunk : int
        The most entries of the (points x n_points x C) array held at once.

    Returns
    -------
    ndarray (m, C)
    """
    m, C = mean.shape
    evals, evecs = np.linalg.eigh(cov)
    roots_t = (evecs * np.sqrt(np.clip(evals, 0.0, None))[:, None, :]).transpose(0, 2, 1)  # cov = roots roots'
    standard = get_marginal(marginal)
    one_hot = np.eye(C)
    out = np.empty((m, C))
    step = max(1, chunk // max(1, normals.shape[0] * C))
    for start in range(0, m, step):
        sl = slice(start, start + step)
        Z = np.matmul(normals, roots_t[sl])
        Z += mean[sl, None, :]
        with np.errstate(over="ignore", invalid="ignore"):
            F = standard.quantile_of_gaussian(Z / sigma)  # the map alone: f = b·H(z/σ)
            F *= b
            # the heaviest tails overflow far out (Student-t-inspired: f grows like exp(z²/4)); there the
            # largest z wins outright, since the map is increasing and the same for every class
            overflowed = ~np.all(np.isfinite(F), axis=2)
            F -= np.max(F, axis=2, keepdims=True)
            np.exp(F, out=F)
            F /= np.sum(F, axis=2, keepdims=True)
        if overflowed.any():
            F[overflowed] = one_hot[np.argmax(Z[overflowed], axis=1)]
        out[sl] = F.mean(axis=1)
    return out


def binary_gaussian_proba(mean, cov, *, scale):
    """Eq. (4.10) for two classes and the Gaussian marginal: p(class 1) by adaptive quadrature.

    With ``f = scale·z``, ``p₁ = E[σ(g)]`` for the logistic σ and
    ``g = f₁ − f₀ ~ N(scale·(μ₁ − μ₀), scale²·(Σ₀₀ + Σ₁₁ − 2Σ₀₁))``, a
    one-dimensional integral computed by scipy's ``quad_vec`` to an absolute
    error below 1e-10. ``p₁ > ½`` exactly when ``μ₁ > μ₀`` (σ(g) − ½ is odd).

    Parameters
    ----------
    mean : ndarray (m, 2)
    cov : ndarray (m, 2, 2)
    scale : float
        ``b / σ``, the slope of the Gaussian marginal's map.

    Returns
    -------
    ndarray (m, 2)
        ``1 − p₁`` and ``p₁``.

    Examples
    --------
    >>> mean = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> cov = np.array([np.zeros((2, 2)), np.eye(2)])
    >>> np.round(binary_gaussian_proba(mean, cov, scale=1.0), 4)   # σ(1), and ½ by symmetry
    array([[0.2689, 0.7311],
           [0.5   , 0.5   ]])
    """
    location = scale * (mean[:, 1] - mean[:, 0])
    spread = scale * np.sqrt(np.clip(cov[:, 0, 0] + cov[:, 1, 1] - 2.0 * cov[:, 0, 1], 0.0, None))
    if location.size == 0:
        return np.empty((0, 2))

    from scipy.integrate import quad_vec

    def integrand(x):
        return np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi) * expit(location + spread * x)

    p1, _ = quad_vec(integrand, -np.inf, np.inf, epsabs=1e-11, epsrel=0.0, norm="max")
    p1 = np.clip(p1, 0.0, 1.0)
    return np.stack([1.0 - p1, p1], axis=1)
