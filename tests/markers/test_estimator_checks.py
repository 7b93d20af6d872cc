"""scikit-learn's estimator checks, at the default parameters and in the other modes.

The one check skipped, ``check_array_api_input``, needs SCIPY_ARRAY_API set and
an estimator that declares array-API support; InfoSelector reads NumPy, SciPy
sparse and Dask arrays only (its counting kernels are compiled for NumPy).
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from paucity.markers import InfoSelector


@parametrize_with_checks(
    [
        InfoSelector(),
        InfoSelector(method="jmi", n_features=2, mode="binary"),
        InfoSelector(method="entropy2", n_features=2),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
