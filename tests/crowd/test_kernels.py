"""The compiled Z sweep and log Phi against plain references."""

import math

import numpy as np
import pytest
from scipy.special import log_ndtr as scipy_log_ndtr

from paucity.crowd._kernels import log_ndtr, sample_assignments, swap_moves
from paucity.crowd.gibbs import prepare

from . import reference


@pytest.mark.parametrize("x", [-1000.0, -80.0, -38.5, -20.0001, -20.0, -19.99, -7.0, -1.0, 0.0, 0.5, 5.0, 9.0, 40.0])
def test_log_ndtr_matches_scipy_in_both_tails(x):
    assert log_ndtr(x) == pytest.approx(scipy_log_ndtr(x), rel=1e-12, abs=1e-300)


def test_log_ndtr_is_continuous_where_the_formula_switches():
    below, above = log_ndtr(-20.0 - 1e-9), log_ndtr(-20.0 + 1e-9)
    assert math.isclose(below, above, rel_tol=1e-9)


@pytest.mark.parametrize("own_column", [-1, 2])
@pytest.mark.parametrize("seed", range(4))
def test_assignment_sweep_matches_the_entry_by_entry_reference(seed, own_column):
    rng = np.random.default_rng(seed)
    n, m, d, K = 15, 6, 3, 3
    X = rng.normal(size=(n, d))
    task = rng.integers(0, n, size=40)
    labeler = rng.integers(0, m - 1, size=40)  # the last labeler has no labels
    sign = rng.choice([-1.0, 1.0], size=40)
    data = prepare(X, task, labeler, sign, m)
    gamma = rng.normal(size=(K, d))
    projections = np.ascontiguousarray(X @ gamma.T)
    Z = (rng.random((m, K)) < 0.5).astype(float)
    uniforms = rng.random((m, K))
    alpha = 1.3
    expected = reference.sample_assignments(Z, projections, data.task, data.sign, data.pointer, alpha / K, uniforms,
                                            own_column)
    got = Z.copy()
    sample_assignments(got, projections, data.task, data.sign, data.pointer, math.log(alpha / K), uniforms,
                       np.empty((3, data.task.size)), own_column)
    np.testing.assert_array_equal(got, expected)
    if own_column >= 0:  # the researcher's own column is never drawn
        np.testing.assert_array_equal(got[:, own_column], Z[:, own_column])


def test_chords_lie_below_log_phi_by_at_most_the_stated_gap():
    from paucity.crowd._kernels import CHORD_GAP, CHORD_HIGH, CHORD_LOW, CHORD_STEP, chord_log_ndtr, chord_table

    # on an interval of width h a chord of a concave f with -1 < f'' < 0 lies below f by at most h^2 / 8
    assert CHORD_GAP == pytest.approx(CHORD_STEP**2 / 8, rel=1e-5)
    table = chord_table()
    x = np.concatenate([np.linspace(CHORD_LOW - 5, CHORD_HIGH + 30, 200_001),
                        np.arange(CHORD_LOW, CHORD_HIGH + CHORD_STEP, CHORD_STEP),  # the knots themselves
                        CHORD_LOW + (np.arange(0.5, (CHORD_HIGH - CHORD_LOW) / CHORD_STEP)) * CHORD_STEP,  # midpoints
                        [np.nextafter(CHORD_HIGH, -np.inf), np.nextafter(CHORD_LOW, -np.inf), -1e3]])
    chords = np.array([chord_log_ndtr(value, table) for value in x])
    # against the log Phi whose exact ratios the draws use, and against scipy's
    for exact in (np.array([log_ndtr(value) for value in x]), scipy_log_ndtr(x)):
        below = exact - chords
        assert below.min() >= -1e-9 and below.max() <= CHORD_GAP
    # the bound is nearly reached where log Phi bends most (|f''| near 1, far in the lower tail), at midpoints
    middle = CHORD_LOW + 0.5 * CHORD_STEP
    assert scipy_log_ndtr(middle) - chord_log_ndtr(middle, table) == pytest.approx(CHORD_STEP**2 / 8, rel=0.01)


@pytest.mark.parametrize("seed", range(3))
def test_assignment_sweep_settles_entries_near_their_coin_exactly(seed):
    """Every uniform within 1e-7 of its entry's probability: the chords cannot settle the entry, the exact log
    likelihood ratio must; labelers with hundreds of labels, as in a real crowd."""
    rng = np.random.default_rng(seed)
    n, m, d, K = 300, 8, 3, 4
    X = rng.normal(size=(n, d))
    task = rng.integers(0, n, size=2400)
    labeler = rng.integers(0, m, size=2400)
    sign = rng.choice([-1.0, 1.0], size=2400)
    data = prepare(X, task, labeler, sign, m)
    gamma = 0.03 * rng.normal(size=(K, d))  # weak factors: probabilities away from 0 and 1
    projections = np.ascontiguousarray(X @ gamma.T)
    Z = (rng.random((m, K)) < 0.5).astype(float)
    uniforms = np.empty((m, K))
    sides = iter(rng.choice([-1.0, 1.0], size=m * K))
    expected = reference.sample_assignments(Z, projections, data.task, data.sign, data.pointer, 0.5, uniforms,
                                            near=lambda p: p * (1.0 + 1e-7 * next(sides)))
    got = Z.copy()
    exact = sample_assignments(got, projections, data.task, data.sign, data.pointer, math.log(0.5), uniforms,
                               np.empty((3, data.task.size)))
    np.testing.assert_array_equal(got, expected)
    assert exact == m * K
    assert not np.array_equal(expected, Z)  # some entries flipped on the way


def test_assignment_sweep_settles_most_entries_of_a_clear_crowd_by_its_chords():
    rng = np.random.default_rng(5)
    n, m, d, K = 500, 30, 3, 4
    X = rng.normal(size=(n, d))
    gamma = 0.5 * rng.normal(size=(K, d))
    Z = (rng.random((m, K)) < 0.5).astype(float)
    task = rng.integers(0, n, size=6000)
    labeler = rng.integers(0, m, size=6000)
    sign = np.where(np.einsum("jd,jd->j", X[task], Z[labeler] @ gamma) + rng.normal(size=6000) > 0, 1.0, -1.0)
    data = prepare(X, task, labeler, sign, m)
    projections = np.ascontiguousarray(X @ gamma.T)
    uniforms = rng.random((m, K))
    expected = reference.sample_assignments(Z, projections, data.task, data.sign, data.pointer, 0.5, uniforms)
    got = Z.copy()
    exact = sample_assignments(got, projections, data.task, data.sign, data.pointer, math.log(0.5), uniforms,
                               np.empty((3, data.task.size)))
    np.testing.assert_array_equal(got, expected)
    assert exact < m * K // 10


def _swap_problem(seed, scale, silent=1):
    rng = np.random.default_rng(seed)
    n, m, d, K = 200, 10, 3, 4
    X = rng.normal(size=(n, d))
    task = rng.integers(0, n, size=1500)
    labeler = rng.integers(0, m - silent, size=1500)  # the last ``silent`` labelers have no labels
    sign = rng.choice([-1.0, 1.0], size=1500)
    data = prepare(X, task, labeler, sign, m)
    projections = np.ascontiguousarray(X @ (scale * rng.normal(size=(K, d))).T)
    Z = (rng.random((m, K)) < 0.5).astype(float)
    Z[0] = 1.0  # one labeler holds every factor: no pair to swap
    return data, projections, Z, rng


@pytest.mark.parametrize("own_column", [-1, 1])
@pytest.mark.parametrize("seed", range(4))
def test_swap_moves_match_the_reference(seed, own_column):
    data, projections, Z, rng = _swap_problem(seed, scale=0.1)
    uniforms = rng.random((Z.shape[0], 6))
    expected = reference.swap_moves(Z, projections, data.task, data.sign, data.pointer, 0.7, uniforms, own_column)
    got = Z.copy()
    swap_moves(got, projections, data.task, data.sign, data.pointer, math.log(0.7), uniforms,
               np.empty((3, data.task.size)), own_column)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got.sum(axis=1), Z.sum(axis=1))  # a swap keeps how many factors she holds
    if own_column >= 0:
        np.testing.assert_array_equal(got[:, own_column], Z[:, own_column])
    assert not np.array_equal(got, Z)


@pytest.mark.parametrize("seed", range(3))
def test_swap_moves_settle_pairs_near_their_coin_exactly(seed):
    data, projections, Z, rng = _swap_problem(seed, scale=0.03, silent=0)
    uniforms = np.full((Z.shape[0], 6), 0.5)
    sides = iter(rng.choice([-1.0, 1.0], size=uniforms.size))
    drawn = []
    expected = reference.swap_moves(Z, projections, data.task, data.sign, data.pointer, 0.5, uniforms,
                                    near=lambda p: drawn.append(p) or p * (1.0 + 1e-7 * next(sides)))
    got = Z.copy()
    exact = swap_moves(got, projections, data.task, data.sign, data.pointer, math.log(0.5), uniforms,
                       np.empty((3, data.task.size)))
    np.testing.assert_array_equal(got, expected)
    assert exact == len(drawn) > 10  # every pair drawn needed its exact ratio


def test_truncated_means_match_scipy_in_both_tails():
    from scipy.stats import truncnorm

    from paucity.crowd._kernels import _truncated_means

    for mean in [-30.0, -8.0, -5.0, -4.999, -1.0, 0.0, 0.3, 4.999, 5.0, 8.0, 30.0]:
        low, high = _truncated_means(mean)
        assert low == pytest.approx(truncnorm.mean(-np.inf, -mean, loc=mean), rel=1e-9, abs=1e-9)
        assert high == pytest.approx(truncnorm.mean(-mean, np.inf, loc=mean), rel=1e-9, abs=1e-9)


def test_inverse_normal_cdf_from_log_matches_scipy_and_inverts_log_phi():
    from scipy.special import ndtri_exp

    from paucity.crowd._kernels import ndtri_log

    central = np.log(np.linspace(1e-9, 1 - 1e-12, 4001))
    tails = -np.logspace(-12, 2.8, 2001)  # down to log p = -630
    for log_p in np.concatenate([central, tails]):
        assert ndtri_log(log_p) == pytest.approx(ndtri_exp(log_p), rel=2e-15, abs=1e-300)
    # below -700 (p underflows): log Phi of the answer gives log p back
    for log_p in [-700.5, -1e3, -1e4, -1e5]:
        assert scipy_log_ndtr(ndtri_log(log_p)) == pytest.approx(log_p, rel=1e-14)
    assert ndtri_log(0.0) == math.inf and ndtri_log(math.log(0.5)) == pytest.approx(0.0, abs=1e-15)


def test_truncated_normal_matches_the_log_space_reference_on_both_paths():
    from paucity.crowd._kernels import truncated_normal

    # mu > -2 and u Phi(mu) in (0.075, 0.925) take the linear path, the rest the log path
    mu = np.array([-40.0, -5.0, -2.0001, -2.0, -1.0, 0.0, 0.3, 1.0, 2.5, 5.0, 9.0, 40.0])
    u = np.array([1e-300, 1e-12, 1e-3, 0.05, 0.075, 0.08, 0.3, 0.5, 0.7, 0.92, 0.93, 0.999, 1 - 1e-12])
    grid_mu, grid_u = np.meshgrid(mu, u)
    want = reference.truncated_normal(grid_mu.ravel(), grid_u.ravel())
    got = np.array([truncated_normal(a, b) for a, b in zip(grid_mu.ravel(), grid_u.ravel())])
    assert np.all(np.abs(got - want) <= 1e-13 * (1.0 + np.abs(grid_mu.ravel())))


@pytest.mark.parametrize("seed", range(3))
def test_latent_sweep_matches_the_label_by_label_reference(seed):
    from paucity.crowd._kernels import sample_latent

    rng = np.random.default_rng(seed)
    n, m, d = 30, 5, 3
    X = rng.normal(size=(n, d))
    task = rng.integers(0, n, size=80)
    labeler = rng.integers(0, m, size=80)
    sign = rng.choice([-1.0, 1.0], size=80)
    data = prepare(X, task, labeler, sign, m)
    beta = rng.normal(scale=[[1.0], [5.0], [30.0], [0.1], [60.0]], size=(m, d))  # far tails too
    uniforms = rng.random(80)
    t, h = np.empty(80), np.empty((m, d))
    sample_latent(data.features, data.labeler, data.sign, beta, uniforms, t, h)
    want_t, want_h = reference.sample_latent(data.features, data.labeler, data.sign, beta, uniforms)
    # t = mu - w loses the digits mu and w share far in a tail: the error is relative to |mu|, not to t
    mean = np.abs(np.einsum("nd,nd->n", data.features, beta[data.labeler]))
    assert np.all(np.abs(t - want_t) <= 1e-12 * (1.0 + mean))
    np.testing.assert_allclose(h, want_h, rtol=1e-9, atol=1e-9)
    assert np.all(t * data.sign >= 0)


@pytest.mark.parametrize("own_column", [-1, 1])
@pytest.mark.parametrize("seed", range(4))
def test_whole_row_draws_match_the_enumerating_reference(seed, own_column):
    from paucity.crowd._kernels import sample_rows

    rng = np.random.default_rng(seed)
    n, m, d, K = 12, 5, 2, 3
    X = rng.normal(size=(n, d))
    task = rng.integers(0, n, size=45)
    labeler = rng.integers(0, m - 1, size=45)  # the last labeler has no labels: its row follows the prior
    sign = rng.choice([-1.0, 1.0], size=45)
    data = prepare(X, task, labeler, sign, m)
    projections = np.ascontiguousarray(X @ rng.normal(size=(K, d)).T)
    alpha = 0.7
    for trial in range(20):
        Z = (rng.random((m, K)) < 0.5).astype(float)
        rows = rng.permutation(m)[:3].astype(np.int64)
        uniforms = rng.random(3)
        expected = reference.sample_rows(Z, projections, data.task, data.sign, data.pointer, rows, alpha / K,
                                         uniforms, own_column)
        got = Z.copy()
        sample_rows(got, projections, data.task, data.sign, data.pointer, rows, math.log(alpha / K), uniforms,
                    np.empty(1 << K), own_column)
        np.testing.assert_array_equal(got, expected)
        if own_column >= 0:
            assert np.all(got[rows, own_column] == 1.0)


@pytest.mark.parametrize("seed", range(6))
def test_nesting_moves_match_the_whole_prior_reference_and_keep_every_labelers_weights(seed):
    from paucity.crowd._kernels import nesting_moves

    rng = np.random.default_rng(seed)
    accepted = 0
    for trial in range(200):
        m, K, d = int(rng.integers(1, 7)), int(rng.integers(2, 5)), int(rng.integers(1, 4))
        # sparse, nested and disjoint columns all occur
        Z = (rng.random((m, K)) < rng.choice([0.2, 0.5, 0.9])).astype(float)
        gamma = rng.normal(scale=rng.choice([0.3, 1.0, 3.0]), size=(K, d))
        alpha, sigma = float(rng.choice([0.5, 1.0, 4.0])), float(rng.choice([0.5, 1.0, 2.0]))
        uniforms = rng.random(K * (K - 1))
        expected_Z, expected_gamma = reference.nesting_moves(Z, gamma, alpha / K, sigma, uniforms)
        got_Z, got_gamma = Z.copy(), gamma.copy()
        n = nesting_moves(got_Z, got_gamma, math.log(alpha / K), 1.0 / sigma**2, uniforms)
        np.testing.assert_array_equal(got_Z, expected_Z)
        np.testing.assert_allclose(got_gamma, expected_gamma, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got_Z @ got_gamma, Z @ gamma, atol=1e-12)
        accepted += n
    assert accepted > 50  # the moves do act


def test_a_nesting_move_is_accepted_as_often_as_the_prior_ratio_says():
    from paucity.crowd._kernels import nesting_moves

    # Two of m = 3 labelers hold factors 0 and 1 (1 nested in 0): the move drops 0 from them and gamma_1 takes
    # gamma_0 in. With alpha / K = 0.5 (alpha = 1, K = 2) column 0 goes from 2 holders to none, so the
    # beta-Bernoulli factor changes by Gamma(0.5) Gamma(4) / (Gamma(2.5) Gamma(2)) = sqrt(pi) 6 / (0.75 sqrt(pi))
    # = 8, and gamma_1 = (1, 0) becomes (3, 0): N(0, I)'s density changes by exp(-(9 - 1) / 2) = exp(-4).
    Z = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    gamma = np.array([[2.0, 0.0], [1.0, 0.0]])
    expected = 8.0 * math.exp(-4.0)
    # Pair (0, 1) comes first. After the move no one holds 0, so pair (1, 0) has nothing to move; without it,
    # pair (1, 0) would drop 1 from both (8 exp(-(9 - 4) / 2) = 0.657), refused at a uniform of 0.99.
    for u, moved in ((expected - 1e-9, True), (expected + 1e-9, False)):
        got_Z, got_gamma = Z.copy(), gamma.copy()
        accepted = nesting_moves(got_Z, got_gamma, math.log(0.5), 1.0, np.array([u, 0.99]))
        assert accepted == int(moved)
        if moved:
            np.testing.assert_array_equal(got_Z, [[0.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
            np.testing.assert_allclose(got_gamma, [[2.0, 0.0], [3.0, 0.0]])
        else:
            np.testing.assert_array_equal(got_Z, Z)
            np.testing.assert_array_equal(got_gamma, gamma)
