"""InfoSelector: information-theoretic feature selection as a scikit-learn selector."""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from .._errors import InputError, ParameterError
from .._parallel import kernel_threads
from .._validation import (
    check_choice,
    check_discrete_matrix,
    check_labels,
    check_matrix,
    check_positive_int,
    is_dask_array,
)
from ..info.counts import BinnedMatrix
from ..info.discretize import discretize_validated
from .greedy import select_features
from .objectives import METHODS, SUPERVISED, make_objective

__all__ = ["InfoSelector"]


class InfoSelector(SelectorMixin, BaseEstimator):
    """Select features that together explain the labels, by greedy information-theoretic search.

    Parameters
    ----------
    method : {"cife", "jmi", "mim", "mrmr", "mifs", "degree", "entropy", "entropy2"}, default="cife"
        The objective (seed 000, Table 2.1 and §2.4). "entropy" and
        "entropy2" are unsupervised: call ``fit(X)`` without y.
    n_features : int, default=50
        Number of features to select. In binary mode, ceil(n_features / c)
        per class are taken and merged without duplicates.
    mode : {"multiclass", "binary"}, default="multiclass"
    n_bins : int or None, default=5
        Bins of the recursive-quantile discretization; None when X is already
        discretized (small non-negative integers < 256).
    prefilter : int or None, default=5000
        Bivariate and higher objectives choose among this many features of
        highest MIM score (per class in binary mode); None keeps all.
    beta : float, default=1.0
        Redundancy weight of "mifs".
    degree : int, default=2
        K of the "degree" objective (1 is MIM, 2 is CIFE).
    n_jobs : int or None, default=None
        Threads for the counting kernels (None or -1: all cores). The
        selection does not depend on it.
    progress : bool, default=False
        Show a progress bar over the greedy steps.

    Attributes
    ----------
    selected_ : numpy.ndarray of int
        Selected feature indices, in selection order.
    scores_ : numpy.ndarray of float
        Objective value (bits) of each selected feature when it was selected.
    selected_per_class_ : dict
        Binary mode only: class label -> that class's own selection.
    classes_ : numpy.ndarray
        Class labels (supervised methods).
    n_candidates_ : int
        Features the search chose among, after the prefilter.
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray
        When X is a DataFrame with string column names.

    Notes
    -----
    Seed 000, chapter 2: Algorithm 1 (greedy search) with the incremental
    scores of Algorithm 5, the objectives of Table 2.1 and J_degK of §2.4.1,
    the recursive-quantile binning of Algorithm 2, binary mode of §2.7.2, and
    the MIM prefilter of §2.6 (Remark 2). Entropies are empirical, in bits.
    Samples whose label is missing are left out with a warning.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers import InfoSelector
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 300)
    >>> X = rng.poisson(1.0, size=(300, 6)).astype(float)
    >>> X[:, 4] += 5 * (y == 1)                       # a marker of class 1
    >>> X[:, 2] += 5 * (y == 2)                       # a marker of class 2
    >>> selector = InfoSelector(method="cife", n_features=2).fit(X, y)
    >>> sorted(selector.selected_.tolist())
    [2, 4]
    >>> selector.transform(X).shape
    (300, 2)
    """

    def __init__(
        self,
        method: str = "cife",
        n_features: int = 50,
        mode: str = "multiclass",
        n_bins: int | None = 5,
        prefilter: int | None = 5000,
        beta: float = 1.0,
        degree: int = 2,
        n_jobs: int | None = None,
        progress: bool = False,
    ):
        self.method = method
        self.n_features = n_features
        self.mode = mode
        self.n_bins = n_bins
        self.prefilter = prefilter
        self.beta = beta
        self.degree = degree
        self.n_jobs = n_jobs
        self.progress = progress

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.input_tags.allow_nan = False
        tags.target_tags.required = str(self.method).lower() in SUPERVISED
        return tags

    def fit(self, X, y=None):
        """Select features of X (and labels y for supervised methods).

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, DataFrame or dask array of shape (n_samples, n_features)
            Non-negative counts or expression, or bins when ``n_bins=None``.
            Sparse input is never densified. A dask array of row blocks is
            binned and counted block by block (on the workers of a
            ``dask.distributed`` Client when there is one), with the same
            result as in memory; degree-K objectives with K >= 3 are refused
            there.
        y : array-like of shape (n_samples,), optional
            Class labels; required by supervised methods.

        Returns
        -------
        self
        """
        method = check_choice(self.method, METHODS, "method")
        mode = check_choice(self.mode, ("multiclass", "binary"), "mode")
        objective = make_objective(method, beta=self.beta, degree=self.degree)
        if self.n_bins is not None:
            n_bins = check_positive_int(self.n_bins, "n_bins", maximum=255, maximum_name="the largest bin count")
        prefilter = None if self.prefilter is None else check_positive_int(self.prefilter, "prefilter")
        n_features = check_positive_int(self.n_features, "n_features")
        if objective.supervised and y is None:
            raise ParameterError(
                f"method {method!r} is supervised and requires y to be passed, but the target y is None: "
                "call fit(X, y) with one label per row."
            )
        if not objective.supervised and mode == "binary":
            raise ParameterError(f"method {method!r} is unsupervised and has no binary mode; use mode='multiclass'.")

        names = getattr(X, "columns", None)
        distributed = is_dask_array(X)
        if distributed:
            from ..info.distributed import DistributedBins, check_degree

            check_degree(objective)  # values are checked block by block as they are counted
        elif self.n_bins is None:
            X = check_discrete_matrix(X, name="X")
        else:
            X = check_matrix(X, name="X", nonnegative=True, sparse_format="csc")
        n_samples, n_columns = (int(d) for d in X.shape)
        self.n_features_in_ = n_columns
        if names is not None and all(isinstance(c, str) for c in names):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

        labels, keep = None, None
        if objective.supervised:
            labels, classes, keep = check_labels(y, n_samples, name="y")
            self.classes_ = classes
        self._check_counts(n_features, n_columns, objective, mode, prefilter, labels)

        with kernel_threads(self.n_jobs):
            if distributed:
                if keep is not None:
                    raise InputError(
                        "y has missing labels; on a Dask array, drop those cells before selection "
                        "(e.g. X[mask] with a mask of labelled cells)."
                    )
                binned = DistributedBins(X, self.n_bins)
            else:
                if self.n_bins is not None:
                    X = discretize_validated(X, n_bins)
                binned = BinnedMatrix.from_binned(X)
                if labels is not None and keep is not None:
                    binned = binned.restrict_rows(keep)
            selection = select_features(
                binned,
                objective,
                labels,
                n_features=n_features,
                mode=mode,
                prefilter=prefilter,
                progress=self.progress,
            )
        self.selected_ = selection.selected
        self.scores_ = selection.scores
        self.n_candidates_ = selection.n_candidates
        if mode == "binary":
            self.selected_per_class_ = {self.classes_[t]: sel for t, (sel, _) in selection.per_class.items()}
        return self

    @staticmethod
    def _check_counts(n_features, n_columns, objective, mode, prefilter, labels):
        per_run = n_features
        if mode == "binary":
            per_run = math.ceil(n_features / (int(labels.max()) + 1))
        if per_run > n_columns:
            raise ParameterError(
                f"n_features={n_features} is larger than the number of features in X ({n_columns}); "
                "ask for fewer features."
            )
        if objective.max_degree >= 1 and prefilter is not None and per_run > prefilter:
            raise ParameterError(
                f"n_features={n_features} is larger than prefilter={prefilter}, the number of features "
                "the search may choose among; raise prefilter or ask for fewer features."
            )

    def _get_support_mask(self):
        check_is_fitted(self, "selected_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask
