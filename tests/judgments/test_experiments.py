"""The seed's §4 protocol on a simulated crowd: Full's test error below the baselines', small k best."""

import numpy as np
import pandas as pd
import pytest

from paucity.datasets import simulate_crowd
from paucity.judgments import Judgments, MultiSelectRegressor


def mean_error_by_budget(n_splits, budgets, n_train=300, algorithms=("full", "scoring", "averages", "copies")):
    """Mean test squared error per (budget, algorithm) over random splits, the seed's protocol."""
    crowd = simulate_crowd(1000, 12, judgments=1, correlation=0.3, binary=[True, False] * 6, random_state=2013)
    errors = {(b, a): [] for b in budgets for a in algorithms}
    for split in range(n_splits):
        rng = np.random.default_rng([7, split])
        order = rng.permutation(crowd.n_objects)
        train, test = crowd.objects[order[:n_train]], crowd.objects[order[n_train:]]
        pool = crowd.draw(list(train), max(budgets), random_state=rng)
        training = Judgments(pool.groupby(["object", "attribute"], sort=False).head(2))  # k = 2
        collected = Judgments(pool)  # the judgments added up to r[a] come after the first two
        judged = Judgments(crowd.draw(list(test), max(budgets), random_state=rng))
        for budget in budgets:
            for algorithm in algorithms:
                model = MultiSelectRegressor(budget=budget, algorithm=algorithm).fit(training, crowd.labels[train])
                model.refit(collected, crowd.labels[train])
                prediction = model.predict(judged)[test]
                errors[(budget, algorithm)].append(float(np.mean((prediction - crowd.labels[test]) ** 2)))
    return pd.Series({key: np.mean(value) for key, value in errors.items()})


def test_full_beats_the_baselines_on_a_simulated_crowd():
    errors = mean_error_by_budget(n_splits=4, budgets=[14, 24], algorithms=("full", "averages", "copies"))
    for budget in (14, 24):
        assert errors[(budget, "full")] < min(errors[(budget, "averages")], errors[(budget, "copies")])


BUDGETS = [1, 2, 3, 4, 6, 8, 10, 14, 18, 24, 32, 40]  # every budget of docs/figures/judgments_budget.png


def test_wilson_interval_matches_hand_computed_values():
    from experiments.judgments import wilson

    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71672, half-width 0.22657
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 5)[0] == pytest.approx(0.0, abs=1e-12) and wilson(5, 5)[1] == pytest.approx(1.0)
    assert all(np.isnan(wilson(0, 0)))


def test_head_to_head_counts_a_same_repeat_vector_as_a_tie():
    from experiments.judgments import head_to_head

    rows = [  # split 0: same r (a tie even with different errors); split 1: Full lower; split 2: Full higher
        (0, "full", 1.0, "1 0"), (0, "copies", 0.9, "1 0"),
        (1, "full", 1.0, "2 0"), (1, "copies", 1.5, "1 1"),
        (2, "full", 2.0, "2 0"), (2, "copies", 1.5, "1 1"),
    ]
    part = pd.DataFrame(rows, columns=["split", "algorithm", "test_mse", "repeats"]).assign(budget=2)
    row = head_to_head(part, "copies").loc[2]
    assert (row["wins"], row["ties"], row["losses"]) == (1, 1, 1)
    assert row["win_rate"] == pytest.approx(0.5)


@pytest.mark.slow
def test_full_against_the_baselines_at_every_budget_of_the_figure():
    from experiments import judgments

    settings = {"splits": 20, "budgets": BUDGETS}
    frame = pd.DataFrame(judgments.run_budgets("simulated", judgments.simulated_crowd(), 300, settings, seed=7))
    against = {b: judgments.head_to_head(frame, b) for b in ("averages", "copies")}
    mean = frame.pivot_table(index="budget", columns="algorithm", values="test_mse", aggfunc="mean")
    print("\n" + judgments.budget_table(frame, "simulated"))
    print(judgments.ordering_line(frame, "simulated"))
    assert set(mean.index) == set(BUDGETS)
    # B = 1: Averages cannot afford an attribute's k = 2 judgments, so it buys nothing and Full beats it in
    # every split; Full and Copies both take the best attribute once: the same r, a tie, not a win
    assert against["averages"].loc[1, "wins"] == 20
    assert against["copies"].loc[1, "ties"] >= 18
    # with room to buy repeats, Full wins clearly against both: the Wilson interval lies above one half,
    # and its mean error is at least 3% below both baselines'
    for budget in (10, 14, 18, 24, 32, 40):
        for baseline in ("averages", "copies"):
            assert against[baseline].loc[budget, "low"] > 0.5, (budget, baseline)
        assert mean.loc[budget, "full"] < 0.97 * mean.loc[budget, ["averages", "copies"]].min()
        assert mean.loc[budget, "full"] < mean.loc[budget, "scoring"]  # correlated attributes
    # B = 2, 3, 4, 6, 8: Full and Copies often choose the same r and the others split about evenly;
    # the counts are printed above and reported in docs/judgments.md, not asserted


@pytest.mark.slow
def test_few_judgments_per_object_and_many_objects_beat_the_reverse():
    # the seed's Figure 8: at a fixed number of training judgments, k = 2 beats k = 8
    crowd = simulate_crowd(1000, 12, judgments=1, correlation=0.3, binary=[True, False] * 6, random_state=2013)
    total = 480  # judgments per attribute: m·k
    errors = {2: [], 8: []}
    for split in range(10):
        rng = np.random.default_rng([8, split])
        order = rng.permutation(crowd.n_objects)
        pool_objects, test = crowd.objects[order[:240]], crowd.objects[order[240:]]
        pool = crowd.draw(list(pool_objects), 16, random_state=rng)
        judged = Judgments(crowd.draw(list(test), 16, random_state=rng))
        for k in errors:
            train = pool_objects[: total // k]
            frame = pool[pool["object"].isin(train)]
            model = MultiSelectRegressor(budget=16).fit(
                Judgments(frame.groupby(["object", "attribute"], sort=False).head(k)), crowd.labels[train])
            model.refit(Judgments(frame), crowd.labels[train])
            prediction = model.predict(judged)[test]
            errors[k].append(float(np.mean((prediction - crowd.labels[test]) ** 2)))
    assert np.mean(errors[2]) < np.mean(errors[8])
