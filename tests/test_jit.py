"""Sized kernels: the serial and the parallel dispatcher give the same results, and small inputs stay serial."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from paucity import _jit, _kernels
from paucity.datasets import make_scrna_counts
from paucity.info import _kernels as info_kernels
from paucity.info import discretize
from paucity.markers import InfoSelector

pytestmark = pytest.mark.filterwarnings("ignore::paucity._errors.PaucityWarning")

SIZED = sorted(name for module in (info_kernels, _kernels) for name, value in vars(module).items()
               if isinstance(value, _jit.SizedKernel))


def test_every_parallel_kernel_of_the_marker_path_is_sized():
    assert len(SIZED) == 12
    for module in (info_kernels, _kernels):
        for name, value in vars(module).items():
            if isinstance(value, numba.core.registry.CPUDispatcher):
                assert not value.targetoptions.get("parallel"), f"{name} compiles parallel whatever its input"


def _run(threshold, monkeypatch):
    monkeypatch.setattr(_jit, "PARALLEL_MIN_SIZE", threshold)
    data = make_scrna_counts(600, 150, n_types=4, n_markers=40, random_state=3)
    logged = data.X.copy()
    logged.data = np.log1p(logged.data) * 1.7        # not small integers: the sorting path
    rng = np.random.default_rng(0)
    dense = np.abs(rng.normal(size=(300, 20)))
    out = {
        "counts": discretize(data.X, n_bins=5),
        "logged": discretize(logged, n_bins=4),
        "dense": discretize(dense, n_bins=3),
        "csc": sp.csc_matrix(data.X).copy(),
    }
    for method in ("mim", "jmi", "cife", "mrmr"):
        selector = InfoSelector(method=method, n_features=8).fit(data.X, data.labels)
        out[method] = (selector.selected_, selector.selection_scores_)
    binary = InfoSelector(method="cife", mode="binary", n_features=8).fit(data.X, data.labels)
    out["binary"] = (binary.selected_, binary.selection_scores_)
    return out


def test_serial_and_parallel_dispatchers_agree_to_the_bit(monkeypatch):
    if numba.get_num_threads() < 2:
        pytest.skip("numba has one thread here: every call is serial")
    serial = _run(1 << 62, monkeypatch)
    parallel = _run(0, monkeypatch)
    for key in ("counts", "logged", "dense", "csc"):
        a, b = serial[key], parallel[key]
        if sp.issparse(a):
            assert (a != b).nnz == 0 and np.array_equal(a.indptr, b.indptr), key
        else:
            assert np.array_equal(np.asarray(a), np.asarray(b)), key
    for key in ("mim", "jmi", "cife", "mrmr", "binary"):
        assert np.array_equal(serial[key][0], parallel[key][0]), key
        assert np.array_equal(serial[key][1], parallel[key][1]), key   # bit for bit


def test_small_inputs_and_one_thread_run_serially(monkeypatch):
    kernel = info_kernels.cell_indices
    small = (np.zeros(10, np.int32), np.zeros(10, np.uint8), 3, np.empty(10, np.uint16))
    assert kernel.choose(*small) is kernel.serial
    monkeypatch.setattr(_jit, "PARALLEL_MIN_SIZE", 5)
    if numba.get_num_threads() > 1:
        assert kernel.choose(*small) is kernel.parallel
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert kernel.choose(*small) is kernel.serial
    finally:
        numba.set_num_threads(previous)


def test_the_two_dispatchers_are_cached_under_their_own_names():
    kernel = info_kernels.discretize_csc
    assert kernel.serial.py_func.__qualname__ == "discretize_csc__serial"
    assert kernel.parallel.py_func.__qualname__ == "discretize_csc"
    assert kernel.__doc__ and "CSC" in kernel.__doc__
