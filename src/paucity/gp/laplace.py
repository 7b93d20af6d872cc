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
factors ``A = I + L'ML`` (``K = LL'``), so ``|K||H| = |A|`` and
``H⁻¹ = L A⁻¹ L'`` never need ``K⁻¹``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.special import logsumexp

from .marginals import warp

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


class Curvature:
    """The factored matrix ``H = K⁻¹ + M`` (dense, nC x nC).

    ``M`` couples only the classes of one point: ``M_{ci,kj} = δ_ij (δ_ck m_ci −
    (1 − δ_ck) u_ci u_ki)``. Its diagonal ``m`` is passed as such (not as
    ``λ − u²``), so that ``d²π(1 − π)`` can be formed with ``1 − π_c`` summed
    from the other classes' probabilities: subtracting two nearly equal
    numbers where a class is nearly certain would make ``DWD`` indefinite.

    Parameters
    ----------
    L0 : ndarray (n, n)
        Lower Cholesky factor of the shared kernel matrix.
    diag : ndarray (C, n)
        The diagonal of M.
    u : ndarray (C, n)
        The per-point vectors of the coupling between classes.

    Attributes
    ----------
    ok : bool
        Whether H is positive definite (the Cholesky factorization of
        ``A = I + L'ML`` succeeded).
    logdet : float
        ``log|A| = log|K| + log|H|`` (when ok).
    """

    def __init__(self, L0: np.ndarray, diag: np.ndarray, u: np.ndarray):
        C, n = diag.shape
        self.L0, self.diag, self.u, self.C, self.n = L0, diag, u, C, n
        A = np.empty((C * n, C * n))
        for c in range(C):
            for k in range(c, C):
                weights = diag[c] if c == k else -u[c] * u[k]
                block = L0.T @ (weights[:, None] * L0)
                A[c * n:(c + 1) * n, k * n:(k + 1) * n] = block
                if k != c:
                    A[k * n:(k + 1) * n, c * n:(c + 1) * n] = block.T
        A[np.diag_indices_from(A)] += 1.0
        try:
            if not np.isfinite(A).all():
                raise np.linalg.LinAlgError("non-finite curvature")
            self.chol = cholesky(A, lower=True, check_finite=False)
            self.ok = True
            self.logdet = 2.0 * float(np.sum(np.log(np.diag(self.chol))))
        except np.linalg.LinAlgError:
            self.chol, self.ok, self.logdet = None, False, np.nan

    def _L(self, x):  # L x for x (C, n)
        return np.stack([self.L0 @ xc for xc in x])

    def _Lt(self, x):  # L' x
        return np.stack([self.L0.T @ xc for xc in x])

    def solve(self, x: np.ndarray) -> np.ndarray:
        """``H⁻¹ x`` for x of shape (C, n)."""
        y = cho_solve((self.chol, True), self._Lt(x).ravel(), check_finite=False)
        return self._L(y.reshape(self.C, self.n))

    def inverse(self) -> np.ndarray:
        """``H⁻¹ = L A⁻¹ L'`` as a (C, n, C, n) array."""
        C, n = self.C, self.n
        Lt = np.zeros((C * n, C * n))
        for c in range(C):
            Lt[c * n:(c + 1) * n, c * n:(c + 1) * n] = self.L0.T
        X = solve_triangular(self.chol, Lt, lower=True, check_finite=False)  # chol⁻¹ L'
        return (X.T @ X).reshape(C, n, C, n)

    def apply_M(self, G: np.ndarray) -> np.ndarray:
        """``M G`` for G of shape (C, n, ...), M acting on the leading (C, n) axes."""
        extra = (slice(None), slice(None)) + (None,) * (G.ndim - 2)
        UtG = np.einsum("ci,ci...->i...", self.u, G)
        return (self.diag + self.u**2)[extra] * G - self.u[extra] * UtG[None]


@dataclass(frozen=True)
class Mode:
    """The mode of J: ``z = K a`` (both (C, n)), the iterations run and whether it converged."""

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
    (Armijo) line search on J. Stops when the largest entry of
    ``∇J = d ⊙ (y − π) − a`` is below ``tol``, or when the step's predicted
    gain ``∇J'Δz`` is below the round-off of J (1e-14·max(1, |J|)): with an
    ill-conditioned K the gradient cannot be computed more finely.

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
    for iteration in range(1, max_iter + 1):
        w = warp(z, marginal, b=b, sigma=sigma)
        pi = softmax(w.f)
        grad = w.df * (Y - pi) - a
        grad_norm = float(np.max(np.abs(grad)))
        if not np.isfinite(grad_norm):
            raise np.linalg.LinAlgError("the mode search reached latent values where the copula map overflows")
        if grad_norm < tol:
            return Mode(z, a, obj, iteration - 1, True, grad_norm)
        u = w.df * pi
        # Newton's step where H = K⁻¹ + M is positive definite (near a maximum), else B = K⁻¹ + DWD
        dwd = w.df**2 * pi * _one_minus(pi)
        curv = Curvature(L0, dwd - w.d2f * (Y - pi), u)
        if not curv.ok:
            curv = Curvature(L0, dwd, u)
            if not curv.ok:  # only with non-finite derivatives: the latent values left the map's range
                raise np.linalg.LinAlgError("the mode search reached latent values where the copula map overflows")
        # (K⁻¹ + N) z_new = N z + d(y − π), N = M or DWD; then a_new = rhs − N z_new
        Nz = curv.apply_M(z)
        rhs = Nz + w.df * (Y - pi)
        z_new = curv.solve(rhs)
        a_new = rhs - curv.apply_M(z_new)
        da = a_new - a
        dz = _latent(L0, da)
        slope = float(np.sum(grad * dz))
        if slope <= 1e-14 * max(1.0, abs(obj)):  # a Newton step would raise J by less than its round-off
            return Mode(z, a, obj, iteration - 1, True, grad_norm)
        step = 1.0
        for _ in range(40):
            a_try, z_try = a + step * da, z + step * dz
            obj_try = _log_joint(a_try, z_try, Y, marginal, b, sigma)
            if np.isfinite(obj_try) and obj_try >= obj + 1e-4 * step * slope:
                break
            step *= 0.5
        else:
            return Mode(z, a, obj, iteration, False, grad_norm)
        a, z, obj = a_try, z_try, obj_try
    w = warp(z, marginal, b=b, sigma=sigma)
    grad_norm = float(np.max(np.abs(w.df * (Y - softmax(w.f)) - a)))
    return Mode(z, a, obj, max_iter, grad_norm < tol, grad_norm)


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
    """

    log_marginal_likelihood: float
    gradient_theta: np.ndarray | None
    gradient_log_b: float | None
    mode: Mode
    clipped: bool
    mask: np.ndarray
    curvature: Curvature


def laplace_fit(K0, Y, *, marginal, b, sigma, dK0=None, L0=None, a0=None, max_iter=100, tol=1e-6,
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
    mode = find_mode(L0, K0, Y, marginal=marginal, b=b, sigma=sigma, a0=a0, max_iter=max_iter, tol=tol)
    z, a = mode.z, mode.a
    mask = np.ones((C, n))
    w, pi, lam, u = _hessian_parts(z, Y, marginal, b, sigma, mask)
    curv = Curvature(L0, lam, u)
    clipped = False
    if not curv.ok:
        clipped = True
        mask = (w.d2f * (Y - pi) < 0).astype(float)
        w, pi, lam, u = _hessian_parts(z, Y, marginal, b, sigma, mask)
        curv = Curvature(L0, lam, u)
        if not curv.ok:
            raise np.linalg.LinAlgError("the Hessian of the log posterior is not positive definite at the mode")
    value = _log_lik(w.f, Y) - 0.5 * float(np.sum(a * z)) - 0.5 * curv.logdet
    if not gradient:
        return LaplaceFit(value, None, None, mode, clipped, mask, curv)
    G = curv.inverse()  # H⁻¹, (C, n, C, n)
    R = curv.apply_M(curv.apply_M(G).transpose(2, 3, 0, 1)).transpose(2, 3, 0, 1)  # M H⁻¹ M
    R = -R
    for c in range(C):
        R[c, np.arange(n), c, np.arange(n)] += lam[c] + u[c] ** 2
    R -= np.einsum("ci,dj,ij->cidj", u, u, np.eye(n))
    idx = np.arange(n)
    V = G[:, idx, :, idx]  # (n, C, C): the point blocks of H⁻¹
    d, e, t, f = w.df, w.d2f, w.d3f, w.f
    Vdiag = np.einsum("icc->ci", V)
    Vu = np.einsum("icd,di->ci", V, u)

    def pi_jacobian_t(weights):  # Σ_c weights_c ∂π_c/∂z_k, for every k
        return d * pi * (weights - np.sum(weights * pi, axis=0, keepdims=True))

    s = (Vdiag * (2.0 * d * e * pi - mask * t * (Y - pi)) + pi_jacobian_t(Vdiag * (d**2 + mask * e))
         - 2.0 * Vu * e * pi - 2.0 * pi_jacobian_t(Vu * d))
    Rmat = R.reshape(C * n, C * n)
    Ks = s @ K0
    r = s - (Rmat @ Ks.ravel()).reshape(C, n)
    grad_theta = None
    if dK0 is not None:
        p = dK0.shape[2]
        R_sum = sum(R[c, :, c, :] for c in range(C))
        grad_theta = np.empty(p)
        for j in range(p):
            dK = dK0[:, :, j]
            dKa = a @ dK
            grad_theta[j] = 0.5 * np.sum(a * dKa) - 0.5 * np.sum(R_sum * dK) - 0.5 * np.sum(r * dKa)
    # derivative in b
    centred_f = f - np.sum(pi * f, axis=0, keepdims=True)
    dpi_b = pi * centred_f / b
    dgrad_b = d * (Y - pi) / b - d * dpi_b
    ddiag_b = 2.0 * d**2 * pi / b + d**2 * dpi_b - mask * e * (Y - pi) / b + mask * e * dpi_b
    du_b = d * pi / b + d * dpi_b
    trace_b = float(np.sum(Vdiag * ddiag_b) - 2.0 * np.sum(Vu * du_b))
    dz_b = np.einsum("cidj,dj->ci", G, dgrad_b)
    grad_b = float(np.sum((Y - pi) * f) / b - 0.5 * trace_b - 0.5 * np.sum(s * dz_b))
    return LaplaceFit(value, grad_theta, b * grad_b, mode, clipped, mask, curv)


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
        ``k_** δ_cc' − k_*'(K⁻¹ − K⁻¹H⁻¹K⁻¹)k_*``, computed as the prior's
        conditional variance ``(k_** − ‖v‖²) δ_cc'`` with ``v = L0⁻¹k_*``,
        plus ``w_c'w_c'`` with ``w_c = chol(A)⁻¹ (e_c ⊗ v)``, since
        ``K⁻¹H⁻¹K⁻¹ = L⁻ᵀA⁻¹L⁻¹``: a sum of two positive semi-definite terms,
        with no difference of large numbers beyond the Gaussian process's own.
    """
    mean = K_star @ a.T
    C, n = a.shape
    m = K_star.shape[0]
    V = solve_triangular(curvature.L0, K_star.T, lower=True, check_finite=False)  # (n, m)
    prior = np.clip(k_star_diag - np.sum(V**2, axis=0), 0.0, None)
    W = []
    for c in range(C):
        rhs = np.zeros((C * n, m))
        rhs[c * n:(c + 1) * n] = V
        W.append(solve_triangular(curvature.chol, rhs, lower=True, check_finite=False))
    cov = np.empty((m, C, C))
    for c in range(C):
        for c2 in range(c, C):
            cov[:, c, c2] = cov[:, c2, c] = np.sum(W[c] * W[c2], axis=0)
        cov[:, c, c] += prior
    return mean, cov


def predictive_proba(mean, cov, normals, *, marginal, b, sigma, chunk=2_000_000):
    """Eq. (4.10): the average of softmax(warp(z*)) over draws of z* ~ N(mean, cov).

    Every test point uses the same standard normal draws ``normals``
    (n_samples x C), scaled by a square root of its covariance, so a point's
    probabilities do not depend on which other points are predicted with it.

    Parameters
    ----------
    mean : ndarray (m, C)
    cov : ndarray (m, C, C)
    normals : ndarray (n_samples, C)
    marginal, b, sigma
        The copula map.

    Returns
    -------
    ndarray (m, C)
    """
    m, C = mean.shape
    evals, evecs = np.linalg.eigh(cov)
    roots = evecs * np.sqrt(np.clip(evals, 0.0, None))[:, None, :]  # cov = roots roots'
    out = np.empty((m, C))
    step = max(1, chunk // max(1, normals.shape[0] * C))
    for start in range(0, m, step):
        sl = slice(start, start + step)
        Z = mean[sl, None, :] + np.einsum("mcd,sd->msc", roots[sl], normals)
        F = warp(Z, marginal, b=b, sigma=sigma).f
        P = np.exp(F - logsumexp(F, axis=2, keepdims=True))
        out[sl] = P.mean(axis=1)
    return out
