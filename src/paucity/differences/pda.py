"""The PDA and SPARDA estimators: the direction in which two samples differ most (seed 004).

:class:`PDA` finds the unit vector β maximizing D(βᵀX, βᵀY) for a divergence
D on the line (the squared Wasserstein distance by default). With
``sparsity="l1"`` it is SPARDA: β has few non-zero entries, the features on
which the two populations differ. The fit is the seed's two steps:

1. RELAX (:func:`~paucity.differences.relax`): the convex semidefinite
   relaxation, whose best B gives a direction and, with λ > 0, a support;
2. tightening (:func:`~paucity.differences.tighten`): ascent on the original
   objective within that support, from the RELAX direction and from random
   restarts, keeping the best.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import ClassifierTags

from .._deprecation import renamed_parameter
from .._errors import ParameterError
from .._progress import progress_bar
from .._validation import (
    BOOLEAN,
    RANDOM_STATE,
    Instance,
    Interval,
    Options,
    check_is_fitted,
    check_random_state,
    validate_params,
)
from ._duration import announce, fit_seconds, prefilter_seconds, relax_batch_size
from ._samples import check_fit_input, check_projection_input, pooled_scale, prefilter_rows, warn_constant
from .divergences import Divergence, MannWhitney, Wasserstein, feature_wasserstein
from .projections import canonical_direction
from .relax import run_relax
from .tighten import TightenResult, tighten

__all__ = ["PDA", "DIVERGENCES", "make_divergence", "DIVERGENCE"]

DIVERGENCES = {"wasserstein": Wasserstein, "mann_whitney": MannWhitney}
_SUPPORT_TOLERANCE = 1e-6  # relative to the largest |β_relax| entry
_AUTO_PREFILTER_ABOVE = 500  # features; MADELON's 500 are all kept
_AUTO_PREFILTER = 200
_AUTO_MAX_ITER_SPARSE = 300
_AUTO_MAX_ITER = 100


class _DivergenceClass:
    """A subclass of :class:`Divergence` (instantiated with its defaults)."""

    def accepts(self, value) -> bool:
        return isinstance(value, type) and issubclass(value, Divergence)

    def describe(self) -> str:
        return "a Divergence subclass"


#: The constraint of every ``divergence`` parameter of paucity.differences.
DIVERGENCE = [Options(*DIVERGENCES), Instance(Divergence, description="a Divergence instance"), _DivergenceClass()]


def make_divergence(divergence, random_state=None) -> Divergence:
    """A :class:`Divergence` from a validated name (``"wasserstein"``, ``"mann_whitney"``), class or instance."""
    if isinstance(divergence, Divergence):
        return divergence
    if isinstance(divergence, type):
        return divergence()
    if divergence.lower() == "mann_whitney":
        return MannWhitney(random_state=random_state)
    return DIVERGENCES[divergence.lower()]()


def divergence_name(divergence) -> str:
    """The name of a divergence given by name, class or instance."""
    if isinstance(divergence, str):
        return divergence.lower()
    return str(getattr(divergence, "name", type(divergence).__name__))


def two_sample_tags(tags):
    """scikit-learn's tags of a two-sample estimator: fit(X, y) takes labels of two values, sparse X is read."""
    tags.target_tags.required = True
    tags.classifier_tags = ClassifierTags(multi_class=False)
    tags.input_tags.sparse = True
    return tags


class PDA(TransformerMixin, BaseEstimator):
    """Principal differences analysis and its sparse form, SPARDA.

    Parameters
    ----------
    divergence : {"wasserstein", "mann_whitney"} or Divergence, default "wasserstein"
        D between the projected samples: the squared 2-Wasserstein distance,
        or the rank divergence |AUC − ½|. Other divergences skip the
        relaxation (it is Wasserstein's) and tighten from the Wasserstein
        solution and from random restarts.
    sparsity : {None, "l1"}, default None
        None: PDA, every feature may carry weight. ``"l1"``: SPARDA, with the
        penalty ``lam`` on the relaxation or the cardinality ``n_features``.
    lam : float, default 0.0
        The seed's λ: the weight of the penalty −λ‖B‖₁ in RELAX's objective,
        max over B ⪰ 0, tr B = 1 of min over couplings M of tr(W_M B) − λ‖B‖₁
        (W_M the coupled scatter of the pair differences xᵢ − yⱼ); used when
        ``sparsity="l1"``. It is on the scale of the data's squared
        differences; standardize the features, or let :class:`PDACV` choose it.
    n_features : int, optional
        With ``sparsity="l1"``: keep this many features (‖β‖₀ ≤ n_features) and
        tighten on them: the largest weights of RELAX's direction, or of the
        ascent on the whole sphere started from it, whichever support tightens
        to the larger divergence. When the support has one feature
        (n_features = 1, or a λ that leaves one), it is the feature with the
        largest divergence on its own: the exact optimum.
    n_restarts : int, default 4
        Random unit directions on the support tightened besides the RELAX
        direction; the best value wins.
    max_iter : int or "auto", default "auto"
        Iterations of RELAX. "auto": 300 for SPARDA (on MADELON, n = m =
        1,000, d = 500, its tightened direction is the same after 300
        iterations as after 500) and 100 for PDA, whose relaxation only starts
        the tightening on the whole sphere (on three MADELON draws its
        divergence and top features were the same after 1 iteration as after
        300; see Notes).
    patience : int, default 50
        T of RELAX: stop after this many iterations without improvement.
    step_B, step_dual : float, default 0.1 and 3.0
        RELAX's steps γ and η (see :func:`~paucity.differences.relax`, whose
        Notes say on which draws they were chosen).
    adaptive : bool, default True
        Adagrad steps for RELAX's dual variables.
    batch_size : int, "auto" or None, default "auto"
        Rows of X and of Y per RELAX iteration (stochastic subgradients over
        random row blocks). None: all rows. "auto": for SPARDA, all rows while
        n·m is at most 4,194,304 pairs, blocks of 1,024 rows per side beyond;
        for PDA, all rows up to 65,536 pairs, blocks of 256 rows beyond. The
        tightening always uses every row.
    tighten_max_iter : int, default 500
        Iterations of each tightening run.
    standardize : bool, default False
        Divide every feature by its standard deviation over the pooled rows
        of X and Y before the fit (a constant feature by 1), so that one λ
        and one divergence weigh all features alike: unscaled data (wine,
        breast cancer) is otherwise dominated by its largest-unit column.
        ``beta_`` is then the direction in standardized units and
        :meth:`transform` divides by ``scale_`` first.
    prefilter : int, "auto" or None, default "auto"
        RELAX and the tightening see only this many features: half of them
        those of largest marginal divergence (the squared Wasserstein
        distance of the feature alone between the samples), the rest those
        of largest change of covariance with any feature (standardized), so
        that a feature whose marginal law is unchanged but which changes
        jointly with others can be kept (see :func:`prefilter_features`).
        None: every feature. "auto": with ``sparsity="l1"`` on more than 500
        features, the 200 largest (or 2·n_features, if more); every feature
        otherwise, and always for PDA. An approximation, not a safe screen: a
        feature whose difference shows neither in its own law nor in its
        covariances (only in higher moments of the joint law) can be dropped.
        It makes SPARDA on thousands of genes a matter of seconds; the guide
        measures what it changes.
    support_rules : bool, default True
        With ``sparsity="l1"``, apply the two support rules before
        tightening: a one-feature support becomes the feature with the
        largest divergence on its own, and with ``n_features`` the
        whole-sphere ascent's largest weights are compared with RELAX's.
        False: tighten on exactly the features RELAX's direction keeps (its
        non-zero weights, or its ``n_features`` largest), the seed's
        procedure as written.
    random_state : int, numpy.random.Generator or None
        Draws the restarts and the row blocks.
    progress : bool, default False
        Show a bar over the fit: RELAX's iterations, then the tightening runs.
    k : int, optional
        Deprecated old name of ``n_features`` (a FutureWarning at fit).

    Attributes
    ----------
    beta_ : ndarray of shape (n_features,)
        The unit projection, first non-zero coordinate positive.
    divergence_ : float
        D(β̂ᵀX, β̂ᵀY) on the training samples.
    selected_ : ndarray of int
        Indices of the features with non-zero weight, into the columns of X,
        by decreasing |weight|.
    selected_names_ : ndarray of str
        Their names: ``feature_names_in_[selected_]`` after a fit on
        DataFrames, ``"x0"``, ``"x1"``, ... otherwise.
    support_ : ndarray of bool of shape (n_features,)
        True for the features with non-zero weight (``get_support()``).
        Features constant over both samples are never in it.
    relaxation_ : RelaxResult or None
        RELAX's diagnostics: objective trace, best iteration, best B and its
        tightness (the top eigenvalue's share of the trace; 1 when tight).
        Its ``beta`` and ``matrix`` index the features of ``prefiltered_``.
    scale_ : ndarray of shape (n_features,)
        What each feature was divided by: its pooled standard deviation with
        ``standardize=True``, 1 otherwise.
    prefiltered_ : ndarray of int
        The features RELAX and the tightening saw, in column order (every
        feature unless ``prefilter`` dropped some).
    tightening_ : TightenResult
        The winning tightening run.
    n_iter_ : int
        RELAX's iterations (``relaxation_.n_iter``).
    classes_ : ndarray of shape (2,)
        After ``fit(X, y)`` with labels only: the two values, the rows of the
        first forming the first sample.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on DataFrames.

    Notes
    -----
    Seed 004 (Mueller & Jaakkola, "Principal Differences Analysis" and
    "Sparse Differences Analysis (SPARDA)"): β̂ = argmax over ‖β‖ ≤ 1
    (‖β‖₀ ≤ n_features) of D(βᵀX̂, βᵀŶ), by the two-step relax–tighten
    procedure. The pooled samples are centred first (D is unchanged by a
    common shift; RELAX's expanded costs are accurate only near the origin).
    Memory is O(nm + d²) for RELAX (O(b² + d²) with row blocks of b),
    O((n + m)d) for tightening; dense copies of sparse inputs are made. A fit
    whose estimated duration exceeds a minute says so first (PaucityWarning).

    The relaxation need not be tight. On the MADELON stand-in of the guide
    (scikit-learn's ``make_classification``, not the challenge's data) the top
    eigenvalue of RELAX's B holds only 1–6 % of its trace at every λ, so the
    selection is not read from a rank-one solution: it is the support of
    RELAX's direction, i.e. the rows of B that survive λ's thresholding. The
    support rules (a one-feature support is replaced by the best single
    feature; with ``n_features`` an alternative support is compared) act only
    in those two cases; ``support_rules=False`` turns them off. On that
    stand-in they changed no selection, along the λ path nor at the λ chosen
    by :class:`PDACV` on ten draws (``experiments/differences_madelon_draws.py``);
    on unstandardized data with a one-feature support they can (the rule
    prefers the feature of largest W₂² alone, RELAX's diagonal the widest).

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.differences import PDA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 6)); Y = rng.normal(size=(150, 6)); Y[:, 2] *= 3.0
    >>> model = PDA(sparsity="l1", n_features=1, random_state=0).fit(X, Y)
    >>> model.selected_.tolist(), model.selected_names_.tolist(), model.beta_.round(3).tolist()
    ([2], ['x2'], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    The two samples may also come as the rows of one matrix with labels of two
    values, as in a scikit-learn pipeline:

    >>> labels = np.repeat(["healthy", "treated"], [200, 150])
    >>> same = PDA(sparsity="l1", n_features=1, random_state=0).fit(np.vstack([X, Y]), labels)
    >>> same.selected_.tolist(), same.classes_.tolist()
    ([2], ['healthy', 'treated'])
    """

    _parameter_constraints = {
        "divergence": DIVERGENCE,
        "sparsity": [Options("l1"), None],
        "lam": [Interval(numbers.Real, 0, None)],
        "n_features": [Interval(numbers.Integral, 1, None), None],
        "n_restarts": [Interval(numbers.Integral, 0, None)],
        "max_iter": [Interval(numbers.Integral, 1, None), Options("auto")],
        "patience": [Interval(numbers.Integral, 1, None)],
        "step_B": [Interval(numbers.Real, 0, None, closed="neither")],
        "step_dual": [Interval(numbers.Real, 0, None, closed="neither")],
        "adaptive": [BOOLEAN],
        "batch_size": [Interval(numbers.Integral, 2, None), Options("auto"), None],
        "tighten_max_iter": [Interval(numbers.Integral, 1, None)],
        "support_rules": [BOOLEAN],
        "prefilter": [Interval(numbers.Integral, 1, None), Options("auto"), None],
        "standardize": [BOOLEAN],
        "random_state": [RANDOM_STATE],
        "progress": [BOOLEAN],
        "k": [Interval(numbers.Integral, 1, None), None],
    }

    def __init__(
        self,
        divergence="wasserstein",
        sparsity=None,
        lam: float = 0.0,
        n_features: int | None = None,
        n_restarts: int = 4,
        max_iter="auto",
        patience: int = 50,
        step_B: float = 0.1,
        step_dual: float = 3.0,
        adaptive: bool = True,
        batch_size="auto",
        tighten_max_iter: int = 500,
        random_state=None,
        progress: bool = False,
        *,
        support_rules: bool = True,
        prefilter="auto",
        standardize: bool = False,
        k: int | None = None,
    ):
        self.divergence = divergence
        self.sparsity = sparsity
        self.lam = lam
        self.n_features = n_features
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.patience = patience
        self.step_B = step_B
        self.step_dual = step_dual
        self.adaptive = adaptive
        self.batch_size = batch_size
        self.tighten_max_iter = tighten_max_iter
        self.random_state = random_state
        self.progress = progress
        self.support_rules = support_rules
        self.prefilter = prefilter
        self.standardize = standardize
        self.k = k

    def __sklearn_tags__(self):
        return two_sample_tags(super().__sklearn_tags__())

    # -- parameters -------------------------------------------------------------------------------
    def _resolved_params(self, n_features_in: int) -> dict:
        params = validate_params(self)
        params["n_features"] = renamed_parameter("PDA", "k", params.pop("k"), "n_features", params["n_features"],
                                                stacklevel=4)
        size = params["n_features"]
        if size is not None:
            if params["sparsity"] != "l1":
                raise ParameterError("PDA: n_features is a cardinality for SPARDA: pass sparsity='l1' with it.")
            if size > n_features_in:
                raise ParameterError(
                    f"PDA: n_features={size} is larger than the number of features of X ({n_features_in}); "
                    f"pass at most {n_features_in}."
                )
            if isinstance(params["prefilter"], numbers.Integral) and params["prefilter"] < size:
                raise ParameterError(
                    f"PDA: prefilter={params['prefilter']} keeps fewer features than n_features={size}; "
                    f"pass prefilter >= {size}, or None to keep every feature."
                )
        return params

    def _estimated_seconds(self, n: int, m: int, d: int, params=None) -> float:
        """An upper bound on the seconds of a fit on n and m samples of d features (see ``_duration``)."""
        params = validate_params(self) if params is None else params
        kept = _prefilter_size(params, d)
        return fit_seconds(n, m, d if kept is None else kept, max_iter=_max_iter(params),
                           tighten_runs=_tighten_runs(params), tighten_max_iter=params["tighten_max_iter"],
                           batch_size=params["batch_size"], sparse=params["sparsity"] == "l1") + (0.0 if kept is None else prefilter_seconds(n, m, d))

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, Y=None):
        """Find the direction of largest divergence between two samples.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n, d)
            The first sample; or, with labels ``y``, both samples as rows.
        Y : array-like, sparse matrix or DataFrame of shape (m, d), or labels of shape (n,)
            The second sample (DataFrames are matched to X by column name);
            or labels with exactly two values, one per row of X: the rows of
            the first value (in sorted order) are the first sample, those of
            the second the second sample, as in a scikit-learn pipeline.

        Returns
        -------
        self
        """
        from ._dask import is_dask_array

        if is_dask_array(X) or is_dask_array(Y):
            return self._fit_dask(X, Y)
        samples = check_fit_input(X, Y, owner="PDA")
        params = self._resolved_params(samples.X.shape[1])
        return self._fit_samples(samples, params)

    def _fit_dask(self, X, Y):
        """The fit on dask arrays: per-feature statistics, the prefilter's rows and the projections as tasks
        on the current Client; RELAX and the tightening on the kept columns (see ``_dask``)."""
        from ._dask import DaskSamples

        params = validate_params(self)
        samples = DaskSamples(X, Y, standardize=params["standardize"],
                              prefilter=lambda d: _prefilter_size(params, d) is not None)
        (n, d), m = samples.X.shape, samples.Y.shape[0]
        params = self._resolved_params(d)
        rng = check_random_state(params["random_state"])
        divergence = self._announce(n, m, d, params, samples, rng)
        kept = _prefilter_size(params, d)

        def prefilter():
            rows_x, rows_y = samples.prefilter_rows()
            return choose_prefiltered(samples.marginal, samples.spread, rows_x, rows_y, samples.varying, kept)

        return self._fit_centred(params, samples, rng, divergence, samples.scale, prefilter=prefilter,
                                 columns=samples.columns, project=samples.project)

    def _fit_samples(self, samples, params):
        (n, d), m = samples.X.shape, samples.Y.shape[0]
        rng = check_random_state(params["random_state"])
        divergence = self._announce(n, m, d, params, samples, rng)
        scale = pooled_scale(samples.X, samples.Y) if params["standardize"] else np.ones(d)
        raw_x, raw_y = (samples.X / scale, samples.Y / scale) if params["standardize"] else (samples.X, samples.Y)
        centre = np.concatenate([raw_x, raw_y]).mean(axis=0)
        Xc = raw_x - centre
        Yc = raw_y - centre
        kept = _prefilter_size(params, d)
        return self._fit_centred(
            params, samples, rng, divergence, scale,
            prefilter=lambda: prefilter_features(Xc, Yc, samples.varying, kept),
            columns=lambda features: (np.ascontiguousarray(Xc[:, features]), np.ascontiguousarray(Yc[:, features])),
            project=lambda beta: (raw_x @ beta, raw_y @ beta),
        )

    def _announce(self, n, m, d, params, samples, rng):
        """The long-fit and constant-feature warnings; the divergence D, drawing from rng."""
        divergence = make_divergence(params["divergence"], random_state=rng)
        announce(
            self._estimated_seconds(n, m, d, params),
            f"This PDA fit (n={n}, m={m}, d={d}, max_iter={_max_iter(params)})",
            "lower max_iter or n_restarts, or set batch_size, to go faster.",
            stacklevel=5,
        )
        warn_constant(samples, stacklevel=5)
        return divergence

    def _fit_centred(self, params, samples, rng, divergence, scale, *, prefilter, columns, project):
        """The fit once the samples are scaled and centred, whatever holds them.

        ``prefilter()`` gives the kept features, ``columns(features)`` the
        centred samples on those features as arrays, ``project(beta)`` the
        projections of the scaled (uncentred) samples.
        """
        (n, d), m = samples.X.shape, samples.Y.shape[0]
        runs = _tighten_runs(params)
        sparse = params["sparsity"] == "l1"
        lam = float(params["lam"]) if sparse else 0.0
        size = params["n_features"]
        varying = samples.varying  # a feature constant over both samples cannot separate them
        max_iter = _max_iter(params)
        kept = _prefilter_size(params, d)
        with progress_bar(max_iter + runs, "RELAX" if kept is None else "prefilter", params["progress"]) as bar:
            if kept is None:
                prefiltered = np.arange(d)
                Xc, Yc = columns(slice(None))
            else:  # RELAX and the tightening work on the features the prefilter keeps
                prefiltered = prefilter()
                Xc, Yc = columns(prefiltered)
                varying = varying[prefiltered]
                bar.update(description="RELAX")
            relaxation = run_relax(
                Xc,
                Yc,
                lam=lam,
                step_B=params["step_B"],
                step_dual=params["step_dual"],
                adaptive=params["adaptive"],
                dual_steps=3,
                warm_start=100,
                patience=params["patience"],
                max_iter=max_iter,
                burn_in=50,
                batch_size=relax_batch_size(n, m, params["batch_size"], sparse=sparse),
                random_state=rng,
                bar=bar,
            )
            bar.update(description="tightening")
            wasserstein = Wasserstein()
            support = _support(np.where(varying, relaxation.beta, 0.0), sparse, size) & varying
            if not support.any():  # RELAX's direction lay on constant features only
                support = varying
            rules = sparse and params["support_rules"]
            if rules and support.sum() < varying.sum():  # pick among supports of RELAX's size
                support = self._choose_support(Xc, Yc, relaxation.beta, support, varying, wasserstein, size,
                                               params["tighten_max_iter"])
            bar.advance(3 if rules else 0)
            starts = [relaxation.beta] + [_random_start(support, rng) for _ in range(params["n_restarts"])]
            best = _best_tightening(Xc, Yc, starts, wasserstein, support, params["tighten_max_iter"], bar)
            if not isinstance(divergence, Wasserstein):
                # the relaxation is Wasserstein's: start D's ascent from its solution and the restarts
                starts = [best.beta] + [_random_start(support, rng) for _ in range(params["n_restarts"])]
                best = _best_tightening(Xc, Yc, starts, divergence, support, params["tighten_max_iter"], bar)
        beta = np.zeros(d)
        beta[prefiltered] = np.where(support, best.beta, 0.0)
        beta = canonical_direction(beta)
        self.beta_ = beta
        self.prefiltered_ = prefiltered
        self.divergence_ = float(divergence._value(*project(beta)))
        self.scale_ = scale
        self.relaxation_ = relaxation
        self.n_iter_ = relaxation.n_iter
        self.tightening_ = best
        self.n_features_in_ = d
        if samples.feature_names is not None:
            self.feature_names_in_ = samples.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        if samples.classes is not None:
            self.classes_ = samples.classes
        elif hasattr(self, "classes_"):
            del self.classes_
        order = np.flatnonzero(beta != 0)
        self.selected_ = order[np.argsort(-np.abs(beta[order]), kind="stable")]
        self.selected_names_ = samples.names()[self.selected_]
        self.support_ = beta != 0
        return self

    def _choose_support(self, X, Y, beta_relax, support, varying, wasserstein, size, max_iter) -> np.ndarray:
        """The support tightening works on, of the size s RELAX's direction gives it.

        - s = 1: the feature with the largest divergence on its own, which is
          the exact optimum over one-feature supports. This case arises when
          λ thresholds every off-diagonal entry of B: B is then diagonal, its
          diagonal holds the matched pairs' squared differences (which grow
          with a feature's spread as much as with its difference), and RELAX's
          direction is the largest diagonal entry, won by a hair by whichever
          feature.
        - s = n_features > 1: RELAX's largest weights or those of the ascent on
          the whole sphere started from RELAX's direction (RELAX's weights are
          a rough ranking when it stops early), whichever tightens higher.
        - otherwise RELAX's support. Comparing it by training divergence with
          the whole-sphere ascent's top s would overfit: on MADELON at λ = 0.2
          that ascent's top 20 tighten higher than RELAX's (5.16 against 5.08)
          with 12 relevant features instead of 20.
        """
        d = support.shape[0]
        if support.sum() == 1:
            marginal = np.array([wasserstein._value(X[:, j], Y[:, j]) if varying[j] else -np.inf for j in range(d)])
            best = np.zeros(d, dtype=bool)
            best[int(np.argmax(marginal))] = True
            return best
        if size is None:
            return support
        whole = tighten(X, Y, beta_relax, divergence=wasserstein, support=np.ones(d, dtype=bool),
                        max_iter=max_iter).beta
        other = _top(np.where(varying, whole, 0.0), size) & varying
        if np.array_equal(other, support):
            return support
        first = tighten(X, Y, beta_relax, divergence=wasserstein, support=support, max_iter=max_iter)
        second = tighten(X, Y, whole, divergence=wasserstein, support=other, max_iter=max_iter)
        return other if second.value > first.value else support

    # -- using the direction ----------------------------------------------------------------------
    def transform(self, X):
        """The projections βᵀx of the rows of X, as a column (shape (n, 1)).

        A DataFrame is matched to the fitted feature names by name. After a fit
        with ``standardize=True`` the rows are divided by ``scale_`` first.
        """
        check_is_fitted(self, "beta_")
        array = check_projection_input(X, self.n_features_in_, getattr(self, "feature_names_in_", None))
        return ((array / self.scale_) @ self.beta_)[:, None]

    def get_feature_names_out(self, input_features=None):
        """One output: the projection, ``"pda_projection"``."""
        check_is_fitted(self, "beta_")
        return np.asarray(["pda_projection"], dtype=object)

    def get_support(self, indices: bool = False):
        """The mask of the features with non-zero weight, or (``indices=True``) their indices in column order."""
        check_is_fitted(self, "beta_")
        return np.flatnonzero(self.support_) if indices else self.support_

    def weights(self) -> pd.DataFrame:
        """A tidy table of the selected features, by decreasing |weight|.

        Columns: ``feature`` (the name, as ``selected_names_``), ``index``
        (the column of X, as ``selected_``), ``weight`` and ``rank``
        (1 = largest |weight|).
        """
        check_is_fitted(self, "beta_")
        return pd.DataFrame(
            {
                "feature": self.selected_names_,
                "index": self.selected_,
                "weight": self.beta_[self.selected_],
                "rank": np.arange(1, len(self.selected_) + 1),
            }
        )


def prefilter_features(X: np.ndarray, Y: np.ndarray, varying: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` features SPARDA's prefilter keeps, in column order.

    Half by marginal divergence (the squared Wasserstein distance of the
    feature alone), the rest by the largest change of covariance with any
    feature, ``max_k |Σ_X[j, k] − Σ_Y[j, k]| / (s_j s_k)`` (s the pooled
    standard deviations; the diagonal is a change of variance), so that a
    feature whose marginal law is unchanged but which changes jointly with
    others is kept too. The covariances come from at most 2,048 evenly
    spaced rows of each sample. Constant features are never kept.
    """
    marginal = feature_wasserstein(X, Y)
    spread = np.concatenate([X, Y]).std(axis=0)
    rows_x, rows_y = prefilter_rows(X.shape[0]), prefilter_rows(Y.shape[0])
    return choose_prefiltered(marginal, spread, X[rows_x], Y[rows_y], varying, size)


def choose_prefiltered(marginal, spread, rows_x, rows_y, varying, size: int) -> np.ndarray:
    """The prefilter's choice from every feature's marginal W₂² and pooled spread and the rows of
    :func:`prefilter_rows` of each centred sample (see :func:`prefilter_features`)."""
    d = marginal.shape[0]
    marginal = np.where(varying, marginal, -np.inf)
    by_marginal = np.argsort(-marginal, kind="stable")
    spread = np.where(varying, spread, 1.0)
    change = np.zeros((d, d))
    for part, sign in ((rows_x, 1.0), (rows_y, -1.0)):
        part = part / spread
        part = part - part.mean(axis=0)
        change += sign * (part.T @ part) / part.shape[0]
    joint = np.where(varying, np.abs(change).max(axis=1), -np.inf)
    by_joint = np.argsort(-joint, kind="stable")
    kept = np.zeros(d, dtype=bool)
    kept[by_marginal[: (size + 1) // 2]] = True
    count = int(kept.sum())
    for j in by_joint:  # then the largest changes of covariance not kept yet
        if count >= size:
            break
        count += not kept[j]
        kept[j] = True
    return np.flatnonzero(kept & varying)


def _max_iter(params) -> int:
    """RELAX's iterations: ``max_iter``, or for "auto" 300 with SPARDA and 100 with PDA."""
    if params["max_iter"] == "auto":
        return _AUTO_MAX_ITER_SPARSE if params["sparsity"] == "l1" else _AUTO_MAX_ITER
    return int(params["max_iter"])


def _prefilter_size(params, d: int):
    """How many features the prefilter keeps out of d (None: every feature)."""
    prefilter = params["prefilter"]
    if prefilter == "auto":
        if params["sparsity"] != "l1" or d <= _AUTO_PREFILTER_ABOVE:
            return None
        prefilter = max(_AUTO_PREFILTER, 2 * (params["n_features"] or 0))
    if prefilter is None or prefilter >= d:
        return None
    return int(prefilter)


def _tighten_runs(params) -> int:
    """Tightening runs of a fit: the RELAX start and the restarts (twice for a divergence other than
    Wasserstein's), and up to three more to choose a SPARDA support."""
    other = divergence_name(params["divergence"]) != "wasserstein"
    rules = params["sparsity"] == "l1" and params["support_rules"]
    return (1 + params["n_restarts"]) * (1 + other) + (3 if rules else 0)


def _support(beta_relax: np.ndarray, sparse: bool, size) -> np.ndarray:
    d = beta_relax.shape[0]
    if not sparse:
        return np.ones(d, dtype=bool)
    if size is not None:
        return _top(beta_relax, size)
    magnitude = np.abs(beta_relax)
    return magnitude > _SUPPORT_TOLERANCE * magnitude.max()


def _top(beta: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` largest |weights| of beta, as a mask."""
    support = np.zeros(beta.shape[0], dtype=bool)
    support[np.argsort(-np.abs(beta), kind="stable")[:size]] = True
    return support


def _random_start(support: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    start = np.where(support, rng.standard_normal(support.shape[0]), 0.0)
    if not np.any(start):  # pragma: no cover - probability zero
        start = support.astype(np.float64)
    return start / np.linalg.norm(start)


def _best_tightening(X, Y, starts, divergence, support, max_iter, bar) -> TightenResult:
    best = None
    for start in starts:
        start = np.where(support, start, 0.0)
        if not np.any(start):
            start = support.astype(np.float64)
        result = tighten(X, Y, start, divergence=divergence, support=support, max_iter=max_iter)
        if best is None or result.value > best.value:
            best = result
        bar.advance()
    return best
