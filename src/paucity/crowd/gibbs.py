"""The Gibbs sampler of BBMC's latent-feature probit model (seed 003, §3.4, eqs. 3.3-3.7).

Plain functions on validated arrays. One sweep draws, in the seed's order,

1. every latent t_{i,l} from its truncated normal (eq. 3.3);
2. the stacked factors gamma = (gamma_1, ..., gamma_K) from their Gaussian
   conditional (eqs. 3.4-3.5), through a Cholesky factor of the Kd x Kd precision;
3. every entry of Z from eq. (3.7), with the likelihood of the labeler's labels
   given gamma (the t's integrated out), so steps 3 and 1 together draw (Z, T)
   jointly given gamma.

``gamma`` is stored as a (K, d) array whose rows are the factors gamma_b;
beta_l = sum_b z_{l,b} gamma_b is row l of ``Z @ gamma``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import log_ndtr, ndtri_exp

from ._kernels import sample_assignments

__all__ = [
    "LabelData",
    "ChainState",
    "Chain",
    "prepare",
    "sample_truncated_normal",
    "sample_latent",
    "factor_precision",
    "factor_conditional",
    "sample_factors",
    "run_chain",
]


@dataclass(frozen=True)
class LabelData:
    """The labels and features of one fit, laid out for the sampler.

    Attributes
    ----------
    X : (n, d) task features.
    task, labeler : (N,) int64 task and labeler index of every label, sorted by labeler.
    sign : (N,) float64, the labels y_{i,l} in {-1, +1}.
    pointer : (m + 1,) int64, labeler l's labels are ``task[pointer[l]:pointer[l + 1]]``.
    features : (N, d), x_i of every label (row ``task[j]`` of X).
    gram : (m, d, d), sum of x_i x_i^T over each labeler's tasks.
    by_labeler : (m, N) sparse 0/1, sums a per-label quantity over each labeler's labels.
    """

    X: np.ndarray
    task: np.ndarray
    labeler: np.ndarray
    sign: np.ndarray
    pointer: np.ndarray
    features: np.ndarray
    gram: np.ndarray
    by_labeler: sp.csr_matrix

    @property
    def n_labelers(self) -> int:
        return self.pointer.size - 1


def prepare(X, task, labeler, sign, n_labelers: int) -> LabelData:
    """Lay out labels (task index, labeler index, sign) and features X for :func:`run_chain`."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    order = np.lexsort((task, labeler))
    task = np.ascontiguousarray(np.asarray(task, dtype=np.int64)[order])
    labeler = np.ascontiguousarray(np.asarray(labeler, dtype=np.int64)[order])
    sign = np.ascontiguousarray(np.asarray(sign, dtype=np.float64)[order])
    pointer = np.zeros(n_labelers + 1, dtype=np.int64)
    np.cumsum(np.bincount(labeler, minlength=n_labelers), out=pointer[1:])
    features = np.ascontiguousarray(X[task])
    by_labeler = sp.csr_matrix(
        (np.ones(task.size), (labeler, np.arange(task.size))), shape=(n_labelers, task.size)
    )
    outer = np.einsum("ni,nj->nij", features, features).reshape(task.size, -1)
    gram = np.asarray(by_labeler @ outer).reshape(n_labelers, X.shape[1], X.shape[1])
    return LabelData(X, task, labeler, sign, pointer, features, gram, by_labeler)


@dataclass(frozen=True)
class ChainState:
    """Where a chain stands: factors gamma (K, d), assignments Z (m, K) of 0.0/1.0, latents t (N,)."""

    gamma: np.ndarray
    Z: np.ndarray
    t: np.ndarray


@dataclass(frozen=True)
class Chain:
    """The kept draws of one chain.

    Attributes
    ----------
    beta : (S, d) draws of the researcher's weights beta_r = Z_r^T gamma.
    assignment_mean : (m, K) posterior mean of Z over the kept draws.
    weight_mean : (m, d) posterior mean of every labeler's beta_l.
    state : the chain's last state (to continue it).
    trace_gamma : (T + 1, K, d) the factors gamma of the last T + 1 consecutive states, oldest first
        (the state before the last T sweeps, then each sweep's), for active learning (§3.5).
    trace_assignments : (T + 1, m, K) the matching Z.
    """

    beta: np.ndarray
    assignment_mean: np.ndarray
    weight_mean: np.ndarray
    state: ChainState
    trace_gamma: np.ndarray | None = None
    trace_assignments: np.ndarray | None = None


def sample_truncated_normal(mean, uniforms):
    """Draws of N(mean, 1) truncated to (0, inf), by inverting the CDF in log space (vectorized).

    With w = Phi^{-1}(u Phi(mean)) (computed as ``ndtri_exp(log u + log Phi(mean))``),
    ``mean - w`` has the truncated law and stays accurate far in either tail.
    """
    mean = np.asarray(mean, dtype=np.float64)
    w = ndtri_exp(np.log(uniforms) + log_ndtr(mean))
    return np.maximum(mean - w, 0.0)


def sample_latent(data: LabelData, gamma, Z, rng) -> np.ndarray:
    """Eq. (3.3): t_{i,l} ~ N(x_i^T beta_l, 1) truncated to the side of 0 that y_{i,l} says."""
    beta = Z @ gamma
    mean = np.einsum("nd,nd->n", data.features, beta[data.labeler])
    uniforms = rng.random(mean.size)
    uniforms[uniforms == 0.0] = np.finfo(float).tiny
    return data.sign * sample_truncated_normal(data.sign * mean, uniforms)


def factor_precision(data: LabelData, Z, sigma: float) -> np.ndarray:
    """Eq. (3.5): the precision Sigma^{-1} = I / sigma^2 + sum_{(i,l)} Z_l x_i x_i^T Z_l^T of gamma given Z and T.

    Assembled labeler by labeler: sum_l (z_l z_l^T) kron G_l, with G_l the Gram matrix of labeler l's
    tasks; a (K d, K d) array whose block (b, b') multiplies gamma_b and gamma_b'.
    """
    m, K = Z.shape
    d = data.X.shape[1]
    pair = (Z[:, :, None] * Z[:, None, :]).reshape(m, K * K)
    blocks = (pair.T @ data.gram.reshape(m, d * d)).reshape(K, K, d, d)
    precision = blocks.transpose(0, 2, 1, 3).reshape(K * d, K * d)
    precision[np.diag_indices_from(precision)] += 1.0 / sigma**2
    return precision


def factor_conditional(data: LabelData, Z, t, sigma: float):
    """Eqs. (3.4)-(3.5): the Gaussian law of gamma given Z and T.

    Returns
    -------
    mean : (K * d,) the conditional mean Sigma * sum_{(i,l)} Z_l x_i t_{i,l}
        (the seed's eq. 3.5 writes this sum as mu; eq. 3.10 shows the Sigma factor).
    cholesky : (K * d, K * d) lower Cholesky factor C of the precision
        Sigma^{-1} = I / sigma^2 + sum_{(i,l)} Z_l x_i x_i^T Z_l^T, with Sigma^{-1} = C C^T.

    The precision is assembled labeler by labeler: sum_l (z_l z_l^T) kron G_l,
    with G_l the Gram matrix of labeler l's tasks.
    """
    K = Z.shape[1]
    d = data.X.shape[1]
    precision = factor_precision(data, Z, sigma)
    h = np.asarray(data.by_labeler @ (data.features * t[:, None]))  # (m, d): sum_i x_i t_{i,l}
    rhs = (Z.T @ h).reshape(K * d)
    cholesky = np.linalg.cholesky(precision)
    mean = cho_solve((cholesky, True), rhs)
    return mean, cholesky


def sample_factors(data: LabelData, Z, t, sigma: float, rng) -> np.ndarray:
    """One draw of gamma | Z, T (eq. 3.4), as a (K, d) array."""
    mean, cholesky = factor_conditional(data, Z, t, sigma)
    noise = solve_triangular(cholesky.T, rng.standard_normal(mean.size), lower=False)
    return (mean + noise).reshape(Z.shape[1], -1)


def initial_state(data: LabelData, n_factors: int, sigma: float, rng, fixed_assignments=None) -> ChainState:
    """Start: gamma from its prior N(0, sigma^2 I), each z_{l,b} a fair coin (or the fixed Z)."""
    d = data.X.shape[1]
    gamma = sigma * rng.standard_normal((n_factors, d))
    if fixed_assignments is None:
        Z = (rng.random((data.n_labelers, n_factors)) < 0.5).astype(np.float64)
    else:
        Z = np.array(fixed_assignments, dtype=np.float64)
    return ChainState(gamma, Z, np.zeros(data.task.size))


def sweep(data: LabelData, state: ChainState, *, alpha: float, sigma: float, rng, fix_assignments: bool,
          scratch: np.ndarray) -> ChainState:
    """One Gibbs sweep: T (3.3), gamma (3.4), Z (3.7)."""
    t = sample_latent(data, state.gamma, state.Z, rng)
    gamma = sample_factors(data, state.Z, t, sigma, rng)
    Z = state.Z
    if not fix_assignments:
        Z = Z.copy()
        projections = np.ascontiguousarray(data.X @ gamma.T)
        uniforms = rng.random(Z.shape)
        sample_assignments(Z, projections, data.task, data.sign, data.pointer,
                           math.log(alpha / Z.shape[1]), uniforms, scratch)
    return ChainState(gamma, Z, t)


def run_chain(data: LabelData, *, researcher: int, n_factors: int, alpha: float, sigma: float, n_burnin: int,
              n_samples: int, thin: int, rng, state: ChainState | None = None, fixed_assignments=None,
              bar=None, n_trace: int = 0) -> Chain:
    """Run one chain: ``n_burnin`` sweeps discarded, then ``n_samples`` sweeps of which every ``thin``-th is kept.

    Parameters
    ----------
    data : LabelData
    researcher : int
        Index of the researcher's column; the draws kept are beta_r = Z_r^T gamma.
    n_factors, alpha, sigma : the truncation K, the IBP's alpha and the prior scale of gamma_b.
    n_burnin, n_samples, thin : int
    rng : numpy.random.Generator
    state : ChainState, optional
        Continue from this state instead of a fresh start.
    fixed_assignments : (m, K) array, optional
        Hold Z at this value (no Z step): the model with known sharing.
    bar : object with ``advance(n)``, optional
        Told the number of sweeps done.
    n_trace : int, default 0
        Keep gamma and Z of the last ``min(n_trace, n_samples)`` sweeps and of the state before them
        (consecutive states, whatever ``thin``), in ``Chain.trace_gamma`` and ``Chain.trace_assignments``.

    Returns
    -------
    Chain
    """
    if state is None:
        state = initial_state(data, n_factors, sigma, rng, fixed_assignments)
    fix = fixed_assignments is not None
    scratch = np.empty((3, data.task.size))
    kept = n_samples // thin
    d = data.X.shape[1]
    beta = np.empty((kept, d))
    z_sum = np.zeros_like(state.Z)
    weight_sum = np.zeros((data.n_labelers, d))
    since = 0
    total = n_burnin + n_samples
    traced = min(n_trace, n_samples)
    trace_gamma = np.empty((traced + 1,) + state.gamma.shape) if traced else None
    trace_assignments = np.empty((traced + 1,) + state.Z.shape) if traced else None
    first_traced = total - traced  # the step whose resulting state is the trace's second entry
    if traced and first_traced == 0:
        trace_gamma[0], trace_assignments[0] = state.gamma, state.Z
    for step in range(total):
        state = sweep(data, state, alpha=alpha, sigma=sigma, rng=rng, fix_assignments=fix, scratch=scratch)
        if traced and step >= first_traced - 1:
            slot = step - first_traced + 1
            trace_gamma[slot], trace_assignments[slot] = state.gamma, state.Z
        after = step - n_burnin
        if after >= 0 and (after + 1) % thin == 0 and after // thin < kept:
            row = after // thin
            beta[row] = state.Z[researcher] @ state.gamma
            z_sum += state.Z
            weight_sum += state.Z @ state.gamma
        since += 1
        if bar is not None and since == 100:
            bar.advance(since)
            since = 0
    if bar is not None and since:
        bar.advance(since)
    denominator = max(kept, 1)
    return Chain(beta, z_sum / denominator, weight_sum / denominator, state, trace_gamma, trace_assignments)
