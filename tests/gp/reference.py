"""Multiclass Laplace GP classification, written from Rasmussen & Williams (2006), GPML §3.5.

A direct, slow, dense implementation of Algorithm 3.3 (the mode of the
posterior by Newton's method, with the approximate log marginal likelihood)
and Algorithm 3.4 (predictive mean, covariance and probabilities), from the
book's equations. It is the oracle that ``marginal="gaussian"`` (b = σ = 1,
where the heavy-tailed process is the Gaussian process) is checked against.

Notation (the book's, and the seed's ordering): the latent vector ``f`` has
``n·C`` entries, class-major: all n points of class 1, then class 2, ...
``y`` is the matching 0/1 vector of one-hot labels. ``K`` is block diagonal
with one n × n block per class. ``π`` is the softmax of ``f`` across classes
at every point, ``D = diag(π)``, ``Π`` the nC × n matrix of
stacked ``diag(π^c)`` and ``W = D − ΠΠᵀ`` (the negative Hessian of the log likelihood). ``R`` is the nC × n
matrix of stacked identities.

- Newton step: ``f ← (K⁻¹ + W)⁻¹ (W f + y − π)``, computed as in
  Algorithm 3.3 through ``E_c = (K_c + D_c⁻¹)⁻¹`` (from the Cholesky factor
  ``L_c`` of ``I + D_c^½ K_c D_c^½``) and the Cholesky factor ``M`` of
  ``Σ_c E_c``, which give
  ``(K⁻¹ + W)⁻¹ = K − K (E − E R (Σ_c E_c)⁻¹ Rᵀ E) K``.
- Log marginal likelihood (eq. 3.44):
  ``−½ f̂ᵀK⁻¹f̂ + yᵀf̂ − Σ_i log Σ_c exp f̂_i^c − ½ log|I + W^½ K W^½|``, with
  ``½ log|I + W^½ K W^½| = Σ_c Σ_i log L_c,ii + Σ_i log M_ii``.
- Prediction (Algorithm 3.4): ``μ*_c = k*_cᵀ (y_c − π̂_c)`` and
  ``Σ* = diag(k(x*, x*)) − Q*ᵀ (K + W⁻¹)⁻¹ Q*``, ``Q*`` the nC × C matrix with
  ``k*_c`` in block c of column c; the probabilities are the mean softmax of
  samples ``f* ~ N(μ*, Σ*)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.special import logsumexp, softmax

__all__ = ["LaplaceMode", "LaplacePrediction", "as_blocks", "one_hot", "laplace_mode", "laplace_predict"]


@dataclass(frozen=True)
class LaplaceMode:
    """The result of Algorithm 3.3."""

    f: np.ndarray  # (nC,) class-major mode f-hat
    a: np.ndarray  # (nC,) K^-1 f-hat (= y - pi at convergence)
    pi: np.ndarray  # (nC,) softmax at the mode
    log_marginal_likelihood: float  # eq. 3.44 (Algorithm 3.3's log q(y | X, theta))
    n_iter: int

    def f_by_point(self, n_classes: int) -> np.ndarray:
        """The mode as an (n, C) array (column c is the latent of class c)."""
        return self.f.reshape(n_classes, -1).T


@dataclass(frozen=True)
class LaplacePrediction:
    """The result of Algorithm 3.4 at m test points."""

    mean: np.ndarray  # (m, C) latent predictive means
    covariance: np.ndarray  # (m, C, C) latent predictive covariances
    proba: np.ndarray  # (m, C) Monte Carlo averages of the softmax


def one_hot(labels, n_classes: int) -> np.ndarray:
    """The (n, C) 0/1 matrix of integer labels 0..C-1."""
    labels = np.asarray(labels)
    Y = np.zeros((len(labels), n_classes))
    Y[np.arange(len(labels)), labels] = 1.0
    return Y


def as_blocks(K, n_classes: int) -> np.ndarray:
    """A (C, n, n) stack: one kernel block per class (a single (n, n) K is used for every class)."""
    K = np.asarray(K, dtype=float)
    if K.ndim == 2:
        K = np.broadcast_to(K, (n_classes,) + K.shape)
    return np.array(K)


def _softmax_classes(f: np.ndarray, n_classes: int) -> np.ndarray:
    """π (class-major, nC) from f (class-major, nC): the softmax over classes at every point."""
    F = f.reshape(n_classes, -1)
    return softmax(F, axis=0).ravel()


def _block_products(K_blocks: np.ndarray, v: np.ndarray) -> np.ndarray:
    """K v for the block-diagonal K."""
    C, n, _ = K_blocks.shape
    V = v.reshape(C, n)
    return np.einsum("cij,cj->ci", K_blocks, V).ravel()


def _e_and_m(K_blocks: np.ndarray, pi: np.ndarray):
    """E_c = D_c^½ (I + D_c^½ K_c D_c^½)⁻¹ D_c^½ for every class, Σ_c log L_c,ii, and M = chol(Σ_c E_c)."""
    C, n, _ = K_blocks.shape
    P = pi.reshape(C, n)
    E = np.empty_like(K_blocks)
    half_log_det = 0.0
    for c in range(C):
        d = np.sqrt(P[c])
        B = np.eye(n) + d[:, None] * K_blocks[c] * d[None, :]
        L = cholesky(B, lower=True)
        # E_c = D^½ Lᵀ \ (L \ D^½)
        E[c] = d[:, None] * cho_solve((L, True), np.diag(d))
        half_log_det += np.log(np.diag(L)).sum()
    M = cholesky(E.sum(axis=0), lower=True)
    half_log_det += np.log(np.diag(M)).sum()
    return E, M, half_log_det


def _solve_m(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(Σ_c E_c)⁻¹ v from its Cholesky factor M (lower)."""
    return solve_triangular(M, solve_triangular(M, v, lower=True), lower=True, trans="T")


def laplace_mode(K, Y, *, tol: float = 1e-12, max_iter: int = 200) -> LaplaceMode:
    """Algorithm 3.3: Newton's method for the posterior mode of multiclass Laplace GPC.

    Parameters
    ----------
    K : array (n, n) or (C, n, n)
        Kernel block(s); one block is used for every class.
    Y : array (n, C)
        One-hot labels.
    tol : float
        Stop when the objective ``Ψ(f) = −½ aᵀf + yᵀf − Σ log Σ exp f`` changes
        by less than ``tol`` (absolute) and the largest change in f is below
        ``sqrt(tol)``.
    max_iter : int
        Newton steps allowed; a RuntimeError if they do not converge.
    """
    Y = np.asarray(Y, dtype=float)
    n, C = Y.shape
    K_blocks = as_blocks(K, C)
    y = Y.T.ravel()  # class-major
    f = np.zeros(n * C)
    a = np.zeros(n * C)
    objective = -np.inf
    for iteration in range(1, max_iter + 1):
        pi = _softmax_classes(f, C)
        E, M, _ = _e_and_m(K_blocks, pi)
        # b = W f + y − π with W f = D f − Π (Πᵀ f)
        P = pi.reshape(C, n)
        F = f.reshape(C, n)
        Wf = (P * F - P * (P * F).sum(axis=0)).ravel()
        b = Wf + y - pi
        # c = E K b; a = b − c + E R (Σ E_c)⁻¹ Rᵀ c; f = K a
        Kb = _block_products(K_blocks, b)
        c_vec = _block_products(E, Kb)
        RTc = c_vec.reshape(C, n).sum(axis=0)
        correction = _block_products(E, np.tile(_solve_m(M, RTc), C))
        a_new = b - c_vec + correction
        f_new = _block_products(K_blocks, a_new)
        new_objective = -0.5 * a_new @ f_new + y @ f_new - logsumexp(f_new.reshape(C, n), axis=0).sum()
        change = np.max(np.abs(f_new - f))
        f, a = f_new, a_new
        if abs(new_objective - objective) < tol and change < np.sqrt(tol):
            objective = new_objective
            break
        objective = new_objective
    else:
        raise RuntimeError(f"Newton's method did not converge in {max_iter} steps")
    pi = _softmax_classes(f, C)
    _, _, half_log_det = _e_and_m(K_blocks, pi)
    log_q = -0.5 * a @ f + y @ f - logsumexp(f.reshape(C, n), axis=0).sum() - half_log_det
    return LaplaceMode(f=f, a=a, pi=pi, log_marginal_likelihood=float(log_q), n_iter=iteration)


def laplace_predict(
    K, Y, mode: LaplaceMode, K_star, k_star_star, *, n_samples: int = 100_000, seed: int = 0
) -> LaplacePrediction:
    """Algorithm 3.4: latent predictive mean and covariance, and probabilities by Monte Carlo.

    Parameters
    ----------
    K : array (n, n) or (C, n, n)
        Training kernel block(s).
    Y : array (n, C)
        One-hot labels.
    mode : LaplaceMode
        The output of :func:`laplace_mode` for the same K and Y.
    K_star : array (n, m) or (C, n, m)
        Kernel between training and test points, per class.
    k_star_star : array (m,) or (C, m)
        Prior variances ``k_c(x*, x*)`` at the test points, per class.
    n_samples : int
        Samples of ``f* ~ N(μ*, Σ*)`` per test point.
    seed : int
        Seed of the sampler (``numpy.random.default_rng``).
    """
    Y = np.asarray(Y, dtype=float)
    n, C = Y.shape
    K_blocks = as_blocks(K, C)
    K_star = np.asarray(K_star, dtype=float)
    if K_star.ndim == 2:
        K_star = np.broadcast_to(K_star, (C,) + K_star.shape)
    k_star_star = np.asarray(k_star_star, dtype=float)
    if k_star_star.ndim == 1:
        k_star_star = np.broadcast_to(k_star_star, (C,) + k_star_star.shape)
    m = K_star.shape[2]
    y = Y.T.ravel()
    E, M, _ = _e_and_m(K_blocks, mode.pi)
    residual = (y - mode.pi).reshape(C, n)
    mean = np.einsum("cnm,cn->mc", K_star, residual)
    # b_c = E_c k*_c (n × m); Σ*_cc' = δ_cc'(k**_c − b_cᵀ k*_c) + b_cᵀ (Σ_c E_c)⁻¹ b_c'
    B = np.einsum("cij,cjm->cim", E, K_star)
    MB = np.stack([_solve_m(M, B[c]) for c in range(C)])  # (Σ E)⁻¹ b_c
    covariance = np.einsum("cim,dim->mcd", B, MB)
    for c in range(C):
        covariance[:, c, c] += k_star_star[c] - np.einsum("im,im->m", B[c], K_star[c])
    covariance = 0.5 * (covariance + covariance.transpose(0, 2, 1))
    rng = np.random.default_rng(seed)
    proba = np.empty((m, C))
    for j in range(m):
        # Σ* may be only positive semidefinite (rounding): sample through its eigendecomposition.
        values, vectors = np.linalg.eigh(covariance[j])
        root = vectors * np.sqrt(np.clip(values, 0.0, None))
        samples = mean[j] + rng.standard_normal((n_samples, C)) @ root.T
        proba[j] = softmax(samples, axis=1).mean(axis=0)
    return LaplacePrediction(mean=mean, covariance=covariance, proba=proba)
