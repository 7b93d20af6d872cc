import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from paucity.cli import app
from paucity.datasets import btl_comparisons, btl_scores
from paucity.ranking import BTL, Comparisons, RankCentrality

runner = CliRunner()


@pytest.fixture()
def league(tmp_path):
    strength = btl_scores(30, random_state=0)
    names = [f"t{k}" for k in range(30)]
    games = btl_comparisons(strength, 600, items=names, random_state=1)
    table = games.to_dataframe()
    table["winner"] = np.where(table["y"] == 1, table["j"], table["i"])
    table = table.rename(columns={"i": "home", "j": "away"})
    path = tmp_path / "games.csv"
    table[["home", "away", "winner"]].iloc[:450].to_csv(path, index=False)
    held = tmp_path / "held.csv"
    table[["home", "away", "winner", "y"]].iloc[450:].to_csv(held, index=False)
    truth = tmp_path / "truth.csv"
    pd.DataFrame({"item": names, "score": strength}).to_csv(truth, index=False)
    return path, held, truth, games.subset(np.arange(450))


def _rank(path, out, *extra):
    return runner.invoke(
        app, ["rank", str(path), "--i-col", "home", "--j-col", "away", "--winner-col", "winner", "--out", str(out), *extra]
    )


def test_rank_writes_the_estimator_scores_best_first(league, tmp_path):
    path, _, _, games = league
    out = tmp_path / "scores.csv"
    result = _rank(path, out, "--method", "rank_centrality", "--lam", "0.01")
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert list(table.columns) == ["item", "rank", "score"]
    assert table["rank"].tolist() == list(range(1, 31))
    expected = RankCentrality(regularization="uniform", lam=0.01).fit(games).scores_
    np.testing.assert_allclose(table.set_index("item")["score"].loc[expected.index], expected.to_numpy(), rtol=1e-9)
    assert (np.diff(table["score"]) <= 0).all()


def test_rank_btl_with_alpha_and_y_column(league, tmp_path):
    path, held, _, _ = league
    out = tmp_path / "scores.csv"
    result = runner.invoke(
        app, ["rank", str(held), "--i-col", "home", "--j-col", "away", "--y-col", "y", "--method", "btl", "--alpha", "1", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(held)
    expected = BTL(alpha=1.0).fit(Comparisons(frame["home"], frame["away"], frame["y"])).scores_
    got = pd.read_csv(out).set_index("item")["score"]
    np.testing.assert_allclose(got.loc[expected.index], expected.to_numpy(), atol=1e-8)


@pytest.mark.parametrize("method", ["bre", "ure"])
def test_rank_counting_methods(league, tmp_path, method):
    path, _, _, _ = league
    out = tmp_path / "scores.csv"
    result = _rank(path, out, "--method", method, "--random-state", "3")
    assert result.exit_code == 0, result.output
    assert len(pd.read_csv(out)) == 30


def test_rank_with_features_uses_similarity(league, tmp_path):
    path, _, truth, _ = league
    features = tmp_path / "features.csv"
    strength = pd.read_csv(truth)
    pd.DataFrame({"item": strength["item"], "x": strength["score"]}).to_csv(features, index=False)
    out = tmp_path / "scores.csv"
    result = _rank(path, out, "--features", str(features), "--sigma", "0.5")
    assert result.exit_code == 0, result.output
    assert len(pd.read_csv(out)) == 30


def test_rank_evaluate_reports_held_out_error_and_tau(league, tmp_path):
    path, held, truth, _ = league
    scores = tmp_path / "scores.csv"
    assert _rank(path, scores, "--lam", "0.01").exit_code == 0
    metrics_path = tmp_path / "metrics.csv"
    result = runner.invoke(
        app,
        ["rank-evaluate", str(scores), str(held), "--i-col", "home", "--j-col", "away", "--winner-col", "winner",
         "--truth", str(truth), "--out", str(metrics_path)],
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(metrics_path).set_index("metric")["value"]
    assert 0.0 <= table["held_out_error"] < 0.5
    assert table["kendall_tau_b"] > 0.5
    assert table["held_out_comparisons"] == 150


def _fails(result, *words):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.strip().splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize(
    "rows, words",
    [
        ("home,away,winner\na,b,c\n", ["neither"]),
        ("home,away,winner\na,a,a\n", ["itself"]),
        ("home,away,winner\na,,a\n", ["missing"]),
        ("home,away,winner\n", ["no rows"]),
        ("home,away\na,b\n", ["'winner'"]),
        ("home,away,winner\na,b,\n", ["missing winner"]),
    ],
)
def test_malformed_comparisons_fail_in_one_line_and_write_nothing(tmp_path, rows, words):
    path = tmp_path / "bad.csv"
    path.write_text(rows)
    out = tmp_path / "scores.csv"
    _fails(_rank(path, out), *words)
    assert not out.exists()


def test_bad_outcome_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("home,away,y\na,b,2\n")
    out = tmp_path / "scores.csv"
    result = runner.invoke(app, ["rank", str(path), "--i-col", "home", "--j-col", "away", "--y-col", "y", "--out", str(out)])
    _fails(result, "0 (i preferred) or 1")
    assert not out.exists()


def test_missing_mle_and_misplaced_options(league, tmp_path):
    path, _, _, _ = league
    out = tmp_path / "scores.csv"
    sparse = tmp_path / "few.csv"
    sparse.write_text("home,away,winner\na,b,a\nb,c,b\n")
    _fails(_rank(sparse, out, "--method", "btl"), "does not exist", "alpha")
    _fails(_rank(path, out, "--method", "btl", "--lam", "0.1"), "--lam")
    _fails(_rank(path, out, "--method", "nope"), "unknown method")
    _fails(_rank(path, out, "--lam", "2"), "lam")
    _fails(_rank(path, tmp_path / "no" / "scores.csv"), "does not exist")
    _fails(_rank(tmp_path / "absent.csv", out), "does not exist")
    assert not out.exists()


def test_bad_features_files(league, tmp_path):
    path, _, _, _ = league
    out = tmp_path / "scores.csv"
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("item,x\n" + "".join(f"t{k},{k}\n" for k in range(30)) + "zzz,1\n")
    _fails(_rank(path, out, "--features", str(unknown)), "zzz")
    words = tmp_path / "words.csv"
    words.write_text("item,x\n" + "".join(f"t{k},w{k}\n" for k in range(30)))
    _fails(_rank(path, out, "--features", str(words)), "not numeric")
    assert not out.exists()
