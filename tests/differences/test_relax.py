"""RELAX finds the planted direction of difference and respects its constraints."""

import numpy as np
import pytest

from paucity._errors import ParameterError
from paucity.differences.relax import relax


def planted(n=80, m=70, d=6, feature=2, scale=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    Y[:, feature] *= scale
    return X, Y


@pytest.mark.parametrize("feature", [0, 2, 5])
def test_relax_points_at_the_feature_that_differs(feature):
    X, Y = planted(feature=feature)
    result = relax(X, Y)
    assert int(np.argmax(np.abs(result.beta))) == feature
    assert np.isclose(np.linalg.norm(result.beta), 1.0)
    assert result.beta[np.flatnonzero(np.abs(result.beta) > 1e-12)[0]] > 0


def test_best_matrix_is_feasible_and_the_objective_is_the_best_seen():
    X, Y = planted()
    result = relax(X, Y, max_iter=200)
    B = result.matrix
    assert np.isclose(np.trace(B), 1.0)
    assert np.linalg.eigvalsh((B + B.T) / 2).min() > -1e-10
    assert result.objective == pytest.approx(result.trace.max())
    assert result.trace[result.best_iteration - 1] == pytest.approx(result.objective)
    assert 0.0 < result.tightness <= 1.0 + 1e-12


def test_the_l1_penalty_sparsifies_the_matrix():
    X, Y = planted(d=8)
    dense = relax(X, Y, lam=0.0, max_iter=150)
    sparse = relax(X, Y, lam=2.0, max_iter=150)
    small = lambda B: np.mean(np.abs(B) < 1e-8)  # noqa: E731
    assert small(sparse.matrix) > small(dense.matrix)
    assert int(np.argmax(np.abs(sparse.beta))) == 2


def test_a_mean_shift_is_found_too():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 5))
    Y = rng.normal(size=(60, 5))
    Y[:, 4] += 2.0
    assert int(np.argmax(np.abs(relax(X, Y).beta))) == 4


@pytest.mark.parametrize("kwargs", [{"lam": -1.0}, {"step_B": 0.0}, {"step_dual": np.nan}])
def test_bad_parameters(kwargs):
    X, Y = planted()
    with pytest.raises(ParameterError):
        relax(X, Y, **kwargs)


def test_a_single_planted_feature_makes_the_relaxation_nearly_tight():
    from paucity.differences.divergences import wasserstein_1d

    X, Y = planted(feature=2, scale=3.0)
    result = relax(X, Y)
    assert result.tightness > 0.9
    along = wasserstein_1d(X[:, 2], Y[:, 2]).value
    # the dual objective bounds the transport cost under B from below, which is near W2 along the feature
    assert 0.9 * along < result.objective < 1.2 * along


def test_fixed_steps_are_available_as_in_the_slides():
    X, Y = planted(feature=1)
    result = relax(X, Y, adaptive=False, step_dual=0.1, max_iter=50)
    assert result.n_iter <= 50 and np.isfinite(result.objective)
