"""The annotation page's model: what an item looks like, and the JSON of the page and the coordinator's view.

A :class:`~paucity.clustering.ClusteringSession` chooses the pairs, hands each
waiting pair to one annotator at a time, records the answers with who gave
them and when, and keeps the annotators (their tokens, paused or revoked),
the gold pairs and their answers; this module shows them, mixes gold pairs
into each annotator's queue (:func:`~paucity.clustering.session.gold.gold_due`),
and renders the instructions. The page itself, HTTP only, is
:mod:`paucity.serve.annotate`.
"""

from __future__ import annotations

import numbers
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, PairNotWaitingError, ParameterError
from .._json import plain_number
from .session.gold import GOLD_RATE, gold_due
from .session.review import iso_times
from .session.rules import check_annotator
from .tables import SCALE, ExamplePairs, GoldPairs, Items

__all__ = ["AnnotationSession", "Item", "SCALE", "GOLD_RATE", "render_instructions"]
#: How often the coordinator's agreement figures are computed again at most, in seconds (they read every answer).
QUALITY_SECONDS = 10.0
_IMAGE_ENDINGS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")


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
    an item looks like (its name, a text, an image), the instructions and
    example pairs annotators read first, the gold pairs mixed into their
    queues, and the JSON the page and the coordinator's view read. Who holds
    which pair, the annotators (their tokens, paused or revoked), skips,
    gold answers and every answer live in the session's database, so that a
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
    instructions : str, optional
        What annotators read before their first pair (and on demand):
        Markdown, rendered without raw HTML (see :func:`render_instructions`).
    examples : pandas.DataFrame, optional
        Example pairs with their intended answer, shown with the
        instructions: columns i, j (item names), answer (0 to 9), and
        optionally note.
    gold : pandas.DataFrame, optional
        Pairs with a known answer, added to the session's gold pairs:
        columns i, j and answer (0 to 9) or value (a similarity in [0, 1]).
    gold_rate : float, default=0.1
        The share of gold pairs in each annotator's queue (0: none).
    **settings
        The session's settings (``budget``, ``batch_size``, ``strategy``,
        ``repeats``, ``n_clusters``, ``random_state``, ``price``,
        ``lease_seconds``, ``cut``): as :meth:`~paucity.clustering.ClusteringSession.create`
        when the session starts; when it resumes, each one given must equal
        the session's.

    Notes
    -----
    The human loop of seed 003, chapter 2: the pairs come from the session's
    active learner (IU-RED by default). Each answer is committed to the
    database, with the annotator's id as its source and the time, before
    the next pair is handed out; a pair waiting for an answer is shown to one
    annotator at a time for ``lease_seconds``, never again to one who
    answered or skipped it. A gold pair is shown when fewer than
    ``gold_rate`` of an annotator's answers so far went to gold pairs; its
    answer is kept apart and never enters the clustering.
    """

    def __init__(self, database, items: pd.DataFrame | None = None, *, item_column: str | None = None, media=None,
                 instructions: str | None = None, examples: pd.DataFrame | None = None,
                 gold: pd.DataFrame | None = None, gold_rate: float = GOLD_RATE, **settings):
        from .._validation import Interval, check_parameter
        from .session import ClusteringSession

        self._media = None if media is None else Path(media).resolve()
        if self._media is not None and not self._media.is_dir():
            raise ParameterError(f"the media folder {media} does not exist or is not a folder; give the folder of the images.")
        self.gold_rate = float(check_parameter(gold_rate, "gold_rate", [Interval(numbers.Real, 0, 1)],
                                               owner="annotate", hint="It is the share of gold pairs (0.1: one in ten)."))
        if instructions is not None and not isinstance(instructions, str):
            raise ParameterError(f"instructions must be text (Markdown), got {type(instructions).__name__}.")
        session = None
        if items is not None:
            self._items, names = self._read_items(items, item_column)
        else:
            session = ClusteringSession.open(database, **settings)
            names = list(session.items)
            self._items = {name: Item(name) for name in names}
        self._position = {name: k for k, name in enumerate(names)}
        try:  # every table checked before a session is started: a bad one writes nothing
            self._instructions = None if instructions is None else render_instructions(instructions)
            self._examples = [] if examples is None else self._read_examples(examples)
            gold = None if gold is None else gold if isinstance(gold, GoldPairs) else GoldPairs.from_frame(gold)
            for k, (i, j) in enumerate(zip(gold.i, gold.j) if gold is not None else (), start=1):
                self._check_items(i, j, what=f"gold data row {k}")
            if session is None:
                session = ClusteringSession.create(database, names, exist_ok=True, **settings)
        except BaseException:
            if session is not None:
                session.close()
            raise
        self.session = session
        if gold is not None:
            self.session.add_gold(gold)
        self._has_gold = len(self.session.gold()) > 0
        self._quality = None
        self._quality_lock = threading.Lock()

    # ------------------------------------------------------------------ items
    def _read_items(self, frame, item_column):
        table = frame if isinstance(frame, Items) else Items.from_frame(frame, item=item_column)
        items = {}
        for k, name in enumerate(table.names):
            text = None if table.texts is None else table.texts[k]
            image = None
            if table.images is not None and table.images[k] is not None:
                image = self._media_file(table.images[k], row=k + 1)
            elif table.images is None and self._media is not None and name.lower().endswith(_IMAGE_ENDINGS):
                if (self._media / name).is_file():
                    image = self._media_file(name, row=k + 1)
            items[name] = Item(name, text, image)
        return items, list(table.names)

    def _media_file(self, name: str, *, row: int) -> str:
        if self._media is None:
            raise ParameterError("the items table has an image column but no media folder was given; give --media.")
        path = (self._media / name).resolve()
        if not path.is_relative_to(self._media) or not path.is_file():
            raise InputError(f"items data row {row}: the image {name!r} is not a file inside the media folder "
                             f"{self._media}.")
        return path.relative_to(self._media).as_posix()

    def _read_examples(self, frame) -> list[dict]:
        table = frame if isinstance(frame, ExamplePairs) else ExamplePairs.from_frame(frame)
        examples = []
        for row, (i, j, answer, note) in enumerate(zip(table.i, table.j, table.answer, table.note), start=1):
            self._check_items(i, j, what=f"examples data row {row}")
            examples.append({"i": self._items[i].to_dict(), "j": self._items[j].to_dict(), "answer": int(answer),
                             "note": note})
        return examples

    def media_path(self, name: str) -> Path | None:
        """The file of ``media/<name>`` when an item shows it, else None (nothing else is served)."""
        if self._media is None:
            return None
        shown = {item.image for item in self._items.values() if item.image is not None}
        if name not in shown:
            return None
        return self._media / name

    # ------------------------------------------------------------------ who
    @property
    def invited(self) -> bool:
        """Whether some annotator holds a personal link (then every annotator needs one)."""
        return self.session.invited()

    def identify(self, token: str):
        """``(name, state)`` of an annotator's token, else None (for :class:`~paucity.serve.access.Access`)."""
        return self.session.identify(token)

    def me(self, annotator: str) -> dict:
        """What the page shows before the first pair: the annotator, their state and answers, the instructions."""
        annotator = check_annotator(annotator)
        return {
            "annotator": annotator,
            "state": self.session.state_of(annotator),
            "n_answered": sum(self.session.answer_count(annotator)),
            "instructions": self._instructions,
            "examples": self._examples,
        }

    def _gold_counts(self) -> dict[str, int]:
        answers = self.session.gold_answers()
        return answers.groupby("annotator").size().to_dict() if len(answers) else {}

    # --------------------------------------------------------------- handing out
    def next_pair(self, annotator: str, *, gold=False) -> dict:
        """The pair for ``annotator`` to answer now, or why there is none.

        Returns
        -------
        dict
            ``{"pair": {"i": item, "j": item}, "status": "pair"}``, or
            ``{"pair": None, "status": "waiting"}`` (every waiting pair is
            with another annotator; ask again soon), ``"done"`` (the budget
            is spent), ``"quota"`` (they gave the session's ``quota`` of
            answers) or ``"paused"`` (the coordinator, or the quality rule,
            paused them: ``reason`` says which).
        """
        annotator = check_annotator(annotator)
        counts = self.session.answer_count(annotator)
        mine = {"n_answered": sum(counts), "annotator": annotator}
        if self.session.state_of(annotator) == "paused":
            reasons = self.session.annotators().set_index("annotator")["reason"]
            return {"pair": None, "status": "paused", "reason": reasons.get(annotator), **mine}
        quota = self.session.settings.quota
        if quota is not None and sum(counts) >= quota:
            return {"pair": None, "status": "quota", **mine}
        if gold is False:  # (the gold pair on their screen, when the caller has just read it)
            gold = self.session.gold_pair(annotator, take=False) if self._has_gold else None
        if gold is None and self._has_gold and gold_due(*counts, self.gold_rate) and not self.session.held_by(annotator):
            gold = self.session.gold_pair(annotator, take=True)
        if gold is not None:
            i, j = gold
        else:
            asks = self.session.ask(1, annotator=annotator, lease_seconds=self.session.settings.lease_seconds)
            if not len(asks.pairs):
                status = "quota" if asks.at_quota else "done" if asks.spent else "waiting"
                return {"pair": None, "status": status, **mine}
            i, j = asks.pairs["i"].iloc[0], asks.pairs["j"].iloc[0]
        return {"pair": {"i": self._items[i].to_dict(), "j": self._items[j].to_dict()}, "status": "pair", **mine}

    def answer(self, annotator: str, i: str, j: str, value, key: str | None = None) -> dict:
        """Record ``annotator``'s answer ``value`` (0 to 9) for the pair (i, j); returns the next pair.

        The answer is committed to the database before this returns; a
        request sent again with the same ``key`` records nothing more.
        """
        annotator = check_annotator(annotator)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= SCALE:
            raise ParameterError(f"value must be a whole number from 0 (not similar) to {SCALE} (the same), got {value!r}.")
        self._check_items(i, j)
        gold = self.session.gold_pair(annotator, take=False) if self._has_gold else None
        if gold is not None and {i, j} == set(gold):
            self.session.record_gold(annotator, i, j, value / SCALE, key=key)
            reply = self.next_pair(annotator, gold=None)
            if self.session.settings.gold_feedback:  # the answer that was expected, on the page's scale
                expected = self.session.gold_expected(i, j)
                reply["feedback"] = {"i": i, "j": j, "given": int(value), "expected": round(expected * SCALE)}
            return reply
        frame = pd.DataFrame({"i": [i], "j": [j], "value": [value / SCALE]})
        try:
            self.session.record(frame, annotator=annotator, key=key, cluster=False)
        except PairNotWaitingError:  # in the page's words
            raise PairNotWaitingError(f"the pair ({i!r}, {j!r}) does not wait for an answer (answered already, or "
                                      "never asked).") from None
        except InputError as error:
            raise ParameterError(str(error)) from None
        return self.next_pair(annotator, gold=gold)

    def skip(self, annotator: str, i: str, j: str, key: str | None = None) -> dict:
        """Give the pair back unanswered: another annotator gets it, this one not again. Returns the next pair."""
        annotator = check_annotator(annotator)
        self._check_items(i, j)
        gold = self.session.gold_pair(annotator, take=False)
        if gold is not None and {i, j} == set(gold):
            self.session.skip_gold(annotator)
        else:
            self.session.skip(annotator, i, j, key=key)
        return self.next_pair(annotator)

    def release(self, annotator: str) -> None:
        """Give back, unanswered and not skipped, the pair shown to ``annotator`` (who closed the page)."""
        self.session.release(check_annotator(annotator))

    # --------------------------------------------------------------- coordinator
    def progress(self, n_recent: int = 20) -> dict:
        """What the coordinator sees: answers (counted, gold, excluded) and cost, pending, annotators with their
        gold accuracy and agreement, the latest answers, and the clusters."""
        status = self.session.status()
        recent = self.session.answers(last=n_recent)
        counts = self.session.answer_counts()
        annotators = self.session.annotators()
        excluded = set(annotators.loc[annotators["excluded"], "annotator"])
        n_excluded = sum(count for source, count in counts.items() if source in excluded)
        n_gold = sum(self._gold_counts().values())
        price = status.settings.price
        quality, work, n_disagreements, n_adjudicated = self._figures()
        states = dict(zip(annotators["annotator"], annotators["state"]))
        invited = dict(zip(annotators["annotator"], annotators["invited"]))
        reasons = dict(zip(annotators["annotator"], annotators["reason"]))
        holding = dict(zip(status.annotators["annotator"], status.annotators["n_holding"]))
        rows = []
        for row in quality.annotators.itertuples():
            seen = work["last_seen"].get(row.annotator, np.nan)
            rows.append({
                "annotator": str(row.annotator), "state": states.get(row.annotator, "active"),
                "reason": reasons.get(row.annotator),
                "last_seen": None if not np.isfinite(seen) else iso_times(pd.DataFrame({"time": [seen]}))["time"][0],
                "time_on_task": float(work["time_on_task"].get(row.annotator, 0.0)),
                "n_skips": int(work["n_skips"].get(row.annotator, 0)),
                "invited": bool(invited.get(row.annotator, False)), "excluded": bool(row.excluded),
                "n_answers": int(row.n_answers), "n_gold": int(row.n_gold), "n_holding": int(holding.get(row.annotator, 0)),
                "gold_accuracy": plain_number(row.gold_accuracy), "gold_difference": plain_number(row.gold_difference * SCALE),
                "n_shared": int(row.n_shared), "difference": plain_number(row.difference * SCALE),
                "alpha_without": plain_number(row.alpha_without),
            })
        return {
            "n_items": status.n_items,
            "n_answers": status.n_measured,
            "n_excluded": n_excluded,
            "n_gold_answers": n_gold,
            "budget": status.budget,
            "n_pending": status.n_pending,
            "n_shown_now": status.n_out,
            "price": price,
            "cost": round(price * (status.n_measured + n_excluded + n_gold), 10),  # 12 x 0.05 is 0.6
            "cost_answers": round(price * status.n_measured, 10),
            "cost_gold": round(price * n_gold, 10),
            "cost_excluded": round(price * n_excluded, 10),
            "settings": status.settings.to_dict(),
            "gold_rate": self.gold_rate,
            "n_gold_pairs": int(len(self.session.gold())),
            "alpha": plain_number(quality.alpha),
            "n_shared_pairs": quality.n_units,
            "annotators": rows,
            "recent": [
                {"i": str(row.i), "j": str(row.j), "value": round(float(row.value) * SCALE),
                 "annotator": str(row.source), "time": float(row.time), "when": when}
                for row, when in zip(recent.itertuples(), iso_times(recent)["time"])
            ],
            "n_disagreements": n_disagreements,
            "n_adjudicated": n_adjudicated,
            "clusters": None if status.n_measured == 0 else [
                {"item": str(item), "label": int(label)}
                for item, label in zip(status.clusters.items, status.clusters.labels)
            ],
        }

    def quality(self):
        """The session's :class:`~paucity.clustering.SessionQuality`, computed again at most every few seconds."""
        return self._figures()[0]

    def _figures(self) -> tuple:
        """The figures that read every answer (quality, each annotator's work, the disagreements and decisions
        counted), computed again at most every :data:`QUALITY_SECONDS` or after the coordinator's action."""
        with self._quality_lock:
            now = time.monotonic()
            if self._quality is None or now - self._quality[0] > QUALITY_SECONDS:
                figures = (self.session.quality(), self.session.work().set_index("annotator"),
                           int(len(self.session.disagreements())), int(len(self.session.adjudications())))
                self._quality = (now, figures)
            return self._quality[1]

    def export(self, what: str) -> pd.DataFrame:
        """A table for the coordinator to take away, times as ISO 8601 with the time zone: ``"answers"`` (every
        answer, gold answers marked, with ``answer`` on the page's scale and the adjudicated value),
        ``"clusters"`` (the clustering of the answers so far), ``"payments"`` (what to pay each annotator) or
        ``"disagreements"`` (the pairs two or more people answered)."""
        if what == "answers":
            table = self.session.export()
            table = table.assign(answer=np.rint(table["value"].to_numpy() * SCALE).astype(np.int64))
            return iso_times(table)
        if what == "clusters":
            return self.session.clusters().to_frame()
        if what == "payments":
            return iso_times(self.session.payments(), ("last_seen",))
        if what == "disagreements":
            return iso_times(self.session.disagreements().drop(columns="given"), ("adjudicated_time",))
        raise ParameterError(f"export answers, clusters, payments or disagreements, not {what!r}.")

    def disagreements(self, *, sort: str = "spread", min_annotators: int = 2) -> dict:
        """The pairs answered by two or more people, values on the page's 0–9 scale (``given``: each answer, by
        whom), sorted by ``sort`` (``"spread"``, ``"n_answers"``, ``"mean"``, or ``"time"``: the latest decision
        first)."""
        table = self.session.disagreements(min_annotators=min_annotators)
        keys = {"spread": ["spread", "n_annotators"], "n_answers": ["n_answers", "spread"], "mean": ["mean"],
                "time": ["adjudicated_time"]}
        if sort not in keys:
            raise ParameterError(f"sort by one of {', '.join(keys)}, not {sort!r}.")
        table = table.sort_values(keys[sort], ascending=False, kind="stable", na_position="last")
        scale = lambda value: None if not np.isfinite(value) else round(float(value) * SCALE, 2)  # noqa: E731
        pairs = []
        for row in table.itertuples():
            pairs.append({
                "i": str(row.i), "j": str(row.j), "n_answers": int(row.n_answers),
                "n_annotators": int(row.n_annotators), "mean": scale(row.mean), "min": scale(row.min),
                "max": scale(row.max), "spread": scale(row.spread), "answers": str(row.answers),
                "given": [{"annotator": str(who), "value": scale(value)} for who, value in row.given],
                "adjudicated": None if not np.isfinite(row.adjudicated) else {
                    "value": scale(row.adjudicated), "by": str(row.adjudicated_by),
                    "when": iso_times(pd.DataFrame({"time": [row.adjudicated_time]}))["time"][0]},
            })
        return {"pairs": pairs, "n_pairs": len(pairs), "sort": sort}

    def adjudicate(self, i: str, j: str, value, *, by: str = "coordinator") -> dict:
        """The coordinator decides the pair (i, j): ``value`` on the page's scale (0 to 9), or None to take the
        decision back."""
        self._check_items(i, j)
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                                  or not 0 <= value <= SCALE):
            raise ParameterError(f"value must be a whole number from 0 to {SCALE}, or null to take the decision "
                                 f"back; got {value!r}.")
        self.session.adjudicate(i, j, None if value is None else value / SCALE, by=by)
        with self._quality_lock:
            self._quality = None
        return {"i": i, "j": j, "value": value}

    def change(self, settings: dict) -> dict:
        """The coordinator changes the rules a session may change (``quota``, ``pause_below``, ``pause_after``,
        ``gold_feedback``, ``budget``); returns the settings now."""
        if not isinstance(settings, dict) or not settings:
            raise ParameterError("send the settings to change as a JSON object, e.g. {\"quota\": 200}.")
        self.session.change(**settings)
        return self.session.settings.to_dict()

    def invite(self, names) -> dict[str, str | None]:
        """Personal tokens for the annotators named (None for one invited already)."""
        return self.session.invite([check_annotator(name) for name in _listed(names)])

    def manage(self, action: str, annotator: str):
        """The coordinator's actions on one annotator: pause, resume, revoke, new-link (returns the token),
        exclude, include."""
        annotator = check_annotator(annotator)
        actions = {
            "pause": self.session.pause, "resume": self.session.resume, "revoke": self.session.revoke,
            "new-link": self.session.new_link,
            "exclude": lambda name: self.session.exclude(name, True),
            "include": lambda name: self.session.exclude(name, False),
        }
        if action not in actions:
            raise ParameterError(f"the action must be one of {', '.join(actions)}, got {action!r}.")
        result = actions[action](annotator)
        with self._quality_lock:
            self._quality = None
        return result

    # --------------------------------------------------------------- internals
    def _check_items(self, i, j, *, what: str = "") -> None:
        for name in (i, j):
            if not isinstance(name, str) or name not in self._position:
                shown = name[:40] if isinstance(name, str) else name
                if what:  # a row of a table given at the start
                    raise InputError(f"{what}: {shown!r} is not an item of this session; name the items of the items "
                                     "table.")
                raise ParameterError(f"{shown!r} is not an item of this session; answer the pair the page showed.")


def render_instructions(text: str) -> str:
    """Instructions for annotators, as HTML: Markdown (CommonMark), with raw HTML shown as text, not run.

    Links keep only ``http``, ``https`` and ``mailto`` addresses (Markdown-it's own check); plain text is a
    paragraph per blank-line-separated block.

    Examples
    --------
    >>> print(render_instructions("# Two photos\\n\\nSay how similar **the rooms** are. <script>x()</script>"))
    <h1>Two photos</h1>
    <p>Say how similar <strong>the rooms</strong> are. &lt;script&gt;x()&lt;/script&gt;</p>
    <BLANKLINE>
    """
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).render(text)


def _listed(names) -> list:
    if isinstance(names, str) or not isinstance(names, (list, tuple)):
        raise ParameterError("names must be a list of annotator names, e.g. [\"alice\", \"bob\"].")
    return list(names)
