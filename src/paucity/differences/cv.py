"""Choosing SPARDA's λ (or its number of features) by the projected divergence on held-out samples (seed 004)."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from .._deprecation import renamed_parameter
from .._errors import InputError, ParameterError, warn
from .._progress import progress_bar
from .._validation import (
    BOOLEAN,
    RANDOM_STATE,
    Instance,
    Interval,
    Options,
    check_is_fitted,
    check_parameter,
    check_random_state,
    validate_params,
)
from ._duration import announce, quiet_fits
from ._samples import check_fit_input, check_samples, warn_constant
from .pda import DIVERGENCE, PDA, make_divergence, two_sample_tags

__all__ = ["PDACV", "lambda_grid"]

_ARRAY_LIKE = Instance(list, tuple, np.ndarray, pd.Series, pd.Index, description="a list or array")


def lambda_grid(X, Y, n_lams: int = 8, ratio: float = 0.01) -> np.ndarray:
    """A decreasing geometric grid of λ for SPARDA, from the data's own scale.

    λ is the weight of the penalty −λ‖B‖₁ in RELAX's objective (see
    :class:`PDA`). The largest λ is the largest off-diagonal entry (in
    absolute value) of ``E[zzᵀ]`` for ``z = x − y`` with x and y drawn
    independently (the two covariances plus the outer product of the mean
    difference): RELAX keeps an off-diagonal entry of B while the matched
    scatter there exceeds λ, so beyond this value B is diagonal and the
    support a single feature. The smallest is ``ratio`` times the largest.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [2.0, 2.0]]); Y = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> lambda_grid(X, Y, n_lams=3).round(4).tolist()
    [1.0, 0.1, 0.01]
    """
    check_parameter(n_lams, "n_lams", [Interval(numbers.Integral, 1, None)], owner="lambda_grid")
    check_parameter(ratio, "ratio", [Interval(numbers.Real, 0, 1, closed="right")], owner="lambda_grid")
    samples = check_samples(X, Y)
    return _lambda_grid(samples.X, samples.Y, n_lams, ratio)


def _lambda_grid(X: np.ndarray, Y: np.ndarray, n_lams: int, ratio: float = 0.01) -> np.ndarray:
    difference = X.mean(axis=0) - Y.mean(axis=0)
    scatter = np.cov(X, rowvar=False, bias=True) + np.cov(Y, rowvar=False, bias=True)
    scatter = np.atleast_2d(scatter) + np.outer(difference, difference)
    off = np.abs(scatter - np.diag(np.diag(scatter)))
    top = float(off.max()) if off.size > 1 else float(np.abs(scatter).max())
    if top <= 0:
        top = float(np.abs(np.diag(scatter)).max())
    return np.geomspace(top, top * ratio, n_lams)


class PDACV(TransformerMixin, BaseEstimator):
    """SPARDA with λ (or the number of features) chosen by the projected divergence on held-out samples.

    Each candidate is fitted on a random part of X and of Y (``1 − test_size``)
    and scored by D(β̂ᵀX_test, β̂ᵀY_test) on the rest, averaged over
    ``n_splits`` splits; the best candidate is refitted on all samples.

    Parameters
    ----------
    lams : array-like of float, optional
        Candidate values of the seed's λ, the weight of the penalty −λ‖B‖₁ in
        RELAX's objective (see :class:`PDA`). By default :func:`lambda_grid`
        with ``n_lams``.
    n_features : int or array-like of int, optional
        Candidate numbers of features to keep (SPARDA's cardinality) instead
        of penalties.
    n_lams : int, default 8
    divergence : str or Divergence, default "wasserstein"
    test_size : float, default 0.5
    n_splits : int, default 1
    n_restarts, max_iter, patience, tighten_max_iter, batch_size
        Passed to every :class:`PDA` fit.
    tolerance : float, default 0.0
        Keep the candidate with the fewest selected features among those whose
        held-out divergence is within this fraction of the best (0: the best).
    random_state : int, numpy.random.Generator or None
    progress : bool, default False
        A bar over the candidate fits.
    support_rules : bool, default True
        Passed to every :class:`PDA` fit (False: tighten on RELAX's own
        support, without the one-feature and alternative-support rules).
    ks : array-like of int, optional
        Deprecated old name of ``n_features`` (a FutureWarning at fit).

    Attributes
    ----------
    lam_ : float or None
    n_features_ : int or None
        The chosen candidate.
    cv_results_ : pandas.DataFrame
        One row per candidate: ``lam`` or ``n_features``, ``n_selected`` (mean
        over splits), ``heldout_divergence`` (mean) and
        ``heldout_divergence_std``.
    best_estimator_ : PDA
        Refitted on all samples; ``beta_``, ``divergence_``, ``selected_``,
        ``selected_names_``, ``support_``, ``relaxation_``, ``tightening_``,
        ``n_iter_`` are its.

    Notes
    -----
    Seed 004, "SPARDA", "In practice: choose λ or k by maximizing projected
    divergence between held-out samples". A support that overfits the
    training halves gives a large training divergence but a small held-out
    one; a support that misses features that differ gives a small one on both.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 5)); Y = rng.normal(size=(120, 5)); Y[:, 0] *= 3.0
    >>> model = PDACV(n_features=[1, 2, 5], random_state=0).fit(X, Y)
    >>> model.n_features_, model.selected_.tolist()
    (1, [0])
    """

    _parameter_constraints = {
        "lams": [_ARRAY_LIKE, None],
        "n_features": [Interval(numbers.Integral, 1, None), _ARRAY_LIKE, None],
        "n_lams": [Interval(numbers.Integral, 1, None)],
        "divergence": DIVERGENCE,
        "test_size": [Interval(numbers.Real, 0, 1, closed="neither")],
        "n_splits": [Interval(numbers.Integral, 1, None)],
        "n_restarts": [Interval(numbers.Integral, 0, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "patience": [Interval(numbers.Integral, 1, None)],
        "tighten_max_iter": [Interval(numbers.Integral, 1, None)],
        "batch_size": [Interval(numbers.Integral, 2, None), Options("auto"), None],
        "tolerance": [Interval(numbers.Real, 0, 1, closed="left")],
        "random_state": [RANDOM_STATE],
        "progress": [BOOLEAN],
        "support_rules": [BOOLEAN],
        "ks": [_ARRAY_LIKE, Interval(numbers.Integral, 1, None), None],
    }

    def __init__(
        self,
        lams=None,
        n_features=None,
        n_lams: int = 8,
        divergence="wasserstein",
        test_size: float = 0.5,
        n_splits: int = 1,
        n_restarts: int = 4,
        max_iter: int = 300,
        patience: int = 50,
        tighten_max_iter: int = 500,
        batch_size="auto",
        tolerance: float = 0.0,
        random_state=None,
        progress: bool = False,
        *,
        support_rules: bool = True,
        ks=None,
    ):
        self.lams = lams
        self.n_features = n_features
        self.n_lams = n_lams
        self.divergence = divergence
        self.test_size = test_size
        self.n_splits = n_splits
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.patience = patience
        self.tighten_max_iter = tighten_max_iter
        self.batch_size = batch_size
        self.tolerance = tolerance
        self.random_state = random_state
        self.progress = progress
        self.support_rules = support_rules
        self.ks = ks

    def __sklearn_tags__(self):
        return two_sample_tags(super().__sklearn_tags__())

    @property
    def k_(self):
        """Deprecated: the chosen number of features, now ``n_features_``."""
        warn("PDACV.k_ is deprecated and will be removed; use n_features_.", FutureWarning)
        check_is_fitted(self, "n_features_")
        return self.n_features_

    def _candidates(self, params, X, Y, d: int):
        sizes, lams = params["n_features"], params["lams"]
        if lams is not None and sizes is not None:
            raise ParameterError("PDACV: give lams= or n_features=, not both.")
        if sizes is not None:
            values = np.atleast_1d(np.asarray(sizes))
            if values.size == 0 or values.dtype.kind not in "iu" or values.min() < 1 or values.max() > d:
                raise ParameterError(
                    f"PDACV: n_features must be integers between 1 and the number of features of X ({d}), "
                    f"got {sizes!r}."
                )
            return "n_features", [int(value) for value in values]
        if lams is not None:
            try:
                values = np.atleast_1d(np.asarray(lams, dtype=np.float64))
            except (TypeError, ValueError):
                values = np.array([np.nan])
            if values.size == 0 or not np.all(np.isfinite(values)) or values.min() < 0:
                raise ParameterError(f"PDACV: lams must be non-negative numbers, got {lams!r}.")
            return "lam", [float(value) for value in values]
        return "lam", [float(value) for value in _lambda_grid(X, Y, params["n_lams"])]

    def _estimated_seconds(self, n: int, m: int, d: int, params=None, n_candidates: int | None = None) -> float:
        """An upper bound on the seconds of a fit: every candidate on every split, and the refit."""
        params = validate_params(self) if params is None else params
        if n_candidates is None:
            given = params["n_features"] if params["n_features"] is not None else params["lams"]
            n_candidates = params["n_lams"] if given is None else np.atleast_1d(np.asarray(given, dtype=object)).size
        n_test, m_test = int(round(n * params["test_size"])), int(round(m * params["test_size"]))
        one = self._model(params, "lam", 0.0, None)
        return (n_candidates * params["n_splits"] * one._estimated_seconds(n - n_test, m - m_test, d)
                + one._estimated_seconds(n, m, d))

    def _model(self, params, name: str, value, rng) -> PDA:
        model = PDA(
            divergence=params["divergence"],
            sparsity="l1",
            n_restarts=params["n_restarts"],
            max_iter=params["max_iter"],
            patience=params["patience"],
            tighten_max_iter=params["tighten_max_iter"],
            batch_size=params["batch_size"],
            random_state=rng,
            support_rules=params["support_rules"],
        )
        return model.set_params(**{name: value})

    def fit(self, X, Y=None):
        """Score every candidate on held-out samples and refit the best on all of X and Y.

        Parameters
        ----------
        X, Y
            As in :meth:`PDA.fit`: two samples, or one matrix and labels of two values, with at least
            two features (with one, every candidate selects it: fit :class:`PDA`).

        Returns
        -------
        self
        """
        samples = check_fit_input(X, Y, owner="PDACV")
        params = validate_params(self)
        params["n_features"] = renamed_parameter("PDACV", "ks", params.pop("ks"), "n_features", params["n_features"])
        Xa, Ya = samples.X, samples.Y
        n, d = Xa.shape
        m = Ya.shape[0]
        if d == 1:
            raise InputError(
                "PDACV: X has 1 feature(s); with one feature every candidate selects it (the direction is ±1), so "
                "there is nothing to choose on held-out samples: fit PDA instead."
            )
        test_size = params["test_size"]
        n_test, m_test = int(round(n * test_size)), int(round(m * test_size))
        if min(n_test, m_test, n - n_test, m - m_test) < 2:
            raise ParameterError(
                f"PDACV: test_size={test_size} leaves fewer than 2 samples on a side of a split (n={n}, m={m}); "
                "collect more samples or choose lam or n_features yourself."
            )
        name, candidates = self._candidates(params, Xa, Ya, d)
        rng = check_random_state(params["random_state"])
        divergence = make_divergence(params["divergence"], random_state=rng)
        n_fits = len(candidates) * params["n_splits"]
        announce(
            self._estimated_seconds(n, m, d, params, n_candidates=len(candidates)),
            f"PDACV's {n_fits} fits on held-out splits and the refit (n={n}, m={m}, d={d})",
            "pass fewer candidates (lams or n_features), or lower max_iter, to go faster.",
        )
        warn_constant(samples)
        scores = np.zeros((len(candidates), params["n_splits"]))
        sizes = np.zeros((len(candidates), params["n_splits"]))
        with quiet_fits(), progress_bar(n_fits, "choosing " + name, params["progress"]) as bar:
            for split in range(params["n_splits"]):
                x_order, y_order = rng.permutation(n), rng.permutation(m)
                x_test, x_train = x_order[:n_test], x_order[n_test:]
                y_test, y_train = y_order[:m_test], y_order[m_test:]
                for index, value in enumerate(candidates):
                    model = self._model(params, name, value, rng).fit(Xa[x_train], Ya[y_train])
                    scores[index, split] = divergence.value(Xa[x_test] @ model.beta_, Ya[y_test] @ model.beta_)
                    sizes[index, split] = len(model.selected_)
                    bar.advance()
            mean = scores.mean(axis=1)
            size = sizes.mean(axis=1)
            close = np.flatnonzero(mean >= (1.0 - params["tolerance"]) * mean.max())
            best = int(close[np.lexsort((-mean[close], size[close]))[0]])
            self.cv_results_ = pd.DataFrame(
                {
                    name: candidates,
                    "n_selected": size,
                    "heldout_divergence": mean,
                    "heldout_divergence_std": scores.std(axis=1),
                }
            )
            self.lam_ = candidates[best] if name == "lam" else None
            self.n_features_ = candidates[best] if name == "n_features" else None
            self.best_estimator_ = self._model(params, name, candidates[best], rng).fit(X, Y)
        for attribute in ("beta_", "divergence_", "selected_", "selected_names_", "support_", "relaxation_",
                          "tightening_", "n_iter_", "n_features_in_"):
            setattr(self, attribute, getattr(self.best_estimator_, attribute))
        for attribute in ("feature_names_in_", "classes_"):
            if hasattr(self.best_estimator_, attribute):
                setattr(self, attribute, getattr(self.best_estimator_, attribute))
            elif hasattr(self, attribute):
                delattr(self, attribute)
        return self

    def transform(self, X):
        """The projections βᵀx of the rows of X with the refitted direction (shape (n, 1))."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.transform(X)

    def get_feature_names_out(self, input_features=None):
        """One output: the projection, ``"pda_projection"``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.get_feature_names_out(input_features)

    def get_support(self, indices: bool = False):
        """The refitted estimator's mask (or indices) of the features with non-zero weight."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.get_support(indices)

    def weights(self) -> pd.DataFrame:
        """The refitted estimator's table of ``feature``, ``index``, ``weight``, ``rank``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.weights()
