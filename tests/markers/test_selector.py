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
    selector = InfoSelector(method=method, n_features=6, beta=0.5 if method == "mifs" else None)
    unsupervised = method in ("entropy", "entropy2")
    selector.fit(X, None if unsupervised else y)
    assert selector.selected_.tolist() == expected
    np.testing.assert_allclose(selector.selection_scores_, expected_scores, atol=1e-7)
    # scores_: one per feature, I(x_j; y) (H(x_j) unsupervised) whether selected or not
    relevance = [reference.joint_entropy(Xd[:, j]) if unsupervised else reference.interaction(Xd[:, j], y) for j in range(12)]
    np.testing.assert_allclose(selector.scores_, relevance, atol=1e-7)


def test_degree_1_is_mim_and_degree_2_is_cife():
    X, y = random_problem(seed=2)
    for degree, method in ((1, "mim"), (2, "cife")):
        a = InfoSelector(method="degree", degree=degree, n_features=8).fit(X, y)
        b = InfoSelector(method=method, n_features=8).fit(X, y)
        np.testing.assert_array_equal(a.selected_, b.selected_)
        np.testing.assert_array_equal(a.selection_scores_, b.selection_scores_)
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
        ({"n_features": 5, "prefilter": 4}, "larger than prefilter=4"),
        ({"method": "magic"}, "InfoSelector: method must be one of 'mim', .*got 'magic'"),
        ({"mode": "pairwise"}, "mode must be one of 'multiclass', 'binary', got 'pairwise'"),
        ({"method": "entropy", "mode": "binary"}, "no binary mode"),
        ({"n_bins": 0}, r"n_bins must be an integer in \[2, 255\]"),
        ({"n_bins": 1}, "a single bin puts every value together and carries no information"),
        ({"n_bins": 256}, "n_bins must be an integer in"),
        ({"n_bins": 2.5}, "n_bins must be"),
        ({"n_features": 0}, "n_features must be an integer >= 1, got 0"),
        ({"n_features": True}, "n_features must be an integer >= 1, got True"),
        ({"prefilter": 0}, "prefilter must be an integer >= 1 or None"),
        ({"beta": -1.0}, "beta must be a number >= 0 or None"),
        ({"degree": 0}, "degree must be an integer >= 1 or None"),
        ({"progress": "yes"}, "progress must be True or False"),
        ({"method": "cife", "degree": 3}, "degree=3 applies only to method='degree'.*method is 'cife'"),
        ({"method": "cife", "degree": 2}, "degree=2 applies only to method='degree'"),
        ({"method": "jmi", "beta": 0.5}, "beta=0.5 applies only to method='mifs'"),
        ({"method": "degree", "beta": 0.5}, "beta=0.5 applies only to method='mifs'"),
        ({"method": "mifs", "degree": 3}, "degree=3 applies only to method='degree'"),
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
        np.testing.assert_array_equal(first.selection_scores_, other.selection_scores_)
        np.testing.assert_array_equal(first.scores_, other.scores_)
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS  # restored


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, "all"])
def test_bad_n_jobs(n_jobs):
    X, y = random_problem(m=5)
    with pytest.raises(ParameterError, match="n_jobs"):
        InfoSelector(n_features=2, n_jobs=n_jobs).fit(X, y)


def test_attributes_of_a_selector():
    X, y = random_problem(m=10, seed=11)
    selector = InfoSelector(method="cife", n_features=3).fit(X, y)
    assert selector.selected_.dtype == np.int64
    assert selector.selected_names_.tolist() == [f"x{j}" for j in selector.selected_]
    assert selector.scores_.shape == (10,) and np.isfinite(selector.scores_).all() and (selector.scores_ >= 0).all()
    assert selector.selection_scores_.shape == (3,)
    assert selector.selection_scores_[0] == selector.scores_[selector.selected_[0]]  # the first step is MIM
    support = np.zeros(10, dtype=bool)
    support[selector.selected_] = True
    np.testing.assert_array_equal(selector.support_, support)
    np.testing.assert_array_equal(selector.get_support(), support)
    assert selector.get_support(indices=True).tolist() == sorted(selector.selected_.tolist())
    # sorting by scores_ gives MIM's choice
    mim = InfoSelector(method="mim", n_features=4).fit(X, y)
    assert np.argsort(-selector.scores_, kind="stable")[:4].tolist() == mim.selected_.tolist()
    frame = pd.DataFrame(X.toarray(), columns=[f"g{j}" for j in range(10)])
    named = InfoSelector(method="cife", n_features=3).fit(frame, y)
    assert named.selected_names_.tolist() == [f"g{j}" for j in selector.selected_]


def test_scores_are_the_multiclass_relevance_in_binary_mode_too():
    X, y = random_problem(m=12, n_classes=3, seed=12)
    binary = InfoSelector(method="jmi", n_features=4, mode="binary").fit(X, y)
    multiclass = InfoSelector(method="jmi", n_features=4).fit(X, y)
    np.testing.assert_array_equal(binary.scores_, multiclass.scores_)
    Xd = discretize(X, 5).toarray()
    np.testing.assert_allclose(binary.scores_, [reference.interaction(Xd[:, j], y) for j in range(12)], atol=1e-7)


def test_unfitted_selector_raises_not_fitted_error():
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    from paucity._errors import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted yet"):
        InfoSelector().get_support()
    with pytest.raises(SklearnNotFittedError):
        InfoSelector().transform(np.ones((2, 2)))


def test_more_features_than_x_has_warns_and_keeps_all():
    X, y = random_problem(m=10, seed=13)
    with pytest.warns(PaucityWarning, match=r"n_features=50 is larger than the number of features in X \(10\); all 10"):
        selector = InfoSelector(n_features=50).fit(X, y)
    assert sorted(selector.selected_.tolist()) == list(range(10))
    assert selector.transform(X).shape == (300, 10)
    # the first ten steps are those of a run that asks for ten
    np.testing.assert_array_equal(selector.selected_, InfoSelector(n_features=10).fit(X, y).selected_)
    for n_features in (11, 50):  # 3 or 13 per class of four: every class then ranks all ten
        with pytest.warns(PaucityWarning, match="all 10 are selected"):
            binary = InfoSelector(n_features=n_features, mode="binary").fit(X, y)
        assert sorted(binary.selected_.tolist()) == list(range(10))
        assert all(len(v) == 10 for v in binary.selected_per_class_.values())


def test_constant_features_are_named_in_a_warning():
    X, y = random_problem(m=10, seed=14)
    X = X.toarray()
    X[:, 3] = 0.0
    X[:, 7] = 2.5
    with pytest.warns(PaucityWarning, match=r"2 of 10 features are constant after binning \(x3, x7\)"):
        selector = InfoSelector(n_features=3).fit(X, y)
    assert selector.scores_[3] == 0.0 and selector.scores_[7] == 0.0
    frame = pd.DataFrame(X, columns=[f"gene{j}" for j in range(10)])
    with pytest.warns(PaucityWarning, match=r"\(gene3, gene7\)"):
        InfoSelector(n_features=3).fit(frame, y)
    many = np.zeros((300, 12))
    many[:, 0] = X[:, 0]
    with pytest.warns(PaucityWarning, match=r"11 of 12 features are constant after binning \(x1, x2, x3, x4, x5, \.\.\.\)"):
        InfoSelector(n_features=1).fit(many, y)
    # pre-binned: a column of one bin everywhere, stored or not
    binned = np.column_stack([discretize(X[:, :2], 5), np.full(300, 2, dtype=np.uint8)])
    with pytest.warns(PaucityWarning, match=r"1 of 3 features are constant in X \(x2\)"):
        InfoSelector(n_features=1, n_bins=None).fit(binned, y)


def test_no_warning_without_constant_features(recwarn):
    X, y = random_problem(m=10, seed=15)
    InfoSelector(n_features=3).fit(X, y)
    assert not [w for w in recwarn if issubclass(w.category, PaucityWarning)]


def test_every_feature_constant_is_an_error():
    y = np.arange(40) % 2
    with pytest.raises(InputError, match="every feature of X is constant after binning"):
        InfoSelector(n_features=1).fit(np.ones((40, 4)), y)
    with pytest.raises(InputError, match="every feature of X is constant"):
        InfoSelector(method="entropy", n_features=1).fit(sp.csr_matrix((40, 4)))


def test_transform_with_the_wrong_width_is_a_paucity_error():
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (60, 8)), rng.integers(0, 2, 60)
    selector = InfoSelector(n_features=2).fit(X, y)
    with pytest.raises(ShapeMismatchError, match="X has 5 features, but InfoSelector is expecting 8 features as input"):
        selector.transform(X[:, :5])
    frame = pd.DataFrame(X, columns=list("abcdefgh"))
    selector.fit(frame, y)
    with pytest.raises(InputError, match="InfoSelector.transform: The feature names should match"):
        selector.transform(frame.rename(columns={"a": "z"}))
    assert selector.transform(frame).shape == (60, 2)


def test_labels_of_mixed_types_say_so():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (60, 8))
    y = np.array(["a", "b"] * 30, dtype=object)
    y[:5] = 3
    with pytest.raises(InputError, match=r"y mixes labels of different types: numbers \(e.g. 3\) and text \(e.g. 'b'\)"):
        InfoSelector(n_features=2).fit(X, y)
    with pytest.raises(InputError, match="mixes labels"):
        InfoSelector(n_features=2).fit(X, ["a", "b"] * 29 + [1, 1])  # a list too, before numpy makes it text
