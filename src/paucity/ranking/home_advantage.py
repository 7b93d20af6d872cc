"""BTL with a home advantage: one log-odds bonus for the item at home, estimated with the scores.

For a comparison ``(i, j)`` with ``i`` at home, ``P(i wins) = σ(v_i − v_j + h)``:
``h > 0`` is the advantage of playing at home (or of being shown first, or on
the left: whatever the first item of each comparison shares). The model is
fitted by the same Newton iteration as the tie models
(:func:`paucity.ranking.ties.fit_ties`): the v-block of the Hessian is the
Laplacian of the ordered pairs and ``h`` couples to it through one column.
"""

from __future__ import annotations

import numpy as np

from .ties import TieTable, sigmoid, softplus

__all__ = ["home_table", "home_terms"]


def home_table(home, away, y, weights, n_items: int) -> TieTable:
    """Aggregate ``(home, away, y)`` (y = 1 when the away item won) by ordered pair.

    ``low`` holds the home item and ``high`` the away item of each distinct
    ordered pair (no ordering between them); ``draws`` is zero.
    """
    home, away = np.asarray(home, dtype=np.int64), np.asarray(away, dtype=np.int64)
    y = np.asarray(y)
    weight = np.ones(len(home)) if weights is None else np.asarray(weights, dtype=np.float64)
    key = home * np.int64(n_items) + away
    order = np.argsort(key, kind="stable")
    starts = np.flatnonzero(np.r_[True, key[order][1:] != key[order][:-1]])
    away_won = y[order] == 1
    w = weight[order]
    first = order[starts]
    home_wins = np.add.reduceat(np.where(away_won, 0.0, w), starts)
    away_wins = np.add.reduceat(np.where(away_won, w, 0.0), starts)
    return TieTable(home[first], away[first], home_wins, away_wins, np.zeros(len(starts)), n_items)


def home_terms(model, table: TieTable, v: np.ndarray, h: float):
    """Loss and derivatives of BTL with home advantage, in the layout of :func:`~paucity.ranking.ties.pair_terms`.

    With ``δ = v_home − v_away + h``: loss ``home_wins·softplus(−δ) + away_wins·softplus(δ)``.
    """
    a, b = table.low_wins, table.high_wins
    delta = v[table.low] - v[table.high] + h
    loss = float(np.sum(a * softplus(-delta) + b * softplus(delta)))
    sigma = sigmoid(delta)
    d_delta = (a + b) * sigma - a
    curvature = (a + b) * sigma * (1.0 - sigma)
    return loss, d_delta, float(np.sum(d_delta)), curvature, curvature, float(np.sum(curvature))
