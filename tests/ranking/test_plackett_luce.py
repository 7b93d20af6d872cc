"""Plackett–Luce: kernels against NumPy references, estimates against choix 0.4.1's (stored) and a direct minimization."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

from paucity._errors import InputError, InputTypeError, ParameterError
from paucity.ranking import BTL, Choices, Comparisons, PlackettLuce, RankCentrality, Rankings
from paucity.ranking import _plackett_luce_kernels as kernels
from paucity.ranking.plackett_luce import plackett_luce_maximum_likelihood, plackett_luce_spectral

FIXTURES = json.loads((Path(__file__).parents[1] / "fixtures" / "ranking" / "choix_plackett_luce.json").read_text())


# -- NumPy references: every stage written out ----------------------------------------------------
def stages(data):
    """(winner, set) of every choice stage."""
    out = []
    for o in range(data.n_observations):
        members = data.members[data.offsets[o] : data.offsets[o + 1]]
        for t in range(int(data.n_stages[o])):
            out.append((int(members[t]), members[t:].copy()))
    return out


def reference_terms(data, v):
    """Negative log-likelihood, gradient and dense Hessian, stage by stage."""
    n = len(v)
    loss, gradient, hessian = 0.0, np.zeros(n), np.zeros((n, n))
    for winner, chosen_from in stages(data):
        p = np.exp(v[chosen_from]) / np.exp(v[chosen_from]).sum()
        loss += -v[winner] + np.log(np.exp(v[chosen_from]).sum())
        gradient[chosen_from] += p
        gradient[winner] -= 1.0
        hessian[np.ix_(chosen_from, chosen_from)] += np.diag(p) - np.outer(p, p)
    return loss, gradient, hessian


def reference_fit(data, alpha):
    n = data.n_items

    def objective(free):
        v = np.concatenate([[0.0], free]) if alpha == 0 else free
        loss, gradient, _ = reference_terms(data, v)
        loss += 0.5 * alpha * v @ v
        gradient = gradient + alpha * v
        return loss, (gradient[1:] if alpha == 0 else gradient)

    start = np.zeros(n - 1 if alpha == 0 else n)
    result = minimize(objective, start, jac=True, method="BFGS", options={"gtol": 1e-11, "maxiter": 10_000})
    v = np.concatenate([[0.0], result.x]) if alpha == 0 else result.x
    return v - v.mean()


def as_data(kind, n_items, data):
    if kind == "rankings":
        return Rankings(data, items=range(n_items))
    return Choices([w for w, _ in data], [[w, *rest] for w, rest in data], items=range(n_items))


def random_rankings(seed, n=7, m=40, low=2, high=5):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n)
    rows = []
    for _ in range(m):
        shown = rng.choice(n, size=int(rng.integers(low, high + 1)), replace=False)
        rows.append(shown[np.argsort(-(v[shown] + rng.gumbel(size=len(shown))))].tolist())
    rows.append(list(range(n)))  # every item beats and is beaten: the MLE exists
    rows.append(list(range(n))[::-1])
    return Rankings(rows, items=range(n))


# -- kernels ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_kernels_match_the_stage_by_stage_reference(seed):
    data = random_rankings(seed)
    choices = Choices([0, 3, 5], [[0, 1, 2], [3, 6], [5, 0, 6, 2]], items=range(7))
    rng = np.random.default_rng(seed)
    for d in (data, choices):
        members, offsets, n_stages = (np.ascontiguousarray(a) for a in (d.members, d.offsets, d.n_stages))
        v = rng.normal(size=7) * 2
        loss, gradient, hessian = reference_terms(d, v)
        g, diag = np.zeros(7), np.zeros(7)
        weight, inv_total = np.empty(len(members)), np.empty(len(members))
        got = kernels.pl_terms(members, offsets, n_stages, v, g, diag, weight, inv_total)
        assert got == pytest.approx(loss, rel=1e-12)
        assert kernels.pl_loss(members, offsets, n_stages, v) == pytest.approx(loss, rel=1e-12)
        np.testing.assert_allclose(g, gradient, atol=1e-12)
        np.testing.assert_allclose(diag, np.diag(hessian), atol=1e-12)
        x = rng.normal(size=7)
        out = np.zeros(7)
        kernels.pl_hessian_product(members, offsets, weight, inv_total, x, out)
        np.testing.assert_allclose(out, hessian @ x, atol=1e-12)


def test_lsr_rates_are_inverse_set_weights_from_each_loser_to_the_winner():
    r = Rankings([[2, 0, 1]], items=range(3))
    v = np.log(np.array([1.0, 2.0, 4.0]))
    rows, cols, rates = np.empty(3, np.int64), np.empty(3, np.int64), np.empty(3)
    assert kernels.lsr_rates(r.members, r.offsets, r.n_stages, v, rows, cols, rates) == 3
    got = sorted(zip(rows.tolist(), cols.tolist(), np.round(rates, 12).tolist()))
    # stage 1: 2 chosen from {2, 0, 1} (total 7); stage 2: 0 chosen from {0, 1} (total 3)
    assert got == [(0, 2, round(1 / 7, 12)), (1, 0, round(1 / 3, 12)), (1, 2, round(1 / 7, 12))]


# -- estimates -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(FIXTURES["cases"]))
@pytest.mark.parametrize("method", ["newton", "ilsr"])
def test_choix_test_cases_maximum_likelihood(name, method):
    case = FIXTURES["cases"][name]
    data = as_data(case["kind"], case["n_items"], case["data"])
    v = PlackettLuce(method=method).fit(data).scores_.to_numpy()
    np.testing.assert_allclose(v, case["ilsr_choix"], atol=1e-8)
    # choix's repository stores its expected values to 8 digits and, for rankings-2, 3e-5 from choix's own
    # converged I-LSR (see the fixture README)
    np.testing.assert_allclose(v, case["ml_est"], atol=5e-5)


@pytest.mark.parametrize("name", sorted(FIXTURES["cases"]))
def test_choix_test_cases_spectral(name):
    case = FIXTURES["cases"][name]
    data = as_data(case["kind"], case["n_items"], case["data"])
    v = PlackettLuce(method="lsr").fit(data).scores_.to_numpy()
    np.testing.assert_allclose(v, case["lsr_est"], atol=1e-7)
    np.testing.assert_allclose(v, case["lsr_choix"], atol=1e-10)


@pytest.mark.parametrize("kind", ["rankings", "top1"])
def test_random_data_match_choix_ilsr_lsr_and_opt(kind):
    stored = FIXTURES["random"][kind]
    data = as_data(kind, stored["n_items"], stored["data"])
    for method in ("newton", "ilsr"):
        v = PlackettLuce(method=method).fit(data).scores_.to_numpy()
        np.testing.assert_allclose(v, stored[f"ilsr_{kind}"], atol=1e-8)
    v = PlackettLuce(method="lsr").fit(data).scores_.to_numpy()
    np.testing.assert_allclose(v, stored[f"lsr_{kind}"], atol=1e-10)
    # choix's opt_*(alpha=a) penalizes a‖v‖²: PlackettLuce(alpha=2a)
    v = PlackettLuce(alpha=0.2).fit(data).scores_.to_numpy()
    np.testing.assert_allclose(v, stored[f"opt_{kind}_alpha_0.1"], atol=1e-7)


@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_newton_matches_a_direct_minimization_of_the_written_out_likelihood(alpha):
    data = random_rankings(5)
    v = plackett_luce_maximum_likelihood(data, alpha=alpha).log_weights
    np.testing.assert_allclose(v, reference_fit(data, alpha), atol=1e-6)


def test_on_pairs_plackett_luce_is_btl():
    rng = np.random.default_rng(3)
    winners = rng.integers(0, 6, 60)
    losers = (winners + rng.integers(1, 6, 60)) % 6
    ring = np.arange(6)
    winners, losers = np.r_[winners, ring, (ring + 1) % 6], np.r_[losers, (ring + 1) % 6, ring]
    btl = BTL().fit(Comparisons.from_winners(winners, losers)).scores_.to_numpy()
    pl = PlackettLuce().fit(Rankings(np.column_stack([winners, losers]))).scores_.to_numpy()
    np.testing.assert_allclose(pl, btl, atol=1e-8)
    choices = Choices(winners, np.column_stack([winners, losers]))
    np.testing.assert_allclose(PlackettLuce(alpha=1.0).fit(choices).scores_, BTL(alpha=1.0).fit(
        Comparisons.from_winners(winners, losers)).scores_, atol=1e-8)


def test_spectral_iterates_to_the_maximum_likelihood_and_reports_it():
    data = random_rankings(9, n=10, m=80)
    ilsr = plackett_luce_spectral(data, tol=1e-12)
    newton = plackett_luce_maximum_likelihood(data)
    assert ilsr.converged and ilsr.n_iter > 1
    np.testing.assert_allclose(ilsr.log_weights, newton.log_weights, atol=1e-9)
    assert ilsr.log_likelihood == pytest.approx(newton.log_likelihood, rel=1e-12)
    lsr = plackett_luce_spectral(data, iterate=False)
    assert lsr.n_iter == 1 and lsr.log_likelihood < newton.log_likelihood


def test_fitted_views_and_labels():
    r = Rankings([["a", "b", "c"], ["b", "c", "a"], ["a", "c"], ["c", "b"], ["c", "a", "b"]])
    model = PlackettLuce().fit(r)
    assert list(model.items_) == ["a", "b", "c"]
    assert model.converged_ and model.n_iter_ >= 1
    v = model.scores_
    assert model.predict_proba("a", "c") == pytest.approx(1 / (1 + np.exp(v["a"] - v["c"])))
    assert model.log_likelihood_ == pytest.approx(-reference_terms(r, v.to_numpy())[0])
    # a plain list of rankings is read as Rankings
    np.testing.assert_allclose(PlackettLuce().fit([["a", "b", "c"], ["b", "c", "a"], ["a", "c"], ["c", "b"],
                                                   ["c", "a", "b"]]).scores_, v)


def test_errors():
    never_beaten = Rankings([["a", "b", "c"], ["a", "c", "b"]])
    with pytest.raises(InputError, match="item 'a' was never beaten.*alpha"):
        PlackettLuce().fit(never_beaten)
    assert PlackettLuce(alpha=1.0).fit(never_beaten).ranking_[0] == "a"
    with pytest.raises(ParameterError, match="method='ilsr'.*takes no penalty"):
        PlackettLuce(alpha=1.0, method="ilsr").fit(never_beaten)
    with pytest.raises(ParameterError):
        PlackettLuce(method="mm").fit(never_beaten)
    with pytest.raises(InputError, match="y must not be given"):
        PlackettLuce().fit(never_beaten, [1, 0])
    with pytest.raises(InputTypeError, match="Rankings.from_frame"):
        PlackettLuce().fit(never_beaten.to_dataframe())


def test_choix_live_if_installed():
    choix = pytest.importorskip("choix")
    data = random_rankings(11, n=9, m=60)
    rows = [data.members[a:b].tolist() for a, b in zip(data.offsets[:-1], data.offsets[1:])]
    expected = choix.ilsr_rankings(9, rows, tol=1e-12, max_iter=10_000)
    np.testing.assert_allclose(PlackettLuce().fit(data).scores_, expected, atol=1e-8)


def test_rank_centrality_on_the_pairwise_breaking_estimates_the_plackett_luce_weights():
    # weights (1, 2, 4): the six orderings of a, b, c drawn in exactly their Plackett–Luce proportions out of
    # 210 (P(a ≻ b ≻ c) = 1/7 · 2/6 = 10/210, ...), so every pair's win fraction is BTL's with the same
    # weights: RankCentrality's chain on the broken pairs and the Plackett–Luce maximum are both log(1, 2, 4)
    counts = {("a", "b", "c"): 10, ("a", "c", "b"): 20, ("b", "a", "c"): 12, ("b", "c", "a"): 48,
              ("c", "a", "b"): 40, ("c", "b", "a"): 80}
    rankings = Rankings([list(order) for order, k in counts.items() for _ in range(k)])
    expected = np.log([1.0, 2.0, 4.0]) - np.log([1.0, 2.0, 4.0]).mean()
    pairs = rankings.pairwise()
    assert pairs.n_comparisons == 3 * 210
    chain = RankCentrality().fit(pairs)
    np.testing.assert_allclose(chain.scores_.to_numpy(), [1 / 7, 2 / 7, 4 / 7], rtol=0, atol=1e-10)
    np.testing.assert_allclose(chain.log_scores_.to_numpy(), expected, rtol=0, atol=1e-10)
    np.testing.assert_allclose(PlackettLuce().fit(rankings).log_scores_.to_numpy(), expected, rtol=0, atol=1e-8)
