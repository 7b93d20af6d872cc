"""``paucity crowd``: the library's answer written, one-line errors, nothing written on failure."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from paucity.cli import app
from paucity.crowd import LabelMatrix, pool

from ._outcomes import fails_in_one_line

runner = CliRunner()
SMALL = ["--n-factors", "2", "--n-burnin", "50", "--n-samples", "100", "--random-state", "0"]


@pytest.fixture()
def crowd_files(tmp_path):
    """Eight labelers like the researcher, four against her; she labelled six of 50 tasks; 70 tasks have features."""
    rng = np.random.default_rng(0)
    ids = [f"t{i:03d}" for i in range(70)]  # zero-padded ids must stay text
    X = pd.DataFrame(rng.normal(size=(70, 2)), columns=["a", "b"], index=pd.Index(ids, name="task"))
    truth = np.where(X["a"] - X["b"] > 0, "yes", "no")
    flip = {"yes": "no", "no": "yes"}
    rows = [(ids[i], f"w{l}", truth[i] if l < 8 else flip[truth[i]]) for i in range(50) for l in range(12)
            if rng.random() < 0.3]
    crowd = pd.DataFrame(rows, columns=["task", "worker", "label"])
    gold = pd.DataFrame({"task": ids[:6], "label": truth[:6]})
    paths = {name: tmp_path / f"{name}.csv" for name in ("crowd", "gold", "labels", "tasks")}
    crowd.to_csv(paths["crowd"], index=False)
    gold.to_csv(paths["gold"], index=False)
    pd.concat([crowd, gold.assign(worker="R")[["task", "worker", "label"]]]).to_csv(paths["labels"], index=False)
    X.to_csv(paths["tasks"])
    return paths, crowd, gold, X, truth


def _crowd(paths, out, *extra):
    return runner.invoke(app, ["crowd", str(paths["labels"]), "--labeler-column", "worker", "--features",
                               str(paths["tasks"]), "--researcher", "R", *SMALL, "--out", str(out), *extra])


def test_crowd_writes_the_entry_points_predictions_and_suggestions(crowd_files, tmp_path):
    paths, crowd, gold, X, truth = crowd_files
    out = tmp_path / "predictions.csv"
    result = _crowd(paths, out, "--suggest", "3")
    assert result.exit_code == 0, result.output
    assert "predictions for 70 tasks" in result.stdout and "next to ask" in result.stdout
    table = pd.read_csv(out, dtype={"task": str, "label": str, "gold": str})
    suggested = pd.read_csv(tmp_path / "predictions.suggest.csv", dtype={"task": str, "labeler": str})
    labels = LabelMatrix.from_long(pd.concat([crowd, gold.assign(worker="R")[["task", "worker", "label"]]]),
                                   labeler="worker")
    expected = pool(labels, X, researcher="R", n_suggest=3, n_factors=2, n_burnin=50, n_samples=100, random_state=0)
    assert table["task"].tolist() == list(X.index)
    np.testing.assert_allclose(table["probability"], expected.predictions["probability"], rtol=1e-12)
    assert table["label"].tolist() == expected.predictions["label"].tolist()
    assert table["gold"].iloc[:6].tolist() == gold["label"].tolist() and table["gold"].iloc[6:].isna().all()
    assert suggested[["task", "labeler"]].values.tolist() == expected.suggestions[["task", "labeler"]].values.tolist()
    assert (suggested["labeler"] == "R").all() and not set(suggested["task"]) & set(gold["task"])
    assert (table["label"] == truth).mean() > 0.85  # the researcher's rule, learnt through the crowd


def test_by_default_the_chains_run_until_they_agree_and_say_when_they_did_not(crowd_files, tmp_path):
    paths, *_ = crowd_files
    out = tmp_path / "predictions.csv"
    args = ["crowd", str(paths["labels"]), "--labeler-column", "worker", "--features", str(paths["tasks"]),
            "--researcher", "R", "--n-factors", "2", "--random-state", "0", "--out", str(out)]
    result = runner.invoke(app, [*args, "--max-sweeps", "300", "--n-jobs", "1"])
    assert result.exit_code == 0, result.output
    assert ("warning: the chains stopped at max_sweeps=300 sweeps per chain before the chains agreed: largest R-hat "
            in result.stdout) and "their answers may not be the posterior's" in result.stdout
    model = pool(LabelMatrix.from_long(pd.read_csv(paths["labels"], dtype=str), labeler="worker"),
                 pd.read_csv(paths["tasks"], dtype={"task": str}).set_index("task"), researcher="R", n_factors=2,
                 random_state=0, max_sweeps=300)
    assert model.stop_reason in result.stdout and out.exists()


def test_gold_in_a_file_of_its_own_gives_the_same_answer(crowd_files, tmp_path):
    paths, *_ = crowd_files
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    assert _crowd(paths, first).exit_code == 0
    result = runner.invoke(app, ["crowd", str(paths["crowd"]), "--labeler-column", "worker", "--gold", str(paths["gold"]),
                                 "--features", str(paths["tasks"]), "--researcher", "R", *SMALL, "--out", str(second)])
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(pd.read_csv(first), pd.read_csv(second))


def test_quiet_prints_nothing_and_crowd_suggestions_name_crowd_labelers(crowd_files, tmp_path):
    paths, *_ = crowd_files
    out, pairs = tmp_path / "p.csv", tmp_path / "pairs.csv"
    result = runner.invoke(app, ["--quiet", "crowd", str(paths["labels"]), "--labeler-column", "worker", "--features",
                                 str(paths["tasks"]), "--researcher", "R", *SMALL, "--suggest", "4", "--ask", "crowd",
                                 "--suggest-out", str(pairs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    suggested = pd.read_csv(pairs)
    assert len(suggested) == 4 and not (suggested["labeler"] == "R").any()


def _bad_inputs(paths, tmp_path):
    labels = pd.read_csv(paths["labels"], dtype=str)
    tasks = pd.read_csv(paths["tasks"], dtype={"task": str})
    three = labels.copy()
    three.loc[0, "label"] = "maybe"
    nan_features = tasks.copy()
    nan_features.loc[60, "a"] = np.nan  # a task nobody labelled: it is predicted, so it must be a number too
    missing = tasks.drop(index=3)
    text = tasks.copy()
    text["a"] = text["a"].astype(object)
    text.loc[0, "a"] = "tall"
    files = {"three": three, "nan": nan_features, "missing": missing, "text": text}
    for name, frame in files.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    base = ["crowd", str(paths["labels"]), "--labeler-column", "worker", "--features", str(paths["tasks"])]
    return [
        (["crowd", str(tmp_path / "three.csv"), "--labeler-column", "worker", "--features", str(paths["tasks"]),
          "--researcher", "R"], ["3 distinct values"]),
        (base + ["--researcher", "nobody"], ["--researcher", "nobody", "labelled nothing"]),
        (["crowd", str(paths["crowd"]), "--labeler-column", "worker", "--features", str(paths["tasks"]),
          "--researcher", "R"], ["labelled nothing"]),
        (["crowd", str(paths["labels"]), "--labeler-column", "worker", "--features", str(tmp_path / "missing.csv"),
          "--researcher", "R"], ["missing from the features in", "missing.csv", "t003"]),
        (["crowd", str(paths["labels"]), "--labeler-column", "worker", "--features", str(tmp_path / "nan.csv"),
          "--researcher", "R"], ["missing or infinite", "nan.csv", "t060"]),
        (base + ["--researcher", "R", "--n-factors", "0"], ["--n-factors must be an integer >= 1, got 0. --n-factors is the number of latent factors"]),
        (["crowd", str(paths["crowd"]), "--labeler-column", "worker", "--gold", str(paths["gold"]), "--features",
          str(paths["tasks"]), "--researcher", "w3"], ["--researcher 'w3' is also the id of a labeler", "crowd"]),
        (base + ["--researcher", "R", "--label-column", "answer"], ["--label-column", "answer"]),
        (base + ["--researcher", "R", "--suggest-out", str(tmp_path / "s.csv")], ["--suggest"]),
        (base + ["--researcher", "R", "--suggest", "2", "--ask", "everyone"], ["--ask must be one of", "'everyone'"]),
        (base + ["--researcher", "R", "--positive", "perhaps"], ["--positive 'perhaps' is not one of the labels"]),
        (base + ["--researcher", "R", "--thin", "500", "--n-samples", "100"], ["--thin 500 exceeds --n-samples 100"]),
        (base + ["--researcher", "R", "--ask", "crowd"], ["--ask", "--suggest"]),
        (base + ["--researcher", "R", "--suggest", "100000"], ["--suggest 100000 but", "only 64", "at most 64"]),
        (base + ["--researcher", "R", "--suggest", "100000", "--ask", "crowd"], ["only ", "at most"]),
        (base + ["--researcher", "R", "--n-factors", "100000"], ["--n-factors 100000 needs", "GiB", "memory", "lower --n-factors"]),
        (base + ["--researcher", "R", "--n-burnin", "100000000000000000000000"], ["--n-burnin must be", "could not finish"]),
        (base + ["--researcher", "R", "--n-samples", "99999999999999999999999"], ["--n-samples must be", "could not finish"]),        (base + ["--researcher", "R", "--alpha", "-1"], ["--alpha must be a number > 0, got -1.0"]),
        (base + ["--researcher", "R", "--alpha", "nan"], ["--alpha must be a number > 0, got nan"]),
        (base + ["--researcher", "R", "--sigma", "0"], ["--sigma must be a number in", "got 0.0. --sigma is the prior"]),
        (base + ["--researcher", "R", "--n-chains", "0"], ["--n-chains must be an integer >= 1, got 0"]),
        (base + ["--researcher", "R", "--n-samples", "forever"], ["--n-samples is a number of sweeps or auto, got 'forever'"]),
        (base + ["--researcher", "R", "--n-samples", "auto", "--max-sweeps", "50"], ["--max-sweeps must be", "got 50"]),
        (base + ["--researcher", "R", "--n-jobs", "0"], ["--n-jobs must be", "got 0"]),
        (base + ["--researcher", "R", "--thin", "0"], ["--thin must be an integer >= 1, got 0"]),
        (base + ["--researcher", "R", "--random-state", "-1"], ["--random-state must be a non-negative integer, got -1"]),
        (base + ["--researcher", "R", "--features-task-column", "zz"], ["--features-task-column 'zz' is not a column"]),
        (base + ["--researcher", "R", "--labeler-column", "who"],
         [f"{paths['labels']} has no column 'who' (the labeler column, --labeler-column); its columns are"]),
        (["crowd", str(paths["crowd"]), "--labeler-column", "worker", "--gold", str(tmp_path / "text.csv"),
          "--features", str(paths["tasks"]), "--researcher", "me"],
         [f"{tmp_path / 'text.csv'} has no column 'label' (the label column, --label-column)"]),
        (["crowd", str(paths["labels"]), "--labeler-column", "worker", "--features", str(tmp_path / "text.csv"),
          "--researcher", "R"], ["column 'a'", "not numeric", "data row 1 has 'tall'"]),
    ]


def test_bad_input_is_one_line_and_nothing_is_written(crowd_files, tmp_path):
    paths, *_ = crowd_files
    for args, words in _bad_inputs(paths, tmp_path):
        out = tmp_path / "never.csv"
        result = runner.invoke(app, [*args[:2], *SMALL, *args[2:], "--out", str(out)])  # later values win
        fails_in_one_line(result, *words)
        assert not out.exists() and not (tmp_path / "never.suggest.csv").exists()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["t000", "t001", "x", "", "NA", "t002"]),
                          st.sampled_from(["w0", "w1", "R", "", "0"]),
                          st.sampled_from(["yes", "no", "", "1", "maybe"])), min_size=1, max_size=12))
def test_fuzzed_label_tables_fail_cleanly_or_fit(crowd_files, tmp_path, rows):
    """Any small label table: either a fit with predictions for every task, or one error line; nothing half-written."""
    paths, *_ = crowd_files
    path, out = tmp_path / "fuzz.csv", tmp_path / "fuzz_out.csv"
    out.unlink(missing_ok=True)
    path.write_text("task,worker,label\n" + "".join(f"{t},{w},{v}\n" for t, w, v in rows))
    result = runner.invoke(app, ["crowd", str(path), "--labeler-column", "worker", "--features", str(paths["tasks"]),
                                 "--researcher", "R", "--n-factors", "1", "--n-burnin", "2", "--n-samples", "4",
                                 "--random-state", "0", "--out", str(out)])
    if result.exit_code == 0:
        assert len(pd.read_csv(out)) == 70
    else:
        fails_in_one_line(result)
        assert not out.exists()


@pytest.mark.parametrize("args", [["--sigma", "0"], ["--random-state", "-1"]])
def test_a_static_hint_reads_as_options_on_the_command_line(crowd_files, tmp_path, args):
    """The library's own words for --sigma and --random-state ("sigma is ...", "a numpy Generator or None") are
    Python's; the command names the option and what can be typed."""
    paths, *_ = crowd_files
    result = _crowd(paths, tmp_path / "never.csv", *args)
    fails_in_one_line(result, args[0])
    assert "sigma is" not in result.stderr.replace("--sigma is", "")
    for python in ("numpy", "Generator", "None", "random_state", "BBMC"):
        assert python not in result.stderr, result.stderr
    assert not (tmp_path / "never.csv").exists()

