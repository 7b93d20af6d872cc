"""The verbs of a session's coordinator, which :class:`~paucity.clustering.ClusteringSession` offers.

Each delegates to one of the session's collaborators: the annotators
(:class:`~paucity.clustering.session.access.AnnotatorAccess`), the gold pairs
(:class:`~paucity.clustering.session.gold.Gold`), the reviewer's tools
(:class:`~paucity.clustering.session.review.Review`), and quality and export
(:mod:`~paucity.clustering.session.export`). They are written here, apart from
the loop's verbs, so that each file of the session holds one idea; the
session is still one class, its one public façade.
"""

from __future__ import annotations

import pandas as pd

from ..agreement import SessionQuality
from ..tables import GoldPairs
from .export import export_answers, session_quality

__all__ = ["CoordinatorVerbs"]


class CoordinatorVerbs:
    """The coordinator's verbs of :class:`~paucity.clustering.ClusteringSession` (its collaborators ``_access``,
    ``_gold`` and ``_review`` are set by the session)."""

    # -- annotators: access, pause, exclusion (AnnotatorAccess) -------------------------------------------------
    def invite(self, names) -> dict[str, str | None]:
        """Give each annotator named a personal access token: ``{name: token}``, None for one invited already
        (see :meth:`AnnotatorAccess.invite <paucity.clustering.session.access.AnnotatorAccess.invite>`)."""
        return self._access.invite(names)

    def new_link(self, annotator: str) -> str:
        """A new access token for ``annotator`` (the old one stops working at once); a revoked annotator is active
        again with it."""
        return self._access.new_link(annotator)

    def pause(self, annotator: str) -> None:
        """Stop handing pairs to ``annotator`` (their pairs go back to the others); :meth:`resume` lets them go on."""
        self._access.set_state(annotator, "paused")

    def resume(self, annotator: str) -> None:
        """Let a paused annotator answer again."""
        self._access.set_state(annotator, "active")

    def revoke(self, annotator: str) -> None:
        """End ``annotator``'s access at once: their token no longer works and their pairs go back to the others."""
        self._access.set_state(annotator, "revoked")

    def exclude(self, annotator: str, excluded: bool = True) -> None:
        """Leave every answer of ``annotator`` (or of an answers file, by its source name) out of the clustering,
        or, with ``excluded=False``, take them in again. The answers stay in the database, marked; excluded
        answers do not count against the budget, so their pairs may be asked again."""
        self._access.exclude(annotator, excluded)

    def identify(self, token: str) -> tuple[str, str] | None:
        """The annotator a token belongs to, and their state (``"active"``, ``"paused"`` or ``"revoked"``); None for
        a token that is not an annotator's."""
        return self._access.identify(token)

    def annotators(self) -> pd.DataFrame:
        """Every annotator the session knows: annotator, state, invited (holds a token), excluded."""
        return self._access.table()

    def invited(self) -> bool:
        """Whether some annotator holds a personal token (then every annotator needs one on the page)."""
        return self._access.invited()

    def state_of(self, annotator: str) -> str:
        """``"active"``, ``"paused"`` or ``"revoked"`` (an annotator the session does not know is active)."""
        return self._access.state_of(annotator)

    # -- gold pairs (Gold) ---------------------------------------------------------------------------------------
    def add_gold(self, pairs) -> int:
        """Add pairs whose answer is known (:class:`~paucity.clustering.tables.GoldPairs`, or a frame with columns
        i, j and value, a similarity in [0, 1], or answer, 0 to 9; the same pair again replaces its value). Gold
        pairs are shown to annotators like any other (the annotation page mixes them in) and their answers
        measure each annotator's accuracy; they are never measurements of the clustering. Returns the number of
        gold pairs."""
        return self._gold.add(pairs if isinstance(pairs, GoldPairs) else GoldPairs.from_frame(pairs))

    def gold(self) -> pd.DataFrame:
        """The gold pairs: i, j (item names), value (the known similarity)."""
        return self._gold.table()

    def gold_pair(self, annotator: str, *, take: bool) -> tuple[str, str] | None:
        """The gold pair on ``annotator``'s screen; with ``take``, when none is, a gold pair they have not answered,
        put on their screen. None when there is none."""
        return self._gold.on_screen(annotator, take=take)

    def record_gold(self, annotator: str, i: str, j: str, value: float, *, key: str | None = None) -> bool:
        """Record ``annotator``'s answer (a similarity in [0, 1]) to the gold pair on their screen; returns False
        when the request was recorded before (its key seen) or the pair is not their gold pair."""
        return self._gold.record(annotator, i, j, value, key=key)

    def gold_expected(self, i: str, j: str) -> float | None:
        """The known similarity of the gold pair (i, j), or None when it is not a gold pair."""
        return self._gold.expected(i, j)

    def skip_gold(self, annotator: str) -> None:
        """``annotator`` skips the gold pair on their screen (it is not shown to them again)."""
        self._gold.skip(annotator)

    def gold_answers(self) -> pd.DataFrame:
        """Every answer to a gold pair: i, j (item names), value, gold (the known value), annotator, time."""
        return self._gold.answers()

    # -- review: disagreements, adjudication, work and pay (Review) ----------------------------------------------
    def disagreements(self, *, min_annotators: int = 2) -> pd.DataFrame:
        """The pairs answered by two or more people, with the spread of their answers (see :class:`Review
        <paucity.clustering.session.review.Review>`)."""
        return self._review.disagreements(min_annotators=min_annotators)

    def adjudicate(self, i: str, j: str, value, *, by: str = "coordinator") -> None:
        """Set the value that counts for the pair (i, j) (None takes it back); the answers are kept, and the
        learner takes the decided value."""
        self._review.adjudicate(i, j, value, by=by)

    def adjudications(self) -> pd.DataFrame:
        """The decisions that count: i, j, value, by, time."""
        return self._review.adjudications()

    def work(self) -> pd.DataFrame:
        """Per annotator: answers counted, gold, excluded, skips, first and last seen, time on task."""
        return self._review.work()

    def payments(self) -> pd.DataFrame:
        """What to pay each annotator: answers paid and their cost at the session's ``price``."""
        return self._review.payments()

    # -- quality and export (export.py) --------------------------------------------------------------------------
    def export(self) -> pd.DataFrame:
        """Every answer, gold answers included: i, j, value, annotator, time, gold (True for a gold pair's answer),
        gold_value (the known value, NaN otherwise), excluded (an excluded annotator's answer), in the order given."""
        return export_answers(self)

    def quality(self) -> SessionQuality:
        """Each annotator's accuracy on gold pairs and agreement with the others, and Krippendorff's alpha.

        See :func:`~paucity.clustering.agreement.annotator_quality`."""
        return session_quality(self)
