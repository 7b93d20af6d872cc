"""Kernels shared by every capability: low-level sparse-matrix layout (no validation, no Python objects)."""

from __future__ import annotations

import numba
import numpy as np

from ._jit import sized_kernel

__all__ = ["transpose_compressed"]


@sized_kernel(size_of=2)  # the stored values: the index and output arrays all repeat them
def transpose_compressed(n_minor, indptr, indices, n_blocks, out_indptr, out_indices, source):
    """The layout of CSR -> CSC (or CSC -> CSR), in parallel over blocks of the major axis.

    Each block counts its entries per minor index, the counts give every
    block its own write position in each output slice, and the blocks then
    scatter independently; within a slice, entries stay in major order, so the
    output indices are sorted. ``source[p]`` receives the position in the
    input of output entry ``p``: the values follow as ``data[source]``, so the
    kernel has one signature whatever the values' type (counts, bins).
    """
    n_major = indptr.shape[0] - 1
    counts = np.zeros((n_blocks, n_minor), np.int64)
    for block in numba.prange(n_blocks):
        lo = block * n_major // n_blocks
        hi = (block + 1) * n_major // n_blocks
        for s in range(indptr[lo], indptr[hi]):
            counts[block, indices[s]] += 1
    out_indptr[0] = 0
    for j in range(n_minor):
        position = out_indptr[j]
        for block in range(n_blocks):
            size = counts[block, j]
            counts[block, j] = position
            position += size
        out_indptr[j + 1] = position
    for block in numba.prange(n_blocks):
        lo = block * n_major // n_blocks
        hi = (block + 1) * n_major // n_blocks
        for i in range(lo, hi):
            for s in range(indptr[i], indptr[i + 1]):
                j = indices[s]
                p = counts[block, j]
                out_indices[p] = i
                source[p] = s
                counts[block, j] = p + 1
