"""The seed's active spectral clustering experiments at reduced size (seed 003 §2.6).

The functions come from ``experiments/clustering.py``, the script that draws
the figures of ``docs/clustering.md``; the fast tests check that the script
runs end to end and that its data are what its docstring says.
"""

import numpy as np
import pandas as pd
import pytest

from paucity.clustering import misclustering_error, spectral_bisection


@pytest.fixture(scope="module")
def cx():
    from experiments import clustering  # the repository root is on pytest's path (pyproject.toml)

    return clustering


@pytest.mark.slow  # the whole experiment script at its quick size: a reproduction, 13-23 s
def test_script_runs_at_quick_size(cx, tmp_path):
    assert cx.main(["all", "--quick", "--jobs", "1", "--figures-dir", str(tmp_path),
                    "--results-dir", str(tmp_path)]) == 0
    for name in ("fig2_2", "fig2_3"):
        table = pd.read_csv(tmp_path / f"clustering_{name}.csv")
        assert set(table["method"]) == set(cx.METHODS)
        assert table["error_mean"].between(0, 0.5).all()  # misclustering error of two clusters is at most 1/2
        first = table[table["fraction"] == 0]
        assert (first.groupby("data")["error_mean"].nunique() == 1).all()  # every method starts from nothing measured
        assert (tmp_path / f"clustering_{name}.png").read_bytes()[:4] == b"\x89PNG"
    assert set(pd.read_csv(tmp_path / "clustering_fig2_2.csv")["data"]) == {
        f"separation {s:g}" for s in cx.SEPARATIONS}
    table = pd.read_csv(tmp_path / "clustering_table2_1.csv")
    assert list(table["data"]) == [*cx.DATASETS, "uniform"]
    assert (table["restarts"] == cx.QUICK_TABLE2_1["restarts"]).all()
    assert table[["IU-RED_mean", "S&T_mean"]].abs().le(0.5).all().all()


def test_width_rule_is_the_tuned_one_and_tuned_off_the_reported_draws(cx):
    table = cx.width_tuning(n_points=60)
    assert table["chosen"].sum() >= 1 and set(table["width"]) == set(cx.WIDTH_GRID)
    assert cx.WIDTH in cx.WIDTH_GRID and cx.SEED not in cx.TUNING_SEEDS
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # distances 1, 1, √2: median 1
    W = cx.rbf_similarities(X, width=0.5)
    assert W[0, 1] == pytest.approx(np.exp(-1 / (2 * 0.25)))
    assert W[1, 2] == pytest.approx(np.exp(-2 / (2 * 0.25))) and np.allclose(np.diag(W), 1)


def test_data_are_as_stated(cx):
    X, y = cx.two_gaussians(6.0, np.random.default_rng(5), 200)
    assert X.shape == (200, 2) and X.min() == 0 and X.max() == 1 and y.sum() == 100
    # means 6 standard deviations apart: the complete matrix separates them almost perfectly
    assert misclustering_error(spectral_bisection(cx.rbf_similarities(X)), y) <= 0.02
    # Breiman's waveform: class 0 mixes h1 and h2, so its mean is (h1 + h2) / 2
    Xw, yw = cx.waveform(4000, np.random.default_rng(1))
    i = np.arange(1, 22)
    h1, h2, h3 = (np.maximum(6 - np.abs(i - c), 0) for c in (11, 15, 7))
    assert np.abs(Xw[yw == 0].mean(0) - (h1 + h2) / 2).max() < 0.2
    assert np.abs(Xw[yw == 1].mean(0) - (h1 + h3) / 2).max() < 0.2
    for name in cx.DATASETS:
        Xd, yd = cx.real_dataset(name, np.random.default_rng(0), 30)
        assert len(Xd) == 60 and yd.sum() == 30 and Xd.min() >= 0 and Xd.max() <= 1


def test_one_step_measures_the_best_open_pair(cx):
    rng = np.random.default_rng(3)
    X, _ = cx.two_gaussians(5.0, rng, 40)
    W = cx.rbf_similarities(X)
    row = None
    while row is None:
        row = cx.one_step(W, rng, fraction=0.3)
    assert 0 < row["measured"] < 40 * 39 / 2
    assert -0.5 <= row["IU-RED"] <= 0.5 and -0.5 <= row["S&T"] <= 0.5


def test_fig2_5_runs_at_quick_size(cx, tmp_path):
    assert cx.main(["fig2_5", "--quick", "--jobs", "1", "--figures-dir", str(tmp_path),
                    "--results-dir", str(tmp_path)]) == 0
    table = pd.read_csv(tmp_path / "clustering_fig2_5.csv")
    assert set(table["panel"]) == {"a", "b", "c"} and set(table["method"]) == set(cx.METHODS)
    assert table["error_mean"].between(0, 0.5).all()
    assert (table[table["x"] == 0].groupby("panel")["error_mean"].nunique() == 1).all()  # all start from nothing
    quick = cx.QUICK_FIG2_5
    assert table.groupby("panel")["x"].max().to_dict() == {"a": quick["x_a"], "b": quick["x_b"], "c": quick["x_c"]}
    costs = pd.read_csv(tmp_path / "clustering_table2_2.csv")
    assert len(costs) == 3 * len(cx.METHODS)
    n = quick["n_points"]
    assert np.allclose(costs["cost_usd"], costs["x"] * n * (n - 1) / 2 * cx.PRICE / 3)
    assert (tmp_path / "clustering_fig2_5.png").read_bytes()[:4] == b"\x89PNG"


def test_recorded_answers_return_the_rth_answer_on_the_rth_ask(cx):
    answers = np.zeros((3, 4, 4))
    for r in range(3):
        answers[r] = 0.1 * (r + 1)
    answers[:, 0, 1] = answers[:, 1, 0] = [0.9, 0.2, 0.5]
    oracle = cx.RecordedAnswers(answers)
    assert oracle.query([[0, 1], [2, 3]]).tolist() == [0.9, 0.1]
    assert oracle.query([[1, 0], [0, 1]]).tolist() == [0.2, 0.5]  # either order names the same pair
    with pytest.raises(cx.InputError, match="only 3 answers were recorded"):
        oracle.query([[0, 1]])


def test_simulated_crowd_is_the_stated_one(cx):
    W, answers, median, rooms = cx.photos_stand_in(7)
    assert W.shape == (100, 100) and answers.shape == (3, 100, 100) and rooms.sum() == 50
    assert np.allclose(answers, answers.transpose(0, 2, 1)) and np.allclose(median, np.median(answers, 0))
    iu = np.triu_indices(100, 1)
    a, w = answers[:, iu[0], iu[1]], W[iu]
    # adversarial answers are exactly 1 − w: CROWD_ADVERSARIAL of them (w = 1/2 excluded by chance)
    assert np.mean(np.isclose(a, 1 - w)) == pytest.approx(cx.CROWD_ADVERSARIAL, abs=0.01)
    # the others follow Beta(1 + κw, 1 + κ(1 − w)): mean (1 + κw) / (2 + κ)
    k = cx.CROWD_CONCENTRATION
    honest = ~np.isclose(a, 1 - w)
    assert np.mean((a - (1 + k * np.broadcast_to(w, a.shape)) / (2 + k))[honest]) == pytest.approx(0, abs=0.005)
    assert cx.SEED not in cx.CROWD_TUNING_SEEDS


def test_crowd_tuning_marks_the_rule_s_pick(cx):
    table = cx.crowd_tuning(seeds=(100,), n_points=30)
    assert len(table) == len(cx.PHOTOS_SEPARATION_GRID) * len(cx.CROWD_GRID) and table["chosen"].sum() <= 1
    if table["chosen"].any():
        pick = table[table["chosen"]].iloc[0]
        ok = table[table["error_rooms"] <= cx.COST_TARGET]
        assert pick["separation"] == ok["separation"].min()
        assert pick["error_single"] == ok[ok["separation"] == pick["separation"]]["error_single"].max()


def test_cost_to_reach_reads_the_first_crossing(cx):
    summary = pd.DataFrame({"panel": "a", "method": "IU-RED", "x": [0.0, 0.5, 1.0, 1.5],
                            "error_mean": [0.5, 0.04, 0.06, 0.01], "runs": 3, "pairs": 4950})
    never = summary.assign(method="S&T", error_mean=0.3)
    costs = cx.cost_to_reach(pd.concat([summary, never]))
    iu, st = costs.iloc[0], costs.iloc[1]
    assert iu["reached"] and iu["x"] == 0.5 and not iu["stays_below"] and iu["x_stays"] == 1.5
    assert iu["cost_usd"] == pytest.approx(0.5 * 4950 * 0.015)  # US$0.015 per answer
    assert iu["cost_stays_usd"] == pytest.approx(1.5 * 4950 * 0.015)
    assert not st["reached"] and st["cost_usd"] == pytest.approx(1.5 * 4950 * 0.015) and np.isnan(st["x_stays"])


# -- slow: the seed's claims --------------------------------------------------------------------------
@pytest.mark.slow
def test_iu_red_beats_s_and_t_on_well_separated_gaussians(cx):
    """Figure 2.2: "S&T does poorly even on easy problems"; IU-RED settles on the complete-data clustering.

    Means 5 standard deviations apart, two runs of each method on the figure's data, 10% of the pairs.
    """
    X, _ = cx.two_gaussians(5.0, np.random.default_rng([cx.SEED, 50]))
    W = cx.rbf_similarities(X)
    grid = np.round(np.linspace(0.05, 0.1, 11), 4)
    means = {method: np.mean([cx.error_curve(W, method, 0.1, grid, state) for state in (11, 12)])
             for method in ("IU-RED", "S&T")}
    assert means["IU-RED"] < 0.05
    assert means["S&T"] > means["IU-RED"] + 0.02


@pytest.mark.slow
def test_iu_red_reaches_the_cost_target_far_sooner_than_s_and_t_on_the_simulated_crowd(cx):
    """Table 2.2 (a): "IU-RED is at least 4 times cheaper than S&T".

    The stand-in of Figure 2.5 (a) (median matrix of the simulated crowd), the first two of its runs, up
    to one answer per pair (a third of the medians): IU-RED stays near the 0.05 target, S&T does not.
    """
    W, answers, median, _ = cx.photos_stand_in(cx.SEED)
    reference = spectral_bisection(median)
    grid = np.round(np.arange(0.5, 1.0 + 1e-9, 0.025), 4)
    states = cx._seeds([cx.SEED, 25, 0], 2)
    means = {method: np.mean([cx.crowd_curve(median, answers, "a", method, 4950 // 3, grid, state, reference)
                              for state in states]) for method in ("IU-RED", "S&T")}
    assert means["IU-RED"] < 0.05
    assert means["S&T"] > 0.1 and means["S&T"] > means["IU-RED"] + 0.05
