"""How good a crowd's answers are: each annotator's accuracy on gold pairs, and agreement on shared pairs.

A coordinator paying a crowd wants to know whom to trust before the answers go
into the clustering. Two measures, on the answers of a
:class:`~paucity.clustering.ClusteringSession`:

- **gold accuracy**: on pairs whose answer is known (gold pairs, mixed into
  each annotator's queue by the annotation page), the share of an annotator's
  answers within one step of the page's 0–9 scale (|answer − known| ≤ 1/9 as
  similarities), and their mean absolute difference;
- **agreement**: on pairs answered by more than one annotator (gold pairs, and
  real pairs asked again with ``repeats``), each annotator's mean absolute
  difference from the mean of the others' answers to the same pair, and
  Krippendorff's alpha for interval data over everyone (computed by the
  ``krippendorff`` package), with each annotator's alpha left out: an alpha
  that rises when one annotator is left out points at them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["SessionQuality", "annotator_quality", "interval_alpha", "gold_right", "GOLD_TOLERANCE"]

#: An answer to a gold pair is right within one step of the annotation page's 0–9 scale.
GOLD_TOLERANCE = 1 / 9


def gold_right(values, known) -> np.ndarray:
    """Which answers to gold pairs are right: within :data:`GOLD_TOLERANCE` of the known similarity.

    Examples
    --------
    >>> gold_right([8 / 9, 6 / 9], [1.0, 1.0]).tolist()
    [True, False]
    """
    errors = np.abs(np.asarray(values, dtype=np.float64) - np.asarray(known, dtype=np.float64))
    return errors <= GOLD_TOLERANCE + 1e-9  # one step of the page's scale, whatever the rounding


@dataclass(frozen=True)
class SessionQuality:
    """What :meth:`ClusteringSession.quality` returns.

    Attributes
    ----------
    annotators : pandas.DataFrame
        One row per annotator (or source of answers): annotator, state
        (``"active"``, ``"paused"``, ``"revoked"``, or empty for a source that
        is not an invited annotator), excluded, n_answers (to real pairs),
        n_gold (answers to gold pairs), gold_accuracy (share within one step,
        NaN without gold answers), gold_difference (mean |answer − known|),
        n_shared (pairs they answered that others answered too),
        difference (mean |answer − mean of the others'| on those pairs),
        alpha_without (Krippendorff's alpha of everyone else). Differences
        are similarities in [0, 1] (times 9 on the page's scale).
    alpha : float
        Krippendorff's alpha for interval data over the pairs answered by
        more than one annotator (NaN when fewer than two such answers vary).
    n_units : int
        Those pairs.
    """

    annotators: pd.DataFrame
    alpha: float
    n_units: int

    def to_frame(self) -> pd.DataFrame:
        """The per-annotator table."""
        return self.annotators.copy()

    def to_dict(self) -> dict:
        """Alpha, the number of shared pairs, and the per-annotator rows (NaN as None)."""
        rows = self.annotators.astype(object).where(self.annotators.notna(), None).to_dict("records")
        alpha = None if np.isnan(self.alpha) else float(self.alpha)
        return {"alpha": alpha, "n_units": int(self.n_units), "annotators": rows}


def interval_alpha(data: np.ndarray) -> float:
    """Krippendorff's alpha for interval data (annotators × units, NaN where not answered); NaN when undefined.

    Examples
    --------
    >>> import numpy as np
    >>> round(interval_alpha(np.array([[1.0, 2.0, 3.0, np.nan], [1.0, 2.0, 3.0, 4.0], [np.nan, 2.0, 2.0, 4.0]])), 4)
    0.9135
    >>> interval_alpha(np.array([[0.5, 0.5], [0.5, 0.5]]))  # no variation: undefined
    nan
    """
    import krippendorff

    data = np.asarray(data, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] < 2:
        return float("nan")
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    values = data[:, pairable]
    if values.shape[1] == 0 or np.nanmax(values) == np.nanmin(values):
        return float("nan")
    try:
        return float(krippendorff.alpha(reliability_data=values, level_of_measurement="interval"))
    except (ValueError, ZeroDivisionError):
        return float("nan")


def annotator_quality(answers: pd.DataFrame, states: pd.DataFrame) -> SessionQuality:
    """Gold accuracy and agreement per annotator, from a session's export.

    Parameters
    ----------
    answers : pandas.DataFrame
        As :meth:`ClusteringSession.export` gives: i, j, value, annotator,
        gold (bool), gold_value, excluded.
    states : pandas.DataFrame
        As :meth:`ClusteringSession.annotators` gives: annotator, state, excluded.

    Returns
    -------
    SessionQuality

    Examples
    --------
    >>> import pandas as pd
    >>> answers = pd.DataFrame({"i": ["a", "a", "a", "b"], "j": ["b", "b", "b", "c"],
    ...                         "value": [0.9, 0.8, 0.2, 0.5], "annotator": ["ann", "bob", "cat", "ann"],
    ...                         "gold": [True, True, True, False], "gold_value": [0.9, 0.9, 0.9, None],
    ...                         "excluded": [False] * 4})
    >>> states = pd.DataFrame({"annotator": ["ann", "bob", "cat"], "state": ["active"] * 3,
    ...                        "excluded": [False] * 3})
    >>> table = annotator_quality(answers, states).annotators.set_index("annotator")
    >>> table[["n_answers", "n_gold", "gold_accuracy", "n_shared"]]
               n_answers  n_gold  gold_accuracy  n_shared
    annotator                                            
    ann                1       1            1.0         1
    bob                0       1            1.0         1
    cat                0       1            0.0         1
    >>> round(float(table.loc["cat", "difference"]) * 9, 2)  # on the page's 0-9 scale
    5.85
    """
    names = sorted(set(answers["annotator"].astype(str)) | set(states["annotator"].astype(str)))
    state = dict(zip(states["annotator"].astype(str), states["state"].astype(str)))
    excluded = dict(zip(states["annotator"].astype(str), states["excluded"].astype(bool)))
    frame = answers.assign(annotator=answers["annotator"].astype(str), gold=answers["gold"].astype(bool))
    units = frame.assign(unit=list(zip(frame["i"], frame["j"])))
    # one value per annotator and pair (the mean when one answered a pair twice)
    table = units.groupby(["annotator", "unit"])["value"].mean().unstack("unit") if len(units) else pd.DataFrame()
    table = table.reindex(index=names)
    shared = (table.notna().sum(axis=0) >= 2).to_numpy() if len(table.columns) else np.zeros(0, dtype=bool)
    values = table.to_numpy(dtype=np.float64)[:, shared] if len(table.columns) else np.empty((len(names), 0))
    alpha = interval_alpha(values)
    rows = []
    for k, name in enumerate(names):
        mine = frame[frame["annotator"] == name]
        gold = mine[mine["gold"]]
        errors = np.abs(gold["value"].to_numpy(dtype=np.float64) - gold["gold_value"].to_numpy(dtype=np.float64))
        own = values[k] if len(values) else np.empty(0)
        others = np.delete(values, k, axis=0) if len(values) else np.empty((0, 0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean over nobody else, on a pair only they answered
            others_mean = np.nanmean(others, axis=0) if others.size else np.full(own.shape, np.nan)
        both = ~np.isnan(own) & ~np.isnan(others_mean)
        rows.append({
            "annotator": name,
            "state": state.get(name, ""),
            "excluded": bool(excluded.get(name, False)),
            "n_answers": int((~mine["gold"]).sum()),
            "n_gold": int(len(gold)),
            "gold_accuracy": float(np.mean(gold_right(gold["value"], gold["gold_value"]))) if len(errors)
            else float("nan"),
            "gold_difference": float(errors.mean()) if len(errors) else float("nan"),
            "n_shared": int(both.sum()),
            "difference": float(np.abs(own[both] - others_mean[both]).mean()) if both.any() else float("nan"),
            "alpha_without": interval_alpha(others) if len(names) > 2 else float("nan"),
        })
    columns = ["annotator", "state", "excluded", "n_answers", "n_gold", "gold_accuracy", "gold_difference",
               "n_shared", "difference", "alpha_without"]
    return SessionQuality(annotators=pd.DataFrame(rows, columns=columns), alpha=alpha, n_units=int(shared.sum()))
