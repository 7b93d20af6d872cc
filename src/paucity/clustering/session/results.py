"""What the verbs of a session return: frozen results with ``to_frame()`` (and ``to_dict()`` where a summary helps)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..settings import SessionSettings

__all__ = ["SessionClusters", "SessionAsks", "SessionAnswers", "SessionWithdrawal", "SessionStatus"]


@dataclass(frozen=True)
class SessionClusters:
    """The clustering of every answer so far: one label per item, and v̂₂ of the current estimate Ŵ.

    Attributes
    ----------
    items : tuple of str
    labels : ndarray of int
        0..n_clusters−1, item 0 in cluster 0.
    embedding : ndarray
        v̂₂ of Ŵ: its sign is the cluster (of the first split), its size how
        far the item sits from the boundary.
    """

    items: tuple
    labels: np.ndarray
    embedding: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """One row per item: item, label, embedding."""
        return pd.DataFrame({"item": list(self.items), "label": self.labels, "embedding": self.embedding})

    def cluster_sizes(self) -> dict[int, int]:
        """Items per cluster."""
        labels, counts = np.unique(self.labels, return_counts=True)
        return {int(label): int(count) for label, count in zip(labels, counts)}


@dataclass(frozen=True)
class SessionAsks:
    """What :meth:`ClusteringSession.ask` returns: the pairs that wait for one annotator's answers.

    Attributes
    ----------
    pairs : pandas.DataFrame
        Columns i, j (item names) and value (empty, for the answer): every
        pair held by the annotator, in the order asked; the last ``n_new``
        were chosen by this call.
    n_new : int
        Pairs chosen by this call (by one eigen-update).
    annotator : str
        Who holds the pairs (``""`` for asks made without a name).
    n_items : int
    n_measured : int
        Answers recorded so far.
    n_pending : int
        Pairs waiting for an answer, with every annotator.
    budget : int
        The session's budget in measurements.
    settings : SessionSettings
    at_quota : bool
        The annotator gave as many answers as the session's ``quota`` allows: no more pairs for them.
    """

    pairs: pd.DataFrame
    n_new: int
    annotator: str
    n_items: int
    n_measured: int
    n_pending: int
    budget: int
    settings: SessionSettings
    at_quota: bool = False

    def to_frame(self) -> pd.DataFrame:
        """The pairs to ask: i, j, value (empty)."""
        return self.pairs.copy()

    @property
    def spent(self) -> bool:
        """True when the budget is spent: every measurement made, none waits."""
        return len(self.pairs) == 0 and self.n_measured >= self.budget

    @property
    def n_elsewhere(self) -> int:
        """Pairs that wait for an answer from other annotators."""
        return self.n_pending - len(self.pairs)


@dataclass(frozen=True)
class SessionAnswers:
    """What :meth:`ClusteringSession.record` returns: what was recorded, and the clustering of every answer so far.

    Attributes
    ----------
    n_recorded : int
        Answers recorded by this call.
    n_read_before : int
        Rows skipped because the same answer to the same pair is in the database already (the file was
        read before).
    n_unanswered : int
        Rows skipped because their value is empty (not answered yet).
    n_measured : int
        Answers in the database.
    n_pending : int
        Pairs still waiting for an answer.
    budget : int
    clusters : SessionClusters or None
        The clustering of every answer so far (``items``, ``labels`` and
        ``embedding`` are its fields too); None when ``record`` was told not
        to cluster.
    """

    n_recorded: int
    n_read_before: int
    n_unanswered: int
    n_measured: int
    n_pending: int
    budget: int
    clusters: SessionClusters | None

    @property
    def items(self) -> tuple:
        """The item names, as in ``clusters``."""
        return self.clusters.items

    @property
    def labels(self) -> np.ndarray:
        """Each item's cluster, as in ``clusters``."""
        return self.clusters.labels

    @property
    def embedding(self) -> np.ndarray:
        """The clusters' spectral embedding of the items (see ``SessionClusters``)."""
        return self.clusters.embedding

    def to_frame(self) -> pd.DataFrame:
        """One row per item: item, label, embedding."""
        return self.clusters.to_frame()

    def cluster_sizes(self) -> dict[int, int]:
        """Items per cluster."""
        return self.clusters.cluster_sizes()


@dataclass(frozen=True)
class SessionWithdrawal:
    """What :meth:`ClusteringSession.withdraw` returns: the asks withdrawn, and the state of the session.

    Attributes
    ----------
    withdrawn : pandas.DataFrame
        Columns i, j (item names): the pairs withdrawn, i before j in the session's order of items; in the
        order given, or when every ask was withdrawn in the order asked.
    n_pending : int
        Pairs still waiting for an answer.
    n_measured : int
        Answers recorded so far.
    budget : int
        The session's budget in measurements (withdrawn asks no longer count against it).
    """

    withdrawn: pd.DataFrame
    n_pending: int
    n_measured: int
    budget: int

    @property
    def n_withdrawn(self) -> int:
        """Asks withdrawn."""
        return len(self.withdrawn)

    def to_frame(self) -> pd.DataFrame:
        """The pairs withdrawn: i, j."""
        return self.withdrawn.copy()


@dataclass(frozen=True)
class SessionStatus:
    """What :meth:`ClusteringSession.status` returns: where a session stands.

    Attributes
    ----------
    database : str
        The database, as messages name it (a URL without its password).
    settings : SessionSettings
    n_items : int
    n_measured : int
        Answers recorded.
    n_pending : int
        Pairs waiting for an answer.
    n_out : int
        Of those, the pairs an annotator holds now (the others wait for whoever asks next).
    budget : int
        In measurements.
    cost : float
        ``price`` times the answers.
    annotators : pandas.DataFrame
        One row per annotator or source of answers: annotator, n_answers, n_holding (pairs held now).
    clusters : SessionClusters
        The clustering of every answer so far.
    """

    database: str
    settings: SessionSettings
    n_items: int
    n_measured: int
    n_pending: int
    n_out: int
    budget: int
    cost: float
    annotators: pd.DataFrame
    clusters: SessionClusters

    @property
    def budget_left(self) -> int:
        """Measurements that may still be asked: the budget less the answers and the pairs waiting."""
        return max(0, self.budget - self.n_measured - self.n_pending)

    @property
    def spent(self) -> bool:
        """True when every measurement of the budget is made."""
        return self.n_measured >= self.budget

    def to_frame(self) -> pd.DataFrame:
        """The clustering: item, label, embedding."""
        return self.clusters.to_frame()

    def to_dict(self) -> dict:
        """The summary as plain values: the counts, budget, cost, the settings and the cluster sizes."""
        return {
            "database": self.database,
            "n_items": self.n_items,
            "n_measured": self.n_measured,
            "n_pending": self.n_pending,
            "n_out": self.n_out,
            "budget": self.budget,
            "budget_left": self.budget_left,
            "price": self.settings.price,
            "cost": self.cost,
            "settings": self.settings.to_dict(),
            "cluster_sizes": self.clusters.cluster_sizes(),
        }
