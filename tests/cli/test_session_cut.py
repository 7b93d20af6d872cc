"""``--cut`` on ``paucity cluster-session start`` and ``paucity serve annotate``: a setting fixed when the session starts."""

from __future__ import annotations

import pandas as pd
from typer.testing import CliRunner

from paucity.cli import app
from paucity.clustering import ClusteringSession

from ._outcomes import fails_in_one_line

runner = CliRunner()


def items_file(folder, n=10):
    path = folder / "items.csv"
    pd.DataFrame({"photo": [f"ph{k}" for k in range(n)]}).to_csv(path, index=False)
    return path


def test_start_keeps_the_cut_and_refuses_another_on_resume(tmp_path):
    db = tmp_path / "s.db"
    started = runner.invoke(app, ["cluster-session", "start", str(db), "--items", str(items_file(tmp_path)),
                                  "--budget", "12", "--cut", "Normalized", "--out", str(tmp_path / "asks.csv")])
    assert started.exit_code == 0, started.output
    with ClusteringSession.open(db) as session:
        assert session.settings.cut == "normalized"
    before = db.read_bytes()
    other = runner.invoke(app, ["cluster-session", "start", str(db), "--cut", "ratio", "--out",
                                str(tmp_path / "more.csv")])
    fails_in_one_line(other, "--cut 'normalized'", "--cut 'ratio' would make another session")
    assert db.read_bytes() == before and not (tmp_path / "more.csv").exists()


def test_a_bad_cut_is_refused_naming_the_option_and_nothing_is_created(tmp_path):
    result = runner.invoke(app, ["cluster-session", "start", str(tmp_path / "s.db"), "--items",
                                 str(items_file(tmp_path)), "--cut", "median", "--out", str(tmp_path / "asks.csv")])
    fails_in_one_line(result, "--cut", "median")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.csv"]


def test_both_commands_offer_the_cut():
    for command in (["cluster-session", "start", "--help"], ["serve", "annotate", "--help"]):
        result = runner.invoke(app, command, env={"COLUMNS": "200"})
        assert result.exit_code == 0 and "--cut" in result.stdout, result.output


def test_status_names_a_cut_other_than_the_seeds(tmp_path):
    db = tmp_path / "s.db"
    for cut, shown in (("ratio", ", ratio cut;"), ("sign", "batches of 20;")):
        database = tmp_path / f"{cut}.db"
        runner.invoke(app, ["cluster-session", "start", str(database), "--items", str(items_file(tmp_path)),
                            "--budget", "12", "--cut", cut, "--out", str(tmp_path / f"{cut}.csv")])
        status = runner.invoke(app, ["cluster-session", "status", str(database)])
        assert status.exit_code == 0 and shown in status.stdout.splitlines()[0], status.output
    assert not db.exists()
