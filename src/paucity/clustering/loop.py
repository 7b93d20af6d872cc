"""The active loop in memory: the estimate Ŵ, the pairs asked, and the choice of the next pairs (seed 003, ch. 2).

:class:`ActiveLoop` holds what one session of active spectral clustering
knows — Ŵ and its running estimates (§2.5), the connected components, the
eigen-trackers, the pending asks, the log of eigen-updates — and chooses the
next pairs by one eigen-update. It holds no database: the estimator feeds it
directly, and a :class:`~paucity.clustering.ClusteringSession` feeds it what
its store holds.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._errors import InputError, ParameterError, ShapeMismatchError
from .._spelling import given, owner_prefix
from .._validation import check_random_state
from . import spectral
from ._checks import check_interleave
from .estimates import RunningEstimates
from .metrics import misclustering_error
from .scores import iu_red_direction, nearest_to_boundary, shamir_tishby_dense
from .selection import choose_pairs
from .sparse import SparseTracker, choose_pairs_sparse
from .spectral import FiedlerVector, fiedler_of, recursive_bisection, tie_break_vector
from .tracking import ComponentTracker, FiedlerTracker, ShiftInvertTracker

__all__ = ["ActiveLoop", "new_loop", "resolve_budget", "base_seed", "SHIFT_INVERT_BATCH", "SPARSE_MIN_ITEMS"]

#: From this batch size on, each update factors the shifted Laplacian (:class:`ShiftInvertTracker`) instead of
#: adding the batch to a low-rank term on a stored eigendecomposition (:class:`FiedlerTracker`).
SHIFT_INVERT_BATCH = 8
#: From this many items on (two clusters, IU-RED or random), the loop keeps Ŵ sparse and solves iteratively
#: (:mod:`~paucity.clustering.sparse`, :class:`SparseTracker`): no n × n matrix. At 2,000 items (5 % of the pairs,
#: batches of 100) the two paths took about the same time and the dense one matched the seed's formula on 5 of 5
#: checked batches against the sparse one's 4, so the dense path keeps 2,000; at 4,000 its matrices reach half a GB
#: and its factorization 8 times the cost (docs/benchmarks.md).
SPARSE_MIN_ITEMS = 4000


def new_loop(n: int, settings: Mapping, *, budget: int, seed: int, reference=None) -> "ActiveLoop":
    """The in-memory loop over ``n`` items with ``settings`` (the estimator's checked parameters, or a
    session's :meth:`SessionSettings.to_dict() <paucity.clustering.SessionSettings.to_dict>`); the reference
    is checked."""
    check_interleave(settings["strategy"], settings["interleave"], owner="ActiveSpectralClustering")
    if settings["n_clusters"] > n:
        raise ParameterError(
            f"{owner_prefix('ActiveSpectralClustering')}{given('n_clusters', settings['n_clusters'])} but there are "
            f"only {n} items."
        )
    if reference is not None:
        reference = np.asarray(reference)
        if reference.ndim != 1 or len(reference) != n:
            raise ShapeMismatchError(
                f"reference must give one label per item: it has shape {reference.shape} but there are {n} items."
            )
        misclustering_error(reference, reference)  # refuses missing labels
    return ActiveLoop(n, settings, budget=budget, seed=seed, reference=reference)


class ActiveLoop:
    """One session of the active loop, in memory: Ŵ and its running estimates, pending asks, the log.

    It holds no database: a :class:`~paucity.clustering.ClusteringSession`
    feeds it what its store holds (:meth:`remember_measurement`,
    :meth:`set_pending`) and writes what it chooses.
    """

    def __init__(self, n, settings: Mapping, *, budget, seed, reference):
        self.n = n
        # the settings of the loop (seed 003, ch. 2), as SessionSettings declares them
        self.cut = str(settings["cut"]).lower()
        self.strategy = str(settings["strategy"]).lower()
        self.interleave = bool(settings["interleave"])
        self.repeats = int(settings["repeats"])
        self.batch_size = batch_size = int(settings["batch_size"])
        self.n_clusters = n_clusters = int(settings["n_clusters"])
        strategy = self.strategy
        self.budget = budget
        self.seed = seed
        self.reference = reference
        self.sparse = n >= SPARSE_MIN_ITEMS and strategy != "shamir_tishby" and n_clusters == 2
        self.estimates = RunningEstimates(n, sparse=self.sparse)
        self.components = ComponentTracker(n)
        if self.sparse:
            self.tracker = SparseTracker(n, seed=n)
        elif batch_size >= SHIFT_INVERT_BATCH:
            self.tracker = ShiftInvertTracker(n)
        else:
            self.tracker = FiedlerTracker(n, max_rank=max(96, 2 * batch_size))
        self.queries: list[tuple[int, int, float, int]] = []
        self.pending: list[tuple[int, int]] = []
        # pairs with a pending ask: an n × n 0/1 matrix, or on the sparse path a set
        self.asked = set() if self.sparse else np.zeros((n, n), dtype=np.int32)
        self.history: list[dict] = []
        self.block = None
        self.last_labels = None
        self.last_fiedler = None
        self._clustered_at = -1  # n_measured when last_labels were computed

    def _mark(self, i: int, j: int, asked: bool) -> None:
        if self.sparse:
            (self.asked.add if asked else self.asked.discard)((i, j))
        else:
            self.asked[i, j] = int(asked)

    @property
    def W(self):
        """Ŵ now: the dense matrix, or on the sparse path the CSR matrix."""
        return self.estimates.matrix()

    @property
    def blas_threads(self) -> int | None:
        """One BLAS thread: measured on two cores, a second thread slowed even the batch path at 2,000 items."""
        return 1

    @property
    def n_measured(self) -> int:
        return len(self.queries)

    @property
    def n_pending(self) -> int:
        return len(self.pending)

    def pending_pairs(self) -> np.ndarray:
        return np.array(self.pending, dtype=np.int64).reshape(-1, 2)

    def set_pending(self, pairs) -> None:
        """The pending asks are ``pairs`` (i < j), in the order asked: what a store holds now."""
        for i, j in self.pending:
            self._mark(i, j, False)
        self.pending = [(int(i), int(j)) for i, j in pairs]
        for i, j in self.pending:
            self._mark(i, j, True)

    def ask(self, count: int) -> np.ndarray:
        """Choose ``count`` pairs by one eigen-update and record them as pending."""
        first = self.n_measured + self.n_pending
        rng = np.random.default_rng([self.seed, first])
        numbers_ = np.arange(first, first + count)
        slots = np.full(count, self.strategy != "random")
        if self.interleave:
            slots &= numbers_ % 2 == 0
        cluster = self.strategy != "random" or self.reference is not None
        root, root_scores, root_direction = self.root(scores=self.strategy != "random") if cluster else (None,) * 3
        labels = None
        if root is not None and not root.defined and (root.n_components >= 3 or not self.sparse):
            labels = self.components.labels(self.W)  # kept by union-find: no scan of Ŵ
        elif self.sparse and root is not None and not root.defined and self.tracker.numerical_labels is not None:
            labels = self.tracker.numerical_labels  # numerically disconnected: join its parts
        if self.sparse:
            step = choose_pairs_sparse(
                self.W,
                strategy=self.strategy,
                slots=slots,
                estimates=self.estimates,
                asked=self.asked,
                repeats=self.repeats,
                rng=rng,
                population_sd=self.estimates.population_sd if self.repeats > 1 else None,
                root=root,
                root_direction=root_direction,
                component_labels=labels,
            )
        else:
            step = choose_pairs(
            self.estimates.W,
            strategy=self.strategy,
            slots=slots,
            counts=self.estimates.counts,
            asked=self.asked,
            repeats=self.repeats,
            rng=rng,
            n_clusters=self.n_clusters,
            population_sd=self.estimates.population_sd if self.repeats > 1 else None,
            start=self.block,
            cluster=cluster,
            root=root,
            root_scores=root_scores,
            root_direction=root_direction,
            component_labels=labels,
        )
        if step.fiedler is not None:
            labels = step.labels
            current = self.cut == "sign"
            if not current and self.reference is not None:  # the error of the history, by the chosen rule
                labels = recursive_bisection(self.W, self.n_clusters, root=step.fiedler, cut=self.cut)[0]
                current = True
            self.remember(labels, step.fiedler)
            if not current:
                self._clustered_at = -1  # the labels by ``cut`` are computed when asked for
            self.log(labels, step.fiedler)
        pairs = step.pairs
        for i, j in pairs:
            self.pending.append((int(i), int(j)))
            self._mark(int(i), int(j), True)
        return pairs

    def root(self, *, scores: bool) -> tuple[FiedlerVector, np.ndarray | None, np.ndarray | None]:
        """v̂₂ of Ŵ (all items) and, with ``scores``, what the strategy scores pairs by.

        Returns (fiedler, scores, g): S&T's n × n scores, or IU-RED's g (None
        where v̂₂ is undefined). Three or more components: v̂₂ is undefined
        (the tie-break vector). S&T: one dense eigendecomposition gives both.
        Up to 64 items: the dense path. Above: the :class:`FiedlerTracker` in
        the eigenbasis of its last refresh, refreshed when it is full or
        cannot vouch for its answer.
        """
        W = self.W
        count = self.components.n_components(W)
        if count >= 3:
            vector = tie_break_vector(self.components.labels(W))
            return FiedlerVector(0.0, vector, float("nan"), count, False), None, None
        if self.sparse:
            return self._sparse_root(W, count, scores=scores)
        if self.strategy == "shamir_tishby" and scores:
            fiedler, matrix = shamir_tishby_dense(W, count)
            return fiedler, matrix, None
        dense = self.n <= spectral.DENSE_MAX_ITEMS
        fiedler = None
        if not dense:
            if not self.tracker.ready:
                self.tracker.refresh(W)
            fiedler = self.tracker.fiedler(count)
            if fiedler is None:
                self.tracker.refresh(W)
                fiedler = self.tracker.fiedler(count)
        if fiedler is None:
            dense = True
            fiedler = fiedler_of(W, dense_max=self.n)
        if not (scores and self.strategy == "iu_red" and fiedler.defined):
            return fiedler, None, None
        g = None if dense else self.tracker.direction(nearest_to_boundary(fiedler.vector))
        if g is None:
            g = iu_red_direction(W, fiedler, dense_max=self.n).g
        return fiedler, None, g

    def _sparse_root(self, W, count: int, *, scores: bool):
        """:meth:`root` on the sparse path: v̂₂ and g by :class:`SparseTracker`.

        An update whose v̂₂ or g does not converge to its check returns v̂₂ as
        undefined (or g as None): its strategy slots are then measured at
        random, as at the start, rather than trusting an unchecked answer.
        """
        labels = self.components.labels(W) if count == 2 else None
        fiedler = self.tracker.fiedler(W, count, labels)
        if fiedler.n_components != count:  # two parts joined only by similarities too small to resolve
            fiedler = FiedlerVector(fiedler.value, fiedler.vector, fiedler.third_value, count, fiedler.defined, None)
        if not (scores and self.strategy == "iu_red" and fiedler.defined):
            return fiedler, None, None
        return fiedler, None, self.tracker.direction(fiedler, nearest_to_boundary(fiedler.vector))

    def check_asked(self, pairs: np.ndarray, *, hint: str = "tell() takes answers to the pairs ask() returned") -> None:
        """Refuse pairs that are not pending (never asked, answered already, or named more often than asked)."""
        outstanding: dict[tuple[int, int], int] = {}
        for pair in self.pending:
            outstanding[pair] = outstanding.get(pair, 0) + 1
        for i, j in pairs:
            key = (int(i), int(j))
            if outstanding.get(key, 0) == 0:
                answered = self.estimates.repeats_of(*key)
                why = "was answered already" if answered else "was never asked (or was withdrawn)"
                if key in self.pending:
                    named = sum(1 for a, b in pairs if (int(a), int(b)) == key)
                    why = f"was asked {self.pending.count(key)} time(s) but is named {named} times"
                raise InputError(f"pair ({key[0]}, {key[1]}) {why}; {hint} ({self.n_pending} pending).")
            outstanding[key] -= 1

    def withdraw(self, pairs: np.ndarray | None) -> np.ndarray:
        """Forget pending asks (checked by the caller), or all with None."""
        if pairs is None:
            pairs = self.pending_pairs()
            self.set_pending([])
            return pairs
        for i, j in pairs:
            key = (int(i), int(j))
            self.pending.remove(key)
            if key not in self.pending:
                self._mark(*key, False)
        return pairs

    def record(self, pairs: np.ndarray, values: np.ndarray) -> None:
        """Update Ŵ with answers, and forget the asks they answer."""
        for (i, j), value in zip(pairs, values):
            key = (int(i), int(j))
            if key in self.pending:
                self.pending.remove(key)
                self._mark(*key, False)
            self.remember_measurement(key[0], key[1], float(value))

    def remember_measurement(self, i: int, j: int, value: float) -> None:
        """Add one measurement to Ŵ, its estimates and the trackers."""
        before = self._value(i, j)
        after = self.estimates.add(i, j, value)
        self.components.change(i, j, before, after)
        self.tracker.update(i, j, after - before)
        self.queries.append((i, j, value, self.estimates.repeats_of(i, j)))

    def decide(self, i: int, j: int, value: float | None) -> None:
        """Set ŵᵢⱼ to a value a person decided (an adjudication; None goes back to the measurements' median):
        Ŵ, its components and the trackers follow; no measurement is added."""
        before = self._value(i, j)
        after = self.estimates.decide(i, j, value)
        if after != before:
            self.components.change(i, j, before, after)
            self.tracker.update(i, j, after - before)
            self._clustered_at = -1  # Ŵ changed without a measurement: cluster again

    def _value(self, i: int, j: int) -> float:
        """ŵᵢⱼ now (0 when unmeasured)."""
        if not self.sparse:
            return float(self.estimates.W[i, j])
        return self.estimates.median_of(i, j)

    def clusters(self) -> tuple[np.ndarray, FiedlerVector]:
        """The clustering of the current Ŵ and its v̂₂ (computed once per state of Ŵ)."""
        if self.last_labels is None or self._clustered_at != self.n_measured:
            root, _, _ = self.root(scores=False)
            labels, _ = recursive_bisection(self.W, self.n_clusters, root=root, cut=self.cut)
            self.remember(labels, root)
            self.log(labels, root)
        return self.last_labels, self.last_fiedler

    def remember(self, labels, fiedler) -> None:
        self.last_labels = labels
        self.last_fiedler = fiedler
        self._clustered_at = self.n_measured
        if fiedler.block is not None:
            self.block = fiedler.block

    def log(self, labels, fiedler) -> None:
        if self.history and self.history[-1]["n_queries"] == self.n_measured:
            return
        error = np.nan if self.reference is None else misclustering_error(labels, self.reference)
        pairs_total = self.n * (self.n - 1) / 2
        self.history.append(
            {
                "n_queries": self.n_measured,
                "fraction": self.n_measured / pairs_total,
                "n_components": fiedler.n_components,
                "error": error,
            }
        )

    def queries_frame(self) -> pd.DataFrame:
        m = len(self.queries)
        return pd.DataFrame(
            {
                "order": np.arange(1, m + 1, dtype=np.int64),
                "i": np.array([q[0] for q in self.queries], dtype=np.int64),
                "j": np.array([q[1] for q in self.queries], dtype=np.int64),
                "value": np.array([q[2] for q in self.queries], dtype=np.float64),
                "repeat": np.array([q[3] for q in self.queries], dtype=np.int64),
            }
        )

    def history_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.history, columns=["n_queries", "fraction", "n_components", "error"]).astype(
            {"n_queries": np.int64, "fraction": np.float64, "n_components": np.int64, "error": np.float64}
        )


def resolve_budget(budget, n: int, repeats: int, *, owner: str) -> int:
    """A budget as a number of measurements: an int as it is (at most n(n−1)/2 · repeats), a fraction of that."""
    pairs = n * (n - 1) // 2
    most = pairs * repeats
    if isinstance(budget, numbers.Integral):
        if budget > most:
            raise ParameterError(
                f"{owner_prefix(owner)}{given('budget', int(budget))} measurements is more than the {most} possible "
                f"for {n} items (n(n−1)/2 = {pairs} pairs, each measured at most {given('repeats', repeats)} "
                f"times); pass at most {most}, or a fraction such as 0.5."
            )
        return int(budget)
    return max(1, int(round(float(budget) * most)))


def base_seed(random_state) -> int:
    """An integer seed: the one given, or one drawn from ``random_state`` (None: fresh entropy)."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).integers(0, 2**63 - 1))
