import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from paucity.cli import app
from paucity.datasets import btl_comparisons, btl_scores
from paucity.ranking import BRE, BTL, Comparisons, RankCentrality, evaluate

from ._outcomes import fails_in_one_line

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


COLUMNS = ["--i-column", "home", "--j-column", "away", "--winner-column", "winner"]


def _rank(path, out, *extra):
    return runner.invoke(app, ["rank", str(path), *COLUMNS, "--out", str(out), *extra])


def test_rank_writes_the_estimator_scores_best_first(league, tmp_path):
    path, _, _, games = league
    out = tmp_path / "scores.csv"
    result = _rank(path, out, "--method", "rank_centrality", "--lam", "0.01")
    assert result.exit_code == 0, result.output
    assert "30 items ranked by rank_centrality" in result.stdout
    table = pd.read_csv(out)
    assert list(table.columns) == ["item", "rank", "score", "log_score"]
    assert table["rank"].tolist() == list(range(1, 31))
    expected = RankCentrality(regularization="uniform", lam=0.01).fit(games)
    got = table.set_index("item")
    np.testing.assert_allclose(got["score"].loc[expected.scores_.index], expected.scores_.to_numpy(), rtol=1e-9)
    np.testing.assert_allclose(got["log_score"].loc[expected.log_scores_.index], expected.log_scores_.to_numpy(), atol=1e-12)
    assert (np.diff(table["score"]) <= 0).all()


def test_quiet_prints_nothing(league, tmp_path):
    path, _, _, _ = league
    out = tmp_path / "scores.csv"
    result = runner.invoke(app, ["--quiet", "rank", str(path), *COLUMNS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and out.exists()


def test_rank_btl_with_alpha_and_y_column(league, tmp_path):
    path, held, _, _ = league
    out = tmp_path / "scores.csv"
    result = runner.invoke(
        app,
        ["rank", str(held), "--i-column", "home", "--j-column", "away", "--y-column", "y", "--method", "btl",
         "--alpha", "1", "--out", str(out)],
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
    path, _, truth, games = league
    features = tmp_path / "features.csv"
    strength = pd.read_csv(truth)
    pd.DataFrame({"item": strength["item"], "x": strength["score"]}).to_csv(features, index=False)
    out = tmp_path / "scores.csv"
    result = _rank(path, out, "--features", str(features), "--sigma", "0.5")
    assert result.exit_code == 0, result.output
    expected = RankCentrality(regularization="similarity", sigma=0.5).fit(
        games.with_features(strength.set_index("item")[["score"]])
    ).scores_
    got = pd.read_csv(out).set_index("item")["score"]
    np.testing.assert_allclose(got.loc[expected.index], expected.to_numpy(), rtol=1e-9)
    svm = _rank(path, out, "--method", "rank_svm", "--features", str(features), "--random-state", "0")
    assert svm.exit_code == 0, svm.output


def test_identifiers_are_read_as_text(tmp_path):
    # "00024" stays "00024", "3" and "00003" are two items, NA and null are item names
    path = tmp_path / "games.csv"
    path.write_text(
        "home,away,winner\n00024,3,00024\n3,00003,00003\n00003,NA,NA\nNA,null,null\nnull,00024,00024\n"
        "00024,00003,00024\n3,NA,3\n"
    )
    out = tmp_path / "scores.csv"
    result = _rank(path, out, "--method", "bre", "--random-state", "0")
    assert result.exit_code == 0, result.output
    items = pd.read_csv(out, dtype={"item": str}, keep_default_na=False)["item"]
    assert sorted(items) == sorted(["00024", "3", "00003", "NA", "null"])
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    expected = BRE(random_state=0).fit(Comparisons.from_dataframe(frame, i="home", j="away", winner="winner"))
    assert items.tolist() == list(expected.ranking_)


def test_rank_evaluate_reports_held_out_error_and_tau(league, tmp_path):
    path, held, truth, _ = league
    scores = tmp_path / "scores.csv"
    assert _rank(path, scores, "--lam", "0.01").exit_code == 0
    metrics_path = tmp_path / "metrics.csv"
    result = runner.invoke(
        app,
        ["rank-evaluate", str(scores), str(held), *COLUMNS, "--truth", str(truth), "--out", str(metrics_path)],
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(metrics_path).set_index("metric")["value"]
    # the same numbers as the library's evaluate on the same tables
    estimated = pd.read_csv(scores).set_index("item")["score"]
    frame = pd.read_csv(held)
    expected = evaluate(
        estimated, Comparisons.from_dataframe(frame, i="home", j="away", winner="winner"),
        true_scores=pd.read_csv(truth).set_index("item")["score"],
    ).to_dict()
    assert table.to_dict() == pytest.approx(expected)
    assert 0.0 <= table["held_out_error"] < 0.5
    assert table["kendall_tau_b"] > 0.5
    assert table["held_out_comparisons"] == 150
    assert "kendall_tau_b" in result.stdout


def test_rank_evaluate_of_log_scores_without_truth(league, tmp_path):
    path, held, _, _ = league
    scores = tmp_path / "scores.csv"
    assert _rank(path, scores, "--method", "bre", "--random-state", "0").exit_code == 0
    result = runner.invoke(app, ["rank-evaluate", str(scores), str(held), *COLUMNS, "--score-column", "log_score"])
    assert result.exit_code == 0, result.output
    assert "held_out_error" in result.stdout and "kendall" not in result.stdout


@pytest.mark.parametrize(
    "rows, words",
    [
        ("home,away,winner\na,b,c\n", ["neither"]),
        ("home,away,winner\na,a,a\n", ["itself"]),
        ("home,away,winner\na,,a\n", ["missing"]),
        ("home,away,winner\n", ["no rows"]),
        ("home,away\na,b\n", ["bad.csv has no column 'winner' (the winner column, --winner-column)"]),
        ("home,away,winner\na,b,\n", ["missing winner"]),
    ],
)
def test_malformed_comparisons_fail_in_one_line_and_write_nothing(tmp_path, rows, words):
    path = tmp_path / "bad.csv"
    path.write_text(rows)
    out = tmp_path / "scores.csv"
    fails_in_one_line(_rank(path, out), *words)
    assert not out.exists()


def test_a_bad_item_column_is_named_by_its_option(league, tmp_path):
    path, held, truth, _ = league
    out = tmp_path / "scores.csv"
    result = runner.invoke(app, ["rank", str(path), "--i-column", "host", "--j-column", "away", "--winner-column",
                                 "winner", "--out", str(out)])
    fails_in_one_line(result, f"{path} has no column 'host' (the i column, --i-column); its columns are 'home', "
                      "'away', 'winner'.")
    assert "i=" not in result.stderr and not out.exists()
    result = runner.invoke(app, ["rank-suggest", str(path), "--i-column", "home", "--j-column", "away",
                                 "--y-column", "y", "--weight-column", "w", "--out", str(out)])
    fails_in_one_line(result, "has no column 'y' (the y column, --y-column)")
    scores = tmp_path / "given.csv"
    scores.write_text("item,score\nt0,1\nt1,2\n")
    result = runner.invoke(app, ["rank-evaluate", str(scores), str(held), *COLUMNS, "--weight-column", "w"])
    fails_in_one_line(result, f"{held} has no column 'w' (the weights column, --weight-column)")
    result = runner.invoke(app, ["rank-evaluate", str(scores), str(held), *COLUMNS, "--truth", str(truth),
                                 "--truth-column", "strength"])
    fails_in_one_line(result, f"{truth} has no column 'strength' (the truth column, --truth-column)")


def test_bad_outcome_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("home,away,y\na,b,2\n")
    out = tmp_path / "scores.csv"
    result = runner.invoke(app, ["rank", str(path), "--i-column", "home", "--j-column", "away", "--y-column", "y", "--out", str(out)])
    fails_in_one_line(result, "0 (i preferred), 1 (j preferred) or 0.5 (a draw)")
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--method", "btl", "--lam", "0.1"], ["--method 'btl' has no parameter --lam; its options are --alpha, --ties"]),
        (["--method", "btl", "--features", "FEATURES"], ["features are read by 'rank_centrality'", "not by 'btl'"]),
        (["--method", "bre", "--features", "FEATURES"], ["not by 'bre'"]),
        (["--alpha", "1"], ["--method 'rank_centrality' has no parameter --alpha"]),
        (["--sigma", "0.5"], ["--sigma 0.5 sets", "only --regularization 'similarity' uses, but no --regularization"]),
        (["--kernel", "agreement", "--lam", "0.1"], ["--kernel 'agreement' sets", "but --regularization 'uniform'"]),
        (["--tau", "3", "--features", "FEATURES"], ["--tau 3.0 sets", "kernel is 'gaussian'", "--kernel 'agreement'"]),
        (["--features", "FEATURES", "--regularization", "uniform"], ["--features are used by rank_centrality with --regularization 'similarity' only"]),
        (["--method", "bre", "--random-state", "-1"], ["--random-state must be a non-negative integer, got -1"]),
        (["--method", "btl", "--random-state", "0"], ["has no parameter --random-state"]),
        (["--method", "nope"], ["method must be one of", "'nope'"]),
        (["--lam", "2"], ["lam must be a number in [0, 1)"]),
        (["--item-column", "item"], ["--item-column", "--features"]),
    ],
)
def test_inapplicable_and_bad_options_are_errors(league, tmp_path, extra, words):
    path, _, truth, _ = league
    features = tmp_path / "features.csv"
    pd.read_csv(truth).rename(columns={"score": "x"}).to_csv(features, index=False)
    out = tmp_path / "scores.csv"
    extra = [str(features) if value == "FEATURES" else value for value in extra]
    fails_in_one_line(_rank(path, out, *extra), *words)
    assert not out.exists()


def test_missing_mle_and_bad_paths(league, tmp_path):
    path, _, _, _ = league
    out = tmp_path / "scores.csv"
    sparse = tmp_path / "few.csv"
    sparse.write_text("home,away,winner\na,b,a\nb,c,b\n")
    fails_in_one_line(_rank(sparse, out, "--method", "btl"), "does not exist", "alpha")
    fails_in_one_line(_rank(path, tmp_path / "no" / "scores.csv"), "--out", "does not exist")
    fails_in_one_line(_rank(path, tmp_path), "--out", "is a folder")
    fails_in_one_line(_rank(tmp_path / "absent.csv", out), "does not exist")
    assert not out.exists()


def test_the_output_path_is_checked_before_the_work(tmp_path):
    # an unreadable table and a bad --out: the --out error comes first
    fails_in_one_line(_rank(tmp_path / "absent.csv", tmp_path / "no" / "scores.csv"), "--out")
    result = runner.invoke(
        app, ["rank-evaluate", str(tmp_path / "absent.csv"), str(tmp_path / "absent.csv"), *COLUMNS,
              "--out", str(tmp_path / "no" / "m.csv")],
    )
    fails_in_one_line(result, "--out")


def test_bad_features_files(league, tmp_path):
    path, _, _, _ = league
    out = tmp_path / "scores.csv"
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("item,x\n" + "".join(f"t{k},{k}\n" for k in range(30)) + "zzz,1\n")
    fails_in_one_line(_rank(path, out, "--features", str(unknown)), "zzz")
    words = tmp_path / "words.csv"
    words.write_text("item,x\n" + "".join(f"t{k},w{k}\n" for k in range(30)))
    fails_in_one_line(_rank(path, out, "--features", str(words)), "numeric")
    twice = tmp_path / "twice.csv"
    twice.write_text("item,x\n" + "".join(f"t{k},{k}\n" for k in range(30)) + "t0,5\n")
    fails_in_one_line(_rank(path, out, "--features", str(twice)), "two rows for item 't0'")
    fails_in_one_line(_rank(path, out, "--features", str(words), "--item-column", "name"),
                      "words.csv has no column 'name' (the item column, --item-column)")
    assert not out.exists()


def test_bad_score_files(league, tmp_path):
    _, held, _, _ = league
    scores = tmp_path / "scores.csv"
    scores.write_text("item,score\nt0,1\nt0,2\n")
    result = runner.invoke(app, ["rank-evaluate", str(scores), str(held), *COLUMNS])
    fails_in_one_line(result, "two entries for item 't0'")
    result = runner.invoke(app, ["rank-evaluate", str(scores), str(held), *COLUMNS, "--score-column", "value"])
    fails_in_one_line(result, "scores.csv has no column 'value' (the score column, --score-column)")


@pytest.mark.parametrize("command", ["rank", "rank-evaluate"])
def test_old_column_spellings_still_work_with_a_warning(league, tmp_path, command):
    path, held, truth, _ = league
    scores = tmp_path / "scores.csv"
    old = ["--i-col", "home", "--j-col", "away", "--winner-col", "winner"]
    if command == "rank":
        result = runner.invoke(app, ["rank", str(path), *old, "--out", str(scores)])
        assert result.exit_code == 0, result.output
        assert pd.read_csv(scores).shape == (30, 4)
    else:
        assert _rank(path, scores).exit_code == 0
        result = runner.invoke(
            app, ["rank-evaluate", str(scores), str(held), *old, "--item-col", "item", "--score-col", "score",
                  "--truth", str(truth), "--truth-col", "score"],
        )
        assert result.exit_code == 0, result.output
        assert "kendall_tau_b" in result.stdout
        assert "--truth-col is deprecated and will be removed; use --truth-column" in result.stderr
    assert "--i-col is deprecated and will be removed; use --i-column" in result.stderr


# -- draws ----------------------------------------------------------------------------------------
DRAWS = "home,away,winner,draw\na,b,a,0\nb,c,,1\nc,a,c,0\na,b,b,0\nb,c,c,0\nc,a,a,0\na,c,,1\nb,a,b,1\nc,b,c,0\n"


def test_rank_fits_draws_with_btl_ties(tmp_path):
    path = tmp_path / "draws.csv"
    path.write_text(DRAWS)
    out = tmp_path / "scores.csv"
    args = ["rank", str(path), "--i-column", "home", "--j-column", "away", "--winner-column", "winner", "--tie-column", "draw",
            "--method", "btl", "--ties", "rao-kupper", "--alpha", "0.5", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out, dtype={"item": str}).set_index("item")["score"]
    table = pd.read_csv(path, dtype=str).assign(draw=lambda t: t["draw"].astype(int))
    expected = BTL(ties="rao-kupper", alpha=0.5).fit(
        Comparisons.from_dataframe(table, i="home", j="away", winner="winner", tie="draw")
    ).scores_
    assert expected.idxmax() == "c"  # c won one game more than a and b
    pd.testing.assert_series_equal(written.sort_index(), expected.sort_index(), check_names=False, atol=1e-12, rtol=0)


@pytest.mark.parametrize(
    "columns, extra",
    [
        (["--winner-column", "winner", "--tie", "draw"], []),
        (["--winner-column", "winner", "--tie", "draw"], ["--method", "btl"]),
        (["--y-column", "y"], ["--method", "bre"]),
    ],
)
def test_rank_refuses_draws_without_a_tie_model(tmp_path, columns, extra):
    path = tmp_path / "draws.csv"
    path.write_text("home,away,winner,draw,y\na,b,a,0,0\nb,c,,1,0.5\nc,a,c,0,0\na,b,b,0,1\n")
    out = tmp_path / "scores.csv"
    result = runner.invoke(app, ["rank", str(path), "--i-column", "home", "--j-column", "away", *columns, *extra, "--out", str(out)])
    fails_in_one_line(result, "holds draws, which only --method btl --ties davidson (or rao-kupper) can fit")
    assert not out.exists()


def test_rank_ties_needs_btl(tmp_path):
    path = tmp_path / "draws.csv"
    path.write_text(DRAWS)
    args = ["rank", str(path), "--i-column", "home", "--j-column", "away", "--winner-column", "winner", "--tie", "draw",
            "--method", "bre", "--ties", "davidson", "--out", str(tmp_path / "s.csv")]
    fails_in_one_line(runner.invoke(app, args), "--method 'bre' has no parameter --ties")


def test_rank_evaluate_and_suggest_refuse_draws(tmp_path):
    path = tmp_path / "draws.csv"
    path.write_text("home,away,y\na,b,1\nb,c,0.5\nc,a,0\n")
    scores = tmp_path / "scores.csv"
    scores.write_text("item,score\na,1\nb,0\nc,-1\n")
    columns = ["--i-column", "home", "--j-column", "away", "--y-column", "y"]
    fails_in_one_line(runner.invoke(app, ["rank-evaluate", str(scores), str(path), *columns]), "held_out_error cannot use draws")
    out = tmp_path / "next.csv"
    result = runner.invoke(app, ["rank-suggest", str(path), *columns, "--out", str(out)])
    fails_in_one_line(result, "cannot use draws")
    assert not out.exists()


# -- refused, not silently ignored or misreported ---------------------------------------------------
GAMES = "home,away,winner\na,b,a\nb,c,b\nc,a,c\na,c,a\nb,a,a\nc,b,b\n"


def _suggest(tmp_path, *extra):
    path = tmp_path / "games.csv"
    path.write_text(GAMES)
    out = tmp_path / "next.csv"
    result = runner.invoke(app, ["rank-suggest", str(path), "--i-column", "home", "--j-column", "away",
                                 "--winner-column", "winner", "--out", str(out), *map(str, extra)])
    return result, out


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--random-state", "3"], ["--strategy 'information' uses no randomness", "--random-state would be ignored",
                                   "use --strategy 'random'"]),
        (["--alpha", "1e308"], ["--alpha 1e+308 outweighs the data", "mean nothing", "Use --alpha of the order of 1"]),
        (["--n", "4"], ["--n-pairs 4 but there are only 3 candidate pairs"]),
        (["--n", "0"], ["--n-pairs must be an integer >= 1, got 0"]),
    ],
)
def test_rank_suggest_refuses_what_it_would_ignore_or_make_meaningless(tmp_path, extra, words):
    result, out = _suggest(tmp_path, *extra)
    fails_in_one_line(result, *words)
    assert not out.exists()


def test_rank_suggest_takes_random_state_with_the_random_strategy(tmp_path):
    result, out = _suggest(tmp_path, "--strategy", "random", "--random-state", "3", "--n", "2")
    assert result.exit_code == 0, result.output
    assert len(pd.read_csv(out)) == 2


def test_rank_suggest_counts_a_pair_given_in_both_orders_once(tmp_path):
    (tmp_path / "candidates.csv").write_text("i,j\na,b\nb,a\nb,c\n")
    result, out = _suggest(tmp_path, "--candidates", tmp_path / "candidates.csv", "--n", "2")
    assert result.exit_code == 0, result.output
    pairs = {frozenset(pair) for pair in pd.read_csv(out)[["i", "j"]].itertuples(index=False)}
    assert pairs == {frozenset("ab"), frozenset("bc")}
    fails_in_one_line(_suggest(tmp_path, "--candidates", tmp_path / "candidates.csv", "--n", "3")[0], "only 2")
    (tmp_path / "one.csv").write_text("i\na\n")
    fails_in_one_line(_suggest(tmp_path, "--candidates", tmp_path / "one.csv")[0], "needs two columns")


def test_a_bad_draw_flag_is_named_with_its_data_row_and_value(tmp_path):
    path = tmp_path / "draws.csv"
    path.write_text("home,away,winner,draw\na,b,a,0\nb,c,b,0\nc,a,c,1\na,c,a,maybe\nb,a,a,0\n")
    out = tmp_path / "scores.csv"
    result = runner.invoke(app, ["rank", str(path), "--i-column", "home", "--j-column", "away", "--winner-column",
                                 "winner", "--tie-column", "draw", "--method", "btl", "--ties", "davidson",
                                 "--out", str(out)])
    fails_in_one_line(result, "data row 4 has 'maybe'")
    assert not out.exists()


def test_a_bad_tie_column_is_named_by_its_option(tmp_path):
    path = tmp_path / "draws.csv"
    path.write_text(DRAWS)
    args = ["rank", str(path), "--i-column", "home", "--j-column", "away", "--winner-column", "winner",
            "--tie-column", "winner", "--method", "btl", "--ties", "davidson", "--out", str(tmp_path / "s.csv")]
    fails_in_one_line(runner.invoke(app, args), "column 'winner' (given as --tie-column) has a missing value",
                      "data row 2")
    assert not (tmp_path / "s.csv").exists()
