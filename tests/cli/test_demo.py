"""``paucity demo``: every stop writes its part, and a failed tour leaves nothing behind."""

import pandas as pd
import pytest
from typer.testing import CliRunner

from paucity.cli import app

runner = CliRunner()


def test_demo_writes_report_and_figure(tmp_path):
    """The slowest fast test (about 10 s): every stop of the tour, end to end, as `make demo` runs it."""
    pytest.importorskip("scanpy")
    out = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--out", str(out), "-n", "5"])
    assert result.exit_code == 0, result.output
    assert (out / "markers_heatmap.png").stat().st_size > 10_000
    report = (out / "report.md").read_text()
    assert "LYZ" in report and "NKG7" in report  # monocyte and NK markers on the PBMC data
    assert "CIFE" in result.output and "JMI" in result.output
    assert (out / "benchmark_errors.png").stat().st_size > 10_000  # the benchmark stop
    assert "Do the markers predict the cell type of unseen cells?" in report and "Random" in report
    assert "How do monocytes and dendritic cells differ?" in report  # the differences stop
    differences = pd.read_csv(out / "differences_monocytes_dendritic.csv")
    assert differences["analysis"].value_counts().to_dict() == {"SPARDA": 10, "SPARDA, normalized": 10, "t-test": 10}
    assert "SPARDA" in result.output and "t-test" in result.output
    assert "Which crowd judgments are worth buying?" in report  # the judgments stop
    plan = pd.read_csv(out / "judgments_plan.csv")
    assert plan["judgments"].sum() == 12 and (plan["judgments"] >= 0).all()
    curve = pd.read_csv(out / "judgments_budget.csv")
    assert curve["budget"].tolist() == [2, 4, 6, 8, 12, 16, 24]
    assert (curve["Full"].diff().dropna() < 0).all()  # more judgments, less error
    assert (out / "judgments_budget.png").stat().st_size > 10_000
    assert "Which similarities are worth paying for?" in report  # the clustering stop
    curves = pd.read_csv(out / "clustering_iris_curves.csv")
    assert sorted(curves["strategy"].unique()) == ["IU-RED", "S&T", "random"]
    assert (curves.groupby("strategy")["error"].last() <= 0.05).all()  # setosa and versicolor separate
    assert [p.name for p in tmp_path.iterdir()] == ["demo"]  # no staging folder left beside it


def test_bad_options_leave_nothing(tmp_path):
    out = tmp_path / "d"
    result = runner.invoke(app, ["demo", "--n-features", "0", "--out", str(out)])
    assert result.exit_code == 2
    assert "error:" in result.output and "--n-features" in result.output
    assert list(tmp_path.iterdir()) == []


def test_out_that_is_a_file_is_refused_before_work(tmp_path):
    out = tmp_path / "d"
    out.write_text("keep me")
    result = runner.invoke(app, ["demo", "--out", str(out)])
    assert result.exit_code == 2 and "is a file" in result.output
    assert out.read_text() == "keep me" and [p.name for p in tmp_path.iterdir()] == ["d"]


def test_a_failing_stop_keeps_the_previous_folder_and_leaves_no_staging(tmp_path, monkeypatch):
    from paucity.cli.demo import ranking

    out = tmp_path / "d"
    out.mkdir()
    (out / "report.md").write_text("previous tour")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(ranking, "run", broken)
    pytest.importorskip("scanpy")
    result = runner.invoke(app, ["demo", "--out", str(out), "-n", "2"])
    assert result.exit_code == 2 and "disk full" in result.output
    assert (out / "report.md").read_text() == "previous tour"
    assert [p.name for p in tmp_path.iterdir()] == ["d"]


def test_without_scanpy_the_demo_runs_the_other_stops_and_says_which_it_skipped(tmp_path, monkeypatch):
    """A plain install (no scanpy): ranking, judgments and clustering run; the PBMC stops are named as skipped."""
    import sys

    monkeypatch.setitem(sys.modules, "scanpy", None)  # as if it were not installed
    out = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--out", str(out), "-n", "2"])
    assert result.exit_code == 0, result.output
    assert "Skipping marker genes of PBMC cell types" in " ".join(result.output.split())
    assert 'pip install "paucity[scanpy]"' in " ".join(result.output.split())
    report = (out / "report.md").read_text()
    assert report.startswith("# paucity demo\n\n## Skipped\n")
    assert "- differences between two cell types" in report
    assert "Which crowd judgments are worth buying?" in report
    assert "Which similarities are worth paying for?" in report
    assert not (out / "markers_heatmap.png").exists() and not (out / "benchmark_errors.png").exists()
