"""``paucity cluster-active`` on a similarity table it cannot read: the reader's messages name the options as
typed, and nothing is written."""

from __future__ import annotations

from typer.testing import CliRunner

from paucity.cli import app

from ._outcomes import fails_in_one_line

runner = CliRunner()


def test_a_long_table_without_its_value_column_names_the_option(tmp_path):
    (tmp_path / "pairs.csv").write_text("i,j,sim\na,b,0.5\nb,c,0.1\n")
    out = tmp_path / "labels.csv"
    result = runner.invoke(app, ["cluster-active", str(tmp_path / "pairs.csv"), "--budget", "2", "--out", str(out)])
    fails_in_one_line(result, "no column 'value'", "with --value-column, one of 'sim'")
    assert "value=" not in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pairs.csv"]


def test_a_square_row_longer_than_its_header_says_what_a_square_table_holds(tmp_path):
    (tmp_path / "W.csv").write_text(",a,b\na,1,0.5\nb,0.5,1,0.3\n")
    out = tmp_path / "labels.csv"
    result = runner.invoke(app, ["cluster-active", str(tmp_path / "W.csv"), "--budget", "2", "--out", str(out)])
    fails_in_one_line(result, "is a square similarity matrix, but its data row 2 has 4 fields and its header has 3",
                      "the header must list every item name once")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["W.csv"]
