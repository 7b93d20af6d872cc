"""Validation of the two samples PDA compares, and of the data it projects.

Every entry point of :mod:`paucity.differences` (the estimators, the
permutation test, the analysis, the AnnData adapter and the command) reads X
and Y through :func:`check_samples` (or :func:`check_fit_input`, which also
takes one matrix and two-valued labels), so the messages are the same
everywhere. The array checks themselves are :func:`paucity._validation.check_matrix`.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._errors import InputError, InputTypeError, PaucityWarning, ShapeMismatchError, warn
from .._validation import check_labels, check_matrix
from ._duration import fits_are_quiet

__all__ = ["Samples", "check_samples", "check_fit_input", "check_projection_input", "match_columns"]

_MIN_SAMPLES = 2
_PREFILTER_ROWS = 2048  # rows per sample whose covariances SPARDA's prefilter compares
_NAMES_SHOWN = 5


class Samples:
    """Two validated samples: float64 C-contiguous arrays and the feature names.

    Attributes
    ----------
    X, Y : ndarray of shape (n, d) and (m, d)
    feature_names : ndarray of str or None
        The DataFrame column names when X (or Y) was a DataFrame.
    varying : ndarray of bool of shape (d,)
        The features that are not constant over X and Y together.
    classes : ndarray or None
        The two label values when the samples came from one matrix and labels
        (rows of the first value are X).
    """

    __slots__ = ("X", "Y", "feature_names", "varying", "classes")

    def __init__(self, X: np.ndarray, Y: np.ndarray, feature_names, varying=None, classes=None):
        self.X = X
        self.Y = Y
        self.feature_names = feature_names
        self.varying = _varying(X, Y) if varying is None else varying
        self.classes = classes

    def names(self) -> np.ndarray:
        """Every feature's name: the column names, or scikit-learn's default ``x0, x1, ...``."""
        if self.feature_names is not None:
            return self.feature_names
        return np.asarray([f"x{j}" for j in range(self.X.shape[1])], dtype=object)


def _varying(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    pooled_min = np.minimum(X.min(axis=0), Y.min(axis=0))
    pooled_max = np.maximum(X.max(axis=0), Y.max(axis=0))
    return pooled_max > pooled_min


def _check_frame_columns(frame: pd.DataFrame, name: str) -> None:
    text = [str(column) for column, dtype in frame.dtypes.items() if dtype.kind not in "biuf"]
    if text:
        raise InputTypeError(
            f"{name} must hold numbers, but column(s) {', '.join(text[:_NAMES_SHOWN])} are not numeric; "
            "convert or drop them."
        )


def _as_array(values, name: str, min_samples: int = _MIN_SAMPLES) -> np.ndarray:
    if isinstance(values, pd.DataFrame):
        _check_frame_columns(values, name)
    array = check_matrix(
        values, name=name, nonnegative=False, sparse_format="csr", dtype=np.float64, min_samples=min_samples
    )
    if sp.issparse(array):  # RELAX works on d × d matrices and dense projections anyway
        array = array.toarray()
    return np.ascontiguousarray(array, dtype=np.float64)


def _names(values):
    if isinstance(values, pd.DataFrame):
        return pd.Index(values.columns)
    return None


def match_columns(Y, x_names: pd.Index, y_names: pd.Index, name: str = "Y", reference: str = "X"):
    """Y's columns in X's order, by name; refuse when the names differ."""
    if x_names.has_duplicates or y_names.has_duplicates:
        which = reference if x_names.has_duplicates else name
        dupes = x_names if x_names.has_duplicates else y_names
        raise InputError(
            f"{which}'s column names repeat ({', '.join(map(str, dupes[dupes.duplicated()][:5]))}); "
            "features must be named once to be matched by name."
        )
    missing = x_names.difference(y_names, sort=False)
    extra = y_names.difference(x_names, sort=False)
    if len(missing) or len(extra):
        parts = []
        if len(missing):
            parts.append(f"missing from {name}: {', '.join(map(str, missing[:5]))}" + (" ..." if len(missing) > 5 else ""))
        if len(extra):
            parts.append(f"only in {name}: {', '.join(map(str, extra[:5]))}" + (" ..." if len(extra) > 5 else ""))
        raise ShapeMismatchError(
            f"{reference} and {name} must have the same columns, matched by name, but theirs differ ("
            + "; ".join(parts)
            + "); select the shared columns of both first."
        )
    return Y[list(x_names)]


def _finish(X_array: np.ndarray, Y_array: np.ndarray, names, classes=None) -> Samples:
    feature_names = None if names is None else np.asarray([str(name) for name in names], dtype=object)
    samples = Samples(X_array, Y_array, feature_names, classes=classes)
    if not samples.varying.any():
        raise InputError(
            f"every one of the {X_array.shape[1]} feature(s) is constant over X and Y together (zero variance), "
            "so no projection can tell the samples apart; check that the right columns were passed."
        )
    return samples


def check_samples(X, Y) -> Samples:
    """Validate two samples of the same features.

    DataFrames are matched by column name: Y's columns are put in X's order
    when both hold the same names, and a difference in names is refused
    (never a silent positional match). A DataFrame beside an array is matched
    by position and lends its names. Sparse matrices are made dense (PDA's
    relaxation works on d × d matrices anyway).

    Raises
    ------
    ShapeMismatchError
        Different numbers of columns, or different column names.
    InputError
        Fewer than two samples on a side, NaN or infinite values, not 2-D, or
        every feature constant over the pooled samples.
    InputTypeError
        Values that are not real numbers.
    """
    x_names, y_names = _names(X), _names(Y)
    if x_names is not None and y_names is not None:
        Y = match_columns(Y, x_names, y_names)
    names = x_names if x_names is not None else y_names
    X_array = _as_array(X, "X")
    Y_array = _as_array(Y, "Y")
    if X_array.shape[1] != Y_array.shape[1]:
        raise ShapeMismatchError(
            f"X has {X_array.shape[1]} columns but Y has {Y_array.shape[1]}; both must hold the same features "
            "in the same order."
        )
    return _finish(X_array, Y_array, names)


def _is_labels(Y) -> bool:
    """True when the second argument of fit is labels (one per row of X), not a second sample."""
    if isinstance(Y, (pd.Series, pd.Index, pd.Categorical)):
        return True
    if isinstance(Y, pd.DataFrame) or sp.issparse(Y) or isinstance(Y, (str, bytes)):
        return False
    ndim = getattr(Y, "ndim", None)
    if isinstance(ndim, int):
        return ndim == 1
    try:
        return np.asarray(Y).ndim == 1
    except (TypeError, ValueError):  # ragged nested lists: a malformed sample, refused by check_matrix
        return False


def check_fit_input(X, Y, *, owner: str = "PDA") -> Samples:
    """The two samples of ``fit(X, Y)``: a second sample Y, or labels y with two values splitting X's rows.

    With labels, the rows of the first value (in sorted order) are X and the
    rows of the second are Y; rows whose label is missing are left out with a
    warning.
    """
    if Y is None:
        raise InputError(
            f"{owner} requires y to be passed, but the target y is None: call fit(X, Y) with a second sample Y "
            "of the same features, or fit(X, y) with labels y of two values, one per row of X."
        )
    if not _is_labels(Y):
        return check_samples(X, Y)
    names = _names(X)
    pooled = _as_array(X, "X", min_samples=1)
    codes, classes, keep = check_labels(Y, pooled.shape[0], name="y", min_classes=1)
    if keep is not None:
        pooled = pooled[keep]
    if len(classes) != 2:
        shown = ", ".join(map(repr, list(classes)[:_NAMES_SHOWN])) + (" ..." if len(classes) > _NAMES_SHOWN else "")
        count = "one class" if len(classes) == 1 else f"{len(classes)} classes"
        raise InputError(
            f"y has {count} ({shown}), but {owner} compares two groups: pass labels with exactly two values, "
            "or call fit(X, Y) with the two samples."
        )
    counts = np.bincount(codes, minlength=2)
    for value, count in zip(classes, counts):
        if count < _MIN_SAMPLES:
            raise InputError(
                f"the group y == {value!r} has {count} sample(s), but comparing two distributions needs at least "
                f"{_MIN_SAMPLES} in each group; collect more samples or merge groups."
            )
    return _finish(
        np.ascontiguousarray(pooled[codes == 0]), np.ascontiguousarray(pooled[codes == 1]), names, classes=classes
    )


def warn_constant(samples: Samples, stacklevel: int = 3) -> None:
    """A PaucityWarning naming the features constant over both samples (they never carry weight).

    Silent inside :func:`~paucity.differences._duration.quiet_fits`.
    """
    constant = np.flatnonzero(~samples.varying)
    if constant.size == 0 or fits_are_quiet():
        return
    names = samples.names()[constant]
    shown = ", ".join(map(str, names[:_NAMES_SHOWN])) + (" ..." if constant.size > _NAMES_SHOWN else "")
    warn(
        f"{constant.size} of {samples.X.shape[1]} feature(s) are constant over X and Y together ({shown}) and are "
        "ignored: no projection on them can tell the samples apart, so their weight is 0.",
        PaucityWarning,
    )


def check_projection_input(Z, n_features: int, feature_names, *, owner: str = "PDA") -> np.ndarray:
    """Validate data to project with a fitted direction (``transform``).

    A DataFrame is matched to the fitted feature names by name (reordered when
    it holds the same names in another order, refused when the names differ).
    """
    if isinstance(Z, pd.DataFrame) and feature_names is not None:
        Z = match_columns(Z.set_axis([str(c) for c in Z.columns], axis=1), pd.Index(feature_names),
                          pd.Index([str(c) for c in Z.columns]), name="X", reference="the fitted data")
    array = _as_array(Z, "X", min_samples=0)
    if array.shape[1] != n_features:
        raise ShapeMismatchError(
            f"X has {array.shape[1]} features, but {owner} is expecting {n_features} features as input "
            "(the direction was fitted on that many); pass the same columns as in fit."
        )
    return array


def pooled_scale(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Every feature's standard deviation over the rows of X and Y together (1 for a constant feature)."""
    spread = np.concatenate([X, Y]).std(axis=0)
    return np.where(spread > 0, spread, 1.0)


def prefilter_rows(n: int) -> np.ndarray:
    """The rows of a sample of n whose covariances the prefilter compares: at most 2,048, evenly spaced."""
    return np.unique(np.linspace(0, n - 1, min(n, _PREFILTER_ROWS)).astype(np.int64))
