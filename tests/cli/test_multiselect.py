
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from paucity.cli import app
from paucity.judgments import MultiSelectRegressor

from ._outcomes import fails_in_one_line, read_json, speaks_options, write_file

runner = CliRunner()
ATTRIBUTES = ["signal", "noise1", "noise2", "noise3"]
KEYS = {
    "question", "inputs", "n_objects", "n_attributes", "n_judgments", "settings", "repeats", "repeats_all", "spent",
    "unspent", "note", "objective", "objective_name", "projected_loss", "projected_loss_estimate",
    "projected_loss_without_judgments", "path", "judgments_needed", "coefficients", "estimated_coefficients", "dropped",
}


def _crowd(n_objects=60, judgments=2, seed=0):
    """A tiny crowd: the label is the truth of 'signal'; every judgment is its attribute's truth plus unit noise."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=(n_objects, len(ATTRIBUTES)))
    objects = [f"o{i}" for i in range(n_objects)]
    labels = pd.DataFrame({"object": objects, "label": truth[:, 0] + 0.1 * rng.normal(size=n_objects)})
    rows = [
        (name, attribute, truth[i, a] + rng.normal())
        for i, name in enumerate(objects)
        for a, attribute in enumerate(ATTRIBUTES)
        for _ in range(judgments)
    ]
    return pd.DataFrame(rows, columns=["object", "attribute", "value"]), labels


@pytest.fixture()
def crowd(tmp_path):
    frame, labels = _crowd()
    frame.to_csv(tmp_path / "judgments.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    return tmp_path / "judgments.csv", tmp_path / "labels.csv", frame, labels


def _run(*args):
    return runner.invoke(app, ["multiselect", *map(str, args)])


def _labels(labels):
    return labels.set_index("object")["label"]


def _within_budget(report):
    costs = report["settings"]["costs"]
    spent = sum(costs[attribute] * r for attribute, r in report["repeats_all"].items())
    assert spent == pytest.approx(report["spent"])
    assert spent <= report["settings"]["budget"] + 1e-9
    assert report["spent"] + report["unspent"] == pytest.approx(report["settings"]["budget"])


def test_plan_has_the_repeats_the_projected_loss_and_what_is_still_needed(crowd, tmp_path):
    judgments, labels_path, frame, labels = crowd
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert set(report) == KEYS
    model = MultiSelectRegressor(budget=5).fit(frame, _labels(labels))
    assert report["repeats_all"] == model.repeats_.to_dict() and list(report["repeats_all"]) == sorted(ATTRIBUTES)
    assert report["repeats"] == {a: r for a, r in report["repeats_all"].items() if r > 0}
    assert max(report["repeats"], key=report["repeats"].get) == "signal" and report["repeats"]["signal"] > 2
    _within_budget(report)
    assert report["settings"] == {
        "algorithm": "full", "budget": 5.0, "ridge": None, "min_judgments": 2, "drop_incomplete": False,
        "costs": dict.fromkeys(report["repeats_all"], 1.0), "costs_unlisted": [], "costs_unknown": [],
    }
    assert (report["n_objects"], report["n_attributes"], report["n_judgments"]) == (60, 4, 480)
    assert report["inputs"]["judgments"] == "judgments.csv" and report["inputs"]["costs"] is None
    assert report["projected_loss"] == pytest.approx(model.projected_loss())
    assert report["projected_loss_without_judgments"] == pytest.approx(labels["label"].var(ddof=0))
    assert report["projected_loss"] < report["projected_loss_without_judgments"]
    path = report["path"]
    assert [step["step"] for step in path] == list(range(1, len(path) + 1))
    assert sum(step["cost"] for step in path) == pytest.approx(report["spent"])
    assert path[-1]["projected_loss"] == pytest.approx(report["projected_loss"])
    assert set(path[0]) == {"step", "attribute", "cost", "spent", "objective", "projected_loss"}
    needed = report["judgments_needed"]
    expected = sum(60 * max(0, r - 2) for r in report["repeats_all"].values())
    assert needed["total"] == expected == sum(row["more"] for row in needed["rows"])
    assert needed["n_objects"] == 60
    assert needed["rows"][0] == {"object": "o0", "attribute": "signal", "have": 2, "more": report["repeats"]["signal"] - 2}
    coefficients = report["coefficients"]
    assert coefficients["available"] is False and coefficients["coef"] is None and coefficients["intercept"] is None
    assert f"{expected} more judgment(s)" in coefficients["message"]
    estimated = report["estimated_coefficients"]
    assert set(estimated["coef"]) == set(report["repeats"]) and "before" in estimated["note"]
    assert estimated["coef"]["signal"] == pytest.approx(model.coef_["signal"])
    assert report["dropped"] is None and report["note"] is None
    text = " ".join(result.stdout.split())
    assert "signal" in text and f"Still needed: {expected} more judgment(s) on 60" in text
    assert "coefficient (estimated)" in text and "Plan written to" in text


def test_coefficients_come_when_every_object_has_enough_judgments(tmp_path):
    frame, labels = _crowd(judgments=6)
    frame.to_csv(tmp_path / "judgments.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    out = tmp_path / "plan.json"
    result = _run(tmp_path / "judgments.csv", "--labels", tmp_path / "labels.csv", "--budget", 5, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert max(report["repeats_all"].values()) <= 5  # at most the 6 judgments each object has
    assert report["judgments_needed"] == {"total": 0, "n_objects": 0, "rows": []}
    model = MultiSelectRegressor(budget=5).fit(frame, _labels(labels))
    estimated = model.coef_.copy()
    model.refit(frame, _labels(labels))
    coefficients = report["coefficients"]
    assert coefficients["available"] is True and coefficients["message"] is None
    assert "least squares" in coefficients["source"]
    assert set(coefficients["coef"]) == set(report["repeats"])
    for attribute, weight in coefficients["coef"].items():
        assert weight == pytest.approx(model.coef_[attribute])
        assert report["estimated_coefficients"]["coef"][attribute] == pytest.approx(estimated[attribute])
    assert coefficients["intercept"] == pytest.approx(model.intercept_)
    assert coefficients["coef"]["signal"] > 0.5
    text = " ".join(result.stdout.split())
    assert "least-squares intercept" in text and "coefficient (estimated)" not in text


def test_costs_change_the_plan(crowd, tmp_path):
    judgments, labels_path, _, _ = crowd
    plain, costly = tmp_path / "plain.json", tmp_path / "costly.json"
    assert _run(judgments, "--labels", labels_path, "--budget", 5, "--out", plain).exit_code == 0
    (tmp_path / "costs.tsv").write_text("attribute\tcost\nsignal\t2\nnoise1\t0.5\n")
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--costs", tmp_path / "costs.tsv", "--out", costly)
    assert result.exit_code == 0, result.output
    before, after = read_json(plain), read_json(costly)
    assert after["settings"]["costs"] == {"noise1": 0.5, "noise2": 1.0, "noise3": 1.0, "signal": 2.0}
    assert after["settings"]["costs_unlisted"] == ["noise2", "noise3"] and after["inputs"]["costs"] == "costs.tsv"
    assert after["settings"]["costs_unknown"] == []
    assert after["repeats_all"] != before["repeats_all"]
    assert after["repeats_all"]["signal"] <= 2 < before["repeats_all"]["signal"]
    _within_budget(after)
    assert "Not in --costs, so costing 1: noise2, noise3" in " ".join(result.stdout.split())
    (tmp_path / "costs.csv").write_text("attribute,cost\nsignal,10\n")  # the best attribute is beyond the budget
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--costs", tmp_path / "costs.csv", "--out", costly)
    assert result.exit_code == 0, result.output
    assert "signal" not in read_json(costly)["repeats"]
    _within_budget(read_json(costly))


@pytest.mark.parametrize("algorithm", ["scoring", "Scoring", "averages", "copies"])
def test_other_algorithms(crowd, tmp_path, algorithm):
    judgments, labels_path, frame, labels = crowd
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--algorithm", algorithm, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    model = MultiSelectRegressor(budget=5, algorithm=algorithm.lower()).fit(frame, _labels(labels))
    assert report["settings"]["algorithm"] == algorithm.lower()
    assert report["repeats_all"] == model.repeats_.to_dict()
    assert "signal" in report["repeats"]
    _within_budget(report)
    if algorithm in ("averages", "copies"):  # the baselines buy at most the judgments every training object has
        assert max(report["repeats_all"].values()) <= 2 and report["coefficients"]["available"] is True


def test_a_baseline_that_runs_out_of_attributes_says_so(crowd, tmp_path):
    judgments, labels_path, _, _ = crowd
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, "--budget", 20, "--algorithm", "copies", "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["repeats_all"] == dict.fromkeys(sorted(ATTRIBUTES), 2)
    assert (report["spent"], report["unspent"]) == (8.0, 12.0)
    assert "12 of the budget unspent" in report["note"]
    assert "12 of the budget unspent" in " ".join(result.stdout.split())


def test_drop_incomplete(crowd, tmp_path):
    judgments, labels_path, frame, _ = crowd
    short = frame[frame["object"].isin(["o3", "o7"]) & (frame["attribute"] == "noise2")].index[::2]
    single = frame[frame["attribute"] == "noise3"].index[::2]  # noise3 is judged once on every object
    frame.drop(short.union(single)).to_csv(judgments, index=False)
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--out", out)
    fails_in_one_line(result, "at least 2 judgments", "pass --drop-incomplete to drop them")
    assert not out.exists()
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--drop-incomplete", "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["dropped"] == {"objects": ["o3", "o7"], "attributes": ["noise3"], "n_judgments": 60 + 2 * 5}
    assert report["settings"]["drop_incomplete"] is True
    assert (report["n_objects"], report["n_attributes"]) == (58, 3) and "noise3" not in report["repeats_all"]
    assert "dropped 2 object(s) and 1 attribute(s)" in " ".join(result.stdout.split())
    complete = tmp_path / "complete.json"
    frame.to_csv(judgments, index=False)
    assert _run(judgments, "--labels", labels_path, "--budget", 5, "--drop-incomplete", "--out", complete).exit_code == 0
    assert read_json(complete)["dropped"] == {"objects": [], "attributes": [], "n_judgments": 0}


def test_named_columns_other_formats_and_agreeing_duplicate_labels(crowd, tmp_path):
    _, _, frame, labels = crowd
    renamed = frame.rename(columns={"object": "item", "attribute": "question", "value": "answer"})
    renamed[["answer", "question", "item"]].to_parquet(tmp_path / "judgments.parquet", index=False)
    both = pd.concat([labels, labels.iloc[:3]])  # repeated rows that agree are fine
    both.rename(columns={"object": "item", "label": "y"})[["y", "item"]].to_csv(tmp_path / "labels.tsv", sep="\t", index=False)
    out = tmp_path / "plan.json"
    columns = ["--object-column", "item", "--attribute-column", "question", "--value-column", "answer"]
    result = _run(tmp_path / "judgments.parquet", "--labels", tmp_path / "labels.tsv", "--budget", 5, *columns, "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["inputs"]["columns"] == {"object": "item", "attribute": "question", "value": "answer"}
    assert report["repeats_all"] == MultiSelectRegressor(budget=5).fit(frame, _labels(labels)).repeats_.to_dict()


def _spoil_value(tmp_path, frame, labels):
    frame["value"] = frame["value"].astype(object)
    frame.loc[5, "value"] = "high"
    frame.to_csv(tmp_path / "judgments.csv", index=False)


def _single_judgments(tmp_path, frame, labels):
    frame.drop(frame[frame["attribute"] == "noise1"].index[::2]).to_csv(tmp_path / "judgments.csv", index=False)


def _missing_labels(tmp_path, frame, labels):
    labels.iloc[:-3].to_csv(tmp_path / "labels.csv", index=False)


def _disagreeing_labels(tmp_path, frame, labels):
    pd.concat([labels, labels.iloc[:1].assign(label=99.0)]).to_csv(tmp_path / "labels.csv", index=False)


def _text_labels(tmp_path, frame, labels):
    labels.assign(label="tall").to_csv(tmp_path / "labels.csv", index=False)


def _three_column_labels(tmp_path, frame, labels):
    labels.assign(extra=1).to_csv(tmp_path / "labels.csv", index=False)


def _costs(text):
    def spoil(tmp_path, frame, labels):
        write_file(tmp_path / "costs.csv", text)
        return ["--costs", tmp_path / "costs.csv"]

    return spoil


#: The library's names of the command's options that no message of the command may show (budget, costs, ridge,
#: labels and algorithm are words of the messages too: ``speaks_options`` refuses them as ``name=value``).
PYTHON_NAMES = ("drop_incomplete", "object_column", "attribute_column", "value_column", "min_judgments")


@pytest.mark.parametrize(
    "spoil, args, words",
    [
        (_spoil_value, [], ["column 'value' must hold numbers", "'high'"]),
        (_single_judgments, [], ["at least 2 judgments", "noise1", "pass --drop-incomplete to drop them"]),
        (_missing_labels, [], ["3 judged object(s) have no label", "o59"]),
        (_disagreeing_labels, [], ["--labels are given more than once", "o0"]),
        (_text_labels, [], ["--labels must be numbers", "'tall'"]),
        (_three_column_labels, [], ["--labels", "must have two columns", "'extra'"]),
        (_costs("attribute,cost\nsignal,0\n"), [], ["--costs must be positive numbers; attribute 'signal' costs 0."]),
        (_costs("attribute,cost\nnoise2,-1\n"), [], ["--costs must be positive", "'noise2'"]),
        (_costs("attribute,cost\nnoise2,cheap\n"), [], ["--costs must be positive", "'noise2'"]),
        (_costs("attribute,cost\nnoise2,1\nnoise2,2\n"), [], ["--costs lists attribute(s) noise2 twice"]),
        (_costs("attribute,cost\nnoise9,1\n"), [], ["--costs names 1 attribute(s) the judgments do not have"]),
        (_costs("attribute,cost\nsignal,6\nnoise1,6\nnoise2,6\nnoise3,6\n"), [], ["smaller than the cheapest"]),
        (None, ["--budget", 0.5], ["--budget 0.5 is smaller than the cheapest attribute"]),
        (None, ["--budget", -1], ["--budget must be a number > 0, got -1.0"]),
        (None, ["--budget", "inf"], ["--budget must be a number > 0, got inf"]),
        (None, ["--budget", "nan"], ["--budget must be a number > 0, got nan"]),
        (None, ["--budget", "many"], ["Invalid value for '--budget'", "paucity multiselect --help"]),
        (None, ["--algorithm", "greedy"], ["--algorithm must be one of 'full', 'scoring', 'averages', 'copies'",
                                           "got 'greedy'"]),
        (None, ["--ridge", -1], ["--ridge must be a number >= 0, got -1.0"]),
        (None, ["--ridge", "nan"], ["--ridge must be a number >= 0, got nan"]),
        (None, ["--algorithm", "scoring", "--ridge", 1], ["--ridge applies to --algorithm 'full' only",
                                                          "--algorithm 'scoring' does not use it, so leave --ridge out"]),
        (None, ["--algorithm", "copies", "--ridge", 0], ["--algorithm 'copies' does not use it"]),
        (None, ["--value-column", "score"], ["has no column 'score' (the value column, --value-column)"]),
        (None, ["--object-column", "item"], ["has no column 'item' (the object column, --object-column)"]),
        (None, ["--attribute-column", "question"], ["has no column 'question' (the attribute column, --attribute-column)"]),
    ],
)
def test_bad_input_fails_in_one_line_and_writes_nothing(crowd, tmp_path, spoil, args, words):
    judgments, labels_path, frame, labels = crowd
    extra = (spoil(tmp_path, frame.copy(), labels.copy()) or []) if spoil else []
    budget = [] if "--budget" in args else ["--budget", 5]
    before = sorted(p.name for p in tmp_path.iterdir())
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, *budget, *args, *extra, "--out", out)
    fails_in_one_line(result, *words)
    speaks_options(result, *PYTHON_NAMES)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_missing_unreadable_and_misplaced_files(crowd, tmp_path):
    judgments, labels_path, _, _ = crowd
    out = tmp_path / "plan.json"
    fails_in_one_line(_run(tmp_path / "absent.csv", "--labels", labels_path, "--budget", 5, "--out", out), "absent.csv does not exist")
    fails_in_one_line(_run(judgments, "--labels", tmp_path / "absent.csv", "--budget", 5, "--out", out), "absent.csv does not exist")
    costs = ["--costs", tmp_path / "absent.csv"]
    fails_in_one_line(_run(judgments, "--labels", labels_path, "--budget", 5, *costs, "--out", out), "absent.csv does not exist")
    garbage = write_file(tmp_path / "garbage.parquet", "not a parquet file\n")
    fails_in_one_line(_run(garbage, "--labels", labels_path, "--budget", 5, "--out", out), "could not read", "garbage.parquet")
    empty = write_file(tmp_path / "empty.csv", "")
    fails_in_one_line(_run(judgments, "--labels", empty, "--budget", 5, "--out", out), "empty.csv is empty")
    misplaced = tmp_path / "missing" / "plan.json"
    fails_in_one_line(_run(judgments, "--labels", labels_path, "--budget", 5, "--out", misplaced), "folder of --out", "does not exist")
    # --out is checked before anything is read
    fails_in_one_line(_run(tmp_path / "absent.csv", "--labels", labels_path, "--budget", 5, "--out", misplaced), "folder of --out")
    fails_in_one_line(_run(judgments, "--labels", labels_path, "--budget", 5, "--out", tmp_path), "--out", "is a folder")
    fails_in_one_line(_run(judgments, "--labels", labels_path, "--budget", 5), "Missing option '--out'")
    fails_in_one_line(_run(judgments, "--budget", 5, "--out", out), "Missing option '--labels'")
    fails_in_one_line(_run(judgments, "--labels", labels_path, "--out", out), "Missing option '--budget'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.csv", "garbage.parquet", "judgments.csv", "labels.csv"]


def test_help():
    result = _run("--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for word in (
        "JUDGMENTS", "--labels", "--budget", "--costs", "--algorithm", "--ridge", "--drop-incomplete", "--object-column",
        "--attribute-column", "--value-column", "--out", "Examples", "paucity multiselect",
    ):
        assert word in text


def test_a_huge_budget_ends_promptly_and_says_what_was_left(crowd, tmp_path):
    judgments, labels_path, frame, labels = crowd
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, "--budget", "1e308", "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert report["unspent"] > 1e307 and "would not change the plan" in report["note"]
    warnings = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and warnings[0].startswith("warning: full stopped after spending")
    assert "would not change the plan" in " ".join(result.stdout.split())
    spent = report["spent"]
    smaller = tmp_path / "smaller.json"
    assert _run(judgments, "--labels", labels_path, "--budget", spent, "--out", smaller).exit_code == 0
    assert read_json(smaller)["repeats_all"] == report["repeats_all"]


def test_scorings_plan_is_projected_with_fulls_estimate(crowd, tmp_path):
    judgments, labels_path, frame, labels = crowd
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--algorithm", "scoring", "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    full = MultiSelectRegressor(budget=5).fit(frame, _labels(labels))
    assert report["projected_loss"] == pytest.approx(full.projected_loss(report["repeats_all"]))
    assert report["projected_loss_estimate"] == "full" and report["objective_name"] == "scoring objective"
    assert report["path"][-1]["projected_loss"] == pytest.approx(report["projected_loss"])
    text = " ".join(result.stdout.split())
    assert f"Projected squared loss on new objects (Full estimate): {report['projected_loss']:.4g}" in text
    assert f"Scoring objective" in text and f"{report['objective']:.4g}" in text


def test_identifiers_are_read_as_text(tmp_path):
    frame, labels = _crowd(n_objects=30)
    names = {f"o{i}": f"{i:05d}" for i in range(30)}
    names["o1"] = "NA"
    frame["object"] = frame["object"].map(names)
    frame["attribute"] = frame["attribute"].replace({"noise3": "NA", "noise2": "007"})
    labels["object"] = labels["object"].map(names)
    frame.to_csv(tmp_path / "judgments.csv", index=False)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    (tmp_path / "costs.csv").write_text("attribute,cost\n007,2\nNA,0.5\n")
    out = tmp_path / "plan.json"
    result = _run(tmp_path / "judgments.csv", "--labels", tmp_path / "labels.csv", "--budget", 5, "--costs",
                  tmp_path / "costs.csv", "--out", out)
    assert result.exit_code == 0, result.output
    report = read_json(out)
    assert sorted(report["repeats_all"]) == ["007", "NA", "noise1", "signal"]
    assert report["settings"]["costs"] == {"007": 2.0, "NA": 0.5, "noise1": 1.0, "signal": 1.0}
    objects = {row["object"] for row in report["judgments_needed"]["rows"]}
    assert "00024" in objects and "NA" in objects and report["n_objects"] == 30
    # labels keyed by the first column when none is named like --object-column
    labels.rename(columns={"object": "photo"}).to_csv(tmp_path / "labels.csv", index=False)
    again = tmp_path / "again.json"
    assert _run(tmp_path / "judgments.csv", "--labels", tmp_path / "labels.csv", "--budget", 5, "--costs",
                tmp_path / "costs.csv", "--out", again).exit_code == 0
    assert read_json(again)["repeats_all"] == report["repeats_all"]


def test_duplicate_column_headers_are_refused(crowd, tmp_path):
    judgments, labels_path, frame, labels = crowd
    (tmp_path / "twice.csv").write_text("object,attribute,value,value\no1,a,1,2\n")
    out = tmp_path / "plan.json"
    fails_in_one_line(_run(tmp_path / "twice.csv", "--labels", labels_path, "--budget", 5, "--out", out), "value")
    assert not out.exists()


def test_quiet_prints_no_summary(crowd, tmp_path):
    judgments, labels_path, _, _ = crowd
    out = tmp_path / "plan.json"
    result = runner.invoke(app, ["--quiet", "multiselect", str(judgments), "--labels", str(labels_path), "--budget", "5",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "" and read_json(out)["repeats"]


def test_costs_naming_an_attribute_never_judged_is_refused(crowd, tmp_path):
    judgments, labels_path, _, _ = crowd
    (tmp_path / "costs.tsv").write_text("attribute\tcost\nsignal\t2\nsignall\t3\n")
    out = tmp_path / "plan.json"
    result = _run(judgments, "--labels", labels_path, "--budget", 5, "--costs", tmp_path / "costs.tsv", "--out", out)
    fails_in_one_line(result, "signall", "do not have")
    assert not out.exists()
