"""Input checks shared by more than one module.

Each check raises an error from :mod:`paucity._errors` whose message says what
was wrong, what was expected and how to fix it. Checks never copy sparse data
unless the format has to change, and never densify it.
"""

from __future__ import annotations

import numbers
import os

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._errors import InputError, InputTypeError, ParameterError, PaucityWarning, ShapeMismatchError, warn
from ._columns import check_columns  # re-exported: light to import, for the command line
from ._constraints import (  # re-exported: the constraints and their check live there, light to import
    BOOLEAN, CALLABLE, MAX_ITERATIONS, N_JOBS, RANDOM_STATE, Instance, Interval, Iterations, Options,
    check_parameter, describe_constraints,
)

__all__ = [
    "check_matrix",
    "check_discrete_matrix",
    "check_labels",
    "check_label_types",
    "check_columns",
    "check_positive_int",
    "check_choice",
    "check_random_state",
    "check_is_fitted",
    "check_parameter",
    "describe_constraints",
    "validate_params",
    "check_memory",
    "machine_memory",
    "MAX_ITERATIONS",
    "Iterations",
    "Interval",
    "Options",
    "Instance",
    "BOOLEAN",
    "RANDOM_STATE",
    "N_JOBS",
    "CALLABLE",
    "is_dask_array",
]


def is_dask_array(X) -> bool:
    """True when X is a dask array, without importing dask."""
    return type(X).__module__.startswith("dask.")


def _values_of(X):
    return X.data if sp.issparse(X) else X


def check_matrix(
    X,
    *,
    name: str = "X",
    nonnegative: bool = True,
    sparse_format: str | None = "csc",
    dtype=None,
    min_samples: int = 1,
):
    """Validate a 2-D numeric matrix, dense or scipy sparse.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
        The data, samples in rows.
    name : str
        Name used in messages.
    nonnegative : bool
        Reject negative values (counts and expression are non-negative).
    sparse_format : {"csc", "csr", None}
        Format a sparse input is converted to (None keeps it).
    dtype : numpy dtype, optional
        Dtype to convert to; by default floating inputs keep their dtype and
        integer inputs keep theirs.
    min_samples : int, default 1
        Fewest rows accepted (0 accepts an empty matrix with columns).

    Returns
    -------
    numpy.ndarray or scipy.sparse matrix
        A C-contiguous dense array or a sparse matrix in ``sparse_format`` with
        sorted indices.
    """
    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    if sp.issparse(X):
        if X.ndim != 2:
            raise InputError(f"{name} must be 2-dimensional, got {X.ndim} dimensions.")
        if sparse_format is not None and X.format != sparse_format:
            X = _convert(X, sparse_format)
        if not X.has_sorted_indices:
            X = X.sorted_indices()
        if X.has_canonical_format is False:
            X = X.copy()  # summing duplicates in place would change the caller's matrix
            X.sum_duplicates()
    else:
        try:
            X = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise InputTypeError(f"{name} could not be read as a numeric matrix: {exc}") from None
        if X.dtype == object:
            try:
                X = X.astype(np.float64)
            except (TypeError, ValueError):
                raise InputTypeError(
                    f"{name} must hold numbers, but some values are not: every argument must be a real "
                    "number, not a string or another object (dtype object). Convert text columns to numbers or drop them."
                ) from None
        if X.dtype.kind in "USVM":
            raise InputTypeError(
                f"{name} must hold numbers, got dtype {X.dtype}. Convert text columns to numbers or drop them."
            )
        if X.dtype.kind == "c":
            raise InputError(f"Complex data not supported: {name} has dtype {X.dtype}; pass real numbers.")
        if X.dtype.kind == "b":
            X = X.astype(np.uint8)
        if X.ndim != 2:
            raise InputError(
                f"{name} must be a 2-dimensional matrix (samples x features), got {X.ndim} dimension(s). "
                f"Reshape your data: a single feature with {name}.reshape(-1, 1), a single sample with "
                f"{name}.reshape(1, -1)."
            )
        if dtype is None and X.dtype.kind == "f":
            X = np.ascontiguousarray(X)
    if dtype is not None:
        X = X.astype(dtype, copy=False)
    if sp.issparse(X) and X.dtype.kind == "c":
        raise InputError(f"Complex data not supported: {name} has dtype {X.dtype}; pass real numbers.")
    if sp.issparse(X) and X.dtype.kind not in "biuf":
        raise InputTypeError(f"{name} must hold numbers, got dtype {X.dtype}.")
    n_samples, n_features = X.shape
    if n_samples < min_samples:
        if n_samples == 0:
            raise InputError(
                f"{name} is empty: 0 sample(s) (shape={X.shape}) while a minimum of {min_samples} is required."
            )
        raise InputError(
            f"{name} has {n_samples} sample(s) (shape={X.shape}) while a minimum of {min_samples} is required; "
            "collect more samples."
        )
    if n_features == 0:
        raise InputError(f"{name} is empty: 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    values = _values_of(X)
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values)
        if bad.any():
            where = _locate(X, np.flatnonzero(bad.ravel())[0])
            raise InputError(
                f"{name} has {int(bad.sum())} NaN or infinite value(s) (first at row {where[0]}, column {where[1]}). "
                "Impute or drop them before selection."
            )
    if nonnegative and values.size and values.min() < 0:
        idx = int(np.argmin(values.ravel()))
        where = _locate(X, idx)
        raise InputError(
            f"Negative values in data passed to {name} (smallest {float(values.ravel()[idx])!r} at row {where[0]}, "
            f"column {where[1]}), but counts or expression were expected. "
            "Pass raw counts or log-normalized expression, not scaled data."
        )
    return X


def _convert(X, sparse_format: str):
    """X in CSC or CSR form; between the two, by the parallel transpose of paucity._sparse."""
    from ._sparse import to_csc, to_csr  # numba compiles on first use only

    if X.format not in ("csr", "csc"):
        X = X.tocsr()
    return to_csc(X) if sparse_format == "csc" else to_csr(X)


def _locate(X, flat_index: int) -> tuple[int, int]:
    """Row and column of the flat_index-th stored value."""
    if sp.issparse(X):
        if X.format == "csc":
            col = int(np.searchsorted(X.indptr, flat_index, side="right") - 1)
            return int(X.indices[flat_index]), col
        if X.format == "csr":
            row = int(np.searchsorted(X.indptr, flat_index, side="right") - 1)
            return row, int(X.indices[flat_index])
        coo = X.tocoo()
        return int(coo.row[flat_index]), int(coo.col[flat_index])
    return tuple(int(i) for i in np.unravel_index(flat_index, X.shape))


def check_discrete_matrix(X, *, name: str = "X"):
    """Validate a pre-discretized matrix of small non-negative integers (< 256).

    Returns a CSC ``uint8`` matrix for sparse input and a C-contiguous ``uint8``
    array for dense input.
    """
    X = check_matrix(X, name=name, nonnegative=True, sparse_format="csc")
    values = _values_of(X)
    if values.size:
        if values.dtype.kind == "f" and not np.all(np.mod(values, 1) == 0):
            raise InputError(
                f"{name} was given as pre-discretized (n_bins=None) but holds non-integer values. "
                "Pass n_bins=5 to discretize it, or round it first."
            )
        if values.max() >= 256:
            raise InputError(
                f"{name} was given as pre-discretized (n_bins=None) but its largest value is {values.max()}; "
                "bins must be integers in 0..255. Pass n_bins=5 to discretize it instead."
            )
    if sp.issparse(X):
        values = values.astype(np.uint8, copy=False)
        if values.all():
            return sp.csc_matrix((values, X.indices, X.indptr), shape=X.shape)
        # fresh index arrays: dropping zeros must not touch the caller's matrix
        X = sp.csc_matrix((values.copy(), X.indices.copy(), X.indptr.copy()), shape=X.shape)
        X.eliminate_zeros()
        return X
    return np.ascontiguousarray(X, dtype=np.uint8)


def check_labels(y, n_samples: int, *, name: str = "y", min_classes: int = 2, sample_name: str = "X"):
    """Encode labels as integer codes 0..c-1.

    Missing labels (NaN, None, pandas NA) mark samples to leave out; they are
    reported with a warning. Returns ``(codes, classes, keep)`` where ``keep``
    is a boolean mask of the samples with a label, or None when all have one.
    """
    if isinstance(y, (pd.Series, pd.Index, pd.Categorical)):
        series = pd.Series(y).reset_index(drop=True)
    else:
        if isinstance(y, (list, tuple)):  # before numpy turns [1, "a"] into ["1", "a"]
            check_label_types(pd.Series(np.asarray(y, dtype=object).ravel(), dtype=object), name)
        arr = np.asarray(y)
        if arr.ndim == 2 and 1 in arr.shape:
            arr = arr.ravel()
        if arr.ndim != 1:
            raise InputError(f"{name} must be 1-dimensional (one label per sample), got shape {arr.shape}.")
        series = pd.Series(arr)
    if len(series) != n_samples:
        raise ShapeMismatchError(
            f"{name} has {len(series)} entries but {sample_name} has {n_samples} rows; give one label per row."
        )
    missing = series.isna().to_numpy()
    if missing.all():
        raise InputError(f"every entry of {name} is missing; labels are needed for supervised selection.")
    check_label_types(series, name)
    codes, classes = pd.factorize(series, sort=True, use_na_sentinel=True)
    codes = codes.astype(np.int64)
    if len(classes) < min_classes:
        raise InputError(
            f"{name} has one class only ({classes[0]!r}); at least {min_classes} classes are needed. "
            "Check the label column, or use an unsupervised method such as 'entropy'."
        )
    keep = None
    if missing.any():
        warn(
            f"{int(missing.sum())} of {n_samples} samples have no label in {name} and are left out.",
            PaucityWarning,
        )
        keep = ~missing
        codes = codes[keep]
    return codes, np.asarray(classes), keep


def _label_kind(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "booleans"
    if isinstance(value, numbers.Number):
        return "numbers"
    if isinstance(value, str):
        return "text"
    return type(value).__name__


def check_label_types(series: pd.Series, name: str) -> None:
    """Refuse labels of more than one kind (text beside numbers, say): ``1`` and ``"1"`` would be two classes,
    or one, depending on how the labels were built.

    Examples
    --------
    >>> check_labels(pd.Series(["B cell", 3, "T cell", "B cell"]), 4)
    Traceback (most recent call last):
    ...
    paucity._errors.InputError: y mixes labels of different types: text (e.g. 'B cell') and numbers (e.g. 3); give labels of one type, e.g. all text with y.astype(str), or fix the entries of the wrong type.
    """
    values = series.cat.categories if isinstance(series.dtype, pd.CategoricalDtype) else series[series.notna()]
    if values.dtype != object or len(values) == 0:
        return
    kinds: dict[str, object] = {}
    for value in values:
        kinds.setdefault(_label_kind(value), value)
        if len(kinds) > 1:
            (first, a), (second, b) = kinds.items()
            raise InputError(
                f"{name} mixes labels of different types: {first} (e.g. {a!r}) and {second} (e.g. {b!r}); give "
                f"labels of one type, e.g. all text with {name}.astype(str), or fix the entries of the wrong type."
            )


def check_positive_int(value, name: str, *, minimum: int = 1, maximum: int | None = None, maximum_name: str = ""):
    """Check that value is an integer in [minimum, maximum]; :func:`check_parameter` with one :class:`Interval`."""
    hint = f"The largest is {maximum_name}." if maximum is not None and maximum_name else None
    return int(check_parameter(value, name, [Interval(numbers.Integral, minimum, maximum)], hint=hint))


def check_choice(value, choices, name: str):
    """Check that value is one of choices (strings compared in lower case); :func:`check_parameter` with :class:`Options`."""
    return check_parameter(value, name, [Options(*choices)])


def check_random_state(random_state, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from a non-negative int, a Generator, a RandomState or None.

    Examples
    --------
    >>> from paucity._spelling import option_spelling
    >>> check_random_state(-1)
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: random_state must be a non-negative integer seed, a numpy Generator or None, got -1. Pass a seed such as 0.
    >>> with option_spelling({"random_state": "--random-state"}):
    ...     check_random_state(-1)
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: --random-state must be a non-negative integer, got -1. Pass a seed such as 0.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None:
        return np.random.default_rng()
    from ._spelling import spelled, spells

    kind = RANDOM_STATE.describe(command_line=spells(name))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ParameterError(f"{spelled(name)} must be {kind}, got {int(random_state)}. Pass a seed such as 0.")
        return np.random.default_rng(int(random_state))
    raise ParameterError(f"{spelled(name)} must be {kind}, got {random_state!r}.")


def check_is_fitted(estimator, attribute: str) -> None:
    """Raise :class:`~paucity._errors.NotFittedError` unless ``estimator`` has ``attribute``.

    The error is also scikit-learn's ``NotFittedError``, so either ``except``
    clause catches it.
    """
    if not hasattr(estimator, attribute):
        from ._errors import NotFittedError  # made on first use: its base class is scikit-learn's

        name = type(estimator).__name__
        raise NotFittedError(
            f"This {name} is not fitted yet; call fit first (then {name}.{attribute.rstrip('_')}_ exists)."
        )


# --- parameters declared once ------------------------------------------------------------------------------------


def machine_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # Windows has no sysconf
        return None


def _bytes(n: float) -> str:
    """``969 GiB``, ``12.5 MiB``: a byte count for a message."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}" if unit != "bytes" else f"{int(n)} bytes"
        n /= 1024
    return f"{n:.3g} PiB"


def check_memory(shape, *, cause: str, owner: str | None = None, what: str = "an array", itemsize: int = 8,
                 hint: str | None = None, memory: int | None = None) -> None:
    """Refuse, before it is allocated, an array larger than this machine's memory.

    Parameters
    ----------
    shape : tuple of int
        The shape of the largest array the call would allocate (Python integers: no overflow).
    cause : str
        The parameter that makes it so large, as the user gave it (``"n_factors=100000"``).
    owner : str, optional
        The estimator or function, named in the message.
    what : str
        What the array holds, for the message.
    itemsize : int
        Bytes per entry (8 for float64).
    hint : str, optional
        How to fix it; default ``"lower <parameter>"``.
    memory : int, optional
        The memory to compare with (default: :func:`machine_memory`; no check where it is unknown).

    Examples
    --------
    >>> check_memory((13, 100000, 100000), cause="n_factors=100000", owner="BBMC", what="the factor pairs",
    ...              memory=16 * 2**30)
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: BBMC: n_factors=100000 needs the factor pairs of shape 13 x 100000 x 100000 (969 GiB), more than this machine's 16 GiB of memory; lower n_factors.
    """
    limit = machine_memory() if memory is None else memory
    if limit is None:
        return
    n_bytes = itemsize
    for size in shape:
        n_bytes *= int(size)
    if n_bytes <= limit:
        return
    from ._spelling import spelled, spells

    name, _, value = cause.partition("=")
    prefix = f"{owner}: " if owner and not spells() else ""
    if spells(name):
        cause = f"{spelled(name)} {value}" if value else spelled(name)
    fix = hint or f"lower {spelled(name)}"
    dims = " x ".join(str(int(size)) for size in shape)
    raise ParameterError(
        f"{prefix}{cause} needs {what} of shape {dims} ({_bytes(n_bytes)}), more than this machine's "
        f"{_bytes(limit)} of memory; {fix}."
    )


def validate_params(estimator) -> dict:
    """Check every parameter of ``estimator`` against its class's ``_parameter_constraints``.

    Call it once at the top of ``fit``. Parameters without a declared
    constraint are not checked. A class may also declare
    ``_parameter_hints = {name: "how to fix it"}``, appended to the message, and
    ``_parameter_owner``, the name errors give it (its class's name otherwise).
    Returns the parameters, strings accepted by :class:`Options` in lower case.
    """
    constraints = getattr(type(estimator), "_parameter_constraints", {})
    hints = getattr(type(estimator), "_parameter_hints", {})
    params = estimator.get_params(deep=False)
    owner = getattr(type(estimator), "_parameter_owner", type(estimator).__name__)
    return {
        name: check_parameter(value, name, constraints[name], owner=owner, hint=hints.get(name))
        if name in constraints
        else value
        for name, value in params.items()
    }
