"""Ranking measures against hand-derived values and O(n²) pair-by-pair references."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from paucity._errors import (
    InputError,
    InputTypeError,
    ParameterError,
    PaucityError,
    ShapeMismatchError,
)
from paucity.ranking import Comparisons
from paucity.ranking.metrics import (
    PairCounts,
    _inversions,
    displacement,
    held_out_error,
    kendall_tau_b,
    kendall_tau_distance,
    l2_error,
    max_displacement,
    pair_counts,
    positions,
    spearman_footrule,
)


# -- slow references ------------------------------------------------------------------------------
def reference_counts(a, b) -> PairCounts:
    """P, Q, T, U and both-tied pairs, one pair at a time."""
    p = q = t = u = v = 0
    for k, l in combinations(range(len(a)), 2):
        da = int(a[k] > a[l]) - int(a[k] < a[l])  # a sign that also holds for infinities
        db = int(b[k] > b[l]) - int(b[k] < b[l])
        if da == 0 and db == 0:
            v += 1
        elif da == 0:
            t += 1
        elif db == 0:
            u += 1
        elif da == db:
            p += 1
        else:
            q += 1
    return PairCounts(p, q, t, u, v)


def reference_tau_b(a, b) -> float:
    c = reference_counts(a, b)
    denominator = (c.concordant + c.discordant + c.ties_a) * (c.concordant + c.discordant + c.ties_b)
    return math.nan if denominator == 0 else (c.concordant - c.discordant) / math.sqrt(denominator)


def reference_inversions_half(scores, truth) -> float:
    """Eq. 5.1 with pairs tied in the scores counted as half an inversion."""
    total = 0.0
    for k, l in combinations(range(len(scores)), 2):
        if truth[k] == truth[l]:
            continue
        better, worse = (k, l) if truth[k] > truth[l] else (l, k)
        if scores[better] < scores[worse]:
            total += 1
        elif scores[better] == scores[worse]:
            total += 0.5
    return total


def reference_positions(scores) -> list[int]:
    """Place of each item best first; equal scores in item order."""
    n = len(scores)
    return [
        sum(1 for l in range(n) if scores[l] > scores[k] or (scores[l] == scores[k] and l < k)) for k in range(n)
    ]


def pairs_of_vectors(values):
    return st.integers(0, 30).flatmap(
        lambda n: st.tuples(st.lists(values, min_size=n, max_size=n), st.lists(values, min_size=n, max_size=n))
    )


few_values = st.integers(-2, 2)  # many ties
any_values = st.one_of(st.integers(-3, 3), st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([-np.inf, np.inf, -0.0]))


# -- counting -------------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60))
def test_inversions_match_pair_by_pair_count(values):
    expected = sum(1 for k, l in combinations(range(len(values)), 2) if values[k] > values[l])
    assert _inversions(np.array(values, dtype=np.int64)) == expected


def test_inversions_of_a_reversed_sequence():
    assert _inversions(np.arange(1000)[::-1].copy()) == 1000 * 999 // 2
    assert _inversions(np.arange(1000)) == 0


@settings(max_examples=120, deadline=None)
@given(pairs_of_vectors(st.one_of(few_values, any_values)))
def test_pair_counts_match_the_reference(pair):
    a, b = (np.array(v, dtype=np.float64) for v in pair)
    counts = pair_counts(a, b)
    assert counts == reference_counts(a, b)
    assert counts.n_pairs == len(a) * (len(a) - 1) // 2


def test_pair_counts_by_hand():
    # pairs (0,1) (0,2) (0,3) concordant; (1,2) (1,3) discordant; (2,3) tied in both
    assert pair_counts([1, 2, 3, 3], [1, 3, 2, 2]) == PairCounts(3, 2, 0, 0, 1)
    # (0,1) tied in a only, (0,2) (1,2) concordant
    assert pair_counts([1, 1, 2], [1, 2, 3]) == PairCounts(2, 0, 1, 0, 0)


# -- tau-b ----------------------------------------------------------------------------------------
def test_tau_b_by_hand():
    assert kendall_tau_b([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(4 / 6)
    # P=2, Q=0, T=1, U=0: 2 / sqrt(3 * 2)
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))
    # P=0, Q=1, T=1, U=1 (x: ties (0,1); y: ties (1,2); (0,2) discordant): -1 / sqrt(2 * 2)
    assert kendall_tau_b([0, 0, 1], [1, 0, 0]) == pytest.approx(-0.5)
    assert kendall_tau_b([3, 2, 1], [1, 2, 3]) == -1.0


@pytest.mark.parametrize("a, b", [([5, 5, 5], [1, 2, 3]), ([1, 2], [7, 7]), ([1.0], [2.0]), ([], [])])
def test_tau_b_undefined_is_nan(a, b):
    assert math.isnan(kendall_tau_b(a, b))


@settings(max_examples=120, deadline=None)
@given(pairs_of_vectors(st.one_of(few_values, any_values)))
def test_tau_b_is_eq_3_10(pair):
    a, b = (np.array(v, dtype=np.float64) for v in pair)
    got, expected = kendall_tau_b(a, b), reference_tau_b(a, b)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(pairs_of_vectors(few_values))
def test_tau_b_agrees_with_scipy_variant_b(pair):
    a, b = (np.array(v, dtype=np.float64) for v in pair)
    got = kendall_tau_b(a, b)
    if math.isnan(got):
        return
    assert got == pytest.approx(kendalltau(a, b, variant="b").statistic, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(pairs_of_vectors(few_values))
def test_tau_b_symmetry_and_self(pair):
    a, b = (np.array(v, dtype=np.float64) for v in pair)
    tau = kendall_tau_b(a, b)
    if math.isnan(tau):
        assert math.isnan(kendall_tau_b(b, a))
    else:
        assert kendall_tau_b(b, a) == pytest.approx(tau)
        assert kendall_tau_b(a, -b) == pytest.approx(-tau)
        assert -1.0 - 1e-12 <= tau <= 1.0 + 1e-12
    if len(set(pair[0])) > 1:
        assert kendall_tau_b(a, a) == pytest.approx(1.0)
        assert kendall_tau_b(a, np.exp(a / 4)) == pytest.approx(1.0)  # any increasing map


def test_tau_b_large_with_ties_matches_scipy():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 300, 100_000).astype(float)
    b = a + rng.integers(0, 200, 100_000)
    assert kendall_tau_b(a, b) == pytest.approx(kendalltau(a, b, variant="b").statistic, abs=1e-12)


def test_series_are_aligned_on_labels():
    a = pd.Series([1.0, 2.0, 3.0, 4.0], index=list("wxyz"))
    b = pd.Series([40.0, 10.0, 30.0, 20.0], index=list("zwyx"))  # z=40, w=10, y=30, x=20
    assert kendall_tau_b(a, b) == 1.0
    assert kendall_tau_distance(b, a) == 0.0
    assert spearman_footrule(a, b) == 0
    shown = displacement(a, pd.Series([4.0, 3.0, 2.0, 1.0], index=list("wxyz")))
    assert isinstance(shown, pd.Series) and shown.to_dict() == {"w": 3, "x": 1, "y": 1, "z": 3}


@pytest.mark.parametrize(
    "a, b, error, words",
    [
        (pd.Series([1.0, 2.0], index=["p", "q"]), pd.Series([1.0, 2.0], index=["p", "r"]), InputError, "'q'"),
        (pd.Series([1.0, 2.0, 3.0], index=["p", "q", "r"]), pd.Series([1.0, 2.0], index=["p", "q"]), InputError, "'r'"),
        (pd.Series([1.0, 2.0], index=["p", "p"]), pd.Series([1.0, 2.0], index=["p", "q"]), InputError, "'p'"),
        ([1, 2, 3], [1, 2], ShapeMismatchError, "3 entries"),
        ([1, np.nan], [1, 2], InputError, "NaN"),
        (pd.Series([1.0, np.nan], index=["p", "q"]), pd.Series([1.0, 2.0], index=["p", "q"]), InputError, "'q'"),
        (["a", "b"], [1, 2], InputTypeError, "numbers"),
        ([[1, 2]], [[1, 2]], InputError, "1-dimensional"),
        (3.0, [1.0], InputTypeError, "single value"),
    ],
)
def test_bad_vectors_give_clear_errors(a, b, error, words):
    for measure in (kendall_tau_b, kendall_tau_distance, spearman_footrule, displacement, l2_error):
        with pytest.raises(error, match=words):
            measure(a, b)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.one_of(st.floats(allow_nan=True), st.text(max_size=2), st.none(), st.integers(-5, 5)), max_size=6),
    st.lists(st.floats(allow_nan=True), max_size=6),
)
def test_measures_raise_only_paucity_errors(a, b):
    for measure in (kendall_tau_b, kendall_tau_distance, spearman_footrule, max_displacement, l2_error):
        try:
            measure(np.array(a, dtype=object), b)
        except PaucityError:
            pass


# -- inversions, footrule, displacement ----------------------------------------------------------
def test_inversions_by_hand():
    truth = [3, 2, 1, 0]  # item 0 best
    assert kendall_tau_distance([3, 1, 2, 0], truth) == 1.0
    assert kendall_tau_distance([0, 1, 2, 3], truth) == 6.0
    # items 0,1 tied and items 2,3 tied: two pairs, half an inversion each
    assert kendall_tau_distance([1, 1, 0, 0], truth) == 1.0
    # "first" keeps the tied items in item order, which is right here
    assert kendall_tau_distance([1, 1, 0, 0], truth, ties="first") == 0.0
    # pairs tied in the truth never count
    assert kendall_tau_distance([0, 1, 2], [5, 5, 5]) == 0.0


@settings(max_examples=100, deadline=None)
@given(pairs_of_vectors(few_values))
def test_inversions_with_half_ties_match_the_reference(pair):
    scores, truth = (np.array(v, dtype=np.float64) for v in pair)
    assert kendall_tau_distance(scores, truth) == reference_inversions_half(scores, truth)


@settings(max_examples=80, deadline=None)
@given(pairs_of_vectors(few_values))
def test_first_rule_counts_the_strict_order(pair):
    scores, truth = (np.array(v, dtype=np.float64) for v in pair)
    strict = -np.array(reference_positions(scores), dtype=float)
    got = kendall_tau_distance(scores, truth, ties="first")
    assert got == reference_inversions_half(strict, truth)
    assert got == int(got)


def test_random_tie_breaking_averages_to_the_half_rule():
    scores = np.array([2, 2, 2, 1, 1, 0, 0, 0, 0], dtype=float)
    truth = -np.arange(9.0)[::-1]  # the reverse of the item order
    draws = [kendall_tau_distance(scores, truth, ties="random", random_state=s) for s in range(600)]
    half = kendall_tau_distance(scores, truth)
    assert np.mean(draws) == pytest.approx(half, abs=0.2)
    assert kendall_tau_distance(scores, truth, ties="random", random_state=3) == draws[3]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 25).flatmap(lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))))
def test_diaconis_graham(perms):
    scores, truth = (np.array(p, dtype=float) for p in perms)
    inversions = kendall_tau_distance(scores, truth)
    footrule = spearman_footrule(scores, truth)
    assert inversions <= footrule <= 2 * inversions
    assert max_displacement(scores, truth) <= footrule
    n = len(scores)
    assert 0 <= inversions <= n * (n - 1) / 2


@settings(max_examples=80, deadline=None)
@given(pairs_of_vectors(few_values))
def test_displacement_matches_reference_positions(pair):
    scores, truth = (np.array(v, dtype=np.float64) for v in pair)
    expected = np.abs(np.array(reference_positions(scores)) - np.array(reference_positions(truth)))
    np.testing.assert_array_equal(displacement(scores, truth), expected.astype(np.int64))
    assert spearman_footrule(scores, truth) == int(expected.sum())
    assert max_displacement(scores, truth) == (int(expected.max()) if len(expected) else 0)


def test_displacement_by_hand():
    # predicted order 1, 2, 0, 3 against the truth 0, 1, 2, 3
    truth = [3, 2, 1, 0]
    np.testing.assert_array_equal(displacement([1, 3, 2, 0], truth), [2, 1, 1, 0])
    assert spearman_footrule([1, 3, 2, 0], truth) == 4
    assert max_displacement([1, 3, 2, 0], truth) == 2
    # the reversed order of n items: footrule floor(n^2 / 2), max displacement n - 1
    n = 7
    assert spearman_footrule(np.arange(n), -np.arange(n)) == n * n // 2
    assert max_displacement(np.arange(n), -np.arange(n)) == n - 1


def test_positions():
    assert positions([0.2, 0.9, 0.5]).tolist() == [2, 0, 1]
    assert positions([1, 1, 0]).tolist() == [0, 1, 2]
    shuffled = [positions([1, 1, 1, 1], ties="random", random_state=s).tolist() for s in range(30)]
    assert all(sorted(p) == [0, 1, 2, 3] for p in shuffled)
    assert len({tuple(p) for p in shuffled}) > 5
    series = positions(pd.Series([3.0, 5.0], index=["a", "b"]))
    assert series.to_dict() == {"a": 1, "b": 0}
    with pytest.raises(ParameterError, match="ties"):
        positions([1, 2], ties="average")
    with pytest.raises(ParameterError, match="ties"):
        kendall_tau_distance([1, 2], [1, 2], ties="average")


def test_large_inputs_run():
    rng = np.random.default_rng(1)
    truth = rng.random(100_000)
    scores = truth + rng.normal(0, 0.05, 100_000)
    inversions = kendall_tau_distance(scores, truth)
    footrule = spearman_footrule(scores, truth)
    assert inversions <= footrule <= 2 * inversions
    n_pairs = 100_000 * 99_999 // 2
    assert kendall_tau_b(scores, truth) == pytest.approx(1 - 2 * inversions / n_pairs)


# -- held-out error -------------------------------------------------------------------------------
@pytest.fixture
def held():
    # a beats b, b beats c, c beats a (weights 1, 1, 2), c beats b
    return Comparisons.from_winners(["a", "b", "c", "c"], ["b", "c", "a", "b"], weights=[1.0, 1.0, 2.0, 1.0])


def test_held_out_error_by_hand(held):
    scores = pd.Series({"a": 3.0, "b": 2.0, "c": 1.0})
    # wrong: c over a (weight 2) and c over b (weight 1): 3 of 5
    assert held_out_error(scores, held) == pytest.approx(3 / 5)
    # a = b = 1, c = 0: a over b tied (half of weight 1), b over c right,
    # c over a wrong (weight 2), c over b wrong (weight 1): 3.5 of 5
    assert held_out_error(np.array([1.0, 1.0, 0.0]), held) == pytest.approx(3.5 / 5)
    assert held_out_error(np.zeros(3), held) == 0.5


def test_held_out_error_aligns_series_and_ignores_other_items(held):
    scores = pd.Series({"zzz": 10.0, "c": 1.0, "b": 2.0, "a": 3.0})
    assert held_out_error(scores, held) == pytest.approx(3 / 5)


def test_held_out_error_matches_a_loop():
    rng = np.random.default_rng(2)
    i = rng.integers(0, 30, 400)
    j = (i + rng.integers(1, 30, 400)) % 30
    y = rng.integers(0, 2, 400)
    w = rng.random(400)
    c = Comparisons(i, j, y, weights=w, items=np.arange(30))
    s = rng.integers(0, 5, 30).astype(float)
    wrong = 0.0
    for a, b, o, weight in zip(i, j, y, w):
        winner, loser = (b, a) if o == 1 else (a, b)
        wrong += weight * (1.0 if s[winner] < s[loser] else 0.5 if s[winner] == s[loser] else 0.0)
    assert held_out_error(s, c) == pytest.approx(wrong / w.sum())


def test_held_out_error_errors(held):
    with pytest.raises(InputError, match="'c'"):
        held_out_error(pd.Series({"a": 1.0, "b": 2.0}), held)
    with pytest.raises(ShapeMismatchError, match="3 items"):
        held_out_error([1.0, 2.0], held)
    with pytest.raises(InputError, match="'b'"):
        held_out_error(pd.Series({"a": 1.0, "b": np.nan, "c": 0.0}), held)
    with pytest.raises(InputTypeError, match="Comparisons"):
        held_out_error([1.0, 2.0], [[0, 1]])
    zero = Comparisons.from_winners(["a"], ["b"], weights=[0.0])
    with pytest.raises(InputError, match="weight 0"):
        held_out_error([1.0, 0.0], zero)


# -- l2 error -------------------------------------------------------------------------------------
def test_l2_error_by_hand():
    # pi_hat = (1/2, 1/2), pi = (1/4, 3/4): |(1/4, -1/4)| / |(1/4, 3/4)| = sqrt(2) / sqrt(10)
    assert l2_error([1.0, 1.0], [1.0, 3.0]) == pytest.approx(math.sqrt(2 / 10))
    assert l2_error([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]) == pytest.approx(0.0, abs=1e-15)
    assert l2_error([1.0, 0.0], [0.0, 1.0]) == pytest.approx(math.sqrt(2))


def test_l2_error_on_log_weights_is_stable():
    v = np.array([1000.0, 1000.0 + math.log(3.0)])
    assert l2_error(np.array([-700.0, -700.0]), v, log=True) == pytest.approx(math.sqrt(2 / 10))
    assert l2_error(v, v + 5.0, log=True) == pytest.approx(0.0, abs=1e-15)
    assert l2_error([0.0, -np.inf], [0.0, 0.0], log=True) == pytest.approx(l2_error([1.0, 0.0], [1.0, 1.0]))


def test_l2_error_series_alignment():
    truth = pd.Series({"a": 1.0, "b": 3.0})
    assert l2_error(pd.Series({"b": 1.0, "a": 1.0}), truth) == pytest.approx(math.sqrt(2 / 10))


@pytest.mark.parametrize(
    "estimate, truth, log, words",
    [
        ([1.0, -1.0], [1.0, 1.0], False, "negative"),
        ([0.0, 0.0], [1.0, 1.0], False, "all zero"),
        ([1.0, np.inf], [1.0, 1.0], False, "infinite"),
        ([1.0, np.inf], [1.0, 1.0], True, "infinite"),
        ([-np.inf, -np.inf], [1.0, 1.0], True, "-inf"),
        ([], [], False, "empty"),
    ],
)
def test_l2_error_errors(estimate, truth, log, words):
    with pytest.raises(InputError, match=words):
        l2_error(estimate, truth, log=log)
