import re

import anndata
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from paucity.cli import app

runner = CliRunner()


@pytest.fixture()
def small_h5ad(tmp_path):
    rng = np.random.default_rng(0)
    groups = rng.choice(["B", "NK", "T"], size=150)
    X = rng.poisson(1.0, size=(150, 10)).astype(np.float32)
    X[:, 3] += 4 * (groups == "T")
    X[:, 8] += 4 * (groups == "NK")
    adata = anndata.AnnData(
        sp.csr_matrix(X),
        obs=pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(150)]),
        var=pd.DataFrame(index=[f"g{j}" for j in range(10)]),
    )
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    return path, adata


def test_markers_on_h5ad(small_h5ad, tmp_path):
    path, _ = small_h5ad
    out = tmp_path / "markers.csv"
    result = runner.invoke(app, ["markers", str(path), "--groupby", "cell_type", "--method", "cife", "-n", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert set(table["names"]) == {"g3", "g8"}
    assert list(table.columns) == ["names", "step", "selection_scores", "scores", "feature_index"]
    assert table["step"].tolist() == [1, 2]
    assert "2 markers written to" in result.stdout


def test_markers_binary_mode(small_h5ad, tmp_path):
    path, _ = small_h5ad
    out = tmp_path / "markers.csv"
    result = runner.invoke(app, ["markers", str(path), "--groupby", "cell_type", "-n", "3", "--mode", "binary", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert set(pd.read_csv(out)["group"]) <= {"B", "NK", "T"}


def test_markers_quiet_prints_nothing(small_h5ad, tmp_path):
    path, _ = small_h5ad
    out = tmp_path / "markers.csv"
    result = runner.invoke(app, ["--quiet", "markers", str(path), "--groupby", "cell_type", "-n", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and out.exists()


def test_markers_on_matrix_plus_labels(small_h5ad, tmp_path):
    _, adata = small_h5ad
    counts = pd.DataFrame(adata.X.toarray(), index=adata.obs_names, columns=adata.var_names)
    counts.to_csv(tmp_path / "counts.csv")
    adata.obs[["cell_type"]].to_csv(tmp_path / "labels.csv")
    out = tmp_path / "markers.csv"
    result = runner.invoke(
        app,
        ["markers", str(tmp_path / "counts.csv"), "--labels", str(tmp_path / "labels.csv"), "--groupby", "cell_type",
         "-n", "2", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert set(pd.read_csv(out)["names"]) == {"g3", "g8"}


def test_markers_on_a_genes_by_cells_matrix_with_transpose_and_headerless_labels(small_h5ad, tmp_path):
    _, adata = small_h5ad
    counts = pd.DataFrame(adata.X.toarray().T, index=adata.var_names, columns=adata.obs_names)  # genes in rows
    counts.to_csv(tmp_path / "genes_by_cells.csv")
    (tmp_path / "labels.txt").write_text("\n".join(adata.obs["cell_type"]) + "\n")  # one label per cell, no header
    out = tmp_path / "markers.csv"
    args = ["markers", str(tmp_path / "genes_by_cells.csv"), "--transpose", "--labels", str(tmp_path / "labels.txt"),
            "-n", "2", "--out", str(out)]
    result = runner.invoke(app, [*args, "--no-labels-header"])
    assert result.exit_code == 0, result.output
    assert set(pd.read_csv(out)["names"]) == {"g3", "g8"}
    out.unlink()
    # a header row declared: the first label is taken as the header, so one label is missing
    result = runner.invoke(app, [*args, "--labels-header"])
    assert result.exit_code == 2 and "has 149 labels but" in result.stderr
    assert not out.exists()


def test_markers_more_than_there_are_genes_warns_and_writes_them_all(small_h5ad, tmp_path):
    path, _ = small_h5ad
    out = tmp_path / "markers.csv"
    result = runner.invoke(app, ["markers", str(path), "--groupby", "cell_type", "-n", "11", "--out", str(out)])
    assert result.exit_code == 0, result.output
    # warnings are one line on stderr, as errors are
    assert re.search(r"^warning: .*n_features=11 is larger than the number of features in X \(10\); all 10", result.stderr, re.M)
    assert len(pd.read_csv(out)) == 10


@pytest.mark.parametrize(
    "args, message",
    [
        (["--groupby", "celltype"], "groupby 'celltype' is not a column"),
        (["--groupby", "cell_type", "--method", "magic"], "--method must be one of 'mim', "),
        (["--groupby", "cell_type", "--layer", "spliced"], "layer 'spliced'"),
        (["--groupby", "cell_type", "--n-bins", "1"], "--n-bins must be an integer in [2, 255] (a single bin"),
        (["--groupby", "cell_type", "--method", "cife", "--degree", "3"], "--degree 3 applies only to --method 'degree'"),
        (["--groupby", "cell_type", "--method", "jmi", "--beta", "0.5"], "--beta 0.5 applies only to --method 'mifs'"),
        ([], "--method cife needs cell labels: give --groupby (a column of obs) or --labels (a file)"),
        (["--groupby", "cell_type", "--method", "entropy"], "--method entropy is unsupervised and uses no labels, so --groupby"),
        (["--groupby", "cell_type", "--no-labels-header"], "--no-labels-header describes the --labels file; give --labels"),
        (["--method", "entropy", "--mode", "binary"], "no binary mode"),
    ],
)
def test_markers_bad_input_one_line_and_nothing_written(small_h5ad, tmp_path, args, message):
    path, _ = small_h5ad
    out = tmp_path / "markers.csv"
    result = runner.invoke(app, ["markers", str(path), *args, "--out", str(out)])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("where", ["folder", "missing folder"])
def test_markers_out_is_checked_before_reading(tmp_path, where):
    out = tmp_path if where == "folder" else tmp_path / "nowhere" / "markers.csv"
    # the input does not exist: the output is refused first
    result = runner.invoke(app, ["markers", str(tmp_path / "nope.h5ad"), "--groupby", "x", "--out", str(out)])
    assert result.exit_code == 2
    assert "--out" in result.stderr and "nope.h5ad" not in result.stderr


def test_markers_missing_input_file(tmp_path):
    result = runner.invoke(app, ["markers", str(tmp_path / "nope.h5ad"), "--groupby", "x", "--out", str(tmp_path / "m.csv")])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")


def test_markers_help():
    result = runner.invoke(app, ["markers", "--help"])
    assert result.exit_code == 0
    assert "--groupby" in result.output and "--transpose" in result.output and "--labels-header" in result.output
