"""RankCentrality on a Dask sparse chain equals the in-memory fit."""

import numpy as np
import pytest

pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from paucity._errors import ParameterError  # noqa: E402
from paucity.datasets import btl_comparisons, btl_scores  # noqa: E402
from paucity.ranking import RankCentrality  # noqa: E402
from paucity.ranking.distributed import DaskComparisons  # noqa: E402
from paucity.ranking.distributed_chain import distributed_transition  # noqa: E402
from paucity.ranking.transitions import transition_matrix  # noqa: E402


@pytest.fixture(scope="module")
def league():
    strength = btl_scores(300, random_state=0)
    return btl_comparisons(strength, 2500, random_state=1)


@pytest.mark.parametrize("kind", ["nos", "ra", "sampling"])
@pytest.mark.parametrize("n_blocks", [1, 3, 7])
def test_distributed_chain_products_equal_the_in_memory_chain(league, kind, n_blocks):
    data = DaskComparisons.from_comparisons(league, chunks=600, n_blocks=n_blocks)
    chain = distributed_transition(data, kind)
    local = transition_matrix(league, kind)
    assert chain.scale == local.scale
    np.testing.assert_allclose(chain.out_rates, local.out_rates, rtol=1e-14)
    x = np.random.default_rng(2).random(league.n_items)
    np.testing.assert_allclose(chain.left_multiply(x), local.left_multiply(x), rtol=1e-13, atol=1e-16)


def test_weighted_comparisons_build_the_same_chain(league):
    weights = np.random.default_rng(3).integers(1, 4, league.n_comparisons)
    weighted = league.subset(np.arange(league.n_comparisons))
    from paucity.ranking import Comparisons

    weighted = Comparisons(league.i, league.j, league.y, weights=weights, items=league.items)
    chain = distributed_transition(DaskComparisons.from_comparisons(weighted, chunks=700, n_blocks=4), "sampling")
    local = transition_matrix(weighted, "sampling")
    x = np.linspace(0.0, 1.0, league.n_items)
    np.testing.assert_allclose(chain.left_multiply(x), local.left_multiply(x), rtol=1e-13)


@pytest.mark.parametrize("solver", ["linear", "arpack"])
def test_regularized_rank_centrality_on_dask_equals_in_memory(league, solver):
    expected = RankCentrality(regularization="uniform", lam=0.01, solver=solver).fit(league)
    data = DaskComparisons.from_comparisons(league, chunks=500, n_blocks=3)
    model = RankCentrality(regularization="uniform", lam=0.01, solver=solver).fit(data)
    np.testing.assert_allclose(model.scores_.to_numpy(), expected.scores_.to_numpy(), rtol=1e-9)
    assert list(model.ranking_) == list(expected.ranking_)


def test_power_iteration_on_dask_converges_with_strong_regularization(league):
    data = DaskComparisons.from_comparisons(league, chunks=1000, n_blocks=2)
    model = RankCentrality(regularization="uniform", lam=0.5, transition="ra", solver="power", tol=1e-10).fit(data)
    expected = RankCentrality(regularization="uniform", lam=0.5, transition="ra").fit(league)
    np.testing.assert_allclose(model.scores_.to_numpy(), expected.scores_.to_numpy(), rtol=1e-7)


@pytest.mark.slow  # 8 to 37 s: run by make test-slow, to keep make test near ten minutes
def test_on_a_local_cluster(league):
    """Slow on purpose (about 6 s): starting a real two-process LocalCluster is most of it."""
    expected = RankCentrality(regularization="uniform").fit(league).scores_.to_numpy()
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        data = DaskComparisons.from_comparisons(league, chunks=400, n_blocks=4)
        model = RankCentrality(regularization="uniform").fit(data)
    np.testing.assert_allclose(model.scores_.to_numpy(), expected, rtol=1e-9)


def test_unregularized_and_similarity_are_refused_on_dask(league):
    data = DaskComparisons.from_comparisons(league, chunks=1000)
    with pytest.raises(ParameterError, match="regularization='uniform'"):
        RankCentrality().fit(data)
    with pytest.raises(ParameterError, match="regularization='uniform'"):
        RankCentrality(regularization="similarity").fit(data)
