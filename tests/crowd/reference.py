"""Slow, plain references for the crowd kernels and exact posteriors of tiny BBMC problems."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betaln, log_ndtr


def sample_assignments(Z, projections, task, sign, pointer, alpha_over_k, uniforms, own_column=-1, near=None):
    """Eq. (3.7) entry by entry, written from the seed: prior (3.6) times the labeler's probit likelihood.
    Column ``own_column`` (the researcher's own factor) is left as it is.

    ``near`` (optional): a function of an entry's probability p of z_lb = 1 giving its uniform, written into
    ``uniforms`` (to put every uniform close to its p)."""
    Z = Z.copy()
    m, K = Z.shape
    for l in range(m):
        labelled = range(pointer[l], pointer[l + 1])
        for b in range(K):
            if b == own_column:
                continue
            others = Z[:, b].sum() - Z[l, b]
            prior_one = (others + alpha_over_k) / (m + alpha_over_k)
            weights = []
            for value in (0.0, 1.0):
                z = Z[l].copy()
                z[b] = value
                loglik = sum(log_ndtr(sign[j] * (projections[task[j]] @ z)) for j in labelled)
                weights.append(math.log(prior_one if value else 1 - prior_one) + loglik)
            p_one = 1.0 / (1.0 + math.exp(weights[0] - weights[1]))
            if near is not None:
                uniforms[l, b] = near(p_one)
            Z[l, b] = 1.0 if uniforms[l, b] < p_one else 0.0
    return Z


def swap_moves(Z, projections, task, sign, pointer, alpha_over_k, uniforms, own_column=-1, near=None):
    """For every labeler and pair a < b of factors she holds exactly one of: hold the other instead, with the
    probability of eq. (3.7) for the two entries given their sum (prior odds of the columns times the
    likelihood of her labels). Pairs with ``own_column`` are left; ``near`` as in :func:`sample_assignments`."""
    Z = Z.copy()
    m, K = Z.shape
    for l in range(m):
        labelled = range(pointer[l], pointer[l + 1])
        pair = -1
        for a in range(K):
            for b in range(a + 1, K):
                pair += 1
                if own_column in (a, b) or Z[l, a] == Z[l, b]:
                    continue
                weights = []
                for hold in (a, b):
                    z = Z[l].copy()
                    z[a], z[b] = float(hold == a), float(hold == b)
                    free = b if hold == a else a
                    others_hold = Z[:, hold].sum() - Z[l, hold]
                    others_free = Z[:, free].sum() - Z[l, free]
                    prior = (math.log((others_hold + alpha_over_k) / (m + alpha_over_k))
                             + math.log(1 - (others_free + alpha_over_k) / (m + alpha_over_k)))
                    weights.append(prior + sum(log_ndtr(sign[j] * (projections[task[j]] @ z)) for j in labelled))
                now = 0 if Z[l, a] == 1.0 else 1  # the value she holds: weights[now]
                p_move = 1.0 / (1.0 + math.exp(weights[now] - weights[1 - now]))
                if near is not None:
                    uniforms[l, pair] = near(p_move)
                if uniforms[l, pair] < p_move:
                    Z[l, a], Z[l, b] = Z[l, b], Z[l, a]
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


def precision(features, labeler, Z, sigma):
    """Eq. (3.5)'s Sigma^{-1} = I / sigma^2 + sum over labels of Z_l x_i x_i^T Z_l^T, label by label."""
    d = features.shape[1]
    K = Z.shape[1]
    out = np.eye(K * d) / sigma**2
    for x, l in zip(features, labeler):
        v = np.kron(Z[l][:, None], np.eye(d)) @ x
        out += np.outer(v, v)
    return out


def perturbed_shift(features, labeler, Z, gamma_before, gamma, sigma, x_new, l_new, sign, researcher, *,
                    precision_matrix=None):
    """E[beta_r] of the perturbed gamma step minus beta_r of the unperturbed draw, by the direct inverse.

    Written from the seed's Appendix, eq. (3.16): with the new label (x_new, l_new) appended, the step
    draws Sigma_(i',l') [Sigma^{-1} gamma^s + v (eta_1 + t')] with v = Z_{l'} x_{i'} (the old labels'
    noise and latents are those of gamma^s), and Sigma_(i',l') is the inverse of the precision (3.14)
    built label by label with Z_l = z_l kron I. t' ~ N(x_{i'}^T beta_{l'}^{s-1}, 1) truncated to the
    side of ``sign``.
    """
    K, d = gamma.shape
    blocks = {l: np.kron(Z[l][:, None], np.eye(d)) for l in (l_new, researcher)}  # Z_l: (K d, d)
    if precision_matrix is None:
        precision_matrix = precision(features, labeler, Z, sigma)
    v = blocks[l_new] @ x_new
    grown = np.linalg.inv(precision_matrix + np.outer(v, v))
    mean = x_new @ (blocks[l_new].T @ gamma_before.ravel())
    expected_t = mean + sign * math.exp(-0.5 * mean**2 - 0.5 * math.log(2 * math.pi) - log_ndtr(sign * mean))
    perturbed = grown @ (precision_matrix @ gamma.ravel() + v * expected_t)
    return blocks[researcher].T @ (perturbed - gamma.ravel())


def expected_utility(data, traces, researcher, sigma, features, task, labeler):
    """Eq. (3.13) and I = E_y[U], pair by pair and draw by draw with :func:`perturbed_shift` (no Sherman-Morrison).

    Returns (utility, p(y = +1), shift of shape (C, 2, d)).
    """
    from scipy.special import ndtr

    d = features.shape[1]
    shift = np.zeros((len(task), 2, d))
    positive = np.zeros(len(task))
    count = 0
    for gammas, assignments in traces:
        for s in range(1, gammas.shape[0]):
            full = precision(data.features, data.labeler, assignments[s - 1], sigma)
            for c, (i, l) in enumerate(zip(task, labeler)):
                for slot, sign in enumerate((-1.0, 1.0)):
                    shift[c, slot] += perturbed_shift(data.features, data.labeler, assignments[s - 1],
                                                      gammas[s - 1], gammas[s], sigma, features[i], l, sign,
                                                      researcher, precision_matrix=full)
                positive[c] += ndtr(features[i] @ (assignments[s][l] @ gammas[s]))
            count += 1
    shift /= count
    positive /= count
    norms = np.linalg.norm(shift, axis=2)
    return positive * norms[:, 1] + (1 - positive) * norms[:, 0], positive, shift


def truncated_normal(mean, uniforms):
    """N(mean, 1) truncated to (0, inf) at the given uniforms, by scipy's inverse CDF in log space."""
    from scipy.special import ndtri_exp

    return np.maximum(mean - ndtri_exp(np.log(uniforms) + log_ndtr(mean)), 0.0)


def sample_latent(features, labeler, sign, beta, uniforms):
    """Eq. (3.3) label by label, and h_l = sum of x_i t_{i,l} over each labeler's labels."""
    mean = np.einsum("nd,nd->n", features, beta[labeler])
    t = sign * truncated_normal(sign * mean, uniforms)
    h = np.zeros_like(beta)
    np.add.at(h, labeler, features * t[:, None])
    return t, h


def sample_rows(Z, projections, task, sign, pointer, rows, alpha_over_k, uniforms, own_column=-1):
    """Whole rows of Z from eq. (3.7), written from the seed: enumerate the 2^K values of the row, weigh each by
    the prior (3.6) and the labeler's probit likelihood, and pick by the inverse CDF at the row's uniform. With
    ``own_column``, only the values that hold that column are enumerated."""
    Z = Z.copy()
    m, K = Z.shape
    values = np.array([[(code >> b) & 1 for b in range(K)] for code in range(2**K)
                       if own_column < 0 or (code >> own_column) & 1], dtype=float)
    for k, l in enumerate(rows):
        others = Z.sum(axis=0) - Z[l]
        labelled = range(pointer[l], pointer[l + 1])
        log_weights = []
        for z in values:
            prior = sum(math.log(others[b] + alpha_over_k) if z[b] else math.log(m - others[b]) for b in range(K))
            loglik = sum(log_ndtr(sign[j] * (projections[task[j]] @ z)) for j in labelled)
            log_weights.append(prior + loglik)
        weights = np.exp(np.array(log_weights) - max(log_weights))
        cumulative = np.cumsum(weights) / weights.sum()
        Z[l] = values[min(int(np.searchsorted(cumulative, uniforms[k], side="right")), len(values) - 1)]
    return Z


def log_prior(Z, gamma, alpha_over_k, sigma):
    """log p(Z) + log p(gamma) up to a constant: columns of Z beta-Bernoulli (pi_b ~ Beta(alpha/K, 1)), gamma_b
    ~ N(0, sigma^2 I)."""
    m = Z.shape[0]
    counts = Z.sum(axis=0)
    return float(betaln(counts + alpha_over_k, m - counts + 1).sum() - 0.5 * (gamma**2).sum() / sigma**2)


def nesting_moves(Z, gamma, alpha_over_k, sigma, uniforms):
    """For each ordered pair (a, b): the state with b's holders moved between holding a and not, gamma_b shifted by
    gamma_a so that Z gamma stays, accepted by the whole prior's ratio (the likelihood is unchanged)."""
    Z, gamma = Z.copy(), gamma.copy()
    K = Z.shape[1]
    pairs = [(a, b) for a in range(K) for b in range(K) if a != b]
    for (a, b), u in zip(pairs, uniforms):
        holders = Z[:, b] == 1.0
        if not holders.any():
            continue
        if np.all(Z[holders, a] == 1.0):
            value, shift = 0.0, 1.0
        elif np.all(Z[holders, a] == 0.0):
            value, shift = 1.0, -1.0
        else:
            continue
        proposed_Z, proposed_gamma = Z.copy(), gamma.copy()
        proposed_Z[holders, a] = value
        proposed_gamma[b] += shift * gamma[a]
        ratio = log_prior(proposed_Z, proposed_gamma, alpha_over_k, sigma) - log_prior(Z, gamma, alpha_over_k, sigma)
        if u < math.exp(min(ratio, 0.0)):
            Z, gamma = proposed_Z, proposed_gamma
    return Z, gamma


def two_factor_posterior(x, labels_by_labeler, alpha, sigma, grid):
    """Exact posterior of (gamma, Z) for K = 2, d = 1 by enumerating Z in {0, 1}^(m x 2) and a grid over gamma.

    Returns, for every labeler, E[beta_l], E[beta_l^2] and E[z_l1 + z_l2], and for every two labelers the
    expected number of factors they share, E[z_l . z_k] as an (m, m) array (quantities that do not depend on
    the factors' order).
    """
    m = len(labels_by_labeler)
    g1, g2 = np.meshgrid(grid, grid, indexing="ij")
    gamma = np.stack([g1.ravel(), g2.ravel()])  # (2, G)
    log_prior_gamma = -0.5 * (gamma**2).sum(axis=0) / sigma**2
    rows = [np.array(r, dtype=float) for r in ((0, 0), (1, 0), (0, 1), (1, 1))]
    # log likelihood of labeler l's labels for each value of its row, on the grid
    loglik = [[sum(log_ndtr(s * x[i] * (row @ gamma)) for i, s in labels) if labels else np.zeros(gamma.shape[1])
               for row in rows] for labels in labels_by_labeler]
    log_joint, configs = [], []
    for code in range(4**m):
        choice = [(code >> (2 * l)) & 3 for l in range(m)]
        Z = np.array([rows[c] for c in choice])
        counts = Z.sum(axis=0)
        log_prior_z = float((betaln(counts + alpha / 2, m - counts + 1) - betaln(alpha / 2, 1)).sum())
        log_joint.append(log_prior_z + log_prior_gamma + sum(loglik[l][c] for l, c in enumerate(choice)))
        configs.append(Z)
    log_joint = np.array(log_joint)
    weights = np.exp(log_joint - log_joint.max())
    weights /= weights.sum()
    beta = np.einsum("clb,bg->clg", np.array(configs), gamma)  # (configs, m, G)
    first = np.einsum("cg,clg->l", weights, beta)
    second = np.einsum("cg,clg->l", weights, beta**2)
    held = np.einsum("c,cl->l", weights.sum(axis=1), np.array(configs).sum(axis=2))
    shared = np.einsum("c,clb,ckb->lk", weights.sum(axis=1), np.array(configs), np.array(configs))
    return first, second, held, shared
