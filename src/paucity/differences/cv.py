"""Choosing SPARDA's λ (or k) by the projected divergence on held-out samples (seed 004)."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from .._errors import NotFittedError, ParameterError
from .._progress import progress_bar
from .._validation import check_random_state
from ._samples import check_samples
from .pda import PDA, make_divergence

__all__ = ["PDACV", "lambda_grid"]


def lambda_grid(X, Y, n_lams: int = 8, ratio: float = 0.01) -> np.ndarray:
    """A decreasing geometric grid of λ for SPARDA, from the data's own scale.

    The largest λ is the largest off-diagonal entry (in absolute value) of
    ``E[zzᵀ]`` for ``z = x − y`` with x and y drawn independently (the two
    covariances plus the outer product of the mean difference): RELAX keeps an
    off-diagonal entry of B while the matched scatter there exceeds λ, so
    beyond this value B is diagonal and the support a single feature. The
    smallest is ``ratio`` times the largest.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [2.0, 2.0]]); Y = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> lambda_grid(X, Y, n_lams=3).round(4).tolist()
    [1.0, 0.1, 0.01]
    """
    samples = check_samples(X, Y)
    X, Y = samples.X, samples.Y
    difference = X.mean(axis=0) - Y.mean(axis=0)
    scatter = np.cov(X, rowvar=False, bias=True) + np.cov(Y, rowvar=False, bias=True)
    scatter = np.atleast_2d(scatter) + np.outer(difference, difference)
    off = np.abs(scatter - np.diag(np.diag(scatter)))
    top = float(off.max()) if off.size > 1 else float(np.abs(scatter).max())
    if top <= 0:
        top = float(np.abs(np.diag(scatter)).max())
    return np.geomspace(top, top * ratio, n_lams)


class PDACV(TransformerMixin, BaseEstimator):
    """SPARDA with λ (or k) chosen by the projected divergence on held-out samples.

    Each candidate is fitted on a random part of X and of Y (``1 − test_size``)
    and scored by D(β̂ᵀX_test, β̂ᵀY_test) on the rest, averaged over
    ``n_splits`` splits; the best candidate is refitted on all samples.

    Parameters
    ----------
    lams : array-like of float, optional
        Candidate penalties. By default :func:`lambda_grid` with ``n_lams``.
    ks : array-like of int, optional
        Candidate cardinalities instead of penalties.
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

    Attributes
    ----------
    lam_ : float or None
    k_ : int or None
        The chosen candidate.
    cv_results_ : pandas.DataFrame
        One row per candidate: ``lam`` or ``k``, ``n_selected`` (mean over
        splits), ``heldout_divergence`` (mean) and ``heldout_divergence_std``.
    best_estimator_ : PDA
        Refitted on all samples; ``beta_``, ``divergence_``, ``selected_``,
        ``support_``, ``relaxation_``, ``tightening_`` are its.

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
    >>> model = PDACV(ks=[1, 2, 5], random_state=0).fit(X, Y)
    >>> model.k_, model.selected_.tolist()
    (1, [0])
    """

    def __init__(
        self,
        lams=None,
        ks=None,
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
    ):
        self.tolerance = tolerance
        self.lams = lams
        self.ks = ks
        self.n_lams = n_lams
        self.divergence = divergence
        self.test_size = test_size
        self.n_splits = n_splits
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.patience = patience
        self.tighten_max_iter = tighten_max_iter
        self.batch_size = batch_size
        self.random_state = random_state
        self.progress = progress

    def _candidates(self, X, Y, d: int):
        if self.lams is not None and self.ks is not None:
            raise ParameterError("give lams= or ks=, not both.")
        if self.ks is not None:
            ks = np.atleast_1d(np.asarray(self.ks))
            if ks.size == 0 or ks.dtype.kind not in "iu" or ks.min() < 1 or ks.max() > d:
                raise ParameterError(f"ks must be integers between 1 and the number of features ({d}), got {self.ks!r}.")
            return "k", [int(k) for k in ks]
        if self.lams is not None:
            lams = np.atleast_1d(np.asarray(self.lams, dtype=np.float64))
            if lams.size == 0 or not np.all(np.isfinite(lams)) or lams.min() < 0:
                raise ParameterError(f"lams must be non-negative numbers, got {self.lams!r}.")
            return "lam", [float(x) for x in lams]
        if isinstance(self.n_lams, bool) or not isinstance(self.n_lams, numbers.Integral) or self.n_lams < 1:
            raise ParameterError(f"n_lams must be a positive integer, got {self.n_lams!r}.")
        return "lam", [float(x) for x in lambda_grid(X, Y, self.n_lams)]

    def _model(self, name: str, value, rng) -> PDA:
        params = dict(
            divergence=self.divergence,
            sparsity="l1",
            n_restarts=self.n_restarts,
            max_iter=self.max_iter,
            patience=self.patience,
            tighten_max_iter=self.tighten_max_iter,
            batch_size=self.batch_size,
            random_state=rng,
        )
        params[name] = value
        return PDA(**params)

    def fit(self, X, Y):
        """Score every candidate on held-out samples and refit the best on all of X and Y."""
        samples = check_samples(X, Y)
        Xa, Ya = samples.X, samples.Y
        n, d = Xa.shape
        m = Ya.shape[0]
        if not (isinstance(self.test_size, numbers.Real) and 0 < self.test_size < 1):
            raise ParameterError(f"test_size must be a fraction strictly between 0 and 1, got {self.test_size!r}.")
        if not (isinstance(self.tolerance, numbers.Real) and 0 <= self.tolerance < 1):
            raise ParameterError(f"tolerance must be a fraction in [0, 1), got {self.tolerance!r}.")
        if isinstance(self.n_splits, bool) or not isinstance(self.n_splits, numbers.Integral) or self.n_splits < 1:
            raise ParameterError(f"n_splits must be a positive integer, got {self.n_splits!r}.")
        n_test, m_test = int(round(n * self.test_size)), int(round(m * self.test_size))
        if min(n_test, m_test, n - n_test, m - m_test) < 2:
            raise ParameterError(
                f"test_size={self.test_size} leaves fewer than 2 samples on a side of a split (n={n}, m={m}); "
                "collect more samples or choose lam or k yourself."
            )
        name, candidates = self._candidates(Xa, Ya, d)
        rng = check_random_state(self.random_state)
        divergence = make_divergence(self.divergence, random_state=rng)
        scores = np.zeros((len(candidates), self.n_splits))
        sizes = np.zeros((len(candidates), self.n_splits))
        with progress_bar(len(candidates) * self.n_splits, "choosing " + name, self.progress) as bar:
            for split in range(self.n_splits):
                x_order, y_order = rng.permutation(n), rng.permutation(m)
                x_test, x_train = x_order[:n_test], x_order[n_test:]
                y_test, y_train = y_order[:m_test], y_order[m_test:]
                for index, value in enumerate(candidates):
                    model = self._model(name, value, rng).fit(Xa[x_train], Ya[y_train])
                    scores[index, split] = divergence.value(Xa[x_test] @ model.beta_, Ya[y_test] @ model.beta_)
                    sizes[index, split] = len(model.selected_)
                    bar.advance()
        mean = scores.mean(axis=1)
        size = sizes.mean(axis=1)
        close = np.flatnonzero(mean >= (1.0 - self.tolerance) * mean.max())
        best = int(close[np.lexsort((-mean[close], size[close]))[0]])
        self.cv_results_ = pd.DataFrame(
            {
                name: candidates,
                "n_selected": sizes.mean(axis=1),
                "heldout_divergence": mean,
                "heldout_divergence_std": scores.std(axis=1),
            }
        )
        self.lam_ = candidates[best] if name == "lam" else None
        self.k_ = candidates[best] if name == "k" else None
        self.best_estimator_ = self._model(name, candidates[best], rng).fit(X, Y)
        for attribute in ("beta_", "divergence_", "selected_", "support_", "relaxation_", "tightening_",
                          "n_features_in_"):
            setattr(self, attribute, getattr(self.best_estimator_, attribute))
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def transform(self, Z):
        """The projections βᵀz of the rows of Z with the refitted direction (shape (n, 1))."""
        if not hasattr(self, "best_estimator_"):
            raise NotFittedError("This PDACV is not fitted yet; call fit(X, Y) first.")
        return self.best_estimator_.transform(Z)

    def fit_transform(self, X, Y=None, **fit_params):
        """Fit on X and Y and return the projection of X."""
        if Y is None:
            raise ParameterError("PDACV compares two samples: call fit_transform(X, Y).")
        return self.fit(X, Y).transform(X)

    def weights(self) -> pd.DataFrame:
        """The refitted estimator's table of ``feature``, ``weight``, ``rank``."""
        return self.best_estimator_.weights()
