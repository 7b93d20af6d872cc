"""Validation of the two samples PDA compares, and of the data it projects.

Every entry point of :mod:`paucity.differences` (the estimators, the
permutation test, the AnnData adapter and the command) reads X and Y through
:func:`check_samples`, so the messages are the same everywhere.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._errors import InputError, InputTypeError, ShapeMismatchError

__all__ = ["Samples", "check_samples", "check_projection_input", "match_columns"]

_MIN_SAMPLES = 2


class Samples:
    """Two validated samples: float64 C-contiguous arrays and the feature names.

    Attributes
    ----------
    X, Y : ndarray of shape (n, d) and (m, d)
    feature_names : ndarray of str or None
        The DataFrame column names when X (or Y) was a DataFrame.
    """

    __slots__ = ("X", "Y", "feature_names")

    def __init__(self, X: np.ndarray, Y: np.ndarray, feature_names):
        self.X = X
        self.Y = Y
        self.feature_names = feature_names


def _as_array(values, name: str, min_samples: int = _MIN_SAMPLES) -> np.ndarray:
    if sp.issparse(values):
        values = values.toarray()
    elif isinstance(values, pd.DataFrame):
        kinds = {dtype.kind for dtype in values.dtypes}
        if not kinds <= set("biuf"):
            text = [str(c) for c, dtype in values.dtypes.items() if dtype.kind not in "biuf"]
            raise InputTypeError(
                f"{name} must hold numbers, but column(s) {', '.join(text[:5])} are not numeric; "
                "convert or drop them."
            )
        values = values.to_numpy(dtype=np.float64)
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise InputTypeError(f"{name} must be a 2-D matrix (samples × features), got a single value {values!r}.")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise InputTypeError(f"{name} could not be read as a numeric matrix: {error}") from None
    if array.dtype.kind == "c":
        raise InputTypeError(f"{name} must hold real numbers, got complex values (dtype {array.dtype}).")
    if array.dtype.kind not in "biuf":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise InputTypeError(
                f"{name} must hold numbers, got dtype {array.dtype}; convert text columns to numbers or drop them."
            ) from None
    if array.ndim != 2:
        raise InputError(
            f"{name} must be a 2-D matrix (samples in rows, features in columns), got shape {array.shape}; "
            "reshape a single feature with .reshape(-1, 1)."
        )
    array = np.ascontiguousarray(array, dtype=np.float64)
    if array.shape[0] < min_samples:
        raise InputError(
            f"{name} has {array.shape[0]} sample(s), but comparing two distributions needs at least "
            f"{min_samples} on each side; collect more samples or merge groups."
        )
    if array.shape[1] == 0:
        raise InputError(f"{name} has no features (shape {array.shape}); give at least one column.")
    bad = ~np.isfinite(array)
    if bad.any():
        row, column = np.unravel_index(int(np.flatnonzero(bad.ravel())[0]), array.shape)
        raise InputError(
            f"{name} has {int(bad.sum())} NaN or infinite value(s) (first at row {row}, column {column}); "
            "drop or impute them before comparing the samples."
        )
    return array


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
    pooled_min = np.minimum(X_array.min(axis=0), Y_array.min(axis=0))
    pooled_max = np.maximum(X_array.max(axis=0), Y_array.max(axis=0))
    if np.all(pooled_min == pooled_max):
        raise InputError(
            f"every one of the {X_array.shape[1]} feature(s) is constant over X and Y together (zero variance), "
            "so no projection can tell the samples apart; check that the right columns were passed."
        )
    feature_names = None if names is None else np.asarray([str(name) for name in names], dtype=object)
    return Samples(X_array, Y_array, feature_names)


def check_projection_input(Z, n_features: int, feature_names) -> np.ndarray:
    """Validate data to project with a fitted direction (``transform``).

    A DataFrame is matched to the fitted feature names by name (reordered when
    it holds the same names in another order, refused when the names differ).
    """
    if isinstance(Z, pd.DataFrame) and feature_names is not None:
        Z = match_columns(Z.set_axis([str(c) for c in Z.columns], axis=1), pd.Index(feature_names),
                   pd.Index([str(c) for c in Z.columns]), name="Z", reference="the fitted data")
    array = _as_array(Z, "Z", min_samples=0)
    if array.shape[1] != n_features:
        raise ShapeMismatchError(
            f"Z has {array.shape[1]} columns but the direction was fitted on {n_features} features."
        )
    return array
