"""Numba kernels of paucity.info: no validation, no Python objects.

Each kernel has a slow pure-NumPy twin in ``tests/info/reference.py`` that it is
checked against.
"""

from __future__ import annotations

import numba
import numpy as np

from .._jit import sized_kernel

# Entropies are accumulated in fixed point: H = (n log2 n - sum_c c log2 c) / n
# with every c log2 c (and n log2 n) rounded to a multiple of 2**-FIXED_SHIFT and
# summed as integers, so that the result does not depend on the order of the
# cells: two tables that are permutations of each other give the same bits,
# ties between features stay exact ties, and a constant variable has entropy 0.
FIXED_SHIFT = 30
FIXED_SCALE = float(2**FIXED_SHIFT)


def xlogx_table(n_samples: int) -> np.ndarray:
    """Fixed-point c*log2(c) for c = 0..n_samples (int64)."""
    c = np.arange(n_samples + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = c * np.log2(c)
    v[0] = 0.0
    return np.rint(v * FIXED_SCALE).astype(np.int64)


_SIGN = np.uint64(1) << np.uint64(63)
_BYTE = np.uint64(255)


@numba.njit(cache=True)
def sorted_copy(col):
    """``col`` (float64, no NaN) in ascending order, as a new array.

    An LSD radix sort on the bit patterns, a byte at a time, skipping the bytes
    all values share; columns of fewer than 32 values by insertion. Sorted
    values are sorted values, so the result equals ``numpy.sort(col)`` (but
    for the order of -0.0 and 0.0, which compare equal). numba's own
    ``np.sort`` is a generic quicksort with several helpers to compile; this
    loop compiles in about 70 % of its time on a first run and sorts columns
    of 10**5 to 10**6 values 3.5 to 6 times faster (docs/benchmarks.md).
    """
    n = col.shape[0]
    out = col.copy()
    if n < 32:
        for i in range(1, n):
            value = out[i]
            k = i - 1
            while k >= 0 and out[k] > value:
                out[k + 1] = out[k]
                k -= 1
            out[k + 1] = value
        return out
    bits = out.view(np.uint64)  # the one view (each view type is one more compilation)
    keys = bits
    for i in range(n):  # order-preserving keys: negatives reversed below the positives
        if keys[i] & _SIGN:
            keys[i] = ~keys[i]
        else:
            keys[i] = keys[i] | _SIGN
    other = np.empty(n, np.uint64)
    counts = np.empty(256, np.int64)
    for byte in range(8):
        shift = np.uint64(8 * byte)
        for d in range(256):
            counts[d] = 0
        for i in range(n):
            counts[np.intp((keys[i] >> shift) & _BYTE)] += 1
        if counts[np.intp((keys[0] >> shift) & _BYTE)] == n:
            continue  # every key has this byte
        position = 0
        for d in range(256):
            size = counts[d]
            counts[d] = position
            position += size
        for i in range(n):
            d = np.intp((keys[i] >> shift) & _BYTE)
            other[counts[d]] = keys[i]
            counts[d] += 1
        keys, other = other, keys
    for i in range(n):  # back from keys to bits, into out's own memory
        if keys[i] & _SIGN:
            bits[i] = keys[i] ^ _SIGN
        else:
            bits[i] = ~keys[i]
    return out


@numba.njit(cache=True, inline="always")
def _value_at(stored, n_zeros, values, cumulative, k):
    """Value at position k of a sorted column.

    The column is either ``n_zeros`` zeros followed by ``stored`` (ascending),
    or, when ``cumulative`` is not empty, its distinct ``values`` (ascending)
    with running counts (``cumulative[i]`` values are <= ``values[i]``).
    """
    if cumulative.shape[0] > 0:
        left = 0
        right = cumulative.shape[0] - 1
        while left < right:
            mid = (left + right) // 2
            if cumulative[mid] > k:
                right = mid
            else:
                left = mid + 1
        return values[left]
    if k < n_zeros:
        return 0.0
    return stored[k - n_zeros]


@numba.njit(cache=True, inline="always")
def _first_above(ascending, left, edge):
    """First position at or after ``left`` whose value is > edge (binary search)."""
    right = ascending.shape[0]
    while left < right:
        mid = (left + right) // 2
        if ascending[mid] <= edge:
            left = mid + 1
        else:
            right = mid
    return left


@numba.njit(cache=True, inline="always")
def _count_at_most(stored, n_zeros, values, cumulative, lo, edge):
    """Number of values <= edge (>= 0) in the same column, knowing the first lo are."""
    if cumulative.shape[0] > 0:
        above = _first_above(values, 0, edge)
        return cumulative[above - 1] if above > 0 else 0
    # zeros are <= any edge here
    return n_zeros + _first_above(stored, lo - n_zeros if lo > n_zeros else 0, edge)


@numba.njit(cache=True)
def _recursive_edges(stored, n_zeros, values, cumulative, n_bins, edges):
    """Recursive-quantile bin edges of one column (seed 000, Algorithm 2).

    The column is given as in ``_value_at``; zeros are never materialized.
    At each level the edge is numpy.quantile(remaining, 1/levels_left) by
    numpy's default linear method (including its symmetric form for
    gamma >= 0.5), in float64; the remaining values are those above the
    edge. The last level's edge is the maximum. Stops early when no value
    remains. Writes the edges into ``edges`` and returns how many there are.
    """
    if cumulative.shape[0] > 0:
        n = cumulative[cumulative.shape[0] - 1]
    else:
        n = n_zeros + stored.shape[0]
    lo = 0
    n_edges = 0
    for level in range(n_bins):
        count = n - lo
        if count <= 0:
            break
        remaining = n_bins - level
        if remaining <= 1:
            edge = _value_at(stored, n_zeros, values, cumulative, n - 1)
        else:
            virtual = (count - 1) * (1.0 / remaining)
            below = np.floor(virtual)
            gamma = virtual - below
            i = lo + int(below)
            j = i + 1
            if j > n - 1:
                j = n - 1
            a = _value_at(stored, n_zeros, values, cumulative, i)
            b = _value_at(stored, n_zeros, values, cumulative, j)
            diff = b - a
            if gamma >= 0.5:
                edge = b - diff * (1.0 - gamma)
            else:
                edge = a + diff * gamma
        edges[n_edges] = edge
        n_edges += 1
        lo = _count_at_most(stored, n_zeros, values, cumulative, lo, edge)
    return n_edges


# A sorted column (``n_zeros`` zeros, then ``stored`` ascending) passes empty ``values`` and ``cumulative``;
# a counted one (its distinct ``values`` ascending and their running counts) passes an empty ``stored``: the
# same arithmetic either way, so the edges are equal to the bit. The kernels call _recursive_edges directly,
# with one signature, rather than through a wrapper per form: each wrapper was one more compilation on a
# first run.


@numba.njit(cache=True, inline="always")
def _bin_of(value, edges, n_edges):
    for t in range(n_edges):
        if value <= edges[t]:
            return t
    return n_edges - 1


@numba.njit(cache=True)
def _small_integer_top(col):
    """The largest value if every value is an integer below 2**16 (counts), else -1."""
    top = 0.0
    for v in col:
        if v != np.floor(v) or v >= 65536.0:
            return -1
        if v > top:
            top = v
    return int(top)


@sized_kernel
def discretize_csc(n_rows, indptr, data, n_bins, out_data):
    """Bin every stored value of a non-negative CSC matrix, column by column.

    Implicit zeros fall in bin 0 and are not materialized; ``out_data``
    receives the bin of each stored value. Columns of small integers (counts)
    are counted instead of sorted, with the same edges.
    """
    n_cols = indptr.shape[0] - 1
    for j in numba.prange(n_cols):
        start = indptr[j]
        nnz = indptr[j + 1] - start
        if nnz == 0:
            continue
        col = np.empty(nnz, np.float64)
        for s in range(nnz):
            col[s] = data[start + s]
        edges = np.empty(n_bins, np.float64)
        top = _small_integer_top(col)
        if 0 <= top <= 4 * nnz + 64:
            cumulative = np.zeros(top + 1, np.int64)
            cumulative[0] = n_rows - nnz
            for s in range(nnz):
                cumulative[int(col[s])] += 1
            for v in range(1, top + 1):
                cumulative[v] += cumulative[v - 1]
            values = np.empty(top + 1, np.float64)
            for v in range(top + 1):
                values[v] = v
            n_edges = _recursive_edges(np.empty(0, np.float64), np.int64(0), values, cumulative, n_bins, edges)
            bin_of_value = np.empty(top + 1, np.uint8)
            for v in range(top + 1):
                bin_of_value[v] = _bin_of(float(v), edges, n_edges)
            for s in range(nnz):
                out_data[start + s] = bin_of_value[int(col[s])]
            continue
        stored = sorted_copy(col)
        n_edges = _recursive_edges(stored, n_rows - nnz, np.empty(0, np.float64), np.empty(0, np.int64), n_bins, edges)
        for s in range(nnz):
            out_data[start + s] = _bin_of(col[s], edges, n_edges)


@sized_kernel
def discretize_dense(X, n_bins, out):
    """Bin every column of a dense matrix (seed 000, Algorithm 2)."""
    n_rows, n_cols = X.shape
    for j in numba.prange(n_cols):
        col = np.empty(n_rows, np.float64)
        for i in range(n_rows):
            col[i] = X[i, j]
        stored = sorted_copy(col)
        edges = np.empty(n_bins, np.float64)
        n_edges = _recursive_edges(stored, np.int64(0), np.empty(0, np.float64), np.empty(0, np.int64), n_bins, edges)
        for i in range(n_rows):
            out[i, j] = _bin_of(col[i], edges, n_edges)


@sized_kernel
def label_stored_values(indices, data, labels, n_classes, out):
    """``out[s] = data[s] * n_classes + labels[row of s]``: each stored bin paired with its row's label."""
    for s in numba.prange(data.shape[0]):
        out[s] = data[s] * n_classes + labels[indices[s]]


@sized_kernel
def candidate_entropies(
    indptr, indices, labelled, columns, row_codes, n_row_codes, base, n_bins, projection, projection_sizes, xlogx, out
):
    """Joint entropies of each candidate column with projections of fixed variables.

    The fixed variables of a row are its label l (one of C classes; C = 1
    without labels) and the mixed-radix code ``row_codes[row]`` (one of
    ``n_row_codes``) of the fixed features; their code is P = row_code +
    n_row_codes * l. ``labelled[s]`` is the s-th stored bin already paired
    with its row's label (bin * C + l, see ``label_stored_values``), so that
    the only per-value look-up is into ``row_codes``, small enough for the
    fastest cache, and none at all without fixed features.

    For candidate ``columns[t]`` and each projection ``q``, writes
    H(x_j, f_q(P)) into ``out[t, q]``, where ``base[P]`` rows have code P and
    ``f_q(P) = projection[q, P]`` has ``projection_sizes[q]`` values. Only the
    column's stored values are touched: they are counted by (bin, P), and
    the bin-0 counts are what remains of each code's rows (``base`` minus the
    stored ones; seed 000, Algorithms 3 and 4).
    """
    n_codes = base.shape[0]
    n_projections = projection.shape[0]
    max_size = 1
    for q in range(n_projections):
        if projection_sizes[q] > max_size:
            max_size = projection_sizes[q]
    n_samples = 0
    for p in range(n_codes):
        n_samples += base[p]
    size_table = n_bins * n_codes
    for t in numba.prange(columns.shape[0]):
        j = columns[t]
        start = indptr[j]
        stop = indptr[j + 1]
        # four interleaved histograms, so that consecutive increments of the
        # same cell do not wait on each other; summed afterwards
        lanes = np.zeros(4 * size_table, np.int32)
        s = start
        if n_row_codes == 1:
            while s + 4 <= stop:
                lanes[labelled[s]] += 1
                lanes[size_table + labelled[s + 1]] += 1
                lanes[2 * size_table + labelled[s + 2]] += 1
                lanes[3 * size_table + labelled[s + 3]] += 1
                s += 4
            while s < stop:
                lanes[labelled[s]] += 1
                s += 1
        else:
            while s + 4 <= stop:
                lanes[labelled[s] * n_row_codes + row_codes[indices[s]]] += 1
                lanes[size_table + labelled[s + 1] * n_row_codes + row_codes[indices[s + 1]]] += 1
                lanes[2 * size_table + labelled[s + 2] * n_row_codes + row_codes[indices[s + 2]]] += 1
                lanes[3 * size_table + labelled[s + 3] * n_row_codes + row_codes[indices[s + 3]]] += 1
                s += 4
            while s < stop:
                lanes[labelled[s] * n_row_codes + row_codes[indices[s]]] += 1
                s += 1
        table = np.empty(size_table, np.int64)
        for c in range(size_table):
            table[c] = lanes[c] + lanes[size_table + c] + lanes[2 * size_table + c] + lanes[3 * size_table + c]
        # rows not stored in the column are in bin 0: the rest of each code's rows
        for p in range(n_codes):
            moved = 0
            for b in range(1, n_bins):
                moved += table[b * n_codes + p]
            table[p] = base[p] - moved
        marginal = np.empty(n_bins * max_size, np.int64)
        for q in range(n_projections):
            size = projection_sizes[q]
            if size == n_codes:  # the full table (projections keep digit order)
                acc = 0
                for c in range(size_table):
                    acc += xlogx[table[c]]
                out[t, q] = ((xlogx[n_samples] - acc) / FIXED_SCALE) / n_samples
                continue
            for c in range(n_bins * size):
                marginal[c] = 0
            for b in range(n_bins):
                for p in range(n_codes):
                    marginal[b * size + projection[q, p]] += table[b * n_codes + p]
            acc = 0
            for c in range(n_bins * size):
                acc += xlogx[marginal[c]]
            out[t, q] = ((xlogx[n_samples] - acc) / FIXED_SCALE) / n_samples


@sized_kernel
def column_tables(indptr, labelled, n_classes, base, out):
    """``out[j, b * n_classes + l]``: rows with x_j = b and label l, for every column j.

    ``labelled`` pairs each stored bin with its row's label (see
    ``label_stored_values``; the plain bins when n_classes = 1) and
    ``base[l]`` counts the rows of label l. Bin 0 is what the stored values
    leave of each label's rows.
    """
    n_cols = indptr.shape[0] - 1
    width = out.shape[1]
    for j in numba.prange(n_cols):
        for s in range(indptr[j], indptr[j + 1]):
            out[j, labelled[s]] += 1
        for label in range(n_classes):
            moved = 0
            for c in range(n_classes + label, width, n_classes):
                moved += out[j, c]
            out[j, label] = base[label] - moved


@sized_kernel
def pair_tables(indptr_r, cells_r, rows, row_bins, row_codes, slab, n_codes, out):
    """Joint counts of every column with a new feature s, over the rows where s is non-zero.

    ``rows`` are those rows, ``row_bins`` the bin a >= 1 of s and
    ``row_codes`` the code (e.g. the label) of each. ``cells_r`` holds, row
    by row (CSR order), the cell ``column * n_bins + bin`` of each stored
    value. ``out[chunk]`` is laid out as slabs (a - 1, code) of ``slab`` =
    n_features x n_bins counts, so that the stored values of one row are
    added in ascending column order within one slab; every chunk of rows has
    its own copy (summed by the reader).
    """
    n_chunks = out.shape[0]
    n_rows = rows.shape[0]
    for chunk in numba.prange(n_chunks):
        lo = chunk * n_rows // n_chunks
        hi = (chunk + 1) * n_rows // n_chunks
        table = out[chunk]
        for i in range(lo, hi):
            r = rows[i]
            offset = ((row_bins[i] - 1) * n_codes + row_codes[i]) * slab
            for s in range(indptr_r[r], indptr_r[r + 1]):
                table[offset + cells_r[s]] += 1


@sized_kernel
def cell_indices(indices, data, n_bins, out):
    """``out[s] = indices[s] * n_bins + data[s]``: the (column, bin) cell of each stored value."""
    for s in numba.prange(data.shape[0]):
        out[s] = indices[s] * n_bins + data[s]


@sized_kernel
def pair_entropies(pairs, reference, count_s, columns, n_features, n_bins, n_codes, xlogx, n_samples, out):
    """H(x_j, s) and, when n_codes > 1 (labels), H(x_j, s, y) for every candidate j.

    Rebuilds each candidate's full (x_j, s, code) table from ``pairs`` (rows
    where s is non-zero, from ``pair_tables``), ``count_s[a, code]`` (rows
    with s = a) and ``reference[j, b * n_codes + code]`` (all rows): the s = 0
    part is what the s != 0 part leaves of the reference table. Entropies use
    the same fixed-point sums as ``candidate_entropies``, so they are equal
    to the bit.
    """
    n_chunks = pairs.shape[0]
    slab = n_features * n_bins
    for t in numba.prange(columns.shape[0]):
        j = columns[t]
        table = np.empty(n_bins * n_bins * n_codes, np.int64)  # (b, a, code)
        for a in range(1, n_bins):
            for code in range(n_codes):
                offset = ((a - 1) * n_codes + code) * slab + j * n_bins
                stored = 0
                for b in range(1, n_bins):
                    total = 0
                    for chunk in range(n_chunks):
                        total += pairs[chunk, offset + b]
                    table[(b * n_bins + a) * n_codes + code] = total
                    stored += total
                table[a * n_codes + code] = count_s[a, code] - stored
        for b in range(n_bins):
            for code in range(n_codes):
                rest = reference[j, b * n_codes + code]
                for a in range(1, n_bins):
                    rest -= table[(b * n_bins + a) * n_codes + code]
                table[(b * n_bins) * n_codes + code] = rest
        acc_full = 0
        acc_pair = 0
        for b in range(n_bins):
            for a in range(n_bins):
                cell = 0
                for code in range(n_codes):
                    value = table[(b * n_bins + a) * n_codes + code]
                    cell += value
                    acc_full += xlogx[value]
                acc_pair += xlogx[cell]
        out[t, 0] = ((xlogx[n_samples] - acc_pair) / FIXED_SCALE) / n_samples
        out[t, 1] = ((xlogx[n_samples] - acc_full) / FIXED_SCALE) / n_samples


# ------------------------------------------------------------------ row blocks
# The kernels below work on one block of rows at a time, so that counts over
# all cells are sums of per-block results (the distributed path).


@sized_kernel
def value_counts_by_column(indptr, data, values, counts, n_distinct):
    """Per column of a CSC block: its distinct stored values (ascending) and how often each occurs.

    Column j's entries are written from position ``indptr[j]`` of ``values``
    and ``counts`` (sized like ``data``; a column has at most as many distinct
    values as stored ones) and their number into ``n_distinct[j]``.
    """
    n_cols = indptr.shape[0] - 1
    for j in numba.prange(n_cols):
        start = indptr[j]
        stop = indptr[j + 1]
        if stop == start:
            n_distinct[j] = 0
            continue
        col = sorted_copy(data[start:stop].astype(np.float64))
        t = start
        values[t] = col[0]
        counts[t] = 1
        for s in range(1, col.shape[0]):
            if col[s] != col[s - 1]:
                t += 1
                values[t] = col[s]
                counts[t] = 1
            else:
                counts[t] += 1
        n_distinct[j] = t - start + 1


@sized_kernel
def edges_from_value_counts(offsets, values, counts, n_rows, n_bins, edges, n_edges):
    """Recursive-quantile edges of every column from its merged (value, count) list.

    ``values[offsets[j]:offsets[j+1]]`` are column j's distinct stored values
    (ascending, non-negative) over all blocks and ``counts`` their
    multiplicities; the rows without a stored value are zeros. The edges equal
    those of the in-memory ``discretize_csc`` to the bit.
    """
    n_cols = offsets.shape[0] - 1
    for j in numba.prange(n_cols):
        start = offsets[j]
        stop = offsets[j + 1]
        if stop == start:
            n_edges[j] = 0
            continue
        stored = 0
        for t in range(start, stop):
            stored += counts[t]
        first = 1 if values[start] == 0.0 else 0  # stored zeros join the implicit ones
        size = stop - start - first + 1
        column_values = np.empty(size, np.float64)
        cumulative = np.empty(size, np.int64)
        column_values[0] = 0.0
        cumulative[0] = n_rows - stored + (counts[start] if first == 1 else 0)
        for t in range(start + first, stop):
            i = t - start - first + 1
            column_values[i] = values[t]
            cumulative[i] = cumulative[i - 1] + counts[t]
        n_edges[j] = _recursive_edges(np.empty(0, np.float64), np.int64(0), column_values, cumulative, n_bins, edges[j])


@numba.njit(cache=True)
def bin_rows(indptr, indices, data, edges, n_edges, n_bins, out_indptr, out_cells):
    """Bin a CSR block with given per-column edges; keep the non-zero bins as cells.

    Writes, row by row, ``column * n_bins + bin`` of every stored value whose
    bin is not 0, and the row pointers of that output. Returns how many cells
    were written. ``out_cells`` must hold at least as many entries as ``data``.
    """
    n_rows = indptr.shape[0] - 1
    t = 0
    out_indptr[0] = 0
    for r in range(n_rows):
        for s in range(indptr[r], indptr[r + 1]):
            j = indices[s]
            b = _bin_of(float(data[s]), edges[j], n_edges[j]) if n_edges[j] > 0 else 0
            if b > 0:
                out_cells[t] = j * n_bins + b
                t += 1
        out_indptr[r + 1] = t
    return t


@numba.njit(cache=True)
def row_reference_tables(indptr, cells, labels, n_bins, n_codes, out):
    """``out[j, b * n_codes + l] +=`` rows of label l with x_j = b >= 1, from a block of cells."""
    n_rows = indptr.shape[0] - 1
    for r in range(n_rows):
        label = labels[r]
        for s in range(indptr[r], indptr[r + 1]):
            cell = cells[s]
            j = cell // n_bins
            b = cell - j * n_bins
            out[j, b * n_codes + label] += 1


@numba.njit(cache=True)
def bins_of_feature(indptr, cells, feature, n_bins, out):
    """The bin of one feature in every row of a block of cells (0 where not stored)."""
    n_rows = indptr.shape[0] - 1
    low = feature * n_bins
    for r in range(n_rows):
        left = indptr[r]
        right = indptr[r + 1]
        while left < right:
            mid = (left + right) // 2
            if cells[mid] < low:
                left = mid + 1
            else:
                right = mid
        if left < indptr[r + 1] and cells[left] < low + n_bins:
            out[r] = cells[left] - low
        else:
            out[r] = 0


@sized_kernel
def table_entropies(reference, n_bins, n_codes, xlogx, n_samples, out):
    """H(x_j) and H(x_j, code) from complete tables ``reference[j, b * n_codes + code]``."""
    for j in numba.prange(reference.shape[0]):
        acc_joint = 0
        acc_alone = 0
        for b in range(n_bins):
            cell = 0
            for code in range(n_codes):
                value = reference[j, b * n_codes + code]
                cell += value
                acc_joint += xlogx[value]
            acc_alone += xlogx[cell]
        out[j, 0] = ((xlogx[n_samples] - acc_alone) / FIXED_SCALE) / n_samples
        out[j, 1] = ((xlogx[n_samples] - acc_joint) / FIXED_SCALE) / n_samples
