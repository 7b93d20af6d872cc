"""Counting on blocks of rows, so that counts over all cells are sums of per-block results.

These functions use only NumPy and the kernels; :mod:`paucity.info.distributed`
runs them on Dask workers. Every count they produce is an integer sum over
rows, so the result over all blocks is exactly the in-memory one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._errors import InputError
from . import _kernels
from .._sparse import to_csc

__all__ = [
    "ValueCounts",
    "BinnedBlock",
    "value_counts",
    "merge_value_counts",
    "edges_from_counts",
    "bin_block",
    "reference_counts",
    "pair_counts",
    "feature_bins",
    "bins_present",
]


@dataclass(frozen=True)
class ValueCounts:
    """Each column's distinct stored values (ascending) and their multiplicities.

    ``values[offsets[j]:offsets[j+1]]`` belong to column j. ``n_rows`` is the
    number of rows counted (stored or not).
    """

    offsets: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    n_rows: int


@dataclass(frozen=True)
class BinnedBlock:
    """A block of rows in bins: row pointers and the cell ``column * n_bins + bin`` of each non-zero bin."""

    indptr: np.ndarray
    cells: np.ndarray
    n_rows: int


def _as_csr(block):
    if sp.issparse(block):
        return block.tocsr() if block.format != "csr" else block
    return sp.csr_matrix(np.asarray(block))


def value_counts(block, *, name: str = "X") -> ValueCounts:
    """Distinct values per column of one block of rows, after the checks binning needs."""
    csr = _as_csr(block)
    data = csr.data
    if data.size:
        if data.dtype.kind == "f" and not np.isfinite(data).all():
            raise InputError(f"{name} has NaN or infinite values; impute or drop them before selection.")
        if data.min() < 0:
            raise InputError(
                f"Negative values in data passed to {name}, but counts or expression were expected. "
                "Pass raw counts or log-normalized expression, not scaled data."
            )
    csc = to_csc(csr)
    indptr = csc.indptr.astype(np.int64, copy=False)
    n_distinct = np.zeros(csc.shape[1], dtype=np.int64)
    values = np.empty(csc.nnz, dtype=np.float64)
    counts = np.empty(csc.nnz, dtype=np.int64)
    _kernels.value_counts_by_column(indptr, csc.data, values, counts, n_distinct)
    # keep each column's first n_distinct entries
    keep = np.arange(csc.nnz) - np.repeat(indptr[:-1], np.diff(indptr)) < np.repeat(n_distinct, np.diff(indptr))
    offsets = np.zeros(csc.shape[1] + 1, dtype=np.int64)
    np.cumsum(n_distinct, out=offsets[1:])
    return ValueCounts(offsets=offsets, values=values[keep], counts=counts[keep], n_rows=csr.shape[0])


def merge_value_counts(parts) -> ValueCounts:
    """The value counts of the union of blocks (exact: multiplicities add)."""
    parts = list(parts)
    n_cols = parts[0].offsets.shape[0] - 1
    columns = np.concatenate([np.repeat(np.arange(n_cols), np.diff(p.offsets)) for p in parts])
    values = np.concatenate([p.values for p in parts])
    counts = np.concatenate([p.counts for p in parts])
    order = np.lexsort((values, columns))
    columns, values, counts = columns[order], values[order], counts[order]
    new = np.ones(values.shape[0], dtype=bool)
    new[1:] = (columns[1:] != columns[:-1]) | (values[1:] != values[:-1])
    starts = np.flatnonzero(new)
    merged_counts = np.add.reduceat(counts, starts) if starts.size else counts[:0]
    offsets = np.zeros(n_cols + 1, dtype=np.int64)
    np.cumsum(np.bincount(columns[starts], minlength=n_cols), out=offsets[1:])
    return ValueCounts(offsets=offsets, values=values[starts], counts=merged_counts, n_rows=sum(p.n_rows for p in parts))


def edges_from_counts(merged: ValueCounts, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-column recursive-quantile edges (seed 000, Algorithm 2) from exact value counts.

    Returns ``(edges, n_edges)``: the same edges as :func:`paucity.info.discretize`
    computes on the whole matrix in memory.
    """
    n_cols = merged.offsets.shape[0] - 1
    edges = np.zeros((n_cols, n_bins), dtype=np.float64)
    n_edges = np.zeros(n_cols, dtype=np.int64)
    _kernels.edges_from_value_counts(
        merged.offsets, merged.values, merged.counts, merged.n_rows, n_bins, edges, n_edges
    )
    return edges, n_edges


def identity_edges(n_cols: int, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Edges under which an integer value v < 256 is its own bin (for pre-binned input)."""
    edges = np.tile(np.arange(top + 1, dtype=np.float64), (n_cols, 1))
    return edges, np.full(n_cols, top + 1, dtype=np.int64)


def bin_block(block, edges: np.ndarray, n_edges: np.ndarray, n_bins: int) -> BinnedBlock:
    """One block of rows in bins, keeping only the non-zero bins."""
    csr = _as_csr(block)
    if not csr.has_sorted_indices:
        csr = csr.sorted_indices()
    n_cells = csr.shape[1] * n_bins
    cells = np.empty(csr.nnz, dtype=np.uint16 if n_cells <= 2**16 else np.int64)
    indptr = np.empty(csr.shape[0] + 1, dtype=np.int64)
    used = _kernels.bin_rows(
        csr.indptr.astype(np.int64, copy=False), csr.indices, csr.data, edges, n_edges, n_bins, indptr, cells
    )
    return BinnedBlock(indptr=indptr, cells=cells[:used].copy(), n_rows=csr.shape[0])


def reference_counts(block: BinnedBlock, labels: np.ndarray, n_features: int, n_bins: int, n_codes: int) -> np.ndarray:
    """Rows of each (column, bin >= 1, label) in the block; bin 0 is completed after summing blocks."""
    out = np.zeros((n_features, n_bins * n_codes), dtype=np.int64)
    _kernels.row_reference_tables(block.indptr, block.cells, labels.astype(np.int64, copy=False), n_bins, n_codes, out)
    return out


def feature_bins(block: BinnedBlock, feature: int, n_bins: int) -> np.ndarray:
    """The bin of ``feature`` in every row of the block."""
    out = np.zeros(block.n_rows, dtype=np.uint8)
    _kernels.bins_of_feature(block.indptr, block.cells, feature, n_bins, out)
    return out


def pair_counts(block: BinnedBlock, feature: int, labels: np.ndarray, n_features: int, n_bins: int, n_codes: int):
    """Counts of every column with ``feature`` over the block's rows where it is non-zero.

    Returns ``(pairs, count_s)`` laid out as :func:`paucity.info.counts.PairCounter`
    expects them: ``pairs`` has slabs (bin of s - 1, label) of columns x bins,
    ``count_s[a, label]`` counts the rows with s = a.
    """
    bins = feature_bins(block, feature, n_bins)
    rows = np.flatnonzero(bins)
    row_bins = bins[rows]
    row_codes = labels[rows].astype(np.int64, copy=False)
    count_s = np.zeros((n_bins, n_codes), dtype=np.int64)
    np.add.at(count_s, (row_bins.astype(np.int64), row_codes), 1)
    pairs = np.zeros((1, (n_bins - 1) * n_codes * n_features * n_bins), dtype=np.int64)
    _kernels.pair_tables(block.indptr, block.cells, rows, row_bins, row_codes, n_features * n_bins, n_codes, pairs)
    return pairs[0], count_s


def bins_present(block: BinnedBlock, n_features: int, n_bins: int) -> np.ndarray:
    """Which bins occur in each column over the block's rows: a boolean array (n_features, n_bins).

    Bin 0, never stored, occurs in a column when some row of the block stores
    no bin for it. The union over blocks (logical or) is the whole matrix's.
    """
    present = np.bincount(block.cells.astype(np.int64), minlength=n_features * n_bins).reshape(n_features, n_bins) > 0
    n_stored = np.bincount(block.cells.astype(np.int64) // n_bins, minlength=n_features)
    present[:, 0] = n_stored < block.n_rows
    return present
