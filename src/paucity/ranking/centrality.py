"""RankCentrality and its regularizations (seed 000, chapter 3)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .._errors import InputError, ParameterError, PaucityWarning, warn
from .._spelling import given, owner_prefix, spelled
from .._validation import Instance, Interval, Options, validate_params
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
        ``None``: Algorithm 6, the chain ``Q̂``; when it is not irreducible
        (the directed comparison graph is not strongly connected) the uniform
        distribution is returned with a warning naming the number of
        components. ``"uniform"``: λ-regularized RankCentrality (Algorithm 7),
        the chain ``Q̂ D_λ`` with ``D_λ = (1−λ)I + (λ/n)11ᵀ``.
        ``"similarity"``: the chain ``Q̂ D_λ D′`` of §3.5 with ``D′`` from item
        features or a similarity matrix attached to the comparisons.
    lam : float, optional
        The seed's λ: the weight of the uniform jump in ``D_λ = (1−λ)I +
        (λ/n)11ᵀ``, so that each step of the chain ``Q̂ D_λ`` (or ``Q̂ D_λ D′``)
        follows a comparison with probability 1−λ and jumps to a uniformly
        drawn item with probability λ. It is not a penalty on a loss
        (RankCentrality has none): larger λ pulls π towards uniform. In
        (0, 1), default ``1/n`` when regularizing; must be left unset (or 0)
        without regularization.
    pair_probabilities : array or sparse matrix (n, n), optional
        μᵢⱼ for ``transition="sampling"`` (uniform when not given); an error
        with another transition.
    kernel : {"gaussian", "agreement", "precomputed"}, optional
        How ``D′`` is built for ``regularization="similarity"``: a Gaussian
        kernel of width ``sigma`` on continuous features, agreement counts
        with tightness ``tau`` on discrete features, or the similarity matrix
        of the comparisons. Default: ``"precomputed"`` when the comparisons
        carry a similarity matrix, ``"gaussian"`` otherwise.
    sigma : float, optional
        Width σ of the Gaussian kernel ``exp(−‖xᵢ − xⱼ‖²/σ²)`` (default 1).
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

    A parameter that the chosen chain does not use is an error, not ignored:
    ``lam`` without regularization, ``pair_probabilities`` without
    ``transition="sampling"``, ``kernel``, ``sigma``, ``tau`` and
    ``n_neighbors`` without ``regularization="similarity"``, ``sigma`` and
    ``n_neighbors`` with a kernel other than ``"gaussian"``, ``tau`` with a
    kernel other than ``"agreement"``.

    Attributes
    ----------
    scores_ : pandas.Series
        π, the stationary distribution, indexed by item label (non-negative,
        sums to 1).
    log_scores_ : pandas.Series
        ``log π`` centred to mean zero: BTL's log-weights, which π estimates
        up to a constant factor (Negahban et al., the seed's §3.2). An item
        with ``π = 0`` (possible only with a similarity matrix that gives it
        no weight) gets ``-inf`` and the others are centred among themselves.
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
    >>> model.log_scores_.round(3).to_dict()
    {'a': -0.903, 'b': 0.196, 'c': 0.707}
    >>> list(model.ranking_)
    ['c', 'b', 'a']
    """

    _parameter_constraints = {
        "transition": [Options(*TRANSITIONS)],
        "regularization": [Options(*REGULARIZATIONS[1:]), None],
        "lam": [Interval(numbers.Real, 0, 1, closed="left"), None],
        "pair_probabilities": [
            Instance(np.ndarray, list, tuple, sp.spmatrix, sp.sparray, description="an (n, n) array or sparse matrix"),
            None,
        ],
        "kernel": [Options(*KERNELS), None],
        "sigma": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "tau": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "n_neighbors": [Interval(numbers.Integral, 1, None), None],
        "solver": [Options(*SOLVERS)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None), None],
    }

    def __init__(
        self,
        transition="nos",
        regularization=None,
        lam=None,
        pair_probabilities=None,
        kernel=None,
        sigma=None,
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
        params = validate_params(self)
        transition, regularization = params["transition"], params["regularization"]
        _check_applicable(params)
        dask_input = dask_comparisons_class()
        if dask_input is not None and isinstance(X, dask_input):
            return self._fit_dask(X, params)
        comparisons = as_comparisons(X, y, sample_weight, model="RankCentrality")
        lam = _lam(params["lam"], comparisons.n_items, regularization)
        chain = transition_matrix(comparisons, transition, params["pair_probabilities"])
        similarity = _similarity(comparisons, params) if regularization == "similarity" else None
        self.lam_ = lam
        self.n_components_ = 1
        self.ergodic_ = True
        if regularization is None:
            # the chain moves from i to j exactly when j beat i: the loser -> winner graph
            n_components = comparisons.pairs.strong_components()
            self.n_components_ = n_components
            if n_components > 1:
                self.ergodic_ = False
                warn(
                    f"the comparison graph has {n_components} strongly connected components, so the chain is not "
                    "ergodic and RankCentrality returns the uniform distribution (Algorithm 6); use "
                    f"{given('regularization', 'uniform')} to rank from few comparisons.",
                    PaucityWarning,
                )
                n = comparisons.n_items
                self.residual_, self.n_iter_ = 0.0, 0
                self._set_scores(comparisons.items, np.full(n, 1.0 / n), np.zeros(n))
                return self
        return self._stationary(chain, lam, similarity, params, comparisons.items)

    def _fit_dask(self, data, params):
        from .distributed_chain import distributed_transition

        if params["regularization"] != "uniform":
            raise ParameterError(
                "on Dask, RankCentrality runs with regularization='uniform' only: the ergodicity check of the "
                "unregularized chain needs the whole comparison graph on one machine, and similarity "
                "regularization needs item features that DaskComparisons does not carry."
            )
        if params["pair_probabilities"] is not None:
            raise ParameterError("pair_probabilities is not supported on Dask; the sampling chain uses uniform μ there.")
        lam = _lam(params["lam"], data.n_items, "uniform")
        self.lam_, self.n_components_, self.ergodic_ = lam, 1, True
        return self._stationary(distributed_transition(data, params["transition"]), lam, None, params, data.items)

    def _stationary(self, chain, lam, similarity, params, items):
        """Solve for π, warn when the tolerance was not met, and set the fitted attributes."""
        solver = params["solver"]
        result = stationary_distribution(
            chain, lam=lam, similarity=similarity, solver=solver, tol=float(self.tol), max_iter=self.max_iter
        )
        if not result.converged:
            warn(
                f"the {solver} solver stopped at residual {result.residual:.2e} above tol={self.tol:g} after "
                f"{result.n_iter} products; raise max_iter or try another solver.",
                PaucityWarning,
            )
        self.residual_, self.n_iter_ = result.residual, result.n_iter
        with np.errstate(divide="ignore"):  # π = 0 is a log-weight of -inf
            log_pi = np.log(result.distribution)
        self._set_scores(items, result.distribution, log_pi)
        return self

    def _probability(self, a, b):
        pi = self.scores_.to_numpy()
        total = pi[a] + pi[b]
        return np.divide(pi[b], total, out=np.full(len(a), 0.5), where=total > 0)


# -- parameters -------------------------------------------------------------------------------------
# what each kernel parameter shapes, and the kernels it belongs to
_KERNEL_PARAMETERS = {
    "kernel": ("the similarity matrix D′", KERNELS),
    "sigma": ("the width of the Gaussian kernel", ("gaussian",)),
    "n_neighbors": ("the neighbours kept in the Gaussian kernel", ("gaussian",)),
    "tau": ("the tightness of the agreement kernel", ("agreement",)),
}


def _check_applicable(params: dict) -> None:
    """A parameter the chosen chain does not use is an error (the similarity kernel's are checked in _similarity)."""
    if params["pair_probabilities"] is not None and params["transition"] != "sampling":
        raise ParameterError(
            f"RankCentrality: pair_probabilities is used by transition='sampling' (3.5) only, not "
            f"{params['transition']!r}; leave it unset or set transition='sampling'."
        )
    if params["regularization"] is None and params["lam"] not in (None, 0, 0.0):
        raise ParameterError(
            f"{owner_prefix('RankCentrality')}{given('lam', params['lam'])} has no effect without regularization; "
            f"set {given('regularization', 'uniform')} (λ-regularized RankCentrality) or leave {spelled('lam')} unset."
        )
    if params["regularization"] != "similarity":
        for name, (what, _) in _KERNEL_PARAMETERS.items():
            if params[name] is not None:
                raise ParameterError(
                    f"{owner_prefix('RankCentrality')}{given(name, params[name])} sets {what}, which only "
                    f"{given('regularization', 'similarity')} uses, but {given('regularization', params['regularization'])}; "
                    f"leave {spelled(name)} unset or set {given('regularization', 'similarity')}."
                )


def _lam(lam, n: int, regularization) -> float:
    """The λ of the chain: 0 without regularization, 1/n by default when regularizing."""
    if regularization is None:
        return 0.0
    if lam is None:
        return 1.0 / n
    if not 0.0 < lam < 1.0:
        raise ParameterError(f"RankCentrality: lam must be in (0, 1) when regularizing, got {lam!r}.")
    return float(lam)


def _similarity(comparisons, params) -> Similarity:
    kernel = params["kernel"]
    if kernel is None:
        kernel = "precomputed" if comparisons.similarity is not None else "gaussian"
    for name, (what, kernels) in _KERNEL_PARAMETERS.items():
        if name != "kernel" and params[name] is not None and kernel not in kernels:
            raise ParameterError(
                f"{owner_prefix('RankCentrality')}{given(name, params[name])} sets {what}, but the kernel is "
                f"{kernel!r}; leave {spelled(name)} unset or set {given('kernel', kernels[0])}."
            )
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
        sigma = 1.0 if params["sigma"] is None else float(params["sigma"])
        return gaussian_similarity(comparisons.features, sigma, params["n_neighbors"])
    tau = params["tau"]
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
