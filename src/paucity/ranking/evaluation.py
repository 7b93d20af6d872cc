"""``paucity.ranking.evaluate``: how good a set of scores is, on held-out comparisons and against the truth."""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from .._errors import InputError, InputTypeError
from . import metrics
from .comparisons import Comparisons

__all__ = ["evaluate", "RankingEvaluation"]


@dataclass(frozen=True)
class RankingEvaluation:
    """What :func:`evaluate` returns.

    Attributes
    ----------
    held_out_comparisons : int
        Number of held-out comparisons.
    held_out_error : float
        Weighted fraction of them won by the lower-scored item (ties count
        one half): :func:`~paucity.ranking.metrics.held_out_error`.
    kendall_tau_b, kendall_tau_distance, spearman_footrule, max_displacement : float or None
        Against the true scores, on the items that have one (None without
        true scores): :func:`~paucity.ranking.metrics.kendall_tau_b`,
        :func:`~paucity.ranking.metrics.kendall_tau_distance` (ties count
        one half), :func:`~paucity.ranking.metrics.spearman_footrule` and
        :func:`~paucity.ranking.metrics.max_displacement` (ties in item order).
    """

    held_out_comparisons: int
    held_out_error: float
    kendall_tau_b: float | None = None
    kendall_tau_distance: float | None = None
    spearman_footrule: float | None = None
    max_displacement: float | None = None

    def to_dict(self) -> dict:
        """The metrics that were computed, by name (those needing true scores only when given)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    def to_frame(self) -> pd.DataFrame:
        """A two-column table, ``metric`` and ``value``, one row per computed metric."""
        values = self.to_dict()
        return pd.DataFrame({"metric": list(values), "value": [float(v) for v in values.values()]})


def evaluate(scores: pd.Series, held_out: Comparisons, *, true_scores: pd.Series | None = None) -> RankingEvaluation:
    """Check scores against held-out comparisons, and against true scores when they are known.

    Parameters
    ----------
    scores : pandas.Series
        A score per item, higher is better, indexed by item label (an
        estimator's ``scores_`` or ``log_scores_``, or a score column read
        from a file).
    held_out : Comparisons
        Comparisons that were not used to compute the scores; every item they
        compare needs a score.
    true_scores : pandas.Series, optional
        True scores (higher is better) indexed by item label; every item that
        has one needs a score. The rank metrics are computed on those items.

    Returns
    -------
    RankingEvaluation
        With ``to_frame()`` (columns ``metric``, ``value``) and ``to_dict()``.

    Notes
    -----
    The held-out error is the test error of seed 000, §3.5.1; Kendall's tau-b
    is its eq. 3.10; the Kendall tau distance, Spearman's footrule and the
    largest displacement are eqs. 5.1–5.3 of seed 003.

    Examples
    --------
    >>> import pandas as pd
    >>> from paucity.ranking import Comparisons
    >>> held = Comparisons.from_winners(["a", "b", "c"], ["b", "c", "a"])
    >>> scores = pd.Series({"a": 3.0, "b": 2.0, "c": 1.0})
    >>> result = evaluate(scores, held, true_scores=pd.Series({"a": 3.0, "b": 1.0, "c": 2.0}))
    >>> round(result.held_out_error, 3), round(result.kendall_tau_b, 3)
    (0.333, 0.333)
    >>> result.to_frame()["metric"].tolist()[:3]
    ['held_out_comparisons', 'held_out_error', 'kendall_tau_b']
    """
    scores = _series(scores, "scores")
    if not isinstance(held_out, Comparisons):
        raise InputTypeError(f"held_out must be a paucity.ranking.Comparisons, got {type(held_out).__name__}.")
    held_error = metrics.held_out_error(scores, held_out)
    if true_scores is None:
        return RankingEvaluation(held_out.n_comparisons, held_error)
    truth = _series(true_scores, "true_scores")
    metrics._unique_index(scores, "scores")
    metrics._unique_index(truth, "true_scores")
    missing = truth.index.difference(scores.index, sort=False)
    if len(missing):
        raise InputError(
            f"item {missing[0]!r} has a true score but no score; score every item of true_scores "
            "(or drop it from true_scores)."
        )
    estimated = scores.loc[truth.index]
    return RankingEvaluation(
        held_out_comparisons=held_out.n_comparisons,
        held_out_error=held_error,
        kendall_tau_b=metrics.kendall_tau_b(estimated, truth),
        kendall_tau_distance=float(metrics.kendall_tau_distance(estimated, truth)),
        spearman_footrule=float(metrics.spearman_footrule(estimated, truth)),
        max_displacement=float(metrics.max_displacement(estimated, truth)),
    )


def _series(values, name: str) -> pd.Series:
    if not isinstance(values, pd.Series):
        raise InputTypeError(
            f"{name} must be a pandas Series of scores indexed by item label, got {type(values).__name__}."
        )
    return values
