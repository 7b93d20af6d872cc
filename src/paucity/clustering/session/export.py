"""What a coordinator takes away from a session: every answer in one table, and each annotator's quality.

Both read the session through its public verbs (:meth:`~paucity.clustering.ClusteringSession.answers`,
``gold_answers``, ``annotators``): :func:`export_answers` is the table of
``ClusteringSession.export``, :func:`session_quality` the figures of
``ClusteringSession.quality`` (:func:`~paucity.clustering.agreement.annotator_quality`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..agreement import SessionQuality

__all__ = ["export_answers", "session_quality"]


def export_answers(session) -> pd.DataFrame:
    """Every answer, gold answers included: i, j, value, annotator, time, gold (True for a gold pair's answer),
    gold_value (the known value, NaN otherwise), excluded (an excluded annotator's answer), adjudicated (the value
    the coordinator decided for the pair, which counts instead of the answers; NaN when none), in the order
    given."""
    answers = session.answers()
    annotators = session.annotators()
    excluded = set(annotators.loc[annotators["excluded"], "annotator"])
    real = pd.DataFrame({
        "i": answers["i"], "j": answers["j"], "value": answers["value"], "annotator": answers["source"],
        "time": answers["time"], "gold": False, "gold_value": np.nan,
        "excluded": answers["source"].isin(excluded).to_numpy(),
    })
    gold = session.gold_answers()
    marked = pd.DataFrame({
        "i": gold["i"], "j": gold["j"], "value": gold["value"], "annotator": gold["annotator"],
        "time": gold["time"], "gold": True, "gold_value": gold["gold"],
        "excluded": gold["annotator"].isin(excluded).to_numpy(),
    })
    adjudications = session.adjudications()
    decided = dict(zip(zip(adjudications["i"], adjudications["j"]), adjudications["value"]))
    real = real.assign(adjudicated=np.array([decided.get((i, j), np.nan) for i, j in zip(real["i"], real["j"])],
                                            dtype=np.float64))
    marked = marked.assign(adjudicated=np.nan)
    frames = [frame for frame in (real, marked) if len(frame)]
    if not frames:
        return real
    return pd.concat(frames, ignore_index=True).sort_values("time", kind="stable").reset_index(drop=True)


def session_quality(session) -> SessionQuality:
    """Each annotator's accuracy on gold pairs and agreement with the others, and Krippendorff's alpha."""
    from ..agreement import annotator_quality

    return annotator_quality(export_answers(session), session.annotators())
