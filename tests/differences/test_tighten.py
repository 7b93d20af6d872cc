"""Tightening climbs the divergence on the sphere, inside the support."""

import numpy as np
import pytest

from paucity._errors import InputError, ParameterError
from paucity.differences.divergences import MannWhitney, wasserstein_1d
from paucity.differences.relax import relax
from paucity.differences.tighten import tighten


def planted(n=90, m=80, d=5, feature=1, scale=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    Y[:, feature] *= scale
    return X, Y


def test_tightening_never_loses_and_reaches_the_planted_axis():
    X, Y = planted()
    start = np.array([0.6, 0.3, 0.5, 0.4, 0.37])
    result = tighten(X, Y, start)
    start_value = wasserstein_1d(X @ (start / np.linalg.norm(start)), Y @ (start / np.linalg.norm(start))).value
    assert result.value >= start_value
    assert result.value == pytest.approx(result.trace.max())
    assert int(np.argmax(np.abs(result.beta))) == 1
    assert abs(result.beta[1]) > 0.95
    assert np.isclose(np.linalg.norm(result.beta), 1.0)
    assert result.value == pytest.approx(wasserstein_1d(X @ result.beta, Y @ result.beta).value)


def test_the_support_is_respected():
    X, Y = planted(feature=1)
    result = tighten(X, Y, np.ones(5), support=[0, 2, 3])
    assert np.all(result.beta[[1, 4]] == 0.0)
    boolean = tighten(X, Y, np.ones(5), support=np.array([True, False, True, True, False]))
    np.testing.assert_allclose(boolean.beta, result.beta)


def test_relax_then_tighten():
    X, Y = planted(feature=3, d=6)
    relaxed = relax(X, Y)
    tightened = tighten(X, Y, relaxed.beta)
    assert tightened.value >= wasserstein_1d(X @ relaxed.beta, Y @ relaxed.beta).value - 1e-12
    assert int(np.argmax(np.abs(tightened.beta))) == 3


def test_a_rank_divergence_finds_a_location_shift():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 4))
    Y = rng.normal(size=(60, 4))
    Y[:, 0] += 1.5
    result = tighten(X, Y, np.array([0.5, 0.5, 0.5, 0.5]), divergence=MannWhitney(smoothing=0.3))
    assert int(np.argmax(np.abs(result.beta))) == 0


@pytest.mark.parametrize(
    "beta, kwargs, error",
    [
        (np.zeros(5), {}, InputError),
        (np.full(5, np.nan), {}, InputError),
        (np.ones(5), {"support": []}, InputError),
        (np.ones(5), {"support": [7]}, InputError),
        (np.ones(5), {"step": -1.0}, ParameterError),
    ],
)
def test_bad_input(beta, kwargs, error):
    X, Y = planted()
    with pytest.raises(error):
        tighten(X, Y, beta, **kwargs)


def test_a_start_with_tiny_weights_on_the_support_is_rescaled_not_divided_by_zero():
    # RELAX's eigenvector can carry weights of 1e-170 off its own support; restricted to another
    # support, ‖β‖² underflows to 0
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 3)), rng.normal(size=(30, 3))
    Y[:, 2] += 2.0
    start = np.array([1.0, 0.0, 1e-170])
    result = tighten(X, Y, start, support=[2])
    assert np.isfinite(result.beta).all() and abs(result.beta[2]) == 1.0
