"""ActiveSpectralClustering: spectral clustering that chooses which similarities to measure (seed 003, ch. 2)."""

from __future__ import annotations

import numbers
import os

import numpy as np
from sklearn.base import BaseEstimator
from threadpoolctl import threadpool_limits

from .._errors import ParameterError
from .._progress import progress_bar
from .._validation import BOOLEAN, Instance, validate_params
from .backend import InMemoryBackend, LoopBackend
from ._checks import check_n_items, check_pairs, check_values
from .estimates import SimilarityEstimates
from .loop import SHIFT_INVERT_BATCH, ActiveLoop, base_seed, new_loop, resolve_budget
from .settings import constraints, estimator_init, fill_parameters_doc, hints
from .store import MeasurementStore

__all__ = ["ActiveSpectralClustering", "SHIFT_INVERT_BATCH"]


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
    {settings}
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
    eigenvalue count); one dense eigendecomposition every 96 changes (or
    2 × ``batch_size``), or whenever a check fails. From ``batch_size`` 8 on,
    :class:`~paucity.clustering.tracking.ShiftInvertTracker`: each update
    factors the Laplacian shifted just below λ̂₂ (a Cholesky factorization,
    which certifies the shift is below λ̂₂), then warm-started subspace
    iteration and preconditioned conjugate gradients for g, checked by their
    residuals; its cost does not grow with the batch. From
    :data:`~paucity.clustering.loop.SPARSE_MIN_ITEMS` items on (IU-RED or
    random, two clusters), no n × n matrix at all: Ŵ is kept as its measured
    pairs and read as CSR, v̂₂ comes from warm-started LOBPCG and g from
    preconditioned conjugate gradients
    (:class:`~paucity.clustering.sparse.SparseTracker`), and an update
    whose graph is disconnected, numerically too, measures pairs joining its
    parts. BLAS runs on one thread.
    The pairs
    are scored in one O(n²) pass. S&T needs every eigenvector: a dense
    eigendecomposition per step, O(n³). Memory: a few n × n matrices below
    the sparse path, O(n + measurements) on it.

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

    # the settings of the loop are declared once, in SessionSettings: their defaults, checks, hints and docs
    __init__ = estimator_init(progress=False, store=None)
    _parameter_constraints = {
        **constraints("estimator"),
        "progress": [BOOLEAN],
        "store": [None, Instance(str, os.PathLike, MeasurementStore,
                                 description="a file path, an SQLAlchemy URL or a MeasurementStore")],
    }
    _parameter_hints = hints("estimator")

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
        backend = self._backend(params, n_items, reference)
        loop = backend.loop
        source = str(getattr(oracle, "name", type(oracle).__name__))
        # many small eigenproblems and solves: BLAS threads only add synchronization
        try:
            with threadpool_limits(loop.blas_threads, user_api="blas"), progress_bar(loop.budget, f"Active clustering ({params['strategy']})", enabled=params["progress"]) as bar:
                bar.advance(min(loop.n_measured, loop.budget))
                pending = backend.pending()
                if len(pending):  # asked before the interruption: ask again, in the same order
                    backend.record(pending, _answers(oracle, pending), source=source, check=False)
                    bar.advance(len(pending))
                while loop.n_measured < loop.budget:
                    pairs = backend.choose(min(params["batch_size"], loop.budget - loop.n_measured))
                    if len(pairs) == 0:
                        break
                    backend.record(pairs, _answers(oracle, pairs), source=source, check=False)
                    bar.advance(len(pairs))
                self._session = backend
                self._publish(loop)
        finally:
            backend.close()
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
        backend = getattr(self, "_session", None)
        if backend is None or (n_items is not None and n_items != backend.loop.n):
            backend = self._backend(validate_params(self), n_items, None)
            self._session = backend
        loop = backend.loop
        if n is None:
            n = loop.batch_size
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ParameterError(f"ActiveSpectralClustering.ask: n must be an integer >= 1, got {n!r}.")
        try:
            with threadpool_limits(loop.blas_threads, user_api="blas"):
                pairs = backend.choose(int(n))
                self._publish(loop, recluster=False)
        finally:
            backend.close()
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
        backend = self._resumed("has asked nothing yet; call ask(n, n_items=...) first, and tell it the answers "
                                "to those pairs")
        pairs = check_pairs(pairs, backend.loop.n)
        values = check_values(values, len(pairs))
        try:
            backend.record(pairs, values, source=source, check=True)
            with threadpool_limits(backend.loop.blas_threads, user_api="blas"):
                self._publish(backend.loop)
        finally:
            backend.close()
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
        backend = self._resumed("has asked nothing yet, so there is nothing to withdraw; call ask(n, n_items=...) "
                                "first")
        if pairs is not None:
            pairs = check_pairs(pairs, backend.loop.n)
        try:
            return backend.withdraw(pairs)
        finally:
            backend.close()

    # -- internals ------------------------------------------------------------------------------------------------
    def _resumed(self, why: str):
        """The session asks were made in: this process's, or with a ``store`` an earlier process's."""
        backend = getattr(self, "_session", None)
        if backend is None and self.store is not None:
            backend = self._backend(validate_params(self), None, None)
            self._session = backend
        if backend is None:
            from .._errors import NotFittedError

            raise NotFittedError(f"This ActiveSpectralClustering {why}.")
        return backend

    def _backend(self, params, n_items, reference) -> LoopBackend:
        """Where the loop's asks and answers live: this process (no store), or a ClusteringSession's database."""
        if reference is not None:
            reference = np.asarray(reference)
        if params["store"] is not None:
            from .session import ClusteringSession  # the session imports the loop, not this estimator

            session = ClusteringSession.for_estimator(params["store"], params, n_items=n_items)
            try:
                return session.backend(reference)
            except BaseException:
                session.close()
                raise
        if n_items is None:
            raise ParameterError(
                "ActiveSpectralClustering: the number of items is unknown; pass n_items=..., or an oracle with an "
                "n_items attribute (MatrixOracle has one)."
            )
        n = check_n_items(n_items)
        return InMemoryBackend(new_loop(n, params, budget=resolve_budget(params["budget"], n, params["repeats"],
                                                                        owner="ActiveSpectralClustering"),
                                        seed=base_seed(params["random_state"]), reference=reference))

    def _publish(self, loop: ActiveLoop, recluster: bool = True) -> None:
        if recluster or loop.last_labels is None or loop.cut != "sign":
            loop.clusters()
        self.labels_ = loop.last_labels
        self.embedding_ = loop.last_fiedler.vector
        self.n_queries_ = loop.n_measured
        self.queries_ = loop.queries_frame()
        self.history_ = loop.history_frame()
        self.estimates_: SimilarityEstimates = loop.estimates.snapshot()
        self.n_items_ = loop.n
        self.budget_ = loop.budget


def _answers(oracle, pairs: np.ndarray) -> np.ndarray:
    values = oracle.query(pairs.copy())
    return check_values(values, len(pairs), name="the oracle's answers", source=type(oracle).__name__)


ActiveSpectralClustering.__doc__ = fill_parameters_doc(ActiveSpectralClustering.__doc__, "{settings}", "estimator")
