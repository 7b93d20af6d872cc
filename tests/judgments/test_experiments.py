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


@pytest.mark.slow
def test_full_beats_the_baselines_at_every_clearly_separated_budget():
    # the figures of docs/judgments.md: Full at most both baselines at 11 of 12 budgets, the twelfth a tie
    errors = mean_error_by_budget(n_splits=20, budgets=[2, 4, 8, 10, 14, 18, 24, 32])
    for budget in (2, 4, 8, 10, 14, 18, 24, 32):
        assert errors[(budget, "full")] <= min(errors[(budget, "averages")], errors[(budget, "copies")]) + 0.01
    for budget in (10, 14, 18, 24, 32):  # with room to buy repeats, clearly below
        assert errors[(budget, "full")] < 0.97 * min(errors[(budget, "averages")], errors[(budget, "copies")])
        assert errors[(budget, "full")] < errors[(budget, "scoring")]  # correlated attributes


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
