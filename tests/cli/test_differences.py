
import json

import anndata
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from paucity.cli import app
from paucity.differences import PDA

from ._outcomes import fails_in_one_line, read_json, speaks_options, write_file

runner = CliRunner()
QUICK = ["--max-iter", "60", "--n-restarts", "1"]  # small fits: the tests check the command, not the solver


@pytest.fixture()
def tables(tmp_path):
    """Two samples of five features; in Y feature f2 is shifted and spread out, and the columns are reordered."""
    rng = np.random.default_rng(0)
    columns = [f"f{j}" for j in range(5)]
    X = pd.DataFrame(rng.normal(size=(60, 5)), columns=columns)
    Y = pd.DataFrame(rng.normal(size=(50, 5)), columns=columns)
    Y["f2"] = 3.0 * Y["f2"] + 1.5
    X.to_csv(tmp_path / "X.csv", index=False)
    Y[columns[::-1]].to_csv(tmp_path / "Y.csv", index=False)
    return tmp_path / "X.csv", tmp_path / "Y.csv", X, Y


def _run(*args):
    return runner.invoke(app, ["differences", *map(str, args)])


def test_planted_feature_comes_first_and_the_test_rejects(tables, tmp_path):
    x_path, y_path, X, Y = tables
    out = tmp_path / "result.json"
    result = _run(x_path, y_path, "--n-features", 2, "--n-permutations", 19, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["selected"][0]["feature"] == "f2" and report["selected"][0]["rank"] == 1
    assert report["selected"][0]["index"] == 2
    assert (report["n"], report["m"], report["d"]) == (60, 50, 5)
    assert report["method"] == "SPARDA" and report["n_features"] == 2 and report["lam"] is None
    assert report["inputs"] == {"x": "X.csv", "y": "Y.csv"}
    assert report["n_selected"] == len(report["beta"]) == 2
    assert report["beta"]["f2"] == report["selected"][0]["weight"]
    assert report["selected"][0]["mean_x"] == pytest.approx(X["f2"].mean())
    assert report["selected"][0]["mean_y"] == pytest.approx(Y["f2"].mean())
    test = report["permutation_test"]
    null = np.asarray(test["null_distribution"])
    assert null.shape == (19,) and report["n_permutations"] == 19
    b = int(np.sum(null >= test["statistic"] - 1e-12 * max(1.0, test["statistic"])))
    assert report["pvalue"] == test["pvalue"] == pytest.approx((b + 1) / 20)
    assert report["pvalue"] == pytest.approx(0.05)  # a strong difference: no split comes close
    assert test["statistic"] == pytest.approx(report["statistic"])  # the test refits the reported estimator
    assert 0 < report["relaxation"]["tightness"] <= 1 + 1e-9 and report["relaxation"]["n_iter"] >= 1
    assert "Do X.csv and Y.csv differ? p = 0.05" in " ".join(result.stdout.split())
    assert "f2" in result.stdout


def test_lam_gives_the_estimator_result(tables, tmp_path):
    x_path, y_path, X, Y = tables
    out = tmp_path / "result.json"
    result = _run(x_path, y_path, "--lam", 0.5, *QUICK, "--random-state", 3, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    model = PDA(sparsity="l1", lam=0.5, max_iter=60, n_restarts=1, random_state=3).fit(X, Y)
    assert report["method"] == "SPARDA" and report["lam"] == 0.5
    assert report["statistic"] == pytest.approx(model.divergence_)
    assert list(report["beta"]) == list(model.selected_names_)
    np.testing.assert_allclose(list(report["beta"].values()), model.weights()["weight"], atol=1e-12)
    assert report["pvalue"] is None and report["n_permutations"] is None and report["permutation_test"] is None
    assert "add --n-permutations" in " ".join(result.stdout.split())


def test_the_json_is_the_analysis_result(tables, tmp_path):
    from paucity import io
    from paucity.differences import analyze

    x_path, y_path, _, _ = tables
    X, Y = io.read_frame(x_path), io.read_frame(y_path)  # the values as read back from text
    out = tmp_path / "result.json"
    result = _run(x_path, y_path, "--n-features", 2, "--n-permutations", 4, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    expected = analyze(X, Y, n_features=2, n_permutations=4, max_iter=60, n_restarts=1, groups=("X.csv", "Y.csv"),
                       random_state=0).to_dict()
    assert read_json(out) == {"inputs": {"x": "X.csv", "y": "Y.csv"}, **json.loads(json.dumps(expected))}


def test_no_penalty_is_pda_and_a_constant_feature_is_fine(tables, tmp_path):
    x_path, y_path, X, Y = tables
    X.assign(flat=1.0).to_csv(x_path, index=False)
    Y.assign(flat=1.0).to_csv(y_path, index=False)
    out = tmp_path / "result.json"
    result = _run(x_path, y_path, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["method"] == "PDA" and report["n_features"] is None and report["cv"] is None
    assert report["d"] == 6 and "flat" not in report["beta"] and report["n_constant_features"] == 1
    assert max(report["beta"], key=lambda name: abs(report["beta"][name])) == "f2"
    assert np.sum(np.square(list(report["beta"].values()))) == pytest.approx(1.0)


def test_cv_chooses_lam_and_the_test_keeps_it(tables, tmp_path):
    x_path, y_path, _, _ = tables
    out = tmp_path / "result.json"
    result = _run(x_path, y_path, "--cv", "--n-permutations", 4, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["method"] == "SPARDA"
    cv = report["cv"]
    assert len(cv["results"]) == 8 and {"lam", "n_selected", "heldout_divergence"} <= set(cv["results"][0])
    assert report["lam"] == cv["chosen_lam"] == max(cv["results"], key=lambda row: row["heldout_divergence"])["lam"]
    assert report["selected"][0]["feature"] == "f2"
    assert f"lam={cv['chosen_lam']:.6g}" in report["permutation_test"]["refitted"]
    assert "not chosen again" in report["permutation_test"]["note"]
    assert len(report["permutation_test"]["null_distribution"]) == 4


def test_marginal_normalization_finds_a_change_in_correlation(tmp_path):
    """About 4 s: two whole analyses with permutation tests through the command, with and without normalization."""
    rng = np.random.default_rng(1)
    columns = [f"f{j}" for j in range(5)]
    X = pd.DataFrame(rng.normal(size=(80, 5)), columns=columns)
    Y = pd.DataFrame(rng.normal(size=(80, 5)), columns=columns)
    Y["f1"] = 0.9 * Y["f0"] + np.sqrt(1 - 0.9**2) * Y["f1"]  # same marginals, new correlation
    X.insert(0, "sample", [f"x{i}" for i in range(80)])
    Y.insert(0, "sample", [f"y{i}" for i in range(80)])
    X.to_csv(tmp_path / "X.tsv", sep="\t", index=False)
    Y.to_csv(tmp_path / "Y.tsv", sep="\t", index=False)
    out = tmp_path / "result.json"
    args = [tmp_path / "X.tsv", tmp_path / "Y.tsv", "--index-column", "sample", "--n-features", 2,
            "--marginal-normalize", *QUICK]
    result = _run(*args, "--n-permutations", 4, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["marginal_normalize"] is True and report["d"] == 5
    assert set(report["beta"]) == {"f0", "f1"}
    assert "marginally normalized" in report["permutation_test"]["refitted"]
    parallel = tmp_path / "parallel.json"
    assert _run(*args, "--n-permutations", 4, "--n-jobs", 2, "--out", parallel).exit_code == 0
    assert read_json(parallel)["permutation_test"] == report["permutation_test"]  # same permutations, same answer


@pytest.fixture()
def cells(tmp_path):
    rng = np.random.default_rng(0)
    groups = rng.choice(["B", "NK", "T"], size=150)
    X = rng.poisson(1.0, size=(150, 8)).astype(np.float32)
    X[:, 5] += 4 * (groups == "NK")
    adata = anndata.AnnData(
        sp.csr_matrix(X),
        obs=pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(150)]),
        var=pd.DataFrame(index=[f"g{j}" for j in range(8)]),
    )
    adata.layers["doubled"] = sp.csr_matrix(2 * X)
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    return path, adata


def test_h5ad_groups(cells, tmp_path):
    path, adata = cells
    out = tmp_path / "result.json"
    result = _run(path, "--groupby", "cell_type", "--groups", "NK", "T", "--n-features", 1, *QUICK, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["inputs"] == {"file": "cells.h5ad", "groupby": "cell_type", "groups": ["NK", "T"], "layer": None, "use_raw": False}
    nk, t = (adata.obs["cell_type"] == "NK").to_numpy(), (adata.obs["cell_type"] == "T").to_numpy()
    assert (report["n"], report["m"], report["d"]) == (nk.sum(), t.sum(), 8)
    assert report["selected"] == [
        {"feature": "g5", "index": 5, "weight": 1.0, "rank": 1, "mean_x": pytest.approx(adata.X[nk, 5].mean()),
         "mean_y": pytest.approx(adata.X[t, 5].mean())}
    ]
    assert report["groups"] == ["NK", "T"] and "Do NK and T differ?" in result.stdout
    layered = tmp_path / "layer.json"
    result = _run(path, "--groupby", "cell_type", "--groups", "NK", "T", "--layer", "doubled", "--n-features", 1, *QUICK,
                  "--out", layered)
    assert result.exit_code == 0, result.output
    assert read_json(layered)["selected"][0]["mean_x"] == pytest.approx(2 * adata.X[nk, 5].mean())


@pytest.mark.parametrize(
    "x_text, y_text, words",
    [
        ("a,b\n1,2\n3,4\n", "a,c\n1,2\n3,4\n", ["same features", "'b'", "'c'"]),
        ("a,b\n1,2\n", "a,b\n1,2\n3,4\n", ["1 row(s)", "at least 2"]),
        ("a,b\n1,2\n3,\n", "a,b\n1,2\n3,4\n", ["NaN", "column 'b'"]),
        ("a,b\n1,2\n3,inf\n", "a,b\n1,2\n3,4\n", ["infinite", "column 'b'"]),
        ("a,b\n1,2\n1,2\n", "a,b\n1,2\n1,2\n", ["constant"]),
        ("id,a,b\ns1,1,2\ns2,3,4\n", "id,a,b\ns3,1,2\ns4,3,4\n", ["'id'", "not numeric", "--index-column"]),
        (",a,b\n0,1,2\n1,3,4\n", ",a,b\n0,1,2\n1,3,4\n", ["empty name", "Unnamed: 0"]),
        ("a,b\n", "a,b\n1,2\n3,4\n", ["no rows"]),
        ("", "a,b\n1,2\n3,4\n", ["empty"]),
    ],
)
def test_malformed_tables_fail_in_one_line_and_write_nothing(tmp_path, x_text, y_text, words):
    x_path, y_path = write_file(tmp_path / "X.csv", x_text), write_file(tmp_path / "Y.csv", y_text)
    out = tmp_path / "result.json"
    fails_in_one_line(_run(x_path, y_path, *QUICK, "--out", out), *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["X.csv", "Y.csv"]


#: The library's names of the command's options, which no message of the command may show.
PYTHON_NAMES = ("n_features", "lam", "cv", "n_permutations", "divergence", "random_state", "n_jobs", "max_iter",
                "n_restarts", "index_column", "marginal_normalize", "standardize", "groupby", "groups", "layer",
                "use_raw", "show", "out")


@pytest.mark.parametrize(
    "args, words",
    [
        (["--n-features", 0], ["--n-features must be an integer >= 1, got 0"]),
        (["--n-features", 6], ["--n-features 6 is larger than the number of features of X (5)"]),
        (["--lam", 0.1, "--n-features", 2], ["--n-features and --lam are exclusive", "one of --n-features, --lam and --cv"]),
        (["--n-features", 2, "--cv"], ["--n-features and --cv are exclusive"]),
        (["--lam", 0.1, "--cv"], ["--lam and --cv are exclusive"]),
        (["--lam", -1], ["--lam must be a number >= 0, got -1.0"]),
        (["--lam", "nan"], ["--lam must be a number >= 0, got nan"]),
        (["--divergence", "kl"], ["--divergence must be one of 'wasserstein', 'mann_whitney', got 'kl'"]),
        (["--n-jobs", 2], ["--n-jobs runs the permutations in parallel", "only with --n-permutations > 0"]),
        (["--n-jobs", -2, "--n-permutations", 2], ["--n-jobs must be a positive integer or -1 (every core), got -2."]),
        (["--n-permutations", -3], ["--n-permutations must be an integer >= 0, got -3"]),
        (["--n-permutations", 100_000_000], ["--n-permutations 100000000 is more than 1,000,000"]),
        (["--n-permutations", "99999999999999999999"], ["is more than 1,000,000"]),
        (["--random-state", -1], ["--random-state must be a non-negative integer, got -1"]),
        (["--max-iter", 0], ["--max-iter must be an integer >= 1, got 0."]),
        (["--n-jobs", 0], ["--n-jobs must be a positive integer or -1 (every core), got 0."]),
        (["--n-restarts", -1], ["--n-restarts must be an integer >= 0, got -1"]),
        (["--index-column", "sample"], ["has no column 'sample' (the index column, --index-column)"]),
        (["--groupby", "cell_type"], ["--groupby applies to an .h5ad file"]),
        (["--groups", "A", "B"], ["--groups applies to an .h5ad file"]),
        (["--layer", "counts"], ["--layer applies to an .h5ad file"]),
        (["--no-use-raw"], ["--use-raw/--no-use-raw applies to an .h5ad file"]),
        (["--n-features", "two"], ["Invalid value for '--n-features'"]),
        (["--show", -1], ["--show must be 0 or more"]),
    ],
)
def test_bad_options_fail_in_one_line_and_write_nothing(tables, tmp_path, args, words):
    x_path, y_path, _, _ = tables
    out = tmp_path / "result.json"
    result = _run(x_path, y_path, *QUICK, *args, "--out", out)
    fails_in_one_line(result, *words)
    speaks_options(result, *PYTHON_NAMES)
    assert "numpy" not in result.stderr and "Divergence" not in result.stderr and "None" not in result.stderr
    assert not out.exists()


def test_missing_unreadable_and_misplaced_files(tables, tmp_path):
    x_path, y_path, _, _ = tables
    out = tmp_path / "result.json"
    fails_in_one_line(_run(x_path, tmp_path / "absent.csv", "--out", out), "absent.csv does not exist")
    garbage = write_file(tmp_path / "garbage.parquet", "not a parquet file\n")
    fails_in_one_line(_run(x_path, garbage, "--out", out), "could not read", "garbage.parquet")
    fails_in_one_line(_run(x_path, y_path, "--out", tmp_path / "missing" / "result.json"), "folder of --out", "does not exist")
    fails_in_one_line(_run(x_path, "--out", out), "give two tables")
    fails_in_one_line(_run(x_path, y_path, "--index-column", "sample", "--out", out),
                      "has no column 'sample' (the index column, --index-column)")
    fails_in_one_line(_run(x_path, y_path, "--out", tmp_path), "--out", "is a folder")
    assert not out.exists() and not (tmp_path / "missing").exists()


def test_the_output_path_is_checked_before_any_work(tables, tmp_path, monkeypatch):
    import paucity.differences

    def no_work(*args, **kwargs):
        raise AssertionError("the analysis ran before --out was checked")

    monkeypatch.setattr(paucity.differences, "analyze", no_work)
    x_path, y_path, _, _ = tables
    fails_in_one_line(_run(x_path, y_path, "--out", tmp_path / "missing" / "result.json"), "folder of --out")


@pytest.mark.parametrize(
    "old, new",
    [
        (["--k", 2], ["--n-features", 2]),
        (["--k", 2], ["-n", 2]),
        (["--permutations", 3], ["--n-permutations", 3]),
        (["--n-permutations", 3, "--jobs", 2], ["--n-permutations", 3, "--n-jobs", 2]),
    ],
)
def test_old_option_spellings_still_work_with_a_warning(tables, tmp_path, old, new):
    x_path, y_path, _, _ = tables
    result = _run(x_path, y_path, *old, *QUICK, "--out", tmp_path / "old.json")
    assert result.exit_code == 0, result.output
    assert f"{old[-2]} is deprecated" in result.stderr
    assert _run(x_path, y_path, *new, *QUICK, "--out", tmp_path / "new.json").exit_code == 0
    assert read_json(tmp_path / "old.json") == read_json(tmp_path / "new.json")


def test_quiet_prints_nothing_and_writes_the_result(tables, tmp_path):
    x_path, y_path, _, _ = tables
    result = runner.invoke(app, ["--quiet", "differences", str(x_path), str(y_path), *map(str, QUICK), "--out",
                                 str(tmp_path / "result.json")])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "" and read_json(tmp_path / "result.json")["method"] == "PDA"


@pytest.mark.parametrize(
    "args, words",
    [
        (["--groupby", "cell_type", "--groups", "NK"], ["'--groups' requires 2 arguments"]),
        (["--groupby", "cell_type", "--groups", "NK", "--n-features", "1"], ["--groups takes two values"]),
        (["--groupby", "cell_type", "--groups", "NK", "ILC"], ["group 'ILC' has no cells", "'NK'"]),
        (["--groupby", "celltype", "--groups", "NK", "T"], ["groupby 'celltype' is not a column"]),
        (["--groupby", "cell_type", "--groups", "NK", "NK"], ["two different groups"]),
        (["--groups", "NK", "T"], ["needs --groupby"]),
        (["--groupby", "cell_type", "--groups", "NK", "T", "--layer", "spliced"], ["layer 'spliced'"]),
        (["--groupby", "cell_type", "--groups", "NK", "T", "--use-raw"], ["adata.raw is empty"]),
        (["--groupby", "cell_type", "--groups", "NK", "T", "--index-column", "id"], ["--index-column applies to tables"]),
    ],
)
def test_bad_h5ad_options_fail_in_one_line_and_write_nothing(cells, tmp_path, args, words):
    path, _ = cells
    fails_in_one_line(_run(path, "--out", tmp_path / "result.json", *args), *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cells.h5ad"]


def test_a_single_cell_group_is_refused(cells, tmp_path):
    path, adata = cells
    adata.obs["cell_type"] = adata.obs["cell_type"].astype(str)
    adata.obs.loc[adata.obs_names[0], "cell_type"] = "ILC"
    adata.write_h5ad(path)
    out = tmp_path / "result.json"
    fails_in_one_line(_run(path, "--groupby", "cell_type", "--groups", "ILC", "T", "--out", out), "group 'ILC' has 1 cell")
    assert not out.exists()


def test_help():
    result = _run("--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for word in ("--groupby", "--groups", "--n-permutations", "--n-features", "--n-jobs", "--cv", "--index-column",
                 "Examples", "paucity differences"):
        assert word in text


def test_standardize_divides_by_the_pooled_spread(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    Y = pd.DataFrame(rng.normal(size=(70, 3)), columns=["a", "b", "c"])
    Y["a"] += 1.0
    X["b"] *= 1000.0
    Y["b"] *= 1000.0
    X.to_csv(tmp_path / "X.csv", index=False)
    Y.to_csv(tmp_path / "Y.csv", index=False)
    for flag, expected in (([], "b"), (["--standardize"], "a")):
        out = tmp_path / f"result{len(flag)}.json"
        result = _run(tmp_path / "X.csv", tmp_path / "Y.csv", "--n-features", 1, *flag, *QUICK, "--out", out)
        assert result.exit_code == 0, result.output
        report = read_json(out)
        assert report["selected"][0]["feature"] == expected
        assert report["standardize"] is bool(flag)


def test_the_command_line_starts_without_the_numerical_stack():
    # the reading bar of `paucity differences` is drawn before scikit-learn and SciPy are imported (about a
    # second on a small machine), so loading the command line and the error classes must not import them
    import subprocess
    import sys

    code = ("import sys, paucity.cli, paucity._errors; "
            "print(sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
    code = "import sklearn.exceptions, paucity._errors as e; print(issubclass(e.NotFittedError, sklearn.exceptions.NotFittedError))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "True"
