"""BRE and URE (seed 003, ch. 5): hand-derived scores, the seed's claims, online updates."""

import itertools
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from paucity._errors import InputError, InputTypeError, ParameterError
from paucity.ranking import BRE, URE, Comparisons
from paucity.ranking.counting import comparison_counts, counting_scores, win_loss_sums


def four_items(weights=None):
    # a beats b, c and d; c beats b and d; b beats d
    return Comparisons.from_winners(["a", "a", "c", "c", "a", "b"], ["b", "c", "b", "d", "d", "d"], weights=weights)


def flip_model(n, q, p, seed):
    """Each pair measured with probability q and flipped with probability 1 - p; item k is the k-th best."""
    rng = np.random.default_rng(seed)
    better, worse = np.triu_indices(n, 1)
    keep = rng.random(len(better)) < q
    better, worse = better[keep], worse[keep]
    swap = rng.random(len(better)) < 0.5
    i, j = np.where(swap, worse, better), np.where(swap, better, worse)
    y = (j == better).astype(np.int8)
    flipped = rng.random(len(y)) >= p
    y[flipped] = 1 - y[flipped]
    return Comparisons(i, j, y, items=np.arange(n))


def displacements(model, n):
    position = np.empty(n, dtype=np.int64)
    position[np.asarray(model.ranking_)] = np.arange(n)
    return np.abs(position - np.arange(n))


# -- hand-derived scores ---------------------------------------------------------------------------
def test_bre_on_four_items_by_hand():
    # wins a3 b1 c2 d0, losses a0 b2 c1 d3; M = 6, n = 4, m = 2 * 6 / 3 = 4
    model = BRE(random_state=0).fit(four_items())
    assert model.wins_.to_dict() == {"a": 3.0, "b": 1.0, "c": 2.0, "d": 0.0}
    assert model.losses_.to_dict() == {"a": 0.0, "b": 2.0, "c": 1.0, "d": 3.0}
    assert model.m_ == 4.0 and model.total_weight_ == 6.0 and model.n_comparisons_ == 6
    # scores = -(losses - wins) / (2 m)
    assert model.scores_.to_dict() == {"a": 3 / 8, "b": -1 / 8, "c": 1 / 8, "d": -3 / 8}
    assert list(model.ranking_) == ["a", "c", "b", "d"]
    assert model.scores_.name == "score" and list(model.items_) == ["a", "b", "c", "d"]


def test_ure_on_four_items_by_hand():
    model = URE(random_state=0).fit(four_items())
    assert model.scores_.to_dict() == {"a": 0.0, "b": -2 / 4, "c": -1 / 4, "d": -3 / 4}
    assert not np.signbit(model.scores_["a"])  # +0.0, not -0.0, for an item that never lost
    assert list(model.ranking_) == ["a", "c", "b", "d"]


def test_weighted_four_items_by_hand():
    # b beats d three times: wins a3 b3 c2 d0, losses a0 b2 c1 d5; M = 8, m = 16/3
    weights = [1, 1, 1, 1, 1, 3]
    bre = BRE().fit(four_items(weights))
    assert bre.m_ == pytest.approx(16 / 3)
    np.testing.assert_allclose(bre.scores_.to_numpy(), np.array([9, 3, 3, -15]) / 32, rtol=1e-15)
    ure = URE().fit(four_items(weights))
    np.testing.assert_allclose(ure.scores_.to_numpy(), -np.array([0, 6, 3, 15]) / 16, rtol=1e-15)
    # the same as writing b's win over d three times
    repeated = Comparisons.from_winners(["a", "a", "c", "c", "a", "b", "b", "b"], ["b", "c", "b", "d", "d", "d", "d", "d"])
    assert BRE().fit(repeated).scores_.to_numpy().tobytes() == bre.scores_.to_numpy().tobytes()


def test_fit_on_pairs_and_sample_weight_equals_comparisons():
    c = four_items([1, 2, 1, 1, 3, 1])
    X = np.column_stack([c.items[c.i], c.items[c.j]])
    got = URE().fit(X, c.y, sample_weight=c.weights)
    expected = URE().fit(c)
    pd.testing.assert_series_equal(got.scores_, expected.scores_)


def test_kernel_and_scores_helpers():
    wins, losses = win_loss_sums(np.array([2, 2, 0]), np.array([0, 1, 1]), np.array([1.0, 2.0, 0.5]), 4)
    assert wins.tolist() == [0.5, 0.0, 3.0, 0.0] and losses.tolist() == [1.0, 2.5, 0.0, 0.0]
    counts = comparison_counts(four_items())
    assert counts.n_comparisons == 6 and counts.total_weight == 6.0
    with pytest.raises(InputError, match="total weight 0"):
        counting_scores("bre", np.zeros(3), np.zeros(3), 0.0, 3)


# -- the seed's claims -----------------------------------------------------------------------------
def test_bre_recovers_the_permutation_within_a_small_displacement():
    # Theorem 5.4.2 / Corollary 5.4.4, noiseless: with probability c log(n) / n per pair every item is
    # displaced by at most nu * n, and four times the comparisons halve the displacements.
    n = 500
    few = displacements(BRE(random_state=0).fit(flip_model(n, 4 * np.log(n) / n, 1.0, seed=0)), n)
    many = displacements(BRE(random_state=0).fit(flip_model(n, 16 * np.log(n) / n, 1.0, seed=0)), n)
    assert many.max() <= 0.2 * n
    assert many.mean() <= 0.6 * few.mean()
    # uniform along the ranking: top and bottom deciles are placed alike
    top, bottom = many[: n // 10].mean(), many[-n // 10:].mean()
    assert 0.5 < top / bottom < 2


def test_bre_expected_inversions_are_small_under_noise():
    # Theorem 5.4.1: with p = 0.8 and enough comparisons the Kendall tau distance is a small fraction of n(n-1)/2
    n = 300
    model = BRE(random_state=0).fit(flip_model(n, 0.3, 0.8, seed=1))
    position = np.empty(n, dtype=np.int64)
    position[np.asarray(model.ranking_)] = np.arange(n)
    inversions = np.triu(position[:, None] > position[None, :], 1).sum()
    assert inversions <= 0.1 * n * (n - 1) / 2


def test_ure_is_more_accurate_at_the_top_and_bre_at_the_bottom():
    # Theorem 5.4.6 and Figure 5.1(c): on the same comparisons URE places the top better than the bottom,
    # better than BRE at the top, and worse than BRE at the bottom.
    n = 500
    comparisons = flip_model(n, 16 * np.log(n) / n, 1.0, seed=2)
    bre = displacements(BRE(random_state=0).fit(comparisons), n)
    ure = displacements(URE(random_state=0).fit(comparisons), n)
    top, bottom = slice(0, n // 10), slice(n - n // 10, n)
    assert ure[top].mean() < 0.6 * ure[bottom].mean()
    assert ure[top].mean() < bre[top].mean()
    assert bre[bottom].mean() < ure[bottom].mean()


# -- online updates --------------------------------------------------------------------------------
def _labelled_stream(seed=0, n=25, m=300):
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    names = np.array([f"item{k:02d}" for k in range(n)], dtype=object)
    return names[i], names[j], rng.integers(0, 2, m), rng.integers(0, 4, m).astype(float)


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(1, 299), max_size=6, unique=True), method=st.sampled_from([BRE, URE]))
def test_partial_fit_in_any_split_equals_fit_bit_for_bit(cuts, method):
    left, right, y, w = _labelled_stream()
    full = method(random_state=0).fit(Comparisons(left, right, y, w))
    online = method(random_state=0)
    bounds = [0, *sorted(cuts), len(y)]
    for a, b in itertools.pairwise(bounds):
        online.partial_fit(Comparisons(left[a:b], right[a:b], y[a:b], w[a:b]))
    assert sorted(online.items_) == list(full.items_)
    for name in ("scores_", "wins_", "losses_"):
        got = getattr(online, name).loc[full.items_].to_numpy()
        assert got.tobytes() == getattr(full, name).to_numpy().tobytes()
    assert online.n_comparisons_ == full.n_comparisons_ == len(y)
    assert online.total_weight_ == full.total_weight_ and online.m_ == full.m_


def test_partial_fit_on_subsets_keeps_item_order_and_tie_breaks():
    left, right, y, w = _labelled_stream(seed=1)
    everything = Comparisons(left, right, y, w)
    full = BRE(random_state=7).fit(everything)
    online = BRE(random_state=7)
    for part in np.array_split(np.random.default_rng(0).permutation(len(y)), 4):
        online.partial_fit(everything.subset(part))
    assert list(online.items_) == list(full.items_)
    assert list(online.ranking_) == list(full.ranking_)
    assert online.scores_.to_numpy().tobytes() == full.scores_.to_numpy().tobytes()


def test_partial_fit_appends_new_items_and_keeps_positions():
    model = URE(random_state=0)
    model.partial_fit(Comparisons.from_winners(["b", "a"], ["a", "c"]))
    assert list(model.items_) == ["a", "b", "c"]
    model.partial_fit(Comparisons.from_winners(["e", "d", "a"], ["b", "a", "c"]))
    assert list(model.items_) == ["a", "b", "c", "d", "e"]  # new items in the batch's order
    assert model.losses_.to_dict() == {"a": 2.0, "b": 1.0, "c": 2.0, "d": 0.0, "e": 0.0}
    assert model.n_comparisons_ == 5 and model.m_ == 2 * 5 / 4
    # fit starts again from nothing
    model.fit(Comparisons.from_winners(["x"], ["y"]))
    assert list(model.items_) == ["x", "y"] and model.n_comparisons_ == 1


def test_partial_fit_on_pairs_with_items_never_compared():
    model = BRE().partial_fit(Comparisons.from_winners(["a"], ["b"], items=["a", "b", "z"]))
    assert model.scores_["z"] == 0.0 and model.m_ == 1.0  # 2 * 1 / (3 - 1)
    model.partial_fit([["a", "q"]], [1])
    assert list(model.items_) == ["a", "b", "z", "q"]


# -- ties, estimator contract, errors --------------------------------------------------------------
def test_ties_are_broken_at_random_but_reproducibly():
    cycle = Comparisons.from_winners(list("abcdef"), list("bcdefa"))  # every item wins once and loses once
    rankings = {tuple(BRE(random_state=seed).fit(cycle).ranking_) for seed in range(20)}
    assert len(rankings) > 5
    assert list(BRE(random_state=3).fit(cycle).ranking_) == list(BRE(random_state=3).fit(cycle).ranking_)
    assert list(URE(random_state=3).fit(cycle).ranking_) == list(BRE(random_state=3).fit(cycle).ranking_)
    rng = np.random.default_rng(0)
    assert len({tuple(BRE(random_state=rng).fit(cycle).ranking_) for _ in range(10)}) > 1


def test_sklearn_clone_and_params():
    model = URE(random_state=4).fit(four_items())
    copy = clone(model)
    assert copy.get_params() == {"random_state": 4} and not hasattr(copy, "scores_")
    assert BRE().set_params(random_state=2).random_state == 2
    assert "random_state" in repr(BRE(random_state=1))


def test_input_errors():
    with pytest.raises(InputError, match="total weight 0"):
        BRE().fit(Comparisons.from_winners(["a"], ["b"], weights=[0.0]))
    with pytest.raises(InputError, match="must not be given with a Comparisons"):
        BRE().fit(four_items(), [0, 1])
    with pytest.raises(ParameterError, match="random_state"):
        BRE(random_state="seed").fit(four_items())
    da = pytest.importorskip("dask.array")
    with pytest.raises(InputTypeError, match="DaskComparisons"):
        BRE().fit(da.from_array(np.array([[0, 1]]), chunks=1), [1])


def test_single_machine_path_does_not_import_dask():
    code = (
        "import sys\n"
        "from paucity.ranking import BRE, URE, Comparisons\n"
        "c = Comparisons.from_winners(['a', 'b'], ['b', 'c'])\n"
        "BRE().fit(c); URE().partial_fit(c).partial_fit(c)\n"
        "assert not [m for m in sys.modules if m == 'dask' or m.startswith(('dask.', 'distributed'))]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
