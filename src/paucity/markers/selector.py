"""InfoSelector: information-theoretic feature selection as a scikit-learn selector."""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from .._errors import (
    InputError,
    ParameterError,
    PaucityError,
    PaucityWarning,
    ShapeMismatchError,
    warn,
)
from .._parallel import kernel_threads
from .._validation import (
    BOOLEAN,
    N_JOBS,
    Interval,
    Options,
    check_discrete_matrix,
    check_is_fitted,
    check_labels,
    check_matrix,
    is_dask_array,
    validate_params,
)
from ..info.counts import BinnedMatrix
from ..info.discretize import N_BINS, discretize_validated
from .greedy import select_features
from .objectives import METHODS, SUPERVISED, make_objective

__all__ = ["InfoSelector"]

#: How many names of constant features a warning shows.
SHOWN_NAMES = 5


class InfoSelector(SelectorMixin, BaseEstimator):
    """Select features that together explain the labels, by greedy information-theoretic search.

    Parameters
    ----------
    method : {"cife", "jmi", "mim", "mrmr", "mifs", "degree", "entropy", "entropy2"}, default="cife"
        The objective (seed 000, Table 2.1 and §2.4). "entropy" and
        "entropy2" are unsupervised: call ``fit(X)`` without y.
    n_features : int, default=50
        Number of features to select. In binary mode, ceil(n_features / c)
        per class are taken and merged without duplicates (so there may be
        fewer). More than X has warns and selects every feature, as
        ``SelectKBest`` does (in binary mode too).
    mode : {"multiclass", "binary"}, default="multiclass"
        "binary" runs the objective once per class against the rest
        (supervised methods only).
    n_bins : int or None, default=5
        Bins of the recursive-quantile discretization, 2 to 255; None when X
        is already discretized (small non-negative integers < 256).
    prefilter : int or None, default=5000
        Bivariate and higher objectives choose among this many features of
        highest MIM score (per class in binary mode); None keeps all.
        Univariate objectives ("mim", "entropy") rank every feature by that
        score already, so the prefilter does not change their choice.
    beta : float, optional
        Redundancy weight of "mifs" (1.0 when not given); an error with any
        other method.
    degree : int, optional
        K of the "degree" objective, 1 is MIM and 2 is CIFE (2 when not
        given); an error with any other method.
    n_jobs : int or None, default=None
        The most threads the counting kernels use (None or -1: every
        core); fewer run when other processes keep cores busy. The
        selection does not depend on it.
    progress : bool, default=False
        Show a progress bar over the greedy steps.

    Attributes
    ----------
    selected_ : numpy.ndarray of int64
        Indices of the selected features (columns of X), in selection order
        (binary mode: the round-robin merge of the class lists).
    selected_names_ : numpy.ndarray of str
        Their names: ``feature_names_in_[selected_]`` when X had string
        column names, else the ``feature_names`` given to ``fit``, otherwise
        ``"x0"``, ``"x1"``, ... as ``get_feature_names_out`` names them.
    scores_ : numpy.ndarray of float64, shape (n_features,)
        One score per input feature: its relevance I(x_j; y) in bits (the
        mutual information with the labels, over all classes, in both
        modes), or its entropy H(x_j) for the unsupervised methods. It is
        the MIM score that the prefilter ranks by, defined for every feature
        whether selected or not; ``np.argsort(-scores_)`` orders the features
        as ``method="mim"`` would.
    selection_scores_ : numpy.ndarray of float64, shape (n_selected,)
        The objective's value (bits) of each selected feature at the step it
        was chosen, in the order of ``selected_`` (binary mode: in the class
        list it was taken from). paucity 0.1.0 called these ``scores_``.
    support_ : numpy.ndarray of bool, shape (n_features,)
        True for the selected features (``get_support()`` returns it).
    selected_per_class_ : dict
        Binary mode only: class label -> that class's own selection.
    selection_scores_per_class_ : dict
        Binary mode only: class label -> the objective's values along that class's list.
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
    Samples whose label is missing are left out with a warning. Features
    that fall into a single bin in every sample (constant ones) carry no
    information: they are reported with a warning, and if every feature is
    constant the fit fails.

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
    >>> selector.selected_.tolist(), selector.selected_names_.tolist()
    ([4, 2], ['x4', 'x2'])
    >>> selector.scores_.round(2).tolist()              # I(x_j; y) of every feature, in bits
    [0.03, 0.02, 0.69, 0.02, 0.88, 0.03]
    >>> selector.get_support().tolist()
    [False, False, True, False, True, False]
    >>> selector.transform(X).shape
    (300, 2)
    """

    _parameter_constraints = {
        "method": [Options(*METHODS)],
        "n_features": [Interval(numbers.Integral, 1, None)],
        "mode": [Options("multiclass", "binary")],
        "n_bins": [N_BINS, None],
        "prefilter": [Interval(numbers.Integral, 1, None), None],
        "beta": [Interval(numbers.Real, 0, None), None],
        "degree": [Interval(numbers.Integral, 1, None), None],
        "n_jobs": [N_JOBS],
        "progress": [BOOLEAN],
    }

    def __init__(
        self,
        method: str = "cife",
        n_features: int = 50,
        mode: str = "multiclass",
        n_bins: int | None = 5,
        prefilter: int | None = 5000,
        beta: float | None = None,
        degree: int | None = None,
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

    def fit(self, X, y=None, *, feature_names=None):
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
            Class labels; required by supervised methods, ignored by the
            unsupervised ones.
        feature_names : array-like of str, optional
            Names of X's columns when X carries none (an AnnData's genes for
            a sparse matrix): they name the features in warnings and in
            ``selected_names_``. A DataFrame's own column names come first.

        Returns
        -------
        self
        """
        params = validate_params(self)
        method, mode = params["method"], params["mode"]
        n_bins, prefilter, n_features = params["n_bins"], params["prefilter"], params["n_features"]
        objective = make_objective(method, beta=params["beta"], degree=params["degree"])
        if objective.supervised and y is None:
            raise ParameterError(
                f"method {method!r} is supervised and requires y to be passed, but the target y is None: "
                "call fit(X, y) with one label per row."
            )
        if not objective.supervised and mode == "binary":
            raise ParameterError(f"method {method!r} is unsupervised and has no binary mode; use mode='multiclass'.")

        names = getattr(X, "columns", None)
        given_names = None if feature_names is None else np.asarray(feature_names, dtype=object).astype(str)
        distributed = is_dask_array(X)
        if distributed:
            from ..info.distributed import DistributedBins, check_degree

            check_degree(objective)  # values are checked block by block as they are counted
        elif n_bins is None:
            X = check_discrete_matrix(X, name="X")
        else:
            X = check_matrix(X, name="X", nonnegative=True, sparse_format="csc")
        n_samples, n_columns = (int(d) for d in X.shape)
        self.n_features_in_ = n_columns
        if given_names is not None and len(given_names) != n_columns:
            raise InputError(
                f"feature_names has {len(given_names)} names but X has {n_columns} columns; give one name per column."
            )
        self._given_names = given_names
        if names is not None and all(isinstance(c, str) for c in names):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

        labels, keep = None, None
        if objective.supervised:
            labels, classes, keep = check_labels(y, n_samples, name="y")
            self.classes_ = classes
        n_classes = int(labels.max()) + 1 if labels is not None else 1
        n_features = self._check_counts(n_features, n_columns, objective, mode, prefilter, n_classes)

        with kernel_threads(params["n_jobs"]):
            if distributed:
                if keep is not None:
                    raise InputError(
                        "y has missing labels; on a Dask array, drop those cells before selection "
                        "(e.g. X[mask] with a mask of labelled cells)."
                    )
                binned = DistributedBins(X, n_bins)
            else:
                if n_bins is not None:
                    X = discretize_validated(X, n_bins)
                binned = BinnedMatrix.from_binned(X)
                if labels is not None and keep is not None:
                    binned = binned.restrict_rows(keep)
            self._check_constant(binned.constant_features(), n_bins)
            selection = select_features(
                binned,
                objective,
                labels,
                n_features=n_features,
                mode=mode,
                prefilter=prefilter,
                progress=params["progress"],
            )
        self.selected_ = selection.selected
        self.selection_scores_ = selection.scores
        self.scores_ = selection.relevance
        self.support_ = np.zeros(n_columns, dtype=bool)
        self.support_[self.selected_] = True
        self.selected_names_ = self._names()[self.selected_]
        self.n_candidates_ = selection.n_candidates
        if mode == "binary":
            self.selected_per_class_ = {self.classes_[t]: sel for t, (sel, _) in selection.per_class.items()}
            self.selection_scores_per_class_ = {self.classes_[t]: np.asarray(scores, dtype=np.float64)
                                                for t, (_, scores) in selection.per_class.items()}
        else:
            for attribute in ("selected_per_class_", "selection_scores_per_class_"):
                if hasattr(self, attribute):
                    delattr(self, attribute)
        return self

    def _names(self) -> np.ndarray:
        """Feature names: the columns of X, else the ``feature_names`` given to ``fit``, else x0, x1, ..."""
        if hasattr(self, "feature_names_in_"):
            return np.asarray(self.feature_names_in_, dtype=object)
        if getattr(self, "_given_names", None) is not None:
            return np.asarray(self._given_names, dtype=object)
        return np.asarray([f"x{j}" for j in range(self.n_features_in_)], dtype=object)

    def _check_constant(self, constant: np.ndarray, n_bins) -> None:
        """Refuse a matrix of constant features; name the constant ones of any other."""
        binning = "after binning" if n_bins is not None else "in X"
        if constant.all():
            raise InputError(
                f"every feature of X is constant {binning} (one bin in every sample), so none carries "
                "information. Check that X holds the expression (not an empty layer) and has more than one sample."
            )
        if constant.any():
            count = int(constant.sum())
            names = self._names()
            shown = ", ".join(map(str, np.asarray(names)[np.flatnonzero(constant)[:SHOWN_NAMES]]))
            more = ", ..." if count > SHOWN_NAMES else ""
            warn(
                f"{count} of {constant.shape[0]} features are constant {binning} ({shown}{more}): they carry no "
                "information and score 0. Filter them out first (e.g. genes expressed in no cell).",
                PaucityWarning,
            )

    @staticmethod
    def _check_counts(n_features, n_columns, objective, mode, prefilter, n_classes) -> int:
        """The number of features to ask the search for, after the checks against X and the prefilter."""
        if n_features > n_columns:
            warn(
                f"n_features={n_features} is larger than the number of features in X ({n_columns}); "
                f"all {n_columns} are selected.",
                PaucityWarning,
            )
            # binary mode: every class ranks every feature, so that the merge holds them all
            n_features = n_columns if mode == "multiclass" else n_columns * n_classes
        per_run = n_features if mode == "multiclass" else math.ceil(n_features / n_classes)
        if objective.max_degree >= 1 and prefilter is not None and per_run > prefilter:
            raise ParameterError(
                f"n_features={n_features} is larger than prefilter={prefilter}, the number of features "
                "the search may choose among; raise prefilter or ask for fewer features."
            )
        return n_features

    def transform(self, X):
        """X reduced to the selected features (scikit-learn's ``SelectorMixin.transform``), after checking that X
        has the columns the selector was fitted on.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The columns the selector was fitted on, in the same order.

        Returns
        -------
        array-like or sparse matrix of shape (n_samples, n_selected)
        """
        check_is_fitted(self, "support_")
        shape = getattr(X, "shape", None)
        if shape is None and isinstance(X, (list, tuple)):
            try:
                shape = np.shape(X)
            except ValueError:  # ragged rows: scikit-learn says what is wrong below
                shape = None
        if shape is not None and len(shape) == 2 and shape[1] != self.n_features_in_:
            raise ShapeMismatchError(
                f"X has {shape[1]} features, but InfoSelector is expecting {self.n_features_in_} features as input "
                f"(those it was fitted on); transform an X with the same {self.n_features_in_} columns, in the same "
                "order, as in fit."
            )
        try:
            return super().transform(X)
        except ValueError as error:
            if isinstance(error, PaucityError):
                raise
            raise InputError(f"InfoSelector.transform: {error}") from None

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_
