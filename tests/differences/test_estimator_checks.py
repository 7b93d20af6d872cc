"""PDA and PDACV follow scikit-learn's estimator contract, fitted as fit(X, y) with labels of two values."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from paucity.differences import PDA, PDACV

# small solver settings: the checks test the contract, not the solver
QUICK = {"max_iter": 20, "patience": 5, "n_restarts": 1, "tighten_max_iter": 20, "random_state": 0}


@parametrize_with_checks([PDA(), PDA(**QUICK), PDA(sparsity="l1", n_features=1, **QUICK)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# PDACV at its defaults: eight penalties fitted on held-out halves in every check, a few minutes in all
@pytest.mark.slow
@parametrize_with_checks([PDACV()])
def test_sklearn_compatible_at_the_defaults(estimator, check):
    check(estimator)
