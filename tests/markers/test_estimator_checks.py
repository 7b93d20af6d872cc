from sklearn.utils.estimator_checks import parametrize_with_checks

from paucity.markers import InfoSelector


@parametrize_with_checks([InfoSelector(n_features=1), InfoSelector(method="jmi", n_features=2, mode="binary")])
def test_sklearn_compatible(estimator, check):
    check(estimator)
