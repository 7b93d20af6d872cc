"""The permutation test: its p-value, its null distribution, and where it runs."""

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import scipy.stats
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

from paucity._errors import (
    InputError,
    InputTypeError,
    ParameterError,
    PaucityError,
    ShapeMismatchError,
)
from paucity.differences.permutation import PermutationTestResult, permutation_test


def mean_gap(X, Y):
    """|mean of feature 0 in X − mean of feature 0 in Y|."""
    X, Y = np.asarray(X), np.asarray(Y)
    return abs(X[:, 0].mean() - Y[:, 0].mean())


class ProjectedMeanGap(BaseEstimator):
    """Squared difference of the means projected on ``direction``; checks what fit receives."""

    def __init__(self, direction=(1.0, 0.0), columns=None):
        self.direction = direction
        self.columns = columns

    def fit(self, X, Y):
        if self.columns is not None:
            assert isinstance(X, pd.DataFrame) and isinstance(Y, pd.DataFrame)
            assert list(X.columns) == list(self.columns) == list(Y.columns)
        direction = np.asarray(self.direction, dtype=float)
        # in one memory order: a frame's values may be column-major (pandas 3), and a column mean sums in another
        # order there, a last bit away from the array's
        X, Y = np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(Y, dtype=float)
        gap = (X.mean(axis=0) - Y.mean(axis=0)) @ direction
        self.divergence_ = float(gap**2)
        return self


class NoDivergence(BaseEstimator):
    def fit(self, X, Y):
        return self


def samples(n=12, m=10, d=2, shift=0.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    Y[:, 0] += shift
    return X, Y


def assert_same(a, b):
    assert a.statistic == b.statistic
    assert a.pvalue == b.pvalue
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    assert a.n_permutations == b.n_permutations


# -- the p-value and the null distribution ---------------------------------------------------------
def test_pvalue_counts_the_null_at_least_as_large_plus_one():
    X, Y = samples(shift=0.5)
    result = permutation_test(X, Y, mean_gap, n_permutations=49, random_state=3)
    assert isinstance(result, PermutationTestResult)
    assert result.n_permutations == 49
    assert result.null_distribution.shape == (49,)
    assert result.null_distribution.dtype == np.float64
    assert result.statistic == mean_gap(X, Y)
    b = int(np.sum(result.null_distribution >= result.statistic))
    assert result.pvalue == (b + 1) / 50


def test_same_seed_same_result_and_another_seed_another():
    X, Y = samples()
    first = permutation_test(X, Y, mean_gap, n_permutations=30, random_state=7)
    assert_same(first, permutation_test(X, Y, mean_gap, n_permutations=30, random_state=7))
    assert_same(first, permutation_test(X, Y, mean_gap, n_permutations=30, random_state=np.random.default_rng(7)))
    other = permutation_test(X, Y, mean_gap, n_permutations=30, random_state=8)
    assert other.statistic == first.statistic
    assert not np.array_equal(other.null_distribution, first.null_distribution)


def test_ties_by_symmetry_count_as_at_least_as_large():
    # X holds the three largest values, so only splits that give X the same rows tie with the
    # observed split; summed in another order, some of them come out one ulp below it
    X = np.array([[0.1], [0.2], [0.7]])
    Y = np.array([[0.0], [0.01], [0.02]])

    def sum_in_order(X, Y):  # plain left-to-right addition (Python 3.12's sum() compensates, and would not err)
        total = 0.0
        for value in X[:, 0]:
            total += float(value)
        return total

    result = permutation_test(X, Y, sum_in_order, n_permutations=400, random_state=0)
    assert result.statistic == 1.0
    ties = np.abs(result.null_distribution - 1.0) < 1e-9
    assert np.any(result.null_distribution[ties] < 1.0)
    assert np.all(result.null_distribution[~ties] < 0.99)
    assert result.pvalue == (int(ties.sum()) + 1) / 401


def test_the_null_lies_on_the_statistics_of_all_splits():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(3, 2))
    Y = rng.normal(size=(3, 2))
    pooled = np.vstack([X, Y])
    splits = []
    for chosen in itertools.combinations(range(6), 3):
        rest = [i for i in range(6) if i not in chosen]
        splits.append(mean_gap(pooled[list(chosen)], pooled[rest]))
    splits = np.array(splits)
    assert len(splits) == 20
    result = permutation_test(X, Y, mean_gap, n_permutations=2000, random_state=0)
    # every permuted value is one of the 20 splits' (up to the order of the sums)
    distance = np.abs(result.null_distribution[:, None] - splits[None, :]).min(axis=1)
    assert distance.max() < 1e-12
    # and with many permutations the p-value approaches the exact one scipy enumerates
    exact = scipy.stats.permutation_test(
        (X[:, 0], Y[:, 0]),
        lambda x, y: abs(x.mean() - y.mean()),
        permutation_type="independent",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=False,
    )
    assert exact.pvalue == pytest.approx(np.mean(splits >= result.statistic - 1e-12))
    assert result.pvalue == pytest.approx(exact.pvalue, abs=0.04)


def test_pvalues_under_the_null_are_valid():
    pvalues = []
    for seed in range(100):
        X, Y = samples(n=15, m=15, d=1, seed=seed)
        pvalues.append(permutation_test(X, Y, mean_gap, n_permutations=19, random_state=seed).pvalue)
    pvalues = np.array(pvalues)
    k = np.round(pvalues * 20)
    np.testing.assert_allclose(pvalues, k / 20)
    assert k.min() >= 1 and k.max() <= 20
    # P(p <= 0.2) = 0.2 under the null; 100 runs give 20 ± 4, with a loose band
    assert 5 <= np.sum(pvalues <= 0.2 + 1e-12) <= 36


def test_clearly_shifted_samples_reach_the_smallest_pvalue():
    X, Y = samples(n=20, m=20, shift=5.0, seed=2)
    result = permutation_test(X, Y, mean_gap, n_permutations=99, random_state=0)
    assert result.pvalue == 1 / 100
    assert result.statistic > result.null_distribution.max()


def test_an_infinite_statistic_is_kept_and_nan_refused():
    X, Y = samples()
    result = permutation_test(X, Y, lambda X, Y: np.inf, n_permutations=9, random_state=0)
    assert result.statistic == np.inf and result.pvalue == 1.0
    with pytest.raises(InputError, match="NaN on the observed samples"):
        permutation_test(X, Y, lambda X, Y: np.nan, n_permutations=9, random_state=0)
    first_row = X[0, 0]

    def nan_when_moved(X, Y):
        return 0.0 if X[0, 0] == first_row else np.nan

    with pytest.raises(InputError, match="NaN on permutation"):
        permutation_test(X, Y, nan_when_moved, n_permutations=9, random_state=0)


def test_the_permutations_are_drawn_in_blocks_from_one_stream():
    from paucity.differences import permutation as module

    X, Y = samples(n=7, m=5)
    drawn = np.concatenate(list(module._draw(np.random.default_rng(3), 12, 2500)))
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(drawn, np.array([rng.permutation(12) for _ in range(2500)]))
    sizes = [len(block) for block in module._draw(np.random.default_rng(3), 12, 2500)]
    assert sizes == [1024, 1024, 452]
    # long rows: fewer permutations per block, so a block holds at most 2**24 indices
    assert len(next(module._draw(np.random.default_rng(0), 1 << 20, 100))) == 16


def test_many_permutations_need_no_matrix_of_them_all(monkeypatch):
    from paucity.differences import permutation as module

    monkeypatch.setattr(module, "_BLOCK", 7)  # the same stream, in blocks of 7
    X, Y = samples(shift=0.4)
    small_blocks = permutation_test(X, Y, mean_gap, n_permutations=40, random_state=5)
    monkeypatch.undo()
    assert_same(small_blocks, permutation_test(X, Y, mean_gap, n_permutations=40, random_state=5))
    monkeypatch.setattr(module, "_BLOCK", 7)
    assert_same(small_blocks, permutation_test(X, Y, mean_gap, n_permutations=40, random_state=5, n_jobs=2))


def test_the_null_distribution_is_pinned_for_a_seed():
    # the permutations of seed 0 are numpy's rng.permutation(n + m) drawn one after the other
    X, Y = samples(n=4, m=3, d=1)
    result = permutation_test(X, Y, mean_gap, n_permutations=3, random_state=0)
    pooled = np.vstack([X, Y])
    rng = np.random.default_rng(0)
    expected = [mean_gap(pooled[index[:4]], pooled[index[4:]]) for index in (rng.permutation(7) for _ in range(3))]
    np.testing.assert_array_equal(result.null_distribution, expected)


# -- estimators ------------------------------------------------------------------------------------
def test_an_estimator_is_cloned_and_left_unfitted():
    X, Y = samples(shift=1.0)
    estimator = ProjectedMeanGap(direction=(0.0, 1.0))
    result = permutation_test(X, Y, estimator, n_permutations=29, random_state=1)
    assert not hasattr(estimator, "divergence_")
    assert estimator.get_params() == {"direction": (0.0, 1.0), "columns": None}
    assert result.statistic == ProjectedMeanGap(direction=(0.0, 1.0)).fit(X, Y).divergence_
    # the parameters reach every clone: the statistic is the squared gap along feature 1
    assert result.statistic == pytest.approx((X.mean(0) - Y.mean(0))[1] ** 2)
    shifted = permutation_test(X, Y, ProjectedMeanGap(direction=(1.0, 0.0)), n_permutations=29, random_state=1)
    assert shifted.statistic == pytest.approx((X.mean(0) - Y.mean(0))[0] ** 2)


def test_dataframes_stay_dataframes_with_their_columns():
    X, Y = samples(d=3, shift=1.0)
    columns = ["gene_a", "gene_b", "gene_c"]
    frame_x = pd.DataFrame(X, columns=columns)
    frame_y = pd.DataFrame(Y, columns=columns)
    estimator = ProjectedMeanGap(direction=(1.0, 0.0, 0.0), columns=tuple(columns))
    result = permutation_test(frame_x, frame_y, estimator, n_permutations=19, random_state=0)
    plain = permutation_test(X, Y, ProjectedMeanGap(direction=(1.0, 0.0, 0.0)), n_permutations=19, random_state=0)
    assert_same(result, plain)
    # Y's columns in another order are put in X's; an array beside a frame gets its columns
    reordered = permutation_test(frame_x, frame_y[columns[::-1]], estimator, n_permutations=19, random_state=0)
    assert_same(reordered, plain)
    assert_same(permutation_test(frame_x, Y, estimator, n_permutations=19, random_state=0), plain)
    with pytest.raises(InputError, match="same columns"):
        permutation_test(frame_x, frame_y.rename(columns={"gene_c": "gene_z"}), estimator, n_permutations=5)
    twice = pd.DataFrame(Y, columns=["gene_a", "gene_a", "gene_b"])
    with pytest.raises(InputError, match="names repeat"):
        permutation_test(frame_x, twice, estimator, n_permutations=5)
    with pytest.raises(InputTypeError, match="not numeric"):
        permutation_test(frame_x.assign(gene_c="x"), frame_y, estimator, n_permutations=5)
    with pytest.raises(InputError, match="NaN or infinite"):
        permutation_test(frame_x.assign(gene_c=np.nan), frame_y, estimator, n_permutations=5)


def test_sparse_input_is_permuted_as_rows():
    X, Y = samples(shift=1.0)

    def sparse_gap(X, Y):
        assert sp.issparse(X) and sp.issparse(Y)
        return mean_gap(X.toarray(), Y.toarray())

    result = permutation_test(sp.csr_matrix(X), sp.csc_matrix(Y), sparse_gap, n_permutations=19, random_state=0)
    assert_same(result, permutation_test(X, Y, mean_gap, n_permutations=19, random_state=0))
    with pytest.raises(InputTypeError, match="both as DataFrames"):
        permutation_test(pd.DataFrame(X), sp.csr_matrix(Y), sparse_gap, n_permutations=5)


def test_an_error_on_one_permutation_propagates():
    X, Y = samples()
    X[0, 0] = 99.0

    def refuses_the_marker_in_Y(X, Y):
        if np.any(Y[:, 0] == 99.0):
            raise InputError("the marker row landed in Y")
        return mean_gap(X, Y)

    with pytest.raises(InputError, match="marker row landed in Y"):
        permutation_test(X, Y, refuses_the_marker_in_Y, n_permutations=20, random_state=0)
    with pytest.raises(InputError, match="marker row landed in Y"):
        permutation_test(X, Y, refuses_the_marker_in_Y, n_permutations=20, random_state=0, n_jobs=2)


# -- where it runs ---------------------------------------------------------------------------------
def test_joblib_equals_sequential_bit_for_bit():
    X, Y = samples(shift=0.3)
    for statistic in (mean_gap, ProjectedMeanGap(direction=(0.6, 0.8))):
        one = permutation_test(X, Y, statistic, n_permutations=40, random_state=5, n_jobs=1)
        assert_same(one, permutation_test(X, Y, statistic, n_permutations=40, random_state=5, n_jobs=None))
        assert_same(one, permutation_test(X, Y, statistic, n_permutations=40, random_state=5, n_jobs=2))
        assert_same(one, permutation_test(X, Y, statistic, n_permutations=40, random_state=5, n_jobs=-1))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_progress_bar_changes_nothing(n_jobs):
    X, Y = samples()
    quiet = permutation_test(X, Y, mean_gap, n_permutations=25, random_state=4, n_jobs=n_jobs)
    shown = permutation_test(X, Y, mean_gap, n_permutations=25, random_state=4, n_jobs=n_jobs, progress=True)
    assert_same(quiet, shown)


def test_dask_equals_sequential_bit_for_bit():
    distributed = pytest.importorskip("distributed")
    X, Y = samples(shift=0.3)
    frame_x = pd.DataFrame(X, columns=["a", "b"])
    frame_y = pd.DataFrame(Y, columns=["a", "b"])
    estimator = ProjectedMeanGap(direction=(0.6, 0.8), columns=("a", "b"))
    one = permutation_test(X, Y, mean_gap, n_permutations=30, random_state=5)
    one_frames = permutation_test(frame_x, frame_y, estimator, n_permutations=30, random_state=5)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster):
        assert_same(one, permutation_test(X, Y, mean_gap, n_permutations=30, random_state=5, n_jobs="dask"))
        assert_same(
            one, permutation_test(X, Y, mean_gap, n_permutations=30, random_state=5, n_jobs="dask", progress=True)
        )
        assert_same(
            one_frames, permutation_test(frame_x, frame_y, estimator, n_permutations=30, random_state=5, n_jobs="dask")
        )
        X[0, 0] = 99.0

        def refuses_the_marker_in_Y(X, Y):
            if np.any(Y[:, 0] == 99.0):
                raise InputError("the marker row landed in Y")
            return mean_gap(X, Y)

        with pytest.raises(InputError, match="marker row landed in Y"):
            permutation_test(X, Y, refuses_the_marker_in_Y, n_permutations=20, random_state=0, n_jobs="dask")


def test_dask_without_a_client_is_a_parameter_error():
    distributed = pytest.importorskip("distributed")
    try:
        distributed.get_client()
    except ValueError:
        pass
    else:
        pytest.skip("a dask client is already running")
    X, Y = samples()
    with pytest.raises(ParameterError, match="none is running"):
        permutation_test(X, Y, mean_gap, n_permutations=5, n_jobs="dask")


# -- bad parameters and bad input ------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_permutations": 0}, "permutation_test: n_permutations must be an integer >= 1, got 0"),
        ({"n_permutations": -3}, "n_permutations must be an integer >= 1"),
        ({"n_permutations": 2.5}, "n_permutations must be an integer"),
        ({"n_permutations": True}, "n_permutations must be an integer"),
        ({"n_permutations": "100"}, "n_permutations must be an integer"),
        ({"n_permutations": 1_000_001}, r"n_permutations=1000001 is more than 1,000,000: every permutation refits"),
        ({"n_permutations": 10**20}, "is more than 1,000,000"),
        ({"random_state": -1}, "permutation_test: random_state must be a non-negative integer seed"),
        ({"progress": "yes"}, "progress must be True or False"),
        ({"n_jobs": 0}, "n_jobs must be"),
        ({"n_jobs": -2}, "n_jobs must be"),
        ({"n_jobs": 1.5}, "n_jobs must be"),
        ({"n_jobs": True}, "n_jobs must be"),
        ({"n_jobs": "threads"}, "n_jobs must be"),
        ({"random_state": "seed"}, "random_state must be"),
    ],
)
def test_bad_parameters(kwargs, message):
    X, Y = samples()
    with pytest.raises(ParameterError, match=message):
        permutation_test(X, Y, mean_gap, **kwargs)


@pytest.mark.parametrize(
    "estimator, message",
    [
        (None, "estimator must be an estimator with fit"),
        (3.0, "estimator must be an estimator with fit"),
        (ProjectedMeanGap, r"pass an instance such as ProjectedMeanGap\(\)"),
        (NoDivergence(), "no attribute divergence_ after fit"),
        (lambda X, Y: "large", "the statistic must be a real number"),
        (lambda X, Y: np.ones(2), "the statistic must be a real number"),
    ],
)
def test_bad_estimators(estimator, message):
    X, Y = samples()
    with pytest.raises(ParameterError, match=message):
        permutation_test(X, Y, estimator, n_permutations=5)


@pytest.mark.parametrize(
    "X, Y, error, message",
    [
        (np.zeros((5, 2)), np.zeros((5, 3)), ShapeMismatchError, "X has 2 columns but Y has 3"),
        (np.zeros((1, 2)), np.zeros((5, 2)), InputError, "X has 1 row"),
        (np.zeros((5, 2)), np.zeros((1, 2)), InputError, "Y has 1 row"),
        (np.zeros(5), np.zeros((5, 1)), InputError, "2-dimensional"),
        (np.zeros((5, 0)), np.zeros((5, 0)), InputError, "0 feature"),
        ([["a", "b"], ["c", "d"]], np.zeros((2, 2)), InputTypeError, "must hold numbers"),
        (np.array([[1.0, np.nan], [2.0, 3.0]]), np.zeros((2, 2)), InputError, "NaN or infinite"),
        (np.zeros((3, 2)), np.array([[1.0, np.inf], [2.0, 3.0]]), InputError, "NaN or infinite"),
    ],
)
def test_bad_input(X, Y, error, message):
    with pytest.raises(error, match=message):
        permutation_test(X, Y, mean_gap, n_permutations=5)


junk = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.lists(st.text(max_size=3), max_size=4),
    st.lists(st.lists(st.floats(-1e6, 1e6), min_size=0, max_size=3), max_size=4),
    st.lists(st.lists(st.one_of(st.text(max_size=2), st.floats(-10, 10)), min_size=1, max_size=3), max_size=4),
    st.builds(
        lambda shape, seed: np.random.default_rng(seed).normal(size=shape),
        st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple),
        st.integers(0, 10),
    ),
    st.builds(
        lambda rows, columns, seed: np.random.default_rng(seed).normal(size=(rows, columns)),
        st.integers(0, 5),
        st.integers(1, 2),
        st.integers(0, 10),
    ),
    st.builds(
        lambda rows, text: pd.DataFrame({"a": np.arange(rows, dtype=float), "b": [text] * rows}),
        st.integers(0, 4),
        st.text(max_size=2),
    ),
    st.builds(
        lambda shape, values: np.full(shape, values),
        st.tuples(st.integers(0, 4), st.integers(0, 3)),
        st.sampled_from([0.0, 1.0, np.nan, np.inf, -np.inf]),
    ),
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=junk, Y=junk)
def test_junk_only_raises_paucity_errors(X, Y):
    try:
        result = permutation_test(X, Y, mean_gap, n_permutations=3, random_state=0)
    except (InputError, InputTypeError, ShapeMismatchError, ParameterError) as error:
        assert isinstance(error, PaucityError)
        assert str(error)
    else:
        assert 0.25 <= result.pvalue <= 1.0
