"""Oracles: the protocol, a complete matrix with Beta and adversarial noise, a function of two items."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from paucity._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from paucity.clustering import BetaNoise, FunctionOracle, MatrixOracle, SimilarityOracle

W = np.array([[1.0, 0.9, 0.2, 0.0], [0.9, 1.0, 0.1, 1.0], [0.2, 0.1, 1.0, 0.5], [0.0, 1.0, 0.5, 1.0]])


def test_matrix_oracle_answers_the_truth_in_either_order():
    oracle = MatrixOracle(W)
    np.testing.assert_array_equal(oracle.query([[0, 1], [3, 2], [1, 3]]), [0.9, 0.5, 1.0])
    assert oracle.n_items == 4 and oracle.n_answered == 3
    assert isinstance(oracle, SimilarityOracle)
    assert oracle.query(np.empty((0, 2), dtype=int)).shape == (0,)


@pytest.mark.parametrize("w", [0.0, 0.3, 0.5, 1.0])
def test_beta_noise_has_the_documented_law(w):
    """Beta(1 + κw, 1 + κ(1 − w)): a Kolmogorov-Smirnov test against scipy's Beta, and the mode at w."""
    kappa = 30.0
    answers = BetaNoise(concentration=kappa).sample(np.full(4000, w), np.random.default_rng(1))
    law = stats.beta(1 + kappa * w, 1 + kappa * (1 - w))
    assert stats.kstest(answers, law.cdf).pvalue > 1e-3
    assert answers.min() >= 0 and answers.max() <= 1
    assert np.mean(answers) == pytest.approx((1 + kappa * w) / (2 + kappa), abs=0.01)


def test_zero_concentration_is_uniform_and_adversaries_answer_one_minus_w():
    uniform = BetaNoise(concentration=0).sample(np.full(4000, 0.9), np.random.default_rng(2))
    assert stats.kstest(uniform, "uniform").pvalue > 1e-3
    noise = BetaNoise(concentration=1e12, adversarial=0.25)
    answers = noise.sample(np.full(8000, 0.9), np.random.default_rng(3))
    adversarial = np.isclose(answers, 0.1, atol=1e-4)
    assert np.isclose(answers[~adversarial], 0.9, atol=1e-4).all()
    assert adversarial.mean() == pytest.approx(0.25, abs=0.02)


def test_noisy_matrix_oracle_is_reproducible_and_repeats_differ():
    first = MatrixOracle(W, noise=BetaNoise(10), random_state=7).query([[0, 1], [0, 1], [2, 3]])
    again = MatrixOracle(W, noise=BetaNoise(10), random_state=7).query([[0, 1], [0, 1], [2, 3]])
    np.testing.assert_array_equal(first, again)
    assert first[0] != first[1]


def test_function_oracle_calls_the_function_on_items_or_indices():
    calls = []

    def similarity(a, b):
        calls.append((a, b))
        return 1.0 if a[0] == b[0] else 0.0

    oracle = FunctionOracle(similarity, items=["apple", "avocado", "banana"])
    np.testing.assert_array_equal(oracle.query([[1, 0], [0, 2]]), [1.0, 0.0])
    assert calls == [("apple", "avocado"), ("apple", "banana")]
    assert oracle.n_items == 3
    by_index = FunctionOracle(lambda i, j: 1 / (1 + abs(i - j)), n_items=5)
    np.testing.assert_allclose(by_index.query([[0, 4]]), [0.2])


@pytest.mark.parametrize("answer, match", [(1.5, "1.5 for pair number 0"), (np.nan, "nan"), (-0.1, r"\[0, 1\]")])
def test_function_oracle_refuses_answers_outside_the_unit_interval(answer, match):
    with pytest.raises(InputError, match=match):
        FunctionOracle(lambda a, b: answer, n_items=3).query([[0, 1]])


def test_bad_oracles():
    with pytest.raises(InputError, match="not symmetric"):
        MatrixOracle(np.array([[1, 0.2, 0.3], [0.4, 1, 0.1], [0.3, 0.1, 1]]))
    with pytest.raises(InputError, match="above 1"):
        MatrixOracle(np.array([[1, 2, 0.3], [2, 1, 0.1], [0.3, 0.1, 1]]))
    with pytest.raises(ShapeMismatchError, match="square"):
        MatrixOracle(np.ones((3, 4)))
    with pytest.raises(InputError, match="at least 3"):
        MatrixOracle(np.ones((2, 2)))
    with pytest.raises(ParameterError, match="noise must be None"):
        MatrixOracle(W, noise=0.1)
    with pytest.raises(ParameterError, match="random_state"):
        MatrixOracle(W, random_state=-1)
    with pytest.raises(ParameterError, match="concentration"):
        BetaNoise(concentration=-1)
    with pytest.raises(ParameterError, match="adversarial"):
        BetaNoise(adversarial=1.5)
    with pytest.raises(ParameterError, match="fn must be a callable"):
        FunctionOracle("not a function")
    with pytest.raises(InputError, match="n_items is 4 but items has 3"):
        FunctionOracle(len, items=[1, 2, 3], n_items=4)


@pytest.mark.parametrize(
    "pairs, error, match",
    [
        ([[0, 4]], InputError, "unknown item"),
        ([[2, 2]], InputError, "with itself"),
        ([[0, 1, 2]], ShapeMismatchError, r"\(m, 2\)"),
        ([[0.5, 1]], InputTypeError, "integer"),
        ([["a", "b"]], InputTypeError, "integer"),
    ],
)
def test_bad_pairs(pairs, error, match):
    with pytest.raises(error, match=match):
        MatrixOracle(W).query(pairs)
