"""The seed's BBMC experiment (Table 3.1, seed 003 §3.6) on the simulated crowd, at reduced size.

The functions come from ``experiments/crowd.py``, the script behind the Table 3.1 section of
``docs/crowd.md``; the fast tests check that the script runs end to end and that its data are what
its docstring says.
"""

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(scope="module")
def cx():
    from experiments import crowd  # the repository root is on pytest's path (pyproject.toml)

    return crowd


@pytest.mark.slow  # the whole experiment script at its quick size: a reproduction, 13-23 s
def test_script_runs_at_quick_size(cx, tmp_path):
    assert cx.main(["table3_1", "--quick", "--restarts", "1", "--jobs", "1", "--results-dir", str(tmp_path)]) == 0
    runs = pd.read_csv(tmp_path / "crowd_table3_1_runs.csv")
    table = pd.read_csv(tmp_path / "crowd_table3_1.csv")
    methods = set(cx.PASSIVE) | set(cx.ACTIVE)
    assert methods <= set(runs["method"]) and set(runs["method"]) <= set(cx.METHODS)
    assert (runs["restart"] == 0).all() and not runs.duplicated(["restart", "method"]).any()
    on_test = runs[runs["method"].isin(methods)]
    assert (on_test["loglik"] < 0).all() and on_test["error"].between(0, 1).all()
    assert (on_test["n_test"] == cx.QUICK["n_test"]).all() and (on_test["n_gold"] == cx.QUICK["n_gold"]).all()
    assert (runs.loc[runs["method"].isin(cx.ACTIVE), "queries"] == cx.QUICK["n_queries"]).all()
    assert (runs["seconds"] >= 0).all()
    assert list(table["method"]) == [m for m in cx.METHODS if m in set(runs["method"])]  # Table 3.1's order
    assert (table["restarts"] == 1).all()
    seed = table.set_index("method").loc["BBMC", ["seed_loglik", "seed_error"]].tolist()
    assert seed == [-219.1, 0.0309]


def test_a_stopped_run_resumes_from_its_finished_rows(cx, tmp_path):
    args = ["table3_1", "--quick", "--restarts", "1", "--jobs", "1", "--results-dir", str(tmp_path)]
    assert cx.main([*args, "--methods", "GOLD,CONS"]) == 0
    first = pd.read_csv(tmp_path / "crowd_table3_1_runs.csv")
    assert cx.main([*args, "--methods", "GOLD,CONS,GOLD-ACT", "--resume"]) == 0
    runs = pd.read_csv(tmp_path / "crowd_table3_1_runs.csv")
    assert list(runs["method"]) == ["GOLD", "CONS", "GOLD-ACT"]
    pd.testing.assert_frame_equal(runs.iloc[:2], first)  # the finished rows are kept, not rerun
    # the same restart draws the same data: GOLD rerun elsewhere gives the same numbers
    again = cx.run_method("GOLD", 0, sizes=cx.QUICK)[0]
    assert again["loglik"] == pytest.approx(first["loglik"].iloc[0], rel=1e-5)  # the file keeps 6 digits
    assert again["error"] == pytest.approx(first["error"].iloc[0], rel=1e-5)


def test_data_are_as_stated(cx):
    data = cx.simulate(7, n_tasks=400, n_test=200, n_gold=30)
    labels, X = data["labels"], data["X"]
    dense = labels.to_dense()
    crowd = dense.drop(columns=cx.RESEARCHER)
    assert ((crowd != 0).sum(axis=1) == cx.LABELS_PER_TASK).all()  # three labels per task
    assert (crowd.abs().sum(axis=1) > crowd.sum(axis=1).abs()).all()  # every kept task has disagreement
    assert data["n_kept"] == labels.n_tasks < 400 and (dense[cx.RESEARCHER] != 0).sum() == 30
    assert dict(data["crowd"]["rule"].value_counts()) == cx.MIX and len(data["crowd"]) == cx.N_LABELERS
    # the researcher's gold labels are the centroid rule without noise
    gold = dense[cx.RESEARCHER][dense[cx.RESEARCHER] != 0]
    assert (gold.map({1: cx.LEFT, -1: cx.ABOVE}) == data["truth"].reindex(gold.index)).all()
    assert list(X.columns) == list(cx.FEATURES) and (X["constant"] == 1).all()
    assert np.allclose(X.iloc[:, :-1].mean(), 0) and np.allclose(X.iloc[:, :-1].std(ddof=0), 1)
    assert data["X_test"].shape == (200, len(cx.FEATURES)) and len(data["y_test"]) == 200
    assert set(data["y_test"]) == {cx.LEFT, cx.ABOVE}
    assert cx.SEED not in cx.TUNING_SEEDS


def test_the_geometry_is_the_stated_one(cx):
    rng = np.random.default_rng(0)
    triangle = cx._shape("triangle", 50, rng)
    assert np.allclose(triangle.mean(axis=1), 0)  # centred on the centroid, whatever the rotation
    square = np.array([[[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]]])
    assert cx._area(square)[0] == pytest.approx(2.0)
    frame = cx.draw_tasks(2000, rng)
    assert np.allclose(frame["centroid"], frame["dx_centroid"] - frame["dy_centroid"])
    assert np.allclose(frame["extreme"], frame["gap_x"] - frame["gap_y"])
    assert np.allclose(frame["adversary"], -frame["centroid"])
    # the triangle sits up and to the left of the rectangle around the diagonal: both answers are common
    assert 0.35 < np.mean(frame["centroid"] > 0) < 0.65
    assert (frame["dx_centroid"] > 0).mean() > 0.8 and (frame["dy_centroid"] > 0).mean() > 0.8
    # labelers of one rule agree with the rule's sign more often the smaller their noise
    crowd = pd.DataFrame({"rule": ["centroid"] * 2, "noise": [0.1, 3.0]}, index=["a", "b"])
    scale = {r: float(frame[r].std()) for r in ("centroid", "extreme", "size", "adversary")}
    rows = np.repeat(np.arange(2000), 2)
    answers = cx._answers(frame, rows, np.tile([0, 1], 2000), crowd, scale, rng).reshape(2000, 2)
    sign = np.where(frame["centroid"] > 0, 1, -1)
    assert np.mean(answers[:, 0] == sign) > 0.95 > np.mean(answers[:, 1] == sign) > 0.5


def test_tuning_marks_the_rule_s_pick(cx):
    table = cx.simulator_tuning(seeds=(100,), n_tasks=300)
    assert len(table) == len(cx.NOISE_GRID) * len(cx.SPREAD_GRID) and table["chosen"].sum() == 1
    distance = (table["kept_share"] - cx.KEPT_TARGET).abs()
    assert distance[table["chosen"]].iloc[0] == distance.min()
    # more noise, more disagreement
    for _, part in table.groupby("spread"):
        assert part.sort_values("noise")["kept_share"].is_monotonic_increasing
    assert cx.NOISE in cx.NOISE_GRID and cx.SPREAD in cx.SPREAD_GRID
    assert cx.N_FACTORS in cx.FACTOR_GRID and cx.SIGMA in cx.SIGMA_GRID and cx.ALPHA in cx.ALPHA_GRID


def test_crowdkit_helper_aggregates_a_label_table(cx, tmp_path):
    pytest.importorskip("crowdkit")
    table = pd.DataFrame({"task": ["a"] * 3 + ["b"] * 3, "labeler": ["x", "y", "z"] * 2,
                          "label": ["left", "left", "above", "above", "above", "left"]})
    table.to_csv(tmp_path / "in.csv", index=False)
    assert cx.main(["crowdkit", "--input", str(tmp_path / "in.csv"), "--output", str(tmp_path / "out.csv")]) == 0
    out = pd.read_csv(tmp_path / "out.csv")
    assert set(out["method"]) == {"DS", "GLAD"}
    assert out[out["method"] == "DS"].set_index("task")["label"].to_dict() == {"a": "left", "b": "above"}


# -- slow: the seed's claims --------------------------------------------------------------------------
@pytest.mark.slow
def test_bbmc_beats_gold_and_cons_and_bbmc_act_beats_random_queries(cx):
    """Table 3.1: BBMC's error is below GOLD's and CONS's without active learning ("outperforms the other
    two methods"; CONS "systematically misleads"), and BBMC-ACT's below RAND-ACT's with 100 queries.

    Restart 0 of the reported run, at the seed's sizes (2000 burn-in sweeps, 20000 draws; 100 queries,
    one every 200 sweeps).
    """
    rows = {m: cx.run_method(m, 0)[0] for m in ("GOLD", "CONS", "BBMC", "RAND-ACT", "BBMC-ACT")}
    error = {m: row["error"] for m, row in rows.items()}
    assert error["BBMC"] < error["GOLD"] < error["CONS"]
    assert error["BBMC-ACT"] < error["RAND-ACT"] < error["BBMC"]
    assert rows["BBMC-ACT"]["loglik"] > rows["RAND-ACT"]["loglik"]


def test_figure_3_2_shows_easy_tasks_where_the_rules_agree_and_ambiguous_ones_where_they_do_not(cx, tmp_path):
    examples = cx.example_tasks(3)
    assert [kind for kind, *_ in examples] == ["easy"] * 3 + ["ambiguous"] * 3
    for kind, row, triangle, rectangle in examples:
        answers = {np.sign(row[rule]) for rule in ("centroid", "extreme", "size")}
        assert (len(answers) == 1) == (kind == "easy")
        assert triangle.shape == (3, 2) and rectangle.shape == (4, 2)
        # the rows' centroid score is the drawn shapes' own: x offset minus y offset of the centres
        dx = rectangle.mean(0)[0] - triangle.mean(0)[0]
        dy = triangle.mean(0)[1] - rectangle.mean(0)[1]
        assert np.isclose(row["centroid"], dx - dy)
    assert cx.main(["fig3_2", "--figures-dir", str(tmp_path)]) == 0
    assert (tmp_path / "crowd_fig3_2.png").stat().st_size > 10_000


def test_shapes_do_not_change_the_draws(cx):
    plain = cx.draw_tasks(50, np.random.default_rng(3))
    frame, _, _ = cx.draw_tasks(50, np.random.default_rng(3), shapes=True)
    pd.testing.assert_frame_equal(plain, frame)
