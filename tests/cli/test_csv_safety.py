"""Commands write names that a spreadsheet would run as formulas with a leading ``'``, and read them back.

``paucity rank`` with an item named like a formula, then ``paucity rank-evaluate`` of its scores; a
clustering session whose items are named ``=a``, ``-b``, ``+c``, ``@d``: the asks file is filled and answered.
"""

from __future__ import annotations

import csv

import pandas as pd
from typer.testing import CliRunner

from paucity.cli import app
from paucity.clustering import MeasurementStore

runner = CliRunner()
LINK = '=HYPERLINK("http://x","y")'


def rows(path) -> list[list[str]]:
    """The fields of a CSV file as a spreadsheet reads them (no type guessing)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def write_rows(path, table: list[list[str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(table)


def test_rank_writes_a_formula_name_with_a_leading_quote_and_rank_evaluate_reads_it_back(tmp_path):
    items = [LINK, "-b", "+c", "plain"]
    games = [(a, b) for a in range(4) for b in range(4) if a != b] * 3  # everyone meets everyone, both ways
    table = [["home", "away", "winner"]] + [[items[a], items[b], items[min(a, b)]] for a, b in games]
    path = tmp_path / "games.csv"
    write_rows(path, table)  # the user's file: names as they are
    out = tmp_path / "scores.csv"
    result = runner.invoke(app, ["rank", str(path), "--i-column", "home", "--j-column", "away", "--winner-column",
                                 "winner", "--method", "btl", "--alpha", "0.1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = rows(out)
    assert written[0] == ["item", "rank", "score", "log_score"]
    cells = [row[0] for row in written[1:]]
    assert cells == ["'" + LINK, "'-b", "'+c", "plain"]  # the best first: the order of the names above
    assert '"\'=HYPERLINK(""http://x"",""y"")"' in out.read_text()
    assert [row[1] for row in written[1:]] == ["1", "2", "3", "4"]
    assert any(row[3].startswith("-") for row in written[1:])  # a negative number is written as a number
    metrics = tmp_path / "metrics.csv"
    evaluated = runner.invoke(app, ["rank-evaluate", str(out), str(path), "--i-column", "home", "--j-column", "away",
                                    "--winner-column", "winner", "--out", str(metrics)])
    assert evaluated.exit_code == 0, evaluated.output  # every item of the comparisons is found among the scores


def test_a_session_over_formula_names_asks_and_records_its_answers(tmp_path):
    items = ["=a", "-b", "+c", "@d", "e", "f", "g", "h"]
    group = {name: k % 2 for k, name in enumerate(items)}
    write_rows(tmp_path / "items.csv", [["item"]] + [[name] for name in items])
    db = tmp_path / "s.db"
    asks = tmp_path / "asks.csv"
    started = runner.invoke(app, ["cluster-session", "start", str(db), "--items", str(tmp_path / "items.csv"),
                                  "--batch-size", "28", "--budget", "28", "--random-state", "0", "--out", str(asks)])
    assert started.exit_code == 0, started.output
    asked = rows(asks)
    assert asked[0] == ["i", "j", "value"] and len(asked) == 29  # every pair of the 8 items
    written = {cell for row in asked[1:] for cell in row[:2]}
    assert written == {"'=a", "'-b", "'+c", "'@d", "e", "f", "g", "h"}
    # an annotator fills the value column; a spreadsheet may save a name with or without the quote
    answers = [asked[0]]
    for k, (i, j, _) in enumerate(asked[1:]):
        if k % 2:
            i, j = (name.removeprefix("'") for name in (i, j))
        answers.append([i, j, "0.9" if group[i.lstrip("'")] == group[j.lstrip("'")] else "0.1"])
    write_rows(tmp_path / "answers.csv", answers)
    clusters = tmp_path / "clusters.csv"
    answered = runner.invoke(app, ["cluster-session", "answer", str(db), str(tmp_path / "answers.csv"),
                                   "--out", str(clusters)])
    assert answered.exit_code == 0, answered.output
    assert "28 answers recorded from answers.csv" in answered.stdout
    recorded = MeasurementStore(db).measurements()  # items by their position in items.csv
    assert len(recorded) == 28
    assert {frozenset((i, j)) for i, j in recorded[["i", "j"]].to_numpy()} == {
        frozenset((i, j)) for i in range(8) for j in range(i + 1, 8)}
    for i, j, value in recorded[["i", "j", "value"]].itertuples(index=False):
        assert value == (0.9 if group[items[i]] == group[items[j]] else 0.1)  # each answer reached its pair
    labels = pd.DataFrame(rows(clusters)[1:], columns=rows(clusters)[0])
    assert labels["item"].tolist() == ["'=a", "'-b", "'+c", "'@d", "e", "f", "g", "h"]
    by_group = labels.groupby(labels["item"].str.lstrip("'").map(group))["label"].nunique()
    assert by_group.tolist() == [1, 1]  # the answers reached the items they name
