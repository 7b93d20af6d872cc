"""Null calibration of the PDA permutation test (seed 004, "Two-sample Testing").

The seed evaluates the significance of D(β̂ᵀX, β̂ᵀY) "via permutation testing
(exact Type I error control)". When X and Y come from the same distribution,
the observed split and the B random splits are exchangeable, whatever the
estimator does (PDA's solver settings, its random restarts), as long as the
whole statistic is refitted on every split. The rank b of the observed
statistic among the permuted ones is then uniform on {0, ..., B}, and the
p-value (b + 1)/(B + 1) is uniform on the grid {1/(B + 1), ..., 1}.
"""

import numpy as np
import pytest
import scipy.stats
from joblib import Parallel, delayed

from paucity.differences import PDA, permutation_test

# Cheap solver settings: the test is about the p-value, not about finding the best direction. The
# statistic still goes through RELAX and tightening (with a random restart) on every split.
CHEAP = {"max_iter": 10, "patience": 5, "n_restarts": 1, "tighten_max_iter": 30}


def null_pvalue(run: int, n: int, d: int, n_permutations: int, settings: dict) -> float:
    """The permutation p-value of PDA on two samples of the same Gaussian, seeded by ``run``."""
    rng = np.random.default_rng([2024, run])
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(n, d))
    result = permutation_test(X, Y, PDA(random_state=run, **settings), n_permutations=n_permutations,
                              random_state=run)
    return result.pvalue


@pytest.mark.slow  # 8 to 37 s: run by make test-slow, to keep make test near ten minutes
def test_null_pvalues_small():
    """A small version that cannot be flaky: 30 runs, B = 19, loose bounds only.

    Under the null hypothesis the mean of 30 p-values uniform on {1/20, ..., 1} is
    0.525 with standard deviation about 0.053; the bounds are four standard
    deviations away. The runs are seeded, so the outcome is fixed.
    """
    B = 19
    settings = {"max_iter": 3, "patience": 3, "n_restarts": 0, "tighten_max_iter": 10}
    pvalues = np.array([null_pvalue(run, 20, 3, B, settings) for run in range(30)])
    grid = pvalues * (B + 1)
    assert np.allclose(grid, np.round(grid)) and grid.min() >= 1 and grid.max() <= B + 1
    assert 0.3 < pvalues.mean() < 0.75
    assert np.mean(pvalues <= 0.1) <= 0.3
    assert len(np.unique(pvalues)) >= 5


@pytest.mark.slow
def test_null_pvalues_are_uniform():
    """200 independent null runs (n = m = 40, d = 5, B = 39): the p-values are uniform.

    Permutation p-values are discrete, on the atoms k/(B + 1), and a
    Kolmogorov–Smirnov test of uniformity on [0, 1] applied to them directly
    rejects for small B (the empirical distribution function jumps by a whole
    atom of mass 1/(B + 1) at once). The standard randomization makes them
    continuous: with U ~ Uniform(0, 1) independent of everything,
    p − U/(B + 1) = (b + 1 − U)/(B + 1) is exactly Uniform(0, 1) when b is
    uniform on {0, ..., B} (continuous statistics: no ties). So the test
    checks the uniformity of b, which is what exactness means, at the cost of
    B + 1 = 40 fits per run instead of 100. ``scipy.stats.kstest`` must not
    reject uniformity at the 1% level; the raw p-values must also sit on the
    grid and never be 0.
    """
    runs, B = 200, 39
    pvalues = np.array(
        Parallel(n_jobs=2)(delayed(null_pvalue)(run, 40, 5, B, CHEAP) for run in range(runs))
    )
    grid = pvalues * (B + 1)
    assert np.allclose(grid, np.round(grid)) and grid.min() >= 1
    jitter = np.random.default_rng(7).uniform(size=runs)
    randomized = pvalues - jitter / (B + 1)
    result = scipy.stats.kstest(randomized, "uniform")
    assert result.pvalue > 0.01, (result, np.bincount(np.round(grid).astype(int), minlength=B + 2))
    # and the level: P(p ≤ 0.05) is 2/40 = 0.05 exactly under the null; 200 runs give ≈ 10 ± 3
    assert np.mean(pvalues <= 0.05) <= 0.1
