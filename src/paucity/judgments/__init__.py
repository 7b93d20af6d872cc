"""Feature multi-selection among subjective features (seed 002, Sabato & Kalai, ICML 2013).

Which crowd-judged attributes should be bought for a new object, and how many
judgments of each, within a budget? Train on objects judged k ≥ 2 times per
attribute, choose a repeat vector r, collect judgments up to r, refit, predict.

Classes
-------
Judgments
    Judgments in long format (object, attribute, value), held without padding.
MultiSelectRegressor
    The repeat vector (Full, Scoring, Averages, Copies), the projected loss and
    the regression on judgment means.

Functions
---------
estimate_moments, scoring_objective, full_objective, make_psd
    Algorithm 1's estimates and objectives on arrays.
greedy_scoring, greedy_full, forward_selection
    The greedy runs on arrays.
"""

from .estimates import (
    Moments,
    estimate_moments,
    full_objective,
    make_psd,
    scoring_objective,
)
from .judgments import DropReport, Judgments, Ragged
from .regressor import ALGORITHMS, MultiSelectRegressor, check_labels
from .selection import GreedyPath, forward_selection, greedy_full, greedy_scoring

__all__ = [
    "ALGORITHMS",
    "DropReport",
    "GreedyPath",
    "Judgments",
    "Moments",
    "MultiSelectRegressor",
    "Ragged",
    "check_labels",
    "estimate_moments",
    "forward_selection",
    "full_objective",
    "greedy_full",
    "greedy_scoring",
    "make_psd",
    "scoring_objective",
]
