"""``paucity cluster-active`` and ``paucity cluster-session``: the library's answers, one-line errors, nothing
written on failure, and a session killed mid-run that resumes."""

from __future__ import annotations

import re
import shlex
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from paucity.cli import app
from paucity.clustering import (
    ActiveSpectralClustering,
    MatrixOracle,
    MeasurementStore,
    simulate,
    spectral_bisection,
)

from ._outcomes import fails_in_one_line

runner = CliRunner()
DOCS = Path(__file__).resolve().parents[2] / "docs" / "clustering.md"


def similarities(n=16, seed=0, shift=3.0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n - n // 2, 2)) + [shift, 0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)


def names(n):
    return [f"{k:05d}" for k in range(n - 2)] + ["NA", "null"]  # text that pandas would turn into numbers or NaN


def write_square(path, W, items):
    pd.DataFrame(W, index=items, columns=items).to_csv(path, float_format="%.17g")
    return path


def read_text_table(path):
    return pd.read_csv(path, dtype={"item": str, "i": str, "j": str}, keep_default_na=False,
                       na_values={"value": [""]})


def listing(folder):
    return sorted(p.name for p in Path(folder).iterdir())


# -- cluster-active ------------------------------------------------------------------------------------------------
def test_cluster_active_writes_the_estimators_labels_and_error_curve(tmp_path):
    W = similarities()
    items = names(16)
    path = write_square(tmp_path / "similarities.csv", W, items)
    out = tmp_path / "labels.csv"
    result = runner.invoke(app, ["cluster-active", str(path), "--budget", "0.25", "--strategy", "iu-red",
                                 "--batch-size", "2", "--interleave", "--random-state", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    reference = spectral_bisection(W)
    model = ActiveSpectralClustering(budget=0.25, batch_size=2, interleave=True, random_state=3)
    model.fit(MatrixOracle(W), reference=reference)
    labels = read_text_table(out)
    assert labels.columns.tolist() == ["item", "label", "reference", "embedding"]
    assert labels["item"].tolist() == items
    np.testing.assert_array_equal(labels["label"], model.labels_)
    np.testing.assert_array_equal(labels["reference"], reference)
    np.testing.assert_allclose(labels["embedding"], model.embedding_, rtol=1e-12)
    history = pd.read_csv(tmp_path / "labels.history.csv")
    pd.testing.assert_frame_equal(history, model.history_, check_exact=False, rtol=1e-12)
    assert f"iu-red on 16 items: 30 of 120 pairs measured (25.0%), error {history['error'].iloc[-1]:.3f}" in result.stdout
    assert listing(tmp_path) == ["labels.csv", "labels.history.csv", "similarities.csv"]


def test_a_long_table_gives_what_the_square_matrix_gives(tmp_path):
    W = similarities(n=10, seed=1)
    items = names(10)
    write_square(tmp_path / "square.csv", W, items)
    # pairs after the first row's are given in reverse order: the items still appear in the square's order
    rows = [(items[i], items[j], repr(float(W[i, j]))) if i == 0 else (items[j], items[i], repr(float(W[i, j])))
            for i in range(10) for j in range(i + 1, 10)]
    pd.DataFrame(rows, columns=["a", "b", "sim"]).to_csv(tmp_path / "pairs.tsv", sep="\t", index=False)
    square = runner.invoke(app, ["cluster-active", str(tmp_path / "square.csv"), "--budget", "20", "--strategy",
                                 "shamir-tishby", "--random-state", "0", "--out", str(tmp_path / "square.labels.csv")])
    long = runner.invoke(app, ["cluster-active", str(tmp_path / "pairs.tsv"), "--i-column", "a", "--j-column", "b",
                               "--value-column", "sim", "--budget", "20", "--strategy", "shamir_tishby",
                               "--random-state", "0", "--out", str(tmp_path / "long.csv"),
                               "--history", str(tmp_path / "curve.csv")])
    assert square.exit_code == 0 and long.exit_code == 0, square.output + long.output
    pd.testing.assert_frame_equal(read_text_table(tmp_path / "long.csv"), read_text_table(tmp_path / "square.labels.csv"))
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "curve.csv"), pd.read_csv(tmp_path / "square.labels.history.csv"))
    assert (tmp_path / "curve.csv").exists() and not (tmp_path / "long.history.csv").exists()


def test_a_noisy_crowd_with_repeats_is_simulate_with_the_same_arguments(tmp_path):
    W = similarities(n=10, seed=2)
    items = names(10)
    path = write_square(tmp_path / "W.csv", W, items)
    out = tmp_path / "noisy.csv"
    result = runner.invoke(app, ["cluster-active", str(path), "--budget", "0.5", "--repeats", "3", "--concentration",
                                 "10", "--adversarial", "0.1", "--n-clusters", "2", "--random-state", "5",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    expected = simulate(pd.DataFrame(W, index=items, columns=items), budget=0.5, repeats=3, concentration=10,
                        adversarial=0.1, random_state=5)
    assert expected.queries["repeat"].max() > 1 and expected.n_queries == round(0.5 * 45 * 3)
    np.testing.assert_array_equal(read_text_table(out)["label"], expected.labels)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "noisy.history.csv"), expected.history,
                                  check_exact=False, rtol=1e-12)


def test_quiet_prints_nothing_and_random_runs(tmp_path):
    path = write_square(tmp_path / "W.csv", similarities(n=8), names(8))
    result = runner.invoke(app, ["--quiet", "cluster-active", str(path), "--strategy", "random", "--budget", "10",
                                 "--out", str(tmp_path / "l.csv")])
    assert result.exit_code == 0 and result.stdout == "", result.output
    assert len(pd.read_csv(tmp_path / "l.history.csv")) >= 1


def _matrix_file(tmp_path, edit=None, n=6, text=None):
    path = tmp_path / "W.csv"
    if text is not None:
        path.write_text(text)
        return path
    W = similarities(n=n)
    frame = pd.DataFrame(W, index=names(n), columns=names(n)).astype(object)
    if edit is not None:
        edit(frame)
    frame.to_csv(path)
    return path


@pytest.mark.parametrize(
    "make, extra, words",
    [
        (lambda t: _matrix_file(t, lambda f: f.iloc.__setitem__((0, 1), 1.5)), [], ["1.5", "in [0, 1]"]),
        (lambda t: _matrix_file(t, lambda f: f.iloc.__setitem__((2, 3), -0.2)), [], ["-0.2", "in [0, 1]"]),
        (lambda t: _matrix_file(t, lambda f: f.iloc.__setitem__((0, 1), "")), [], ["no value for the pair ('00000', '00001')"]),
        (lambda t: _matrix_file(t, lambda f: f.iloc.__setitem__((0, 1), "nan")), [], ["no value for the pair"]),
        (lambda t: _matrix_file(t, lambda f: f.iloc.__setitem__((4, 1), 0.0)), [], ["not symmetric", "('00001', 'NA')"]),
        (lambda t: _matrix_file(t, text=",a,b,c\na,1,0.5,0.2\nb,0.5,1,0.1\n"), [], ["not a square matrix", "2 rows and 3 columns"]),
        (lambda t: _matrix_file(t, text=",a,b\na,1,0.5\nb,0.5,1\n"), [], ["2 item(s)", "at least 3"]),
        (lambda t: _matrix_file(t), ["--budget", "16"], ["--budget 16", "15 possible", "--repeats 1"]),
        (lambda t: _matrix_file(t), ["--budget", "31", "--repeats", "2"], ["--budget 31", "30 possible", "--repeats 2"]),
        (lambda t: _matrix_file(t), ["--repeats", "0"], ["--repeats must be"]),
        (lambda t: _matrix_file(t), ["--budget", "1.5"], ["budget"]),
        (lambda t: _matrix_file(t), ["--budget", "lots"], ["--budget must be a number"]),
        (lambda t: _matrix_file(t), ["--strategy", "best"], ["--strategy must be iu-red, shamir-tishby or random"]),
        (lambda t: _matrix_file(t), ["--adversarial", "0.1"], ["--adversarial 0.1 needs a noise model", "--concentration too"]),
        (lambda t: _matrix_file(t), ["--n-clusters", "7"], ["--n-clusters 7 but there are only 6 items"]),
        (lambda t: _matrix_file(t), ["--random-state", "-1"], ["--random-state must be"]),
        (lambda t: _matrix_file(t), ["--interleave", "--strategy", "random"], ["--interleave", "--strategy 'random'",
                                                                              "changes nothing"]),
        (lambda t: _matrix_file(t), ["--batch-size", "0"], ["--batch-size must be an integer >= 1, got 0"]),
        (lambda t: _matrix_file(t), ["--n-clusters", "1"], ["--n-clusters must be an integer >= 2, got 1"]),
        (lambda t: _matrix_file(t), ["--concentration", "nan"], ["--concentration must be"]),
        (lambda t: _matrix_file(t), ["--concentration", "10", "--adversarial", "2"], ["--adversarial must be"]),
        (lambda t: _matrix_file(t), ["--budget", "1.5"], ["--budget must be"]),
        (lambda t: _matrix_file(t), ["--i-column", "x"], ["no column 'x' (the i column, --i-column)"]),
        (lambda t: _matrix_file(t), ["--i-column", "left"], ["no column 'left'"]),
        (lambda t: _matrix_file(t), ["--history", "out.csv"], ["--history and --out are both"]),
    ],
)
def test_cluster_active_refuses_bad_input_in_one_line_and_writes_nothing(tmp_path, monkeypatch, make, extra, words):
    monkeypatch.chdir(tmp_path)
    path = make(tmp_path)
    before = listing(tmp_path)
    result = runner.invoke(app, ["cluster-active", str(path), *extra, "--out", "out.csv"])
    fails_in_one_line(result, *words)
    assert listing(tmp_path) == before


# -- cluster-session -----------------------------------------------------------------------------------------------
def fill(asks_path, W, items, answers_path, rows=None):
    """An annotator: the asks file with its value column filled from the matrix (only ``rows`` when given)."""
    asks = read_text_table(asks_path)
    position = {name: k for k, name in enumerate(items)}
    values = [W[position[i], position[j]] for i, j in zip(asks["i"], asks["j"])]
    asks["value"] = [repr(float(v)) for v in values]
    if rows is not None:
        asks.loc[~asks.index.isin(rows), "value"] = ""
    asks.to_csv(answers_path, index=False)
    return answers_path


def verb(command, database, *args):
    """``paucity cluster-session COMMAND DATABASE ARGS``."""
    return runner.invoke(app, ["cluster-session", command, str(database), *map(str, args)])


def snapshot(folder):
    """Every file of the folder, byte for byte (an SQLite database checkpointed: its WAL is empty once closed)."""
    return {path.name: path.read_bytes() for path in Path(folder).iterdir() if path.is_file()}


@pytest.fixture()
def study(tmp_path):
    W = similarities(n=14, seed=4)
    items = names(14)
    pd.DataFrame({"photo": items, "room": ["x"] * 14}).to_csv(tmp_path / "items.csv", index=False)
    return tmp_path, W, items


def test_a_session_answered_round_by_round_is_the_estimator_with_batches(study):
    folder, W, items = study
    db = folder / "s.db"
    first = verb("start", db, "--items", folder / "items.csv", "--budget", "30", "--batch-size", "6",
                 "--random-state", "2", "--out", folder / "asks.csv")
    assert first.exit_code == 0, first.output
    assert "started a session over 14 items (iu-red, budget 30 measurements)" in first.stdout
    assert "6 pairs to ask for asks.csv (6 new, 0 asked before)" in first.stdout
    asks = read_text_table(folder / "asks.csv")
    assert asks.columns.tolist() == ["i", "j", "value"] and asks["value"].isna().all()
    assert f"  {asks['i'][0]}\t{asks['j'][0]}" in first.stdout
    rounds = 0
    while True:
        fill(folder / "asks.csv", W, items, folder / "answers.csv")
        answered = verb("answer", db, folder / "answers.csv", "--out", folder / "clusters.csv")
        assert answered.exit_code == 0, answered.output
        rounds += 1
        asked = verb("ask", db, "--out", folder / "asks.csv")
        assert asked.exit_code == 0, asked.output
        if "budget of 30 measurements is spent" in asked.stdout:
            break
    assert rounds == 5 and len(read_text_table(folder / "asks.csv")) == 0
    model = ActiveSpectralClustering(budget=30, batch_size=6, random_state=2).fit(MatrixOracle(W))
    store = MeasurementStore(db)
    np.testing.assert_array_equal(store.measurements()[["i", "j"]].to_numpy(), model.queries_[["i", "j"]].to_numpy())
    # each answer belongs to whom held its pair: here the asks were made without --annotator, for the asks file
    assert set(store.measurements()["source"]) == {"asks.csv"}
    clusters = read_text_table(folder / "clusters.csv")
    assert clusters.columns.tolist() == ["item", "label", "embedding"] and clusters["item"].tolist() == items
    np.testing.assert_array_equal(clusters["label"], model.labels_)
    sizes = ", ".join(f"{k}: {v} items" for k, v in zip(*np.unique(model.labels_, return_counts=True)))
    assert f"clusters ({sizes}) written to" in answered.stdout
    larger = verb("extend", db, "--budget", "36")
    assert larger.exit_code == 0 and "the budget is 36 measurements (was 30)" in larger.stdout
    more = verb("ask", db, "--out", folder / "asks.csv")
    assert "30 of 36 measurements made; 6 pairs to ask for asks.csv (6 new" in more.stdout


def test_answers_in_parts_and_read_again(study, monkeypatch):
    folder, W, items = study
    monkeypatch.chdir(folder)
    started = verb("start", "s.db", "--items", "items.csv", "--item-column", "photo", "--budget", "20",
                   "--batch-size", "5", "--random-state", "0")  # default --out: asks.csv in the current folder
    assert started.exit_code == 0, started.output
    asks = folder / "asks.csv"
    assert asks.exists()
    fill(asks, W, items, folder / "answers.csv", rows=[0, 1])
    part = verb("answer", "s.db", "answers.csv", "--out", "c.csv")
    assert "2 answers recorded from answers.csv (3 rows without a value skipped); 2 of 20 measurements made, " \
           "3 pairs wait for an answer" in part.stdout
    fill(asks, W, items, folder / "answers.csv")
    rest = verb("answer", "s.db", "answers.csv", "--out", "c.csv")
    assert "3 answers recorded from answers.csv (2 recorded before)" in rest.stdout
    again = verb("answer", "s.db", "answers.csv")  # default --out: clusters.csv
    assert "0 answers recorded from answers.csv (5 recorded before); 5 of 20" in again.stdout
    assert (folder / "clusters.csv").read_text() == (folder / "c.csv").read_text()
    assert len(MeasurementStore(folder / "s.db")) == 5


def test_asking_again_writes_the_same_pairs_and_another_annotator_gets_others(study):
    folder, _, _ = study
    db = folder / "s.db"
    verb("start", db, "--items", folder / "items.csv", "--batch-size", "6", "-n", "4", "--random-state", "1",
         "--out", folder / "a.csv")
    again = verb("ask", db, "--annotator", "a.csv", "-n", "4", "--out", folder / "b.csv")
    assert "4 pairs to ask for a.csv (0 new, 4 asked before)" in again.stdout
    assert (folder / "a.csv").read_text() == (folder / "b.csv").read_text()
    other = verb("ask", db, "--out", folder / "c.csv")  # another file: another annotator
    assert "2 pairs to ask for c.csv (2 new, 0 asked before)" in other.stdout  # 6 at most wait at once
    full = verb("ask", db, "--annotator", "dan", "--out", folder / "d.csv")
    assert full.exit_code == 0
    assert "no pair for dan: the 6 pairs that wait for an answer are with other annotators" in full.stdout
    assert read_text_table(folder / "d.csv").empty
    quiet = runner.invoke(app, ["--quiet", "cluster-session", "ask", str(db), "--out", str(folder / "e.csv")])
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_many_pairs_are_printed_in_part(study):
    folder, _, _ = study
    result = verb("start", folder / "s.db", "--items", folder / "items.csv", "--batch-size", "25", "--budget", "0.5",
                  "--out", folder / "a.csv")
    assert "  ... and 5 more in" in result.stdout and len(read_text_table(folder / "a.csv")) == 25


def test_status_says_where_the_session_stands(study):
    folder, W, items = study
    db = folder / "s.db"
    verb("start", db, "--items", folder / "items.csv", "--budget", "12", "--batch-size", "6", "--price", "0.5",
         "--random-state", "0", "--annotator", "ann", "-n", "4", "--out", folder / "a.csv")
    fill(folder / "a.csv", W, items, folder / "answers.csv", rows=[0, 1, 2])
    verb("answer", db, folder / "answers.csv", "--out", folder / "c.csv")
    result = verb("status", db, "--out", folder / "now.csv")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (f"{db}: 14 items, iu-red, batches of 6; 3 of 12 measurements made, 1 pairs wait for an "
                        "answer (1 with an annotator now), 8 left to ask")
    assert lines[1] == "cost: 1.5 (3 answers at 0.5)"
    assert "  ann\t3 answers\t1 waiting" in lines  # ann held the pairs answered in the file: the answers are hers
    assert not any("answers.csv" in line for line in lines)
    assert lines[-1].startswith("clusters so far: ") and lines[-1].endswith(f"written to {folder / 'now.csv'}")
    assert read_text_table(folder / "now.csv")["item"].tolist() == items


def test_status_exports_the_answers_and_clusters_as_csv_or_json(study):
    folder, W, items = study
    db = folder / "s.db"
    verb("start", db, "--items", folder / "items.csv", "--budget", "12", "--batch-size", "4", "--random-state", "0",
         "--out", folder / "a.csv")
    fill(folder / "a.csv", W, items, folder / "answers.csv")
    verb("answer", db, folder / "answers.csv", "--out", folder / "c.csv")
    result = verb("status", db, "--out", folder / "clusters.json", "--answers", folder / "answers-out.csv")
    assert result.exit_code == 0, result.output
    clusters = pd.read_json(folder / "clusters.json", dtype={"item": str})
    assert clusters["item"].tolist() == items and set(clusters.columns) == {"item", "label", "embedding"}
    answers = read_text_table(folder / "answers-out.csv")
    assert len(answers) == 4 and set(answers["annotator"]) == {"a.csv"} and not answers["gold"].any()  # the holder
    assert {"i", "j", "value", "annotator", "time", "gold", "gold_value", "excluded"} <= set(answers.columns)
    fails_in_one_line(verb("status", db, "--answers", folder / "answers.txt"), "--answers", ".csv")


def _other_program(folder):
    with sqlite3.connect(folder / "s.db") as connection:
        connection.execute("CREATE TABLE photos (name TEXT)")
    connection.close()


def _only_a_view(folder):
    with sqlite3.connect(folder / "s.db") as connection:
        connection.execute("CREATE VIEW photos AS SELECT 'a' AS name")
    connection.close()


def _empty_file(folder):
    (folder / "s.db").write_bytes(b"")


def _version(text):
    def damage(folder):
        assert verb("start", folder / "s.db", "--items", folder / "items.csv", "--out", folder / "x.csv").exit_code == 0
        (folder / "x.csv").unlink()
        with sqlite3.connect(folder / "s.db") as connection:
            connection.execute("UPDATE paucity_store SET value = ? WHERE key = 'version'", (text,))
        connection.close()
    return damage


@pytest.mark.parametrize(
    "prepare, args, words",
    [
        (None, ["ask", "--out", "a.csv"], ["holds no session (it is a file that does not exist)"]),
        (None, ["start", "--out", "a.csv"], ["holds no session yet; give --items"]),
        (None, ["start", "--items", "few.csv"], ["2 item(s)", "at least 3"]),
        (None, ["start", "--items", "twice.csv"], ["'a' twice"]),
        (None, ["start", "--items", "items.csv", "--budget", "92"], ["--budget 92", "91 possible"]),
        (None, ["start", "--items", "items.csv", "--repeats", "0"], ["repeats"]),
        (None, ["start", "--items", "items.csv", "--strategy", "best"], ["--strategy must be"]),
        (None, ["start", "--items", "items.csv", "--price", "-1"], ["price must be a number >= 0"]),
        (None, ["start", "--items", "items.csv", "--item-column", "name"], ["no column 'name'"]),
        (None, ["start", "--item-column", "photo"], ["--item-column names the item column of --items"]),
        (None, ["answer", "answers.csv"], ["holds no session", "does not exist"]),
        (None, ["start", "--items", "items.csv", "--annotator", "a\tb"], ["annotator must be a name"]),
        (_other_program, ["start", "--items", "items.csv"], ["written by another program", "the tables photos"]),
        (_other_program, ["answer", "answers.csv"], ["written by another program"]),
        (_only_a_view, ["start", "--items", "items.csv"], ["written by another program", "the views photos"]),
        (_empty_file, ["ask"], ["holds no session (it is an empty file)"]),
        (_empty_file, ["start"], ["holds no session yet; give --items"]),
        (_version("abc"), ["ask"], ["is damaged: its store version is 'abc'"]),
        (_version("7"), ["status"], ["written by a newer paucity (store version 7"]),
        ("started", ["start", "--strategy", "random"], ["has --strategy 'iu-red'; --strategy 'random' would make", "Leave --strategy out"]),
        ("started", ["start", "--items", "items.csv", "--budget", "40"], ["has --budget 0.1; --budget 40 would make"]),
        ("started", ["start", "--items", "three.csv"], ["the session has 14 items but items names 3"]),
        ("started", ["extend", "--budget", "3"], ["--budget 3 is 3 measurements, fewer than the session's 9"]),
        ("started", ["answer", "answers.csv", "--batch-size", "3"], ["No such option: --batch-size"]),
        ("started", ["answer", "unknown.csv"], ["names 'zz'", "not an item of the session"]),
        ("started", ["answer", "never.csv"], ["never asked"]),
        ("started", ["answer", "outside.csv"], ["gives 7.0", "in [0, 1]"]),
        ("started", ["answer", "words.csv"], ["'yes'", "column 'value', data row 1"]),
        ("started", ["answer", "nan.csv"], ["'nan' in column 'value', data row 1", "leave the cell empty"]),
        ("started", ["answer", "answers.csv", "--value-column", "sim"], ["no column 'sim'"]),
        ("started", ["ask", "-n", "0"], ["--n-pairs must be an integer >= 1"]),
        (None, ["start", "--items", "items.csv", "-n", "0"], ["n must be an integer >= 1"]),
        ("started", ["ask", "--out", "folder/"], ["is a folder"]),
    ],
)
def test_cluster_session_refuses_bad_input_in_one_line_and_changes_nothing(study, monkeypatch, prepare, args,
                                                                            words):
    folder, W, items = study
    monkeypatch.chdir(folder)
    (folder / "few.csv").write_text("item\na\nb\n")
    (folder / "three.csv").write_text("item\na\nb\nc\n")
    (folder / "twice.csv").write_text("item\na\nb\na\n")
    (folder / "answers.csv").write_text("i,j,value\n00000,00001,0.5\n")
    (folder / "folder").mkdir()
    if prepare == "started":
        assert verb("start", "s.db", "--items", "items.csv", "--batch-size", "3", "--random-state", "0",
                    "--out", "asks.csv").exit_code == 0
        asks = read_text_table(folder / "asks.csv")
        asked = {frozenset(pair) for pair in zip(asks["i"], asks["j"])}
        never = next((a, b) for a in items for b in items if a != b and frozenset((a, b)) not in asked)
        (folder / "unknown.csv").write_text(f"i,j,value\n{asks['i'][0]},zz,0.5\n")
        (folder / "never.csv").write_text(f"i,j,value\n{never[0]},{never[1]},0.5\n")
        (folder / "outside.csv").write_text(f"i,j,value\n{asks['j'][0]},{asks['i'][0]},7\n")
        (folder / "words.csv").write_text(f"i,j,value\n{asks['j'][0]},{asks['i'][0]},yes\n")
        (folder / "nan.csv").write_text(f"i,j,value\n{asks['j'][0]},{asks['i'][0]},nan\n")
    elif prepare is not None:
        prepare(folder)
    before = snapshot(folder)
    result = verb(args[0], "s.db", *args[1:])
    fails_in_one_line(result, *words)
    assert snapshot(folder) == before


def test_a_postgresql_url_without_its_driver_names_the_extra(study, monkeypatch):
    import importlib.util

    folder, _, _ = study
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name, *a))
    monkeypatch.chdir(folder)
    before = snapshot(folder)
    for args in (["start", "--items", "items.csv"], ["ask"], ["status"]):
        result = verb(args[0], "postgresql://ann:secret@localhost/photos", *args[1:])
        fails_in_one_line(result, "needs the PostgreSQL driver psycopg", "pip install 'paucity[postgres]'")
        assert "secret" not in result.stderr
    assert snapshot(folder) == before


def test_a_database_in_a_folder_that_cannot_be_written_is_named_as_such(study):
    """The message names the folder, not "not a database"; the database is left as it was."""
    folder, _, _ = study
    locked = folder / "locked"
    locked.mkdir()
    assert verb("start", locked / "s.db", "--items", folder / "items.csv", "--out", folder / "a.csv").exit_code == 0
    before = snapshot(locked)
    for args in (["ask", locked / "s.db", "--out", folder / "b.csv"],
                 ["start", locked / "new.db", "--items", folder / "items.csv", "--out", folder / "b.csv"]):
        result = _in_a_read_only_folder(locked, ["cluster-session", *map(str, args)], cwd=folder)
        assert result.returncode == 2, result.stderr
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and f"the folder {locked} cannot be written" in lines[0], result.stderr
        assert not (folder / "b.csv").exists()
    assert snapshot(locked) == before


def _in_a_read_only_folder(locked: Path, args, *, cwd):
    """``paucity ARGS`` while ``locked`` cannot be written: made read-only for this process (a read-only bind
    mount in a mount namespace of its own, as root, who may write any folder otherwise), or by its mode."""
    import os
    import shlex
    import shutil

    code = "import sys; from paucity.cli import main; sys.argv = ['paucity', *sys.argv[1:]]; main()"
    command = [sys.executable, "-c", code, *args]
    if os.geteuid() != 0:
        locked.chmod(0o555)
        try:
            return subprocess.run(command, cwd=cwd, capture_output=True, text=True)
        finally:
            locked.chmod(0o755)
    if shutil.which("unshare") is None:
        pytest.skip("as root, a read-only folder needs a read-only mount (unshare from util-linux)")
    mount = f"mount --bind {shlex.quote(str(locked))} {shlex.quote(str(locked))} && " \
            f"mount -o remount,ro,bind {shlex.quote(str(locked))} && exec {shlex.join(command)}"
    result = subprocess.run(["unshare", "-m", "sh", "-c", mount], cwd=cwd, capture_output=True, text=True)
    if result.returncode not in (0, 2) and "mount" in result.stderr:
        pytest.skip(f"as root, a read-only folder needs a read-only mount, which this machine refused: "
                    f"{result.stderr.strip().splitlines()[0]}")
    return result


# -- withdrawing asks ----------------------------------------------------------------------------------------------
def test_withdrawn_asks_stop_waiting_and_are_asked_again(study):
    folder, W, items = study
    db = folder / "s.db"
    assert verb("start", db, "--items", folder / "items.csv", "--budget", "10", "--batch-size", "5",
                "--random-state", "1", "--out", folder / "asks.csv").exit_code == 0
    asks = read_text_table(folder / "asks.csv")
    fill(folder / "asks.csv", W, items, folder / "answers.csv", rows=[0])
    assert verb("answer", db, folder / "answers.csv", "--out", folder / "c.csv").exit_code == 0
    asks.iloc[[3, 1]].rename(columns={"i": "second", "j": "first"}).to_csv(folder / "gone.csv", index=False)
    before = listing(folder)
    gone = verb("withdraw", db, folder / "gone.csv", "--i-column", "first", "--j-column", "second")
    assert gone.exit_code == 0, gone.output
    assert gone.stdout.splitlines() == [
        f"{db}: 2 asks withdrawn; 2 pairs wait for an answer, 1 of 10 measurements made (ask again to "
        "send pairs out in their place)",
        f"  {asks['i'][3]}\t{asks['j'][3]}",
        f"  {asks['i'][1]}\t{asks['j'][1]}",
    ]
    assert listing(folder) == before  # only the database is written
    store = MeasurementStore(db)
    assert len(store.pending()) == 2 and len(store) == 1
    store.close()
    fill(folder / "asks.csv", W, items, folder / "late.csv", rows=[1])  # an answer to a withdrawn pair is refused
    fails_in_one_line(verb("answer", db, folder / "late.csv", "--out", folder / "c.csv"), "never asked")
    again = verb("ask", db, "--out", folder / "asks.csv")  # 10 - 1 - 2 = 7 free: a full batch of 5
    assert "1 of 10 measurements made; 5 pairs to ask for asks.csv (3 new, 2 asked before)" in again.stdout
    everything = verb("withdraw", db, "--all")
    assert everything.exit_code == 0, everything.output
    assert "5 asks withdrawn; 0 pairs wait for an answer, 1 of 10 measurements made" in everything.stdout
    assert len(MeasurementStore(db).pending()) == 0
    none = verb("withdraw", db, "--all")
    assert none.stdout.startswith(f"{db}: 0 asks withdrawn; 0 pairs wait")
    quiet = runner.invoke(app, ["--quiet", "cluster-session", "withdraw", str(db), "--all"])
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_the_asks_of_an_annotator_who_left_are_withdrawn(study):
    folder, _, _ = study
    db = folder / "s.db"
    verb("start", db, "--items", folder / "items.csv", "--batch-size", "6", "-n", "2", "--annotator", "ann",
         "--out", folder / "a.csv")
    verb("ask", db, "--annotator", "bob", "-n", "3", "--out", folder / "b.csv")
    gone = verb("withdraw", db, "--annotator", "bob")
    assert gone.exit_code == 0 and "3 asks withdrawn; 2 pairs wait for an answer" in gone.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        (["unknown.csv"], ["names 'zz'", "not an item of the session"]),
        (["never.csv"], ["withdraws", "does not wait for an answer", "Nothing was withdrawn"]),
        (["answered.csv"], ["answered already"]),
        (["twice.csv"], ["named by data rows 1 and 2 but was asked once"]),
        (["header.csv"], ["has a header but no rows"]),
        (["empty.csv"], ["is empty"]),
        (["missing.csv"], ["missing.csv"]),
        ([], ["say which asks to withdraw: a PAIRS file, --all or --annotator NAME"]),
        (["asks.csv", "--all"], ["PAIRS and --all were both given"]),
        (["--all", "--annotator", "ann"], ["--all and --annotator were both given"]),
        (["--all", "--i-column", "a"], ["--i-column names a column of the PAIRS file, and --all reads no file"]),
        (["asks.csv", "--value-column", "v"], ["No such option: --value-column"]),
        (["asks.csv", "--i-column", "a"], ["no column 'a'"]),
        (["--annotator", ""], ["annotator must be a name"]),
    ],
)
def test_bad_withdrawals_fail_in_one_line_and_change_nothing(study, monkeypatch, args, words):
    folder, W, items = study
    monkeypatch.chdir(folder)
    assert verb("start", "s.db", "--items", "items.csv", "--batch-size", "4", "--random-state", "0",
                "--out", "asks.csv").exit_code == 0
    fill(folder / "asks.csv", W, items, folder / "answers.csv", rows=[0])
    assert verb("answer", "s.db", "answers.csv", "--out", "c.csv").exit_code == 0
    asks = read_text_table(folder / "asks.csv")
    asked = {frozenset(pair) for pair in zip(asks["i"], asks["j"])}
    never = next((a, b) for a in items for b in items if a != b and frozenset((a, b)) not in asked)
    (folder / "unknown.csv").write_text(f"i,j\n{asks['i'][1]},{asks['j'][1]}\n{asks['i'][2]},zz\n")
    (folder / "never.csv").write_text(f"i,j\n{asks['i'][1]},{asks['j'][1]}\n{never[0]},{never[1]}\n")
    (folder / "answered.csv").write_text(f"i,j\n{asks['i'][1]},{asks['j'][1]}\n{asks['j'][0]},{asks['i'][0]}\n")
    (folder / "twice.csv").write_text(f"i,j\n{asks['i'][1]},{asks['j'][1]}\n{asks['j'][1]},{asks['i'][1]}\n")
    (folder / "header.csv").write_text("i,j\n")
    (folder / "empty.csv").write_text("")
    before = snapshot(folder)
    result = verb("withdraw", "s.db", *args)
    fails_in_one_line(result, *words)
    assert snapshot(folder) == before


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from(list("ij,value\n\t\"0.5x13-NAé ")), max_size=60))
def test_any_answers_file_records_or_fails_in_one_line(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("fuzz")
    pd.DataFrame({"item": ["i", "j", "x", "value"]}).to_csv(folder / "items.csv", index=False)
    assert verb("start", folder / "s.db", "--items", folder / "items.csv", "--budget", "6", "--batch-size", "6",
                "--out", folder / "asks.csv").exit_code == 0
    (folder / "answers.csv").write_text(text)
    result = verb("answer", folder / "s.db", folder / "answers.csv", "--out", folder / "c.csv")
    if result.exit_code == 0:
        assert (folder / "c.csv").exists()
    else:
        fails_in_one_line(result)
        assert not (folder / "c.csv").exists() and len(MeasurementStore(folder / "s.db")) == 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from(list("ij,value\n\t\"x-NAé ")), max_size=40))
def test_any_withdraw_file_withdraws_or_fails_in_one_line(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("fuzz")
    pd.DataFrame({"item": ["i", "j", "x", "value"]}).to_csv(folder / "items.csv", index=False)
    assert verb("start", folder / "s.db", "--items", folder / "items.csv", "--budget", "6", "--batch-size", "6",
                "--out", folder / "asks.csv").exit_code == 0
    (folder / "pairs.csv").write_text(text)
    result = verb("withdraw", folder / "s.db", folder / "pairs.csv")
    store = MeasurementStore(folder / "s.db")
    if result.exit_code == 0:
        assert f"{6 - len(store.pending())} ask" in result.stdout
    else:
        fails_in_one_line(result)
        assert len(store.pending()) == 6
    store.close()


# -- the old spelling ----------------------------------------------------------------------------------------------
def test_the_old_spelling_still_works_with_a_warning(study):
    folder, W, items = study
    db = str(folder / "s.db")

    def old(*args):
        return runner.invoke(app, ["cluster-session", db, *map(str, args)])

    first = old("--items", folder / "items.csv", "--budget", "12", "--batch-size", "4", "--random-state", "0",
                "--out", folder / "asks.csv")
    assert first.exit_code == 0, first.output
    assert "warning: paucity cluster-session DB --items FILE is the old spelling and will be removed; use paucity " \
           f"cluster-session start {db} ..." in first.stderr
    assert "started a session over 14 items" in first.stdout
    fill(folder / "asks.csv", W, items, folder / "answers.csv", rows=[0, 1])
    answered = old("--answers", folder / "answers.csv", "--out", folder / "c.csv")
    assert answered.exit_code == 0 and "2 answers recorded" in answered.stdout and "use paucity cluster-session " \
        f"answer {db}" in answered.stderr
    asked = old("--out", folder / "asks.csv")
    assert asked.exit_code == 0 and "4 pairs to ask for asks.csv (2 new, 2 asked before)" in asked.stdout
    gone = old("--withdraw-all")
    assert gone.exit_code == 0 and "4 asks withdrawn" in gone.stdout and "cluster-session withdraw" in gone.stderr
    refused = old("--strategy", "random")
    fails_in_one_line(_without_warning(refused), "--strategy 'iu-red'; --strategy 'random' would make another session")


def _without_warning(result):
    """The result with the old spelling's warning line taken out of stderr (the failure is checked as usual)."""

    class Stripped:
        exit_code = result.exit_code
        stdout = result.stdout
        stderr = "\n".join(line for line in result.stderr.splitlines() if not line.startswith("warning:"))
        output = result.output

    return Stripped()


# -- a session killed mid-run, and resumed -------------------------------------------------------------------------
KILLER = textwrap.dedent(
    """
    import os, sys
    import paucity.io
    from paucity.clustering.store import MeasurementStore

    where = sys.argv[1]
    if where == "while-asking":  # chosen, not yet remembered as asked
        MeasurementStore.add_pending = lambda self, *args, **kwargs: os._exit(9)
    elif where == "before-writing":  # asked and remembered, the asks file not written
        paucity.io.write_csv = lambda *args, **kwargs: os._exit(9)
    elif where == "after-recording":  # the answers committed, the clustering not written
        transaction = MeasurementStore.transaction
        from contextlib import contextmanager
        @contextmanager
        def die_after_commit(self, *args, **kwargs):
            with transaction(self, *args, **kwargs) as connection:
                yield connection
            if getattr(connection, "_recorded", False):
                os._exit(9)
        add = MeasurementStore.add
        def marked(self, *args, connection=None, **kwargs):
            add(self, *args, connection=connection, **kwargs)
            connection._recorded = True
        MeasurementStore.transaction = die_after_commit
        MeasurementStore.add = marked
    from paucity.cli import main
    sys.argv = ["paucity", *sys.argv[2:]]
    main()
    """
)


def killed(folder, where, *args):
    result = subprocess.run([sys.executable, "-c", KILLER, where, "cluster-session", *map(str, args)],
                            cwd=folder, capture_output=True, text=True)
    assert result.returncode == 9, result.stderr
    return result


@pytest.mark.slow  # 8 to 37 s: run by make test-slow, to keep make test near ten minutes
def test_a_session_killed_at_any_point_resumes_with_nothing_lost_or_asked_twice(study, database):
    folder, W, items = study
    # two rounds of six: every kill point is met in each round, and the second round resumes a resumed session
    start = ["--items", folder / "items.csv", "--budget", "12", "--batch-size", "6", "--random-state", "7"]
    # the same session, never interrupted
    clean = folder / "clean"
    clean.mkdir()
    assert verb("start", clean / "s.db", *start, "--out", clean / "asks.csv").exit_code == 0
    for _ in range(2):
        fill(clean / "asks.csv", W, items, clean / "answers.csv")
        verb("answer", clean / "s.db", clean / "answers.csv", "--out", clean / "clusters.csv")
        verb("ask", clean / "s.db", "--out", clean / "asks.csv")

    killed(folder, "while-asking", "start", database, *start, "--out", folder / "asks.csv")
    assert not (folder / "asks.csv").exists() and len(MeasurementStore(database).pending()) == 0
    assert verb("start", database, *start, "--out", folder / "asks.csv").exit_code == 0  # run again as it was
    for round_ in range(2):
        fill(folder / "asks.csv", W, items, folder / "answers.csv")
        killed(folder, "after-recording", "answer", database, folder / "answers.csv", "--out", folder / "clusters.csv")
        assert len(MeasurementStore(database)) == 6 * (round_ + 1)  # committed before the kill
        again = verb("answer", database, folder / "answers.csv", "--out", folder / "clusters.csv")
        assert "0 answers recorded from answers.csv (6 recorded before)" in again.stdout, again.output
        (folder / "asks.csv").unlink()
        killed(folder, "before-writing", "ask", database, "--out", folder / "asks.csv")
        assert not (folder / "asks.csv").exists()
        assert verb("ask", database, "--out", folder / "asks.csv").exit_code == 0

    resumed, uninterrupted = MeasurementStore(database).measurements(), MeasurementStore(clean / "s.db").measurements()
    pd.testing.assert_frame_equal(resumed[["order", "i", "j", "value", "repeat"]],
                                  uninterrupted[["order", "i", "j", "value", "repeat"]])
    assert not resumed.duplicated(["i", "j"]).any() and len(resumed) == 12
    assert (folder / "clusters.csv").read_text() == (clean / "clusters.csv").read_text()
    assert (folder / "asks.csv").read_text() == (clean / "asks.csv").read_text() == "i,j,value\n"


# -- the user guide's commands -------------------------------------------------------------------------------------
def test_the_commands_of_the_user_guide_run(tmp_path, monkeypatch):
    """The shell blocks of docs/clustering.md, on the guide's data; the annotators answer from the matrix."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)  # the guide's quick example
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(0, 1, (30, 2)) + [5, 0]]
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    items = [f"photo{k:03d}" for k in range(60)]
    pd.DataFrame(W, index=items, columns=items).to_csv("similarities.csv")
    pd.DataFrame({"item": items}).to_csv("items.csv", index=False)
    section = DOCS.read_text().split("## From the command line", 1)[1].split("\n## ", 1)[0]
    commands = [line for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)
                for line in block.splitlines() if line.startswith("paucity ")]
    assert len(commands) == 9
    printed = []
    for command in commands:
        args = shlex.split(command)[1:]
        if args[:2] == ["cluster-session", "answer"]:
            fill(tmp_path / "asks.csv", W, items, tmp_path / "answers.csv")
        if args[:2] == ["cluster-session", "withdraw"]:  # the asks file cut down to the pairs of one who left
            read_text_table(tmp_path / "asks.csv").iloc[5:10].to_csv(tmp_path / "unanswered.csv", index=False)
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (command, result.output)
        printed.append(result.stdout)
    quoted = "iu-red on 60 items: 354 of 1770 pairs measured (20.0%), error 0.000 against the complete matrix"
    assert quoted in " ".join(section.split()) and quoted in printed[0]
    labels = pd.read_csv("labels.csv")
    assert labels["label"].tolist() == labels["reference"].tolist()
    assert len(pd.read_csv("asks.csv")) == 20 and len(MeasurementStore("photos.db")) == 20
    assert "20 of 300 measurements made, 20 pairs wait for an answer" in printed[5]
    assert len(pd.read_csv("alice.csv")) == len(pd.read_csv("bob.csv")) == 10
    assert len(MeasurementStore("photos.db").pending()) == 15 and "5 asks withdrawn; 15 pairs wait" in printed[-1]
