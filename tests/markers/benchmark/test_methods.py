"""The methods the benchmark compares: built-in names, scanpy's tests merged per class, user methods."""

import math

import numpy as np
import pytest

from paucity._errors import InputError, ParameterError
from paucity.markers import InfoSelector
from paucity.markers.benchmark import AVAILABLE_METHODS, BenchmarkMethod, merge_per_class, resolve_methods, run_benchmark
from paucity.markers.greedy import merge_per_class as greedy_merge


def test_user_methods_callable_or_declared(tiny, fast):
    def top_variance(X, y, n_features, random_state=None):
        X = X.toarray()
        return np.argsort(-X.var(axis=0), kind="stable")[:n_features]

    def first_per_class(X, y, n_features):
        return np.arange(3 * math.ceil(n_features / 3))

    declared = BenchmarkMethod(key="firsts", name="firsts", mode="binary", select=first_per_class)
    result = run_benchmark(tiny.X, tiny.labels, methods=[top_variance, declared, "mim"], **fast)
    table = result.table
    assert set(zip(table["method"], table["mode"])) == {
        ("top_variance", "multiclass"), ("firsts", "binary"), ("mim", "multiclass")
    }
    assert table.loc[table["method"] == "firsts", "n_used"].tolist() == [3, 6] * 3


def test_bad_methods_are_refused(tiny, fast):
    with pytest.raises(ParameterError, match="benchmark method must be one of .*, got 'magic'"):
        resolve_methods(["magic"])
    with pytest.raises(ParameterError, match="listed twice"):
        resolve_methods(["mim", "mim"])

    def out_of_range(X, y, n_features):
        return [X.shape[1] + 1]

    with pytest.raises(InputError, match="must return column indices"):
        run_benchmark(tiny.X, tiny.labels, methods=[out_of_range], **fast)
    with pytest.raises(ParameterError, match="asks for 31 markers but the data has 30 genes"):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], **dict(fast, n_features=[31]))


def test_scanpy_methods_merge_per_class_lists(tiny, fast):
    pytest.importorskip("scanpy")
    result = run_benchmark(tiny.X, tiny.labels, methods=["wilcoxon", "logreg", "t-test", "t-test_overestim_var"], **fast)
    table = result.table
    assert set(table["mode"]) == {"binary"}
    assert table["n_used"].between(1, 6).all()
    two = np.where(tiny.labels == 0, 0, 1)
    two_class = run_benchmark(tiny.X, two, methods=["logreg"], **fast)
    assert set(two_class.table.loc[two_class.table["n_requested"] == 4, "n_used"]) <= {3, 4}


def test_scanpy_rankings_beside_the_objectives_in_the_error_and_time_tables(tiny, fast):
    pytest.importorskip("scanpy")
    methods = ["jmi", "jmi-binary", "t-test", "wilcoxon", "logreg", "random"]
    result = run_benchmark(tiny.X, tiny.labels, methods=methods, **dict(fast, full_data=True, n_top=6))
    summary = result.summary()
    assert list(dict.fromkeys(zip(summary["method"], summary["mode"]))) == [
        ("jmi", "multiclass"), ("jmi", "binary"), ("t-test", "binary"), ("wilcoxon", "binary"),
        ("logreg", "binary"), ("random", "multiclass"),
    ]
    assert summary["error_rate"].between(0, 1).all() and (summary["n_folds"] == 3).all()
    assert result.runtimes["method"].tolist() == ["jmi", "jmi", "t-test", "wilcoxon", "logreg", "random"]
    assert (result.runtimes["selection_seconds"] >= 0).all()
    assert list(result.overlap.index) == ["JMI", "JMI (B)", "t-test", "Wilcoxon", "LogReg", "Random"]
    from paucity.markers.benchmark.plots import error_table

    assert list(error_table(result.table, "nearest_centroids").index) == list(result.overlap.index)


def test_every_paucity_objective_runs_in_both_modes(tiny, fast):
    paucity_methods = [m for m in AVAILABLE_METHODS if m.split("-")[0] in
                       ("mim", "mifs", "mrmr", "jmi", "cife", "degree", "entropy", "entropy2")]
    assert len(paucity_methods) == 14
    result = run_benchmark(tiny.X, tiny.labels, methods=paucity_methods, **dict(fast, n_features=[3], n_folds=2))
    assert len(result.table) == 14 * 2
    assert result.table["error_rate"].between(0, 1).all()


def test_merge_per_class_is_round_robin_without_duplicates():
    assert merge_per_class is greedy_merge  # one implementation, for the objectives' binary mode and the baselines
    assert merge_per_class([np.array([5, 1]), np.array([5, 2]), np.array([3, 1])], 2).tolist() == [5, 3, 1, 2]
    # a short list contributes what it has
    assert merge_per_class([[7], [2, 3, 4]], 3).tolist() == [7, 2, 3, 4]
    merged, origin = merge_per_class([[5, 1], [5, 2], [3, 1]], 2, return_origin=True)
    assert merged.tolist() == [5, 3, 1, 2]
    assert origin.tolist() == [[0, 0], [2, 0], [0, 1], [1, 1]]
    empty, no_origin = merge_per_class([[], []], 2, return_origin=True)
    assert empty.tolist() == [] and no_origin.shape == (0, 2)


def test_binary_selection_is_the_merge_of_its_per_class_runs(tiny):
    selector = InfoSelector(method="jmi", mode="binary", n_features=7).fit(tiny.X, tiny.labels)
    per_class = [selector.selected_per_class_[t] for t in selector.classes_]
    assert selector.selected_.tolist() == merge_per_class(per_class, math.ceil(7 / 3)).tolist()
