"""The Gibbs sampler's steps and the whole chain against exact laws (seed 003, eqs. 3.3-3.7).

Tolerances are Monte Carlo ones: an estimate must lie within 4.5 standard errors of the exact value
(standard errors from the exact law for independent draws, from batch means for a chain). With
fixed seeds the tests are deterministic; the bound says how far an honest sampler may stray.
"""

import numpy as np
import pytest
from scipy import stats
from scipy.special import log_ndtr

from paucity.crowd import gibbs
from paucity.crowd.convergence import effective_sample_size
from paucity.crowd.gibbs import factor_conditional, prepare, run_chain, sample_factors, sample_truncated_normal

from .reference import batch_means_se, one_factor_posterior, probit_posterior_on_grid

Z_BOUND = 4.5


@pytest.mark.parametrize("mean", [-40.0, -8.0, -1.0, 0.0, 2.0, 30.0])
def test_truncated_normal_draws_follow_the_truncated_law(mean):
    rng = np.random.default_rng(1)
    draws = sample_truncated_normal(np.full(20000, mean), rng.random(20000))
    assert np.all(draws >= 0) and np.all(np.isfinite(draws))
    law = stats.truncnorm(-mean, np.inf, loc=mean, scale=1.0)
    assert stats.kstest(draws, law.cdf).pvalue > 1e-4
    assert abs(draws.mean() - law.mean()) < Z_BOUND * law.std() / np.sqrt(draws.size)


def test_truncated_normal_is_exact_in_the_far_tail():
    # for mean -40 the draw given u has a closed form only in log space: check one quantile by hand
    u = np.array([0.5])
    draw = sample_truncated_normal(np.array([-40.0]), u)[0]
    # P(T <= draw) = 1 - Phi(-40 - draw... ) in the law N(-40, 1) | T > 0, i.e. Phi(draw - 40) / Phi(-40) - ... = 1 - u
    upper_tail = np.exp(log_ndtr(-(draw + 40.0)) - log_ndtr(-40.0))
    assert upper_tail == pytest.approx(0.5, rel=1e-9)
    assert 0 < draw < 0.1


def _small_problem(rng, n=9, m=4, d=3, per_task=2):
    X = rng.normal(size=(n, d))
    task, labeler = [], []
    for i in range(n):
        for l in rng.choice(m, per_task, replace=False):
            task.append(i)
            labeler.append(l)
    sign = rng.choice([-1.0, 1.0], size=len(task))
    return X, np.array(task), np.array(labeler), sign


def test_factor_conditional_is_eq_3_5_built_label_by_label():
    rng = np.random.default_rng(0)
    X, task, labeler, sign = _small_problem(rng)
    K, d, m, sigma = 3, X.shape[1], 4, 0.7
    Z = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]], dtype=float)
    data = prepare(X, task, labeler, sign, m)
    t = rng.normal(size=data.task.size)
    precision = np.eye(K * d) / sigma**2
    rhs = np.zeros(K * d)
    for j in range(data.task.size):
        Zl = np.kron(Z[data.labeler[j]][:, None], np.eye(d))  # Z_l = z_l kron I, (Kd x d)
        x = X[data.task[j]]
        precision += Zl @ np.outer(x, x) @ Zl.T
        rhs += Zl @ x * t[j]
    mean, cholesky = factor_conditional(data, Z, t, sigma)
    np.testing.assert_allclose(cholesky @ cholesky.T, precision, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mean, np.linalg.solve(precision, rhs), rtol=1e-10, atol=1e-12)


def test_factor_step_draws_from_the_closed_form_conditional():
    # K = 1 and Z fixed: gamma | T is N(Sigma X^T t, Sigma) with Sigma^{-1} = I / sigma^2 + X^T X
    rng = np.random.default_rng(2)
    X, task, labeler, sign = _small_problem(rng, n=12, m=3, d=2)
    data = prepare(X, task, labeler, sign, 3)
    Z = np.ones((3, 1))
    t = rng.normal(size=data.task.size)
    sigma = 1.5
    features = X[data.task]
    covariance = np.linalg.inv(np.eye(2) / sigma**2 + features.T @ features)
    mean = covariance @ features.T @ t
    draws = np.array([sample_factors(data, Z, t, sigma, rng)[0] for _ in range(20000)])
    n = draws.shape[0]
    assert np.all(np.abs(draws.mean(axis=0) - mean) < Z_BOUND * np.sqrt(np.diag(covariance) / n))
    empirical = np.cov(draws.T)
    se = np.sqrt((np.outer(np.diag(covariance), np.diag(covariance)) + covariance**2) / n)
    assert np.all(np.abs(empirical - covariance) < Z_BOUND * se)


def test_whole_chain_matches_the_exact_posterior_with_fixed_factors():
    # K = 1, Z fixed at ones: every labeler's beta is gamma, a 2-D Bayesian probit regression
    rng = np.random.default_rng(3)
    X, task, labeler, _ = _small_problem(rng, n=10, m=2, d=2, per_task=2)
    truth = np.array([1.5, -1.0])
    sign = np.where(X[task] @ truth + rng.normal(size=task.size) > 0, 1.0, -1.0)
    data = prepare(X, task, labeler, sign, 2)
    sigma = 1.0
    grid = np.linspace(-7, 7, 561)
    points, weights = probit_posterior_on_grid(X[data.task], data.sign, sigma, grid)
    exact_mean = weights @ points
    exact_second = (points * weights[:, None]).T @ points
    chain = run_chain(data, researcher=0, n_factors=1, alpha=1.0, sigma=sigma, n_burnin=200, n_samples=12000,
                      thin=1, rng=np.random.default_rng(4), fixed_assignments=np.ones((2, 1)))
    beta = chain.beta
    se_mean = batch_means_se(beta)
    assert np.all(np.abs(beta.mean(axis=0) - exact_mean) < Z_BOUND * se_mean)
    products = np.column_stack([beta[:, 0] ** 2, beta[:, 0] * beta[:, 1], beta[:, 1] ** 2])
    exact_products = np.array([exact_second[0, 0], exact_second[0, 1], exact_second[1, 1]])
    assert np.all(np.abs(products.mean(axis=0) - exact_products) < Z_BOUND * batch_means_se(products))
    # and the bound is tight enough to matter: a prior twice as wide moves the mean by over twice the bound
    _, wide = probit_posterior_on_grid(X[data.task], data.sign, 2 * sigma, grid)
    assert np.abs(wide @ points - exact_mean).max() > 2 * Z_BOUND * se_mean.max()


def test_a_private_factor_on_gold_labels_matches_the_exact_posterior_and_mixes(monkeypatch):
    # the researcher alone holds the one factor and her labels have no noise (separable): beta_r's scale is
    # fixed by the prior only. The private-factor moves (elliptical slice draws and a scale move) must keep the
    # exact law, and mix far faster than the alternation of T and gamma
    rng = np.random.default_rng(11)
    X = rng.normal(size=(40, 2))
    truth = np.array([1.0, -0.7])
    task = np.arange(40)
    sign = np.where(X @ truth > 0, 1.0, -1.0)
    data = prepare(X, task, np.zeros(40, dtype=np.int64), sign, 1)
    sigma = 2.0
    grid = np.linspace(-9, 9, 721)
    points, weights = probit_posterior_on_grid(X, sign, sigma, grid)
    exact_mean = weights @ points
    exact_size = weights @ np.linalg.norm(points, axis=1)

    def run():
        chain = run_chain(data, researcher=0, n_factors=1, alpha=1.0, sigma=sigma, n_burnin=200, n_samples=8000,
                          thin=1, rng=np.random.default_rng(12), fixed_assignments=np.ones((1, 1)))
        return chain.beta

    beta = run()
    se_mean = batch_means_se(beta)
    assert np.all(np.abs(beta.mean(axis=0) - exact_mean) < Z_BOUND * se_mean)
    size = np.linalg.norm(beta, axis=1)
    assert abs(size.mean() - exact_size) < Z_BOUND * batch_means_se(size)
    # the scale is well explored: the chain's spread of |beta_r| is the exact law's within 10 %
    exact_sd = np.sqrt(weights @ np.linalg.norm(points, axis=1) ** 2 - exact_size**2)
    assert size.std() == pytest.approx(exact_sd, rel=0.1)
    # and its effective sample size is far above the plain sampler's on the same labels
    moved = effective_sample_size(size[None])
    monkeypatch.setattr(gibbs, "private_factor_moves", lambda data, gamma, *args, **kwargs: gamma)
    plain = effective_sample_size(np.linalg.norm(run(), axis=1)[None])
    assert moved > 10 * plain


def test_the_private_moves_stay_put_where_the_likelihood_is_not_a_number():
    # no slice can be found around a point whose likelihood is NaN: the moves stop and leave it, not loop forever
    rng = np.random.default_rng(0)
    features, sign = rng.normal(size=(5, 2)), np.ones(5)
    gamma_b = np.array([0.5, -0.2])
    rest = np.full(5, np.nan)
    np.testing.assert_array_equal(gibbs._elliptical_draw(gamma_b, rest, features, sign, 1.0, rng), gamma_b)
    assert gibbs._scale_draw(lambda u: float("nan"), rng) == 0.0


def _one_feature_crowd(x, by_labeler):
    """LabelData of labels given per labeler as (task, sign) pairs, on one feature x."""
    task = np.array([i for labels in by_labeler for i, _ in labels])
    labeler = np.array([l for l, labels in enumerate(by_labeler) for _ in labels])
    sign = np.array([s for labels in by_labeler for _, s in labels])
    return prepare(x[:, None], task, labeler, sign, len(by_labeler))


def test_whole_chain_with_sampled_assignments_matches_enumeration():
    # K = 1, d = 1, three labelers with Z sampled: enumerate z in {0,1}^3 and integrate gamma on a grid
    rng = np.random.default_rng(5)
    x = rng.normal(size=8) + np.sign(rng.normal(size=8))
    by_labeler = [
        [(i, 1.0 if x[i] > 0 else -1.0) for i in range(4)],  # the researcher: sign of x
        [(i, 1.0 if x[i] > 0 else -1.0) for i in range(2, 8)],  # agrees with her
        [(i, -1.0 if x[i] > 0 else 1.0) for i in range(0, 6)],  # says the opposite
    ]
    data = _one_feature_crowd(x, by_labeler)
    alpha, sigma = 1.0, 1.0
    z_exact, beta_exact, second_exact = one_factor_posterior(x, by_labeler, 0, alpha, sigma,
                                                             np.linspace(-9, 9, 3601))
    chain_beta, chain_z = [], []
    state = None
    generator = np.random.default_rng(6)
    for _ in range(40):  # record Z draw by draw through short continued runs
        out = run_chain(data, researcher=0, n_factors=1, alpha=alpha, sigma=sigma, n_burnin=0 if state else 200,
                        n_samples=400, thin=1, rng=generator, state=state)
        state = out.state
        chain_beta.append(out.beta[:, 0])
        chain_z.append(out.assignment_mean[:, 0])
    beta = np.concatenate(chain_beta)
    assert abs(beta.mean() - beta_exact) < Z_BOUND * batch_means_se(beta)
    assert abs((beta**2).mean() - second_exact) < Z_BOUND * batch_means_se(beta**2)
    z_means = np.array(chain_z)  # 40 batch means of 400 draws each
    z_se = z_means.std(axis=0, ddof=1) / np.sqrt(len(z_means))
    assert np.all(np.abs(z_means.mean(axis=0) - z_exact) < Z_BOUND * z_se + 1e-3)
    # the opposite labeler rarely shares the researcher's factor
    assert z_exact[2] < 0.5 < z_exact[1]


def test_chain_keeps_every_thin_th_draw_and_continues():
    rng = np.random.default_rng(7)
    X, task, labeler, sign = _small_problem(rng)
    data = prepare(X, task, labeler, sign, 4)
    chain = run_chain(data, researcher=1, n_factors=2, alpha=1.0, sigma=1.0, n_burnin=5, n_samples=23, thin=4,
                      rng=np.random.default_rng(0))
    assert chain.beta.shape == (5, 3)  # 23 // 4 draws kept
    assert set(np.unique(chain.state.Z)) <= {0.0, 1.0}
    whole = run_chain(data, researcher=1, n_factors=2, alpha=1.0, sigma=1.0, n_burnin=5, n_samples=24, thin=4,
                      rng=np.random.default_rng(0))
    np.testing.assert_allclose(whole.state.Z[1] @ whole.state.gamma, whole.beta[-1])  # the last sweep is kept
    again = run_chain(data, researcher=1, n_factors=2, alpha=1.0, sigma=1.0, n_burnin=5, n_samples=23, thin=4,
                      rng=np.random.default_rng(0))
    np.testing.assert_array_equal(chain.beta, again.beta)


def test_initial_state_fixed_assignments_are_kept():
    rng = np.random.default_rng(8)
    X, task, labeler, sign = _small_problem(rng)
    data = prepare(X, task, labeler, sign, 4)
    fixed = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    chain = run_chain(data, researcher=0, n_factors=2, alpha=1.0, sigma=1.0, n_burnin=3, n_samples=10, thin=1,
                      rng=rng, fixed_assignments=fixed)
    np.testing.assert_array_equal(chain.state.Z, fixed)
    np.testing.assert_array_equal(chain.assignment_mean, fixed)
    assert gibbs.LabelData is type(data)


def test_whole_chain_with_two_factors_and_nesting_moves_matches_enumeration():
    # K = 2, d = 1: every step of the sweep acts (entries, the researcher's row, the nesting moves, her private
    # factor); enumerate Z in {0,1}^(3 x 2) and integrate gamma on a grid
    from .reference import two_factor_posterior

    rng = np.random.default_rng(11)
    x = rng.normal(size=10) + np.sign(rng.normal(size=10))
    by_labeler = [
        [(i, 1.0 if x[i] > 0 else -1.0) for i in range(4)],  # the researcher: sign of x
        [(i, 1.0 if x[i] + 0.5 * rng.normal() > 0 else -1.0) for i in range(2, 10)],  # mostly agrees with her
        [(i, -1.0 if x[i] > 0 else 1.0) for i in range(0, 6)],  # says the opposite
    ]
    data = _one_feature_crowd(x, by_labeler)
    alpha, sigma = 1.0, 1.0
    first, second, held, shared = two_factor_posterior(x, by_labeler, alpha, sigma, np.linspace(-8, 8, 321))
    pairs = np.triu_indices(3, 1)
    moves = []
    original = gibbs.nesting_moves

    def counted(*args):
        moves.append(original(*args))
        return moves[-1]

    weights, squares, holdings, sharing = [], [], [], []
    state = None
    generator = np.random.default_rng(12)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gibbs, "nesting_moves", counted)
        for _ in range(40):  # batch means of continued runs
            out = run_chain(data, researcher=0, n_factors=2, alpha=alpha, sigma=sigma, n_burnin=0 if state else 200,
                            n_samples=500, thin=1, rng=generator, state=state, n_trace=500)
            state = out.state
            weights.append(out.weight_mean[:, 0])
            holdings.append(out.assignment_mean.sum(axis=1))
            squares.append((out.beta[:, 0] ** 2).mean())
            sharing.append(np.einsum("slb,skb->lk", out.trace_assignments[1:], out.trace_assignments[1:])[pairs]
                           / (out.trace_assignments.shape[0] - 1))
    assert sum(moves) > 1000  # the moves act
    for estimates, exact in ((np.array(weights), first), (np.array(holdings), held),
                             (np.array(squares)[:, None], second[:1]), (np.array(sharing), shared[pairs])):
        se = estimates.std(axis=0, ddof=1) / np.sqrt(len(estimates))
        assert np.all(np.abs(estimates.mean(axis=0) - exact) < Z_BOUND * se + 1e-3), (estimates.mean(axis=0), exact)
