"""BRE and URE on Dask (seed 003, §5.6): block-pair partial scores equal the in-memory scores exactly."""

import numpy as np
import pytest

from paucity._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from paucity.ranking import BRE, URE, Comparisons
from paucity.ranking.distributed import DaskComparisons, _route_chunk, block_bounds  # imports Dask only when used

da = pytest.importorskip("dask.array")


def integer_comparisons(n=40, m=1500, weighted=True, seed=0):
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    labels = np.array([f"item{k:02d}" for k in range(n)], dtype=object)
    weights = rng.integers(0, 5, m).astype(float) if weighted else None
    return Comparisons(labels[i], labels[j], rng.integers(0, 2, m), weights, items=labels)


def assert_same_fit(got, expected):
    assert list(got.items_) == list(expected.items_)
    for name in ("scores_", "wins_", "losses_"):
        assert getattr(got, name).to_numpy().tobytes() == getattr(expected, name).to_numpy().tobytes()
    assert list(got.ranking_) == list(expected.ranking_)
    assert (got.n_comparisons_, got.total_weight_, got.m_) == (expected.n_comparisons_, expected.total_weight_, expected.m_)


@pytest.mark.parametrize("n_blocks", [1, 3, 7])
@pytest.mark.parametrize("chunks", [97, 500])
@pytest.mark.parametrize("weighted", [True, False])
def test_local_scheduler_equals_single_machine(n_blocks, chunks, weighted):
    comparisons = integer_comparisons(weighted=weighted)
    data = DaskComparisons.from_comparisons(comparisons, chunks=chunks, n_blocks=n_blocks)
    for method in (BRE, URE):
        assert_same_fit(method(random_state=0).fit(data), method(random_state=0).fit(comparisons))


def test_chunks_send_counts_or_comparisons_whichever_is_smaller():
    n, bounds = 40, block_bounds(40, 3)
    rng = np.random.default_rng(1)
    for m, kind in ((2000, "counts"), (12, "comparisons")):
        i = rng.integers(0, n, m)
        j = (i + rng.integers(1, n, m)) % n
        *pieces, totals = _route_chunk(i, j, rng.integers(0, 2, m), None, 0, n, bounds)
        assert len(pieces) == 6 and totals == (float(m), m)
        assert {p[0] for p in pieces if p is not None} == {kind}


def test_blocks_follow_positions():
    n, K = 10, 3
    bounds = block_bounds(n, K)
    blocks = np.repeat(np.arange(K), np.diff(bounds))
    assert blocks.tolist() == (np.arange(n) * K // n).tolist()
    assert block_bounds(7, 7).tolist() == list(range(8))


def test_two_worker_cluster_equals_single_machine_and_reports_bad_chunks():
    """Slow on purpose (about 4 s): a real two-process LocalCluster, so pickling and scheduling are tested."""
    distributed = pytest.importorskip("distributed")
    comparisons = integer_comparisons(n=60, m=2000, seed=3)
    data = DaskComparisons.from_comparisons(comparisons, chunks=300, n_blocks=3)
    i = np.asarray(comparisons.i).copy()
    j = np.asarray(comparisons.j).copy()
    j[1234] = i[1234]  # a self-comparison in the fifth chunk
    bad = DaskComparisons.from_arrays(i, j, comparisons.y, items=comparisons.items, chunks=300, n_blocks=3)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        for method in (BRE, URE):
            assert_same_fit(method(random_state=1).fit(data), method(random_state=1).fit(comparisons))
        label = comparisons.items[i[1234]]
        with pytest.raises(InputError, match=f"comparison 1234 compares item '{label}' with itself"):
            BRE().fit(bad)


@pytest.mark.parametrize(
    "column, index, value, message",
    [
        ("y", 650, 2, "y must be 0 .i preferred. or 1 .j preferred.; comparison 650 has y = 2"),
        ("i", 333, 40, "i holds position 40 at comparison 333, outside 0..39"),
        ("j", 999, -1, "j holds position -1 at comparison 999"),
        ("self", 410, None, "comparison 410 compares item 'item.*' with itself"),
        ("weights", 5, -1.0, "weights must be non-negative; comparison 5 has weight -1.0"),
        ("weights", 1499, np.nan, "weights has a non-finite value at comparison 1499"),
    ],
)
def test_one_bad_chunk_raises_the_input_error_at_compute_time(column, index, value, message):
    c = integer_comparisons()
    arrays = {"i": np.asarray(c.i).copy(), "j": np.asarray(c.j).copy(), "y": np.asarray(c.y).copy(),
              "weights": np.asarray(c.weights).copy()}
    if column == "self":
        arrays["j"][index] = arrays["i"][index]
    else:
        arrays[column] = arrays[column].astype(float if column == "weights" else np.int64)
        arrays[column][index] = value
    data = DaskComparisons.from_arrays(**arrays, items=c.items, chunks=200, n_blocks=3)  # nothing computed yet
    with pytest.raises(InputError, match=message):
        URE().fit(data)


def test_partial_fit_mixes_in_memory_and_dask_batches():
    comparisons = integer_comparisons(seed=5)
    first, second = comparisons.subset(np.arange(700)), comparisons.subset(np.arange(700, 1500))
    model = BRE(random_state=0).partial_fit(first).partial_fit(DaskComparisons.from_comparisons(second, chunks=250))
    assert_same_fit(model, BRE(random_state=0).fit(comparisons))


def test_construction_errors_and_views():
    positions = np.array([0, 1, 2])
    with pytest.raises(InputTypeError, match="integer positions"):
        DaskComparisons.from_arrays(positions.astype(float), positions, [0, 1, 0], items=4)
    with pytest.raises(ShapeMismatchError, match="y has 2 entries but i has 3"):
        DaskComparisons.from_arrays(positions, positions, [0, 1], items=4)
    with pytest.raises(ParameterError, match="n_blocks=5 is larger than the number of items"):
        DaskComparisons.from_arrays(positions, positions, [0, 1, 0], items=4, n_blocks=5)
    with pytest.raises(InputError, match="duplicate label 'a'"):
        DaskComparisons.from_arrays(positions, positions, [0, 1, 0], items=["a", "b", "a"])
    with pytest.raises(InputError, match="at least two"):
        DaskComparisons.from_arrays([0], [0], [0], items=1)
    with pytest.raises(InputError, match="must not be given"):
        BRE().fit(DaskComparisons.from_arrays([0], [1], [1], items=2), [1])
    data = DaskComparisons(da.from_array(positions, chunks=2), da.from_array([1, 2, 0], chunks=1), [1, 0, 1], items=3)
    assert data.y.chunks == data.i.chunks == ((2, 1),)
    assert (data.n_items, data.n_comparisons, data.n_blocks, len(data)) == (3, 3, 3, 3)
    assert repr(data) == "DaskComparisons(3 comparisons of 3 items in 2 chunks, 3 blocks)"
