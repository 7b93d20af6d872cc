"""The simulation on a complete matrix: the estimator with the matrix as its oracle, and its error curve."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, ParameterError, ShapeMismatchError
from paucity.clustering import (
    ActiveSpectralClustering,
    BetaNoise,
    MatrixOracle,
    misclustering_error,
    simulate,
    spectral_bisection,
)


def similarities(n=12, seed=0, shift=3.0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [shift, 0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)


NAMES = ["00024", "NA", "3", "00003", "null", "b", "c", "d", "e", "f", "g", "h"]


# -- the simulation ------------------------------------------------------------------------------------------------
def test_simulate_is_the_estimator_on_the_matrix_with_its_error_curve():
    W = similarities(n=20, seed=2)
    frame = pd.DataFrame(W, index=[f"x{k}" for k in range(20)], columns=[f"x{k}" for k in range(20)])
    result = simulate(frame, budget=0.3, batch_size=2, interleave=True, random_state=4)
    reference = spectral_bisection(W)
    model = ActiveSpectralClustering(budget=0.3, batch_size=2, interleave=True, random_state=4)
    model.fit(MatrixOracle(W), reference=reference)
    np.testing.assert_array_equal(result.labels, model.labels_)
    np.testing.assert_array_equal(result.reference, reference)
    pd.testing.assert_frame_equal(result.history, model.history_)
    assert result.n_queries == model.n_queries_ == round(0.3 * 190) == result.budget
    assert result.error == misclustering_error(model.labels_, reference) == result.history["error"].iloc[-1]
    assert result.queries["i"].iloc[0] == f"x{model.queries_['i'].iloc[0]}"
    table = result.to_frame()
    assert table.columns.tolist() == ["item", "label", "reference", "embedding"]
    assert table["item"].tolist() == list(frame.index)
    assert result.to_dict()["fraction"] == pytest.approx(57 / 190)


def test_simulate_with_noise_draws_the_noise_from_its_own_seed():
    W = similarities(n=10, seed=3)
    result = simulate(W, budget=40, repeats=3, concentration=10, adversarial=0.1, random_state=7)
    oracle = MatrixOracle(W, noise=BetaNoise(concentration=10, adversarial=0.1), random_state=np.random.default_rng([7, 1]))
    model = ActiveSpectralClustering(budget=40, repeats=3, random_state=7).fit(oracle, reference=spectral_bisection(W))
    np.testing.assert_array_equal(result.queries["value"].to_numpy(), model.queries_["value"].to_numpy())
    assert result.queries["repeat"].max() > 1
    again = simulate(W, budget=40, repeats=3, concentration=10, adversarial=0.1, random_state=7)
    pd.testing.assert_frame_equal(again.queries, result.queries)


def test_more_clusters_are_scored_against_the_complete_matrix_with_as_many():
    W = np.kron(np.eye(3), np.full((5, 5), 0.9)) + 0.05
    np.fill_diagonal(W, 1)
    result = simulate(W, budget=1.0, n_clusters=3, random_state=0)
    assert sorted(np.unique(result.reference)) == [0, 1, 2]
    assert result.error == 0.0


@pytest.mark.parametrize(
    "change, error, words",
    [
        (lambda W: W.__setitem__((0, 1), np.nan), InputError, ["no value for the pair ('0', '1')"]),
        (lambda W: W.__setitem__((2, 3), 1.5), InputError, ["1.5", "in [0, 1]"]),
        (lambda W: W.__setitem__((2, 3), -0.1), InputError, ["-0.1", "in [0, 1]"]),
        (lambda W: W.__setitem__((4, 1), 0.0), InputError, ["not symmetric", "('1', '4')"]),
    ],
)
def test_bad_matrices_are_refused_naming_the_items(change, error, words):
    W = similarities(n=6)
    change(W)
    with pytest.raises(error) as caught:
        simulate(W)
    for word in words:
        assert word in str(caught.value)


def test_the_diagonal_is_not_used():
    W = similarities(n=8)
    other = W.copy()
    np.fill_diagonal(other, np.nan)
    assert simulate(other, budget=10, random_state=0).labels.tolist() == simulate(W, budget=10, random_state=0).labels.tolist()


def test_too_few_items_a_budget_too_large_and_no_repeats_are_refused():
    with pytest.raises(InputError, match="2 item"):
        simulate(np.array([[1, 0.5], [0.5, 1]]))
    with pytest.raises(ShapeMismatchError, match="square"):
        simulate(np.ones((3, 4)))
    with pytest.raises(ParameterError, match="budget=16 .* 15 possible"):
        simulate(similarities(n=6), budget=16)
    with pytest.raises(ParameterError, match="repeats"):
        simulate(similarities(n=6), repeats=0)
    with pytest.raises(ParameterError, match="concentration too"):
        simulate(similarities(n=6), adversarial=0.1)


def test_interleave_with_the_random_strategy_is_refused_since_it_changes_nothing():
    import numpy as np
    import pandas as pd

    from paucity._errors import ParameterError
    from paucity.clustering import simulate

    W = pd.DataFrame(np.full((4, 4), 0.5), index=list("abcd"), columns=list("abcd"))
    with pytest.raises(ParameterError, match="interleave alternates .* strategy='random' it changes nothing"):
        simulate(W, strategy="random", interleave=True)
