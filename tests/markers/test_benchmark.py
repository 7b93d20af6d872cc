"""The cross-validation benchmark of seed 000, §2.6.2: folds, no leakage, Remark 1, resume, CLI, Figure 2.7."""

import json
import math

import anndata
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from paucity._errors import InputError, ParameterError, ShapeMismatchError
from paucity.cli import app
from paucity.datasets import make_scrna_counts
from paucity.markers import InfoSelector
from paucity.markers.benchmark import (
    TABLE_COLUMNS,
    BenchmarkMethod,
    Folds,
    classification_error,
    make_folds,
    merge_per_class,
    pair_interactions,
    resolve_methods,
    run_benchmark,
    run_benchmark_adata,
)

runner = CliRunner()
FAST = dict(n_markers=[2, 4], n_folds=3, classifiers=["nearest_centroids"], full_data=False, n_jobs=1)


@pytest.fixture(scope="module")
def tiny():
    return make_scrna_counts(n_cells=90, n_genes=30, n_types=3, n_markers=9, random_state=0)


class Recorder:
    """A user method that remembers what it saw and picks the columns of highest mean."""

    def __init__(self):
        self.calls = []

    def __call__(self, X, y, n_features):
        self.calls.append((X.copy(), y.copy(), n_features))
        means = np.asarray(X.mean(axis=0)).ravel()
        return np.argsort(-means, kind="stable")[:n_features]


# --- folds ---------------------------------------------------------------------------


def test_folds_are_stratified_and_seeded():
    labels = np.repeat(["a", "b", "c"], [30, 12, 7])
    folds = make_folds(labels, n_folds=3, random_state=4)
    for k in range(3):
        test = folds.test_indices(k)
        for cls, size in (("a", 30), ("b", 12), ("c", 7)):
            assert abs(np.sum(labels[test] == cls) - size / 3) < 1
        assert np.intersect1d(test, folds.train_indices(k)).size == 0
    assert np.bincount(folds.fold_of).sum() == labels.size
    again = make_folds(labels, n_folds=3, random_state=4)
    np.testing.assert_array_equal(folds.fold_of, again.fold_of)
    other = make_folds(labels, n_folds=3, random_state=5)
    assert not np.array_equal(folds.fold_of, other.fold_of)


def test_folds_save_and_reload_by_sample_name(tmp_path):
    labels = np.repeat(["a", "b"], 6)
    names = [f"cell{i}" for i in range(12)]
    folds = make_folds(labels, n_folds=3, random_state=0, samples=names)
    folds.save(tmp_path / "folds.csv")
    back = Folds.load(tmp_path / "folds.csv")
    np.testing.assert_array_equal(back.fold_of, folds.fold_of)
    assert back.n_folds == 3
    shuffled = names[::-1]
    reordered = Folds.load(tmp_path / "folds.csv", samples=shuffled)
    np.testing.assert_array_equal(reordered.fold_of, folds.fold_of[::-1])
    with pytest.raises(ShapeMismatchError, match="does not list 'other'"):
        Folds.load(tmp_path / "folds.csv", samples=names[:-1] + ["other"])


def test_saved_folds_are_reused_by_another_run(tiny, tmp_path):
    first = run_benchmark(tiny.X, tiny.labels, methods=["random"], out=tmp_path / "a", random_state=1, **FAST)
    second = run_benchmark(
        tiny.X, tiny.labels, methods=["random"], folds=tmp_path / "a" / "folds.csv", random_state=7, **FAST
    )
    np.testing.assert_array_equal(first.folds.fold_of, second.folds.fold_of)


def test_class_smaller_than_folds_is_refused_before_any_work(tiny, tmp_path):
    labels = tiny.labels.astype(object).copy()
    labels = np.where(labels == 0, "big", "other").astype(object)
    labels[:2] = "rare"
    recorder = Recorder()
    out = tmp_path / "out"
    with pytest.raises(InputError, match=r"class 'rare' has 2 member\(s\), fewer than the 3 folds"):
        run_benchmark(tiny.X, labels, methods=[recorder], out=out, **FAST)
    assert recorder.calls == []
    assert not out.exists()
    with pytest.raises(InputError, match="'rare'"):
        make_folds(labels, n_folds=3)


# --- the protocol ------------------------------------------------------------------------


def test_selection_sees_training_rows_only(tiny):
    n = tiny.n_cells
    X = sp.hstack([sp.csr_matrix(np.arange(n, dtype=np.float32)[:, None]), tiny.X]).tocsr()
    recorder = Recorder()
    result = run_benchmark(X, tiny.labels, methods=[recorder], **FAST)
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


def test_binary_methods_record_the_count_actually_used(tiny):
    result = run_benchmark(tiny.X, tiny.labels, methods=["cife-binary", "t-test_overestim_var"], **FAST)
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


def test_reruns_give_identical_error_rates(tiny):
    kwargs = dict(FAST, classifiers=["random_forest", "nearest_centroids"], n_markers=[3])
    first = run_benchmark(tiny.X, tiny.labels, methods=["random", "random_forest"], random_state=3, **kwargs)
    second = run_benchmark(tiny.X, tiny.labels, methods=["random", "random_forest"], random_state=3, **kwargs)
    columns = ["method", "n_used", "fold", "classifier", "error_rate"]
    pd.testing.assert_frame_equal(first.table[columns], second.table[columns])


def test_resume_skips_finished_work_and_refuses_other_parameters(tiny, tmp_path):
    out = tmp_path / "run"
    recorder = Recorder()
    first = run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **FAST)
    assert len(recorder.calls) == 6
    assert len(list((out / "results").rglob("*.json"))) == 6
    second = run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **FAST)
    assert len(recorder.calls) == 6  # nothing recomputed
    pd.testing.assert_frame_equal(first.table, second.table)

    # a lost result is recomputed, and only it
    (out / "results" / "fold1" / "Recorder-n4.json").unlink()
    run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **FAST)
    assert len(recorder.calls) == 7

    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(ParameterError, match=r"different parameters \(n_markers: \[2, 4\] there, \[2, 5\] now\)"):
        run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **dict(FAST, n_markers=[2, 5]))
    with pytest.raises(ParameterError, match="random_state: 0 there, 1 now"):
        run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, random_state=1, **FAST)
    other_data = tiny.X.copy()
    other_data.data[0] += 1
    with pytest.raises(ParameterError, match="different parameters .*data"):
        run_benchmark(other_data, tiny.labels, methods=[recorder], out=out, **FAST)
    assert len(recorder.calls) == 7
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before


def test_folds_split_across_jobs_share_one_folder(tiny, tmp_path):
    out = tmp_path / "run"
    for k in (0, 1):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], out=out, run_folds=[k], **FAST)
    part = pd.read_csv(out / "results.csv")
    assert set(part["fold"]) == {0, 1}
    whole = run_benchmark(tiny.X, tiny.labels, methods=["mim"], out=out, **FAST)
    assert set(whole.table["fold"]) == {0, 1, 2}
    with pytest.raises(ParameterError, match="fold 3 does not exist"):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], out=out, run_folds=[3], **FAST)


def test_user_methods_callable_or_declared(tiny):
    def top_variance(X, y, n_features, random_state=None):
        X = X.toarray()
        return np.argsort(-X.var(axis=0), kind="stable")[:n_features]

    def first_per_class(X, y, n_features):
        return np.arange(3 * math.ceil(n_features / 3))

    declared = BenchmarkMethod(key="firsts", name="firsts", mode="binary", select=first_per_class)
    result = run_benchmark(tiny.X, tiny.labels, methods=[top_variance, declared, "mim"], **FAST)
    table = result.table
    assert set(zip(table["method"], table["mode"])) == {
        ("top_variance", "multiclass"), ("firsts", "binary"), ("mim", "multiclass")
    }
    assert table.loc[table["method"] == "firsts", "n_used"].tolist() == [3, 6] * 3


def test_bad_methods_are_refused(tiny):
    with pytest.raises(ParameterError, match="unknown benchmark method 'magic'"):
        resolve_methods(["magic"])
    with pytest.raises(ParameterError, match="listed twice"):
        resolve_methods(["mim", "mim"])

    def out_of_range(X, y, n_features):
        return [X.shape[1] + 1]

    with pytest.raises(InputError, match="must return column indices"):
        run_benchmark(tiny.X, tiny.labels, methods=[out_of_range], **FAST)
    with pytest.raises(ParameterError, match="asks for 31 markers but the data has 30 genes"):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], **dict(FAST, n_markers=[31]))


def test_scanpy_methods_merge_per_class_lists(tiny):
    pytest.importorskip("scanpy")
    result = run_benchmark(tiny.X, tiny.labels, methods=["wilcoxon", "logreg", "t-test_overestim_var"], **FAST)
    table = result.table
    assert set(table["mode"]) == {"binary"}
    assert table["n_used"].between(1, 6).all()
    two = np.where(tiny.labels == 0, 0, 1)
    two_class = run_benchmark(tiny.X, two, methods=["logreg"], **FAST)
    assert set(two_class.table.loc[two_class.table["n_requested"] == 4, "n_used"]) <= {3, 4}


def test_every_paucity_objective_runs_in_both_modes(tiny):
    from paucity.markers.benchmark import AVAILABLE_METHODS

    paucity_methods = [m for m in AVAILABLE_METHODS if m.split("-")[0] in
                       ("mim", "mifs", "mrmr", "jmi", "cife", "degree", "entropy", "entropy2")]
    assert len(paucity_methods) == 14
    result = run_benchmark(tiny.X, tiny.labels, methods=paucity_methods, **dict(FAST, n_markers=[3], n_folds=2))
    assert len(result.table) == 14 * 2
    assert result.table["error_rate"].between(0, 1).all()


def test_merge_per_class_is_round_robin_without_duplicates():
    assert merge_per_class([np.array([5, 1]), np.array([5, 2]), np.array([3, 1])], 2).tolist() == [5, 3, 1, 2]


def test_classifiers_train_on_training_rows_only():
    # the labels of the test rows are scrambled: a leak would show up as a perfect score on them
    y = np.repeat([0, 1], 30)
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.poisson(1 + 10 * y), rng.poisson(3, 60)]).astype(float)
    train, test = np.arange(0, 60, 2), np.arange(1, 60, 2)
    flipped = y.copy()
    flipped[test] = 1 - flipped[test]
    for classifier in ("random_forest", "nearest_centroids"):
        assert classification_error(X, y, train, test, np.array([0]), classifier) < 0.2
        assert classification_error(X, flipped, train, test, np.array([0]), classifier) > 0.8


# --- full data: genes in common, run times, Figure 2.7 ---------------------------------------


def test_full_data_selections_overlap_and_runtimes(tiny, tmp_path):
    result = run_benchmark(
        tiny.X, tiny.labels, methods=["mim", "jmi", "cife-binary"], out=tmp_path / "o",
        **dict(FAST, full_data=True, n_top=10),
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


def test_pair_interactions_negative_fraction_on_a_hand_made_case():
    # x1, x2: y = x1 XOR x2 (synergy, I = -1); x3 = x4 = y (redundancy, I(x3; x4; y) = +1)
    x1 = np.tile([0, 0, 1, 1], 50)
    x2 = np.tile([0, 1, 0, 1], 50)
    y = x1 ^ x2
    X = np.column_stack([x1, x2, y, y])
    result = pair_interactions(X, y, n_top=4, n_bins=None)
    values = {tuple(sorted((int(i), int(j)))): v for i, j, v in zip(result.first, result.second, result.values)}
    assert values[(0, 1)] == pytest.approx(-1.0)
    assert values[(2, 3)] == pytest.approx(1.0)
    assert values[(0, 2)] == pytest.approx(0.0)
    assert result.negative_fraction == pytest.approx(1 / 6)
    assert list(result.features[:2]) == [2, 3]  # ordered by I(x; y)


# --- AnnData and the command line ------------------------------------------------------------


@pytest.fixture()
def tiny_h5ad(tiny, tmp_path):
    adata = tiny.to_anndata()
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    return path


def test_run_on_anndata(tiny):
    adata = tiny.to_anndata()
    result = run_benchmark_adata(adata, "cell_type", methods=["mim"], **FAST)
    assert len(result.table) == 6
    with pytest.raises(InputError, match="groupby 'kind' is not a column"):
        run_benchmark_adata(adata, "kind", methods=["mim"], **FAST)


def _one_error_line(result):
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_cli_end_to_end_and_resume(tiny_h5ad, tmp_path):
    out = tmp_path / "bench"
    args = ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "--n-markers", "2,4", "--folds", "3",
            "--methods", "mim,cife-binary,random", "--n-top", "10", "--n-jobs", "1", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    for name in ("params.json", "folds.csv", "results.csv", "selections.csv", "runtimes.csv", "overlap.csv",
                 "interactions.csv", "summary.md", "errors_random_forest.png", "errors_nearest_centroids.png",
                 "runtimes.png", "interactions.png"):
        assert (out / name).is_file(), name
    table = pd.read_csv(out / "results.csv")
    assert tuple(table.columns) == TABLE_COLUMNS
    assert len(table) == 3 * 2 * 3 * 2
    assert "negative" in result.stdout and "MIM" in result.stdout
    assert json.loads((out / "params.json").read_text())["groupby"] == "cell_type"
    assert not list(out.rglob(".*.tmp*"))  # no temporary file left behind

    again = runner.invoke(app, args)
    assert again.exit_code == 0
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv"), table)

    refused = runner.invoke(app, [*args[:-2], "--seed", "2", "--out", str(out)])
    assert refused.exit_code == 2
    assert "different parameters (random_state: 0 there, 2 now)" in _one_error_line(refused)


def test_cli_split_across_jobs(tiny_h5ad, tmp_path):
    out = tmp_path / "bench"
    base = ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "--n-markers", "2", "--folds", "3",
            "--methods", "mim", "--classifiers", "nearest_centroids", "--n-jobs", "1", "--out", str(out)]
    assert runner.invoke(app, [*base, "--fold", "0"]).exit_code == 0
    assert runner.invoke(app, [*base, "--fold", "1", "--fold", "2"]).exit_code == 0
    assert not (out / "overlap.csv").exists()
    assert set(pd.read_csv(out / "results.csv")["fold"]) == {0, 1, 2}
    assert runner.invoke(app, base).exit_code == 0
    assert (out / "overlap.csv").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--groupby", "kind"], "groupby 'kind' is not a column"),
        (["--groupby", "cell_type", "--n-markers", "5,ten"], "--n-markers must be whole numbers"),
        (["--groupby", "cell_type", "--methods", "mim,magic"], "unknown benchmark method 'magic'"),
        (["--groupby", "cell_type", "--classifiers", "svm"], "unknown classifier 'svm'"),
        (["--groupby", "cell_type", "--folds", "40"], "class 'type0' has 30 member(s), fewer than the 40 folds"),
        (["--groupby", "cell_type", "--n-markers", "2,300"], "asks for 300 markers but the data has 30 genes"),
    ],
)
def test_cli_bad_input_one_line_and_nothing_written(tiny_h5ad, tmp_path, args, message):
    out = tmp_path / "bench"
    defaults = {"--methods": "mim", "--n-markers": "2"}
    extra = [item for option, value in defaults.items() if option not in args for item in (option, value)]
    result = runner.invoke(app, ["markers-benchmark", str(tiny_h5ad), *args, *extra, "--out", str(out)])
    assert result.exit_code == 2
    assert message in _one_error_line(result)
    assert not out.exists()


# --- the seed's experiment on PBMC --------------------------------------------------------------


@pytest.mark.slow
def test_pbmc_benchmark_information_methods_beat_random_markers(tmp_path):
    sc = pytest.importorskip("scanpy")
    pbmc = sc.datasets.pbmc68k_reduced()
    adata = anndata.AnnData(pbmc.raw.X.expm1(), obs=pbmc.obs[["bulk_labels"]], var=pbmc.raw.var[[]])
    out = tmp_path / "pbmc"
    result = run_benchmark_adata(adata, "bulk_labels", n_markers=[5, 10, 20, 50], n_folds=5, out=out)
    from paucity.markers.benchmark_plots import report_markdown, write_figures

    figures = write_figures(result, out)
    (out / "summary.md").write_text(report_markdown(result, figures))
    for name in ("results.csv", "overlap.csv", "runtimes.csv", "interactions.csv"):
        assert (out / name).is_file()
    assert set(figures) == {"errors_random_forest", "errors_nearest_centroids", "runtimes", "interactions"}
    table = result.table
    assert len(table) == 12 * 4 * 5 * 2
    assert table["error_rate"].between(0, 1).all()
    means = table.groupby(["method", "mode"])["error_rate"].mean()
    random = means[("random", "multiclass")]
    for method in ("mim", "jmi", "cife"):
        for mode in ("multiclass", "binary"):
            assert means[(method, mode)] < random, (method, mode)
    # paired by fold, n and classifier: the information methods win most comparisons with random genes
    wide = table.pivot_table(index=["n_requested", "fold", "classifier"], columns=["method", "mode"], values="error_rate")
    assert (wide[("jmi", "multiclass")] < wide[("random", "multiclass")]).mean() > 0.8
    assert 0.0 < result.interactions.negative_fraction < 1.0
