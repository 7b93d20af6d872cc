"""The seed's experiments (seed 004), reduced: MADELON feature selection and two-sample power as d grows."""

import numpy as np
import pytest
from scipy.stats import wishart

from paucity.differences import PDA, Wasserstein, permutation_test


def madelon():
    from sklearn.datasets import make_classification

    Z, labels = make_classification(n_samples=2000, n_features=500, n_informative=5, n_redundant=15, n_repeated=0,
                                    n_clusters_per_class=16, shuffle=False, random_state=0)
    Z = (Z - Z.mean(axis=0)) / Z.std(axis=0)
    return Z[labels == 0], Z[labels == 1]


@pytest.mark.slow
def test_sparda_finds_exactly_the_twenty_relevant_madelon_features():
    # docs/differences.md: λ from 0.16 to 0.58 keeps the 20 relevant features (the first 20) and nothing else
    X, Y = madelon()
    model = PDA(sparsity="l1", lam=0.3, random_state=0).fit(X, Y)
    assert sorted(model.selected_.tolist()) == list(range(20))


@pytest.mark.slow
def test_pda_beats_the_best_of_many_random_directions_on_madelon():
    # what a user would reach for instead: the largest W₂² over random unit directions (max-sliced)
    X, Y = madelon()
    model = PDA(random_state=0).fit(X, Y)
    rng = np.random.default_rng(0)
    directions = rng.normal(size=(2000, X.shape[1]))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    best = max(Wasserstein()._value(X @ u, Y @ u) for u in directions)
    assert model.divergence_ > 10 * best


def wishart_pair(d, seed, n=200):
    """The seed's "Two-sample Testing" data: only the first 3 features' law differs."""
    rng = np.random.default_rng([4, d, seed])
    sigma = np.atleast_2d(wishart(df=d, scale=np.eye(d) / d).rvs(random_state=rng))
    fresh = np.atleast_2d(wishart(df=3, scale=np.eye(3) / 3).rvs(random_state=rng))
    X = rng.multivariate_normal(np.zeros(d), sigma, size=n, method="cholesky")
    Y = np.empty((n, d))
    Y[:, :3] = rng.multivariate_normal(np.zeros(3), fresh, size=n, method="cholesky")
    Y[:, 3:] = rng.multivariate_normal(np.zeros(d - 3), sigma[3:, 3:], size=n, method="cholesky")
    order = rng.permutation(d)
    return X[:, order], Y[:, order]


@pytest.mark.slow
def test_sparda_keeps_its_power_in_high_dimension_where_pda_loses_it():
    solver = {"max_iter": 100, "patience": 20, "n_restarts": 1, "tighten_max_iter": 100, "random_state": 0}
    rejections = {"SPARDA": 0, "PDA": 0}
    for seed in range(8):
        X, Y = wishart_pair(100, seed)
        for name, model in (("SPARDA", PDA(sparsity="l1", lam=0.5, **solver)), ("PDA", PDA(**solver))):
            result = permutation_test(X, Y, model, n_permutations=19, random_state=seed)
            rejections[name] += result.pvalue <= 0.05
    assert rejections["SPARDA"] >= rejections["PDA"] + 2
