"""Slow, plain references for the crowd kernels and exact posteriors of tiny BBMC problems."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betaln, log_ndtr


def sample_assignments(Z, projections, task, sign, pointer, alpha_over_k, uniforms):
    """Eq. (3.7) entry by entry, written from the seed: prior (3.6) times the labeler's probit likelihood."""
    Z = Z.copy()
    m, K = Z.shape
    for l in range(m):
        labelled = range(pointer[l], pointer[l + 1])
        for b in range(K):
            others = Z[:, b].sum() - Z[l, b]
            prior_one = (others + alpha_over_k) / (m + alpha_over_k)
            weights = []
            for value in (0.0, 1.0):
                z = Z[l].copy()
                z[b] = value
                loglik = sum(log_ndtr(sign[j] * (projections[task[j]] @ z)) for j in labelled)
                weights.append(math.log(prior_one if value else 1 - prior_one) + loglik)
            p_one = 1.0 / (1.0 + math.exp(weights[0] - weights[1]))
            Z[l, b] = 1.0 if uniforms[l, b] < p_one else 0.0
    return Z


def batch_means_se(draws, n_batches: int = 25) -> np.ndarray:
    """Monte Carlo standard error of a chain's mean by batch means (rows: draws)."""
    draws = np.asarray(draws, dtype=float)
    size = draws.shape[0] // n_batches
    means = draws[: size * n_batches].reshape(n_batches, size, *draws.shape[1:]).mean(axis=1)
    return means.std(axis=0, ddof=1) / math.sqrt(n_batches)


def probit_posterior_on_grid(X, y, sigma, grid):
    """Posterior weights of a probit regression with N(0, sigma^2 I) prior on a 2-D grid of weights."""
    g1, g2 = np.meshgrid(grid, grid, indexing="ij")
    points = np.column_stack([g1.ravel(), g2.ravel()])
    log_post = -0.5 * (points**2).sum(axis=1) / sigma**2 + log_ndtr(y[None, :] * (points @ X.T)).sum(axis=1)
    weights = np.exp(log_post - log_post.max())
    return points, weights / weights.sum()


def one_factor_posterior(x, labels_by_labeler, researcher, alpha, sigma, grid):
    """Exact posterior of (gamma, z) for K = 1, d = 1 by enumerating z in {0, 1}^m and a grid over gamma.

    labels_by_labeler: one list of (task index, sign) per labeler. Returns E[z_l] for each labeler,
    E[beta_r] and E[beta_r^2], with beta_r = z_r gamma.
    """
    m = len(labels_by_labeler)
    a = alpha  # alpha / K with K = 1
    log_prior_gamma = -0.5 * grid**2 / sigma**2
    joint = []
    configs = []
    for code in range(2**m):
        z = np.array([(code >> l) & 1 for l in range(m)], dtype=float)
        c = z.sum()
        log_prior_z = betaln(c + a, m - c + 1) - betaln(a, 1)
        loglik = np.zeros_like(grid)
        for l in range(m):
            for i, s in labels_by_labeler[l]:
                loglik += log_ndtr(s * x[i] * grid * z[l])
        joint.append(log_prior_z + log_prior_gamma + loglik)
        configs.append(z)
    joint = np.array(joint)
    weights = np.exp(joint - joint.max())
    weights /= weights.sum()
    configs = np.array(configs)
    z_mean = (weights.sum(axis=1)[:, None] * configs).sum(axis=0)
    beta = configs[:, researcher][:, None] * grid[None, :]
    return z_mean, float((weights * beta).sum()), float((weights * beta**2).sum())
