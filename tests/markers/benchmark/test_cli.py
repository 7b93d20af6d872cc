"""``paucity markers-benchmark``: files written, resumed, split across jobs; one-line errors and nothing written."""

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

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
    fails_in_one_line(refused, "different parameters (random_state: 0 there, 2 now)")


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
        (["--groupby", "cell_type", "--methods", "mim,magic"], "'random', got 'magic'"),
        (["--groupby", "cell_type", "--classifiers", "svm"], "classifier must be one of 'random_forest'"),
        (["--groupby", "cell_type", "--folds", "40"], "class 'type0' has 30 member(s), fewer than the 40 folds"),
        (["--groupby", "cell_type", "--n-markers", "2,300"], "asks for 300 markers but the data has 30 genes"),
        (["--groupby", "cell_type", "--seed", "-1"], "random_state must be a non-negative integer"),
    ],
)
def test_cli_bad_input_one_line_and_nothing_written(tiny_h5ad, tmp_path, args, message):
    out = tmp_path / "bench"
    defaults = {"--methods": "mim", "--n-markers": "2"}
    extra = [item for option, value in defaults.items() if option not in args for item in (option, value)]
    result = runner.invoke(app, ["markers-benchmark", str(tiny_h5ad), *args, *extra, "--out", str(out)])
    fails_in_one_line(result, message)
    assert not out.exists()
