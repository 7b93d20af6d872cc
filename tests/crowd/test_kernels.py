"""The compiled Z sweep and log Phi against plain references."""

import math

import numpy as np
import pytest
from scipy.special import log_ndtr as scipy_log_ndtr

from paucity.crowd._kernels import log_ndtr, sample_assignments
from paucity.crowd.gibbs import prepare

from . import reference


@pytest.mark.parametrize("x", [-1000.0, -80.0, -38.5, -20.0001, -20.0, -19.99, -7.0, -1.0, 0.0, 0.5, 5.0, 9.0, 40.0])
def test_log_ndtr_matches_scipy_in_both_tails(x):
    assert log_ndtr(x) == pytest.approx(scipy_log_ndtr(x), rel=1e-12, abs=1e-300)


def test_log_ndtr_is_continuous_where_the_formula_switches():
    below, above = log_ndtr(-20.0 - 1e-9), log_ndtr(-20.0 + 1e-9)
    assert math.isclose(below, above, rel_tol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_assignment_sweep_matches_the_entry_by_entry_reference(seed):
    rng = np.random.default_rng(seed)
    n, m, d, K = 15, 6, 3, 3
    X = rng.normal(size=(n, d))
    task = rng.integers(0, n, size=40)
    labeler = rng.integers(0, m - 1, size=40)  # the last labeler has no labels
    sign = rng.choice([-1.0, 1.0], size=40)
    data = prepare(X, task, labeler, sign, m)
    gamma = rng.normal(size=(K, d))
    projections = np.ascontiguousarray(X @ gamma.T)
    Z = (rng.random((m, K)) < 0.5).astype(float)
    uniforms = rng.random((m, K))
    alpha = 1.3
    expected = reference.sample_assignments(Z, projections, data.task, data.sign, data.pointer, alpha / K, uniforms)
    got = Z.copy()
    sample_assignments(got, projections, data.task, data.sign, data.pointer, math.log(alpha / K), uniforms,
                       np.empty((3, data.task.size)))
    np.testing.assert_array_equal(got, expected)


def test_truncated_means_match_scipy_in_both_tails():
    from scipy.stats import truncnorm

    from paucity.crowd._kernels import _truncated_means

    for mean in [-30.0, -8.0, -5.0, -4.999, -1.0, 0.0, 0.3, 4.999, 5.0, 8.0, 30.0]:
        low, high = _truncated_means(mean)
        assert low == pytest.approx(truncnorm.mean(-np.inf, -mean, loc=mean), rel=1e-9, abs=1e-9)
        assert high == pytest.approx(truncnorm.mean(-mean, np.inf, loc=mean), rel=1e-9, abs=1e-9)
