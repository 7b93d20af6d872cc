"""suggest_pairs: greedy picks and scores against a brute-force recomputation of the posterior per pair."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, ndtr

from paucity._errors import InputError, ParameterError
from paucity.ranking import BTL, Comparisons, PlackettLuce, Rankings, suggest_pairs, uncertainty


def fitted(seed=0, n=7, m=40):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    y = (rng.random(m) < expit(v[j] - v[i])).astype(int)
    return BTL(alpha=0.5).fit(Comparisons(i, j, y, items=range(n)))


def brute_force(model, n_picks, strategy):
    """Greedy picks recomputing the dense precision and its inverse after every pick."""
    v = model.scores_.to_numpy()
    n = len(v)
    sigma = 1.0 / (1.0 + np.exp(-(v[:, None] - v[None, :])))
    precision = np.linalg.inv(model.covariance(list(range(n))).to_numpy() + 1.0 / n) - 1.0 / n  # P-restricted inverse
    picks, scores = [], []
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    for _ in range(n_picks):
        covariance = np.linalg.pinv(precision)
        best, best_score = None, -np.inf
        for a, b in pairs:
            if (a, b) in picks:
                continue
            s = covariance[a, a] + covariance[b, b] - 2 * covariance[a, b]
            c = sigma[a, b] * (1 - sigma[a, b])
            score = 0.5 * np.log1p(c * s) if strategy == "information" else ndtr(-abs(v[a] - v[b]) / np.sqrt(s))
            if score > best_score:
                best, best_score = (a, b), score
        picks.append(best)
        scores.append(best_score)
        a, b = best
        x = np.zeros(n)
        x[a], x[b] = 1, -1
        precision = precision + sigma[a, b] * (1 - sigma[a, b]) * np.outer(x, x)
    return picks, scores


@pytest.mark.parametrize("strategy", ["information", "uncertainty"])
def test_greedy_rank_one_updates_equal_recomputing_the_posterior(strategy):
    model = fitted()
    table = suggest_pairs(model, 5, strategy=strategy)
    picks, scores = brute_force(model, 5, strategy)
    assert list(zip(table["i"], table["j"])) == picks
    np.testing.assert_allclose(table["score"], scores, rtol=1e-8)
    v = model.scores_
    np.testing.assert_allclose(table["probability"], expit(v[table["j"]].to_numpy() - v[table["i"]].to_numpy()))


def test_information_gain_is_the_log_determinant_change():
    model = fitted(1)
    first = suggest_pairs(model, 1).iloc[0]
    n = model.n_items_
    covariance = model.covariance(list(range(n))).to_numpy()
    x = np.zeros(n)
    x[int(first["i"])], x[int(first["j"])] = 1, -1
    p = first["probability"]
    # det(Σ⁻¹ + c xxᵀ) / det(Σ⁻¹) = 1 + c xᵀΣx on the centred subspace
    expected = 0.5 * np.log1p(p * (1 - p) * x @ covariance @ x)
    assert first["score"] == pytest.approx(expected, rel=1e-9)


def test_candidates_random_and_plackett_luce():
    model = fitted(2)
    given = [[0, 1], [2, 5], [3, 4]]
    table = suggest_pairs(model, 3, candidates=given)
    assert sorted(zip(table["i"], table["j"])) == [(0, 1), (2, 5), (3, 4)]
    random = suggest_pairs(model, 4, strategy="random", random_state=3)
    assert len(set(zip(random["i"], random["j"]))) == 4
    assert random.equals(suggest_pairs(model, 4, strategy="random", random_state=3))
    pl = PlackettLuce(alpha=0.5).fit(Rankings([[0, 1, 2], [2, 3, 1], [3, 0, 2]]))
    assert len(suggest_pairs(pl, 2)) == 2


def test_beyond_the_dense_limit_the_picks_are_solved_by_conjugate_gradients(monkeypatch):
    model = fitted(4, n=40, m=600)
    exact = suggest_pairs(model, 3)
    monkeypatch.setattr(uncertainty, "DENSE_LIMIT", 10)
    model2 = fitted(4, n=40, m=600)
    table = suggest_pairs(model2, 3)
    # the first pick ignores the candidate's own covariance, so it may differ; every pick is a distinct pair
    assert len(set(zip(table["i"], table["j"]))) == 3
    assert (table["score"] > 0).all()
    assert exact["score"].iloc[0] <= table["score"].iloc[0] * 1.5


def test_errors():
    model = fitted()
    with pytest.raises(InputError, match="only 21 candidate pairs"):
        suggest_pairs(model, 22)
    with pytest.raises(ParameterError):
        suggest_pairs(model, 2, strategy="best")
    with pytest.raises(ParameterError):
        suggest_pairs(model, 0)
    with pytest.raises(InputError, match="not among the items"):
        suggest_pairs(model, 1, candidates=[[0, 99]])
    with pytest.raises(InputError, match="names one item twice"):
        suggest_pairs(model, 1, candidates=[[1, 1]])
    with pytest.raises(InputError, match="fitted BTL or PlackettLuce"):
        suggest_pairs(object(), 1)
    tied = BTL(ties="davidson").fit([[0, 1], [1, 2], [2, 0], [0, 1]], [0, 0.5, 1, 1])
    with pytest.raises(ParameterError, match="without ties"):
        suggest_pairs(tied, 1)


# -- the command line: paucity rank-suggest ----------------------------------------------------------
def test_rank_suggest_writes_what_suggest_pairs_picks(tmp_path):
    from typer.testing import CliRunner

    from paucity.cli import app

    rng = np.random.default_rng(5)
    v = rng.normal(size=8)
    i = rng.integers(0, 8, 60)
    j = (i + rng.integers(1, 8, 60)) % 8
    winner = np.where(rng.random(60) < expit(v[j] - v[i]), j, i)
    table = pd.DataFrame({"home": i, "away": j, "winner": winner})
    path = tmp_path / "games.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "next_pairs.csv"
    result = CliRunner().invoke(app, ["rank-suggest", str(path), "--i-column", "home", "--j-column", "away",
                                      "--winner-column", "winner", "--n", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out)
    expected = suggest_pairs(
        BTL(alpha=1.0).fit(Comparisons.from_dataframe(table, i="home", j="away", winner="winner")), 4
    )
    assert written[["i", "j"]].values.tolist() == expected[["i", "j"]].values.tolist()
    np.testing.assert_allclose(written["score"], expected["score"], rtol=1e-9)
    # candidates restrict the pairs; a request for more pairs than candidates fails in one line, writing nothing
    pd.DataFrame({"a": [0, 2], "b": [1, 3]}).to_csv(tmp_path / "allowed.csv", index=False)
    result = CliRunner().invoke(app, ["rank-suggest", str(path), "--i-column", "home", "--j-column", "away",
                                      "--winner-column", "winner", "--n", "3", "--candidates",
                                      str(tmp_path / "allowed.csv"), "--out", str(tmp_path / "x.csv")])
    assert result.exit_code != 0 and "only 2 candidate pairs" in result.output
    assert not (tmp_path / "x.csv").exists()


def test_random_state_is_refused_where_the_strategy_uses_no_randomness():
    model = BTL(alpha=1.0).fit(Comparisons.from_winners(["a", "a", "b", "c", "c", "d"], ["b", "c", "c", "d", "a", "b"]))
    for strategy in ("information", "uncertainty"):
        with pytest.raises(ParameterError, match=f"suggest_pairs: strategy='{strategy}' uses no randomness"):
            suggest_pairs(model, 1, strategy=strategy, random_state=3)
    assert len(suggest_pairs(model, 2, strategy="random", random_state=3)) == 2


def test_a_candidate_pair_in_both_orders_is_one_candidate():
    model = BTL(alpha=1.0).fit(Comparisons.from_winners(["a", "a", "b", "c", "c", "d"], ["b", "c", "c", "d", "a", "b"]))
    candidates = [["a", "d"], ["d", "a"], ["b", "c"]]
    table = suggest_pairs(model, 2, candidates=candidates)
    assert sorted(map(frozenset, table[["i", "j"]].values.tolist())) == sorted([frozenset("ad"), frozenset("bc")])
    with pytest.raises(InputError, match="only 2 candidate pairs"):
        suggest_pairs(model, 3, candidates=candidates)


@pytest.mark.parametrize("alpha", [1e308, 1e20])
def test_an_alpha_that_would_shrink_every_score_to_nothing_is_refused(alpha):
    data = Comparisons.from_winners(["a", "a", "b", "c", "c", "d"], ["b", "c", "c", "d", "a", "b"])
    with pytest.raises(ParameterError, match=r"BTL: alpha=.* outweighs the data \(total weight 6\)"):
        BTL(alpha=alpha).fit(data)
    with pytest.raises(ParameterError, match="PlackettLuce: alpha=.* outweighs the data"):
        PlackettLuce(alpha=alpha).fit([["a", "b", "c"], ["c", "a", "b"]])
    assert BTL(alpha=1e8).fit(data).scores_.notna().all()  # large, yet within the bound
