"""The seed's baselines: logistic regression on the gold labels (GOLD) or on the crowd's majority (CONS).

Seed 003, Table 3.1. Both learn a model of the researcher's labels from task
features, as :class:`~paucity.crowd.BBMC` does, and share its
``predict_proba``, ``predict`` and ``log_likelihood``.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import log_expit
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression

from .._errors import InputError, InputTypeError, ParameterError
from .._validation import BOOLEAN, Interval, check_is_fitted, validate_params
from ._predictor import LabelPredictor
from .labels import LabelMatrix, align_features

__all__ = ["GOLD", "CONS", "majority_vote"]


def majority_vote(labels: LabelMatrix, *, exclude=None) -> np.ndarray:
    """The sign of the sum of each task's labels (-1, +1, or 0 for a tie or no label).

    Parameters
    ----------
    labels : LabelMatrix
    exclude : labeler id, optional
        A labeler left out of the vote (the researcher, for CONS).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"task": [0, 0, 0, 1, 1], "labeler": ["a", "b", "c", "a", "b"],
    ...                       "label": [1, 1, -1, 1, -1]})
    >>> majority_vote(LabelMatrix.from_frame(table))
    array([1, 0], dtype=int8)
    """
    values = labels.values.tocsc().astype(np.int64)
    if exclude is not None:
        keep = np.ones(labels.n_labelers, dtype=bool)
        keep[labels.labeler_index(exclude)] = False
        values = values[:, keep]
    return np.sign(np.asarray(values.sum(axis=1)).ravel()).astype(np.int8)


class _LogisticBaseline(LabelPredictor, BaseEstimator):
    _parameter_constraints = {
        "alpha": [Interval(numbers.Real, 0, None)],
        "fit_intercept": [BOOLEAN],
    }

    def __init__(self, alpha=1.0, fit_intercept=True):
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def _targets(self, labels: LabelMatrix, researcher):  # -> (task rows, signs)
        raise NotImplementedError

    def fit(self, labels, X, researcher=None):
        """Fit the logistic regression.

        Parameters
        ----------
        labels : LabelMatrix
        X : array-like of shape (labels.n_tasks, n_features) or pandas.DataFrame indexed by task id
        researcher : object
            The researcher's labeler id.

        Returns
        -------
        self
        """
        params = validate_params(self)
        if not isinstance(labels, LabelMatrix):
            raise InputTypeError(f"labels must be a LabelMatrix, got {type(labels).__name__}.")
        if researcher is not None:
            labels.labeler_index(researcher)
        rows, signs = self._targets(labels, researcher)
        features, names = align_features(labels, X)
        if np.unique(signs).size < 2:
            raise InputError(
                f"{type(self).__name__} needs both labels among its training targets, but all "
                f"{signs.size} are {labels.label_of(int(signs[0])) if signs.size else 'absent'!r}; "
                "add labels of the other kind."
            )
        C = np.inf if params["alpha"] == 0 else 1.0 / params["alpha"]
        model = LogisticRegression(C=C, fit_intercept=params["fit_intercept"], max_iter=1000)
        model.fit(features[rows], signs)
        self.coef_ = model.coef_.ravel().copy()
        self.intercept_ = float(model.intercept_[0]) if params["fit_intercept"] else 0.0
        self.n_train_ = int(rows.size)
        self._record_fit(labels, names, features.shape[1], researcher)
        return self

    def _decision(self, features):
        return features @ self.coef_ + self.intercept_

    def _positive_probability(self, features):
        return 1.0 / (1.0 + np.exp(-self._decision(features)))

    def _sum_log_likelihood(self, features, signs):
        return float(log_expit(signs * self._decision(features)).sum())

    def log_likelihood(self, labels, X, *, researcher=None) -> float:
        """Table 3.1's log likelihood for a logistic model: sum_i log sigmoid(y_i (x_i^T w + b)) on the researcher's labels.

        Parameters
        ----------
        labels : LabelMatrix or 1-D array-like
            A LabelMatrix (its column ``researcher``, by default the one fitted
            on, is evaluated; X aligned by task id), or the researcher's label
            values, one per row of X.
        X : array-like or pandas.DataFrame
        researcher : object, optional

        Returns
        -------
        float
        """
        check_is_fitted(self, "coef_")
        return super().log_likelihood(labels, X, researcher=researcher)


class GOLD(_LogisticBaseline):
    """Logistic regression on the researcher's gold labels only (seed 003, Table 3.1's GOLD).

    Minimizes sum_i log(1 + exp(-y_i (x_i^T w + b))) + alpha / 2 ||w||^2 over
    the tasks the researcher labelled (scikit-learn's LogisticRegression with
    C = 1 / alpha; alpha = 0 drops the penalty).

    Parameters
    ----------
    alpha : float, default 1.0
        Weight of the L2 penalty added to the negative log likelihood.
    fit_intercept : bool, default True

    Attributes
    ----------
    coef_, intercept_ : the fitted weights and intercept.
    n_train_ : the number of gold labels fitted.
    classes_, label_mapping_, researcher_, n_features_in_, feature_names_in_ : as in BBMC.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from paucity.crowd import GOLD, LabelMatrix
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> table = pd.DataFrame({"task": [0, 1, 2, 3], "labeler": "me", "label": ["no", "no", "yes", "yes"]})
    >>> model = GOLD().fit(LabelMatrix.from_frame(table, positive="yes"), X, researcher="me")
    >>> model.predict([[3.0], [-3.0]])
    array(['yes', 'no'], dtype='<U3')
    """

    def fit(self, labels, X, researcher=None):
        if researcher is None:
            raise ParameterError("GOLD needs researcher=, the labeler id of the gold labels.")
        return super().fit(labels, X, researcher)

    fit.__doc__ = _LogisticBaseline.fit.__doc__

    def _targets(self, labels, researcher):
        column = labels.values.tocsc()[:, [labels.labeler_index(researcher)]]
        if column.nnz == 0:
            raise InputError(f"The researcher {researcher!r} has no gold labels; add some before fitting GOLD.")
        return column.indices.astype(np.int64), column.data.astype(np.float64)


class CONS(_LogisticBaseline):
    """Logistic regression on the crowd's majority vote (seed 003, Table 3.1's CONS).

    Each task's target is the sign of the sum of its crowd labels (the
    researcher's column, when given, is left out of the vote); tied tasks and
    tasks without crowd labels are left out. The objective is GOLD's.

    Parameters
    ----------
    alpha : float, default 1.0
        Weight of the L2 penalty added to the negative log likelihood.
    fit_intercept : bool, default True

    Attributes
    ----------
    coef_, intercept_, n_train_ (the number of tasks with a majority), and as GOLD.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from paucity.crowd import CONS, LabelMatrix
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> table = pd.DataFrame({"task": [0, 0, 1, 2, 3, 3], "labeler": ["a", "b", "a", "b", "a", "b"],
    ...                       "label": [-1, -1, -1, 1, 1, 1]})
    >>> model = CONS().fit(LabelMatrix.from_frame(table), X)
    >>> model.predict([[3.0], [-3.0]])
    array([ 1, -1])
    """

    def _targets(self, labels, researcher):
        vote = majority_vote(labels, exclude=researcher)
        rows = np.flatnonzero(vote != 0)
        return rows.astype(np.int64), vote[rows].astype(np.float64)
