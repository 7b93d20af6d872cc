"""Input checks of the clustering capability: similarity matrices, pairs of items, measured values.

Each check raises an error from :mod:`paucity._errors` whose message says what
was wrong, what was expected and how to fix it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._validation import check_matrix

__all__ = ["MIN_ITEMS", "check_similarities", "check_pairs", "check_values", "check_n_items", "check_interleave"]

#: Spectral bisection needs at least three items (with two the split is forced).
MIN_ITEMS = 3
#: Largest |w_ij - w_ji| accepted as round-off in a "symmetric" matrix.
SYMMETRY_TOLERANCE = 1e-10


def check_n_items(n_items, *, name: str = "n_items") -> int:
    """An integer number of items, at least :data:`MIN_ITEMS`."""
    if isinstance(n_items, bool) or not isinstance(n_items, (int, np.integer)):
        raise InputTypeError(f"{name} must be an integer number of items, got {n_items!r}.")
    if n_items < MIN_ITEMS:
        raise InputError(
            f"{name} is {int(n_items)}, but clustering by spectral bisection needs at least {MIN_ITEMS} items."
        )
    return int(n_items)


def check_similarities(W, *, name: str = "W", complete: bool = False, sparse: bool = True):
    """A square, symmetric, finite, non-negative matrix of similarities, dense or CSR.

    Parameters
    ----------
    W : array-like or scipy.sparse matrix
        The similarities.
    name : str
        Name used in messages.
    complete : bool
        A complete matrix of similarities (an oracle's truth): its values must
        lie in [0, 1]. Otherwise (an estimate Ŵ with zeros for unmeasured
        pairs) any non-negative weights are accepted.
    sparse : bool
        Keep sparse input sparse (CSR); with False it is made dense.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_matrix
        float64, exactly symmetric (the mean of W and its transpose).
    """
    W = check_matrix(W, name=name, nonnegative=False, sparse_format="csr", dtype=np.float64, min_samples=0)
    if sp.issparse(W) and not sparse:
        W = W.toarray()
    n_rows, n_columns = W.shape
    if n_rows != n_columns:
        raise ShapeMismatchError(
            f"{name} must be a square matrix of pairwise similarities (one row and one column per item), "
            f"got shape {W.shape}."
        )
    if n_rows < MIN_ITEMS:
        raise InputError(
            f"{name} has {n_rows} item(s), but clustering by spectral bisection needs at least {MIN_ITEMS}."
        )
    values = W.data if sp.issparse(W) else W
    if values.size and values.min() < 0:
        where = _first(W, W < 0 if not sp.issparse(W) else None, values < 0)
        raise InputError(
            f"{name} has negative similarities (first at row {where[0]}, column {where[1]}: "
            f"{float(_entry(W, where))!r}); similarities must be "
            f"{'in [0, 1]' if complete else 'non-negative'}. Rescale them, e.g. to [0, 1]."
        )
    if complete and values.size and values.max() > 1:
        where = _first(W, W > 1 if not sp.issparse(W) else None, values > 1)
        raise InputError(
            f"{name} has similarities above 1 (first at row {where[0]}, column {where[1]}: "
            f"{float(_entry(W, where))!r}); similarities must be in [0, 1]. Divide by the largest possible value."
        )
    asymmetry = abs(W - W.T)
    largest = float(asymmetry.max()) if (asymmetry.nnz if sp.issparse(asymmetry) else asymmetry.size) else 0.0
    if largest > SYMMETRY_TOLERANCE:
        if sp.issparse(asymmetry):
            coo = asymmetry.tocoo()
            k = int(np.argmax(coo.data))
            i, j = int(coo.row[k]), int(coo.col[k])
        else:
            i, j = (int(v) for v in np.unravel_index(int(np.argmax(asymmetry)), asymmetry.shape))
        raise InputError(
            f"{name} is not symmetric: w[{i}, {j}] = {float(_entry(W, (i, j)))!r} but w[{j}, {i}] = "
            f"{float(_entry(W, (j, i)))!r}. A similarity matrix must equal its transpose; "
            f"pass (W + W.T) / 2 if both orders were measured."
        )
    W = (W + W.T) * 0.5
    return W.tocsr() if sp.issparse(W) else np.ascontiguousarray(W)


def _first(W, dense_mask, value_mask) -> tuple[int, int]:
    if dense_mask is not None:
        return tuple(int(v) for v in np.unravel_index(int(np.argmax(dense_mask)), W.shape))
    k = int(np.argmax(value_mask))
    row = int(np.searchsorted(W.indptr, k, side="right") - 1)
    return row, int(W.indices[k])


def _entry(W, where) -> float:
    i, j = where
    return W[i, j]


def check_pairs(pairs, n_items: int, *, name: str = "pairs") -> np.ndarray:
    """Pairs of distinct item indices, as an (m, 2) int64 array with i < j in each row.

    Parameters
    ----------
    pairs : array-like of shape (m, 2)
        Item indices in 0..n_items-1; each row two different items, in either order.
    n_items : int
        Number of items.
    name : str
        Name used in messages.
    """
    try:
        array = np.asarray(pairs)
    except Exception as exc:  # ragged input
        raise InputTypeError(f"{name} could not be read as an array of (i, j) pairs: {exc}") from None
    if array.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if array.ndim == 1 and array.shape[0] == 2:
        array = array.reshape(1, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ShapeMismatchError(f"{name} must have shape (m, 2), one (i, j) pair per row, got shape {array.shape}.")
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
            raise InputTypeError(f"{name} must hold integer item indices, got non-integer values such as "
                                 f"{array[~((array == np.round(array)) & np.isfinite(array))][0]!r}.")
        if np.abs(array).max() >= 2**62:
            k = int(np.argmax(np.abs(array).max(axis=1)))
            raise InputError(f"{name} names an unknown item in row {k}: {array[k].tolist()}; the items are "
                             f"numbered 0..{n_items - 1}.")
    elif array.dtype.kind not in "iu":
        raise InputTypeError(f"{name} must hold integer item indices, got dtype {array.dtype}.")
    elif array.dtype.kind == "u" and array.max() >= 2**62:
        raise InputError(f"{name} names an unknown item ({int(array.max())}); the items are numbered 0..{n_items - 1}.")
    array = array.astype(np.int64)
    outside = (array < 0) | (array >= n_items)
    if outside.any():
        row = int(np.flatnonzero(outside.any(axis=1))[0])
        raise InputError(
            f"{name} names an unknown item: row {row} is ({array[row, 0]}, {array[row, 1]}) but the items are "
            f"numbered 0..{n_items - 1}."
        )
    same = array[:, 0] == array[:, 1]
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise InputError(
            f"{name} pairs an item with itself at row {row} ({array[row, 0]}, {array[row, 1]}); "
            "a similarity is measured between two different items."
        )
    return np.sort(array, axis=1)


def check_values(values, n_pairs: int, *, name: str = "values", source: str | None = None) -> np.ndarray:
    """Measured similarities: a 1-D float64 array of ``n_pairs`` finite values in [0, 1]."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must hold numbers (similarities in [0, 1]), got {values!r}.") from None
    if array.ndim == 2 and 1 in array.shape:
        array = array.ravel()
    if array.ndim != 1:
        raise ShapeMismatchError(f"{name} must be 1-dimensional, one similarity per pair, got shape {array.shape}.")
    if array.shape[0] != n_pairs:
        raise ShapeMismatchError(f"{name} has {array.shape[0]} entries but there are {n_pairs} pairs; give one per pair.")
    who = f"{source} answered" if source else f"{name} has"
    bad = ~np.isfinite(array)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(f"{who} {float(array[k])!r} for pair number {k}; similarities must be finite numbers in [0, 1].")
    outside = (array < 0) | (array > 1)
    if outside.any():
        k = int(np.flatnonzero(outside)[0])
        raise InputError(
            f"{who} {float(array[k])!r} for pair number {k}; similarities must be in [0, 1]. "
            "Rescale the answers (e.g. a rating r on 1..10 as r / 10)."
        )
    return array


def check_interleave(strategy, interleave, *, owner: str) -> None:
    """Refuse ``interleave`` with the random strategy: it alternates the strategy's pairs with random ones, so
    with random pairs it would change nothing (a parameter either changes the result or is refused)."""
    from .._spelling import given, owner_prefix, spelled

    if interleave and isinstance(strategy, str) and strategy.lower() == "random":
        raise ParameterError(
            f"{owner_prefix(owner)}{spelled('interleave')} alternates the strategy's pairs with random ones, so "
            f"with {given('strategy', 'random')} it changes nothing; leave {spelled('interleave')} out or choose "
            "another strategy."
        )
