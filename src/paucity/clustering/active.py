"""ActiveSpectralClustering: spectral clustering that chooses which similarities to measure (seed 003, ch. 2)."""

from __future__ import annotations

import numbers
import os

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from threadpoolctl import threadpool_limits

from .._errors import InputError, NotFittedError, ParameterError, ShapeMismatchError
from .._progress import progress_bar
from .._validation import BOOLEAN, RANDOM_STATE, Instance, Interval, Options, check_random_state, validate_params
from ._checks import check_n_items, check_pairs, check_values
from . import spectral
from .estimates import RunningEstimates, SimilarityEstimates
from .metrics import misclustering_error
from .scores import iu_red_direction, nearest_to_boundary, shamir_tishby_dense
from .selection import choose_pairs
from .spectral import FiedlerVector, fiedler_of, recursive_bisection, tie_break_vector
from .store import MeasurementStore
from .tracking import ComponentTracker, FiedlerTracker, ShiftInvertTracker

__all__ = ["ActiveSpectralClustering"]

#: From this batch size on, each update factors the shifted Laplacian (:class:`ShiftInvertTracker`) instead of
#: adding the batch to a low-rank term on a stored eigendecomposition (:class:`FiedlerTracker`).
SHIFT_INVERT_BATCH = 8


class ActiveSpectralClustering(BaseEstimator):
    """Spectral clustering that measures only the similarities most likely to settle the clusters.

    Starting from no measurement, each step computes v̂₂ of the Laplacian of
    the current estimate Ŵ (zeros for unmeasured pairs, eq. 2.2), scores every
    pair that may still be measured, asks an oracle for the best ones, and
    updates Ŵ, until the budget is spent. ``fit(oracle)`` runs the whole loop;
    ``ask`` and ``tell`` run it one batch at a time for people who answer
    when they can, and ``withdraw`` takes back asks that will never be
    answered.

    Parameters
    ----------
    strategy : {"iu_red", "shamir_tishby", "random"}, default="iu_red"
        ``"iu_red"``: the pair whose measurement most moves the item nearest
        the cluster boundary, |dv̂₂(k_min)/dŵᵢⱼ| (Algorithm 1).
        ``"shamir_tishby"``: the pair that most moves v̂₂ as a whole,
        ‖dv̂₂/dŵᵢⱼ‖² (Algorithm 2). ``"random"``: uniformly random pairs.
    interleave : bool, default=False
        Alternate the strategy's pairs with uniformly random ones (the
        measurements numbered 1, 3, 5, ... from 0 are random), as the seed's
        "interleave" variants do.
    budget : int or float, default=0.1
        An int: the number of measurements. A float in (0, 1]: that fraction
        of the n(n−1)/2 pairs, times ``repeats`` (rounded, at least 1).
    repeats : int, default=1
        The most measurements of one pair. With 1 each pair is measured at
        most once (Algorithms 1 and 2). With R > 1, the noisy variant of
        §2.5: Ŵ holds the median of each pair's measurements, and a step
        maximizes σ̂ᵢⱼ · score, where σ̂ᵢⱼ = √(1/12) before any measurement and
        s/√r after r (s the pooled standard deviation of the repeated pairs),
        so a pair is measured again when it is uncertain and matters.
    batch_size : int, default=1
        Pairs chosen per eigen-update: the best ``batch_size`` pairs. 1 is the
        seed's algorithm exactly; a crowd team sends out batches.
    n_clusters : int, default=2
        More than two by recursive bisection: the largest cluster is split
        next by the v̂₂ of its own sub-matrix. Each split scores the pairs of
        its items, and a step takes the best score over all splits.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the random choices (random strategy, interleaved slots, the
        start). Each batch draws from a generator seeded by (seed, number of
        the batch's first measurement), so a resumed session makes the same
        choices as one never interrupted.
    progress : bool, default=False
        Show a progress bar over the budget.
    store : str, os.PathLike, MeasurementStore or None, default=None
        Persist every measurement and pending ask in a
        :class:`~paucity.clustering.MeasurementStore` (a path or an SQLAlchemy
        URL). ``fit`` on a store that holds an earlier session resumes it:
        pairs asked and never answered are asked again, answered ones are not.

    Attributes
    ----------
    labels_ : ndarray of shape (n_items,)
        The clustering of the final Ŵ: integers 0..n_clusters−1 in order of
        first appearance (eq. 2.1, recursively).
    embedding_ : ndarray of shape (n_items,)
        v̂₂ of the final Ŵ (unit norm, orthogonal to 1, its largest entry positive).
    queries_ : pandas.DataFrame
        Every measurement in order: ``order`` (from 1), ``i``, ``j`` (i < j),
        ``value``, ``repeat`` (1 for a pair's first measurement).
    n_queries_ : int
        Measurements made (the session's, a resumed session's included).
    history_ : pandas.DataFrame
        One row per eigen-update of this session in this process:
        ``n_queries`` (measurements before it), ``fraction`` (n_queries /
        (n(n−1)/2)), ``n_components`` (of the graph of positive
        similarities), and ``error``, the
        :func:`~paucity.clustering.misclustering_error` against ``reference``
        when ``fit`` was given one (NaN otherwise). The last row is the final
        Ŵ. (The random strategy without a reference clusters only the final Ŵ.)
    estimates_ : SimilarityEstimates
        Median, repeats and σ̂ of every measured pair.
    n_items_ : int
    budget_ : int
        The budget in measurements.

    Notes
    -----
    Seed 003, chapter 2: Ŵ with zeros imputed (2.2), the unnormalized
    Laplacian, first-order perturbation of v̂₂ (2.6), IU-RED (Algorithm 1),
    S&T (Algorithm 2), noisy repeats (§2.5).

    The start. Algorithm 1 starts from Ŵ = I, where L̂ = 0 and v̂₂ is
    undefined; it stays undefined while the graph of positive measured
    similarities has three or more connected components (λ̂₂ = 0 repeated),
    and eq. (2.6) divides by zero. Until v̂₂ is defined, a step therefore
    measures pairs chosen uniformly at random among those joining two
    different components, which makes v̂₂ defined after as few measurements
    as possible (n − 2 when no similarity is 0); the labels meanwhile split
    the largest component from the rest. (A repeated λ̂₂ in a connected graph,
    a symmetry of Ŵ, is handled the same way with any remaining pair.)

    Cost of a step. Up to 64 items, dense eigendecompositions. Above, with
    ``batch_size`` below 8, v̂₂ and IU-RED's g come from
    :class:`~paucity.clustering.tracking.FiedlerTracker`: the spectrum at its
    last refresh plus the low-rank change of the pairs measured since, solved
    by warm-started shift-and-invert subspace iteration with the Woodbury
    identity and checked (residuals, and Sylvester's law of inertia for the
    eigenvalue count); one dense eigendecomposition every 48 changes (or
    2 × ``batch_size``), or whenever a check fails. From ``batch_size`` 8 on,
    :class:`~paucity.clustering.tracking.ShiftInvertTracker`: each update
    factors the Laplacian shifted just below λ̂₂ (a Cholesky factorization,
    which certifies the shift is below λ̂₂), then warm-started subspace
    iteration and preconditioned conjugate gradients for g, checked by their
    residuals; its cost does not grow with the batch. BLAS runs on one thread.
    The pairs
    are scored in one O(n²) pass. S&T needs every eigenvector: a dense
    eigendecomposition per step, O(n³). Memory: a few n × n matrices.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.clustering import MatrixOracle, spectral_bisection, misclustering_error
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (20, 2)), rng.normal(5, 1, (20, 2))]  # two groups of 20 points
    >>> W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    >>> model = ActiveSpectralClustering(budget=0.2, random_state=0)
    >>> model.fit(MatrixOracle(W), reference=spectral_bisection(W))
    ActiveSpectralClustering(budget=0.2, random_state=0)
    >>> model.n_queries_, misclustering_error(model.labels_, spectral_bisection(W))  # 156 of 780 pairs
    (156, 0.0)
    """

    _parameter_constraints = {
        "strategy": [Options("iu_red", "shamir_tishby", "random")],
        "interleave": [BOOLEAN],
        "budget": [Interval(numbers.Integral, 1, None), Interval(numbers.Real, 0, 1, closed="right")],
        "repeats": [Interval(numbers.Integral, 1, None)],
        "batch_size": [Interval(numbers.Integral, 1, None)],
        "n_clusters": [Interval(numbers.Integral, 2, None)],
        "random_state": [RANDOM_STATE],
        "progress": [BOOLEAN],
        "store": [None, Instance(str, os.PathLike, MeasurementStore,
                                 description="a file path, an SQLAlchemy URL or a MeasurementStore")],
    }
    _parameter_hints = {
        "budget": "Give a number of measurements (an int) or a fraction of the pairs (a float such as 0.1).",
        "strategy": "IU-RED is the seed's method; S&T and random are its baselines.",
    }

    def __init__(
        self,
        strategy="iu_red",
        interleave=False,
        budget=0.1,
        repeats=1,
        batch_size=1,
        n_clusters=2,
        random_state=None,
        progress=False,
        store=None,
    ):
        self.strategy = strategy
        self.interleave = interleave
        self.budget = budget
        self.repeats = repeats
        self.batch_size = batch_size
        self.n_clusters = n_clusters
        self.random_state = random_state
        self.progress = progress
        self.store = store

    # -- the whole loop -------------------------------------------------------------------------------------------
    def fit(self, oracle, n_items=None, *, reference=None):
        """Run the active loop until the budget is spent.

        Parameters
        ----------
        oracle : SimilarityOracle
            Answers ``query(pairs)`` with similarities in [0, 1].
        n_items : int, optional
            The number of items; by default the oracle's ``n_items`` (or the store's).
        reference : array-like of shape (n_items,), optional
            A reference clustering (e.g. :func:`spectral_bisection` of the
            complete matrix): ``history_`` then holds the error curve.

        Returns
        -------
        self
        """
        params = validate_params(self)
        query = getattr(oracle, "query", None)
        if not callable(query):
            raise ParameterError(
                f"ActiveSpectralClustering.fit: oracle must have a query(pairs) method (a SimilarityOracle such as "
                f"MatrixOracle or FunctionOracle), got {type(oracle).__name__}."
            )
        if n_items is None:
            n_items = getattr(oracle, "n_items", None)
        session = self._new_session(params, n_items, reference)
        source = str(getattr(oracle, "name", type(oracle).__name__))
        # many small eigenproblems and solves: BLAS threads only add synchronization
        with threadpool_limits(session.blas_threads, user_api="blas"), progress_bar(session.budget, f"Active clustering ({params['strategy']})", enabled=params["progress"]) as bar:
            bar.advance(min(session.n_measured, session.budget))
            pending = session.pending_pairs()
            if len(pending):  # asked before the interruption: ask again, in the same order
                session.record(pending, _answers(oracle, pending), source)
                bar.advance(len(pending))
            while session.n_measured < session.budget:
                pairs = session.ask(min(params["batch_size"], session.budget - session.n_measured))
                if len(pairs) == 0:
                    break
                session.record(pairs, _answers(oracle, pairs), source)
                bar.advance(len(pairs))
            self._session = session
            self._publish(session)
        return self

    # -- step by step ---------------------------------------------------------------------------------------------
    def ask(self, n=None, *, n_items=None):
        """The next pairs to measure (and remember them as asked).

        Parameters
        ----------
        n : int, optional
            How many pairs; ``batch_size`` by default. Fewer come back when the
            budget (counting pairs asked and not answered) is nearly spent, none
            when it is spent.
        n_items : int, optional
            The number of items, needed by the first ``ask`` of a session
            unless the store knows it.

        Returns
        -------
        ndarray of shape (m, 2)
            Item indices, i < j in each row. Pairs already asked and not yet
            answered are not asked again.
        """
        session = getattr(self, "_session", None)
        if session is None or (n_items is not None and n_items != session.n):
            session = self._new_session(validate_params(self), n_items, None)
            self._session = session
        if n is None:
            n = session.batch_size
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ParameterError(f"ActiveSpectralClustering.ask: n must be an integer >= 1, got {n!r}.")
        remaining = session.budget - session.n_measured - session.n_pending
        with threadpool_limits(session.blas_threads, user_api="blas"):
            pairs = session.ask(min(int(n), remaining)) if remaining > 0 else np.empty((0, 2), dtype=np.int64)
            self._publish(session, recluster=False)
        return pairs

    def tell(self, pairs, values, *, source: str = "tell"):
        """Record the answers to pairs that were asked.

        Parameters
        ----------
        pairs : array-like of shape (m, 2)
            Pairs returned by :meth:`ask`, in any order and either orientation.
        values : array-like of shape (m,)
            Their similarities, in [0, 1].
        source : str, default="tell"
            Who answered (stored with each measurement).

        With a ``store``, the pairs may have been asked by an earlier process:
        the pending asks are read from the database.

        Returns
        -------
        self
        """
        session = getattr(self, "_session", None)
        if session is None and self.store is not None:  # answers to what an earlier process asked
            session = self._new_session(validate_params(self), None, None)
            self._session = session
        if session is None:
            raise NotFittedError(
                "This ActiveSpectralClustering has asked nothing yet; call ask(n, n_items=...) first, "
                "and tell it the answers to those pairs."
            )
        pairs = check_pairs(pairs, session.n)
        values = check_values(values, len(pairs))
        session.check_asked(pairs)
        session.record(pairs, values, source)
        with threadpool_limits(session.blas_threads, user_api="blas"):
            self._publish(session)
        return self

    def withdraw(self, pairs=None):
        """Take back pairs that were asked and will never be answered.

        An ask is withdrawn when no answer will come (the annotator left, the
        pair was sent out by mistake). A withdrawn pair is no longer pending:
        :meth:`tell` refuses answers to it, it stops counting against the
        budget, and since it was never measured a later :meth:`ask` may
        choose it again (nothing else changed, so the strategy often does,
        which is how an ask moves to another annotator).

        Parameters
        ----------
        pairs : array-like of shape (m, 2), optional
            Pairs that are pending, in either orientation; None withdraws
            every pending pair.

        Returns
        -------
        ndarray of shape (m, 2)
            The pairs withdrawn (i < j): in the order given, or with
            ``pairs=None`` in the order asked.

        Raises
        ------
        InputError
            When a pair is not pending (never asked, answered already, or
            named more often than it was asked); nothing is withdrawn.

        Notes
        -----
        With a ``store`` the withdrawal is written in one transaction before
        the session forgets the asks, so a process killed at any point
        resumes with the asks either all pending or all withdrawn; the pending
        asks may come from an earlier process.

        Examples
        --------
        >>> model = ActiveSpectralClustering(budget=6, random_state=0)
        >>> pairs = model.ask(3, n_items=5)
        >>> model.withdraw(pairs[:1]).shape  # one ask will never be answered
        (1, 2)
        >>> len(model.ask(4))  # the budget counts 2 pending asks: 4 more may go out
        4
        """
        session = getattr(self, "_session", None)
        if session is None and self.store is not None:  # asks of an earlier process
            session = self._new_session(validate_params(self), None, None)
            self._session = session
        if session is None:
            raise NotFittedError(
                "This ActiveSpectralClustering has asked nothing yet, so there is nothing to withdraw; call "
                "ask(n, n_items=...) first."
            )
        if pairs is not None:
            pairs = check_pairs(pairs, session.n)
            session.check_asked(pairs, hint="withdraw() takes pairs that ask() returned and wait for an answer")
        return session.withdraw(pairs)

    # -- internals ------------------------------------------------------------------------------------------------
    def _new_session(self, params, n_items, reference) -> _Session:
        store = params["store"]
        if store is not None and not isinstance(store, MeasurementStore):
            store = MeasurementStore(store)
        if n_items is None and store is not None:
            n_items = store.n_items
        if n_items is None:
            raise ParameterError(
                "ActiveSpectralClustering: the number of items is unknown; pass n_items=..., or an oracle with an "
                "n_items attribute (MatrixOracle has one)."
            )
        n = check_n_items(n_items)
        if params["n_clusters"] > n:
            raise ParameterError(
                f"ActiveSpectralClustering: n_clusters={params['n_clusters']} but there are only {n} items."
            )
        budget = _resolve_budget(params["budget"], n, params["repeats"])
        if reference is not None:
            reference = np.asarray(reference)
            if reference.ndim != 1 or len(reference) != n:
                raise ShapeMismatchError(
                    f"reference must give one label per item: it has shape {reference.shape} but there are {n} items."
                )
            misclustering_error(reference, reference)  # refuses missing labels
        seed = _base_seed(params["random_state"])
        if store is not None:
            store.set_n_items(n)
            meta = store.metadata
            if "seed" in meta:
                seed = int(meta["seed"])
            store.update_metadata(
                {
                    "seed": seed,
                    "strategy": params["strategy"],
                    "interleave": params["interleave"],
                    "repeats": params["repeats"],
                    "n_clusters": params["n_clusters"],
                }
            )
        return _Session(
            n,
            strategy=params["strategy"],
            interleave=bool(params["interleave"]),
            repeats=int(params["repeats"]),
            batch_size=int(params["batch_size"]),
            n_clusters=int(params["n_clusters"]),
            budget=budget,
            seed=seed,
            store=store,
            reference=reference,
        )

    def _publish(self, session: _Session, recluster: bool = True) -> None:
        if recluster or session.last_labels is None:
            root, _, _ = session.root(scores=False)
            labels, splits = recursive_bisection(session.estimates.W, session.n_clusters, root=root)
            session.remember(labels, root)
            session.log(labels, root)
        self.labels_ = session.last_labels
        self.embedding_ = session.last_fiedler.vector
        self.n_queries_ = session.n_measured
        self.queries_ = session.queries_frame()
        self.history_ = session.history_frame()
        self.estimates_: SimilarityEstimates = session.estimates.snapshot()
        self.n_items_ = session.n
        self.budget_ = session.budget


class _Session:
    """One session of the active loop: Ŵ and its running estimates, pending asks, the log; mirrored in a store."""

    def __init__(self, n, *, strategy, interleave, repeats, batch_size, n_clusters, budget, seed, store, reference):
        self.n = n
        self.strategy = strategy
        self.interleave = interleave
        self.repeats = repeats
        self.batch_size = batch_size
        self.n_clusters = n_clusters
        self.budget = budget
        self.seed = seed
        self.store = store
        self.reference = reference
        self.estimates = RunningEstimates(n)
        self.components = ComponentTracker(n)
        if batch_size >= SHIFT_INVERT_BATCH:
            self.tracker = ShiftInvertTracker(n)
        else:
            self.tracker = FiedlerTracker(n, max_rank=max(48, 2 * batch_size))
        self.queries: list[tuple[int, int, float, int]] = []
        self.pending: list[tuple[int, int]] = []
        self.asked = np.zeros((n, n), dtype=np.int32)
        self.history: list[dict] = []
        self.block = None
        self.last_labels = None
        self.last_fiedler = None
        if store is not None:
            frame = store.measurements()
            for i, j, value in zip(frame["i"].to_numpy(), frame["j"].to_numpy(), frame["value"].to_numpy()):
                self._remember_measurement(int(i), int(j), float(value))
            for i, j in store.pending():
                self.pending.append((int(i), int(j)))
                self.asked[i, j] = 1

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
        if root is not None and not root.defined and root.n_components >= 3:
            labels = self.components.labels(self.estimates.W)
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
            self.remember(step.labels, step.fiedler)
            self.log(step.labels, step.fiedler)
        pairs = step.pairs
        if self.store is not None and len(pairs):
            self.store.add_pending(pairs)
        for i, j in pairs:
            self.pending.append((int(i), int(j)))
            self.asked[i, j] = 1
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
        W = self.estimates.W
        count = self.components.n_components(W)
        if count >= 3:
            vector = tie_break_vector(self.components.labels(W))
            return FiedlerVector(0.0, vector, float("nan"), count, False), None, None
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
        """Forget pending asks (checked by the caller), or all with None: in the store first, then here."""
        if pairs is None:
            pairs = self.store.withdraw_pending() if self.store is not None else self.pending_pairs()
            for i, j in self.pending:
                self.asked[i, j] = 0
            self.pending.clear()
            return pairs
        if self.store is not None and len(pairs):
            self.store.withdraw_pending(pairs)  # one transaction, all or nothing
        for i, j in pairs:
            key = (int(i), int(j))
            self.pending.remove(key)
            if key not in self.pending:
                self.asked[key] = 0
        return pairs

    def record(self, pairs: np.ndarray, values: np.ndarray, source: str) -> None:
        """Store the measurements (durably first), then update Ŵ."""
        if self.store is not None:
            self.store.add(pairs, values, source=source)
        for (i, j), value in zip(pairs, values):
            key = (int(i), int(j))
            if key in self.pending:
                self.pending.remove(key)
                self.asked[key] = 0
            self._remember_measurement(key[0], key[1], float(value))

    def _remember_measurement(self, i: int, j: int, value: float) -> None:
        before = self.estimates.W[i, j]
        after = self.estimates.add(i, j, value)
        self.components.change(i, j, before, after)
        self.tracker.update(i, j, after - before)
        self.queries.append((i, j, value, self.estimates.repeats_of(i, j)))

    def remember(self, labels, fiedler) -> None:
        self.last_labels = labels
        self.last_fiedler = fiedler
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


def _answers(oracle, pairs: np.ndarray) -> np.ndarray:
    values = oracle.query(pairs.copy())
    return check_values(values, len(pairs), name="the oracle's answers", source=type(oracle).__name__)


def _resolve_budget(budget, n: int, repeats: int) -> int:
    pairs = n * (n - 1) // 2
    most = pairs * repeats
    if isinstance(budget, numbers.Integral):
        if budget > most:
            raise ParameterError(
                f"ActiveSpectralClustering: budget={int(budget)} measurements is more than the n(n−1)/2 · repeats = "
                f"{pairs} · {repeats} = {most} possible for {n} items; pass at most {most}, or a fraction such as 0.5."
            )
        return int(budget)
    return max(1, int(round(float(budget) * most)))


def _base_seed(random_state) -> int:
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).integers(0, 2**63 - 1))
