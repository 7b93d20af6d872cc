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


# log Phi between knots: its chords. log Phi is concave with -1 < (log Phi)'' < 0, so on an interval of width h
# a chord lies below it by at most h^2 / 8. The slack covers rounding and log_ndtr's own error (under 1e-10
# where its lower tail switches to the asymptotic series).
CHORD_LOW = -64.0
CHORD_HIGH = 8.0
CHORD_STEP = 1.0 / 16.0
CHORD_GAP = CHORD_STEP * CHORD_STEP / 8.0 + 1e-9
_CHORD_KNOTS = int(round((CHORD_HIGH - CHORD_LOW) / CHORD_STEP)) + 1


@numba.njit(cache=True)
def chord_table() -> np.ndarray:
    """log Phi at the knots CHORD_LOW, CHORD_LOW + CHORD_STEP, ..., CHORD_HIGH."""
    table = np.empty((_CHORD_KNOTS, 2))
    for k in range(_CHORD_KNOTS):
        table[k, 0] = log_ndtr(CHORD_LOW + k * CHORD_STEP)
    for k in range(_CHORD_KNOTS - 1):
        table[k, 1] = table[k + 1, 0] - table[k, 0]
    table[_CHORD_KNOTS - 1, 1] = 0.0
    return table


@numba.njit(cache=True)
def chord_log_ndtr(x: float, table) -> float:
    """log Phi(x) to within CHORD_GAP, from below: the chord between the knots around x (log Phi itself
    below CHORD_LOW, and log Phi(CHORD_HIGH) above CHORD_HIGH, where log Phi lies in (-7e-16, 0))."""
    if x < CHORD_LOW:
        return log_ndtr(x)
    position = min((x - CHORD_LOW) * (1.0 / CHORD_STEP), _CHORD_KNOTS - 1.0)
    k = int(position)
    return table[k, 0] + (position - k) * table[k, 1]


@numba.njit(cache=True)
def _logistic(log_odds: float) -> float:
    if log_odds >= 0.0:
        return 1.0 / (1.0 + math.exp(-log_odds))
    e = math.exp(log_odds)
    return e / (1.0 + e)


@numba.njit(cache=True)
def column_counts(Z) -> np.ndarray:
    """How many labelers hold each factor: the column sums of Z."""
    m, K = Z.shape
    counts = np.zeros(K)
    for l in range(m):
        for b in range(K):
            counts[b] += Z[l, b]
    return counts


@numba.njit(cache=True)
def _predictors(Z, projections, task, sign, l, start, stop, eta, table) -> float:
    """eta_j = z_l . projections[task_j] for labeler l's labels j (into ``eta``); returns the sum of their chords."""
    K = Z.shape[1]
    chords = 0.0
    for j in range(start, stop):
        value = 0.0
        for b in range(K):
            value += Z[l, b] * projections[task[j], b]
        eta[j] = value
        chords += chord_log_ndtr(sign[j] * value, table)
    return chords


@numba.njit(cache=True, inline="always")
def _shift(projections, i, a, a_step, b, b_step) -> float:
    """a_step x_i^T gamma_a + b_step x_i^T gamma_b (the first term alone when b_step is 0)."""
    if b_step == 0.0:
        return a_step * projections[i, a]
    return a_step * projections[i, a] + b_step * projections[i, b]


@numba.njit(cache=True)
def _draw(projections, task, sign, start, stop, a, a_step, b, b_step, log_odds, direction, moves_below, u,
          current_chords, cached, eta, current_log, other_log, table):
    """One draw of whether a labeler's predictors move by a_step gamma_a + b_step gamma_b.

    p = logistic(log_odds + direction * (log likelihood after - before)); the labeler moves when u < p if
    ``moves_below``, when u >= p otherwise (so an entry keeps the seed's rule: z = 1 when u < p(z = 1)).
    The change is first bounded from chords (within n * CHORD_GAP plus rounding); when u lies outside the
    p's of both bounds the draw is settled, otherwise computed exactly, from log Phi of the current predictors
    (``current_log``, filled once when not ``cached``) and of the moved ones (``other_log``). On a move, ``eta``
    moves. Returns (moved, the chords' sum of the predictors now, whether current_log holds theirs, exact).
    """
    n_labels = stop - start
    other_chords = 0.0
    for j in range(start, stop):
        other_chords += chord_log_ndtr(sign[j] * (eta[j] + _shift(projections, task[j], a, a_step, b, b_step)), table)
    middle = log_odds + direction * (other_chords - current_chords)
    width = n_labels * CHORD_GAP + 1e-9 + 1e-15 * n_labels * (abs(current_chords) + abs(other_chords))
    exact = False
    if u > 0.0 and u < _logistic(middle - width) * (1.0 - 1e-15):
        below = True
    elif u > 0.0 and u >= _logistic(middle + width) * (1.0 + 1e-15):
        below = False
    else:
        exact = True
        if not cached:
            for j in range(start, stop):
                current_log[j] = log_ndtr(sign[j] * eta[j])
            cached = True
        change = 0.0
        for j in range(start, stop):
            other_log[j] = log_ndtr(sign[j] * (eta[j] + _shift(projections, task[j], a, a_step, b, b_step)))
            change += other_log[j] - current_log[j]
        below = u < _logistic(log_odds + direction * change)
    moved = below == moves_below
    if not moved:
        return False, current_chords, cached, exact
    for j in range(start, stop):
        eta[j] += _shift(projections, task[j], a, a_step, b, b_step)
    if exact:
        for j in range(start, stop):
            current_log[j] = other_log[j]
    else:
        cached = False
    return True, other_chords, cached, exact


@numba.njit(cache=True, nogil=True)
def sample_assignments(Z, projections, task, sign, pointer, log_prior_weight, uniforms, scratch, own_column=-1):
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
    own_column : int, default -1
        A column of Z that no entry step draws (the researcher's own factor: hers alone, always held); -1 for none.

    Returns
    -------
    int
        How many entries needed their exact log likelihood ratio (the others were settled by its bounds).

    The prior odds of z_lb = 1 are (m_{-l,b} + alpha/K) / (m - m_{-l,b}), with m the number of labelers.
    An entry is z_lb = 1 when its uniform is below p = logistic(log odds). The log likelihood ratio of the
    flip is first taken from chords of log Phi (:func:`chord_log_ndtr`, a few multiplications a label); with
    n labels each chord is at most CHORD_GAP below log Phi, so the exact ratio lies within n * CHORD_GAP
    (plus the sums' rounding) of the chords' one. When the uniform lies outside the p's of both ends, it
    settles the entry as the exact ratio would; otherwise (rarely: the entry is close to a coin) the ratio
    is computed exactly, one log Phi per label, with the current value's log likelihood cached. The draws are
    those of the exact computation.
    """
    m, K = Z.shape
    counts = column_counts(Z)
    alpha_k = math.exp(log_prior_weight)
    table = chord_table()
    eta, current_log, other_log = scratch[0], scratch[1], scratch[2]
    exact = 0
    for l in range(m):
        start, stop = pointer[l], pointer[l + 1]
        current_chords = _predictors(Z, projections, task, sign, l, start, stop, eta, table)
        cached = False  # whether current_log holds log Phi of the current predictors
        for b in range(K):
            if b == own_column:
                continue
            current = Z[l, b]
            delta = 1.0 - 2.0 * current  # the change of z_lb if it flips
            others = counts[b] - current
            log_odds = math.log(others + alpha_k) - math.log(m - others)  # of z_lb = 1 against 0
            # the likelihood ratio of the flip enters with its direction; z_lb = 1 when u < p(z_lb = 1)
            moved, current_chords, cached, settled = _draw(
                projections, task, sign, start, stop, b, delta, b, 0.0, log_odds, delta, current == 0.0,
                uniforms[l, b], current_chords, cached, eta, current_log, other_log, table)
            exact += settled
            if moved:
                Z[l, b] = 1.0 - current
                counts[b] += delta
    return exact


@numba.njit(cache=True, nogil=True)
def swap_moves(Z, projections, task, sign, pointer, log_prior_weight, uniforms, scratch, own_column=-1):
    """For every labeler and every pair of factors of which she holds exactly one, a Gibbs draw between holding
    that one and holding the other (eq. 3.7 for the two entries given their sum), in place.

    Parameters
    ----------
    Z, projections, task, sign, pointer, log_prior_weight, scratch, own_column : as in :func:`sample_assignments`
        (pairs with ``own_column`` are not drawn).
    uniforms : float64 (m, K (K - 1) / 2), one uniform per labeler and pair a < b, in the order (0, 1), (0, 2),
        ..., (1, 2), ...; a pair she holds both or neither of leaves its uniform unused.

    Returns
    -------
    int
        How many pairs needed their exact log likelihood ratio (as in :func:`sample_assignments`).

    A group split over two factors that carry the same weights cannot merge entry by entry: leaving one
    factor before taking the other (or the reverse) changes a labeler's weights, and hundreds of labels
    refuse it. The swap keeps her weights' form and lets the prior (which favours the larger factor) merge
    the group, which frees a factor. Settled from chords of log Phi where they suffice, as the entries.
    """
    m, K = Z.shape
    counts = column_counts(Z)
    alpha_k = math.exp(log_prior_weight)
    table = chord_table()
    eta, current_log, other_log = scratch[0], scratch[1], scratch[2]
    drawable = K - 1 if 0 <= own_column < K else K  # the factors a pair may take
    exact = 0
    for l in range(m):
        start, stop = pointer[l], pointer[l + 1]
        held = 0.0
        for b in range(K):
            if b != own_column:
                held += Z[l, b]
        if held == 0.0 or held == drawable:
            continue  # no pair she holds exactly one of
        current_chords = _predictors(Z, projections, task, sign, l, start, stop, eta, table)
        cached = False
        pair = -1
        for a in range(K):
            for b in range(a + 1, K):
                pair += 1
                if a == own_column or b == own_column or Z[l, a] == Z[l, b]:
                    continue
                # the holder's factor is h, the other o; the move takes o and leaves h
                h, o = (a, b) if Z[l, a] == 1.0 else (b, a)
                held_others = counts[h] - 1.0
                free_others = counts[o]
                log_odds = (math.log(free_others + alpha_k) - math.log(m - free_others)
                            - math.log(held_others + alpha_k) + math.log(m - held_others))
                moved, current_chords, cached, settled = _draw(
                    projections, task, sign, start, stop, o, 1.0, h, -1.0, log_odds, 1.0, True, uniforms[l, pair],
                    current_chords, cached, eta, current_log, other_log, table)
                exact += settled
                if moved:
                    Z[l, h] = 0.0
                    Z[l, o] = 1.0
                    counts[h] -= 1.0
                    counts[o] += 1.0
    return exact


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


# Wichura's algorithm AS 241 (PPND16, Applied Statistics 37, 1988): Phi^{-1} to about 1e-16 relative.
_CENTRAL_A = (3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3, 1.3731693765509461125e4,
              4.5921953931549871457e4, 6.7265770927008700853e4, 3.3430575583588128105e4, 2.5090809287301226727e3)
_CENTRAL_B = (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
              2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4, 5.2264952788528545610e3)
_NEAR_C = (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0, 3.64784832476320460504e0,
           1.27045825245236838258e0, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4)
_NEAR_D = (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
           1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4, 1.05075007164441684324e-9)
_FAR_E = (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0, 2.96560571828504891230e-1,
          2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7)
_FAR_F = (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
          7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15)


@numba.njit(cache=True)
def _ratio(numerator, denominator, r):
    top = 0.0
    bottom = 0.0
    for k in range(7, -1, -1):
        top = top * r + numerator[k]
        bottom = bottom * r + denominator[k]
    return top / bottom


@numba.njit(cache=True)
def ndtri_log(log_p: float) -> float:
    """Phi^{-1}(exp(log_p)) for log_p <= 0, accurate when exp(log_p) underflows (as scipy's ndtri_exp).

    AS 241 in its three regions; the tails take r = sqrt(-log q), q the smaller of p and 1 - p, straight
    from log_p. Below log_p = -700 (beyond AS 241's range) two Newton steps on log Phi refine it.
    """
    if log_p >= 0.0:
        return math.inf
    p = math.exp(log_p)
    q = p - 0.5
    if abs(q) <= 0.425:
        return q * _ratio(_CENTRAL_A, _CENTRAL_B, 0.180625 - q * q)
    log_tail = log_p if q < 0.0 else math.log(-math.expm1(log_p))
    r = math.sqrt(-log_tail)
    if r <= 5.0:
        value = _ratio(_NEAR_C, _NEAR_D, r - 1.6)
    else:
        value = _ratio(_FAR_E, _FAR_F, r - 5.0)
    if q < 0.0:
        value = -value
    if log_p < -700.0:
        for _ in range(2):
            # d log Phi(w) / dw = phi(w) / Phi(w)
            current = log_ndtr(value)
            slope = math.exp(-0.5 * value * value - _LOG_SQRT_2PI - current)
            value -= (current - log_p) / slope
    return value


@numba.njit(cache=True)
def truncated_normal(mu: float, u: float) -> float:
    """The draw of N(mu, 1) truncated to (0, inf) at uniform u: mu - Phi^{-1}(u Phi(mu)), in log space, floored at 0.

    Accurate far in either tail (mu = -40 gives a draw near 1/40, not 0 or a NaN). Where p = u Phi(mu) lies in
    AS 241's central region (most labels: their weights agree with them, mu > 0), p is formed directly and
    inverted by the central rational function, sparing the logarithms and the exponential of the log path.
    """
    if mu > -2.0:  # Phi(mu) > 0.02: p loses nothing in linear space
        q = u * (0.5 * math.erfc(-mu * _SQRT_HALF)) - 0.5
        if abs(q) <= 0.425:
            draw = mu - q * _ratio(_CENTRAL_A, _CENTRAL_B, 0.180625 - q * q)
            return draw if draw > 0.0 else 0.0
    draw = mu - ndtri_log(math.log(u) + log_ndtr(mu))
    return draw if draw > 0.0 else 0.0


@numba.njit(cache=True, nogil=True)
def truncated_normals(mean, uniforms, out):
    """:func:`truncated_normal` element by element, into ``out``."""
    for j in range(mean.size):
        out[j] = truncated_normal(mean[j], uniforms[j])


@numba.njit(cache=True, nogil=True)
def sample_latent(features, labeler, sign, beta, uniforms, t, h):
    """Eq. (3.3) for every label, in place: t_j ~ N(x^T beta_l, 1) truncated to the side of 0 that y_j says.

    Parameters
    ----------
    features : float64 (N, d), x_i of every label.
    labeler : int64 (N,), the label's row of ``beta``.
    sign : float64 (N,), y in {-1, +1}.
    beta : float64 (m, d), every labeler's weights Z gamma.
    uniforms : float64 (N,), in (0, 1).
    t : float64 (N,), the draws (out).
    h : float64 (m, d), sum of x_i t_j over each labeler's labels (out), the right-hand side of eq. (3.5).

    With mu = y x^T beta_l, t_j = y * truncated_normal(mu, u_j): one pass over the labels for both steps' needs.
    """
    n, d = features.shape
    h[:] = 0.0
    for j in range(n):
        l = labeler[j]
        mean = 0.0
        for f in range(d):
            mean += features[j, f] * beta[l, f]
        value = sign[j] * truncated_normal(sign[j] * mean, uniforms[j])
        t[j] = value
        for f in range(d):
            h[l, f] += features[j, f] * value


@numba.njit(cache=True, nogil=True)
def sample_rows(Z, projections, task, sign, pointer, rows, log_prior_weight, uniforms, log_weights, own_column=-1):
    """Draw whole rows of Z from their conditional given gamma and the other rows (eq. 3.7, jointly), in place.

    Parameters
    ----------
    Z, projections, task, sign, pointer, log_prior_weight : as in :func:`sample_assignments`.
    rows : int64 (R,), the rows to draw, one after another.
    uniforms : float64 (R,), one uniform per row.
    log_weights : float64 (2^K,), work space.
    own_column : int, default -1
        A column every drawn row holds (the researcher's own factor); -1 for none.

    Each row's 2^K values are enumerated in Gray-code order (one factor changes between neighbours, so a
    label's linear predictor costs one addition per value); the prior of a value is the product over
    factors of eq. (3.6)'s (m_{-l,b} + alpha/K) or (m - m_{-l,b}). Cost: 2^K log Phi per label of the row.
    """
    m, K = Z.shape
    n_values = 1 << K
    counts = column_counts(Z)
    alpha_k = math.exp(log_prior_weight)
    for k in range(rows.size):
        l = rows[k]
        log_weights[:] = 0.0
        for b in range(K):
            counts[b] -= Z[l, b]
        for g in range(n_values):
            value = 0.0
            for b in range(K):
                if (g >> b) & 1:
                    value += math.log(counts[b] + alpha_k)
                else:
                    value += math.log(m - counts[b])
            log_weights[g] = value
        for j in range(pointer[l], pointer[l + 1]):
            i = task[j]
            s = sign[j]
            eta = 0.0
            gray = 0
            log_weights[0] += log_ndtr(0.0)
            for step in range(1, n_values):
                b = 0
                while not (step >> b) & 1:
                    b += 1
                gray ^= 1 << b
                if (gray >> b) & 1:
                    eta += projections[i, b]
                else:
                    eta -= projections[i, b]
                log_weights[gray] += log_ndtr(s * eta)
        if own_column >= 0:
            for g in range(n_values):
                if not (g >> own_column) & 1:
                    log_weights[g] = -math.inf
        top = log_weights.max()
        total = 0.0
        for g in range(n_values):
            log_weights[g] = math.exp(log_weights[g] - top)
            total += log_weights[g]
        target = uniforms[k] * total
        chosen = n_values - 1
        running = 0.0
        for g in range(n_values):
            running += log_weights[g]
            if target < running:
                chosen = g
                break
        for b in range(K):
            Z[l, b] = float((chosen >> b) & 1)
            counts[b] += Z[l, b]


@numba.njit(cache=True, nogil=True)
def margin_log_likelihood(rest, own, sign, scale):
    """sum_j log Phi(y_j (rest_j + scale * own_j)): the log likelihood of labels whose margins are split in two."""
    total = 0.0
    for j in range(rest.size):
        total += log_ndtr(sign[j] * (rest[j] + scale * own[j]))
    return total


@numba.njit(cache=True, nogil=True)
def nesting_moves(Z, gamma, log_prior_weight, inverse_variance, uniforms, own_column=-1):
    """One Metropolis-Hastings move per ordered pair of factors (a, b) that leaves every labeler's weights as they are.

    Parameters
    ----------
    Z : float64 (m, K), 0/1, updated in place.
    gamma : float64 (K, d), the factors, updated in place.
    log_prior_weight : float64, log(alpha / K), as in :func:`sample_assignments`.
    inverse_variance : float64, 1 / sigma^2, the precision of gamma_b's prior N(0, sigma^2 I).
    uniforms : float64 (K (K - 1),), one per ordered pair, a = 0, b = 1, 2, ...; then a = 1, b = 0, 2, ...
    own_column : int, default -1
        A factor kept as it is (as in :func:`sample_assignments`): pairs with it are not moved; -1 for none.

    Returns the number of moves accepted.

    When every holder of b also holds a, the move drops a from them and adds gamma_a to gamma_b ("nested"
    to "disjoint"); when no holder of b holds a, they take a and gamma_b loses gamma_a (the reverse); otherwise,
    or when no one holds b, nothing moves. Each move is its own inverse and keeps beta_l = Z_l^T gamma for every
    labeler, so the likelihood cancels and the acceptance ratio is the prior's: N(0, sigma^2 I) of gamma_b and
    the beta-Bernoulli law of column a, whose log is lgamma(c + alpha/K) + lgamma(m - c + 1) for c holders
    (the marginal whose conditional odds eq. 3.6 gives).
    """
    m, K = Z.shape
    d = gamma.shape[1]
    alpha_k = math.exp(log_prior_weight)
    counts = column_counts(Z)
    accepted = 0
    k = 0
    for a in range(K):
        for b in range(K):
            if a == b:
                continue
            u = uniforms[k]
            k += 1
            if a == own_column or b == own_column:
                continue
            holders = 0
            both = 0
            for l in range(m):
                if Z[l, b] == 1.0:
                    holders += 1
                    if Z[l, a] == 1.0:
                        both += 1
            if holders == 0:
                continue
            if both == holders:
                direction = 1.0  # nested: b's holders drop a, gamma_b + gamma_a
            elif both == 0:
                direction = -1.0  # disjoint: b's holders take a, gamma_b - gamma_a
            else:
                continue
            dot = 0.0
            square = 0.0
            for f in range(d):
                dot += gamma[a, f] * gamma[b, f]
                square += gamma[a, f] * gamma[a, f]
            count = counts[a]
            new_count = count - direction * holders
            log_ratio = (-0.5 * inverse_variance * (2.0 * direction * dot + square)
                         + math.lgamma(new_count + alpha_k) + math.lgamma(m - new_count + 1.0)
                         - math.lgamma(count + alpha_k) - math.lgamma(m - count + 1.0))
            if log_ratio < 0.0 and u >= math.exp(log_ratio):
                continue
            value = 0.0 if direction > 0.0 else 1.0
            for l in range(m):
                if Z[l, b] == 1.0:
                    Z[l, a] = value
            for f in range(d):
                gamma[b, f] += direction * gamma[a, f]
            counts[a] = new_count
            accepted += 1
    return accepted
