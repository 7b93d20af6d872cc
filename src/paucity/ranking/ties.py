"""BTL with ties (draws): the Davidson and Rao–Kupper extensions, the tie parameter estimated.

With ``δ = v_a − v_b`` for a compared pair ``(a, b)``:

Davidson (1970)
    ``P(a wins) ∝ e^{δ/2}``, ``P(b wins) ∝ e^{−δ/2}``, ``P(tie) ∝ ν``
    (normalized by their sum): a tie is likeliest between equals, and
    ``ν = e^η > 0`` is the tie parameter.
Rao–Kupper (1967)
    ``P(a wins) = σ(δ − c)``, ``P(b wins) = σ(−δ − c)``, a tie otherwise, with
    the threshold ``c = log θ > 0`` (θ > 1 the tie parameter).

Both are fitted by Newton's method on ``(v, η)`` or ``(v, c)`` jointly,
minimizing ``−ℓ(v, ·) + (alpha/2)‖v‖²`` (the tie parameter is not
penalized); each direction solves the Schur complement
``(L − b bᵀ/h) dv = …`` by conjugate gradients, L the weighted pair
Laplacian of the v-block of the Hessian, b its coupling with the tie
parameter and h that parameter's curvature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._errors import InputError
from .base import backtracking
from .comparisons import shown_label

__all__ = ["TIE_MODELS", "TieTable", "TieResult", "tie_table", "fit_ties"]

TIE_MODELS = ("davidson", "rao-kupper")


@dataclass(frozen=True)
class TieTable:
    """Comparisons with draws aggregated by unordered pair (``low < high``)."""

    low: np.ndarray
    high: np.ndarray
    low_wins: np.ndarray
    high_wins: np.ndarray
    draws: np.ndarray
    n_items: int


@dataclass(frozen=True)
class TieResult:
    """What :func:`fit_ties` returns: centred v, the tie parameter (ν or θ) and the fit's state."""

    log_weights: np.ndarray
    tie_parameter: float
    log_likelihood: float
    gradient_norm: float
    n_iter: int
    converged: bool
    curvature: np.ndarray  # per pair: ∂²/∂δ² of the negative log-likelihood at the fit
    coupling: np.ndarray  # the Hessian's column for the tie parameter, over items
    tie_curvature: float  # its diagonal entry


def tie_table(i, j, outcome, weights, n_items: int) -> TieTable:
    """Aggregate ``(i, j, outcome)`` with outcome 0 (i won), 1 (j won) or 0.5 (a draw)."""
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    outcome = np.asarray(outcome, dtype=np.float64)
    weight = np.ones(len(i)) if weights is None else np.asarray(weights, dtype=np.float64)
    low, high = np.minimum(i, j), np.maximum(i, j)
    key = low * np.int64(n_items) + high
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    draw = outcome[order] == 0.5
    # the low item won when it was i and the outcome 0, or j and the outcome 1
    low_won = ~draw & ((i[order] == low[order]) == (outcome[order] == 0))
    high_won = ~draw & ~low_won
    w = weight[order]
    first = order[starts]
    return TieTable(
        low=low[first], high=high[first],
        low_wins=np.add.reduceat(np.where(low_won, w, 0.0), starts),
        high_wins=np.add.reduceat(np.where(high_won, w, 0.0), starts),
        draws=np.add.reduceat(np.where(draw, w, 0.0), starts),
        n_items=n_items,
    )


def softplus(x):
    """``log(1 + e^x)`` without overflow."""
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def sigmoid(x):
    """The logistic function ``1 / (1 + e^{−x})`` without overflow."""
    small = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + small), small / (1.0 + small))


def pair_terms(model: str, table: TieTable, v: np.ndarray, theta: float):
    """Loss and per-pair derivatives in δ and in the tie parameter (η = log ν, or c = log θ).

    Returns ``(loss, d_delta, d_theta, dd_delta, dd_cross, dd_theta)``: the
    loss, the derivatives of each pair's loss in δ, the summed derivative in
    the tie parameter, the second derivatives in δ and in δ and the tie
    parameter per pair, and the summed second derivative in the tie parameter.
    """
    a, b, t = table.low_wins, table.high_wins, table.draws
    delta = v[table.low] - v[table.high]
    if model == "davidson":
        logits = np.stack([delta / 2, -delta / 2, np.full_like(delta, theta)])
        top = logits.max(axis=0)
        exp = np.exp(logits - top)
        total = exp.sum(axis=0)
        q_low, q_high, q_tie = exp / total
        n = a + b + t
        loss = np.sum(-(a - b) * delta / 2 - t * theta + n * (top + np.log(total)))
        d_delta = -(a - b) / 2 + n * (q_low - q_high) / 2
        d_theta = np.sum(-t + n * q_tie)
        dd_delta = n * ((q_low + q_high) - (q_low - q_high) ** 2) / 4
        dd_cross = -n * q_tie * (q_low - q_high) / 2
        dd_theta = np.sum(n * q_tie * (1.0 - q_tie))
    else:
        c = theta
        s1, s2 = softplus(c - delta), softplus(c + delta)
        log_gap = 2 * c + np.log1p(-np.exp(-2 * c))  # log(e^{2c} − 1)
        loss = np.sum((a + t) * s1 + (b + t) * s2) - np.sum(t) * log_gap
        sig1, sig2 = sigmoid(c - delta), sigmoid(c + delta)
        w1, w2 = (a + t) * sig1 * (1 - sig1), (b + t) * sig2 * (1 - sig2)
        d_delta = -(a + t) * sig1 + (b + t) * sig2
        d_theta = np.sum((a + t) * sig1 + (b + t) * sig2) - np.sum(t) * 2.0 / (1.0 - np.exp(-2 * c))
        dd_delta = w1 + w2
        dd_cross = -w1 + w2
        e = np.exp(-2 * c)
        dd_theta = np.sum(w1 + w2) + np.sum(t) * 4.0 * e / (1.0 - e) ** 2
    return float(loss), d_delta, float(d_theta), dd_delta, dd_cross, float(dd_theta)


def _scatter(table, per_pair, n):
    return np.bincount(table.low, per_pair, minlength=n) - np.bincount(table.high, per_pair, minlength=n)


def check_tie_parameter(model: str, table: TieTable) -> None:
    """The tie parameter's estimate exists: draws and decisive results were both seen."""
    if not table.draws.sum() > 0:
        raise InputError(f"BTL(ties={model!r}) needs at least one draw (outcome 0.5) to estimate the tie parameter.")
    if not (table.low_wins.sum() + table.high_wins.sum()) > 0:
        raise InputError(f"BTL(ties={model!r}) needs at least one decisive comparison (outcome 0 or 1).")


def check_ties_connected(table: TieTable, items) -> None:
    """The unpenalized v exists: the graph of results is strongly connected.

    Each draw is an edge both ways (it bounds the pair's difference), each win an edge from loser to winner.
    """
    n = table.n_items
    up = (table.high_wins > 0) | (table.draws > 0)
    down = (table.low_wins > 0) | (table.draws > 0)
    rows = np.r_[table.low[up], table.high[down]]
    cols = np.r_[table.high[up], table.low[down]]
    graph = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    count = int(connected_components(graph, directed=True, connection="strong")[0])
    if count > 1:
        seen = np.zeros(n, dtype=bool)
        seen[table.low] = True
        seen[table.high] = True
        example = (
            f"item {shown_label(items[np.flatnonzero(~seen)[0]])} was never compared" if (~seen).any()
            else "some items never lost or drew against the rest"
        )
        raise InputError(
            f"the maximum likelihood estimate with ties does not exist: the graph of results (loser -> winner, "
            f"draws both ways) has {count} strongly connected components ({example}). Use BTL(alpha=...) with alpha > 0."
        )


def fit_ties(
    model: str, table: TieTable, *, alpha: float = 0.0, tol: float = 1e-9, max_iter: int = 100, terms=None
) -> TieResult:
    """Newton's method on ``(v, tie parameter)``; see the module docstring.

    ``terms`` replaces :func:`pair_terms` for another model with one
    parameter shared by all pairs (same signature; the parameter is then
    returned as is, not exponentiated: BTL's home advantage).

    Examples
    --------
    >>> t = tie_table([0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 1, 0.5], None, 2)   # 0 won 2, lost 1, drew 1
    >>> r = fit_ties("davidson", t)
    >>> round(float(r.log_weights[0] - r.log_weights[1]), 6), round(r.tie_parameter, 6)   # log 2, 1/√2
    (0.693147, 0.707107)
    """
    n = table.n_items
    v = np.zeros(n)
    theta = np.log(2.0) if model == "rao-kupper" else 0.0
    pair_terms_ = pair_terms if terms is None else terms

    def objective(v, theta):
        if model == "rao-kupper" and theta <= 0:
            return np.inf
        return pair_terms_(model, table, v, theta)[0] + 0.5 * alpha * (v @ v)

    def state(v, theta):
        loss, d_delta, d_theta, dd_delta, dd_cross, dd_theta = pair_terms_(model, table, v, theta)
        gradient = np.r_[_scatter(table, d_delta, n) + alpha * v, d_theta]
        return loss + 0.5 * alpha * (v @ v), gradient, dd_delta, _scatter(table, dd_cross, n), dd_theta

    loss, gradient, weights, coupling, tie_curvature = state(v, theta)
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        if np.abs(gradient).max() <= tol:
            converged, n_iter = True, n_iter - 1
            break
        direction = _newton_direction(table, weights, coupling, tie_curvature, alpha, gradient)
        decrease = gradient @ direction
        if decrease >= 0:
            direction, decrease = -gradient, -(gradient @ gradient)
        step, _ = backtracking(lambda step: objective(v + step * direction[:-1], theta + step * direction[-1]),
                               loss, decrease)
        if step is None:
            break
        v, theta = v + step * direction[:-1], theta + step * direction[-1]
        loss, gradient, weights, coupling, tie_curvature = state(v, theta)
    else:
        converged = bool(np.abs(gradient).max() <= tol)
    shift = v.mean()
    v = v - shift
    log_likelihood = -pair_terms_(model, table, v, theta)[0]
    return TieResult(
        log_weights=v, tie_parameter=float(np.exp(theta) if terms is None else theta), log_likelihood=float(log_likelihood),
        gradient_norm=float(np.abs(gradient).max()), n_iter=n_iter, converged=converged,
        curvature=weights, coupling=coupling, tie_curvature=tie_curvature,
    )


def _newton_direction(table, weights, coupling, tie_curvature, alpha, gradient):
    """Solve ``[[L + αI, b], [bᵀ, h]] d = −g`` by CG on the Schur complement of ``h``."""
    n = table.n_items
    g_v, g_t = gradient[:-1], gradient[-1]
    matrix = _laplacian(table.low, table.high, weights, alpha, n)

    def product(x):
        return matrix @ x - coupling * (coupling @ x) / tie_curvature

    rhs = -g_v + coupling * g_t / tie_curvature
    diagonal = matrix.diagonal() - coupling**2 / tie_curvature
    diagonal = np.where(diagonal > 0, diagonal, 1.0)
    d = np.zeros(n)
    residual = rhs - (rhs.mean() if alpha == 0 else 0.0)
    z = residual / diagonal
    p = z.copy()
    rz = residual @ z
    target = 1e-12 * max(np.linalg.norm(rhs), 1e-300)
    for _ in range(2000):
        if np.linalg.norm(residual) <= target:
            break
        hp = product(p)
        curvature = p @ hp
        if curvature <= 0:
            break
        step = rz / curvature
        d += step * p
        residual -= step * hp
        z = residual / diagonal
        rz_next = residual @ z
        p = z + (rz_next / rz) * p
        rz = rz_next
    if alpha == 0:
        d -= d.mean()
    d_t = (-g_t - coupling @ d) / tie_curvature
    return np.r_[d, d_t]


def _laplacian(low, high, weights, alpha, n):
    off = sp.csr_matrix((np.r_[-weights, -weights], (np.r_[low, high], np.r_[high, low])), shape=(n, n))
    degree = np.bincount(low, weights, minlength=n) + np.bincount(high, weights, minlength=n)
    return (off + sp.diags(degree + alpha)).tocsr()
