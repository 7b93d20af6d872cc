"""PDA follows scikit-learn's estimator contract, fitted as fit(X, y) with labels of two values."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from paucity.differences import PDA

# small solver settings: the checks test the contract, not the solver
QUICK = {"max_iter": 20, "patience": 5, "n_restarts": 1, "tighten_max_iter": 20, "random_state": 0}


@parametrize_with_checks([PDA(**QUICK), PDA(sparsity="l1", n_features=1, **QUICK)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
