"""PDA and SPARDA on Dask arrays: the same fit as in memory, bit for bit, for the same random_state."""

import sys

import numpy as np
import pytest

from paucity._errors import InputError, ShapeMismatchError
from paucity.differences import PDA

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


def planted_problem(n, m, d, n_planted=4, shift=0.6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    planted = np.sort(rng.choice(d, size=n_planted, replace=False))
    Y[:, planted] += shift
    Y[:, planted[0]] *= 1.5  # a change of spread too
    return X, Y, planted


def test_dask_without_a_client_is_an_input_error():
    # first in the file: the module's Client below is not started yet
    try:
        distributed.get_client()
    except ValueError:
        pass
    else:
        pytest.skip("a dask client is already running")
    X, Y, _ = planted_problem(n=40, m=30, d=5)
    with pytest.raises(InputError, match="none is running"):
        PDA().fit(*as_dask(X, Y, rows_x=16, rows_y=16))


def test_dask_without_distributed_is_an_input_error(monkeypatch):
    X, Y, _ = planted_problem(n=40, m=30, d=5)
    dx, dy = as_dask(X, Y, rows_x=16, rows_y=16)
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    with pytest.raises(InputError, match="dask.distributed is not installed"):
        PDA().fit(dx, dy)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


def as_dask(X, Y, rows_x=70, rows_y=55):
    return da.from_array(X, chunks=(rows_x, -1)), da.from_array(Y, chunks=(rows_y, X.shape[1] // 3 + 1))


def assert_same_fit(memory, dask):
    assert np.array_equal(dask.beta_, memory.beta_)
    assert dask.divergence_ == memory.divergence_
    assert np.array_equal(dask.selected_, memory.selected_)
    assert np.array_equal(dask.prefiltered_, memory.prefiltered_)
    assert np.array_equal(dask.scale_, memory.scale_)
    assert dask.n_iter_ == memory.n_iter_
    assert np.array_equal(dask.relaxation_.matrix, memory.relaxation_.matrix)


@pytest.mark.parametrize(
    "params",
    [
        {"tighten_max_iter": 200},  # PDA: every feature on the driver, RELAX on every row
        {"sparsity": "l1", "n_features": 4, "prefilter": 24},  # SPARDA through the prefilter
        {"sparsity": "l1", "lam": 0.05, "standardize": True, "batch_size": 64, "prefilter": 30},  # RELAX's row blocks
        {"standardize": True, "divergence": "mann_whitney", "n_restarts": 0, "tighten_max_iter": 100},
    ],
)
def test_dask_fit_equals_the_in_memory_fit_bit_for_bit(client, params, monkeypatch):
    import paucity.differences._dask as module

    monkeypatch.setattr(module, "_COLUMN_BLOCK", 64)  # column blocks of 64, 64 and 1 feature
    X, Y, planted = planted_problem(n=120, m=100, d=129)
    memory = PDA(random_state=3, max_iter=60, **params).fit(X, Y)
    dask = PDA(random_state=3, max_iter=60, **params).fit(*as_dask(X, Y))
    assert_same_fit(memory, dask)
    if params.get("n_features"):
        assert sorted(memory.selected_.tolist()) == planted.tolist()


def test_dask_fit_on_few_features_and_mixed_inputs(client):
    X, Y, planted = planted_problem(n=150, m=120, d=12, n_planted=2, shift=1.0)
    memory = PDA(sparsity="l1", n_features=2, max_iter=40, random_state=0).fit(X, Y)
    assert_same_fit(memory, PDA(sparsity="l1", n_features=2, max_iter=40, random_state=0).fit(da.from_array(X, chunks=50), Y))
    assert sorted(memory.selected_.tolist()) == planted.tolist()
    integers = np.rint(X * 3).astype(np.int64), np.rint(Y * 3).astype(np.int64)
    assert_same_fit(
        PDA(random_state=1, max_iter=30).fit(*integers),
        PDA(random_state=1, max_iter=30).fit(*as_dask(*integers, rows_x=64, rows_y=64)),
    )


def test_dask_input_errors(client):
    X, Y, _ = planted_problem(n=40, m=30, d=5)
    dx, dy = as_dask(X, Y, rows_x=16, rows_y=16)
    with pytest.raises(ShapeMismatchError, match="X has 5 feature"):
        PDA().fit(dx, dy[:, :4])
    with pytest.raises(InputError, match="labels are not supported"):
        PDA().fit(dx, da.from_array(np.arange(40) % 2, chunks=10))
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(InputError, match="NaN or an infinite value"):
        PDA().fit(da.from_array(bad, chunks=16), dy)
    with pytest.raises(InputError, match="constant over X and Y"):
        PDA().fit(da.ones((20, 3), chunks=8), da.ones((20, 3), chunks=8))
    with pytest.raises(InputError, match="needs at least 2"):
        PDA().fit(dx[:1], dy)


@pytest.mark.slow
def test_sparda_on_dask_at_20000_by_20000_rows_equals_memory_and_finds_the_planted_features():
    """20,000 against 20,000 rows of 2,000 features, ten shifted by 0.25: about a minute of CPU per fit."""
    rng = np.random.default_rng(11)
    n, d = 20_000, 2_000
    planted = np.sort(rng.choice(d, size=10, replace=False))
    X = rng.standard_normal((n, d))
    Y = rng.standard_normal((n, d))
    Y[:, planted] += 0.25
    memory = PDA(sparsity="l1", n_features=10, random_state=0).fit(X, Y)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        dask = PDA(sparsity="l1", n_features=10, random_state=0).fit(
            da.from_array(X, chunks=(2_500, -1)), da.from_array(Y, chunks=(2_500, -1))
        )
    assert_same_fit(memory, dask)
    assert sorted(dask.selected_.tolist()) == planted.tolist()
