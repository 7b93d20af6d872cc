"""Seed 000, chapter 3: the worked example of §3.5 (similarity-based regularization imputes comparisons).

The seed numbers items 1..4; here they are positions 0..3. The single
observation "item 1 beat item 3" is ``winner 0, loser 2``.
"""

import numpy as np
import pytest

from paucity.ranking import Comparisons, RankCentrality
from paucity.ranking.similarity import precomputed_similarity
from paucity.ranking.stationary import stationary_distribution
from paucity.ranking.transitions import transition_matrix

D = np.array(
    [
        [0.8, 0.2, 0.0, 0.0],
        [0.2, 0.8, 0.0, 0.0],
        [0.0, 0.0, 0.9, 0.1],
        [0.0, 0.0, 0.1, 0.9],
    ]
)
Q_HAT = np.array(  # as printed in §3.5
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
)
Q_HAT_D = np.array(  # as printed in §3.5
    [
        [0.8, 0.2, 0.0, 0.0],
        [0.2, 0.8, 0.0, 0.0],
        [0.8, 0.2, 0.0, 0.0],
        [0.0, 0.0, 0.1, 0.9],
    ]
)


@pytest.fixture
def one_observation():
    return Comparisons.from_winners([0], [2], items=range(4), similarity=D)


def test_q_hat_of_a_single_observation(one_observation):
    # (3.5) with m = 1 and μ uniform (μ_min / μ_ij = 1): the loser's whole row moves to the winner
    t = transition_matrix(one_observation, "sampling")
    assert t.scale == 1.0
    np.testing.assert_array_equal(t.toarray(), Q_HAT)


def test_q_hat_times_d_imputes_comparisons(one_observation):
    similarity = precomputed_similarity(one_observation.similarity)
    np.testing.assert_array_equal(similarity.toarray(), D)  # D is already row-stochastic
    t = transition_matrix(one_observation, "sampling")
    np.testing.assert_allclose(t.toarray() @ similarity.toarray(), Q_HAT_D, atol=1e-15)
    # the same product row by row, as the solvers apply it: x ↦ (x Q̂) D
    for k, row in enumerate(np.eye(4)):
        np.testing.assert_allclose(similarity.left_multiply(t.left_multiply(row)), Q_HAT_D[k], atol=1e-15)


def test_q_hat_d_has_item_1_and_2_absorbing():
    # the chain Q̂D has the closed class {1, 2} (positions 0, 1): all its mass ends there
    t = transition_matrix(Comparisons.from_winners([0], [2], items=range(4)), "sampling")
    result = stationary_distribution(t, similarity=precomputed_similarity(D), solver="power", tol=1e-13)
    np.testing.assert_allclose(result.distribution, [0.5, 0.5, 0.0, 0.0], atol=1e-10)


def test_similarity_ranks_items_1_and_2_over_3_and_4(one_observation):
    # with λ-regularization alone the never-compared items 2 and 4 tie; with D′ = D item 2 shares item 1's
    # win and item 4 (similar to the loser, item 3) falls below it: "a preference for items 1 and 2 over
    # items 3 and 4"
    uniform = RankCentrality(transition="sampling", regularization="uniform", lam=0.01).fit(one_observation)
    pi = uniform.scores_.to_numpy()
    assert pi[1] == pytest.approx(pi[3]) and pi[0] > pi[1] > pi[2]
    similar = RankCentrality(transition="sampling", regularization="similarity", lam=0.01).fit(one_observation)
    pi = similar.scores_.to_numpy()
    assert min(pi[0], pi[1]) > max(pi[2], pi[3])
    assert list(similar.ranking_) == [0, 1, 3, 2]
