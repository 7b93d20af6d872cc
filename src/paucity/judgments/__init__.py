"""Feature multi-selection among subjective features (seed 002, Sabato & Kalai, ICML 2013).

Which crowd-judged attributes should be bought for a new object, and how many
judgments of each, within a budget? Train on objects judged k ≥ 2 times per
attribute, choose a repeat vector r, collect judgments up to r, refit, predict.

Entry point
-----------
plan
    The whole analysis in one call: the repeat vector, its projected loss,
    the judgments still to collect and, once collected, the regression; a
    :class:`MultiSelectPlan` (``to_dict()``, ``to_frame()``).

Classes
-------
Judgments
    Judgments in long format (object, attribute, value), held without padding.
MultiSelectRegressor
    The repeat vector (Full, Scoring, Averages, Copies), the projected loss and
    the regression on judgment means.

Functions
---------
estimate_moments, make_psd
    Algorithm 1's estimates on arrays (:mod:`~paucity.judgments.estimates`).
full_objective, scoring_objective, repeat_matrix, scoring_terms, full_weights, scoring_weights
    The objectives and the matrix M_r they are built on (:mod:`~paucity.judgments.objective`).
greedy_scoring, greedy_full, forward_selection
    The greedy runs on arrays (:mod:`~paucity.judgments.selection`).
"""

from .estimates import Moments, estimate_moments, make_psd
from .objective import (
    full_objective,
    full_weights,
    repeat_matrix,
    scoring_objective,
    scoring_terms,
    scoring_weights,
)
from .judgments import DropReport, Judgments, Ragged
from .plan import MultiSelectPlan, plan
from .regressor import ALGORITHMS, MultiSelectRegressor, check_labels
from .selection import GAIN_TOLERANCE, GreedyPath, forward_selection, greedy_full, greedy_scoring

__all__ = [
    "ALGORITHMS",
    "DropReport",
    "GAIN_TOLERANCE",
    "GreedyPath",
    "Judgments",
    "Moments",
    "MultiSelectPlan",
    "MultiSelectRegressor",
    "Ragged",
    "check_labels",
    "estimate_moments",
    "forward_selection",
    "full_objective",
    "full_weights",
    "greedy_full",
    "greedy_scoring",
    "make_psd",
    "plan",
    "repeat_matrix",
    "scoring_objective",
    "scoring_terms",
    "scoring_weights",
]
