"""Time spent compiling numba kernels: a notice when a run compiles, and stopwatches that leave it out.

paucity's kernels are compiled by numba the first time they run and cached on disk (beside the package when
its folder is writable, else in numba's user-wide cache folder), so a first run is slower than the next ones
by the compile time. :func:`watch` counts that time (numba's ``numba:compile`` events, which fire only for a
real compilation, never for a load from the cache) and calls ``announce`` once, at the first compilation;
a :class:`Stopwatch` reads the seconds of a piece of work without the compile time spent inside it, so that
the times the command line and the demo print are the algorithm's.
"""

from __future__ import annotations

import contextlib
import threading
import time

__all__ = ["Stopwatch", "watch", "compile_seconds"]

_lock = threading.Lock()
_state = {"seconds": 0.0, "count": 0, "depth": 0, "started": 0.0, "listener": None, "announce": []}


def compile_seconds() -> float:
    """Seconds spent compiling kernels in this process since the first :func:`watch` or :class:`Stopwatch`."""
    _install()
    with _lock:
        running = time.perf_counter() - _state["started"] if _state["depth"] else 0.0
        return _state["seconds"] + running


def _install() -> None:
    with _lock:
        if _state["listener"] is not None:
            return
        from numba.core import event

        class _Listener(event.Listener):
            def on_start(self, ev):
                announce = ()
                with _lock:
                    if _state["depth"] == 0:
                        _state["started"] = time.perf_counter()
                        if _state["count"] == 0:
                            announce = tuple(_state["announce"])
                    _state["depth"] += 1
                    _state["count"] += 1
                for call in announce:
                    call()

            def on_end(self, ev):
                with _lock:
                    _state["depth"] -= 1
                    if _state["depth"] == 0:  # nested compilations are inside the outer one's time
                        _state["seconds"] += time.perf_counter() - _state["started"]

        listener = _Listener()
        event.register("numba:compile", listener)
        _state["listener"] = listener


@contextlib.contextmanager
def watch(announce=None):
    """Count compile time from here on, and call ``announce()`` at the first compilation of the process."""
    _install()
    if announce is not None:
        _state["announce"].append(announce)
    try:
        yield
    finally:
        if announce is not None:
            _state["announce"].remove(announce)


class Stopwatch:
    """Wall-clock seconds since it was started, less the seconds numba spent compiling kernels meanwhile.

    Examples
    --------
    >>> clock = Stopwatch()
    >>> clock.seconds >= 0.0 and clock.compile_seconds >= 0.0
    True
    """

    def __init__(self):
        self._compiled = compile_seconds()
        self._wall = time.perf_counter()

    @property
    def compile_seconds(self) -> float:
        """Seconds spent compiling kernels since the stopwatch started."""
        return compile_seconds() - self._compiled

    @property
    def seconds(self) -> float:
        """Seconds since the stopwatch started, without the compile time."""
        return max(time.perf_counter() - self._wall - self.compile_seconds, 0.0)
