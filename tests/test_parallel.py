"""Thread counts that follow the load of the machine."""

import numba
import numpy as np
import pytest

import paucity._parallel as parallel
from paucity._errors import ParameterError
from paucity._parallel import kernel_threads, threads_for_load


@pytest.mark.parametrize(
    "wanted, cores, busy, expected",
    [
        (2, 2, 0.0, 2),  # idle: every thread asked for
        (2, 2, 0.3, 2),  # a core counts as idle while others use less than half of it
        (2, 2, 0.6, 1),
        (2, 2, 1.0, 1),  # one core of two busy: one thread, not two that wait for each other
        (2, 2, 7.5, 1),  # at least one
        (16, 16, 4.0, 12),
        (4, 16, 4.0, 4),  # never more than asked for
        (8, 8, None, 8),  # load unknown: as asked
    ],
)
def test_threads_for_load(wanted, cores, busy, expected):
    assert threads_for_load(wanted, cores, busy) == expected


def test_kernel_threads_leaves_the_busy_cores_to_others(monkeypatch):
    available = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    monkeypatch.setattr(parallel, "usable_cores", lambda: available)
    monkeypatch.setattr(parallel, "busy_cores", lambda: 0.0)
    with kernel_threads(None) as n:
        assert n == available == numba.get_num_threads()
    monkeypatch.setattr(parallel, "busy_cores", lambda: float(available))
    with kernel_threads(None) as n:
        assert n == 1 == numba.get_num_threads()
    with kernel_threads(-1) as n:
        assert n == 1
    assert numba.get_num_threads() == before  # restored


def test_numpy_integers_are_thread_counts(monkeypatch):
    monkeypatch.setattr(parallel, "busy_cores", lambda: 0.0)
    with kernel_threads(np.int64(1)) as n:
        assert n == 1 and isinstance(n, int)


def test_one_thread_asked_for_does_not_measure_the_load(monkeypatch):
    def fail():
        raise AssertionError("the load was measured")

    monkeypatch.setattr(parallel, "busy_cores", fail)
    with kernel_threads(1) as n:
        assert n == 1 == numba.get_num_threads()


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, "all", True])
def test_bad_n_jobs(n_jobs):
    with pytest.raises(ParameterError, match=r"n_jobs must be a positive integer, -1 or None, got .*; pass the most"):
        with kernel_threads(n_jobs):
            pass


def test_busy_cores_is_a_number_of_cores_or_unknown():
    busy = parallel.busy_cores()
    assert busy is None or 0.0 <= busy


class FakeClock:
    """Samples (seconds, busy seconds of the cores, this process's CPU seconds) handed out in order."""

    def __init__(self, samples):
        self.samples = list(samples)
        self.slept = 0

    def sample(self):
        return self.samples.pop(0)

    def sleep(self, seconds):
        self.slept += 1


def test_load_meter_subtracts_this_process_and_reuses_recent_windows(monkeypatch):
    clock = FakeClock(
        [
            (100.0, 500.0, 10.0),  # first call: no earlier sample, so it waits one probe...
            (100.05, 500.09, 10.04),  # ...and others used (0.09 - 0.04) / 0.05 = 1 core
            (100.06, 0.0, 0.0),  # 10 ms later: the last estimate, nothing measured
            (101.05, 503.09, 11.04),  # a second later: that second is the window, others used 2 cores
            (200.0, 600.0, 20.0),  # long after: a fresh probe
            (200.05, 600.05, 20.05),  # this process alone was busy: 0
        ]
    )
    meter = parallel._LoadMeter()
    monkeypatch.setattr(meter, "_sample", clock.sample)
    monkeypatch.setattr(parallel.time, "sleep", clock.sleep)
    assert meter.busy_cores() == pytest.approx(1.0)
    assert clock.slept == 1
    assert meter.busy_cores() == pytest.approx(1.0)
    assert meter.busy_cores() == pytest.approx(2.0)
    assert clock.slept == 1
    assert meter.busy_cores() == pytest.approx(0.0)
    assert clock.slept == 2
    assert not clock.samples
