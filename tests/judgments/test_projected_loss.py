"""Theorem 3.1: the projected loss estimated from k = 2 judgments converges to the true loss with r ≠ k."""

import numpy as np
import pytest

from paucity.datasets import simulate_crowd
from paucity.judgments import MultiSelectRegressor, scoring_objective

REPEATS = [
    [1, 0, 3, 0, 5, 0],
    [4, 4, 1, 0, 0, 2],
    [0, 1, 0, 0, 0, 8],
    [1, 1, 1, 1, 1, 1],
]


def errors(n_objects, algorithm, binary, seeds):
    out = []
    for seed in seeds:
        crowd = simulate_crowd(n_objects, 6, judgments=2, correlation=0.0 if algorithm == "scoring" else 0.4,
                               binary=binary, noise=0.5, random_state=seed)
        model = MultiSelectRegressor(budget=4, algorithm=algorithm).fit(crowd.judgments, crowd.labels)
        for r in REPEATS:
            out.append(abs(estimated_loss(model, r) - crowd.true_loss(r)))
    return np.mean(out)


def estimated_loss(model, r):
    """E[Y²] minus the algorithm's own objective: Full's (``projected_loss``) or Scoring's."""
    if model.algorithm_ == "scoring":
        moments = model.moments_
        return moments.label_second_moment - scoring_objective(
            r, moments.correlation, moments.external_variance(), moments.internal_variance)
    return model.projected_loss(dict(zip(model.attributes_, r)))


@pytest.mark.parametrize("algorithm, binary", [("full", None), ("full", [True, False] * 3), ("scoring", None)])
def test_projected_loss_converges_to_the_true_loss(algorithm, binary):
    # The Scoring objective is exact when the external covariance is diagonal (Theorem 3.1), so it
    # runs on uncorrelated attributes; Full on correlated ones, half of them binary.
    sizes = [100, 1_000, 10_000]
    mean_errors = [errors(m, algorithm, binary, seeds=range(4)) for m in sizes]
    assert mean_errors[0] > mean_errors[1] > mean_errors[2]
    # the error shrinks like 1/√m: a tenfold m divides it by about √10
    assert mean_errors[2] < mean_errors[0] / 4
    crowd = simulate_crowd(10_000, 6, correlation=0.4, binary=binary, random_state=0)
    assert mean_errors[2] < 0.05 * crowd.true_loss(0)
