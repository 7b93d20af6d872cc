"""The annotation page's state: pairs handed to people one at a time, answers into the session's database.

A session of :mod:`paucity.clustering` (:func:`~paucity.clustering.next_pairs`,
:func:`~paucity.clustering.record_answers`) chooses the pairs; this module
hands each waiting pair to one annotator at a time and records the answers
with who gave them and when.
"""

from __future__ import annotations

import numbers
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, ParameterError
from .._validation import Interval, check_parameter

__all__ = ["AnnotationSession", "Item", "SCALE", "LEASE_SECONDS", "check_annotator"]

#: The answer scale: keys 0 (not similar at all) to 9 (the same), stored as key / SCALE in [0, 1].
SCALE = 9
#: How long a pair shown to an annotator is kept for them before it may go to someone else.
LEASE_SECONDS = 600.0
#: Where the skipped pairs are kept in the session's database (its key/value table).
SKIPS_KEY = "web_skipped"
_ANNOTATOR = re.compile(r"^[\w][\w .@+-]{0,63}$")
_IMAGE_ENDINGS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")


def check_annotator(annotator) -> str:
    """An annotator id: 1 to 64 letters, digits, spaces or ``_.@+-``, starting with a letter or digit.

    Examples
    --------
    >>> from paucity.serve.annotation import check_annotator
    >>> check_annotator("alice@lab")
    'alice@lab'
    >>> check_annotator("../root")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: annotator must be 1 to 64 letters, digits, spaces or _.@+- (starting with a letter or digit), got '../root'.
    """
    if not isinstance(annotator, str) or not _ANNOTATOR.match(annotator):
        shown = annotator[:40] if isinstance(annotator, str) else annotator
        raise ParameterError(
            f"annotator must be 1 to 64 letters, digits, spaces or _.@+- (starting with a letter or digit), got {shown!r}."
        )
    return annotator.strip()


@dataclass(frozen=True)
class Item:
    """What the page shows of one item: its name, a text, and an image file under the media folder."""

    name: str
    text: str | None = None
    image: str | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "text": self.text, "image": None if self.image is None else f"media/{self.image}"}


class AnnotationSession:
    """Hand the pairs a clustering session waits for to annotators, one pair to one person at a time.

    Parameters
    ----------
    database : str or path-like
        The session's database (created with ``items`` when missing).
    items : pandas.DataFrame, optional
        The items table: the item names in ``item_column`` (default: the
        first column), optionally a ``text`` column (shown) and an ``image``
        column (a file under ``media``). Needed to start a session; when
        resuming, the names must be the session's.
    item_column : str, optional
    media : path-like, optional
        The folder of the images. With no ``image`` column, an item whose
        name is an image file in it is shown as that image.
    price : float, default=0.0
        The price of one answer, for the coordinator's cost.
    lease_seconds : float, default=600
        How long a pair shown to one annotator is kept for them.
    **settings
        ``budget``, ``batch_size``, ``strategy``, ``repeats``, ``n_clusters``,
        ``random_state``: as :func:`paucity.clustering.next_pairs`.

    Notes
    -----
    The human loop of seed 003, chapter 2: the pairs come from the session's
    active learner (IU-RED by default) in batches. Each answer is committed to
    the database, with the annotator's id as its source and the time, before
    the next pair is handed out; a pair waiting for one answer is shown to one
    annotator at a time (to as many as it waits answers for, when repeats are
    wanted), never twice to the same annotator. A restarted server reads
    everything back from the database.
    """

    def __init__(self, database, items: pd.DataFrame | None = None, *, item_column: str | None = None, media=None,
                 price: float = 0.0, lease_seconds: float = LEASE_SECONDS, **settings):
        from ..clustering import next_pairs

        self._lock = threading.RLock()
        self._database = database
        self._price = float(check_parameter(price, "price", [Interval(numbers.Real, 0, None)], owner="annotate"))
        self._lease_seconds = float(check_parameter(lease_seconds, "lease_seconds", [Interval(numbers.Real, 0, None)]))
        self._media = None if media is None else Path(media).resolve()
        if self._media is not None and not self._media.is_dir():
            raise ParameterError(f"the media folder {media} does not exist or is not a folder; give the folder of the images.")
        names = None
        if items is not None:
            items, names = self._read_items(items, item_column)
        asks = next_pairs(database, names, **settings)
        self._names = _stored_names(database)
        self._items = items if items is not None else {name: Item(name) for name in self._names}
        self._position = {name: k for k, name in enumerate(self._names)}
        self._settings = asks.settings
        self._budget = asks.budget
        self._leases: dict[tuple[int, int], dict[str, float]] = {}
        self._skipped = self._stored_skips()
        self._labels = None
        self._refresh()
        self._seen = self._answered_by()
        if any(self._seen.values()):  # a resumed session: its clustering so far, before the first new answer
            self._record(pd.DataFrame({"i": [], "j": [], "value": []}), "answers")

    # ------------------------------------------------------------------ items
    def _read_items(self, frame: pd.DataFrame, item_column):
        if not isinstance(frame, pd.DataFrame) or frame.shape[1] == 0:
            raise InputError("items must be a table with a header row and the item names in its first column.")
        column = item_column if item_column is not None else frame.columns[0]
        if column not in frame.columns:
            raise InputError(f"the items table has no column {column!r}; its columns are {list(frame.columns)[:10]}.")
        names = [str(name) for name in frame[column]]
        texts = frame["text"] if "text" in frame.columns else None
        images = frame["image"] if "image" in frame.columns else None
        items = {}
        for k, name in enumerate(names):
            text = None if texts is None or pd.isna(texts.iloc[k]) else str(texts.iloc[k])
            image = None
            if images is not None and not pd.isna(images.iloc[k]):
                image = self._media_file(str(images.iloc[k]), row=k + 1)
            elif images is None and self._media is not None and name.lower().endswith(_IMAGE_ENDINGS):
                if (self._media / name).is_file():
                    image = self._media_file(name, row=k + 1)
            items[name] = Item(name, text, image)
        return items, names

    def _media_file(self, name: str, *, row: int) -> str:
        if self._media is None:
            raise ParameterError("the items table has an image column but no media folder was given; give --media.")
        path = (self._media / name).resolve()
        if not path.is_relative_to(self._media) or not path.is_file():
            raise InputError(f"items row {row}: the image {name!r} is not a file inside the media folder {self._media}.")
        return path.relative_to(self._media).as_posix()

    def media_path(self, name: str) -> Path | None:
        """The file of ``media/<name>`` when an item shows it, else None (nothing else is served)."""
        if self._media is None:
            return None
        shown = {item.image for item in self._items.values() if item.image is not None}
        if name not in shown:
            return None
        return self._media / name

    # --------------------------------------------------------------- handing out
    def next_pair(self, annotator: str) -> dict:
        """The pair for ``annotator`` to answer now, or why there is none.

        Returns
        -------
        dict
            ``{"pair": {"i": item, "j": item}, "status": "pair"}``, or
            ``{"pair": None, "status": "waiting"}`` (every waiting pair is
            with another annotator; ask again soon), or ``"done"`` (the budget
            is spent).
        """
        from ..clustering import next_pairs

        annotator = check_annotator(annotator)
        with self._lock:
            key = self._free_for(annotator)
            if key is None:
                asks = next_pairs(self._database)
                self._refresh()
                key = self._free_for(annotator)
                if key is None:
                    status = "done" if asks.spent else "waiting"
                    return {"pair": None, "status": status, **self._mine(annotator)}
            self._leases.setdefault(key, {})[annotator] = time.monotonic() + self._lease_seconds
            i, j = key
            return {
                "pair": {"i": self._items[self._names[i]].to_dict(), "j": self._items[self._names[j]].to_dict()},
                "status": "pair",
                **self._mine(annotator),
            }

    def answer(self, annotator: str, i: str, j: str, value) -> dict:
        """Record ``annotator``'s answer ``value`` (0 to 9) for the pair (i, j); returns the next pair.

        The answer is committed to the database before this returns.
        """
        annotator = check_annotator(annotator)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= SCALE:
            raise ParameterError(f"value must be a whole number from 0 (not similar) to {SCALE} (the same), got {value!r}.")
        with self._lock:
            key = self._held(annotator, i, j)
            frame = pd.DataFrame({"i": [self._names[key[0]]], "j": [self._names[key[1]]], "value": [value / SCALE]})
            self._record(frame, annotator)
            self._leases.get(key, {}).pop(annotator, None)
            self._seen.setdefault(annotator, set()).add(key)
            self._refresh()
        return self.next_pair(annotator)

    def skip(self, annotator: str, i: str, j: str) -> dict:
        """Give the pair back unanswered: another annotator gets it, this one not again. Returns the next pair."""
        annotator = check_annotator(annotator)
        with self._lock:
            key = self._held(annotator, i, j)
            self._leases.get(key, {}).pop(annotator, None)
            self._skipped.setdefault(annotator, set()).add(key)
            self._store_skips()
        return self.next_pair(annotator)

    def release(self, annotator: str) -> None:
        """Give back, unanswered and not skipped, the pair shown to ``annotator`` (who closed the page)."""
        annotator = check_annotator(annotator)
        with self._lock:
            for holders in self._leases.values():
                holders.pop(annotator, None)

    # --------------------------------------------------------------- coordinator
    def progress(self, n_recent: int = 20) -> dict:
        """What the coordinator sees: answers so far (in all, per annotator, the latest), cost, pending, clusters."""
        from ..clustering import MeasurementStore

        with self._lock:
            store = MeasurementStore(self._database)
            try:
                measured = store.measurements()
            finally:
                store.close()
            now = time.monotonic()
            out_now = sum(1 for holders in self._leases.values() for t in holders.values() if t > now)
            per = measured.groupby("source").size().sort_index() if len(measured) else pd.Series(dtype=int)
            recent = measured.tail(n_recent).iloc[::-1]
            labels = self._clusters()
            return {
                "n_items": len(self._names),
                "n_answers": int(len(measured)),
                "budget": int(self._budget),
                "n_pending": int(len(self._pending)),
                "n_shown_now": int(out_now),
                "price": self._price,
                "cost": round(self._price * len(measured), 10),  # 12 x 0.05 is 0.6, not 0.6000000000000001
                "settings": dict(self._settings),
                "annotators": [{"annotator": str(a), "n_answers": int(n)} for a, n in per.items()],
                "recent": [
                    {"i": self._names[int(r.i)], "j": self._names[int(r.j)], "value": round(float(r.value) * SCALE),
                     "annotator": str(r.source), "time": float(r.time)}
                    for r in recent.itertuples()
                ],
                "clusters": labels,
            }

    # --------------------------------------------------------------- internals
    def _record(self, frame: pd.DataFrame, source: str) -> None:
        from ..clustering import record_answers

        result = record_answers(self._database, frame, source=source)
        self._labels = (result.items, np.asarray(result.labels))

    def _refresh(self) -> None:
        from ..clustering import MeasurementStore

        store = MeasurementStore(self._database)
        try:
            self._pending = [tuple(int(v) for v in pair) for pair in store.pending()]
        finally:
            store.close()
        counts: dict = {}
        for key in self._pending:
            counts[key] = counts.get(key, 0) + 1
        self._waiting = counts
        self._leases = {key: holders for key, holders in self._leases.items() if key in counts}

    def _stored_skips(self) -> dict[str, set]:
        """The pairs each annotator skipped, kept in the session's database so that a restart keeps them."""
        import json

        from ..clustering import MeasurementStore

        store = MeasurementStore(self._database)
        try:
            text = store.metadata.get(SKIPS_KEY)
        finally:
            store.close()
        if text is None:
            return {}
        return {str(who): {(int(i), int(j)) for i, j in pairs} for who, pairs in json.loads(text).items()}

    def _store_skips(self) -> None:
        import json

        from ..clustering import MeasurementStore

        store = MeasurementStore(self._database)
        try:
            store.update_metadata({SKIPS_KEY: json.dumps({who: sorted(pairs) for who, pairs in self._skipped.items()})})
        finally:
            store.close()

    def _answered_by(self) -> dict[str, set]:
        from ..clustering import MeasurementStore

        store = MeasurementStore(self._database)
        try:
            measured = store.measurements()
        finally:
            store.close()
        seen: dict[str, set] = {}
        for i, j, source in zip(measured["i"], measured["j"], measured["source"]):
            seen.setdefault(str(source), set()).add((int(i), int(j)))
        return seen

    def _free_for(self, annotator: str):
        now = time.monotonic()
        seen = self._seen.get(annotator, set()) | self._skipped.get(annotator, set())
        for key, holders in self._leases.items():  # the pair already shown to this annotator comes back first
            if holders.get(annotator, 0) > now:
                return key
        for key in dict.fromkeys(self._pending):
            if key in seen:
                continue
            holders = {a: t for a, t in self._leases.get(key, {}).items() if t > now}
            self._leases[key] = holders
            if len(holders) < self._waiting[key]:
                return key
        return None

    def _held(self, annotator: str, i, j) -> tuple[int, int]:
        for name in (i, j):
            if not isinstance(name, str) or name not in self._position:
                shown = name[:40] if isinstance(name, str) else name
                raise ParameterError(f"{shown!r} is not an item of this session; answer the pair the page showed.")
        a, b = sorted((self._position[i], self._position[j]))
        if (a, b) not in self._waiting:
            raise ParameterError(f"the pair ({i!r}, {j!r}) does not wait for an answer (answered already, or never asked).")
        holders = self._leases.setdefault((a, b), {})
        if annotator not in holders:
            # not handed out by this server (it was restarted): the pair is this annotator's if nobody else holds it
            now = time.monotonic()
            others = sum(1 for t in holders.values() if t > now)
            mine = (a, b) not in self._seen.get(annotator, set()) | self._skipped.get(annotator, set())
            if mine and others < self._waiting[(a, b)]:
                holders[annotator] = now + self._lease_seconds
        if annotator not in holders:
            raise ParameterError(
                f"the pair ({i!r}, {j!r}) was not shown to {annotator!r} (or was given to someone else after "
                f"{self._lease_seconds:.0f} s); ask for the next pair."
            )
        return a, b

    def _mine(self, annotator: str) -> dict:
        return {"n_answered": len(self._seen.get(annotator, ())), "annotator": annotator}

    def _clusters(self):
        if self._labels is None:
            return None
        items, labels = self._labels
        return [{"item": str(item), "label": int(label)} for item, label in zip(items, labels)]


def _stored_names(database) -> list[str]:
    """The item names a session keeps in its database."""
    import json

    from ..clustering import MeasurementStore

    store = MeasurementStore(database)
    try:
        return [str(name) for name in json.loads(store.metadata["items"])]
    finally:
        store.close()
