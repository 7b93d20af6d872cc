"""The whole principal differences analysis a user asks for, in one call (seed 004).

:func:`analyze` decides the method (PDA; SPARDA with a penalty λ, with a
number of features, or with λ chosen on held-out samples), normalizes each
sample marginally when asked, fits, runs the permutation test when asked and
returns a :class:`DifferencesResult`. The AnnData adapter
(:func:`~paucity.differences.compare`), the ``paucity differences`` command
and the demo all call it, and only read, print and write.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._errors import ParameterError
from .._spelling import given, owner_prefix, spelled
from .._validation import (
    BOOLEAN,
    N_JOBS,
    RANDOM_STATE,
    Instance,
    Interval,
    Options,
    check_parameter,
)
from ._duration import announce, quiet_fits
from ._samples import check_fit_input, warn_constant
from .cv import PDACV
from .pda import DIVERGENCE, PDA, divergence_name, pooled_scale
from .permutation import PermutationTestResult, check_n_permutations, permutation_test
from .relax import RelaxResult
from .stored import DEFAULT_KEY, StoredDifferences

__all__ = ["analyze", "DifferencesResult", "marginal_normalize"]

_OWNER = "analyze"


def marginal_normalize(X) -> np.ndarray:
    """Centre every column at zero and scale it to unit variance; constant columns are only centred.

    Seed 004, "Marginally-normalized differential expression analysis":
    applied to each population separately, it removes differences in every
    gene's own distribution (mean and spread), so that what remains between
    the populations is in the relationships between genes.

    Examples
    --------
    >>> marginal_normalize(np.array([[1.0, 5.0], [3.0, 5.0]])).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    spread = centred.std(axis=0)
    return centred / np.where(spread > 0, spread, 1.0)


_normalize = marginal_normalize  # analyze's parameter of the same name hides the function


class NormalizedStatistic:
    """The permutation test's statistic with marginal normalization: each sample normalized, then the fit.

    A picklable callable ``statistic(X, Y)`` returning ``divergence_`` of a
    fresh clone of ``estimator`` fitted on the two normalized samples.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def __call__(self, X, Y) -> float:
        X, Y = _normalized_frame(X), _normalized_frame(Y)
        return clone(self.estimator).fit(X, Y).divergence_


def _normalized_frame(values):
    if isinstance(values, pd.DataFrame):
        return pd.DataFrame(_normalize(values.to_numpy(dtype=np.float64)), columns=values.columns)
    return _normalize(values)


def _json_number(value):
    """A JSON-safe float: None for NaN or infinity."""
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class DifferencesResult:
    """What :func:`analyze` returns: the direction, the features that carry it, and the test.

    Attributes
    ----------
    groups : tuple of str
        The names of the two samples (X first).
    feature_names : ndarray of str of shape (d,)
        Every feature's name (the DataFrame columns, or ``"x0"``, ``"x1"``, ...).
    beta : ndarray of shape (d,)
        The unit direction, first non-zero coordinate positive.
    selected : ndarray of int
        Indices of the features with non-zero weight, by decreasing |weight|.
    statistic : float
        D(β̂ᵀX, β̂ᵀY), on the marginally normalized samples when they were.
    method : {"PDA", "SPARDA"}
    divergence : str
        The divergence's name (``"wasserstein"``, ``"mann_whitney"``).
    lam : float or None
        λ of SPARDA's penalty, given or chosen on held-out samples.
    n_features : int or None
        SPARDA's number of features, when given.
    cv : bool
        Whether λ was chosen on held-out samples (:class:`PDACV`).
    marginal_normalize : bool
    n, m : int
        The numbers of samples in X and in Y.
    means_x, means_y : ndarray of shape (d,)
        Every feature's mean in X and in Y, before any normalization.
    n_constant : int
        Features constant over both samples, which never carry weight.
    permutation_test : PermutationTestResult or None
        The two-sample test, when ``n_permutations > 0``.
    refitted : str or None
        The estimator the test refits on every permutation.
    cv_results : pandas.DataFrame or None
        :attr:`PDACV.cv_results_` when ``cv=True``.
    relaxation : RelaxResult or None
        RELAX's diagnostics of the fit.
    estimator : PDA or PDACV
        The fitted estimator (``transform`` projects new samples).
    random_state : int or None
        The seed, when an integer was given.
    settings : dict
        The solver settings (``max_iter``, ``n_restarts``, ...).
    standardize : bool
        Whether every feature was divided by its pooled standard deviation
        first (``beta`` is then in standardized units).
    """

    groups: tuple
    feature_names: np.ndarray
    beta: np.ndarray
    selected: np.ndarray
    statistic: float
    method: str
    divergence: str
    lam: float | None
    n_features: int | None
    cv: bool
    marginal_normalize: bool
    n: int
    m: int
    means_x: np.ndarray
    means_y: np.ndarray
    n_constant: int
    permutation_test: PermutationTestResult | None
    refitted: str | None
    cv_results: pd.DataFrame | None
    relaxation: RelaxResult | None
    estimator: object = field(repr=False)
    random_state: int | None
    settings: dict
    standardize: bool = False

    @property
    def pvalue(self) -> float | None:
        """The permutation test's p-value, or None when no test was run."""
        return None if self.permutation_test is None else self.permutation_test.pvalue

    @property
    def selected_names(self) -> np.ndarray:
        """The names of the selected features, by decreasing |weight|."""
        return self.feature_names[self.selected]

    @property
    def question(self) -> str:
        """The question the test answers."""
        return f"Do {self.groups[0]} and {self.groups[1]} differ?"

    def to_frame(self) -> pd.DataFrame:
        """One row per feature with non-zero weight, by decreasing |weight|.

        Columns: ``names``, ``indices`` (columns of X), ``weights``, ``ranks``
        (1 = largest |weight|), ``means_x`` and ``means_y`` (before any
        normalization).
        """
        order = self.selected
        return pd.DataFrame(
            {
                "names": self.feature_names[order].astype(str),
                "indices": order.astype(np.int64),
                "weights": self.beta[order],
                "ranks": np.arange(1, len(order) + 1, dtype=np.int64),
                "means_x": self.means_x[order],
                "means_y": self.means_y[order],
            }
        )

    def to_dict(self) -> dict:
        """A JSON-ready summary (plain Python types; NaN and infinities as None).

        Keys: ``groups``, ``question``, ``n``, ``m``, ``d``, ``method``,
        ``divergence``, ``lam``, ``n_features``, ``cv`` (the candidates and the
        choice, or None), ``marginal_normalize``, ``random_state``,
        ``statistic``, ``pvalue``, ``n_permutations``, ``permutation_test``
        (with the null distribution, or None), ``n_selected``, ``selected``
        (one record per feature: ``feature``, ``index``, ``weight``, ``rank``,
        ``mean_x``, ``mean_y``), ``beta`` (name → weight of the selected
        features), ``n_constant_features``, ``relaxation`` and ``settings``.
        """
        test = None
        if self.permutation_test is not None:
            outcome = self.permutation_test
            test = {
                "statistic": _json_number(outcome.statistic),
                "pvalue": _json_number(outcome.pvalue),
                "n_permutations": int(outcome.n_permutations),
                "n_at_least_as_large": round(outcome.pvalue * (outcome.n_permutations + 1)) - 1,
                "null_distribution": [_json_number(value) for value in outcome.null_distribution],
                "refitted": self.refitted,
                "note": "the whole fit is repeated on every random split of the pooled rows"
                + ("; the cross-validated penalty is kept fixed, not chosen again" if self.cv else ""),
            }
        frame = self.to_frame()
        selected = [
            {
                "feature": str(row.names),
                "index": int(row.indices),
                "weight": _json_number(row.weights),
                "rank": int(row.ranks),
                "mean_x": _json_number(row.means_x),
                "mean_y": _json_number(row.means_y),
            }
            for row in frame.itertuples(index=False)
        ]
        relaxation = self.relaxation
        cv = None
        if self.cv_results is not None:
            cv = {
                "chosen_lam": _json_number(self.lam),
                "criterion": "mean divergence on held-out halves (PDACV)",
                "results": [
                    {key: _json_number(value) for key, value in row.items()}
                    for row in self.cv_results.to_dict("records")
                ],
            }
        return {
            "groups": [str(group) for group in self.groups],
            "question": self.question,
            "n": int(self.n),
            "m": int(self.m),
            "d": int(self.beta.shape[0]),
            "method": self.method,
            "divergence": self.divergence,
            "lam": None if self.lam is None else _json_number(self.lam),
            "n_features": None if self.n_features is None else int(self.n_features),
            "cv": cv,
            "marginal_normalize": bool(self.marginal_normalize),
            "standardize": bool(self.standardize),
            "random_state": self.random_state,
            "statistic": _json_number(self.statistic),
            "pvalue": None if test is None else test["pvalue"],
            "n_permutations": None if test is None else test["n_permutations"],
            "permutation_test": test,
            "n_selected": len(selected),
            "selected": selected,
            "beta": {item["feature"]: item["weight"] for item in selected},
            "n_constant_features": int(self.n_constant),
            "relaxation": None
            if relaxation is None
            else {
                "tightness": _json_number(relaxation.tightness),
                "n_iter": int(relaxation.n_iter),
                "objective": _json_number(relaxation.objective),
            },
            "settings": dict(self.settings),
        }

    def write(self, adata, key_added: str = DEFAULT_KEY, *, groupby: str | None = None, layer: str | None = None,
              use_raw: bool | None = None) -> None:
        """Store the result in ``adata``: the table and the parameters in ``adata.uns[key_added]``, every
        gene's weight in ``adata.var[key_added + "_weight"]``.

        ``groupby``, ``layer`` and ``use_raw`` say where the two samples were
        read, for the stored parameters (those that are None are left out).
        The layout is :mod:`paucity.differences.stored`'s, as
        :func:`~paucity.differences.compare` writes it;
        :meth:`~paucity.differences.StoredDifferences.read` and :func:`~paucity.differences.get`
        read it back.
        """
        StoredDifferences.from_result(self, groupby=groupby, layer=layer, use_raw=use_raw).write(adata, key_added)


def _describe(estimator: PDA) -> str:
    params = estimator.get_params()
    shown = [f"sparsity={params['sparsity']!r}"] if params["sparsity"] else []
    if params["sparsity"] and params["n_features"] is not None:
        shown.append(f"n_features={params['n_features']}")
    elif params["sparsity"]:
        shown.append(f"lam={params['lam']:.6g}")
    shown.append(f"divergence={divergence_name(params['divergence'])!r}")
    return f"PDA({', '.join(shown)})"


def _workers(n_jobs) -> int:
    if n_jobs is None or n_jobs == "dask":
        return 1
    if n_jobs == -1:
        return os.cpu_count() or 1
    return max(1, min(int(n_jobs), os.cpu_count() or 1))


def _check_groups(groups, classes):
    if groups is None:
        if classes is not None:
            return tuple(str(value) for value in classes)
        return ("X", "Y")
    groups = check_parameter(groups, "groups", [Instance(tuple, list, description="a pair of names")], owner=_OWNER)
    if len(groups) != 2:
        raise ParameterError(f"{_OWNER}: groups must name the two samples (a pair), got {len(groups)} names.")
    return tuple(str(group) for group in groups)


def analyze(
    X,
    Y,
    *,
    n_features: int | None = None,
    lam: float | None = None,
    cv: bool = False,
    n_permutations: int = 0,
    marginal_normalize: bool = False,
    standardize: bool = False,
    divergence="wasserstein",
    max_iter: int = 300,
    n_restarts: int = 4,
    patience: int = 50,
    tighten_max_iter: int = 500,
    batch_size="auto",
    groups=None,
    random_state=None,
    n_jobs=None,
    progress: bool = False,
) -> DifferencesResult:
    """Do two samples differ, in which features, and by how much? The whole analysis in one call.

    Parameters
    ----------
    X : array-like, sparse matrix or DataFrame of shape (n, d)
        The first sample; or, with labels ``Y``, both samples as rows.
    Y : array-like, sparse matrix or DataFrame of shape (m, d), or labels of shape (n,)
        The second sample (DataFrames matched to X by column name), or labels
        of two values, as in :meth:`PDA.fit`.
    n_features : int, optional
        SPARDA keeping this many features.
    lam : float, optional
        SPARDA with the seed's λ, the weight of the penalty −λ‖B‖₁ in RELAX's
        objective, max over B ⪰ 0, tr B = 1 of min over couplings M of
        tr(W_M B) − λ‖B‖₁ (see :class:`PDA`).
    cv : bool, default False
        SPARDA with λ chosen by the divergence on held-out halves
        (:class:`PDACV` over :func:`lambda_grid`). At most one of
        ``n_features``, ``lam`` and ``cv`` may be given; with none, PDA (every
        feature may carry weight).
    n_permutations : int, default 0
        B > 0 adds the permutation test of "do X and Y differ?" with B random
        splits (at most 1,000,000), the whole fit repeated on each; with
        ``cv=True`` each split refits SPARDA with the chosen λ, not a whole
        cross-validation.
    marginal_normalize : bool, default False
        Centre and scale every feature within each sample first
        (:func:`marginal_normalize`), in the fit and in every permutation.
        The prefilter of SPARDA (:class:`PDA`'s ``prefilter``) is then off:
        half of it ranks features by their marginal differences, which the
        normalization removes.
    standardize : bool, default False
        Divide every feature by its standard deviation over the pooled rows
        first (as :class:`PDA`'s ``standardize``), in the fit and in every
        permutation (the pooled rows, hence the scales, are the same on every
        split). ``beta`` and ``statistic`` are then in standardized units,
        ``means_x`` and ``means_y`` are not.
    divergence : {"wasserstein", "mann_whitney"} or Divergence, default "wasserstein"
    max_iter, n_restarts, patience, tighten_max_iter, batch_size
        The solver's settings, as in :class:`PDA`.
    groups : pair of str, optional
        Names of the two samples, used in the result (``question``); by
        default ``("X", "Y")``, or the two label values.
    random_state : int, numpy.random.Generator or None
        Seeds the restarts, the held-out splits and the permutations.
    n_jobs : int, "dask" or None
        Where the permutations run (see :func:`permutation_test`); only with
        ``n_permutations > 0``.
    progress : bool, default False
        Progress bars over the fit and the permutations.

    Returns
    -------
    DifferencesResult
        ``to_frame()`` gives the table of selected features, ``to_dict()`` the
        JSON the command writes.

    Raises
    ------
    ParameterError
        A parameter out of range, more than one of ``n_features``, ``lam`` and
        ``cv``, or ``n_jobs`` without permutations.
    InputError, InputTypeError, ShapeMismatchError
        As :meth:`PDA.fit`.

    Notes
    -----
    Seed 004 (Mueller & Jaakkola): PDA and SPARDA ("Principal Differences
    Analysis", "SPARDA"), λ chosen by held-out divergence, the permutation
    test ("Two-sample Testing") and marginal normalization
    ("Marginally-normalized differential expression analysis"). Before the
    work starts, an analysis estimated to take more than a minute says so
    (PaucityWarning), and features constant over both samples are named.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 5)); Y = rng.normal(size=(70, 5)); Y[:, 3] *= 3.0
    >>> result = analyze(X, Y, n_features=1, n_permutations=19, random_state=0, max_iter=60)
    >>> result.method, result.selected_names.tolist(), result.pvalue
    ('SPARDA', ['x3'], 0.05)
    >>> result.to_frame()[["names", "ranks"]].to_dict("records")
    [{'names': 'x3', 'ranks': 1}]
    """
    n_features = check_parameter(n_features, "n_features", [Interval(numbers.Integral, 1, None), None], owner=_OWNER)
    lam = check_parameter(lam, "lam", [Interval(numbers.Real, 0, None), None], owner=_OWNER)
    cv = check_parameter(cv, "cv", [BOOLEAN], owner=_OWNER)
    n_permutations = check_n_permutations(n_permutations, owner=_OWNER, minimum=0)
    marginal_normalize = check_parameter(marginal_normalize, "marginal_normalize", [BOOLEAN], owner=_OWNER)
    standardize = check_parameter(standardize, "standardize", [BOOLEAN], owner=_OWNER)
    divergence = check_parameter(divergence, "divergence", DIVERGENCE, owner=_OWNER)
    check_parameter(random_state, "random_state", [RANDOM_STATE], owner=_OWNER)
    n_jobs = check_parameter(n_jobs, "n_jobs", [N_JOBS, Options("dask")], owner=_OWNER)
    progress = check_parameter(progress, "progress", [BOOLEAN], owner=_OWNER)
    chosen = [name for name, value in (("n_features", n_features), ("lam", lam), ("cv", cv or None)) if value is not None]
    if len(chosen) > 1:
        raise ParameterError(
            f"{owner_prefix(_OWNER)}{' and '.join(spelled(name) for name in chosen)} are exclusive: give at most one "
            f"of {spelled('n_features')}, {spelled('lam')} and {spelled('cv')}."
        )
    if n_jobs is not None and n_permutations == 0:
        raise ParameterError(
            f"{owner_prefix(_OWNER)}{spelled('n_jobs')} runs the permutations in parallel, so it applies only with "
            f"{spelled('n_permutations')} > 0."
        )
    samples = check_fit_input(X, Y, owner=_OWNER)
    groups = _check_groups(groups, samples.classes)
    names = samples.names()
    raw_x, raw_y = samples.X, samples.Y
    if standardize:
        scale = pooled_scale(raw_x, raw_y)
        raw_x, raw_y = raw_x / scale, raw_y / scale
    if samples.feature_names is not None:
        raw_x = pd.DataFrame(raw_x, columns=pd.Index(names))
        raw_y = pd.DataFrame(raw_y, columns=pd.Index(names))
    fit_x, fit_y = (_normalized_frame(raw_x), _normalized_frame(raw_y)) if marginal_normalize else (raw_x, raw_y)

    solver = {"divergence": divergence, "max_iter": max_iter, "n_restarts": n_restarts, "patience": patience,
              "tighten_max_iter": tighten_max_iter, "batch_size": batch_size, "random_state": random_state}
    if cv:
        model = PDACV(progress=progress, **solver)
    elif lam is not None:
        model = PDA(sparsity="l1", lam=lam, progress=progress, **solver)
    elif n_features is not None:
        model = PDA(sparsity="l1", n_features=n_features, progress=progress, **solver)
    else:
        model = PDA(progress=progress, **solver)
    if marginal_normalize and isinstance(model, PDA):  # the prefilter ranks the marginal differences it removes
        model.set_params(prefilter=None)
    n, m, d = raw_x.shape[0], raw_y.shape[0], raw_x.shape[1]
    if n_features is not None and n_features > d:
        raise ParameterError(
            f"{owner_prefix(_OWNER)}{given('n_features', n_features)} is larger than the number of features of X "
            f"({d}); pass at most {d}."
        )
    refit = model if not cv else PDA(sparsity="l1", **solver)
    seconds = model._estimated_seconds(n, m, d)
    if n_permutations:
        seconds += n_permutations * refit._estimated_seconds(n, m, d) / _workers(n_jobs)
    announce(
        seconds,
        f"This analysis (n={n}, m={m}, d={d}, max_iter={max_iter}"
        + (f", {n_permutations} permutations" if n_permutations else "")
        + ")",
        "lower max_iter or n_restarts"
        + (", run fewer permutations or more at once (n_jobs)" if n_permutations else "")
        + " to go faster.",
    )
    warn_constant(samples)
    with quiet_fits():
        model.fit(fit_x, fit_y)
    chosen_lam = model.lam_ if cv else lam

    test, refitted = None, None
    if n_permutations > 0:
        if cv:
            estimator = PDA(sparsity="l1", lam=chosen_lam, prefilter=None if marginal_normalize else "auto", **solver)
        else:
            estimator = clone(model).set_params(progress=False)
        statistic = NormalizedStatistic(estimator) if marginal_normalize else estimator
        with quiet_fits():  # the analysis announced its duration and the constant features once
            test = permutation_test(raw_x, raw_y, statistic, n_permutations=n_permutations,
                                    random_state=random_state, n_jobs=n_jobs, progress=progress)
        refitted = _describe(estimator) + (" on marginally normalized samples" if marginal_normalize else "")

    return DifferencesResult(
        groups=groups,
        feature_names=np.asarray(names, dtype=object),
        beta=np.asarray(model.beta_, dtype=np.float64),
        selected=np.asarray(model.selected_, dtype=np.int64),
        statistic=float(model.divergence_),
        method="SPARDA" if (cv or lam is not None or n_features is not None) else "PDA",
        divergence=divergence_name(divergence),
        lam=None if chosen_lam is None else float(chosen_lam),
        n_features=n_features,
        cv=bool(cv),
        marginal_normalize=bool(marginal_normalize),
        n=n,
        m=m,
        means_x=samples.X.mean(axis=0),
        means_y=samples.Y.mean(axis=0),
        n_constant=int((~samples.varying).sum()),
        permutation_test=test,
        refitted=refitted,
        cv_results=model.cv_results_ if cv else None,
        relaxation=model.relaxation_,
        estimator=model,
        random_state=int(random_state) if isinstance(random_state, numbers.Integral) else None,
        settings={"max_iter": int(max_iter), "n_restarts": int(n_restarts), "patience": int(patience),
                  "tighten_max_iter": int(tighten_max_iter), "batch_size": batch_size},
        standardize=bool(standardize),
    )
