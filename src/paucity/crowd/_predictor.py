"""What every model of the researcher's labels shares: features in, her labels out, her log likelihood."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._validation import check_is_fitted, check_matrix
from .labels import LabelMatrix, align_features


class LabelPredictor:
    """Mixin: ``predict`` from ``predict_proba``, feature checks, and the evaluation labels of ``log_likelihood``.

    A subclass sets ``classes_`` (negative label, positive label),
    ``label_mapping_``, ``researcher_``, ``n_features_in_`` and, when fitted on a
    DataFrame, ``feature_names_in_``; and implements ``_positive_probability``
    and ``_sum_log_likelihood``.
    """

    def _record_fit(self, labels: LabelMatrix, names, n_features: int, researcher) -> None:
        self.label_mapping_ = dict(labels.label_mapping)
        classes = [labels.label_of(-1), labels.label_of(1)]
        same = type(classes[0]) is type(classes[1])
        self.classes_ = np.array(classes) if same else np.array(classes, dtype=object)
        self.researcher_ = researcher
        self.n_features_in_ = n_features
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _select_columns(self, X: pd.DataFrame) -> pd.DataFrame:
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return X
        columns = [str(c) for c in X.columns]
        absent = [n for n in names if n not in columns]
        if absent:
            raise InputError(
                f"X lacks the feature column(s) {absent[:3]} the model was fitted on; give it the same columns."
            )
        return X.set_axis(columns, axis=1)[list(names)]

    def _features(self, X) -> np.ndarray:
        if isinstance(X, pd.DataFrame):
            X = self._select_columns(X)
        values = check_matrix(X, name="X", nonnegative=False, sparse_format=None, dtype=np.float64, min_samples=0)
        if values.shape[1] != self.n_features_in_:
            raise ShapeMismatchError(
                f"X has {values.shape[1]} features but the model was fitted on {self.n_features_in_}; "
                "pass the same feature columns."
            )
        return np.ascontiguousarray(values)

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of the researcher's two labels for each task: columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_tasks, n_features) or pandas.DataFrame

        Returns
        -------
        numpy.ndarray of shape (n_tasks, 2)
            Column 1 is the probability that the researcher says the positive label.
        """
        check_is_fitted(self, "classes_")
        positive = self._positive_probability(self._features(X))
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X) -> np.ndarray:
        """The researcher's more probable label for each task (the positive one when above 1/2)."""
        positive = self.predict_proba(X)[:, 1]
        return self.classes_[(positive > 0.5).astype(int)]

    def fit_predict(self, labels, X=None, researcher=None, *, positive=None) -> pd.Series:
        """Fit on a long table of labels, then predict the researcher's label of each of its tasks.

        crowd-kit's habit, ``fit_predict(df)`` on a table with columns worker,
        task, label, with the task features this model predicts from.

        Parameters
        ----------
        labels : pandas.DataFrame or LabelMatrix
            A long table read by :meth:`LabelMatrix.from_frame` (columns task,
            labeler and label, or crowd-kit's task, worker and label), or a
            label matrix.
        X : array-like of shape (n_tasks, n_features) or pandas.DataFrame
            Task features, as for ``fit`` (required: this model predicts
            from them; a DataFrame is indexed by task id).
        researcher : object, optional
            The researcher's labeler id, as for ``fit``.
        positive : object, optional
            The label value mapped to +1, as for ``from_frame`` (a DataFrame
            only).

        Returns
        -------
        pandas.Series
            Named ``agg_label`` and indexed by task id (index name ``task``),
            as crowd-kit's ``fit_predict`` returns: ``predict`` on the
            features of every task of ``labels``, in its order (that of first
            appearance in the table), in the table's own words.
        """
        owner = f"{type(self).__name__}.fit_predict"
        if X is None:
            raise ParameterError(
                f"{owner} needs the task features X: {type(self).__name__} predicts the researcher's labels from "
                "them; without features use majority_vote(LabelMatrix.from_frame(df)) or aggregate(...)."
            )
        if isinstance(labels, pd.DataFrame):
            labels = LabelMatrix.from_frame(labels, positive=positive)
        elif not isinstance(labels, LabelMatrix):
            raise InputTypeError(
                f"{owner} reads a long table (a pandas DataFrame with columns task, labeler or worker, label) or a "
                f"LabelMatrix, got {type(labels).__name__}."
            )
        elif positive is not None:
            raise ParameterError("positive= is only read with a long table; a LabelMatrix has its label_mapping already.")
        self.fit(labels, X, researcher=researcher)
        features, _ = align_features(labels, X)
        return pd.Series(self.predict(features), index=pd.Index(labels.task_ids, name="task"), name="agg_label")

    def _evaluation_labels(self, labels, X, researcher):
        """Features and signs (-1/+1) of the evaluation tasks: a LabelMatrix's researcher column or a 1-D vector."""
        if isinstance(labels, LabelMatrix):
            who = self.researcher_ if researcher is None else researcher
            if who is None:
                raise ParameterError("This model was fitted without a researcher: pass researcher= to log_likelihood.")
            column = labels.values.tocsc()[:, [labels.labeler_index(who)]]
            rows = column.indices
            if rows.size == 0:
                raise InputError(f"Labeler {who!r} has no labels in these labels; nothing to evaluate.")
            if isinstance(X, pd.DataFrame):
                own = LabelMatrix(column[rows], task_ids=labels.task_ids[rows], labeler_ids=[who],
                                  label_mapping=labels.label_mapping)
                features, _ = align_features(own, self._select_columns(X))
            else:
                features, _ = align_features(labels, X)
                features = features[rows]
            values = np.array([labels.label_of(int(s)) for s in column.data], dtype=object)
            return self._features(features), self._signs(values)
        if isinstance(labels, pd.DataFrame) or np.ndim(labels) != 1:
            raise InputTypeError(
                "labels must be a LabelMatrix or a 1-D sequence of the researcher's labels (one per row of X)."
            )
        features = self._features(X)
        values = np.asarray(labels, dtype=object)
        if values.size != features.shape[0]:
            raise ShapeMismatchError(f"labels has {values.size} entries but X has {features.shape[0]} rows.")
        return features, self._signs(values)

    def _signs(self, values) -> np.ndarray:
        mapping = self.label_mapping_
        unknown = [v for v in pd.unique(pd.Series(values)) if v not in mapping]
        if unknown:
            raise InputError(
                f"labels hold value(s) {unknown[:3]} the model was not fitted on; its labels are {list(mapping)}."
            )
        return np.array([mapping[v] for v in values], dtype=np.float64)

    def log_likelihood(self, labels, X, *, researcher=None) -> float:
        """Log likelihood of the researcher's labels on tasks X under the fitted model (seed 003, Table 3.1).

        Parameters
        ----------
        labels : LabelMatrix or 1-D array-like
            A LabelMatrix (its column ``researcher``, by default the one fitted
            on, is evaluated; X aligned by task id), or the researcher's label
            values, one per row of X.
        X : array-like or pandas.DataFrame
            Task features.
        researcher : object, optional
            The labeler whose labels are evaluated, when labels is a LabelMatrix.

        Returns
        -------
        float
            A sum over the evaluated tasks (higher is better).
        """
        check_is_fitted(self, "classes_")
        features, signs = self._evaluation_labels(labels, X, researcher)
        return float(self._sum_log_likelihood(features, signs))
