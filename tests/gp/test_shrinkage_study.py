"""The selective-shrinkage study of docs/gp.md (experiments/gp_shrinkage.py): its mechanics and its two findings."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp

from paucity.gp.marginals import get_marginal

gs = pytest.importorskip("experiments.gp_shrinkage")

pytestmark = pytest.mark.filterwarnings("ignore::paucity._errors.PaucityWarning")


def test_the_isolated_point_is_alone_under_the_kernel():
    X, y = gs.data()
    distances = np.abs(X[:, 0][:, None] - X[:, 0][None, :])
    alone = distances[2 * gs.N_DENSE, : 2 * gs.N_DENSE]
    assert np.exp(-0.5 * alone.min() ** 2) < 1e-40 and y[2 * gs.N_DENSE] == 0


@pytest.mark.parametrize("b", [0.5, 8.0])
def test_the_latent_mode_is_the_minimum_of_the_objective_found_independently(b):
    X, y = gs.data()
    model = gs.fit(X, y, "laplace", 1.0, b)
    n = len(X)
    K = np.exp(-0.5 * (X - X.T) ** 2) + 1e-9 * np.eye(n)
    L = np.linalg.cholesky(K)
    Y = np.eye(2)[y]
    H = get_marginal("laplace").quantile_of_gaussian

    def objective(v):  # whitened: z = L u, the prior term is |u|^2 / 2
        z = L @ v.reshape(2, n).T
        f = b * H(z)
        return -((Y * f).sum() - logsumexp(f, axis=1).sum()) + 0.5 * (v * v).sum()

    found = minimize(objective, np.zeros(2 * n), method="BFGS", options={"gtol": 1e-8})
    z = L @ found.x.reshape(2, n).T
    np.testing.assert_allclose(z, model.latent_mode_, atol=2e-3)


def test_on_the_same_kernel_heavy_tails_shrink_the_isolated_point_more_only_below_the_slope_threshold():
    X, y = gs.data()
    gpc = gs.excess(gs.fit(X, y, "gaussian", 1.0, 1.0))
    dense, isolated = gs.excess(gs.fit(X, y, "laplace", 1.0, 0.5))
    assert isolated / dense < 0.5 * gpc[1] / gpc[0]                 # 0.45 of GPC's share
    dense, isolated = gs.excess(gs.fit(X, y, "laplace", 1.0, 8.0))
    assert isolated / dense > 1.5 * gpc[1] / gpc[0]                 # 1.82


@pytest.mark.slow
def test_below_the_slope_threshold_heavy_tails_shrink_the_isolated_point_more_at_matched_confidence():
    X, y = gs.data()
    dense, isolated = gs.excess(gs.fit(X, y, "laplace", 1.0, 0.5))
    amplitude, m_dense, m_isolated = gs.matched_gpc(X, y, dense, steps=20)
    assert abs(m_dense - dense) < 1e-3
    assert isolated / dense < 0.5 * m_isolated / m_dense           # matched dense confidence: 0.44


@pytest.mark.slow
def test_above_it_they_shrink_it_less_than_gpc_at_matched_confidence():
    X, y = gs.data()
    dense, isolated = gs.excess(gs.fit(X, y, "laplace", 1.0, 8.0))
    amplitude, m_dense, m_isolated = gs.matched_gpc(X, y, dense, steps=20)
    assert isolated / dense > 1.3 * m_isolated / m_dense           # 1.46


def test_the_copula_map_shrinks_the_isolated_latent_in_f_space_at_every_b():
    X, y = gs.data()
    for b in (0.5, 8.0):
        z_dense, z_isolated, f_dense, f_isolated = gs.latent_gaps(gs.fit(X, y, "hypsecant", 1.0, b))
        assert f_isolated / f_dense < z_isolated / z_dense
