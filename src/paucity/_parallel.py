"""How many threads the numba kernels use: the ``n_jobs`` parameter, and the load of the machine.

:func:`kernel_threads` runs the kernels on no more threads than there are
cores left idle by other processes. A thread that shares its core with a busy
process runs at a fraction of the speed of the others, every parallel loop
waits for its slowest thread, and numba's OpenMP threads spin for a few
milliseconds after each loop, taking the core from the main thread; on two
cores with one of them busy, two threads were more than twice as slow as one.

The count never changes a result: the kernels count in integers, and their
floating-point sums are taken over blocks whose bounds do not depend on it.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import threading
import time
from collections.abc import Iterator

import numba

from ._errors import ParameterError

__all__ = ["busy_cores", "kernel_threads", "threads_for_load", "usable_cores"]

#: Seconds over which the load is measured when no recent measurement exists.
PROBE_SECONDS = 0.05
#: A measurement older than this is not reused; the next call measures afresh.
REUSE_SECONDS = 10.0


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
    integer = isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool)
    if n_jobs is not None and not (integer and (n_jobs >= 1 or n_jobs == -1)):
        raise ParameterError(
            f"n_jobs must be a positive integer, -1 or None, got {n_jobs!r}; "
            "pass the most threads to use, or None for every core."
        )
    wanted = available if n_jobs is None or n_jobs == -1 else min(int(n_jobs), available)
    if wanted > 1:
        wanted = threads_for_load(wanted, usable_cores(), busy_cores())
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)
