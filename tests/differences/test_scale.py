"""The fast paths of RELAX and SPARDA give the exact path's answers: low-rank costs, in-place margins, the prefilter."""

import numpy as np
import pytest

from paucity._errors import ParameterError, PaucityWarning
from paucity.differences import PDA, pair_costs, project_unit_trace_psd, soft_threshold, wasserstein_1d, weighted_scatter
from paucity.differences.divergences import feature_wasserstein
from paucity.differences.projections import low_rank_pair_costs
from paucity.differences.relax import relax


def reference_relax(X, Y, *, lam=0.0, batch_size=None, random_state=None, step_B=0.1, step_dual=3.0, dual_steps=3,
                    warm_start=100, patience=50, max_iter=1000, burn_in=50):
    """RELAX as written before the fast path: full pair costs through B, a fresh indicator at every step."""
    n, d = X.shape
    m = Y.shape[0]
    rng = np.random.default_rng(random_state) if batch_size is not None else None
    B = np.full((d, d), 1.0 / d)
    u, v = np.zeros(n), np.zeros(m)
    squares_u, squares_v = np.full(n, 1e-12), np.full(m, 1e-12)
    best, trace, since_best = (-np.inf, B, 0), [], 0
    rows, columns, scale = slice(None), slice(None), 1.0
    bn, bm = n, m
    for iteration in range(1, max_iter + 1):
        if batch_size is not None:
            bn, bm = min(batch_size, n), min(batch_size, m)
            rows = np.sort(rng.choice(n, size=bn, replace=False))
            columns = np.sort(rng.choice(m, size=bm, replace=False))
            scale = (n / bn) * (m / bm)
        Xb, Yb = X[rows], Y[columns]
        costs = pair_costs(Xb, Yb, B)
        for _ in range(dual_steps + (warm_start if iteration == 1 else 0)):
            active = (costs - u[rows, None] - v[None, columns]) < 0
            grad_u = 1.0 / n - active.sum(axis=1) * (m / bm) / m
            grad_v = 1.0 / m - active.sum(axis=0) * (n / bn) / m
            squares_u[rows] += grad_u**2
            squares_v[columns] += grad_v**2
            u[rows] += step_dual * grad_u / np.sqrt(squares_u[rows])
            v[columns] += step_dual * grad_v / np.sqrt(squares_v[columns])
        slack = np.minimum(0.0, costs - u[rows, None] - v[None, columns])
        value = slack.sum() * scale / m + u[rows].sum() / n + v[columns].sum() / m - lam * np.abs(B).sum()
        if batch_size is not None and trace:
            value = 0.9 * trace[-1] + 0.1 * value
        trace.append(value)
        if iteration <= burn_in and iteration < max_iter:
            pass
        elif value > best[0]:
            best, since_best = (value, B, iteration), 0
        else:
            since_best += 1
            if since_best >= patience:
                break
        active = (costs - u[rows, None] - v[None, columns]) < 0
        mass = float(active.sum())
        if mass == 0:
            continue
        grad_B = weighted_scatter(Xb, Yb, active.astype(np.float64)) / mass
        norm = np.linalg.norm(grad_B)
        step = step_B / np.sqrt(iteration)
        B = project_unit_trace_psd(B + step * grad_B / norm)
        if lam > 0:
            B = soft_threshold(B, lam * step / norm)
    return best[0], best[1], np.asarray(trace), iteration


def two_samples(n=120, m=100, d=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    Y[:, :3] += 0.6
    Y[:, 4] *= 2.0
    centre = np.concatenate([X, Y]).mean(axis=0)
    return X - centre, Y - centre


@pytest.mark.parametrize("lam, batch_size", [(0.0, None), (0.05, None), (0.0, 40)])
def test_relax_follows_the_exact_path(lam, batch_size, monkeypatch):
    import sys

    module = sys.modules["paucity.differences.relax"]

    calls = []
    monkeypatch.setattr(module, "low_rank_pair_costs", lambda *a: calls.append(1) or low_rank_pair_costs(*a))
    X, Y = two_samples(d=40)  # d = 40: B of low rank, so the costs go through its factor
    objective, matrix, trace, n_iter = reference_relax(X, Y, lam=lam, batch_size=batch_size, random_state=3,
                                                       max_iter=300)
    result = relax(X, Y, lam=lam, batch_size=batch_size, random_state=np.random.default_rng(3), max_iter=300)
    assert result.n_iter == n_iter
    np.testing.assert_allclose(result.trace, trace, rtol=0, atol=1e-9)
    assert result.objective == pytest.approx(objective, abs=1e-9)
    np.testing.assert_allclose(result.matrix, matrix, atol=1e-9)
    # without a threshold the factor serves while B's rank is below d/2; with one, only the rank-one start
    if lam > 0:
        assert len(calls) == 1
    else:
        assert len(calls) > 20


def test_low_rank_costs_are_the_costs_of_the_factored_matrix():
    rng = np.random.default_rng(1)
    X, Y, L = rng.normal(size=(9, 7)), rng.normal(size=(5, 7)), rng.normal(size=(7, 2))
    expected = np.array([[(x - y) @ L @ L.T @ (x - y) for y in Y] for x in X])
    np.testing.assert_allclose(low_rank_pair_costs(X, Y, L), expected, atol=1e-10)


def test_feature_wasserstein_is_the_one_dimensional_distance_of_each_column():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(37, 70))
    Y = 2.0 * rng.normal(size=(52, 70)) + 0.3
    expected = [wasserstein_1d(X[:, j], Y[:, j]).value for j in range(70)]
    np.testing.assert_allclose(feature_wasserstein(X, Y, block=16), expected, rtol=1e-12, atol=1e-14)
    assert feature_wasserstein(np.array([[0.0], [1.0]]), np.array([[3.0], [4.0]]))[0] == pytest.approx(9.0)


def planted_problem(n=300, m=280, d=600, n_planted=5, shift=0.5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d))
    planted = np.sort(rng.choice(d, size=n_planted, replace=False))
    Y[:, planted] += shift
    return X, Y, planted


def test_sparda_on_many_features_finds_the_planted_ones_through_the_prefilter():
    X, Y, planted = planted_problem()
    model = PDA(sparsity="l1", n_features=5, max_iter=100, n_restarts=1, random_state=0).fit(X, Y)
    assert len(model.prefiltered_) == 200  # "auto": 200 of the 600 features
    assert np.isin(planted, model.prefiltered_).all()
    assert sorted(model.selected_.tolist()) == planted.tolist()
    assert model.beta_.shape == (600,) and np.isclose(np.linalg.norm(model.beta_), 1.0)
    assert model.divergence_ == pytest.approx(model.tightening_.value)


def test_the_prefilter_changes_nothing_when_it_keeps_every_feature():
    X, Y, _ = planted_problem(n=80, m=70, d=30)
    params = dict(sparsity="l1", n_features=3, max_iter=60, n_restarts=1, random_state=0)
    everything = PDA(prefilter=None, **params).fit(X, Y)
    np.testing.assert_array_equal(everything.prefiltered_, np.arange(30))
    for prefilter in ("auto", 30, 100):  # "auto" keeps all of 30 features; an int >= d keeps all
        same = PDA(prefilter=prefilter, **params).fit(X, Y)
        np.testing.assert_array_equal(same.beta_, everything.beta_)


def test_the_prefilter_keeps_half_by_marginal_divergence_and_half_by_change_of_covariance():
    from paucity.differences.pda import prefilter_features

    X, Y, planted = planted_problem(n=200, m=190, d=30, n_planted=3, shift=2.0)
    rng = np.random.default_rng(5)
    factor = rng.normal(size=(190, 1))
    joint = np.array([20, 21, 22, 23])  # the same N(0, 1) marginals in both samples, a shared factor in Y
    Y[:, joint] = (rng.normal(size=(190, 4)) + factor) / np.sqrt(2.0)
    X[:, 7] = 1.0
    Y[:, 7] = 1.0  # constant: never kept
    varying = np.ones(30, dtype=bool)
    varying[7] = False
    kept = prefilter_features(X, Y, varying, 8)  # 4 by marginal divergence, 4 by change of covariance
    assert len(kept) == 8 and np.isin(planted, kept).all() and np.isin(joint, kept).all()
    with pytest.warns(PaucityWarning, match="constant"):
        model = PDA(sparsity="l1", n_features=2, prefilter=8, max_iter=60, n_restarts=1, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model.prefiltered_, kept)
    assert model.relaxation_.beta.shape == (8,)


def test_sparda_finds_a_change_of_correlation_through_the_prefilter():
    # eight features with N(0, 1) marginals in both samples, sharing a factor in Y: no marginal screen sees them
    rng = np.random.default_rng(1)
    joint = [10, 75, 140, 300, 333, 470, 512, 590]
    X, Y = rng.normal(size=(300, 600)), rng.normal(size=(300, 600))
    Y[:, joint] = (Y[:, joint] + rng.normal(size=(300, 1))) / np.sqrt(2.0)
    model = PDA(sparsity="l1", n_features=8, max_iter=100, n_restarts=1, random_state=0).fit(X, Y)
    assert np.isin(joint, model.prefiltered_).all()
    assert np.isin(model.selected_, joint).sum() >= 5  # 5 of 8 (and 3 noise features) on this draw


def test_a_prefilter_below_n_features_is_refused():
    X, Y, _ = planted_problem(n=40, m=40, d=10)
    with pytest.raises(ParameterError, match="prefilter=2 keeps fewer features than n_features=3"):
        PDA(sparsity="l1", n_features=3, prefilter=2).fit(X, Y)
    with pytest.raises(ParameterError, match="prefilter"):
        PDA(prefilter=0).fit(X, Y)


def unit_dominated(seed=0):
    """Feature 0 differs by one standard deviation; feature 1 is the same noise in both, in units 1,000 times larger."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 3))
    Y = rng.normal(size=(140, 3))
    Y[:, 0] += 1.0
    X[:, 1] *= 1000.0
    Y[:, 1] *= 1000.0
    return X, Y


def test_standardize_fits_the_pooled_standardized_data():
    X, Y = unit_dominated()
    params = dict(sparsity="l1", n_features=1, max_iter=60, n_restarts=1, random_state=0)
    assert PDA(**params).fit(X, Y).selected_.tolist() == [1]  # the widest units win unscaled
    model = PDA(standardize=True, **params).fit(X, Y)
    assert model.selected_.tolist() == [0]
    spread = np.concatenate([X, Y]).std(axis=0)
    np.testing.assert_allclose(model.scale_, spread)
    by_hand = PDA(**params).fit(X / spread, Y / spread)
    np.testing.assert_allclose(model.beta_, by_hand.beta_, atol=1e-12)
    assert model.divergence_ == pytest.approx(by_hand.divergence_)
    np.testing.assert_allclose(model.transform(Y), (Y / spread) @ model.beta_[:, None])
    np.testing.assert_array_equal(PDA(**params).fit(X, Y).scale_, np.ones(3))


def test_analyze_standardizes_the_fit_and_every_permutation():
    from paucity.differences import analyze

    X, Y = unit_dominated()
    result = analyze(X, Y, n_features=1, standardize=True, n_permutations=9, max_iter=60, n_restarts=1,
                     random_state=0)
    assert result.selected.tolist() == [0] and result.to_dict()["standardize"] is True
    spread = np.concatenate([X, Y]).std(axis=0)
    assert result.means_x[1] == pytest.approx(X[:, 1].mean())  # the means stay in the data's units
    same = analyze(X / spread, Y / spread, n_features=1, n_permutations=9, max_iter=60, n_restarts=1, random_state=0)
    assert result.statistic == pytest.approx(same.statistic)
    assert result.pvalue == same.pvalue


def test_auto_settings_differ_for_pda_and_sparda():
    from paucity.differences._duration import block_rows, relax_batch_size

    assert relax_batch_size(300, 300, "auto", sparse=False) == 256  # PDA: blocks beyond 256 × 256 pairs
    assert relax_batch_size(256, 256, "auto", sparse=False) is None
    assert relax_batch_size(300, 300, "auto") is None  # SPARDA: all rows up to 2048 × 2048 pairs
    assert relax_batch_size(3000, 2000, "auto") == 1024
    assert block_rows(5000, 1000, "auto") == (1024, 1000) and block_rows(3000, 500, 77) == (77, 77)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 3)), rng.normal(size=(30, 3))
    assert PDA(patience=1000, n_restarts=0).fit(X, Y).n_iter_ == 100
    assert PDA(sparsity="l1", lam=0.01, patience=1000, n_restarts=0).fit(X, Y).n_iter_ == 300
    assert PDA(max_iter=7, patience=1000, n_restarts=0).fit(X, Y).n_iter_ == 7


def test_pda_with_row_blocks_finds_the_direction_of_the_full_rows():
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(400, 6)), rng.normal(size=(380, 6))
    Y[:, 1] += 0.8 * rng.normal(size=380) + 0.5  # wider and shifted in feature 1
    blocks = PDA(random_state=0, n_restarts=1).fit(X, Y)  # 400 × 380 pairs: blocks of 256 rows
    full = PDA(random_state=0, n_restarts=1, batch_size=None, max_iter=300).fit(X, Y)
    assert int(np.argmax(np.abs(blocks.beta_))) == 1
    np.testing.assert_allclose(blocks.beta_, full.beta_, atol=0.05)  # the tightening stops near, not at, the top
    assert blocks.divergence_ == pytest.approx(full.divergence_, rel=1e-3)


def test_the_duration_estimate_counts_the_prefilter_and_the_row_blocks():
    sparda = PDA(sparsity="l1", n_features=10)
    fast = sparda._estimated_seconds(5000, 5000, 2000)
    slow = sparda.set_params(prefilter=None)._estimated_seconds(5000, 5000, 2000)
    assert fast < 60 < 600 < slow  # the size is not announced as long any more, without the prefilter it is
    # PDA's row blocks of 256 and 100 iterations against SPARDA's full rows and 300 on MADELON's size
    assert PDA()._estimated_seconds(1000, 1000, 500) < PDA(sparsity="l1", lam=0.2)._estimated_seconds(1000, 1000, 500) / 4
