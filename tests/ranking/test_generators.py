"""The synthetic comparison generators of paucity.datasets.ranking: their distributions and checks."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from paucity._errors import (
    InputError,
    InputTypeError,
    ParameterError,
    ShapeMismatchError,
)
from paucity.datasets import (
    FeatureExperiment,
    btl_comparisons,
    btl_scores,
    feature_experiment,
    flip_comparisons,
    sample_pairs,
)
from paucity.datasets.ranking import _decode_pairs, _distinct_codes
from paucity.ranking import Comparisons


def unordered(i, j):
    return np.minimum(i, j), np.maximum(i, j)


# -- scores ---------------------------------------------------------------------------------------
def test_btl_scores():
    v = btl_scores(5000, random_state=0)
    assert v.shape == (5000,) and v.dtype == np.float64
    assert v.min() >= 0.0 and v.max() < 5.0
    assert v.mean() == pytest.approx(2.5, abs=0.1)
    np.testing.assert_array_equal(v, btl_scores(5000, random_state=0))
    w = btl_scores(100, low=-1.0, high=1.0, random_state=1)
    assert w.min() >= -1.0 and w.max() < 1.0
    np.testing.assert_array_equal(btl_scores(3, low=2.0, high=2.0), [2.0, 2.0, 2.0])
    with pytest.raises(ParameterError, match="high"):
        btl_scores(3, low=1.0, high=0.0)
    with pytest.raises(ParameterError, match="n_items"):
        btl_scores(0)
    with pytest.raises(ParameterError, match="low"):
        btl_scores(3, low=float("nan"))


# -- pairs ----------------------------------------------------------------------------------------
def test_decode_pairs_is_a_bijection():
    n = 40
    total = n * (n - 1) // 2
    low, high = _decode_pairs(np.arange(total, dtype=np.int64))
    assert (low >= 0).all() and (low < high).all() and (high < n).all()
    assert len(set(zip(low.tolist(), high.tolist()))) == total
    # exact near the top of the range, where the square root is inexact
    n = 2**31
    codes = np.array([n * (n - 1) // 2 - 1, (n - 1) * (n - 2) // 2, (n - 1) * (n - 2) // 2 - 1, 10**17 + 7])
    low, high = _decode_pairs(codes)
    np.testing.assert_array_equal(high * (high - 1) // 2 + low, codes)
    assert (low < high).all() and (high < n).all()
    assert high[0] == n - 1 and low[0] == n - 2 and low[1] == 0 and high[1] == n - 1


def test_with_replacement_is_uniform_over_pairs_and_orientations():
    n, m = 5, 200_000
    i, j = sample_pairs(n, m, random_state=0)
    assert i.dtype == np.int64 and j.dtype == np.int64 and len(i) == m
    assert (i != j).all() and i.min() >= 0 and max(i.max(), j.max()) < n
    low, high = unordered(i, j)
    counts = np.bincount(low * n + high, minlength=n * n).reshape(n, n)[np.triu_indices(n, 1)]
    expected = m / 10
    # every one of the 10 pairs within 5 standard deviations of m / 10
    assert np.abs(counts - expected).max() < 5 * math.sqrt(expected * 0.9)
    assert (i < j).mean() == pytest.approx(0.5, abs=0.005)


def test_without_replacement_gives_distinct_pairs():
    i, j = sample_pairs(2000, 50_000, replace=False, random_state=1)
    low, high = unordered(i, j)
    assert len(np.unique(low * 2000 + high)) == 50_000
    assert (i != j).all() and max(i.max(), j.max()) < 2000
    assert (i < j).mean() == pytest.approx(0.5, abs=0.01)


def test_without_replacement_can_take_every_pair():
    i, j = sample_pairs(6, 15, replace=False, random_state=2)
    assert sorted(zip(*unordered(i, j))) == list(combinations(range(6), 2))


@pytest.mark.parametrize("n_pairs", [3, 10])  # the drop-repeats path and the permutation path
def test_without_replacement_includes_each_pair_equally_often(n_pairs):
    n, runs = 6, 3000
    rng = np.random.default_rng(3)
    seen = np.zeros((n, n))
    for _ in range(runs):
        i, j = sample_pairs(n, n_pairs, replace=False, random_state=rng)
        low, high = unordered(i, j)
        assert len(set(zip(low.tolist(), high.tolist()))) == n_pairs
        np.add.at(seen, (low, high), 1)
    rate = seen[np.triu_indices(n, 1)] / runs
    p = n_pairs / 15
    assert np.abs(rate - p).max() < 5 * math.sqrt(p * (1 - p) / runs)


def test_distinct_codes_drawn_in_random_order():
    codes = _distinct_codes(10**12, 1000, np.random.default_rng(4))
    assert len(np.unique(codes)) == 1000
    assert not (np.diff(codes) > 0).all()  # not handed back sorted


def test_sample_pairs_errors():
    with pytest.raises(ParameterError, match="15 distinct pairs"):
        sample_pairs(6, 16, replace=False)
    with pytest.raises(ParameterError, match="n_items"):
        sample_pairs(1, 3)
    with pytest.raises(ParameterError, match="sample_pairs: n_pairs must be an integer >= 0, got -1"):
        sample_pairs(5, -1)
    with pytest.raises(ParameterError, match="replace must be True or False"):
        sample_pairs(5, 2, replace="no")
    with pytest.raises(ParameterError, match="random_state must be a non-negative integer seed"):
        sample_pairs(5, 2, random_state=-1)
    i, j = sample_pairs(5, 0, replace=False)
    assert len(i) == len(j) == 0


# -- BTL comparisons ------------------------------------------------------------------------------
def test_btl_win_frequency_of_one_pair():
    # w = (1, 3): j = 1 is preferred with probability 3 / 4
    m = 40_000
    c = btl_comparisons([0.0, math.log(3.0)], pairs=(np.zeros(m, dtype=int), np.ones(m, dtype=int)), random_state=5)
    assert c.y.mean() == pytest.approx(0.75, abs=5 * math.sqrt(0.75 * 0.25 / m))


def test_btl_outcomes_are_calibrated():
    v = btl_scores(30, random_state=6)
    c = btl_comparisons(v, 100_000, random_state=7)
    p = expit(v[c.j] - v[c.i])
    # the outcome sum is within a few standard deviations of its expectation, overall and per item
    assert abs(c.y.sum() - p.sum()) < 4 * math.sqrt((p * (1 - p)).sum())
    wins = c.win_counts()
    expected = np.bincount(c.j, weights=p, minlength=30) + np.bincount(c.i, weights=1 - p, minlength=30)
    spread = np.sqrt(np.bincount(c.j, weights=p * (1 - p), minlength=30) + np.bincount(c.i, weights=p * (1 - p), minlength=30))
    assert (np.abs(wins - expected) < 5 * spread).all()


def test_btl_comparisons_shape_and_items():
    c = btl_comparisons(btl_scores(1000, random_state=0), 10, random_state=1)
    assert isinstance(c, Comparisons)
    assert c.n_items == 1000 and c.n_comparisons == 10  # items never compared are kept
    assert list(c.items[:3]) == [0, 1, 2]
    again = btl_comparisons(btl_scores(1000, random_state=0), 10, random_state=1)
    np.testing.assert_array_equal(c.y, again.y)
    np.testing.assert_array_equal(c.i, again.i)


def test_btl_comparisons_labels():
    scores = pd.Series([0.0, 1.0, 2.0], index=["x", "y", "z"])
    c = btl_comparisons(scores, 50, random_state=2)
    assert list(c.items) == ["x", "y", "z"]
    labelled = btl_comparisons([0.0, 1.0, 2.0], 50, items=["p", "q", "r"], random_state=2)
    assert list(labelled.items) == ["p", "q", "r"]
    np.testing.assert_array_equal(labelled.y, c.y)
    with pytest.raises(ShapeMismatchError, match="one label per item"):
        btl_comparisons([0.0, 1.0, 2.0], 5, items=["p", "q"])


def test_btl_comparisons_without_replacement():
    c = btl_comparisons(btl_scores(50, random_state=0), 1225, replace=False, random_state=3)
    low, high = unordered(c.i, c.j)
    assert len(np.unique(low * 50 + high)) == 1225


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"scores": [0.0, 1.0]}, ParameterError, "n_comparisons"),
        ({"scores": [0.0, 1.0], "n_comparisons": 3, "pairs": ([0], [1])}, ParameterError, "not both"),
        ({"scores": [0.0, 1.0], "pairs": ([0], [0])}, InputError, "itself"),
        ({"scores": [0.0, 1.0], "pairs": ([0], [2])}, InputError, "0 to 1"),
        ({"scores": [0.0, 1.0], "pairs": ([0, 1], [1])}, ShapeMismatchError, "both items"),
        ({"scores": [0.0, 1.0], "pairs": ([0.5], [1])}, InputTypeError, "integer"),
        ({"scores": [0.0, 1.0], "pairs": [[0, 1]]}, InputTypeError, "tuple"),
        ({"scores": [0.0], "n_comparisons": 1}, InputError, "at least 2"),
        ({"scores": [0.0, np.nan], "n_comparisons": 1}, InputError, "position 1"),
        ({"scores": [[0.0, 1.0]], "n_comparisons": 1}, InputError, "1-dimensional"),
        ({"scores": ["a", "b"], "n_comparisons": 1}, InputTypeError, "numbers"),
        ({"scores": [0.0, 1.0], "n_comparisons": 0}, ParameterError, "no comparisons"),
        ({"scores": [0.0, 1.0], "n_comparisons": -2}, ParameterError, "btl_comparisons: n_comparisons must be an integer >= 0"),
        ({"scores": [0.0, 1.0], "n_comparisons": 2.5}, ParameterError, "n_comparisons must be an integer"),
    ],
)
def test_btl_comparisons_errors(kwargs, error, words):
    with pytest.raises(error, match=words):
        btl_comparisons(**kwargs)


# -- flip model -----------------------------------------------------------------------------------
def test_noiseless_flip_model_is_always_right():
    c = flip_comparisons(300, rate=0.05, p=1.0, random_state=0)
    truth = -np.arange(300)
    assert ((truth[c.j] > truth[c.i]) == (c.y == 1)).all()
    assert c.n_items == 300


def test_flip_model_statistics():
    n, rate, p = 2000, 0.01, 0.8
    c = flip_comparisons(n, rate=rate, p=p, random_state=1)
    total = n * (n - 1) // 2
    assert abs(c.n_comparisons - rate * total) < 5 * math.sqrt(total * rate * (1 - rate))
    low, high = unordered(c.i, c.j)
    assert len(np.unique(low * n + high)) == c.n_comparisons  # each pair measured at most once
    wrong = ((c.j < c.i) != (c.y == 1)).mean()  # item k is truly better than item k + 1
    assert wrong == pytest.approx(1 - p, abs=5 * math.sqrt(p * (1 - p) / c.n_comparisons))
    assert (c.i < c.j).mean() == pytest.approx(0.5, abs=0.02)


def test_flip_model_with_a_given_ranking():
    ranking = np.random.default_rng(2).permutation(100)
    c = flip_comparisons(100, rate=0.2, ranking=ranking, random_state=3)
    truth = np.empty(100)
    truth[ranking] = -np.arange(100)
    assert ((truth[c.j] > truth[c.i]) == (c.y == 1)).all()
    flipped = flip_comparisons(100, rate=0.2, p=0.0, ranking=ranking, random_state=3)
    assert ((truth[flipped.j] > truth[flipped.i]) != (flipped.y == 1)).all()


def test_flip_model_at_the_seed_scale():
    n = 8000
    c = flip_comparisons(n, rate=5 * math.log(n) / n, p=0.75, random_state=4)
    expected = 5 * math.log(n) / n * n * (n - 1) / 2
    assert abs(c.n_comparisons - expected) < 5 * math.sqrt(expected)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"n_items": 10, "rate": 0.0}, ParameterError, "no pair"),
        ({"n_items": 10, "rate": 1.5}, ParameterError, "rate"),
        ({"n_items": 10, "rate": 0.5, "p": -0.1}, ParameterError, "p must"),
        ({"n_items": 1, "rate": 0.5}, ParameterError, "n_items"),
        ({"n_items": 3, "rate": 0.5, "ranking": [0, 0, 1]}, InputError, "exactly once"),
        ({"n_items": 3, "rate": 0.5, "ranking": [0, 1]}, InputError, "permutation"),
    ],
)
def test_flip_model_errors(kwargs, error, words):
    with pytest.raises(error, match=words):
        flip_comparisons(**kwargs)


# -- feature experiments --------------------------------------------------------------------------
def test_experiment_weights_follow_the_seed_formulas():
    one = feature_experiment(1, random_state=0)
    x, omega = one.features, one.omega
    assert x.shape == (1000, 1) and omega.shape == (1, 1)
    np.testing.assert_allclose(one.weights, [math.exp(math.cos(5 * omega[0, 0] * row[0])) for row in x])

    two = feature_experiment(2, random_state=1)
    x, omega = two.features, two.omega
    assert x.shape == (1600, 2) and omega.shape == (4, 2)
    expected = [
        sum(math.exp(math.cos(5 * omega[h] @ row)) for h in (0, 1)) + sum(math.exp(omega[h] @ row / 10) for h in (2, 3))
        for row in x
    ]
    np.testing.assert_allclose(two.weights, expected)

    three = feature_experiment(3, random_state=2)
    x, omega = three.features, three.omega
    assert x.shape == (1000, 10) and omega.shape == (5, 10)
    np.testing.assert_allclose(three.weights, [sum(math.exp(omega[h] @ row / 10) for h in range(5)) for row in x])

    for e in (one, two, three):
        assert isinstance(e, FeatureExperiment)
        assert (e.features >= 0).all() and (e.features < 4).all()
        assert (e.weights > 0).all()
        np.testing.assert_allclose(e.log_weights, np.log(e.weights))


def test_experiment_options_and_comparisons():
    small = feature_experiment(2, n_items=50, random_state=0)
    assert small.n_items == 50 and small.features.shape == (50, 2)
    np.testing.assert_array_equal(small.features, feature_experiment(2, n_items=50, random_state=0).features)
    c = small.comparisons(200, random_state=1)
    assert c.n_comparisons == 200 and c.n_items == 50
    np.testing.assert_array_equal(c.features, small.features)
    assert "number=2" in repr(small)
    with pytest.raises(ParameterError, match=r"feature_experiment: number must be an integer in \[1, 3\], got 4"):
        feature_experiment(4)
    with pytest.raises(ParameterError, match=r"number must be an integer in \[1, 3\], got True"):
        feature_experiment(True)
    with pytest.raises(ParameterError, match="n_items must be an integer >= 2"):
        feature_experiment(1, n_items=1)
