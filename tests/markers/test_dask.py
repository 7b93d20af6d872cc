"""Marker selection on Dask arrays equals the in-memory run exactly."""

import numpy as np
import pytest
import scipy.sparse as sp

from paucity._errors import InputError, ParameterError
from paucity.datasets import make_scrna_counts
from paucity.markers import InfoSelector, get

da = pytest.importorskip("dask.array")


@pytest.fixture(scope="module")
def counts():
    data = make_scrna_counts(2400, 200, n_types=4, n_markers=40, random_state=3)
    return data.X, data.labels


@pytest.mark.parametrize(
    "method, mode, chunks",
    [("cife", "multiclass", 500), ("jmi", "binary", 700), ("mim", "multiclass", 2400), ("mrmr", "multiclass", 333)],
)
def test_local_scheduler_equals_in_memory(counts, method, mode, chunks):
    X, y = counts
    expected = InfoSelector(method=method, n_features=8, mode=mode).fit(X, y)
    got = InfoSelector(method=method, n_features=8, mode=mode).fit(da.from_array(X, chunks=(chunks, 100), asarray=False), y)
    np.testing.assert_array_equal(got.selected_, expected.selected_)
    np.testing.assert_array_equal(got.selection_scores_, expected.selection_scores_)
    np.testing.assert_array_equal(got.scores_, expected.scores_)


def test_dense_chunks_log_normalized_values_and_unsupervised(counts):
    X, _ = counts
    dense = np.log1p(X.toarray() / X.sum(axis=1).A * 1e4)  # continuous values: exact merging of distinct values
    expected = InfoSelector(method="entropy2", n_features=6).fit(dense)
    got = InfoSelector(method="entropy2", n_features=6).fit(da.from_array(dense, chunks=(400, 200)))
    np.testing.assert_array_equal(got.selected_, expected.selected_)
    np.testing.assert_array_equal(got.selection_scores_, expected.selection_scores_)
    np.testing.assert_array_equal(got.scores_, expected.scores_)


def test_prebinned_dask_input(counts):
    from paucity.info import discretize

    X, y = counts
    binned = discretize(X, 5).tocsr()
    expected = InfoSelector(method="cife", n_features=5, n_bins=None).fit(binned, y)
    got = InfoSelector(method="cife", n_features=5, n_bins=None).fit(da.from_array(binned, chunks=(600, 200), asarray=False), y)
    np.testing.assert_array_equal(got.selected_, expected.selected_)


def test_dask_errors(counts):
    X, y = counts
    dX = da.from_array(X, chunks=(600, 200), asarray=False)
    with pytest.raises(ParameterError, match="three or more features"):
        InfoSelector(method="degree", degree=3, n_features=3).fit(dX, y)
    labels = y.astype(float)
    labels[5] = np.nan
    with pytest.warns(Warning), pytest.raises(InputError, match="drop those cells"):
        InfoSelector(n_features=3).fit(dX, labels)
    negative = da.from_array(sp.csr_matrix(-X), chunks=(600, 200), asarray=False)
    with pytest.raises(InputError, match="Negative values"):
        InfoSelector(n_features=3).fit(negative, y)
    with pytest.raises(InputError, match="pre-discretized"):
        InfoSelector(n_features=3, n_bins=None).fit(dX * 100, y)


def test_two_worker_cluster_equals_in_memory_and_survives_a_lost_worker(counts):
    """Slow on purpose (about 8 s): a real two-process LocalCluster, and a worker killed mid-run."""
    distributed = pytest.importorskip("distributed")
    from paucity.info.distributed import DistributedBins
    from paucity.markers.greedy import select_features
    from paucity.markers.objectives import make_objective

    X, y = counts
    dX = da.from_array(X, chunks=(600, 200), asarray=False)
    expected = InfoSelector(method="cife", n_features=8).fit(X, y)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        got = InfoSelector(method="cife", n_features=8).fit(dX, y)
        np.testing.assert_array_equal(got.selected_, expected.selected_)
        np.testing.assert_array_equal(got.selection_scores_, expected.selection_scores_)
        np.testing.assert_array_equal(got.scores_, expected.scores_)
        # lose a worker, and the blocks it held, in the middle of the greedy steps
        from paucity.info import distributed as distributed_path

        original = distributed_path.DistributedLabelling.entropies
        calls = []

        def losing_a_worker(self, feature, columns):
            calls.append(feature)
            if len(calls) == 3:
                client.sync(list(cluster.workers.values())[0].close)
            return original(self, feature, columns)

        distributed_path.DistributedLabelling.entropies = losing_a_worker
        try:
            bins = DistributedBins(dX, 5)
            selection = select_features(bins, make_objective("cife"), y.astype(np.int64), n_features=8)
        finally:
            distributed_path.DistributedLabelling.entropies = original
        assert len(calls) == 8 and len(client.scheduler_info()["workers"]) == 1
        np.testing.assert_array_equal(selection.selected, expected.selected_)
        np.testing.assert_array_equal(selection.scores, expected.selection_scores_)


def test_select_on_anndata_backed_by_dask(counts):
    import anndata
    import pandas as pd

    from paucity.markers import select

    X, y = counts
    obs = pd.DataFrame({"cell_type": pd.Categorical(y.astype(str))}, index=[f"c{i}" for i in range(X.shape[0])])
    lazy = anndata.AnnData(da.from_array(X, chunks=(800, 200), asarray=False), obs=obs)
    eager = anndata.AnnData(X, obs=obs.copy())
    select(lazy, "cell_type", n_features=6)
    select(eager, "cell_type", n_features=6)
    assert get(lazy)["names"].tolist() == get(eager)["names"].tolist()
    np.testing.assert_array_equal(lazy.var["paucity_markers_score"], eager.var["paucity_markers_score"])


def test_select_on_a_backed_h5ad_reads_blocks_with_the_in_memory_result(counts, tmp_path):
    import anndata
    import pandas as pd

    from paucity.markers import select

    X, y = counts
    obs = pd.DataFrame({"cell_type": pd.Categorical(y.astype(str))}, index=[f"c{i}" for i in range(X.shape[0])])
    anndata.AnnData(X, obs=obs).write_h5ad(tmp_path / "cells.h5ad")
    backed = anndata.read_h5ad(tmp_path / "cells.h5ad", backed="r")
    eager = anndata.read_h5ad(tmp_path / "cells.h5ad")
    select(backed, "cell_type", method="jmi", n_features=6)
    select(eager, "cell_type", method="jmi", n_features=6)
    got, expected = get(backed), get(eager)
    assert got["names"].tolist() == expected["names"].tolist()
    np.testing.assert_array_equal(got["selection_scores"], expected["selection_scores"])
    np.testing.assert_array_equal(got["scores"], expected["scores"])


def test_constant_features_are_named_on_dask_too(counts):
    from paucity._errors import PaucityWarning

    X, y = counts
    X = X.tolil()
    X[:, 4] = 0
    X[:, 9] = 3.0
    X = X.tocsr()
    dX = da.from_array(X, chunks=(600, 200), asarray=False)
    with pytest.warns(PaucityWarning, match=r"2 of 200 features are constant after binning \(x4, x9\)"):
        got = InfoSelector(n_features=4).fit(dX, y)
    with pytest.warns(PaucityWarning, match=r"\(x4, x9\)"):
        expected = InfoSelector(n_features=4).fit(X, y)
    np.testing.assert_array_equal(got.selected_, expected.selected_)
