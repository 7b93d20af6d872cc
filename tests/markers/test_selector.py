import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from paucity._errors import InputError, ParameterError, PaucityWarning, ShapeMismatchError
from paucity.info import BinnedMatrix, discretize
from paucity.markers import InfoSelector, Stepwise, make_objective

from ..info import reference


def random_problem(n=300, m=25, n_classes=4, seed=0, density=0.3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.poisson(1.5, size=(n, m)) * (rng.random((n, m)) < density)
    for j in range(0, m, 3):  # some informative features
        X[:, j] += rng.poisson(2.0 * (y == j % n_classes))
    return sp.csr_matrix(X.astype(np.float32)), y


def slow_greedy(Xd, y, method, n_features, beta=1.0):
    """Algorithm 1 with the objectives of Table 2.1 evaluated from scratch."""
    m = Xd.shape[1]
    selected, scores = [], []
    for _ in range(n_features):
        best, best_score = None, -np.inf
        for j in range(m):
            if j in selected:
                continue
            x = Xd[:, j]
            k = len(selected)
            if method in ("entropy", "entropy2"):
                score = reference.joint_entropy(x)
            else:
                score = reference.interaction(x, y)
            if method == "cife":
                score -= sum(reference.interaction(Xd[:, s], x, y) for s in selected)
            elif method == "jmi" and k:
                score -= sum(reference.interaction(Xd[:, s], x, y) for s in selected) / k
            elif method == "mrmr" and k:
                score -= sum(reference.interaction(Xd[:, s], x) for s in selected) / k
            elif method == "mifs":
                score -= beta * sum(reference.interaction(Xd[:, s], x) for s in selected)
            elif method == "entropy2":
                score -= sum(reference.interaction(Xd[:, s], x) for s in selected)
            if score > best_score + 1e-9:
                best, best_score = j, score
        selected.append(best)
        scores.append(best_score)
    return selected, scores


@pytest.mark.parametrize("method", ["mim", "mifs", "mrmr", "jmi", "cife", "entropy", "entropy2"])
def test_greedy_matches_slow_reference(method):
    X, y = random_problem(n=200, m=12, seed=1)
    Xd = discretize(X, 5).toarray()
    expected, expected_scores = slow_greedy(Xd, y, method, 6, beta=0.5)
    selector = InfoSelector(method=method, n_features=6, beta=0.5)
    selector.fit(X, y if method not in ("entropy", "entropy2") else None)
    assert selector.selected_.tolist() == expected
    np.testing.assert_allclose(selector.scores_, expected_scores, atol=1e-7)


def test_degree_1_is_mim_and_degree_2_is_cife():
    X, y = random_problem(seed=2)
    for degree, method in ((1, "mim"), (2, "cife")):
        a = InfoSelector(method="degree", degree=degree, n_features=8).fit(X, y)
        b = InfoSelector(method=method, n_features=8).fit(X, y)
        np.testing.assert_array_equal(a.selected_, b.selected_)
        np.testing.assert_array_equal(a.scores_, b.scores_)


def test_degree_3_on_a_few_thousand_features():
    rng = np.random.default_rng(3)
    n, m = 1000, 3000
    y = rng.integers(0, 5, n)
    X = sp.random(n, m, density=0.1, random_state=4, format="csr") * 10
    X = X + sp.csr_matrix(np.column_stack([(y == t) * 5.0 for t in range(5)] + [np.zeros((n, m - 5))]))
    selector = InfoSelector(method="degree", degree=3, n_features=6).fit(X, y)
    assert set(range(5)) <= set(selector.selected_.tolist())  # the five planted markers
    assert len(set(selector.selected_.tolist())) == 6
    # the first steps agree with CIFE until triples can matter (|S| >= 2)
    cife = InfoSelector(method="cife", n_features=6).fit(X, y)
    assert selector.selected_[:2].tolist() == cife.selected_[:2].tolist()


def test_stepwise_add_remove_equals_fresh_run():
    X, y = random_problem(seed=4)
    binned = BinnedMatrix.from_binned(discretize(X, 5))
    for method in ("cife", "jmi"):
        objective = make_objective(method)
        search = Stepwise(binned, objective, labels=y)
        for _ in range(4):
            search.step()
        chosen = search.selected
        search.remove(chosen[1])
        search.add(7)  # a biologist overrules the greedy choice
        fresh = Stepwise(binned, objective, labels=y)
        for f in (chosen[0], chosen[2], chosen[3], 7):
            fresh.add(f)
        np.testing.assert_array_equal(search.scores(), fresh.scores())
        assert search.best() == fresh.best()
        assert np.isnan(search.scores()[list(search.selected)]).all()


def test_stepwise_errors():
    X, y = random_problem(m=5)
    search = Stepwise(BinnedMatrix.from_binned(discretize(X, 5)), make_objective("cife"), labels=y, candidates=np.array([0, 1, 2]))
    search.add(1)
    with pytest.raises(ParameterError, match="already selected"):
        search.add(1)
    with pytest.raises(ParameterError, match="not selected"):
        search.remove(2)
    with pytest.raises(ParameterError, match="prefilter"):
        search.add(4)
    with pytest.raises(ParameterError, match="does not exist"):
        search.add(99)


def test_ties_go_to_the_lowest_index():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 200)
    column = (y == 1).astype(float) * 3 + rng.poisson(0.5, 200)
    X = np.column_stack([rng.poisson(0.5, 200), column, column, column])
    assert InfoSelector(method="mim", n_features=1).fit(X, y).selected_.tolist() == [1]
    assert InfoSelector(method="jmi", n_features=2).fit(X, y).selected_.tolist()[0] == 1


def test_binary_mode_round_robin():
    X, y = random_problem(m=30, n_classes=3, seed=6)
    selector = InfoSelector(method="cife", n_features=7, mode="binary").fit(X, y)
    per_class = selector.selected_per_class_
    assert list(per_class) == [0, 1, 2]
    per = math.ceil(7 / 3)
    assert all(len(v) == per for v in per_class.values())
    merged = []
    for rank in range(per):
        for t in range(3):
            if per_class[t][rank] not in merged:
                merged.append(per_class[t][rank])
    assert selector.selected_.tolist() == [int(f) for f in merged]
    # each class's list is the multiclass search on its one-vs-rest labels
    for t in range(3):
        alone = InfoSelector(method="cife", n_features=per).fit(X, (y == t).astype(int))
        np.testing.assert_array_equal(alone.selected_, per_class[t])


def test_prefilter_restricts_candidates_to_top_mim():
    X, y = random_problem(m=40, seed=7)
    mim = InfoSelector(method="mim", n_features=10).fit(X, y).selected_
    limited = InfoSelector(method="cife", n_features=5, prefilter=10).fit(X, y)
    assert set(limited.selected_.tolist()) <= set(mim.tolist())
    assert limited.n_candidates_ == 10
    sub = InfoSelector(method="cife", n_features=5, prefilter=None).fit(X[:, np.sort(mim)], y)
    np.testing.assert_array_equal(np.sort(mim)[sub.selected_], limited.selected_)


def test_prediscretized_and_dataframe_input():
    X, y = random_problem(m=8)
    Xd = discretize(X, 5)
    a = InfoSelector(method="jmi", n_features=3).fit(X, y)
    b = InfoSelector(method="jmi", n_features=3, n_bins=None).fit(Xd, y)
    np.testing.assert_array_equal(a.selected_, b.selected_)
    frame = pd.DataFrame(X.toarray(), columns=[f"g{j}" for j in range(8)])
    c = InfoSelector(method="jmi", n_features=3).fit(frame, y)
    np.testing.assert_array_equal(a.selected_, c.selected_)
    assert list(c.get_feature_names_out()) == [f"g{j}" for j in sorted(c.selected_)]
    assert c.transform(frame).shape == (300, 3)


def test_unsupervised_fit_without_y():
    X, _ = random_problem(m=10)
    selector = InfoSelector(method="entropy2", n_features=3).fit(X)
    assert len(selector.selected_) == 3


def test_missing_labels_are_left_out_with_a_warning():
    X, y = random_problem(m=10)
    labels = pd.Series(y.astype(str)).where(np.arange(300) % 10 != 0)
    with pytest.warns(PaucityWarning, match="30 of 300 samples have no label"):
        with_missing = InfoSelector(method="cife", n_features=3).fit(X, labels.to_numpy())
    keep = np.arange(300) % 10 != 0
    direct = InfoSelector(method="cife", n_features=3).fit(X[keep], y[keep])
    np.testing.assert_array_equal(with_missing.selected_, direct.selected_)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (lambda X, y: (X, y[:-1]), ShapeMismatchError, "y has 299 entries but X has 300 rows"),
        (lambda X, y: (np.where(np.eye(300, 10) > 0, np.nan, X.toarray()), y), InputError, "NaN"),
        (lambda X, y: (np.where(np.eye(300, 10) > 0, np.inf, X.toarray()), y), InputError, "infinite"),
        (lambda X, y: (-X, y), InputError, "Negative values"),
        (lambda X, y: (X, np.zeros_like(y)), InputError, "one class only"),
        (lambda X, y: (X, np.full(300, np.nan)), InputError, "every entry of y is missing"),
    ],
)
def test_bad_input_is_rejected_before_any_work(change, error, message):
    X, y = random_problem(m=10)
    X2, y2 = change(X, y)
    with pytest.raises(error, match=message):
        InfoSelector(n_features=3).fit(X2, y2)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_features": 11}, "larger than the number of features in X"),
        ({"n_features": 5, "prefilter": 4}, "larger than prefilter=4"),
        ({"method": "magic"}, "unknown method 'magic'"),
        ({"mode": "pairwise"}, "unknown mode"),
        ({"method": "entropy", "mode": "binary"}, "no binary mode"),
        ({"n_bins": 0}, "n_bins"),
    ],
)
def test_bad_parameters(params, message):
    X, y = random_problem(m=10)
    with pytest.raises(ParameterError, match=message):
        InfoSelector(**{"n_features": 3, **params}).fit(X, y)


def test_prediscretized_values_must_fit_in_a_byte():
    X = np.full((10, 3), 300.0)
    with pytest.raises(InputError, match="largest value is 300"):
        InfoSelector(n_features=1, n_bins=None).fit(X, np.arange(10) % 2)


def test_result_does_not_depend_on_the_number_of_threads(monkeypatch):
    import numba

    import paucity._parallel

    # every thread asked for, even while other processes keep the cores busy
    monkeypatch.setattr(paucity._parallel, "busy_cores", lambda: 0.0)
    X, y = random_problem(m=40, seed=9)
    runs = [InfoSelector(method=m, n_features=6, mode=mode, n_jobs=n).fit(X, y) for n in (1, 2, None)
            for m, mode in (("cife", "multiclass"), ("jmi", "binary"))]
    # n_jobs=1 (cife, jmi) against n_jobs=2 and n_jobs=None, method by method
    for first, other in zip(runs[:2] * 2, runs[2:], strict=True):
        np.testing.assert_array_equal(first.selected_, other.selected_)
        np.testing.assert_array_equal(first.scores_, other.scores_)
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, "all"])
def test_bad_n_jobs(n_jobs):
    X, y = random_problem(m=5)
    with pytest.raises(ParameterError, match="n_jobs"):
        InfoSelector(n_features=2, n_jobs=n_jobs).fit(X, y)
