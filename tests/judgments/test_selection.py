"""Algorithm 1's estimates, objectives and greedy runs against hand-derived values and brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity.judgments import (
    estimate_moments,
    forward_selection,
    full_objective,
    greedy_full,
    greedy_scoring,
    make_psd,
    scoring_objective,
)
from paucity.judgments.selection import _full_gains


# -- estimates ------------------------------------------------------------------------------------
def test_moments_by_hand():
    # three objects, two attributes, two judgments each
    judgments = np.array([
        [[1.0, 3.0], [0.0, 0.0]],
        [[2.0, 2.0], [1.0, 0.0]],
        [[6.0, 4.0], [1.0, 1.0]],
    ])  # object × attribute × judgment
    labels = np.array([1.0, 2.0, 6.0])
    means = judgments.mean(axis=2)  # [[2, 0], [2, .5], [5, 1]]
    variances = judgments.var(axis=2, ddof=1)  # [[2, 0], [0, .5], [2, 0]]
    moments = estimate_moments(means, variances, np.full((3, 2), 2), labels)
    # centred means: a0 [-1, -1, 2], a1 [-.5, 0, .5]; centred labels [-2, -1, 3]
    np.testing.assert_allclose(moments.correlation, [(2 + 1 + 6) / 3, (1 + 0 + 1.5) / 3])
    np.testing.assert_allclose(moments.internal_variance, [4 / 3, 0.5 / 3])
    np.testing.assert_allclose(moments.second_moment, [[2.0, 0.5], [0.5, 0.5 / 3]])
    np.testing.assert_allclose(moments.external_variance(), [2 - 2 / 3, 0.5 / 3 - 0.5 / 6])
    assert moments.label_second_moment == pytest.approx(14 / 3)
    assert moments.label_mean == 3.0 and moments.inverse_counts.tolist() == [0.5, 0.5]


def test_external_variance_is_rounded_up_to_zero():
    moments = estimate_moments(np.array([[0.0], [0.2]]), np.array([[4.0], [4.0]]), np.full((2, 1), 2),
                               np.array([0.0, 1.0]))
    assert moments.external_variance().tolist() == [0.0]  # 0.01 − 4/2 < 0
    assert np.all(np.linalg.eigvalsh(moments.external_covariance()) >= -1e-15)


def test_varying_judgment_counts_use_the_mean_inverse_count():
    moments = estimate_moments(np.array([[0.0], [2.0]]), np.array([[1.0], [1.0]]), np.array([[2], [4]]),
                               np.array([0.0, 1.0]))
    assert moments.inverse_counts.tolist() == [0.375]
    assert moments.external_variance()[0] == pytest.approx(1.0 - 0.375)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6))
def test_make_psd_is_the_nearest_psd_matrix(seed, d):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d))
    A = A + A.T
    P = make_psd(A)
    assert np.linalg.eigvalsh(P).min() >= -1e-10
    for _ in range(20):  # no PSD matrix is nearer
        L = rng.normal(size=(d, d))
        Q = L @ L.T * rng.uniform(0, 1)
        assert np.linalg.norm(A - P) <= np.linalg.norm(A - Q) + 1e-9


# -- objectives -----------------------------------------------------------------------------------
def test_scoring_objective_by_hand_and_zero_over_zero():
    b, sigma2, v = np.array([1.0, 2.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([2.0, 4.0, 0.0])
    assert scoring_objective([1, 2, 3], b, sigma2, v) == pytest.approx(1 / 3 + 4 / 2 + 0.0)
    assert scoring_objective([0, 0, 0], b, sigma2, v) == 0.0


def test_full_objective_with_a_diagonal_covariance_is_the_scoring_objective():
    rng = np.random.default_rng(3)
    b, sigma2, v = rng.normal(size=5), rng.uniform(0, 2, 5), rng.uniform(0.1, 2, 5)
    for repeats in ([1, 0, 2, 0, 5], [3, 3, 3, 3, 3], [0, 0, 0, 0, 1]):
        assert full_objective(repeats, b, np.diag(sigma2), v) == pytest.approx(scoring_objective(repeats, b, sigma2, v))


# -- greedy runs ----------------------------------------------------------------------------------
def exhaustive_best(objective, d, budget):
    best = -np.inf
    for repeats in itertools.product(range(budget + 1), repeat=d):
        if sum(repeats) <= budget:
            best = max(best, objective(np.array(repeats)))
    return best


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(1, 6))
def test_greedy_scoring_is_optimal(seed, d, budget):
    # Theorem 3.2: the greedy repeat vector maximizes the Scoring objective over every r with Σr ≤ B
    rng = np.random.default_rng(seed)
    b, sigma2, v = rng.normal(size=d), rng.uniform(0, 1, d) * (rng.uniform(size=d) > 0.3), rng.uniform(0, 3, d)
    path = greedy_scoring(b, sigma2, v, np.ones(d), budget)
    assert path.repeats.sum() == budget and path.spent == budget
    value = scoring_objective(path.repeats, b, sigma2, v)
    assert value == pytest.approx(path.objective[-1])
    assert value >= exhaustive_best(lambda r: scoring_objective(r, b, sigma2, v), d, budget) - 1e-12


def brute_force_full(b, sigma, v, costs, budget):
    """Algorithm 1 with one pseudo-inverse per candidate, as the seed writes it."""
    d = len(b)
    repeats = np.zeros(d, dtype=int)
    remaining = budget
    chosen = []
    while True:
        current = full_objective(repeats, b, sigma, v)
        ratios = np.full(d, -np.inf)
        for a in range(d):
            if costs[a] <= remaining + 1e-12:
                following = repeats.copy()
                following[a] += 1
                ratios[a] = (full_objective(following, b, sigma, v) - current) / costs[a]
        if not np.isfinite(ratios).any():
            return repeats, chosen
        a = int(np.argmax(ratios))
        repeats[a] += 1
        remaining -= costs[a]
        chosen.append(a)


def random_problem(seed, d, degenerate=False):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(d, d)) * rng.uniform(0.2, 1.5, d)
    sigma = L @ L.T / d
    v = rng.uniform(0.05, 3, d)
    b = sigma @ rng.normal(size=d) + 0.1 * rng.normal(size=d)
    if degenerate:  # attribute 1 repeats attribute 0 without internal noise; attribute 2 is constant
        sigma[1, :], sigma[:, 1] = sigma[0, :], sigma[:, 0]
        sigma[1, 1] = sigma[0, 0]
        b[1] = b[0]
        v[1] = 0.0
        sigma[2, :] = sigma[:, 2] = 0.0
        b[2] = v[2] = 0.0
    return b, sigma, v


@pytest.mark.parametrize("degenerate", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_full_gains_match_a_pseudo_inverse_per_candidate(seed, degenerate):
    d = 6
    b, sigma, v = random_problem(seed, d, degenerate)
    rng = np.random.default_rng(seed + 100)
    for repeats in (np.zeros(d, int), rng.integers(0, 3, d), np.array([2, 0, 1, 0, 0, 3]), np.array([0, 1, 0, 0, 0, 0])):
        current = full_objective(repeats, b, sigma, v)
        gains = _full_gains(repeats, current, b, sigma, np.diag(sigma), v)
        for a in range(d):
            following = repeats.copy()
            following[a] += 1
            assert gains[a] == pytest.approx(full_objective(following, b, sigma, v) - current, rel=1e-7, abs=1e-10)


@pytest.mark.parametrize("degenerate", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_greedy_full_makes_the_seeds_choices(seed, degenerate):
    d = 7
    b, sigma, v = random_problem(seed, d, degenerate)
    costs = np.ones(d) if seed % 2 == 0 else np.random.default_rng(seed).choice([1.0, 2.0, 4.0], d)
    budget = 12
    repeats, chosen = brute_force_full(b, sigma, v, costs, budget)
    path = greedy_full(b, sigma, v, costs, budget)
    assert path.chosen.tolist() == chosen
    assert path.repeats.tolist() == repeats.tolist()
    assert path.objective[-1] == pytest.approx(full_objective(repeats, b, sigma, v))
    assert path.spent <= budget


def test_costs_stop_the_greedy_run_when_nothing_fits():
    b, sigma, v = random_problem(0, 3)
    path = greedy_full(b, sigma, v, np.array([4.0, 4.0, 4.0]), 10)
    assert path.repeats.sum() == 2 and path.spent == 8.0 and not path.exhausted


def brute_force_forward(columns, labels, costs, budget):
    chosen, remaining = [], budget
    while True:
        best, best_ratio, base = -1, -np.inf, sse(columns[:, chosen], labels)
        for j in range(columns.shape[1]):
            if j in chosen or costs[j] > remaining:
                continue
            ratio = (base - sse(columns[:, chosen + [j]], labels)) / costs[j]
            if ratio > best_ratio + 1e-9:
                best, best_ratio = j, ratio
        if best < 0:
            return chosen
        chosen.append(best)
        remaining -= costs[best]


def sse(columns, labels):
    design = np.column_stack([np.ones(len(labels)), columns])
    residual = labels - design @ np.linalg.lstsq(design, labels, rcond=None)[0]
    return residual @ residual


@pytest.mark.parametrize("seed", range(6))
def test_forward_selection_matches_refitting_least_squares(seed):
    rng = np.random.default_rng(seed)
    columns = rng.normal(size=(40, 8))
    columns[:, 5] = columns[:, 1] + columns[:, 2]  # a collinear column
    labels = columns @ rng.normal(size=8) + rng.normal(size=40)
    costs = np.ones(8) if seed % 2 else rng.choice([1.0, 2.0], 8)
    path = forward_selection(columns, labels, costs, 6)
    reference = brute_force_forward(columns, labels, costs, 6)
    # after column 5 = 1 + 2, columns 1 and 2 tie exactly: compare what each step explains
    total = sse(columns[:, []], labels)
    expected = [total - sse(columns[:, reference[: t + 1]], labels) for t in range(len(reference))]
    np.testing.assert_allclose(path.objective, expected, rtol=1e-9)
    chosen = path.chosen.tolist()
    np.testing.assert_allclose(path.objective, [total - sse(columns[:, chosen[: t + 1]], labels)
                                                for t in range(len(chosen))], rtol=1e-9)


def test_forward_selection_says_when_it_ran_out_of_columns():
    rng = np.random.default_rng(0)
    columns = rng.normal(size=(30, 3))
    path = forward_selection(columns, columns.sum(axis=1), np.ones(3), 10)
    assert sorted(path.chosen.tolist()) == [0, 1, 2] and path.exhausted and path.spent == 3


# -- budgets beyond what can matter -----------------------------------------------------------------
def test_scoring_stops_once_a_judgment_gains_less_than_tol_of_the_objective():
    # no external variance: each judgment adds b²/v = 1, so after t judgments the objective is t and the next
    # gain 1 is at most tol·t from t = 1/tol on
    path = greedy_scoring(np.array([1.0]), np.array([0.0]), np.array([1.0]), np.ones(1), 1e308, tol=0.01)
    assert path.repeats.tolist() == [100] and path.spent == 100 and path.saturated and not path.exhausted
    assert path.objective[-1] == pytest.approx(100.0)


def test_full_stops_once_a_judgment_gains_less_than_tol_of_the_objective():
    # obj(r) = r / (r + 1); the gain of judgment r + 1 over obj(r) is 1 / (r (r + 2)): above 0.01 up to r = 9
    path = greedy_full(np.array([1.0]), np.array([[1.0]]), np.array([1.0]), np.ones(1), 1e308, tol=0.01)
    assert path.repeats.tolist() == [10] and path.saturated
    assert path.objective[-1] == pytest.approx(10 / 11)
    # a budget below that point is spent, and tol=0 spends any finite budget
    assert not greedy_full(np.array([1.0]), np.array([[1.0]]), np.array([1.0]), np.ones(1), 7, tol=0.01).saturated
    assert greedy_full(np.array([1.0]), np.array([[1.0]]), np.array([1.0]), np.ones(1), 30, tol=0).repeats.tolist() == [30]


def test_nothing_worth_buying_buys_nothing():
    path = greedy_full(np.zeros(2), np.eye(2), np.ones(2), np.ones(2), 5)
    assert path.repeats.tolist() == [0, 0] and path.saturated and path.spent == 0


def test_a_negative_tolerance_is_refused():
    from paucity._errors import ParameterError

    with pytest.raises(ParameterError, match="tol must be a number >= 0, got -1"):
        greedy_scoring(np.ones(1), np.ones(1), np.ones(1), np.ones(1), 3, tol=-1)
