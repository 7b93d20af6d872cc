"""PDA and SPARDA on samples held as Dask arrays: the row-heavy work as tasks on a ``dask.distributed`` Client.

:meth:`PDA.fit <paucity.differences.PDA.fit>` comes here when X or Y is a
``dask.array.Array``. The pooled rows are cut into column blocks of whole
columns (a multiple of 64 features each, aligned with the blocks of
:func:`~paucity.differences.divergences.feature_wasserstein`), and one task per
block computes, on every row, what the in-memory fit computes per feature:
whether it varies, its pooled standard deviation (``standardize=True``), the
centre, and for the prefilter the marginal W₂² and the spread of the centred
feature. The driver receives O(d) numbers per block, the prefilter's evenly
spaced rows (at most 2,048 per sample, as in memory) and then only the columns
the prefilter keeps, on which RELAX (with the same generator draws for its row
blocks) and the tightening run as in memory. The final projections Xβ are row
blocks' tasks. Each task runs the in-memory code on its block, with each
per-feature reduction over all rows in the same order, so the result is the
in-memory one bit for bit (the tests check equality of β, D and the selection).

This module imports Dask only inside its functions: ``import paucity`` never
does.
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError, InputTypeError, ShapeMismatchError
from ._samples import Samples, pooled_scale, prefilter_rows
from .divergences import feature_wasserstein

__all__ = ["is_dask_array", "DaskSamples"]

_COLUMN_BLOCK = 256  # features per task: a multiple of feature_wasserstein's 64-column blocks
_MIN_SAMPLES = 2


def is_dask_array(value) -> bool:
    """True for a ``dask.array.Array`` (checked without importing Dask)."""
    return type(value).__module__.split(".")[0] == "dask" and hasattr(value, "__dask_graph__") and hasattr(value, "ndim")


def _client():
    try:
        from distributed import get_client
    except ImportError:
        raise InputError(
            "PDA.fit on dask arrays runs on a dask.distributed Client, but dask.distributed is not installed; "
            "install it with pip install 'paucity[dask]', or pass numpy arrays (X.compute())."
        ) from None
    try:
        return get_client()
    except ValueError:
        raise InputError(
            "PDA.fit on dask arrays runs its row blocks on the current dask.distributed Client, but none is running; "
            "start one first (from dask.distributed import Client; client = Client()), or pass numpy arrays "
            "(X.compute())."
        ) from None


def _as_dask(values, name: str):
    import dask.array as da

    if not is_dask_array(values):
        values = np.asarray(values)
    array = da.asarray(values)
    if array.ndim != 2:
        raise InputError(
            f"{name} must be 2-dimensional (rows of samples by features), got shape {array.shape}; with dask "
            "arrays give the two samples as X and Y (labels are not supported)."
        )
    if array.dtype.kind not in "biuf":
        raise InputTypeError(f"{name} must hold numbers, got dtype {array.dtype}; convert it with {name}.astype(float).")
    if any(np.isnan(size) for size in array.shape):
        raise InputError(f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first.")
    if array.shape[0] < _MIN_SAMPLES:
        raise InputError(f"{name} has {array.shape[0]} row(s); each sample needs at least {_MIN_SAMPLES}.")
    return array.astype(np.float64)


def _column_statistics(block, n: int, standardize: bool, prefilter: bool):
    """Per feature of one column block of the pooled rows (X's n rows first): the numbers the in-memory fit
    computes from every row. A lone column is reduced beside a zero column, so that NumPy sums it row by
    row as it does inside the whole matrix."""
    block = np.ascontiguousarray(block, dtype=np.float64)
    width = block.shape[1]
    finite = bool(np.isfinite(block).all())
    if not finite:
        return finite, None, None, None, None, None
    wide = block if width > 1 else np.ascontiguousarray(np.column_stack([block, np.zeros(block.shape[0])]))
    x, y = wide[:n], wide[n:]
    varying = (np.maximum(x.max(axis=0), y.max(axis=0)) > np.minimum(x.min(axis=0), y.min(axis=0)))[:width]
    scale = pooled_scale(x, y) if standardize else np.ones(wide.shape[1])
    raw = wide / scale if standardize else wide
    centre = raw.mean(axis=0)
    marginal = spread = None
    if prefilter:
        centred = raw - centre
        marginal = feature_wasserstein(centred[:n, :width], centred[n:, :width])
        spread = centred.std(axis=0)[:width]
    return finite, varying, scale[:width], centre[:width], marginal, spread


def _project(block, scale, beta):
    return (block / scale) @ beta if scale is not None else block @ beta


class DaskSamples(Samples):
    """Two samples held as Dask arrays, with the per-feature statistics their fit needs computed as tasks.

    ``X`` and ``Y`` are the dask arrays (float64); ``varying`` is computed.
    """

    __slots__ = ("client", "standardize", "scale", "centre", "marginal", "spread")

    def __init__(self, X, Y, *, standardize: bool, prefilter):
        x = _as_dask(X, "X")
        y = _as_dask(Y, "Y")
        if x.shape[1] != y.shape[1]:
            raise ShapeMismatchError(f"X has {x.shape[1]} feature(s) but Y has {y.shape[1]}; give both the same columns.")
        self.client = _client()
        self.standardize = standardize
        import dask.array as da
        from dask import delayed

        n, d = x.shape
        prefilter = bool(prefilter(d))  # whether the fit will prefilter: then the marginal W₂² are wanted
        pooled = da.concatenate([x, y], axis=0).rechunk({0: -1, 1: _COLUMN_BLOCK})
        task = delayed(_column_statistics, pure=True)
        blocks = [task(part, n, standardize, prefilter) for part in pooled.to_delayed().ravel()]
        results = self.client.compute(blocks, sync=True)
        if not all(result[0] for result in results):
            raise InputError("X or Y holds a NaN or an infinite value; PDA needs finite numbers.")
        varying = np.concatenate([result[1] for result in results])
        super().__init__(x, y, None, varying=varying)
        self.scale = np.concatenate([result[2] for result in results])
        self.centre = np.concatenate([result[3] for result in results])
        self.marginal = np.concatenate([result[4] for result in results]) if prefilter else None
        self.spread = np.concatenate([result[5] for result in results]) if prefilter else None
        if not varying.any():
            raise InputError(
                f"every one of the {d} feature(s) is constant over X and Y together (zero variance), "
                "so no projection can tell the samples apart; check that the right columns were passed."
            )

    def _centred(self, array, rows, features):
        part = array[rows, :][:, features] if rows is not None else array[:, features]
        values = np.ascontiguousarray(self.client.compute(part, sync=True), dtype=np.float64)
        scale, centre = self.scale[features], self.centre[features]
        return (values / scale if self.standardize else values) - centre

    def prefilter_rows(self):
        """The prefilter's rows of each centred sample, on every feature."""
        every = slice(None)
        return (self._centred(self.X, prefilter_rows(self.X.shape[0]), every),
                self._centred(self.Y, prefilter_rows(self.Y.shape[0]), every))

    def columns(self, features):
        """The centred samples on the given features, as arrays on the driver."""
        return self._centred(self.X, None, features), self._centred(self.Y, None, features)

    def project(self, beta):
        """The projections of the scaled samples on beta, one task per row block."""
        scale = self.scale if self.standardize else None
        sides = []
        for array in (self.X, self.Y):
            rows = array.rechunk({1: -1})
            sides.append(rows.map_blocks(_project, scale, beta, drop_axis=1, dtype=np.float64))
        return tuple(np.asarray(side) for side in self.client.compute(sides, sync=True))
