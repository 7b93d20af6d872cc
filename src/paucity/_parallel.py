"""How many threads the numba kernels use (the ``n_jobs`` parameter) and how they share the work.

Two things keep a parallel kernel from being slower than its single-thread
form when other processes share the cores:

- :func:`kernel_threads` runs the kernels on no more threads than there are
  cores left idle by other processes. A thread that shares its core with a
  busy process runs at a fraction of the speed of the others, and every
  parallel loop waits for its slowest thread; on two cores with one of them
  busy, two threads are slower than one.
- the kernels do not split their loops into one fixed share per thread:
  :func:`work_blocks` cuts a loop into many more blocks than threads, and each
  thread claims the next block (:func:`claim`) when it is done with its last,
  so a thread slowed down by a process that starts mid-call does less of the
  work instead of holding up the rest.

Neither changes a result: every block writes its own outputs, counts are
integers, and floating-point sums are taken over blocks whose bounds do not
depend on the number of threads, in block order.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections.abc import Iterator

import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ._errors import ParameterError

__all__ = ["busy_cores", "claim", "kernel_threads", "thread_count", "usable_cores", "work_blocks"]

#: Seconds over which the load is measured when no recent measurement exists.
PROBE_SECONDS = 0.05
#: A measurement older than this is not reused; the next call measures afresh.
REUSE_SECONDS = 10.0
#: Blocks per thread in a loop split by :func:`work_blocks`.
BLOCKS_PER_THREAD = 16


# ----------------------------------------------------------------- the load


def usable_cores() -> int:
    """The number of cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _busy_seconds() -> float | None:
    """Seconds the usable cores have spent busy since boot (Linux ``/proc/stat``), or None."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cpus = os.sched_getaffinity(0)
    try:
        with open("/proc/stat", "rb") as f:
            lines = f.read().split(b"\n")
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    busy = 0
    seen = 0
    for line in lines:
        if not line.startswith(b"cpu") or line.startswith(b"cpu "):
            continue
        fields = line.split()
        try:
            cpu = int(fields[0][3:])
        except ValueError:
            continue
        if cpu not in cpus:
            continue
        # user nice system idle iowait irq softirq steal: all but idle and iowait are unavailable to us
        values = [int(v) for v in fields[1:9]]
        busy += values[0] + values[1] + values[2] + values[5] + values[6] + values[7]
        seen += 1
    if seen == 0:
        return None
    return busy / ticks


class _LoadMeter:
    """Cores kept busy by other processes: the busy time of the usable cores minus this process's CPU time.

    The window is the time since the previous measurement when that is
    recent (between ``PROBE_SECONDS`` and ``REUSE_SECONDS`` ago), so a run of
    calls costs nothing; otherwise the meter waits ``PROBE_SECONDS`` once.
    This process's own threads (including numba's, which may still be
    spinning after the previous kernel) are not counted as load.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._previous: tuple[float, float, float] | None = None
        self._estimate: float | None = None

    @staticmethod
    def _sample() -> tuple[float, float, float] | None:
        busy = _busy_seconds()
        if busy is None:
            return None
        return time.monotonic(), busy, time.process_time()

    def busy_cores(self) -> float | None:
        with self._lock:
            now = self._sample()
            if now is None:
                return _busy_cores_from_load_average()
            previous = self._previous
            if previous is not None and now[0] - previous[0] < PROBE_SECONDS and self._estimate is not None:
                return self._estimate
            if previous is None or now[0] - previous[0] > REUSE_SECONDS:
                time.sleep(PROBE_SECONDS)
                previous, now = now, self._sample()
            wall = now[0] - previous[0]
            others = (now[1] - previous[1]) - (now[2] - previous[2])
            self._previous = now
            self._estimate = max(0.0, others / wall)
            return self._estimate


def _busy_cores_from_load_average() -> float | None:
    """Where ``/proc/stat`` is missing: the one-minute load average, less this process's calling thread."""
    if not hasattr(os, "getloadavg"):
        return None
    try:
        return max(0.0, os.getloadavg()[0] - 1.0)
    except OSError:
        return None


_meter = _LoadMeter()


def busy_cores() -> float | None:
    """How many of the usable cores other processes keep busy, now (None where it cannot be measured).

    On Linux, the busy time of the cores this process may run on, less this
    process's own CPU time, over the last fraction of a second; elsewhere the
    one-minute load average less one.
    """
    return _meter.busy_cores()


def threads_for_load(wanted: int, cores: int, busy: float | None) -> int:
    """Threads to run: at most ``wanted``, and no more than the cores others leave idle (at least one).

    A core counts as idle when others use less than half of it.
    """
    if busy is None:
        return wanted
    idle = math.floor(cores - busy + 0.5)
    return max(1, min(wanted, idle))


@contextlib.contextmanager
def kernel_threads(n_jobs: int | None) -> Iterator[int]:
    """Run the enclosed kernels on at most ``n_jobs`` threads, then restore the previous count.

    ``None`` and ``-1`` mean every thread numba was started with
    (``NUMBA_NUM_THREADS``, by default one per core); larger requests are
    capped at that. When other processes keep some of the cores busy, fewer
    threads run: no more than the cores they leave idle (see
    :func:`busy_cores`), and at least one. Results do not depend on the count.
    Yields the number of threads used.
    """
    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None or n_jobs == -1:
        wanted = available
    elif isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(
            f"n_jobs must be a positive integer, -1 or None, got {n_jobs!r}; "
            "pass the most threads to use, or None for every core."
        )
    else:
        wanted = min(n_jobs, available)
    if wanted > 1:
        wanted = threads_for_load(wanted, usable_cores(), busy_cores())
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)


# --------------------------------------------------- sharing a loop in kernels


@intrinsic
def claim(typingctx, counter, size):
    """``counter[0] += size`` atomically inside a kernel; returns the value before the addition.

    The threads of a ``prange`` over workers call it to take the next block
    of a loop: the first to ask gets ``[0, size)``, the next ``[size, 2 size)``
    and so on, whichever thread that is.
    """
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and isinstance(size, types.Integer)):
        return None
    signature = types.int64(counter, size)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [zero])
        amount = context.cast(builder, args[1], sig.args[1], types.int64)
        return builder.atomic_rmw("add", pointer, amount, "monotonic")

    return signature, codegen


@intrinsic
def thread_count(typingctx):
    """``numba.get_num_threads()`` inside a kernel, in a form that the kernel's cache can keep.

    (numba's own overload reaches the threading layer through a ctypes
    pointer, which stops ``cache=True`` from saving the kernel.)
    """
    numba.get_num_threads()  # starts the threading layer, which provides the symbol

    def codegen(context, builder, sig, args):
        signature = ir.FunctionType(ir.IntType(32), [])
        function = cgutils.get_or_insert_function(builder.module, signature, "get_num_threads")
        return builder.sext(builder.call(function, []), ir.IntType(64))

    return types.int64(), codegen


@numba.njit(cache=True)
def work_blocks(n_items, minimum):
    """``(workers, block)``: split ``n_items`` into blocks of ``block`` items (at least ``minimum``) for the threads.

    About ``BLOCKS_PER_THREAD`` blocks per thread of the current count, and
    never more workers than blocks. Use it where what each item computes does
    not depend on the block bounds (for sums, use blocks of a fixed size).
    """
    threads = thread_count()
    block = -(-n_items // (threads * BLOCKS_PER_THREAD))
    if block < minimum:
        block = minimum
    if block < 1:
        block = 1
    n_blocks = -(-n_items // block)
    workers = threads if threads < n_blocks else n_blocks
    return workers, block
