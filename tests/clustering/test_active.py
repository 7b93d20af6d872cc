"""ActiveSpectralClustering against the seed's loop as printed (Algorithms 1 and 2, §2.5), replayed query by
query from its own log, and its parameters, the start, batches, ask/tell and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from paucity._errors import InputError, NotFittedError, ParameterError, ShapeMismatchError
from paucity.clustering import (
    ActiveSpectralClustering,
    BetaNoise,
    FunctionOracle,
    MatrixOracle,
    misclustering_error,
    spectral_bisection,
)

from .reference import components, direct_scores, eigenpairs, replay, seed_choice, sigma_hat


def two_gaussians(n=12, separation=2.0, bandwidth=1.0, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [separation, 0]]
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / (2 * bandwidth**2))
    return W


def v2_defined(W_hat):
    values, _ = eigenpairs(W_hat)
    return len(set(components(W_hat))) <= 2 and values[2] - values[1] > 1e-9 * max(values[-1], 1e-300)


# -- the loop is the seed's loop ----------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", ["iu_red", "shamir_tishby"])
def test_every_step_is_the_argmax_of_the_seeds_formula(strategy):
    """Replaying queries_: while v̂₂ is undefined a query joins two components; after, it is line 2 of the
    seed's algorithm evaluated from a full eigendecomposition over the pairs not yet measured."""
    W = two_gaussians(seed=1)
    n = len(W)
    model = ActiveSpectralClustering(strategy=strategy, budget=40, random_state=3).fit(MatrixOracle(W))
    active = 0
    for row, W_hat, counts, _ in replay(model.queries_, n):
        if not v2_defined(W_hat):
            labels = components(W_hat)
            assert labels[row.i] != labels[row.j], f"query {row.order} does not join two components"
            continue
        candidates = counts == 0
        assert (row.i, row.j) == seed_choice(W_hat, candidates, strategy)[0], f"query {row.order}"
        active += 1
    assert active >= 25


def test_interleaving_alternates_the_strategy_with_random_pairs():
    W = two_gaussians(seed=2)
    model = ActiveSpectralClustering(interleave=True, budget=40, random_state=0).fit(MatrixOracle(W))
    matches = {0: [], 1: []}
    for row, W_hat, counts, _ in replay(model.queries_, len(W)):
        if v2_defined(W_hat):
            matches[(row.order - 1) % 2].append((row.i, row.j) == seed_choice(W_hat, counts == 0, "iu_red")[0])
    assert all(matches[0]) and len(matches[0]) >= 12
    assert not all(matches[1])  # the odd-numbered queries are random


def test_repeats_maximize_sigma_times_score_and_stop_at_r():
    """§2.5: Ŵ holds medians, a query maximizes σ̂ᵢⱼ·|dv̂₂(k_min)/dŵᵢⱼ| over pairs measured fewer than R times."""
    W = two_gaussians(n=8, seed=3)
    n = len(W)
    oracle = MatrixOracle(W, noise=BetaNoise(concentration=20), random_state=0)
    model = ActiveSpectralClustering(repeats=3, budget=60, random_state=1).fit(oracle)
    assert model.queries_["repeat"].max() <= 3
    assert model.queries_.groupby(["i", "j"]).size().max() == model.queries_["repeat"].max()
    checked = repeated = 0
    for row, W_hat, counts, values in replay(model.queries_, n):
        if not v2_defined(W_hat):
            continue
        choice, _ = seed_choice(W_hat, counts < 3, "iu_red", sigma=sigma_hat(values, n))
        assert (row.i, row.j) == choice, f"query {row.order}"
        checked += 1
        repeated += row.repeat > 1
    assert checked >= 40 and repeated > 0
    medians = model.queries_.groupby(["i", "j"])["value"].median()
    estimates = model.estimates_.to_frame().set_index(["i", "j"])["median"]
    pd.testing.assert_series_equal(estimates.sort_index(), medians.sort_index(), check_names=False)


def test_a_batch_is_the_best_b_pairs_of_one_eigen_update():
    W = two_gaussians(n=14, seed=4)
    model = ActiveSpectralClustering(batch_size=5, budget=42, random_state=0).fit(MatrixOracle(W))
    rows = list(replay(model.queries_, len(W)))
    checked = 0
    for first in range(0, len(rows), 5):
        _, W_hat, counts, _ = rows[first]
        batch = {(row.i, row.j) for row, *_ in rows[first:first + 5]}
        if not v2_defined(W_hat):
            continue
        iu, _, _ = direct_scores(W_hat)
        upper = np.triu(counts == 0, 1)
        scores = np.where(upper, iu, -1.0)
        best = np.argsort(-scores, axis=None, kind="stable")[: len(batch)]
        assert batch == {tuple(int(v) for v in np.unravel_index(b, W.shape)) for b in best}
        checked += 1
    assert checked >= 4


def test_the_start_joins_components_until_v2_is_defined():
    """From Ŵ = I: n − 2 measurements with positive similarities leave two components."""
    W = two_gaussians(n=20, seed=5)
    model = ActiveSpectralClustering(budget=30, random_state=0).fit(MatrixOracle(W))
    history = model.history_
    assert history["n_components"].iloc[0] == 20
    assert history.loc[history["n_queries"] == 18, "n_components"].item() == 2
    assert (history["n_components"].iloc[:19].to_numpy() == 20 - np.arange(19)).all()


# -- results -------------------------------------------------------------------------------------------------
def test_fitted_attributes_and_the_error_curve():
    W = two_gaussians(n=30, separation=5.0, seed=6)
    reference = spectral_bisection(W)
    model = ActiveSpectralClustering(budget=0.5, random_state=0).fit(MatrixOracle(W), reference=reference)
    assert model.n_queries_ == model.budget_ == round(0.5 * 435) == len(model.queries_)
    assert model.queries_.columns.tolist() == ["order", "i", "j", "value", "repeat"]
    assert (model.queries_["i"] < model.queries_["j"]).all()
    assert not model.queries_.duplicated(["i", "j"]).any()
    np.testing.assert_allclose(model.queries_["value"], W[model.queries_["i"], model.queries_["j"]])
    history = model.history_
    assert history["n_queries"].tolist() == list(range(model.n_queries_ + 1))
    assert history["fraction"].iloc[-1] == pytest.approx(model.n_queries_ / 435)
    assert history["error"].iloc[-1] == misclustering_error(model.labels_, reference) == 0.0
    assert model.labels_[0] == 0 and set(model.labels_) == {0, 1}
    assert np.linalg.norm(model.embedding_) == pytest.approx(1.0) and abs(model.embedding_.sum()) < 1e-9
    assert model.n_items_ == 30


def test_the_whole_budget_measures_every_pair_and_gives_the_complete_clustering():
    W = two_gaussians(n=9, seed=7)
    for strategy in ("iu_red", "shamir_tishby", "random"):
        model = ActiveSpectralClustering(strategy=strategy, budget=1.0, random_state=0).fit(MatrixOracle(W))
        assert model.n_queries_ == 36
        assert misclustering_error(model.labels_, spectral_bisection(W)) == 0.0


def test_random_strategy_is_reproducible_and_draws_distinct_pairs():
    W = two_gaussians(n=15, seed=8)
    first = ActiveSpectralClustering(strategy="random", budget=50, batch_size=7, random_state=4).fit(MatrixOracle(W))
    again = ActiveSpectralClustering(strategy="random", budget=50, batch_size=7, random_state=4).fit(MatrixOracle(W))
    pd.testing.assert_frame_equal(first.queries_, again.queries_)
    assert not first.queries_.duplicated(["i", "j"]).any()
    assert first.history_["error"].isna().all()


def test_three_clusters_by_recursive_bisection():
    rng = np.random.default_rng(9)
    centers = np.array([[0, 0], [6, 0], [0, 6]])
    X = np.concatenate([rng.normal(c, 0.7, (10, 2)) for c in centers])
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 8)
    truth = np.repeat([0, 1, 2], 10)
    model = ActiveSpectralClustering(n_clusters=3, budget=0.6, random_state=0).fit(MatrixOracle(W))
    assert sorted(np.bincount(model.labels_)) == [10, 10, 10]
    assert misclustering_error(model.labels_, truth) == 0.0


def test_function_oracle_needs_n_items():
    W = two_gaussians(n=6, seed=10)
    oracle = FunctionOracle(lambda i, j: W[i, j])
    with pytest.raises(ParameterError, match="number of items is unknown"):
        ActiveSpectralClustering(budget=5).fit(oracle)
    model = ActiveSpectralClustering(budget=5, random_state=0).fit(oracle, n_items=6)
    assert model.n_queries_ == 5


def test_clone_and_params():
    model = ActiveSpectralClustering(strategy="shamir_tishby", budget=10, store="x.db")
    assert clone(model).get_params() == model.get_params()
    assert "ActiveSpectralClustering(budget=10" in repr(model)


# -- ask and tell --------------------------------------------------------------------------------------------
def test_ask_and_tell_make_the_same_choices_as_fit():
    W = two_gaussians(n=12, seed=11)
    fitted = ActiveSpectralClustering(budget=30, batch_size=4, interleave=True, random_state=2).fit(MatrixOracle(W))
    stepwise = ActiveSpectralClustering(budget=30, batch_size=4, interleave=True, random_state=2)
    pairs = stepwise.ask(n_items=12)
    while len(pairs):
        stepwise.tell(pairs[::-1, ::-1], W[pairs[::-1, 0], pairs[::-1, 1]])  # any order, either orientation
        pairs = stepwise.ask()
    assert stepwise.n_queries_ == 30
    assert set(map(tuple, stepwise.queries_[["i", "j"]].values)) == set(map(tuple, fitted.queries_[["i", "j"]].values))
    np.testing.assert_array_equal(stepwise.labels_, fitted.labels_)


def test_ask_does_not_ask_a_pending_pair_again_and_respects_the_budget():
    model = ActiveSpectralClustering(budget=7, random_state=0)
    first = model.ask(4, n_items=5)
    second = model.ask(4)
    assert len(first) == 4 and len(second) == 3
    assert not set(map(tuple, first)) & set(map(tuple, second))
    assert len(model.ask(2)) == 0


def test_tell_refuses_unknown_items_and_pairs_never_asked():
    model = ActiveSpectralClustering(budget=6, random_state=0)
    with pytest.raises(NotFittedError, match="call ask"):
        model.tell([[0, 1]], [0.5])
    pairs = model.ask(2, n_items=5)
    other = next((i, j) for i in range(5) for j in range(i + 1, 5) if (i, j) not in set(map(tuple, pairs)))
    with pytest.raises(InputError, match=rf"pair \({other[0]}, {other[1]}\) was never asked"):
        model.tell([other], [0.5])
    with pytest.raises(InputError, match="unknown item"):
        model.tell([[0, 7]], [0.5])
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        model.tell(pairs[:1], [1.2])
    with pytest.raises(ShapeMismatchError, match="1 entries but there are 2 pairs"):
        model.tell(pairs, [0.5])
    model.tell(pairs[:1], [0.5])
    with pytest.raises(InputError, match="answered already"):
        model.tell(pairs[:1], [0.5])
    with pytest.raises(InputError, match=rf"pair \({pairs[1, 0]}, {pairs[1, 1]}\) was asked 1 time\(s\) but is named 2 times"):
        model.tell(np.vstack([pairs[1:], pairs[1:]]), [0.1, 0.2])  # asked once, answered twice


# -- bad input -----------------------------------------------------------------------------------------------
W5 = two_gaussians(n=5, seed=12)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"budget": 11}, r"budget=11 measurements is more than the 10 possible for 5 items \(n\(n−1\)/2 = 10 pairs"),
        ({"budget": 21, "repeats": 2}, r"the 20 possible .* at most repeats=2 times"),
        ({"budget": 0}, "budget must be"),
        ({"budget": 1.5}, "budget must be"),
        ({"budget": -0.1}, "budget must be"),
        ({"repeats": 0}, "repeats must be an integer >= 1"),
        ({"strategy": "iu-red"}, "strategy must be one of 'iu_red', 'shamir_tishby', 'random'"),
        ({"batch_size": 0}, "batch_size"),
        ({"n_clusters": 6}, "n_clusters=6 but there are only 5 items"),
        ({"n_clusters": 1}, "n_clusters"),
        ({"random_state": -1}, "random_state"),
        ({"interleave": "yes"}, "interleave"),
        ({"strategy": "random", "interleave": True}, "interleave alternates .* with strategy='random' it changes nothing"),
        ({"store": 3}, "store must be None or a file path, an SQLAlchemy URL or a MeasurementStore"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ParameterError, match=match):
        ActiveSpectralClustering(**params).fit(MatrixOracle(W5))


def test_bad_oracles_and_answers():
    with pytest.raises(ParameterError, match="oracle must have a query"):
        ActiveSpectralClustering().fit(W5)

    class Broken:
        n_items = 5

        def __init__(self, answer):
            self.answer = answer

        def query(self, pairs):
            return np.full(len(pairs), self.answer)

    with pytest.raises(InputError, match="Broken answered nan"):
        ActiveSpectralClustering(budget=3).fit(Broken(np.nan))
    with pytest.raises(InputError, match="Broken answered 1.5"):
        ActiveSpectralClustering(budget=3).fit(Broken(1.5))
    with pytest.raises(InputError, match="at least 3"):
        ActiveSpectralClustering(budget=1).fit(Broken(0.5), n_items=2)
    with pytest.raises(ShapeMismatchError, match="reference must give one label per item"):
        ActiveSpectralClustering(budget=3).fit(MatrixOracle(W5), reference=[0, 1])


def test_progress_bar_runs_and_changes_nothing():
    W = two_gaussians(n=10, seed=13)
    quiet = ActiveSpectralClustering(budget=20, random_state=0).fit(MatrixOracle(W))
    shown = ActiveSpectralClustering(budget=20, random_state=0, progress=True).fit(MatrixOracle(W))
    pd.testing.assert_frame_equal(quiet.queries_, shown.queries_)


# -- withdrawing asks ---------------------------------------------------------------------------------------------
def test_withdrawn_asks_stop_counting_against_the_budget_and_refuse_answers():
    W = two_gaussians(n=8, seed=1)
    model = ActiveSpectralClustering(budget=6, random_state=0)
    pairs = model.ask(4, n_items=8)
    withdrawn = model.withdraw(pairs[:2, ::-1])  # either orientation
    np.testing.assert_array_equal(withdrawn, pairs[:2])
    with pytest.raises(InputError, match=rf"pair \({pairs[0, 0]}, {pairs[0, 1]}\) was never asked \(or was withdrawn\)"):
        model.tell(pairs[:1], [0.5])
    model.tell(pairs[2:], W[pairs[2:, 0], pairs[2:, 1]])
    more = model.ask(10)  # 6 - 2 measured - 0 pending: the two withdrawn asks are free again
    assert len(more) == 4 and model.n_queries_ == 2


def test_withdrawing_every_ask_returns_the_session_to_before_the_ask():
    """Nothing was measured, so the pairs are chosen again, and the session goes on as one that never asked."""
    W = two_gaussians(n=12, seed=11)
    plain = ActiveSpectralClustering(budget=24, batch_size=4, random_state=2)
    withdrawing = ActiveSpectralClustering(budget=24, batch_size=4, random_state=2)
    first = plain.ask(n_items=12)
    np.testing.assert_array_equal(withdrawing.ask(n_items=12), first)
    np.testing.assert_array_equal(withdrawing.withdraw(), first)  # every pending ask, in the order asked
    everything = withdrawing.ask(30)
    assert len(everything) == 24  # the whole budget is free again
    np.testing.assert_array_equal(withdrawing.withdraw(), everything)
    assert withdrawing.withdraw().shape == (0, 2)  # nothing pending: nothing withdrawn
    pairs = withdrawing.ask()
    np.testing.assert_array_equal(pairs, first)  # chosen again: same estimate, same choice
    for model, asked in ((plain, first), (withdrawing, pairs)):
        while len(asked):
            model.tell(asked, W[asked[:, 0], asked[:, 1]])
            asked = model.ask()
    pd.testing.assert_frame_equal(withdrawing.queries_, plain.queries_)
    np.testing.assert_array_equal(withdrawing.labels_, plain.labels_)


@pytest.mark.parametrize(
    "which, error, words",
    [
        ("never", InputError, "was never asked (or was withdrawn); withdraw() takes pairs that ask() returned"),
        ("answered", InputError, "was answered already; withdraw()"),
        ("twice", InputError, "was asked 1 time(s) but is named 2 times"),
        ("unknown", InputError, "unknown item"),
        ("itself", InputError, "with itself"),
        ("shape", ShapeMismatchError, "shape (m, 2)"),
    ],
)
def test_withdrawing_a_pair_that_is_not_pending_changes_nothing(which, error, words):
    W = two_gaussians(n=8, seed=3)
    model = ActiveSpectralClustering(budget=10, random_state=0)
    pairs = model.ask(4, n_items=8)
    model.tell(pairs[:1], W[pairs[:1, 0], pairs[:1, 1]])
    asked = set(map(tuple, pairs))
    never = next((i, j) for i in range(8) for j in range(i + 1, 8) if (i, j) not in asked)
    bad = {"never": [never], "answered": pairs[:1], "twice": [pairs[1], pairs[1]], "unknown": [[0, 8]],
           "itself": [[2, 2]], "shape": [[0, 1, 2]]}[which]
    with pytest.raises(error) as caught:
        model.withdraw(np.vstack([pairs[2:3], bad]) if which not in ("shape",) else bad)
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert model._session.loop.pending == [tuple(map(int, pair)) for pair in pairs[1:]]  # pairs[2] is still pending
    assert len(model.ask(10)) == 10 - 1 - 3


def test_withdraw_before_any_ask_has_nothing_to_withdraw():
    with pytest.raises(NotFittedError, match="nothing to withdraw"):
        ActiveSpectralClustering(budget=5).withdraw()
