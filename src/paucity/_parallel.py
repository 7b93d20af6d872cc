"""How many threads the numba kernels use: the ``n_jobs`` parameter."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numba

from ._errors import ParameterError


@contextlib.contextmanager
def kernel_threads(n_jobs: int | None) -> Iterator[int]:
    """Run the enclosed kernels on ``n_jobs`` threads, then restore the previous count.

    ``None`` and ``-1`` mean every thread numba was started with
    (``NUMBA_NUM_THREADS``, by default one per core); larger requests are
    capped at that. Results do not depend on the count.
    """
    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None or n_jobs == -1:
        wanted = available
    elif isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be a positive integer, -1 or None, got {n_jobs!r}.")
    else:
        wanted = min(n_jobs, available)
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)
