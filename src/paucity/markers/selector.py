"""InfoSelector: information-theoretic feature selection as a scikit-learn selector."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from .._errors import InputError, PaucityError, ShapeMismatchError
from .._validation import check_is_fitted
from ._core import SelectorCore
from .objectives import SUPERVISED

__all__ = ["InfoSelector"]


class InfoSelector(SelectorMixin, BaseEstimator, SelectorCore):
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


    fit = SelectorCore.fit  # in this class's own namespace, so that its page shows it

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.input_tags.allow_nan = False
        tags.target_tags.required = str(self.method).lower() in SUPERVISED
        return tags


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
