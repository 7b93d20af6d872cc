"""The two-sample permutation test of principal differences analysis (seed 004).

PDA measures how much two samples differ by D(β̂ᵀX, β̂ᵀY), the divergence of
the two samples projected on the direction β̂ it found. The direction is
fitted to the very data it is evaluated on, so the divergence has no simple
null distribution. A permutation test gives one: pool the n + m rows, split
them at random into n and m rows, recompute the whole statistic (the search
for β̂ included) on each split, and count how often a split scores at least
as high as the observed one. Because every permutation refits everything, the
test controls the Type I error exactly, whatever the estimator does.

:func:`permutation_test` runs the permutations one after the other, on local
processes through joblib (``n_jobs=2``, ``n_jobs=-1``), or on the running
``dask.distributed`` cluster (``n_jobs="dask"``). The permutations are drawn
up front in the calling process, so the result does not depend on where they
run.
"""

from __future__ import annotations

import contextlib
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._progress import progress_bar
from .._validation import (
    BOOLEAN,
    N_JOBS,
    RANDOM_STATE,
    Interval,
    Options,
    check_matrix,
    check_parameter,
    check_random_state,
)
from ._duration import quiet_fits
from ._samples import match_columns

__all__ = ["PermutationTestResult", "permutation_test", "check_n_permutations", "MAX_PERMUTATIONS"]

#: The most permutations a test draws (a p-value resolution of one in a million).
MAX_PERMUTATIONS = 1_000_000
_BLOCK = 1024  # permutations drawn at a time
_BLOCK_ELEMENTS = 1 << 24  # at most this many row indices in memory per block (64 MiB of int32)

_MIN_ROWS = 2
_TIE_TOLERANCE = 1e-12  # relative: permuted statistics this close to the observed one count as ties


@dataclass(frozen=True)
class PermutationTestResult:
    """What :func:`permutation_test` returns (the fields of :func:`scipy.stats.permutation_test`).

    Attributes
    ----------
    statistic : float
        The statistic on the observed split: the first n rows against the last m.
    pvalue : float
        ``(b + 1) / (B + 1)``, with b the number of permuted statistics at
        least as large as the observed one and B the number of permutations.
    null_distribution : ndarray of shape (n_permutations,)
        The statistic on each random split, in the order the permutations were drawn.
    n_permutations : int
        B.
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    n_permutations: int


# -- checks ---------------------------------------------------------------------------------------
def check_n_permutations(value, *, owner: str, minimum: int = 1) -> int:
    """B as an integer from ``minimum`` to :data:`MAX_PERMUTATIONS`, or a ParameterError saying why not."""
    value = check_parameter(value, "n_permutations", [Interval(numbers.Integral, minimum, None)], owner=owner)
    if value > MAX_PERMUTATIONS:
        from .._spelling import given, owner_prefix

        raise ParameterError(
            f"{owner_prefix(owner)}{given('n_permutations', int(value))} is more than {MAX_PERMUTATIONS:,}: every "
            "permutation refits the whole statistic, and beyond a million the p-value's resolution (1/(B + 1)) no "
            f"longer changes any decision; pass at most {MAX_PERMUTATIONS:,} (200 to 10,000 is usual)."
        )
    return int(value)


def _check_estimator(estimator) -> bool:
    """True for an estimator (has ``fit``), False for a plain callable statistic."""
    if isinstance(estimator, type):
        raise ParameterError(
            f"estimator must be an estimator instance or a callable statistic(X, Y), got the class "
            f"{estimator.__name__}; pass an instance such as {estimator.__name__}()."
        )
    if hasattr(estimator, "fit"):
        if not callable(estimator.fit):
            raise ParameterError(f"estimator.fit must be a method, got {estimator.fit!r}.")
        return True
    if callable(estimator):
        return False
    raise ParameterError(
        f"estimator must be an estimator with fit(X, Y) that sets divergence_ (such as PDA()) or a "
        f"callable statistic(X, Y) returning a number, got {estimator!r}."
    )


def _check_frame(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    if frame.shape[1] == 0:
        raise InputError(f"{name} has no columns (shape={frame.shape}); at least one feature is needed.")
    text = [column for column, dtype in frame.dtypes.items() if not pd.api.types.is_numeric_dtype(dtype)]
    if text:
        raise InputTypeError(
            f"{name} must hold numbers, but column(s) {text[:5]!r} are not numeric. "
            "Convert text columns to numbers or drop them."
        )
    for position, column in enumerate(frame.columns):  # one column at a time: no copy of the whole frame
        try:
            values = frame.iloc[:, position].to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as error:
            raise InputTypeError(f"{name} column {column!r} could not be read as numbers: {error}") from None
        bad = ~np.isfinite(values)
        if bad.any():
            raise InputError(
                f"{name} has {int(bad.sum())} NaN or infinite value(s) in column {column!r} (first at row "
                f"{int(np.argmax(bad))}). Impute or drop them before testing."
            )
    return frame


def _check_sample(values, name: str):
    """A DataFrame, a sparse matrix in CSR form or a 2-D numeric array."""
    if isinstance(values, pd.DataFrame):
        return _check_frame(values, name)
    return check_matrix(values, name=name, nonnegative=False, sparse_format="csr")


def _pool(X, Y):
    """The n + m rows of X and Y, in one object of the type the statistic will receive."""
    n, d_x = X.shape
    m, d_y = Y.shape
    if d_x != d_y:
        raise ShapeMismatchError(
            f"X has {d_x} columns but Y has {d_y}; both samples must describe the same features."
        )
    for name, rows in (("X", n), ("Y", m)):
        if rows < _MIN_ROWS:
            raise InputError(
                f"{name} has {rows} row(s); a two-sample test needs at least {_MIN_ROWS} samples in each group."
            )
    frames = isinstance(X, pd.DataFrame), isinstance(Y, pd.DataFrame)
    if any(frames):
        if sp.issparse(X) or sp.issparse(Y):
            raise InputTypeError(
                "one of X and Y is a DataFrame and the other a sparse matrix; pass both as DataFrames or "
                "both as arrays."
            )
        if not frames[0]:
            X = pd.DataFrame(X, columns=Y.columns)
        elif not frames[1]:
            Y = pd.DataFrame(Y, columns=X.columns)
        elif not X.columns.equals(Y.columns):
            Y = match_columns(Y, X.columns, Y.columns)
        return pd.concat([X, Y], axis=0)
    if sp.issparse(X) or sp.issparse(Y):
        return sp.vstack([sp.csr_matrix(X) if not sp.issparse(X) else X, Y], format="csr")
    return np.concatenate([X, Y], axis=0)


# -- one statistic --------------------------------------------------------------------------------
def _rows(pooled, index):
    if isinstance(pooled, pd.DataFrame):
        return pooled.iloc[index]
    return pooled[index]


def _statistic(estimator, is_estimator: bool, pooled, index: np.ndarray, n: int, quiet: bool = False) -> float:
    """The statistic with the rows index[:n] as X and index[n:] as Y.

    ``quiet``: a permutation's refit, inside :func:`quiet_fits` (set here, in
    the process and thread that fits, wherever the permutations run).
    """
    X, Y = _rows(pooled, index[:n]), _rows(pooled, index[n:])
    with quiet_fits() if quiet else contextlib.nullcontext():
        if is_estimator:
            fitted = clone(estimator, safe=False)
            fitted.fit(X, Y)
            try:
                value = fitted.divergence_
            except AttributeError:
                raise ParameterError(
                    f"{type(estimator).__name__} has no attribute divergence_ after fit; permutation_test needs "
                    "an estimator whose fit(X, Y) sets divergence_ (such as PDA), or a callable statistic(X, Y)."
                ) from None
        else:
            value = estimator(X, Y)
    array = np.asarray(value)
    if array.ndim != 0 or array.dtype.kind not in "biuf":
        raise ParameterError(f"the statistic must be a real number, got {value!r}.")
    return float(array)


def _statistic_at(index: np.ndarray, estimator, is_estimator: bool, pooled, n: int) -> float:
    """:func:`_statistic` with the permutation first, as ``client.map`` passes it."""
    return _statistic(estimator, is_estimator, pooled, index, n, quiet=True)


# -- where the permutations run -------------------------------------------------------------------
def _draw(rng: np.random.Generator, n_total: int, n_permutations: int):
    """The permutations, one after the other from ``rng``, in blocks of at most :data:`_BLOCK` rows.

    Each block is an array of shape (rows, n_total); the blocks together are
    the same draws, in the same order, as ``rng.permutation(n_total)`` called
    n_permutations times, so the result does not depend on the block size.
    """
    dtype = np.int32 if n_total <= np.iinfo(np.int32).max else np.int64
    rows = max(1, min(_BLOCK, _BLOCK_ELEMENTS // max(n_total, 1)))
    for start in range(0, n_permutations, rows):
        block = np.empty((min(rows, n_permutations - start), n_total), dtype=dtype)
        for k in range(block.shape[0]):
            block[k] = rng.permutation(n_total)
        yield block


def _each(blocks):
    for block in blocks:
        yield from block


def _sequential(estimator, is_estimator, pooled, n, blocks, values, bar):
    for k, index in enumerate(_each(blocks)):
        values[k] = _statistic(estimator, is_estimator, pooled, index, n, quiet=True)
        bar.advance()


def _joblib(estimator, is_estimator, pooled, n, blocks, values, bar, n_jobs):
    import inspect

    from sklearn.utils.parallel import Parallel, delayed

    streaming = "return_as" in inspect.signature(Parallel).parameters  # joblib >= 1.3
    parallel = Parallel(n_jobs=n_jobs, **({"return_as": "generator"} if streaming else {}))
    # the generator of permutations is consumed as tasks are dispatched (a few per worker ahead)
    tasks = (delayed(_statistic)(estimator, is_estimator, pooled, index, n, quiet=True) for index in _each(blocks))
    results = parallel(tasks)
    for k, value in enumerate(results):  # in order, as they arrive
        values[k] = value
        bar.advance()


def _dask(estimator, is_estimator, pooled, n, blocks, values, bar):
    try:
        from distributed import as_completed, get_client
    except ImportError:
        raise ParameterError(
            "n_jobs='dask' needs dask.distributed, which is not installed; install it with "
            "pip install 'paucity[dask]', or use n_jobs=-1 for the local cores."
        ) from None
    try:
        client = get_client()
    except ValueError:
        raise ParameterError(
            "n_jobs='dask' runs the permutations on the current dask.distributed Client, but none is running. "
            "Start one first (from dask.distributed import Client; client = Client()), or use n_jobs=-1 for "
            "the local cores."
        ) from None
    [data] = client.scatter([pooled], hash=False)
    done = 0
    try:
        for block in blocks:  # one block of tasks at a time: the scheduler never holds them all
            futures = client.map(
                _statistic_at,
                list(block),
                estimator=estimator,
                is_estimator=is_estimator,
                pooled=data,
                n=n,
                pure=False,
                key=f"paucity-permutation-{done}",
            )
            try:
                for _ in as_completed(futures):
                    bar.advance()
                values[done : done + len(futures)] = np.asarray(client.gather(futures), dtype=np.float64)
            finally:
                client.cancel(futures)
            done += len(futures)
    finally:
        client.cancel([data])


# -- the test -------------------------------------------------------------------------------------
def permutation_test(
    X,
    Y,
    estimator,
    *,
    n_permutations: int = 200,
    random_state=None,
    n_jobs: int | str | None = None,
    progress: bool = False,
) -> PermutationTestResult:
    """Test whether X and Y come from the same distribution, by permuting their rows.

    Parameters
    ----------
    X : array-like, sparse matrix or DataFrame of shape (n, d)
        The first sample, at least two rows.
    Y : array-like, sparse matrix or DataFrame of shape (m, d)
        The second sample, at least two rows, the same d features. When X and
        Y are DataFrames they must have the same columns (Y's are put in X's
        order); when one of them is, the other gets its columns, and the
        statistic receives DataFrames.
    estimator : estimator or callable
        Either an estimator whose ``fit(X, Y)`` sets a float attribute
        ``divergence_`` (such as ``PDA``), fitted as a fresh
        :func:`sklearn.base.clone` — the same parameters, solver settings
        included — on the observed split and on every permutation, so the
        object passed in is never modified; or a callable ``statistic(X, Y)``
        returning a real number. Larger values must mean more different. An
        object with a ``fit`` method is treated as an estimator.
    n_permutations : int, default=200
        B, the number of random splits, from 1 to 1,000,000. The smallest
        p-value reachable is ``1 / (B + 1)``.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the permutations. For a reproducible test of a randomized
        estimator, also set the estimator's own ``random_state``.
    n_jobs : int, "dask" or None, default=None
        None or 1: one permutation after the other in this process. An
        integer above 1, or -1 for every core: local processes through
        joblib (loky, or the backend of an enclosing
        ``joblib.parallel_backend``). ``"dask"``: tasks on the current
        ``dask.distributed`` Client, which must be running. The result is the
        same for every choice when the statistic is deterministic.
    progress : bool, default=False
        Show a progress bar over the permutations.

    Returns
    -------
    PermutationTestResult
        ``statistic``, ``pvalue``, ``null_distribution`` and ``n_permutations``.

    Raises
    ------
    ParameterError
        When n_permutations is not a positive integer, estimator is neither an
        estimator nor a callable, n_jobs is not one of the choices above, or
        ``n_jobs="dask"`` while no Client is running.
    InputError, InputTypeError, ShapeMismatchError
        When X or Y is not a 2-D matrix of finite numbers with at least two
        rows, or their numbers of columns differ. Errors raised by the
        estimator or the statistic on any split propagate unchanged.

    Notes
    -----
    Seed 004 (Mueller & Jaakkola), "Two-sample Testing": the test statistic
    is D(β̂ᵀX, β̂ᵀY) and its significance is evaluated by permutation testing.
    The pooled rows are permuted B times; each permutation gives the first n
    rows to X and the last m to Y, and the statistic, the fitted projection
    included, is computed afresh. With b the number of permuted statistics at
    least as large as the observed one,

        p = (b + 1) / (B + 1),

    the exact p-value of a test that draws permutations at random (Phipson &
    Smyth 2010, "Permutation p-values should never be zero"): the observed
    split is one more draw from the null distribution, so under the null
    hypothesis P(p ≤ k / (B + 1)) ≤ k / (B + 1) for every k, and p is never 0.
    A permuted statistic counts as at least as large when it is
    ≥ observed − 10⁻¹²·max(1, |observed|), so that splits equal to the
    observed one by symmetry (a permutation within X and within Y) count as
    ties despite rounding.

    The observed statistic is computed the same way as the permuted ones, on
    the identity permutation of the pooled data. The permutations are drawn
    in the calling process, in order, in blocks of at most 1,024 (and at most
    2²⁴ row indices) as the statistics are computed, so memory holds one
    block and the B statistics, never all B permutations; the draws are those
    of ``rng.permutation(n + m)`` called B times, whatever the block size and
    wherever the statistics run. B is at most 1,000,000. A NaN statistic
    raises InputError; an infinite one is kept. The refits inside the test
    announce no duration and warn about no constant feature (the observed
    fit did, once).

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.differences.permutation import permutation_test
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2))
    >>> Y = rng.normal(size=(25, 2))
    >>> Y[:, 0] += 1.5
    >>> def mean_gap(X, Y):
    ...     return abs(X[:, 0].mean() - Y[:, 0].mean())
    >>> result = permutation_test(X, Y, mean_gap, n_permutations=99, random_state=0)
    >>> result.pvalue
    0.01
    >>> result.null_distribution.shape
    (99,)
    >>> bool(result.statistic > result.null_distribution.max())
    True
    """
    is_estimator = _check_estimator(estimator)
    n_permutations = check_n_permutations(n_permutations, owner="permutation_test")
    n_jobs = check_parameter(n_jobs, "n_jobs", [N_JOBS, Options("dask")], owner="permutation_test")
    n_jobs = 1 if n_jobs is None else n_jobs
    check_parameter(random_state, "random_state", [RANDOM_STATE], owner="permutation_test")
    check_parameter(progress, "progress", [BOOLEAN], owner="permutation_test")
    rng = check_random_state(random_state)
    X = _check_sample(X, "X")
    Y = _check_sample(Y, "Y")
    pooled = _pool(X, Y)
    n = X.shape[0]
    n_total = pooled.shape[0]

    observed = _statistic(estimator, is_estimator, pooled, np.arange(n_total), n)
    if np.isnan(observed):
        raise InputError(
            "the statistic is NaN on the observed samples, so no p-value can be computed; check the data "
            "(constant or duplicated features) and the estimator's settings."
        )
    blocks = _draw(rng, n_total, n_permutations)
    null = np.empty(n_permutations)
    with progress_bar(n_permutations, "permutations", enabled=progress) as bar:
        task = (estimator, is_estimator, pooled, n, blocks, null, bar)
        if n_jobs == 1:
            _sequential(*task)
        elif n_jobs == "dask":
            _dask(*task)
        else:
            _joblib(*task, n_jobs=n_jobs)

    if np.isnan(null).any():
        k = int(np.flatnonzero(np.isnan(null))[0])
        raise InputError(
            f"the statistic is NaN on permutation {k} ({int(np.isnan(null).sum())} of {n_permutations} in all), "
            "so the p-value would be wrong; check the data (constant or duplicated features) and the "
            "estimator's settings."
        )
    tolerance = _TIE_TOLERANCE * max(1.0, abs(observed)) if np.isfinite(observed) else 0.0
    exceed = int(np.count_nonzero(null >= observed - tolerance))
    pvalue = (exceed + 1) / (n_permutations + 1)
    return PermutationTestResult(
        statistic=observed, pvalue=pvalue, null_distribution=null, n_permutations=n_permutations
    )
