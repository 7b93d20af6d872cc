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
        tiny.X, tiny.labels, methods=["mim", "random"], n_markers=[2, 4], n_folds=3,
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


def test_reruns_give_identical_error_rates(tiny, fast):
    kwargs = dict(fast, classifiers=["random_forest", "nearest_centroids"], n_markers=[3])
    first = run_benchmark(tiny.X, tiny.labels, methods=["random", "random_forest"], random_state=3, **kwargs)
    second = run_benchmark(tiny.X, tiny.labels, methods=["random", "random_forest"], random_state=3, **kwargs)
    columns = ["method", "n_used", "fold", "classifier", "error_rate"]
    pd.testing.assert_frame_equal(first.table[columns], second.table[columns])


def test_a_generator_seeds_the_run_as_the_int_it_draws(tiny, fast):
    kwargs = dict(fast, classifiers=["random_forest"], n_markers=[3])
    seed = int(np.random.default_rng(8).integers(2**31))
    from_generator = run_benchmark(tiny.X, tiny.labels, methods=["random"], random_state=np.random.default_rng(8), **kwargs)
    from_int = run_benchmark(tiny.X, tiny.labels, methods=["random"], random_state=seed, **kwargs)
    assert from_generator.folds.random_state == seed
    columns = ["method", "n_used", "fold", "classifier", "error_rate"]
    pd.testing.assert_frame_equal(from_generator.table[columns], from_int.table[columns])
    unseeded = run_benchmark(tiny.X, tiny.labels, methods=["random"], random_state=None, **kwargs)
    assert isinstance(unseeded.folds.random_state, int)


@pytest.mark.parametrize("bad", [-1, True, "0"])
def test_bad_seed_is_refused_before_any_work(tiny, fast, recorder, tmp_path, bad):
    out = tmp_path / "out"
    with pytest.raises(ParameterError, match="random_state must be a non-negative integer"):
        run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, random_state=bad, **fast)
    assert recorder.calls == []
    assert not out.exists()


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
