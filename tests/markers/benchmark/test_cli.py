"""``paucity markers-benchmark``: files written, resumed, split across jobs; one-line errors and nothing written."""

import json
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

import paucity.markers.benchmark
from paucity.cli import app
from paucity.markers.benchmark import TABLE_COLUMNS
from tests.cli._outcomes import fails_in_one_line

runner = CliRunner()


@pytest.fixture()
def tiny_h5ad(tiny, tmp_path):
    adata = tiny.to_anndata()
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    return path


@pytest.fixture()
def calls(monkeypatch):
    """The keywords the command passes to the library's entry point (which still runs)."""
    seen = []
    real = paucity.markers.benchmark.run_benchmark_adata

    def recording(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(paucity.markers.benchmark, "run_benchmark_adata", recording)
    return seen


def test_cli_end_to_end_and_resume(tiny_h5ad, tmp_path):
    out = tmp_path / "bench"
    args = ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "--n-features", "2,4", "--n-folds", "3",
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
    params = json.loads((out / "params.json").read_text())
    assert params["groupby"] == "cell_type" and params["n_features"] == [2, 4] and params["n_folds"] == 3
    assert not list(out.rglob(".*.tmp*"))  # no temporary file left behind

    again = runner.invoke(app, args)
    assert again.exit_code == 0
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv"), table)

    refused = runner.invoke(app, [*args[:-2], "--random-state", "2", "--out", str(out)])
    fails_in_one_line(refused, "different parameters (--random-state: 0 there, 2 now)")


def test_cli_old_spellings_still_work_with_a_warning(tiny_h5ad, tmp_path, calls):
    base = ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "--methods", "mim",
            "--classifiers", "nearest_centroids", "--n-jobs", "1"]
    new = runner.invoke(app, [*base, "-n", "2,3", "--n-folds", "3", "--random-state", "4", "--out", str(tmp_path / "new")])
    assert new.exit_code == 0, new.output
    assert "deprecated" not in new.stderr
    old = runner.invoke(app, [*base, "--n-markers", "2,3", "--folds=3", "--seed", "4", "--out", str(tmp_path / "old")])
    assert old.exit_code == 0, old.output
    for spelling, replacement in (("--n-markers", "--n-features"), ("--folds", "--n-folds"), ("--seed", "--random-state")):
        assert f"warning: {spelling} is deprecated and will be removed; use {replacement}." in old.stderr
    assert [(c["n_features"], c["n_folds"], c["random_state"]) for c in calls] == [([2, 3], 3, 4)] * 2
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "old" / "results.csv").drop(columns="selection_seconds"),
        pd.read_csv(tmp_path / "new" / "results.csv").drop(columns="selection_seconds"),
    )


def test_cli_progress_and_summaries_follow_quiet(tiny_h5ad, tmp_path, calls):
    base = ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "-n", "2", "--n-folds", "3",
            "--methods", "mim", "--classifiers", "nearest_centroids", "--n-jobs", "1"]
    loud = runner.invoke(app, [*base, "--out", str(tmp_path / "loud")])
    assert loud.exit_code == 0, loud.output
    assert "written to" in loud.stdout
    quiet = runner.invoke(app, ["--quiet", *base, "--out", str(tmp_path / "quiet")])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout == ""
    assert (tmp_path / "quiet" / "results.csv").is_file() and (tmp_path / "quiet" / "summary.md").is_file()
    assert [c["progress"] for c in calls] == [True, False]


def test_cli_matrix_file_with_transpose_and_headerless_labels(tiny, tmp_path):
    adata = tiny.to_anndata()
    counts = pd.DataFrame(adata.X.toarray().T, index=adata.var_names, columns=adata.obs_names)  # genes in rows
    counts.to_csv(tmp_path / "genes_by_cells.csv")
    (tmp_path / "labels.txt").write_text("\n".join(adata.obs["cell_type"]) + "\n")  # one label per cell, no header
    args = ["markers-benchmark", str(tmp_path / "genes_by_cells.csv"), "--transpose", "--labels", str(tmp_path / "labels.txt"),
            "-n", "2", "--n-folds", "3", "--methods", "mim", "--classifiers", "nearest_centroids", "--n-jobs", "1"]
    result = runner.invoke(app, [*args, "--no-labels-header", "--out", str(tmp_path / "bench")])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "bench" / "results.csv")
    assert len(table) == 3
    assert json.loads((tmp_path / "bench" / "params.json").read_text())["data"]["n_samples"] == tiny.n_cells
    # a header row declared: the first label is taken as the header, so one label is missing
    refused = runner.invoke(app, [*args, "--labels-header", "--out", str(tmp_path / "other")])
    assert refused.exit_code == 2 and "labels but" in refused.stderr
    assert not (tmp_path / "other").exists()


def test_cli_out_is_checked_before_any_work(tiny_h5ad, tmp_path, calls):
    base = ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "-n", "2", "--methods", "mim"]
    missing = tmp_path / "no" / "such" / "bench"
    result = runner.invoke(app, [*base, "--out", str(missing)])
    fails_in_one_line(result, "--out", "does not exist; create it first")
    assert not (tmp_path / "no").exists()
    a_file = tmp_path / "bench.csv"
    a_file.write_text("x\n")
    result = runner.invoke(app, [*base, "--out", str(a_file)])
    fails_in_one_line(result, f"--out {a_file} is a file; give a folder")
    assert a_file.read_text() == "x\n"
    assert calls == []  # refused before the library was called


def test_cli_cosg_without_its_python_fails_in_one_line(tiny_h5ad, tmp_path, monkeypatch):
    monkeypatch.delenv("PAUCITY_COSG_PYTHON", raising=False)
    out = tmp_path / "bench"
    result = runner.invoke(app, ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "-n", "2",
                                 "--methods", "mim,cosg", "--out", str(out)])
    fails_in_one_line(result, "method 'cosg' runs COSG in a Python environment of its own", "--cosg-python",
                      "PAUCITY_COSG_PYTHON", "leave cosg out of the methods")
    assert not out.exists()


def test_cli_runs_cosg_with_the_python_given(tiny_h5ad, tmp_path, monkeypatch):
    import sys

    import paucity.markers.benchmark.anchors as anchors
    from tests.markers.benchmark.test_anchors import FAKE_RUNNER

    fake = tmp_path / "fake_cosg_runner.py"
    fake.write_text(FAKE_RUNNER)
    monkeypatch.setattr(anchors, "COSG_RUNNER", fake)
    out = tmp_path / "bench"
    result = runner.invoke(app, ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "-n", "2",
                                 "--n-folds", "3", "--methods", "mim,cosg", "--classifiers", "nearest_centroids",
                                 "--n-top", "6", "--n-jobs", "1", "--cosg-python", sys.executable, "--out", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "results.csv")
    assert set(zip(table["method"], table["mode"])) == {("mim", "multiclass"), ("cosg", "binary")}
    assert "COSG" in result.stdout
    assert "cosg" in pd.read_csv(out / "runtimes.csv")["method"].tolist()


def test_cli_options_and_help_use_the_naming_table():
    result = runner.invoke(app, ["markers-benchmark", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for option in ("--n-features", "--n-folds", "--random-state", "--labels-header", "--no-labels-header", "--transpose"):
        assert option in result.output
    for old in ("--n-markers", "--seed"):
        assert old not in result.output
    assert not re.search(r"--folds(?![-\w])", result.output)
    assert "The most threads for the counting kernels and random forests (default: the idle cores)" in result.output


def test_cli_split_across_jobs(tiny_h5ad, tmp_path):
    out = tmp_path / "bench"
    base = ["markers-benchmark", str(tiny_h5ad), "--groupby", "cell_type", "-n", "2", "--n-folds", "3",
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
        ([], "the cell labels are missing: give --groupby (a column of obs) or --labels (a file)"),
        (["--groupby", "cell_type", "--n-features", "5,ten"], "--n-features must be whole numbers"),
        (["--groupby", "cell_type", "--n-features", ","], "--n-features is empty"),
        (["--groupby", "cell_type", "--methods", "mim,magic"], "'random', got 'magic'"),
        (["--groupby", "cell_type", "--classifiers", "svm"], "classifier must be one of 'random_forest'"),
        (["--groupby", "cell_type", "--n-folds", "40"], "class 'type0' has 30 member(s), fewer than the 40 folds"),
        (["--groupby", "cell_type", "--n-folds", "1"], "--n-folds must be an integer >= 2, got 1"),
        (["--groupby", "cell_type", "--n-features", "2,300"], "--n-features asks for 300 markers but the data has 30 genes"),
        (["--groupby", "cell_type", "--random-state", "-1"], "--random-state must be an integer in [0, 4294967295], got -1."),
        (["--groupby", "cell_type", "--random-state", "4294967296"], "--random-state must be an integer in [0, 4294967295], got"),
        (["--groupby", "cell_type", "--seed", "4294967296"], "--random-state must be an integer in [0, 4294967295], got"),
        (["--groupby", "cell_type", "--n-jobs", "0"], "--n-jobs must be a positive integer or -1 (every core), got 0."),
        (["--groupby", "cell_type", "--no-labels-header"], "--no-labels-header describes the --labels file; give --labels"),
    ],
)
def test_cli_bad_input_one_line_and_nothing_written(tiny_h5ad, tmp_path, args, message):
    out = tmp_path / "bench"
    defaults = {"--methods": "mim", "--n-features": "2"}
    extra = [item for option, value in defaults.items() if option not in args for item in (option, value)]
    result = runner.invoke(app, ["markers-benchmark", str(tiny_h5ad), *args, *extra, "--out", str(out)])
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("warning: --seed")]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
    assert "Generator" not in lines[0] and "run_benchmark:" not in lines[0]  # Python's words, not the command line's
    assert result.stdout.strip() == ""
    assert not out.exists()
