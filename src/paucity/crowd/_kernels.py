"""Compiled inner loops of the BBMC Gibbs sampler (seed 003, §3.4).

No validation here: callers hand contiguous arrays of the right shapes. Each
kernel has a NumPy reference in ``tests/crowd/reference.py``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)


@numba.njit(cache=True)
def log_ndtr(x: float) -> float:
    """log Phi(x), accurate in both tails (log1p above 0, erfc down to -20, the asymptotic series below)."""
    if x > 0.0:
        return math.log1p(-0.5 * math.erfc(x * _SQRT_HALF))
    if x > -20.0:
        return math.log(0.5 * math.erfc(-x * _SQRT_HALF))
    # log Phi(x) = -x^2/2 - log(-x) - log sqrt(2 pi) + log(1 - 1/x^2 + 3/x^4 - 15/x^6 + 105/x^8)
    r = 1.0 / (x * x)
    series = 1.0 - r * (1.0 - r * (3.0 - r * (15.0 - r * 105.0)))
    return -0.5 * x * x - math.log(-x) - _LOG_SQRT_2PI + math.log(series)


@numba.njit(cache=True)
def sample_assignments(Z, projections, task, sign, pointer, log_prior_weight, uniforms, scratch):
    """One sweep of eq. (3.7) over every entry of Z, labeler by labeler, factor by factor, in place.

    Parameters
    ----------
    Z : float64 (m, K), 0/1, updated in place.
    projections : float64 (n, K), x_i^T gamma_b for every task and factor.
    task, sign : int64 (N,), float64 (N,): the labels, sorted by labeler.
    pointer : int64 (m + 1,): labeler l's labels are task[pointer[l]:pointer[l + 1]].
    log_prior_weight : float64, log(alpha / K), the truncated IBP's pseudo-count (eq. 3.6).
    uniforms : float64 (m, K), one uniform per entry.
    scratch : float64 (3, N), work space: the linear predictors, their log Phi, the proposed log Phi.

    The prior odds of z_lb = 1 are (m_{-l,b} + alpha/K) / (m - m_{-l,b}), with m the number of labelers.
    One of the two values of z_lb is the current one, so its log likelihood is cached and each entry
    costs one log Phi per label.
    """
    m, K = Z.shape
    counts = np.zeros(K)
    for l in range(m):
        for b in range(K):
            counts[b] += Z[l, b]
    alpha_k = math.exp(log_prior_weight)
    eta = scratch[0]
    current_log = scratch[1]
    other_log = scratch[2]
    for l in range(m):
        start, stop = pointer[l], pointer[l + 1]
        for j in range(start, stop):
            value = 0.0
            for b in range(K):
                value += Z[l, b] * projections[task[j], b]
            eta[j] = value
            current_log[j] = log_ndtr(sign[j] * value)
        for b in range(K):
            current = Z[l, b]
            delta = 1.0 - 2.0 * current  # the change of z_lb if it flips
            others = counts[b] - current
            log_odds = math.log(others + alpha_k) - math.log(m - others)
            change = 0.0
            for j in range(start, stop):
                other_log[j] = log_ndtr(sign[j] * (eta[j] + delta * projections[task[j], b]))
                change += other_log[j] - current_log[j]
            # log odds of z_lb = 1 against 0: the likelihood ratio enters with the flip's direction
            log_odds += change if current == 0.0 else -change
            if log_odds >= 0.0:
                p_one = 1.0 / (1.0 + math.exp(-log_odds))
            else:
                e = math.exp(log_odds)
                p_one = e / (1.0 + e)
            new = 1.0 if uniforms[l, b] < p_one else 0.0
            if new != current:
                for j in range(start, stop):
                    eta[j] += delta * projections[task[j], b]
                    current_log[j] = other_log[j]
                Z[l, b] = new
                counts[b] += delta


@numba.njit(cache=True)
def _truncated_means(mean: float):
    """E[t] for t ~ N(mean, 1) truncated below 0 and above 0: mean -/+ phi(mean) / Phi(-/+ mean).

    Two erfc and one exp inside |mean| < 5; beyond, log Phi keeps the far tail accurate.
    """
    if -5.0 < mean < 5.0:
        density = math.exp(-0.5 * mean * mean - _LOG_SQRT_2PI)
        below = 0.5 * math.erfc(mean * _SQRT_HALF)  # Phi(-mean)
        above = 0.5 * math.erfc(-mean * _SQRT_HALF)  # Phi(mean)
        return mean - density / below, mean + density / above
    log_density = -0.5 * mean * mean - _LOG_SQRT_2PI
    return (mean - math.exp(log_density - log_ndtr(-mean)), mean + math.exp(log_density - log_ndtr(mean)))


@numba.njit(cache=True, parallel=True)
def accumulate_shifts(task, labeler, assignments, reach, curvature, previous_margins, new_margins, current_margins,
                      shift, positive):
    """Add one draw's term of eq. (3.13) for every candidate (task, labeler) pair, both label values, in place.

    Parameters
    ----------
    task, labeler : int64 (C,), the candidate pairs (rows of the per-task arrays, rows of Z).
    assignments : float64 (m, K), Z^{s-1}.
    reach : float64 (T, K, d), row i, block b: Z_r^T Sigma[:, block b] x_i (Sigma given Z^{s-1}), so that
        Z_r^T Sigma Z_l x_i = sum_b z_{l,b} reach[i, b].
    curvature : float64 (T, K, K), x_i^T Sigma_{b,b'} x_i, so that x_i^T Z_l^T Sigma Z_l x_i = z_l^T curvature[i] z_l.
    previous_margins : float64 (T, m), x_i^T beta_l^{s-1} (the mean of the new latent t, eq. 3.3).
    new_margins : float64 (T, m), x_i^T Z_l^{s-1 T} gamma^s.
    current_margins : float64 (T, m), x_i^T beta_l^s.
    shift : float64 (C, 2, d), accumulates E[beta_r | y] - E[beta_r] for y = -1 (slot 0) and +1 (slot 1).
    positive : float64 (C,), accumulates Phi(x_i^T beta_l^s), the predictive probability of y = +1.

    Per pair the term is Z_r^T Sigma v (E[t' | y] - v^T gamma^s) / (1 + v^T Sigma v), v = Z_l x_i: the mean
    of the perturbed step (3.11) minus the unperturbed draw, with Sherman-Morrison's Sigma_(i',l') v =
    Sigma v / (1 + v^T Sigma v) and A gamma^s = Sigma v (v^T gamma^s) / (1 + v^T Sigma v).
    """
    n_pairs = task.size
    K = assignments.shape[1]
    d = reach.shape[2]
    for c in numba.prange(n_pairs):
        i = task[c]
        l = labeler[c]
        quad = 0.0
        for b in range(K):
            zb = assignments[l, b]
            if zb == 0.0:
                continue
            for b2 in range(K):
                quad += zb * assignments[l, b2] * curvature[i, b, b2]
        mean = previous_margins[i, l]
        base = new_margins[i, l]
        low, high = _truncated_means(mean)
        minus = (low - base) / (1.0 + quad)
        plus = (high - base) / (1.0 + quad)
        positive[c] += 0.5 * math.erfc(-current_margins[i, l] * _SQRT_HALF)
        for f in range(d):
            u = 0.0
            for b in range(K):
                u += assignments[l, b] * reach[i, b, f]
            shift[c, 0, f] += u * minus
            shift[c, 1, f] += u * plus
