"""Switching a sparse matrix between row-major (CSR) and column-major (CSC) storage.

Low-level and shared: :mod:`paucity._validation` and :mod:`paucity.info` both use it, so it depends on
no capability.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from . import _kernels

__all__ = ["to_csc", "to_csr"]


#: Output slices per bucket of the transpose: about this many buckets, whose slices fit in the caches.
BUCKETS = 512


def _transpose_storage(matrix, target: str):
    n_major, n_minor = (matrix.shape[0], matrix.shape[1]) if matrix.format == "csr" else (matrix.shape[1], matrix.shape[0])
    shift = min(16, max(0, (n_minor - 1).bit_length() - BUCKETS.bit_length() + 1))
    indptr = np.empty(n_minor + 1, dtype=np.int64)
    indices = np.empty(matrix.nnz, dtype=np.int32 if n_major < 2**31 else np.int64)
    data = np.empty(matrix.nnz, dtype=matrix.data.dtype)
    moved = np.dtype(f"u{matrix.data.dtype.itemsize}")  # values are moved, not read: one kernel per width
    _kernels.transpose_compressed(
        n_minor,
        matrix.indptr.astype(np.int64, copy=False),
        matrix.indices,
        np.ascontiguousarray(matrix.data).view(moved),
        shift,
        numba.get_num_threads(),
        indptr,
        indices,
        data.view(moved),
        np.empty(matrix.nnz, dtype=np.uint16),
    )
    cls = sp.csc_matrix if target == "csc" else sp.csr_matrix
    out = cls((data, indices, indptr), shape=matrix.shape)
    out.has_sorted_indices = True
    return out


def to_csc(matrix):
    """The same sparse matrix in CSC form, converted in parallel from CSR (other formats via scipy).

    Allocates one copy of the stored values and indices, and for the time of the call 2 bytes per stored
    value (each one's place in its bucket, see :func:`paucity._kernels.transpose_compressed`).
    """
    if matrix.format == "csc":
        return matrix
    if matrix.format != "csr" or matrix.data.dtype.itemsize not in (1, 2, 4, 8):
        return matrix.tocsc()
    return _transpose_storage(matrix, "csc")


def to_csr(matrix):
    """The same sparse matrix in CSR form, converted in parallel from CSC (other formats via scipy)."""
    if matrix.format == "csr":
        return matrix
    if matrix.format != "csc" or matrix.data.dtype.itemsize not in (1, 2, 4, 8):
        return matrix.tocsr()
    return _transpose_storage(matrix, "csr")
