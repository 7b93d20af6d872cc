"""Kernels of the marker explorer's quick check (no validation, no Python objects)."""

from __future__ import annotations

import numba
import numpy as np

from .._jit import sized_kernel

__all__ = ["BLOCK", "nearest_centroid_hits"]

#: Cells whose products with the centroids are held at once (their rows, 1.4 MB with 11 groups, stay in the cache
#: while every selected gene's stored values among them are added).
BLOCK = 16384


@sized_kernel(size_of=2)
def nearest_centroid_hits(indptr, indices, data, columns, fold, codes, centroids, norms, n_chunks, hits):
    """``hits[chunk, f]`` = the cells of fold ``f`` (among the chunk's cells) whose nearest centroid is their own
    group's.

    X is read as CSC (cells x genes, sorted indices) through the columns ``columns`` (ascending): the product of
    cell ``i`` with centroid ``c`` of its fold is ``sum_t x[i, columns[t]] * centroids[fold[i], t, c]``, the
    genes added in column order as a row-major product would add them, and its nearest centroid is the least
    ``norms[f, c] - 2 * product`` (the first of equals). The cells are split into ``n_chunks`` runs of whole
    blocks of :data:`BLOCK` cells; each run's blocks are taken one after another with one buffer of products,
    and each gene's first stored value in a block is found by bisection, so that no row of X is sliced and no
    product of all the cells is kept (at a million cells, 88 MB written and read again). The counts per chunk
    are integers: their sum does not depend on how the chunks were shared among the threads. The centroids
    are laid out (fold, gene, group), so that a stored value is multiplied into a run of consecutive numbers.
    """
    n_cells = fold.shape[0]
    n_classes = centroids.shape[2]
    n_blocks = (n_cells + BLOCK - 1) // BLOCK
    per_chunk = (n_blocks + n_chunks - 1) // n_chunks
    for chunk in numba.prange(n_chunks):
        products = np.empty((BLOCK, n_classes))
        for block in range(chunk * per_chunk, min(n_blocks, (chunk + 1) * per_chunk)):
            start = block * BLOCK
            stop = min(n_cells, start + BLOCK)
            products[:stop - start] = 0.0
            for t in range(columns.shape[0]):
                j = columns[t]
                s = indptr[j] + np.searchsorted(indices[indptr[j]:indptr[j + 1]], start)
                end = indptr[j + 1]
                while s < end and indices[s] < stop:
                    i = indices[s]
                    value = np.float64(data[s])
                    f = fold[i]
                    for c in range(n_classes):
                        products[i - start, c] += value * centroids[f, t, c]
                    s += 1
            for i in range(start, stop):
                f = fold[i]
                best = 0
                least = norms[f, 0] - 2.0 * products[i - start, 0]
                for c in range(1, n_classes):
                    distance = norms[f, c] - 2.0 * products[i - start, c]
                    if distance < least:
                        least = distance
                        best = c
                if best == codes[i]:
                    hits[chunk, f] += 1
