"""The annotation page's model: what an item looks like, and the JSON of the page and the coordinator's view.

A :class:`~paucity.clustering.ClusteringSession` chooses the pairs, hands each
waiting pair to one annotator at a time and records the answers with who gave
them and when; this module shows them.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .._errors import InputError, ParameterError

__all__ = ["AnnotationSession", "Item", "SCALE", "check_annotator"]

#: The answer scale: keys 0 (not similar at all) to 9 (the same), stored as key / SCALE in [0, 1].
SCALE = 9
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
    """Hand the pairs of a clustering session to annotators, one pair to one person at a time.

    The page's side of a :class:`~paucity.clustering.ClusteringSession`: what
    an item looks like (its name, a text, an image), and the JSON the page
    and the coordinator's view read. Who holds which pair, until when, who
    skipped what and every answer live in the session's database, so that a
    restarted server, or several servers and command-line users on one
    session, hand out each waiting pair to one annotator at a time.

    Parameters
    ----------
    database : str or path-like
        The session's database (started with ``items`` when it holds none).
    items : pandas.DataFrame, optional
        The items table: the item names in ``item_column`` (default: the
        first column), optionally a ``text`` column (shown) and an ``image``
        column (a file under ``media``). Needed to start a session; when
        resuming, the names must be the session's.
    item_column : str, optional
    media : path-like, optional
        The folder of the images. With no ``image`` column, an item whose
        name is an image file in it is shown as that image.
    **settings
        The session's settings (``budget``, ``batch_size``, ``strategy``,
        ``repeats``, ``n_clusters``, ``random_state``, ``price``,
        ``lease_seconds``): as :meth:`~paucity.clustering.ClusteringSession.create`
        when the session starts; when it resumes, each one given must equal
        the session's.

    Notes
    -----
    The human loop of seed 003, chapter 2: the pairs come from the session's
    active learner (IU-RED by default). Each answer is committed to the
    database, with the annotator's id as its source and the time, before
    the next pair is handed out; a pair waiting for an answer is shown to one
    annotator at a time for ``lease_seconds``, never again to one who
    answered or skipped it.
    """

    def __init__(self, database, items: pd.DataFrame | None = None, *, item_column: str | None = None, media=None,
                 **settings):
        from ..clustering import ClusteringSession

        self._media = None if media is None else Path(media).resolve()
        if self._media is not None and not self._media.is_dir():
            raise ParameterError(f"the media folder {media} does not exist or is not a folder; give the folder of the images.")
        shown = None
        if items is not None:
            shown, names = self._read_items(items, item_column)
            self.session = ClusteringSession.create(database, names, exist_ok=True, **settings)
        else:
            self.session = ClusteringSession.open(database, **settings)
        self._items = shown if shown is not None else {name: Item(name) for name in self.session.items}
        self._position = {name: k for k, name in enumerate(self.session.items)}

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
        annotator = check_annotator(annotator)
        asks = self.session.ask(1, annotator=annotator, lease_seconds=self.session.settings.lease_seconds)
        mine = {"n_answered": self.session.answer_counts().get(annotator, 0), "annotator": annotator}
        if not len(asks.pairs):
            return {"pair": None, "status": "done" if asks.spent else "waiting", **mine}
        i, j = asks.pairs["i"].iloc[0], asks.pairs["j"].iloc[0]
        return {"pair": {"i": self._items[i].to_dict(), "j": self._items[j].to_dict()}, "status": "pair", **mine}

    def answer(self, annotator: str, i: str, j: str, value) -> dict:
        """Record ``annotator``'s answer ``value`` (0 to 9) for the pair (i, j); returns the next pair.

        The answer is committed to the database before this returns; the
        same answer sent twice is recorded once.
        """
        annotator = check_annotator(annotator)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= SCALE:
            raise ParameterError(f"value must be a whole number from 0 (not similar) to {SCALE} (the same), got {value!r}.")
        self._check_items(i, j)
        frame = pd.DataFrame({"i": [i], "j": [j], "value": [value / SCALE]})
        try:
            self.session.record(frame, annotator=annotator, cluster=False)
        except InputError as error:
            raise ParameterError(_for_the_page(str(error), i, j)) from None
        return self.next_pair(annotator)

    def skip(self, annotator: str, i: str, j: str) -> dict:
        """Give the pair back unanswered: another annotator gets it, this one not again. Returns the next pair."""
        annotator = check_annotator(annotator)
        self._check_items(i, j)
        self.session.skip(annotator, i, j)
        return self.next_pair(annotator)

    def release(self, annotator: str) -> None:
        """Give back, unanswered and not skipped, the pair shown to ``annotator`` (who closed the page)."""
        self.session.release(check_annotator(annotator))

    # --------------------------------------------------------------- coordinator
    def progress(self, n_recent: int = 20) -> dict:
        """What the coordinator sees: answers so far (in all, per annotator, the latest), cost, pending, clusters."""
        status = self.session.status()
        recent = self.session.answers(last=n_recent)
        answered = status.annotators[status.annotators["n_answers"] > 0]
        return {
            "n_items": status.n_items,
            "n_answers": status.n_measured,
            "budget": status.budget,
            "n_pending": status.n_pending,
            "n_shown_now": status.n_out,
            "price": status.settings.price,
            "cost": status.cost,
            "settings": status.settings.to_dict(),
            "annotators": [{"annotator": str(row.annotator), "n_answers": int(row.n_answers)}
                           for row in answered.itertuples()],
            "recent": [
                {"i": str(row.i), "j": str(row.j), "value": round(float(row.value) * SCALE),
                 "annotator": str(row.source), "time": float(row.time)}
                for row in recent.itertuples()
            ],
            "clusters": None if status.n_measured == 0 else [
                {"item": str(item), "label": int(label)}
                for item, label in zip(status.clusters.items, status.clusters.labels)
            ],
        }

    # --------------------------------------------------------------- internals
    def _check_items(self, i, j) -> None:
        for name in (i, j):
            if not isinstance(name, str) or name not in self._position:
                shown = name[:40] if isinstance(name, str) else name
                raise ParameterError(f"{shown!r} is not an item of this session; answer the pair the page showed.")


def _for_the_page(message: str, i: str, j: str) -> str:
    """A session's refusal of one answer, in the page's words."""
    if "answered already" in message or "never asked" in message:
        return f"the pair ({i!r}, {j!r}) does not wait for an answer (answered already, or never asked)."
    return message
