"""The objectives and M_r (paucity.judgments.objective) against hand-derived values."""

import numpy as np
import pytest

from paucity._errors import ParameterError
from paucity.judgments import objective
from paucity.judgments.objective import (
    check_repeats,
    full_objective,
    full_weights,
    repeat_matrix,
    scoring_objective,
    scoring_terms,
    scoring_weights,
)

SIGMA = np.array([[1.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]])
V = np.array([1.0, 4.0, 0.5])
B = np.array([1.0, 0.5, -0.2])


def test_repeat_matrix_keeps_the_attributes_bought_and_adds_v_over_r():
    M = repeat_matrix(np.array([2, 0, 1]), SIGMA, V)
    np.testing.assert_allclose(M, [[1.0 + 1.0 / 2, 0.0], [0.0, 1.0 + 0.5]])
    assert repeat_matrix(np.zeros(3), SIGMA, V).shape == (0, 0)


def test_full_objective_and_weights_solve_m_r():
    r = np.array([1, 3, 2])
    M = SIGMA + np.diag(V / r)
    w = np.linalg.solve(M, B)
    assert full_objective(r, B, SIGMA, V) == pytest.approx(B @ w)
    np.testing.assert_allclose(full_weights(r, B, SIGMA, V), w)
    assert full_objective([0, 0, 0], B, SIGMA, V) == 0.0
    assert full_weights(np.array([0, 2, 0]), B, SIGMA, V).tolist() == [0.0, 0.5 / (2.0 + 2.0), 0.0]


def test_scoring_terms_weights_and_objective():
    sigma2 = np.diag(SIGMA)
    r = np.array([2, 0, 4])
    terms = scoring_terms(r, B, sigma2, V)
    np.testing.assert_allclose(terms, [1.0 / (1.0 + 0.5), 0.0, 0.04 / (1.0 + 0.125)])
    assert scoring_objective(r, B, sigma2, V) == pytest.approx(terms.sum())
    np.testing.assert_allclose(scoring_weights(r, B, sigma2, V), [1.0 / 1.5, 0.0, -0.2 / 1.125])
    # with a diagonal covariance, Full is Scoring
    assert full_objective(r, B, np.diag(sigma2), V) == pytest.approx(scoring_objective(r, B, sigma2, V))
    np.testing.assert_allclose(full_weights(r, B, np.diag(sigma2), V), scoring_weights(r, B, sigma2, V))
    # a 0/0 term counts as 0
    assert scoring_terms(np.array([1.0]), np.array([0.0]), np.array([0.0]), np.array([0.0])).tolist() == [0.0]


def test_bad_repeat_vectors_are_refused():
    assert check_repeats([1, 0, 2], 3).dtype == np.float64
    for bad in ([1, 2], [1, -1, 0]):
        with pytest.raises(ParameterError, match="repeats must be 3 whole numbers >= 0"):
            full_objective(bad, B, SIGMA, V)


@pytest.mark.parametrize("name", ["full_objective", "scoring_objective"])
def test_the_old_home_of_the_objectives_still_works_with_a_warning(name):
    from paucity.judgments import estimates

    with pytest.warns(FutureWarning, match=f"estimates.{name} is deprecated"):
        old = getattr(estimates, name)
    assert old is getattr(objective, name)
    with pytest.raises(AttributeError):
        estimates.no_such_name  # noqa: B018
