"""Kernels compiled for the size of their input: serial for small inputs, parallel for large ones.

numba compiles a ``parallel=True`` kernel in about twice the time of the same loop compiled serially (the
parfor passes and the threaded gufunc come on top): on a first run on a few thousand cells, compiling the
threaded kernels costs seconds, while the threads save milliseconds per fit (a CIFE selection on 700 cells:
0.02-0.04 s parallel against 0.03-0.06 s serial, ``benchmarks/parallel_threshold.py``). :func:`sized_kernel`
makes two dispatchers of one Python function, a serial one and a parallel one, and calls the parallel one
only when the array arguments hold at least :data:`PARALLEL_MIN_SIZE` values in all and numba may use more
than one thread. A small first run (the bundled PBMC cells, a tutorial) then compiles only the serial
kernels; a larger one compiles the parallel kernels it needs, when the threads pay for their compile time.

Both dispatchers run the same code on the same data (``numba.prange`` is ``range`` in the serial one),
and paucity's kernels are written so that their results do not depend on the number of threads, so the
results are the same either way (``tests/test_jit.py`` checks the marker path both ways, bit for bit).
Each is cached on disk under its own name.
"""

from __future__ import annotations

import functools
import types

import numba
import numpy as np

__all__ = ["PARALLEL_MIN_SIZE", "sized_kernel", "SizedKernel"]

#: Values (summed over the array arguments) from which the parallel dispatcher is used: above the bundled PBMC
#: cells' kernels (at most about 400,000), below a 2,000 x 1,000 count matrix's (about 500,000 and more).
PARALLEL_MIN_SIZE = 1 << 19


def _renamed(function, suffix: str):
    """A copy of ``function`` under another qualified name, so that numba caches it in files of its own."""
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__ + suffix,
                              function.__defaults__, function.__closure__)
    copy.__qualname__ = function.__qualname__ + suffix
    copy.__module__ = function.__module__
    copy.__doc__ = function.__doc__
    return copy


class SizedKernel:
    """A kernel with a serial and a parallel dispatcher, called by the size of its input (see the module)."""

    def __init__(self, function, *, size_of: int | None = None, **options):
        self.serial = numba.njit(cache=True, **options)(_renamed(function, "__serial"))
        self.parallel = numba.njit(parallel=True, cache=True, **options)(function)
        self.size_of = size_of
        functools.update_wrapper(self, function)

    def choose(self, *args):
        """The dispatcher a call with these arguments runs."""
        if numba.get_num_threads() > 1:
            if self.size_of is not None:
                size = args[self.size_of].size
            else:
                size = 0
                for value in args:
                    if isinstance(value, np.ndarray):
                        size += value.size
            if size >= PARALLEL_MIN_SIZE:
                return self.parallel
        return self.serial

    def __call__(self, *args):
        return self.choose(*args)(*args)


def sized_kernel(function=None, *, size_of: int | None = None, **options):
    """Decorate a kernel written with ``numba.prange``: serial below :data:`PARALLEL_MIN_SIZE`, parallel above.

    The size of a call is the number of values its array arguments hold in all, or, with ``size_of``, the
    size of that one positional argument alone (for a kernel whose outputs and index arrays repeat its input:
    a transpose reads and writes each stored value several times over, yet does the work of one pass).

    Examples
    --------
    >>> from paucity.info._kernels import cell_indices
    >>> indices, bins = np.array([0, 2, 1], np.int32), np.array([1, 1, 2], np.uint8)
    >>> out = np.empty(3, np.uint16)
    >>> cell_indices.choose(indices, bins, 3, out) is cell_indices.serial   # 9 values: serial
    True
    >>> cell_indices(indices, bins, 3, out)
    >>> out.tolist()
    [1, 7, 5]
    """
    if function is None:
        return lambda f: SizedKernel(f, size_of=size_of, **options)
    return SizedKernel(function, size_of=size_of, **options)
