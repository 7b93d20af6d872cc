"""The benchmark's loop (seed 000, §2.6.2): no leakage, Remark 1's counts, the tidy table, seeds, the full-data step."""

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from paucity._errors import ParameterError
from paucity.markers import InfoSelector
from paucity.markers.benchmark import TABLE_COLUMNS, run_benchmark


def test_selection_sees_training_rows_only(tiny, fast, recorder):
    n = tiny.n_cells
    X = sp.hstack([sp.csr_matrix(np.arange(n, dtype=np.float32)[:, None]), tiny.X]).tocsr()
    result = run_benchmark(X, tiny.labels, methods=[recorder], **fast)
    assert len(recorder.calls) == 3 * 2
    for k in range(3):
        train = result.folds.train_indices(k)
        seen = [call for call in recorder.calls[2 * k : 2 * k + 2]]
        for X_seen, y_seen, _ in seen:
            assert X_seen.shape[0] == train.size == n - result.folds.test_indices(k).size
            rows = np.asarray(X_seen[:, 0].todense()).ravel().astype(int)
            np.testing.assert_array_equal(rows, train)
            np.testing.assert_array_equal(y_seen, tiny.labels[train])
    assert sp.issparse(recorder.calls[0][0])  # sparse input stays sparse


def test_binary_methods_record_the_count_actually_used(tiny, fast):
    result = run_benchmark(tiny.X, tiny.labels, methods=["cife-binary", "t-test_overestim_var"], **fast)
    table = result.table
    for k in range(3):
        train = result.folds.train_indices(k)
        for n in (2, 4):
            expected = InfoSelector(method="cife", mode="binary", n_features=n).fit(tiny.X[train], tiny.labels[train])
            row = table[(table["method"] == "cife") & (table["fold"] == k) & (table["n_requested"] == n)]
            assert row["mode"].tolist() == ["binary"]
            assert row["n_used"].tolist() == [len(expected.selected_)]
    per_class = {2: math.ceil(2 / 3), 4: math.ceil(4 / 3)}
    for n, m in per_class.items():
        used = table.loc[table["n_requested"] == n, "n_used"]
        assert used.between(m, 3 * m).all()
    assert (table.loc[table["n_requested"] == 4, "n_used"] > 4).any()  # ⌈4/3⌉ x 3 = 6 when lists differ


def test_tidy_table(tiny):
    result = run_benchmark(
        tiny.X, tiny.labels, methods=["mim", "random"], n_features=[2, 4], n_folds=3,
        classifiers=["random_forest", "nearest_centroids"], full_data=False, n_jobs=1,
    )
    table = result.table
    assert tuple(table.columns) == TABLE_COLUMNS
    assert len(table) == 2 * 2 * 3 * 2
    assert table["error_rate"].between(0, 1).all()
    assert set(table["classifier"]) == {"random_forest", "nearest_centroids"}
    assert set(table["fold"]) == {0, 1, 2}
    assert (table["selection_seconds"] >= 0).all()
    assert set(table["mode"]) == {"multiclass"}
    summary = result.summary()
    assert set(summary["n_folds"]) == {3}


@pytest.mark.slow  # 8 to 37 s: run by make test-slow, to keep make test near ten minutes
def test_reruns_give_identical_error_rates(tiny, fast):
    kwargs = dict(fast, classifiers=["random_forest", "nearest_centroids"], n_features=[3])
    first = run_benchmark(tiny.X, tiny.labels, methods=["random", "random_forest"], random_state=3, **kwargs)
    second = run_benchmark(tiny.X, tiny.labels, methods=["random", "random_forest"], random_state=3, **kwargs)
    columns = ["method", "n_used", "fold", "classifier", "error_rate"]
    pd.testing.assert_frame_equal(first.table[columns], second.table[columns])


def test_a_generator_seeds_the_run_as_the_int_it_draws(tiny, fast):
    kwargs = dict(fast, classifiers=["random_forest"], n_features=[3])
    seed = int(np.random.default_rng(8).integers(2**31))
    from_generator = run_benchmark(tiny.X, tiny.labels, methods=["random"], random_state=np.random.default_rng(8), **kwargs)
    from_int = run_benchmark(tiny.X, tiny.labels, methods=["random"], random_state=seed, **kwargs)
    assert from_generator.folds.random_state == seed
    columns = ["method", "n_used", "fold", "classifier", "error_rate"]
    pd.testing.assert_frame_equal(from_generator.table[columns], from_int.table[columns])
    unseeded = run_benchmark(tiny.X, tiny.labels, methods=["random"], random_state=None, **kwargs)
    assert isinstance(unseeded.folds.random_state, int)


@pytest.mark.parametrize("bad", [-1, True, "0", 2**32, 2**40])
def test_bad_seed_is_refused_before_any_work(tiny, fast, recorder, tmp_path, bad):
    out = tmp_path / "out"
    with pytest.raises(ParameterError, match=r"run_benchmark: random_state must be an integer in \[0, 4294967295\]"):
        run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, random_state=bad, **fast)
    assert recorder.calls == []
    assert not out.exists()


def test_n_features_takes_one_number_or_a_list_and_defaults_to_the_seeds_counts(tiny, fast):
    fast.pop("n_features")
    one = run_benchmark(tiny.X, tiny.labels, methods=["mim"], n_features=3, **fast)
    assert one.n_features == (3,)
    listed = run_benchmark(tiny.X, tiny.labels, methods=["mim"], n_features=np.array([4, 2, 4]), **fast)
    assert listed.n_features == (2, 4)  # sorted, each once
    assert sorted(set(listed.table["n_requested"])) == [2, 4]
    with pytest.raises(ParameterError, match=r"n_features asks for 50 and 100 markers but the data has 30 genes \(columns of X\); ask for at most 30\."):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], **fast)  # the default (5, 10, 20, 50, 100)
    from paucity.markers.benchmark import DEFAULT_N_FEATURES

    assert DEFAULT_N_FEATURES == (5, 10, 20, 50, 100)


def test_n_markers_is_a_deprecated_alias_of_n_features(tiny, fast):
    fast.pop("n_features")
    with pytest.warns(FutureWarning, match=r"run_benchmark\(n_markers=\.\.\.\) is deprecated.*use n_features=") as caught:
        old = run_benchmark(tiny.X, tiny.labels, methods=["mim"], n_markers=[2, 4], **fast)
    assert [w.filename for w in caught if issubclass(w.category, FutureWarning)] == [__file__]  # points at the caller
    new = run_benchmark(tiny.X, tiny.labels, methods=["mim"], n_features=[2, 4], **fast)
    pd.testing.assert_frame_equal(old.table.drop(columns="selection_seconds"), new.table.drop(columns="selection_seconds"))
    with pytest.warns(FutureWarning, match="BenchmarkResult.n_markers is deprecated"):
        assert old.n_markers == new.n_features == (2, 4)
    with pytest.warns(FutureWarning), pytest.raises(ParameterError, match="give n_features= only"):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], n_markers=[2], n_features=[2], **fast)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"n_features": [0, 2]}, r"run_benchmark: n_features must be an integer >= 1, got 0\. It is the numbers of features"),
        ({"n_features": [2.5]}, r"n_features must be an integer >= 1, got 2\.5"),
        ({"n_features": "2,4"}, r"n_features must be an integer >= 1 or a list of such integers, got '2,4'"),
        ({"n_features": []}, "n_features is empty"),
        ({"n_folds": 1}, r"n_folds must be an integer >= 2, got 1\. It is the number of cross-validation folds"),
        ({"n_bins": 1}, r"n_bins must be an integer in \[2, 255\]"),
        ({"n_top": 1}, r"n_top must be an integer >= 2, got 1"),
        ({"prefilter": 0}, r"prefilter must be an integer >= 1 or None, got 0"),
        ({"n_jobs": 0}, r"n_jobs must be a positive integer, -1 \(every core\) or None, got 0"),
        ({"full_data": "yes"}, r"full_data must be True or False, got 'yes'"),
        ({"progress": 1}, r"progress must be True or False, got 1"),
        ({"classifiers": ["svm"]}, r"classifier must be one of 'random_forest', 'nearest_centroids', got 'svm'"),
        ({"classifiers": []}, "no classifiers given"),
        ({"classifiers": 3}, r"classifiers must be one of .* or a list of them, got 3"),
        ({"run_folds": [3]}, r"run_folds must be an integer in \[0, 2\], got 3\. Folds are numbered 0 to 2"),
        ({"run_folds": [1.0]}, r"run_folds must be an integer in \[0, 2\], got 1\.0"),
        ({"run_folds": 1}, r"run_folds must be a list of fold numbers or None, got 1"),
        ({"folds": 3}, r"folds must be an instance of Folds or the path of a folds.csv or None, got 3"),
        ({"extra_params": ["groupby"]}, r"extra_params must be a dict or None"),
        ({"methods": [3]}, r"each entry of methods must be a name, a BenchmarkMethod or a callable, got 3"),
    ],
)
def test_bad_parameters_are_refused_before_any_work(tiny, fast, recorder, tmp_path, change, message):
    out = tmp_path / "out"
    kwargs = dict(fast, methods=[recorder], out=out)
    kwargs.update(change)
    with pytest.raises(ParameterError, match=message):
        run_benchmark(tiny.X, tiny.labels, **kwargs)
    assert recorder.calls == []
    assert not out.exists()


def test_one_classifier_may_be_named_alone(tiny, fast):
    result = run_benchmark(tiny.X, tiny.labels, methods=["mim"], **dict(fast, classifiers="Nearest_Centroids"))
    assert set(result.table["classifier"]) == {"nearest_centroids"}


def test_out_must_not_be_a_file(tiny, fast, tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("x\n")
    with pytest.raises(ParameterError, match="out .*results.csv is a file, not a folder; give a folder"):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], out=path, **fast)
    assert path.read_text() == "x\n"


def test_full_data_selections_overlap_and_runtimes(tiny, fast, tmp_path):
    result = run_benchmark(
        tiny.X, tiny.labels, methods=["mim", "jmi", "cife-binary"], out=tmp_path / "o",
        **dict(fast, full_data=True, n_top=10),
    )
    overlap = result.overlap
    assert list(overlap.index) == ["MIM", "JMI", "CIFE (B)"]
    np.testing.assert_array_equal(overlap.to_numpy(), overlap.to_numpy().T)
    assert overlap.loc["MIM", "MIM"] == 4
    expected = InfoSelector(method="cife", mode="binary", n_features=4).fit(tiny.X, tiny.labels)
    assert overlap.loc["CIFE (B)", "CIFE (B)"] == len(expected.selected_)
    assert result.runtimes["n_requested"].tolist() == [4, 4, 4]
    assert result.interactions.values.size == 45
    for name in ("selections.csv", "runtimes.csv", "overlap.csv", "interactions.csv", "results.csv"):
        assert (tmp_path / "o" / name).exists()
