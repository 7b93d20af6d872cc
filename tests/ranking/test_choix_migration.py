"""The choix migration table of docs/ranking.md, row by row, on choix's own introductory example.

CHOIX holds what choix 0.4.1 returns on its introductory notebook's data (5 items, 6 comparisons), recorded in
a virtual environment of its own; when choix is importable here, the same calls run live as well.
"""

import numpy as np
import pytest

from paucity.ranking import BTL, Choices, Comparisons, PlackettLuce, RankCentrality, Rankings
from paucity.ranking.metrics import kendall_tau_distance, spearman_footrule

N_ITEMS = 5
DATA = [(1, 0), (0, 4), (3, 1), (0, 2), (2, 4), (4, 3)]          # (winner, loser), choix's notebook
RANKINGS = [(0, 2, 1), (1, 0, 4, 3), (2, 4), (4, 3, 0), (3, 1, 2), (1, 4, 0, 2)]   # choix's (best first)
TOP1 = [(0, [1, 2]), (1, [2, 3, 4]), (2, [0, 4]), (3, [0, 1]), (4, [0, 1, 2]), (0, [3, 4]), (2, [1, 3])]

#: choix 0.4.1 on the data above (centred log-parameters; probabilities as choix returns them).
CHOIX = {
    'ilsr_pairwise': np.array([0.5828135691, 0.1942711897, 0.0, -0.1942711897, -0.5828135691]),
    'opt_pairwise_alpha_0.1': np.array([0.4559793327, 0.1194656594, 0.0, -0.1194656594, -0.4559793327]),
    'rank_centrality': np.array([0.2772588722, 0.2772588722, -0.4158883083, 0.2772588722, -0.4158883083]),
    'lsr_pairwise': np.array([0.2772588722, 0.2772588722, -0.4158883083, 0.2772588722, -0.4158883083]),
    'probabilities_0_4': np.array([0.7623536911, 0.2376463089]),
    'ilsr_rankings': np.array([0.0454284129, 0.3493576392, -0.5336297436, -0.0708388675, 0.2096825591]),
    'opt_rankings_alpha_0.1': np.array([0.0418300765, 0.3220245424, -0.4853449701, -0.0705013667, 0.191991718]),
    'lsr_rankings': np.array([0.0251948182, 0.4274802734, -0.4962692038, -0.1438815119, 0.1874756241]),
    'ilsr_top1': np.array([0.3220817967, -0.3803065288, 0.3731221503, -0.2441747876, -0.0707226306]),
    'opt_top1_alpha_0.1': np.array([0.2777860505, -0.3246738228, 0.3246460015, -0.2053184947, -0.0724397345]),
    'kendalltau_dist': np.array([3.0]),
    'footrule_dist': np.array([6.0]),
}


def _games():
    return Comparisons.from_winners([w for w, _ in DATA], [l for _, l in DATA], items=range(N_ITEMS))


def _choices():
    return Choices([w for w, _ in TOP1], [[w, *losers] for w, losers in TOP1], items=range(N_ITEMS))


def ours():
    games = _games()
    btl = BTL().fit(games)
    p = btl.predict_proba(0, 4)
    rankings = Rankings(RANKINGS, items=range(N_ITEMS))
    x, y = np.array([0.3, 1.2, -0.5, 0.9, 0.0]), np.array([0.1, 0.8, 0.2, 1.5, -0.4])
    return {
        "ilsr_pairwise": btl.scores_.to_numpy(),
        "opt_pairwise_alpha_0.1": BTL(alpha=0.2).fit(games).scores_.to_numpy(),
        "rank_centrality": RankCentrality().fit(games).log_scores_.to_numpy(),
        "lsr_pairwise": PlackettLuce(method="lsr").fit(Rankings(DATA, items=range(N_ITEMS))).scores_.to_numpy(),
        "probabilities_0_4": np.array([1 - p, p]),
        "ilsr_rankings": PlackettLuce(method="ilsr").fit(rankings).scores_.to_numpy(),
        "opt_rankings_alpha_0.1": PlackettLuce(alpha=0.2).fit(rankings).scores_.to_numpy(),
        "lsr_rankings": PlackettLuce(method="lsr").fit(rankings).scores_.to_numpy(),
        "ilsr_top1": PlackettLuce(method="ilsr").fit(_choices()).scores_.to_numpy(),
        "opt_top1_alpha_0.1": PlackettLuce(alpha=0.2).fit(_choices()).scores_.to_numpy(),
        "kendalltau_dist": np.array([kendall_tau_distance(x, y)]),
        "footrule_dist": np.array([spearman_footrule(x, y)]),
    }


def theirs(choix):
    x, y = np.array([0.3, 1.2, -0.5, 0.9, 0.0]), np.array([0.1, 0.8, 0.2, 1.5, -0.4])
    params = choix.ilsr_pairwise(N_ITEMS, DATA, tol=1e-12, max_iter=10_000)
    return {
        "ilsr_pairwise": params,
        "opt_pairwise_alpha_0.1": choix.opt_pairwise(N_ITEMS, DATA, alpha=0.1, tol=1e-12),
        "rank_centrality": choix.rank_centrality(N_ITEMS, DATA),
        "lsr_pairwise": choix.lsr_pairwise(N_ITEMS, DATA),
        "probabilities_0_4": choix.probabilities([0, 4], params),
        "ilsr_rankings": choix.ilsr_rankings(N_ITEMS, RANKINGS, tol=1e-12, max_iter=10_000),
        "opt_rankings_alpha_0.1": choix.opt_rankings(N_ITEMS, RANKINGS, alpha=0.1, tol=1e-12),
        "lsr_rankings": choix.lsr_rankings(N_ITEMS, RANKINGS),
        "ilsr_top1": choix.ilsr_top1(N_ITEMS, TOP1, tol=1e-12, max_iter=10_000),
        "opt_top1_alpha_0.1": choix.opt_top1(N_ITEMS, TOP1, alpha=0.1, tol=1e-12),
        "kendalltau_dist": np.array([choix.kendalltau_dist(x, y)]),
        "footrule_dist": np.array([choix.footrule_dist(x, y)]),
    }


@pytest.mark.parametrize("row", list(CHOIX))
def test_each_row_of_the_table_gives_choixs_numbers(row):
    np.testing.assert_allclose(ours()[row], CHOIX[row], atol=1e-6, err_msg=row)


def test_the_table_against_choix_itself():
    choix = pytest.importorskip("choix")
    mine, expected = ours(), theirs(choix)
    for row in CHOIX:
        np.testing.assert_allclose(mine[row], expected[row], atol=1e-6, err_msg=row)


def test_predict_proba_is_the_second_entry_of_choix_probabilities():
    btl = BTL().fit(_games())
    v = btl.scores_.to_numpy()
    p = btl.predict_proba(0, 4)
    assert p == pytest.approx(1 / (1 + np.exp(v[0] - v[4])))   # P(4 preferred to 0)
    assert p == pytest.approx(CHOIX["probabilities_0_4"][1], abs=1e-6)
