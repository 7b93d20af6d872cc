"""What a reviewer does every day: find the pairs people disagree on, settle them, and see who worked how long.

:class:`Review` is the session's collaborator for it:

- :meth:`Review.disagreements`: the pairs answered by two or more people, with the spread of their answers;
- :meth:`Review.adjudicate`: the coordinator sets the value that counts for a pair — kept with who and when,
  the answers kept too; the active learner takes the decided value (and the last decision on a pair counts);
- :meth:`Review.work` and :meth:`Review.payments`: per annotator, answers counted, gold and excluded, their
  cost, when they were last seen and their time on task.

Times in the tables are seconds since the epoch; :func:`iso_times` writes them as ISO 8601 with the time zone
(UTC) for the files a coordinator takes away.
"""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd

from ..._errors import InputError, ParameterError
from .rules import check_annotator

__all__ = ["Review", "iso_times", "IDLE_SECONDS"]

#: A gap longer than this between two of an annotator's answers counts as a break: it adds this much, not more,
#: to their time on task.
IDLE_SECONDS = 300.0


def iso_times(frame: pd.DataFrame, columns=("time",)) -> pd.DataFrame:
    """The frame with its time columns (seconds since the epoch) as ISO 8601 text with the time zone (UTC).

    Examples
    --------
    >>> iso_times(pd.DataFrame({"time": [0.0, 1700000000.5, np.nan]}))["time"].tolist()
    ['1970-01-01T00:00:00.000+00:00', '2023-11-14T22:13:20.500+00:00', None]
    """
    frame = frame.copy()
    for column in columns:
        if column in frame.columns:
            frame[column] = pd.Series([  # a Series of dtype object keeps None (pandas 3 makes an array str, None NaN)
                None if value is None or not np.isfinite(value) else
                datetime.datetime.fromtimestamp(float(value), tz=datetime.timezone.utc).isoformat(timespec="milliseconds")
                for value in frame[column].to_numpy(dtype=np.float64)], index=frame.index, dtype=object)
    return frame


class Review:
    """The reviewer's tools on one session (``ClusteringSession`` holds one; its methods of the same names call it).

    Parameters
    ----------
    session : ClusteringSession
        Read through its public verbs (``answers``, ``annotators``, ``gold_answers``, ``settings``).
    store : MeasurementStore
    items : SessionItems
    lock : threading.RLock
    """

    def __init__(self, session, store, items, lock):
        self._session = session
        self._store = store
        self._items = items
        self._lock = lock

    # -- disagreements and adjudication ---------------------------------------------------------------------------
    def disagreements(self, *, min_annotators: int = 2) -> pd.DataFrame:
        """The pairs answered by at least ``min_annotators`` people (excluded annotators left out), most spread
        first: i, j, n_answers, n_annotators, mean, min, max, spread (max − min), answers (``"ann: 0.8; bob:
        0.1"``), and the decision that counts when the coordinator took one: adjudicated (NaN otherwise),
        adjudicated_by, adjudicated_time; given: the same answers as (annotator, value) tuples."""
        if isinstance(min_annotators, bool) or not isinstance(min_annotators, (int, np.integer)) or min_annotators < 1:
            raise ParameterError(f"min_annotators must be an integer >= 1, got {min_annotators!r}.")
        answers = self._session.answers()
        annotators = self._session.annotators()
        excluded = set(annotators.loc[annotators["excluded"], "annotator"])
        answers = answers[~answers["source"].isin(excluded)]
        decided = self.adjudications()
        columns = ["i", "j", "n_answers", "n_annotators", "mean", "min", "max", "spread", "answers", "adjudicated",
                   "adjudicated_by", "adjudicated_time", "given"]
        rows = []
        for (i, j), group in answers.groupby(["i", "j"], sort=False):
            people = group["source"].nunique()
            if people < min_annotators:
                continue
            values = group["value"].to_numpy(dtype=np.float64)
            decision = decided[(decided["i"] == i) & (decided["j"] == j)]
            rows.append({
                "i": i, "j": j, "n_answers": len(group), "n_annotators": int(people), "mean": float(values.mean()),
                "min": float(values.min()), "max": float(values.max()), "spread": float(values.max() - values.min()),
                "answers": "; ".join(f"{who}: {value:g}" for who, value in zip(group["source"], values)),
                "adjudicated": float(decision["value"].iloc[0]) if len(decision) else np.nan,
                "adjudicated_by": decision["by"].iloc[0] if len(decision) else None,
                "adjudicated_time": float(decision["time"].iloc[0]) if len(decision) else np.nan,
                "given": tuple(zip(group["source"], values.tolist())),
            })
        frame = pd.DataFrame(rows, columns=columns)
        return frame.sort_values(["spread", "n_annotators"], ascending=False, kind="stable").reset_index(drop=True)

    def adjudicate(self, i: str, j: str, value, *, by: str = "coordinator") -> None:
        """Set the value that counts for the pair (i, j), a similarity in [0, 1], or None to take the decision
        back. The pair must have been answered; its answers are kept, and every process's learner takes the
        decided value with its next verb."""
        pair = self._items.pair_of(i, j)
        who = check_annotator(by)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(value) or not 0 <= value <= 1:
                raise ParameterError(f"value must be a similarity in [0, 1] (or None to take the decision back), got "
                                     f"{value!r}.")
        with self._lock, self._store.transaction(lock=True) as connection:
            if not self._store.count_pair(*pair, connection=connection):
                raise InputError(f"the pair ({i!r}, {j!r}) has no answer yet; decide a pair once people answered it.")
            self._store.adjudications.add(connection, *pair, None if value is None else float(value), by=who)

    def adjudications(self) -> pd.DataFrame:
        """The decisions that count: i, j (item names), value, by, time (the latest decision on each pair)."""
        rows = sorted(self._store.adjudications.effective().values(), key=lambda row: row.id)
        names = np.asarray(self._items.names, dtype=object)
        return pd.DataFrame({
            "i": pd.array([names[row.i] for row in rows], dtype=object),
            "j": pd.array([names[row.j] for row in rows], dtype=object),
            "value": np.array([row.value for row in rows], dtype=np.float64),
            "by": pd.array([row.by for row in rows], dtype=object),
            "time": np.array([row.time for row in rows], dtype=np.float64),
        })

    # -- work and pay ---------------------------------------------------------------------------------------------
    def work(self) -> pd.DataFrame:
        """Per annotator (or source of answers): n_answers (counted in the clustering), n_gold, n_excluded,
        n_skips, first_seen and last_seen (their first and last answer or skip, seconds since the epoch) and
        time_on_task (seconds: the gaps between their answers and skips, each at most :data:`IDLE_SECONDS`)."""
        answers = self._session.answers()
        gold = self._session.gold_answers()
        skips = self._store.skips()
        annotators = self._session.annotators()
        excluded = set(annotators.loc[annotators["excluded"], "annotator"])
        events = pd.concat([
            pd.DataFrame({"who": answers["source"].astype(object), "time": answers["time"], "kind": "answer"}),
            pd.DataFrame({"who": gold["annotator"].astype(object), "time": gold["time"], "kind": "gold"}),
            pd.DataFrame({"who": skips["annotator"].astype(object), "time": skips["time"], "kind": "skip"}),
        ], ignore_index=True) if len(answers) + len(gold) + len(skips) else pd.DataFrame(columns=["who", "time", "kind"])
        names = sorted(set(events["who"].astype(str)) | set(annotators["annotator"].astype(str)))
        events = events.assign(who=events["who"].astype(str), time=events["time"].astype(np.float64))
        groups = dict(tuple(events.sort_values("time", kind="stable").groupby("who", sort=False)))
        rows = []
        for name in names:
            mine = groups.get(name, events.iloc[:0])
            times = mine["time"].to_numpy(dtype=np.float64)
            n_real = int((mine["kind"] == "answer").sum())
            rows.append({
                "annotator": name,
                "n_answers": 0 if name in excluded else n_real,
                "n_gold": int((mine["kind"] == "gold").sum()),
                "n_excluded": n_real if name in excluded else 0,
                "n_skips": int((mine["kind"] == "skip").sum()),
                "first_seen": float(times[0]) if len(times) else np.nan,
                "last_seen": float(times[-1]) if len(times) else np.nan,
                "time_on_task": float(np.minimum(np.diff(times), IDLE_SECONDS).sum()) if len(times) > 1 else 0.0,
            })
        return pd.DataFrame(rows, columns=["annotator", "n_answers", "n_gold", "n_excluded", "n_skips", "first_seen",
                                           "last_seen", "time_on_task"])

    def payments(self) -> pd.DataFrame:
        """What to pay each annotator: :meth:`work`'s counts, n_paid (answers, gold and excluded answers alike:
        each was asked for) and cost (n_paid times the session's ``price``), with last_seen and time_on_task."""
        work = self._session.work()
        price = self._session.settings.price
        paid = work["n_answers"] + work["n_gold"] + work["n_excluded"]
        return work.assign(n_paid=paid.astype(np.int64), cost=(paid * price).round(10))[
            ["annotator", "n_answers", "n_gold", "n_excluded", "n_paid", "cost", "last_seen", "time_on_task"]]
