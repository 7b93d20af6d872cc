"""Kernels shared by every capability: low-level sparse-matrix layout (no validation, no Python objects)."""

from __future__ import annotations

import numba
import numpy as np

from ._jit import sized_kernel

__all__ = ["transpose_compressed"]


@sized_kernel(size_of=2)  # the stored values: the index and output arrays all repeat them
def transpose_compressed(n_minor, indptr, indices, values, shift, n_blocks, out_indptr, out_indices, out_values,
                         local):
    """CSR -> CSC (or CSC -> CSR) with the stored values, in two cache-sized passes, in parallel.

    Writing each entry straight to its place in the output (one pass, as scipy does) sends consecutive
    writes to as many places as there are output slices: with a million cells, every write misses the
    processor's caches and its page tables. Here the output slices are grouped in buckets of
    ``2**shift`` consecutive slices (a few hundred buckets): the first pass writes each entry into its
    bucket's range of the output (in parallel over blocks of the major axis; each block counted its
    entries per slice first, which gives every block its own write position in each bucket), and records
    its slice within the bucket in ``local``; the second pass, in parallel over buckets, sorts each
    bucket's entries into their slices, within a range that fits in the cache. Both passes keep the
    major order, so within a slice the output indices are sorted, and the result does not depend on
    ``n_blocks``. ``values`` are moved, not read: pass them as unsigned integers of their width, so that one
    compiled kernel serves every type of the same size.
    """
    n_major = indptr.shape[0] - 1
    n_buckets = ((n_minor - 1) >> shift) + 1 if n_minor > 0 else 0
    counts = np.zeros((n_blocks, n_minor), np.int64)
    for block in numba.prange(n_blocks):
        lo = block * n_major // n_blocks
        hi = (block + 1) * n_major // n_blocks
        for s in range(indptr[lo], indptr[hi]):
            counts[block, indices[s]] += 1
    out_indptr[0] = 0
    for j in range(n_minor):
        total = 0
        for block in range(n_blocks):
            total += counts[block, j]
        out_indptr[j + 1] = out_indptr[j] + total
    cursor = np.empty((n_blocks, n_buckets), np.int64)
    for bucket in range(n_buckets):
        first = bucket << shift
        last = min(n_minor, (bucket + 1) << shift)
        position = out_indptr[first]
        for block in range(n_blocks):
            cursor[block, bucket] = position
            for j in range(first, last):
                position += counts[block, j]
    for block in numba.prange(n_blocks):
        lo = block * n_major // n_blocks
        hi = (block + 1) * n_major // n_blocks
        for i in range(lo, hi):
            for s in range(indptr[i], indptr[i + 1]):
                j = indices[s]
                bucket = j >> shift
                p = cursor[block, bucket]
                out_indices[p] = i
                out_values[p] = values[s]
                local[p] = j - (bucket << shift)
                cursor[block, bucket] = p + 1
    for bucket in numba.prange(n_buckets):
        first = bucket << shift
        last = min(n_minor, (bucket + 1) << shift)
        start = out_indptr[first]
        size = out_indptr[last] - start
        if size == 0 or last - first == 1:
            continue
        major = out_indices[start:start + size].copy()  # this bucket's scratch: a few MB
        moved = out_values[start:start + size].copy()
        following = np.empty(last - first, np.int64)
        for j in range(first, last):
            following[j - first] = out_indptr[j] - start
        for p in range(size):
            slot = local[start + p]
            q = following[slot]
            out_indices[start + q] = major[p]
            out_values[start + q] = moved[p]
            following[slot] = q + 1
