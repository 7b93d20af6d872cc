"""RankCentrality and its regularizations (seed 000, chapter 3)."""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._errors import InputError, ParameterError, PaucityWarning
from .._validation import check_choice
from .base import Ranker, as_comparisons, dask_comparisons_class
from .similarity import Similarity, agreement_similarity, gaussian_similarity, precomputed_similarity
from .stationary import SOLVERS, stationary_distribution
from .transitions import TRANSITIONS, transition_matrix

__all__ = ["RankCentrality", "KERNELS", "REGULARIZATIONS"]

REGULARIZATIONS = (None, "uniform", "similarity")
KERNELS = ("gaussian", "agreement", "precomputed")


class RankCentrality(Ranker):
    """Scores as the stationary distribution of a Markov chain on the items.

    Every comparison moves probability mass from the item that lost towards
    the item that won; the chain's stationary distribution π scores the items
    (it sums to 1 and is proportional to the BTL weights in the limit of many
    comparisons).

    Parameters
    ----------
    transition : {"nos", "ra", "sampling"}, default="nos"
        The empirical chain: Q̂^NOS (3.3), Q̂^RA (3.4) or the sampling-weighted
        Q̂ of (3.5). See :mod:`paucity.ranking.transitions`.
    regularization : {None, "uniform", "similarity"}, default=None
        ``None``: Algorithm 6; when the chain is not irreducible (the directed
        comparison graph is not strongly connected) the uniform distribution is
        returned with a warning naming the number of components.
        ``"uniform"``: λ-regularized RankCentrality (Algorithm 7), the chain
        ``Q̂ D_λ`` with ``D_λ = (1−λ)I + (λ/n)11ᵀ``. ``"similarity"``: the chain
        ``Q̂ D_λ D′`` of §3.5 with ``D′`` from item features or a similarity
        matrix attached to the comparisons.
    lam : float, optional
        λ in [0, 1). Defaults to ``1/n`` when regularizing; must be left unset
        (or 0) without regularization.
    pair_probabilities : array or sparse matrix (n, n), optional
        μᵢⱼ for ``transition="sampling"`` (uniform when not given).
    kernel : {"gaussian", "agreement", "precomputed"}, optional
        How ``D′`` is built for ``regularization="similarity"``: a Gaussian
        kernel of width ``sigma`` on continuous features, agreement counts
        with tightness ``tau`` on discrete features, or the similarity matrix
        of the comparisons. Default: ``"precomputed"`` when the comparisons
        carry a similarity matrix, ``"gaussian"`` otherwise.
    sigma : float, default=1.0
        Kernel width of the Gaussian kernel.
    tau : float, optional
        Tightness of the agreement kernel; must exceed every row sum of the
        agreement counts (default: 1 + the largest row sum).
    n_neighbors : int, optional
        Keep only this many nearest neighbours in the Gaussian kernel (sparse
        ``D′``). Defaults to all items up to 2,000 items and 50 beyond.
    solver : {"linear", "power", "arpack"}, default="linear"
        How the stationary distribution is computed; see
        :mod:`paucity.ranking.stationary`. None of them forms an n × n matrix.
    tol : float, default=1e-12
        Target residual ``‖πM − π‖₁``; a warning is raised when it is not met.
    max_iter : int, optional
        Cap on matrix–vector products.

    Attributes
    ----------
    scores_ : pandas.Series
        π, indexed by item label (sums to 1).
    ranking_ : pandas.Index
        Item labels, best first (ties in item order).
    lam_ : float
        The λ used.
    ergodic_ : bool
        Whether the chain had a unique stationary distribution (always true
        when regularized).
    n_components_ : int
        Strongly connected components of the comparison graph (1 when
        regularized, where it is not needed).
    residual_, n_iter_ : float, int
        ``‖πM − π‖₁`` and matrix–vector products of the solver.

    Notes
    -----
    Seed 000, Algorithms 6 and 7, equations (3.3)–(3.5), and §3.5 (similarity
    regularization, ``D_λ D′``). The probability that ``j`` is preferred to
    ``i`` is taken from the BTL model with weights π: πⱼ / (πᵢ + πⱼ).

    Examples
    --------
    >>> from paucity.ranking import Comparisons, RankCentrality
    >>> c = Comparisons.from_winners(["b", "c", "c", "a", "b"], ["a", "b", "a", "b", "c"])
    >>> model = RankCentrality().fit(c)
    >>> model.scores_.round(4).to_dict()
    {'a': 0.1111, 'b': 0.3333, 'c': 0.5556}
    >>> list(model.ranking_)
    ['c', 'b', 'a']
    """

    def __init__(
        self,
        transition="nos",
        regularization=None,
        lam=None,
        pair_probabilities=None,
        kernel=None,
        sigma=1.0,
        tau=None,
        n_neighbors=None,
        solver="linear",
        tol=1e-12,
        max_iter=None,
    ):
        self.transition = transition
        self.regularization = regularization
        self.lam = lam
        self.pair_probabilities = pair_probabilities
        self.kernel = kernel
        self.sigma = sigma
        self.tau = tau
        self.n_neighbors = n_neighbors
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y=None, sample_weight=None):
        """Fit on a :class:`~paucity.ranking.Comparisons` (or pairs ``X`` with outcomes ``y``)."""
        transition = check_choice(self.transition, TRANSITIONS, "transition")
        regularization = self._regularization()
        solver = check_choice(self.solver, SOLVERS, "solver")
        if self.pair_probabilities is not None and transition != "sampling":
            raise ParameterError(
                f"pair_probabilities is used by transition='sampling' (3.5) only, not {transition!r}."
            )
        tol = self.tol
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not np.isfinite(tol) or tol <= 0:
            raise ParameterError(f"tol must be a positive number, got {tol!r}.")
        if self.max_iter is not None and (
            isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1
        ):
            raise ParameterError(f"max_iter must be a positive integer or None, got {self.max_iter!r}.")
        dask_input = dask_comparisons_class()
        if dask_input is not None and isinstance(X, dask_input):
            return self._fit_dask(X, transition, regularization, solver)
        comparisons = as_comparisons(X, y, sample_weight)
        lam = self._lam(comparisons.n_items, regularization)
        chain = transition_matrix(comparisons, transition, self.pair_probabilities)
        similarity = self._similarity(comparisons) if regularization == "similarity" else None
        self.lam_ = lam
        self.n_components_ = 1
        self.ergodic_ = True
        if regularization is None:
            # the chain moves from i to j exactly when j beat i: the loser -> winner graph
            n_components = comparisons.pairs.strong_components()
            self.n_components_ = n_components
            if n_components > 1:
                self.ergodic_ = False
                warnings.warn(
                    f"the comparison graph has {n_components} strongly connected components, so the chain is not "
                    "ergodic and RankCentrality returns the uniform distribution (Algorithm 6); use "
                    "regularization='uniform' to rank from few comparisons.",
                    PaucityWarning,
                    stacklevel=2,
                )
                n = comparisons.n_items
                self.residual_, self.n_iter_ = 0.0, 0
                self._set_scores(comparisons.items, np.full(n, 1.0 / n))
                return self
        return self._stationary(chain, lam, similarity, solver, comparisons.items)

    def _fit_dask(self, data, transition, regularization, solver):
        from .distributed_chain import distributed_transition

        if regularization != "uniform":
            raise ParameterError(
                "on Dask, RankCentrality runs with regularization='uniform' only: the ergodicity check of the "
                "unregularized chain needs the whole comparison graph on one machine, and similarity "
                "regularization needs item features that DaskComparisons does not carry."
            )
        if self.pair_probabilities is not None:
            raise ParameterError("pair_probabilities is not supported on Dask; the sampling chain uses uniform μ there.")
        lam = self._lam(data.n_items, regularization)
        self.lam_, self.n_components_, self.ergodic_ = lam, 1, True
        return self._stationary(distributed_transition(data, transition), lam, None, solver, data.items)

    def _stationary(self, chain, lam, similarity, solver, items):
        """Solve for π, warn when the tolerance was not met, and set the fitted attributes."""
        result = stationary_distribution(
            chain, lam=lam, similarity=similarity, solver=solver, tol=float(self.tol), max_iter=self.max_iter
        )
        if not result.converged:
            warnings.warn(
                f"the {solver} solver stopped at residual {result.residual:.2e} above tol={self.tol:g} after "
                f"{result.n_iter} products; raise max_iter or try another solver.",
                PaucityWarning,
                stacklevel=3,
            )
        self.residual_, self.n_iter_ = result.residual, result.n_iter
        self._set_scores(items, result.distribution)
        return self

    def _probability(self, a, b):
        pi = self.scores_.to_numpy()
        total = pi[a] + pi[b]
        return np.divide(pi[b], total, out=np.full(len(a), 0.5), where=total > 0)

    # -- parameters ---------------------------------------------------------------------------------
    def _regularization(self):
        if self.regularization is None:
            return None
        return check_choice(self.regularization, REGULARIZATIONS[1:], "regularization")

    def _lam(self, n: int, regularization) -> float:
        lam = self.lam
        if lam is not None and (isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not np.isfinite(lam)):
            raise ParameterError(f"lam must be a number in [0, 1), got {lam!r}.")
        if regularization is None:
            if lam not in (None, 0, 0.0):
                raise ParameterError(
                    f"lam={lam} has no effect without regularization; set regularization='uniform' "
                    "(λ-regularized RankCentrality) or leave lam unset."
                )
            return 0.0
        if lam is None:
            return 1.0 / n
        if not 0.0 < lam < 1.0:
            raise ParameterError(f"lam must be in (0, 1) when regularizing, got {lam!r}.")
        return float(lam)

    def _similarity(self, comparisons) -> Similarity:
        kernel = self.kernel
        if kernel is None:
            kernel = "precomputed" if comparisons.similarity is not None else "gaussian"
        kernel = check_choice(kernel, KERNELS, "kernel")
        if kernel == "precomputed":
            if comparisons.similarity is None:
                raise InputError(
                    "kernel='precomputed' needs a similarity matrix: build the Comparisons with similarity=..."
                )
            return precomputed_similarity(comparisons.similarity)
        if comparisons.features is None:
            raise InputError(
                "regularization='similarity' needs item features or a similarity matrix: build the Comparisons "
                "with features=... or similarity=..., or use regularization='uniform'."
            )
        if kernel == "gaussian":
            return gaussian_similarity(comparisons.features, float(self.sigma), self.n_neighbors)
        tau = self.tau
        if tau is None:
            tau = _agreement_row_max(comparisons.features) + 1.0
        return agreement_similarity(comparisons.features, float(tau))


def _agreement_row_max(features) -> float:
    import pandas as pd

    features = np.asarray(features)
    total = np.zeros(features.shape[0])
    for column in range(features.shape[1]):
        codes, _ = pd.factorize(features[:, column])
        total += np.bincount(codes)[codes]
    return float(total.max())
