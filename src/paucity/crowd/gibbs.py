"""The Gibbs sampler of BBMC's latent-feature probit model (seed 003, §3.4, eqs. 3.3-3.7).

Plain functions on validated arrays. One sweep draws, in the seed's order,

1. every latent t_{i,l} from its truncated normal (eq. 3.3);
2. the stacked factors gamma = (gamma_1, ..., gamma_K) from their Gaussian
   conditional (eqs. 3.4-3.5), through a Cholesky factor of the Kd x Kd precision;
3. every entry of Z from eq. (3.7), with the likelihood of the labeler's labels
   given gamma (the t's integrated out), so steps 3 and 1 together draw (Z, T)
   jointly given gamma; then, for every labeler and every two factors of which
   she holds one, a draw between holding that one and the other
   (``_kernels.swap_moves``), so that a group split over two factors with the same
   weights can merge and free a factor. Both settle most entries from bounds on
   the likelihood ratio (chords of log Phi) and compute the rest exactly;
4. the researcher's whole row z_r from its 2^K values given gamma and the other
   rows (eq. 3.7 for the row at once), so that her weights beta_r = Z_r^T gamma
   can move between factor configurations that single flips cannot cross (with
   hundreds of gold labels, every configuration one flip away is improbable);
5. for every ordered pair of factors (a, b), a move between nested and disjoint
   sharing that keeps every labeler's weights (``_kernels.nesting_moves``):
   a group that holds a and b drops a while gamma_b takes gamma_a in, or the
   reverse. A crowd in which two groups lean away from a rule has two such
   pictures (all hold the rule's factor and the groups add a lean, or each group
   holds a factor of its own), and the Gibbs steps cannot pass from one to the
   other: hundreds of labelers would have to change at once. The same move lets
   the researcher take or leave a shared factor while the factor she holds alone
   makes up the difference;
6. every factor the researcher holds alone, by elliptical slice draws and a move
   of its scale, with the t's integrated out (:func:`private_factor_moves`): her
   gold labels have no noise, so such a factor's scale is fixed by the prior alone,
   and steps 1-2 move it by small steps.

``gamma`` is stored as a (K, d) array whose rows are the factors gamma_b;
beta_l = sum_b z_{l,b} gamma_b is row l of ``Z @ gamma``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from ._kernels import (margin_log_likelihood, nesting_moves, sample_assignments, sample_latent as _latent_kernel,
                       sample_rows, swap_moves, truncated_normals)

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
    "private_factor_moves",
    "latent_and_sums",
    "initial_state",
    "sweep",
    "Stretch",
    "advance",
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
    """

    X: np.ndarray
    task: np.ndarray
    labeler: np.ndarray
    sign: np.ndarray
    pointer: np.ndarray
    features: np.ndarray
    gram: np.ndarray

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
    d = X.shape[1]
    gram = np.empty((n_labelers, d, d))
    with np.errstate(over="ignore", invalid="ignore"):  # features too large to square are refused by the fit
        for a in range(d):  # one column pair at a time: no (N, d, d) array
            for b in range(a, d):
                gram[:, a, b] = gram[:, b, a] = np.bincount(labeler, features[:, a] * features[:, b],
                                                            minlength=n_labelers)
    return LabelData(X, task, labeler, sign, pointer, features, gram)


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
    """Draws of N(mean, 1) truncated to (0, inf), by inverting the CDF in log space.

    With w = Phi^{-1}(u Phi(mean)) (computed from log u + log Phi(mean)), ``mean - w`` has the
    truncated law and stays accurate far in either tail.
    """
    mean = np.ascontiguousarray(mean, dtype=np.float64)
    out = np.empty_like(mean)
    truncated_normals(mean.reshape(-1), np.ascontiguousarray(uniforms, dtype=np.float64).reshape(-1),
                      out.reshape(-1))
    return out


def _uniforms(rng, size: int) -> np.ndarray:
    uniforms = rng.random(size)
    uniforms[uniforms == 0.0] = np.finfo(float).tiny
    return uniforms


def latent_and_sums(data: LabelData, gamma, Z, rng) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (3.3) for every label, and h_l = sum_i x_i t_{i,l} for every labeler (eq. 3.5's right-hand side)."""
    beta = np.ascontiguousarray(Z @ gamma)
    t = np.empty(data.task.size)
    h = np.empty((data.n_labelers, data.X.shape[1]))
    _latent_kernel(data.features, data.labeler, data.sign, beta, _uniforms(rng, t.size), t, h)
    return t, h


def sample_latent(data: LabelData, gamma, Z, rng) -> np.ndarray:
    """Eq. (3.3): t_{i,l} ~ N(x_i^T beta_l, 1) truncated to the side of 0 that y_{i,l} says."""
    return latent_and_sums(data, gamma, Z, rng)[0]


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


def factor_conditional(data: LabelData, Z, t, sigma: float, sums=None):
    """Eqs. (3.4)-(3.5): the Gaussian law of gamma given Z and T.

    Returns
    -------
    mean : (K * d,) the conditional mean Sigma * sum_{(i,l)} Z_l x_i t_{i,l}
        (the seed's eq. 3.5 writes this sum as mu; eq. 3.10 shows the Sigma factor).
    cholesky : (K * d, K * d) lower Cholesky factor C of the precision
        Sigma^{-1} = I / sigma^2 + sum_{(i,l)} Z_l x_i x_i^T Z_l^T, with Sigma^{-1} = C C^T.

    The precision is assembled labeler by labeler: sum_l (z_l z_l^T) kron G_l,
    with G_l the Gram matrix of labeler l's tasks. ``sums``, the (m, d) sums h_l = sum_i x_i t_{i,l}
    when known (:func:`latent_and_sums`), saves a pass over the labels.
    """
    K = Z.shape[1]
    d = data.X.shape[1]
    precision = factor_precision(data, Z, sigma)
    h = sums
    if h is None:
        h = np.column_stack([np.bincount(data.labeler, data.features[:, f] * t, minlength=data.n_labelers)
                             for f in range(d)])
    rhs = (Z.T @ h).reshape(K * d)
    cholesky = np.linalg.cholesky(precision)
    mean = cho_solve((cholesky, True), rhs)
    return mean, cholesky


def sample_factors(data: LabelData, Z, t, sigma: float, rng, sums=None) -> np.ndarray:
    """One draw of gamma | Z, T (eq. 3.4), as a (K, d) array."""
    mean, cholesky = factor_conditional(data, Z, t, sigma, sums)
    noise = solve_triangular(cholesky.T, rng.standard_normal(mean.size), lower=False)
    return (mean + noise).reshape(Z.shape[1], -1)


PRIVATE_MOVES = 5  # elliptical slice draws of each private factor per sweep (private_factor_moves)
SCALE_WIDTH = 0.5  # the first width of the slice over a private factor's log scale
SCALE_STEPS = 16  # at most this many widths when that slice is stepped out
SHRINK_LIMIT = 200  # a slice shrunk this often (only where the likelihood is not a number) leaves the point as it is


def _scale_draw(log_target, rng) -> float:
    """One slice-sampling draw of u from exp(log_target), starting at u = 0 (Neal 2003: stepping out, shrinking)."""
    level = log_target(0.0) - rng.standard_exponential()
    left = -SCALE_WIDTH * rng.random()
    right = left + SCALE_WIDTH
    below = int(SCALE_STEPS * rng.random())
    above = SCALE_STEPS - 1 - below
    while below > 0 and log_target(left) > level:
        left -= SCALE_WIDTH
        below -= 1
    while above > 0 and log_target(right) > level:
        right += SCALE_WIDTH
        above -= 1
    for _ in range(SHRINK_LIMIT):
        u = left + (right - left) * rng.random()
        if log_target(u) > level:
            return u
        if u < 0.0:
            left = u
        else:
            right = u
    return 0.0  # a likelihood that is not a number where the chain stands: stay


def _elliptical_draw(gamma_b, rest, features, sign, sigma: float, rng) -> np.ndarray:
    """One elliptical slice draw (Murray, Adams and MacKay 2010) of gamma_b under its N(0, sigma^2 I) prior."""
    nu = sigma * rng.standard_normal(gamma_b.size)
    own, other = features @ gamma_b, features @ nu
    level = margin_log_likelihood(rest, own, sign, 1.0) - rng.standard_exponential()
    angle = 2.0 * math.pi * rng.random()
    low, high = angle - 2.0 * math.pi, angle
    for _ in range(SHRINK_LIMIT):
        cos, sin = math.cos(angle), math.sin(angle)
        if margin_log_likelihood(rest, cos * own + sin * other, sign, 1.0) > level:
            return cos * gamma_b + sin * nu
        if angle < 0.0:
            low = angle
        else:
            high = angle
        angle = low + (high - low) * rng.random()
    return gamma_b  # as above


def private_factor_moves(data: LabelData, gamma, Z, researcher: int, sigma: float, rng) -> np.ndarray:
    """Move every factor the researcher holds alone, given Z and the other factors, with the t's integrated out.

    Such a factor gamma_b enters only her labels. When they have no noise (gold labels), they fix its direction
    but hardly its scale, and the alternation of T and gamma moves it by small steps. Each sweep therefore draws
    it ``PRIVATE_MOVES`` times by elliptical slice sampling from N(0, sigma^2 I) times the probit likelihood of
    her labels, then moves its scale: log c by slice sampling from p(c gamma_b | ...) c^d, the scale group's
    generalized Gibbs step (Liu and Sabatti 2000). Both leave p(gamma, Z | y) invariant and cost a few passes
    over her labels. Returns the new gamma (the same array when she holds no factor alone).
    """
    others = Z.sum(axis=0) - Z[researcher]
    private = np.flatnonzero((Z[researcher] == 1.0) & (others == 0.0))
    if private.size == 0:
        return gamma
    gamma = gamma.copy()
    first, last = data.pointer[researcher], data.pointer[researcher + 1]
    features, sign = data.features[first:last], data.sign[first:last]
    d = gamma.shape[1]
    for b in private:
        rest = features @ (Z[researcher] @ gamma - gamma[b])
        for _ in range(PRIVATE_MOVES):
            gamma[b] = _elliptical_draw(gamma[b], rest, features, sign, sigma, rng)
        own = features @ gamma[b]
        norm = float(gamma[b] @ gamma[b]) / (2.0 * sigma**2)

        def log_target(u, own=own, rest=rest, norm=norm):
            scale = math.exp(u)
            return d * u - scale * scale * norm + margin_log_likelihood(rest, own, sign, scale)

        gamma[b] = gamma[b] * math.exp(_scale_draw(log_target, rng))
    return gamma


def initial_state(data: LabelData, n_factors: int, sigma: float, rng, fixed_assignments=None,
                  researcher: int | None = None) -> ChainState:
    """Start: gamma from its prior N(0, sigma^2 I); every labeler shares the first factor and no other (or the fixed Z).

    One shared factor is the crowd's consensus, from which labelers split off as the sweeps go. Started
    from fair coins instead, chains of a 500-labeler crowd settled where every factor served a large group
    and the researcher none of her own, a region hundreds of log units below the one these starts reach.
    With ``researcher``, she also holds the last factor, which BBMC keeps hers alone for the first sweeps
    (``own_column`` of :func:`sweep`, all of them discarded): a chain left to find such a factor by itself
    often settled where the crowd held every factor, her weights had the crowd's scale and her gold labels
    fit them tens of log units worse, and it did not leave.
    """
    d = data.X.shape[1]
    gamma = sigma * rng.standard_normal((n_factors, d))
    if fixed_assignments is None:
        Z = np.zeros((data.n_labelers, n_factors))
        Z[:, 0] = 1.0
        if researcher is not None and n_factors > 1:
            Z[researcher, -1] = 1.0
    else:
        Z = np.array(fixed_assignments, dtype=np.float64)
    return ChainState(gamma, Z, np.zeros(data.task.size))


def sweep(data: LabelData, state: ChainState, *, alpha: float, sigma: float, rng, fix_assignments: bool,
          scratch: np.ndarray, rows=None, private: int | None = None, own_column: int = -1) -> ChainState:
    """One Gibbs sweep: T (3.3), gamma (3.4), every entry of Z (3.7), the swaps between two factors of every
    labeler, the ``rows`` of Z whole (3.7), the moves
    between nested and disjoint sharing (unless Z is fixed; none with ``own_column``'s factor), then the factors
    that row ``private`` holds alone.

    ``rows`` (int64 array, optional): rows of Z drawn from their joint conditional after the entry-by-entry
    step, 2^K values each (BBMC passes the researcher's row). ``private`` (int, optional): the row whose
    private factors :func:`private_factor_moves` moves (BBMC passes the researcher's, also when Z is fixed).
    ``own_column`` (int, default -1): a column of Z that no entry is drawn in and every drawn row holds (a
    factor reserved for the researcher; BBMC reserves one in the first sweeps of a fresh chain, see
    :func:`initial_state`). Uniforms are drawn for T, gamma's noise, Z's entries, the swaps (one per labeler and
    pair of factors), the rows, the nesting moves (one per ordered pair of factors; none of these four when Z is
    fixed) and the private moves, in that order, so a chain's draws depend only on its generator.
    """
    t, sums = latent_and_sums(data, state.gamma, state.Z, rng)
    gamma = sample_factors(data, state.Z, t, sigma, rng, sums)
    Z = state.Z
    if not fix_assignments:
        Z = Z.copy()
        m, K = Z.shape
        projections = np.ascontiguousarray(data.X @ gamma.T)
        log_prior_weight = math.log(alpha / K)
        uniforms = rng.random(Z.shape)
        sample_assignments(Z, projections, data.task, data.sign, data.pointer, log_prior_weight, uniforms, scratch,
                           own_column)
        if K > 1:
            swap_moves(Z, projections, data.task, data.sign, data.pointer, log_prior_weight,
                       rng.random((m, K * (K - 1) // 2)), scratch, own_column)
        if rows is not None and len(rows):
            sample_rows(Z, projections, data.task, data.sign, data.pointer, rows, log_prior_weight,
                        rng.random(len(rows)), np.empty(1 << K), own_column)
        if K > 1:  # gamma is this sweep's own draw: moved in place
            nesting_moves(Z, gamma, log_prior_weight, 1.0 / sigma**2, rng.random(K * (K - 1)), own_column)
    if private is not None:
        gamma = private_factor_moves(data, gamma, Z, private, sigma, rng)
    return ChainState(gamma, Z, t)


@dataclass(frozen=True)
class Stretch:
    """What consecutive sweeps of one chain yield.

    Attributes
    ----------
    beta : (n, d) the researcher's weights beta_r = Z_r^T gamma after each sweep.
    assignment_sum : (m, K) the sum of Z over the sweeps.
    weight_sum : (m, d) the sum of every labeler's beta_l = Z_l^T gamma over the sweeps.
    gammas : (k, K, d) gamma of the last k states, oldest first (k = min(n_states, n); None when 0).
    assignments : (k, m, K) the matching Z.
    state : the last state.
    """

    beta: np.ndarray
    assignment_sum: np.ndarray
    weight_sum: np.ndarray
    gammas: np.ndarray | None
    assignments: np.ndarray | None
    state: ChainState


def advance(data: LabelData, state: ChainState, rng, *, researcher: int, alpha: float, sigma: float, n_sweeps: int,
            fix_assignments: bool = False, n_states: int = 0, bar=None, own_column: int = -1) -> Stretch:
    """Run ``n_sweeps`` sweeps from ``state`` and say what they yield (see :class:`Stretch`).

    Every sweep draws the researcher's row of Z whole after its entries and swaps (unless Z is fixed), the
    :func:`sweep`'s ``rows``, makes the nesting moves (unless Z is fixed), then moves the factors she holds
    alone (``private``). ``own_column`` is handed to every sweep (a factor kept hers alone; -1 for none).
    ``bar`` (with ``advance(n)``) is told every 100 sweeps.
    """
    d = data.X.shape[1]
    scratch = np.empty((3, data.task.size))
    rows = np.array([researcher], dtype=np.int64)
    beta = np.empty((n_sweeps, d))
    assignment_sum = np.zeros_like(state.Z)
    weight_sum = np.zeros((data.n_labelers, d))
    kept = min(n_states, n_sweeps)
    gammas = np.empty((kept,) + state.gamma.shape) if kept else None
    assignments = np.empty((kept,) + state.Z.shape) if kept else None
    since = 0
    for step in range(n_sweeps):
        state = sweep(data, state, alpha=alpha, sigma=sigma, rng=rng, fix_assignments=fix_assignments,
                      scratch=scratch, rows=rows, private=researcher, own_column=own_column)
        beta[step] = state.Z[researcher] @ state.gamma
        assignment_sum += state.Z
        weight_sum += state.Z @ state.gamma
        slot = step - (n_sweeps - kept)
        if slot >= 0:
            gammas[slot], assignments[slot] = state.gamma, state.Z
        since += 1
        if bar is not None and since == 100:
            bar.advance(since)
            since = 0
    if bar is not None and since:
        bar.advance(since)
    return Stretch(beta, assignment_sum, weight_sum, gammas, assignments, state)


def run_chain(data: LabelData, *, researcher: int, n_factors: int, alpha: float, sigma: float, n_burnin: int,
              n_samples: int, thin: int, rng, state: ChainState | None = None, fixed_assignments=None,
              bar=None, n_trace: int = 0) -> Chain:
    """Run one chain: ``n_burnin`` sweeps discarded, then ``n_samples`` sweeps of which every ``thin``-th is kept.

    Parameters
    ----------
    data : LabelData
    researcher : int
        Index of the researcher's column; the draws kept are beta_r = Z_r^T gamma, and her row of Z is
        drawn whole every sweep.
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
        ``assignment_mean`` and ``weight_mean`` average every sweep after burn-in (``thin`` thins the
        draws of beta_r only).
    """
    if state is None:
        state = initial_state(data, n_factors, sigma, rng, fixed_assignments)
    common = dict(researcher=researcher, alpha=alpha, sigma=sigma, fix_assignments=fixed_assignments is not None,
                  bar=bar)
    traced = min(n_trace, n_samples)
    before = state
    if n_burnin:
        burn = advance(data, state, rng, n_sweeps=n_burnin, n_states=1, **common)
        before = burn.state
    stretch = advance(data, before, rng, n_sweeps=n_samples, n_states=traced + 1, **common)
    trace_gamma = trace_assignments = None
    if traced:
        trace_gamma, trace_assignments = stretch.gammas, stretch.assignments
        if traced == n_samples:  # the state before the first sample sweep opens the trace
            trace_gamma = np.concatenate([before.gamma[None], trace_gamma])
            trace_assignments = np.concatenate([before.Z[None], trace_assignments])
    denominator = max(n_samples, 1)
    return Chain(stretch.beta[thin - 1::thin][: n_samples // thin], stretch.assignment_sum / denominator,
                 stretch.weight_sum / denominator, stretch.state, trace_gamma, trace_assignments)
