"""RankCentrality (seed 000, ch. 3): the chains of (3.3)–(3.5), the three stationary solvers and the estimator.

Every chain is checked against a dense matrix built entry by entry from the
seed's equations, and every stationary distribution against the eigenvector
of that dense matrix found by ``numpy.linalg.eig``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from paucity._errors import InputError, NotFittedError, ParameterError, PaucityWarning, ShapeMismatchError
from paucity.datasets import btl_comparisons, btl_scores
from paucity.ranking import Comparisons, RankCentrality
from paucity.ranking.similarity import (
    agreement_similarity,
    gaussian_similarity,
    precomputed_similarity,
)
from paucity.ranking.stationary import stationary_distribution
from paucity.ranking.transitions import transition_matrix


# -- dense references, entry by entry from the equations ----------------------------------------------
def won_counts(c: Comparisons) -> np.ndarray:
    """C[i, j]: the weight of the comparisons of i and j that j won."""
    n = c.n_items
    C = np.zeros((n, n))
    for a, b, outcome, weight in zip(c.i, c.j, c.y, c.observation_weights):
        winner, loser = (b, a) if outcome == 1 else (a, b)
        C[loser, winner] += weight
    return C


def dense_nos(c: Comparisons) -> np.ndarray:
    """Q̂^NOS of (3.3): P̂ᵢⱼ / d_max off the diagonal."""
    C = won_counts(c)
    n = c.n_items
    P = np.zeros((n, n))
    for a in range(n):
        for b in range(n):
            if a != b and C[a, b] + C[b, a] > 0:
                P[a, b] = C[a, b] / (C[a, b] + C[b, a])
    compared = (C + C.T) > 0
    d_max = compared.sum(axis=1).max()  # out-degree: an edge each way for every compared pair
    return _with_diagonal(P / d_max)


def dense_ra(c: Comparisons) -> np.ndarray:
    """Q̂^RA of (3.4): P̂ᵢⱼ / n off the diagonal."""
    C = won_counts(c)
    total = C + C.T
    P = np.divide(C, total, out=np.zeros_like(C), where=total > 0)
    return _with_diagonal(P / c.n_items)


def dense_sampling(c: Comparisons, mu: np.ndarray | None = None) -> np.ndarray:
    """Q̂ of (3.5): μ_min μᵢⱼ⁻¹ Cᵢⱼ / m off the diagonal."""
    C = won_counts(c)
    n = c.n_items
    m = c.observation_weights.sum()
    Q = np.zeros((n, n))
    if mu is None:
        mu = np.ones((n, n))
    upper = mu[np.triu_indices(n, k=1)]
    mu_min = upper[upper > 0].min()
    for a in range(n):
        for b in range(n):
            if a != b and C[a, b] > 0:
                Q[a, b] = mu_min / mu[min(a, b), max(a, b)] * C[a, b] / m
    return _with_diagonal(Q)


def _with_diagonal(off: np.ndarray) -> np.ndarray:
    Q = off.copy()
    np.fill_diagonal(Q, 0.0)
    np.fill_diagonal(Q, 1.0 - Q.sum(axis=1))
    return Q


DENSE = {"nos": dense_nos, "ra": dense_ra, "sampling": dense_sampling}


def dense_stationary(M: np.ndarray) -> np.ndarray:
    """The left eigenvector of M for the eigenvalue 1, summing to 1."""
    values, vectors = np.linalg.eig(M.T)
    k = int(np.argmin(np.abs(values - 1.0)))
    assert abs(values[k] - 1.0) < 1e-9
    others = np.delete(values, k)
    assert np.all(np.abs(others - 1.0) > 1e-8), "the reference needs a unique stationary distribution"
    vector = np.real(vectors[:, k])
    return vector / vector.sum()


def dense_regularized(Q: np.ndarray, lam: float, D: np.ndarray | None = None) -> np.ndarray:
    """Q̂ D_λ D′ with D_λ = (1 − λ) I + (λ/n) 11ᵀ (Algorithm 7 and §3.5)."""
    n = len(Q)
    D_lambda = (1.0 - lam) * np.eye(n) + lam / n * np.ones((n, n))
    M = Q @ D_lambda
    return M if D is None else M @ D


# -- problems -----------------------------------------------------------------------------------
def random_comparisons(seed: int, n: int = 7, m: int = 40, weighted: bool = False, strongly_connected: bool = True):
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    y = rng.integers(0, 2, m)
    if strongly_connected:  # a cycle of wins through every item, and one back the other way
        ring = np.arange(n)
        i = np.concatenate([i, ring, [0]])
        j = np.concatenate([j, (ring + 1) % n, [n - 1]])
        y = np.concatenate([y, np.ones(n, dtype=np.int64), [1]])
    weights = rng.choice([0.5, 1.0, 2.0, 3.0], size=len(i)) if weighted else None
    return Comparisons(i, j, y, weights=weights, items=range(n))


def chain_is_irreducible(Q: np.ndarray) -> bool:
    reach = (Q > 0).astype(int) + np.eye(len(Q), dtype=int)
    for _ in range(len(Q)):
        reach = ((reach @ reach) > 0).astype(int)
    return bool(reach.all())


# -- transitions (3.3), (3.4), (3.5) --------------------------------------------------------------
@pytest.mark.parametrize("kind", ["nos", "ra", "sampling"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_transition_matches_the_dense_equation(kind, seed):
    c = random_comparisons(seed, weighted=seed % 2 == 1, strongly_connected=seed != 3)
    t = transition_matrix(c, kind)
    Q = DENSE[kind](c)
    np.testing.assert_allclose(t.toarray(), Q, atol=1e-15)
    np.testing.assert_allclose(t.toarray().sum(axis=1), 1.0, atol=1e-14)  # row-stochastic
    assert (np.diag(t.toarray()) >= 0).all() and (t.toarray() >= 0).all()
    assert t.kind == kind and t.n_items == c.n_items
    assert (t.rates.diagonal() == 0).all()
    np.testing.assert_allclose(t.rates_transposed.toarray(), t.rates.toarray().T)
    np.testing.assert_allclose(t.out_rates, t.rates.toarray().sum(axis=1))
    assert (t.out_rates <= t.scale + 1e-12).all()
    x = np.random.default_rng(seed).normal(size=c.n_items)
    np.testing.assert_allclose(t.left_multiply(x), x @ Q, atol=1e-13)
    np.testing.assert_allclose(t.right_multiply(x), Q @ x, atol=1e-13)


def test_transition_scales():
    c = Comparisons.from_winners(["a", "a", "b", "c"], ["b", "c", "a", "a"], items=["a", "b", "c", "d"])
    assert transition_matrix(c, "nos").scale == 2.0  # a was compared with two items
    assert transition_matrix(c, "ra").scale == 4.0
    assert transition_matrix(c, "sampling").scale == 4.0
    weighted = Comparisons.from_winners(["a", "b"], ["b", "a"], weights=[2.0, 0.5])
    assert transition_matrix(weighted, "sampling").scale == 2.5


def test_weight_two_equals_a_repeated_comparison():
    weighted = Comparisons([0, 1, 2, 0], [1, 2, 0, 2], [1, 1, 1, 0], weights=[2.0, 1.0, 1.0, 1.0])
    repeated = Comparisons([0, 0, 1, 2, 0], [1, 1, 2, 0, 2], [1, 1, 1, 1, 0])
    for kind in ("nos", "ra", "sampling"):
        np.testing.assert_allclose(transition_matrix(weighted, kind).toarray(), transition_matrix(repeated, kind).toarray())
    for regularization in (None, "uniform"):
        a = RankCentrality(regularization=regularization).fit(weighted).scores_
        b = RankCentrality(regularization=regularization).fit(repeated).scores_
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_sampling_transition_with_pair_probabilities(sparse):
    c = random_comparisons(5, n=5, m=30)
    rng = np.random.default_rng(5)
    mu = np.triu(rng.uniform(0.5, 2.0, (5, 5)), k=1)
    mu = mu + mu.T
    mu /= mu[np.triu_indices(5, k=1)].sum()
    given = sp.csr_matrix(mu) if sparse else mu
    t = transition_matrix(c, "sampling", pair_probabilities=given)
    Q = dense_sampling(c, mu)
    np.testing.assert_allclose(t.toarray(), Q, atol=1e-15)
    assert (np.diag(Q) >= 0).all()
    # uniform probabilities give the plain construction
    uniform = np.full((5, 5), 0.1)
    np.testing.assert_allclose(transition_matrix(c, "sampling", uniform).toarray(), dense_sampling(c), atol=1e-15)


@pytest.mark.parametrize(
    "mu, error, match",
    [
        (np.ones((3, 3)), ShapeMismatchError, r"pair_probabilities has shape \(3, 3\) but there are 4 items"),
        (np.zeros((4, 4)), InputError, "pair_probabilities has no positive entry above the diagonal"),
        (np.triu(np.ones((4, 4)), 1) - np.triu(np.eye(4, k=3)) * 2, InputError, "must be finite and non-negative"),
        (np.where(np.eye(4, k=2) > 0, np.nan, 1.0), InputError, "must be finite and non-negative"),
        (np.where(np.eye(4, k=1) > 0, np.nan, 1.0), InputError, "must be finite and non-negative"),
        (sp.csr_matrix(np.where(np.eye(4, k=1) > 0, np.nan, 1.0)), InputError, "must be finite and non-negative"),
        (np.where(np.eye(4, k=1) > 0, 0.0, 1.0), InputError, r"pair \(0, 1\) was compared but its probability .* is zero"),
        (sp.csr_matrix(np.where(np.eye(4, k=1) > 0, 0.0, 1.0)), InputError, r"pair \(0, 1\) was compared"),
        (sp.csr_matrix(np.ones((2, 2))), ShapeMismatchError, "pair_probabilities has shape"),
    ],
)
def test_pair_probability_errors(mu, error, match):
    c = Comparisons([0, 1, 2], [1, 2, 3], [1, 1, 0])
    with pytest.raises(error, match=match):
        transition_matrix(c, "sampling", pair_probabilities=mu)


def test_unknown_transition():
    c = Comparisons([0], [1], [1])
    with pytest.raises(ParameterError, match="transition_matrix: kind must be one of 'nos', 'ra', 'sampling', got 'bogus'"):
        transition_matrix(c, "bogus")


# -- stationary distributions against numpy.linalg.eig ------------------------------------------------
def similarity_for(kind: str, n: int, seed: int):
    rng = np.random.default_rng(100 + seed)
    if kind == "gaussian":
        X = rng.normal(size=(n, 2))
        return gaussian_similarity(X, sigma=1.0), X
    if kind == "agreement":
        X = rng.integers(0, 2, (n, 3))
        return agreement_similarity(X, tau=3.0 * n + 1.0), X
    S = rng.uniform(0, 1, (n, n)) * (rng.uniform(size=(n, n)) < 0.5)
    return precomputed_similarity(S), S


@pytest.mark.parametrize("kind", ["nos", "ra", "sampling"])
@pytest.mark.parametrize("regularization", ["none", "lambda", "gaussian", "agreement", "precomputed"])
def test_solvers_find_the_dense_eigenvector(kind, regularization):
    for seed in (0, 1):
        c = random_comparisons(seed, n=6, m=25, weighted=seed == 1, strongly_connected=regularization == "none")
        t = transition_matrix(c, kind)
        Q = DENSE[kind](c)
        lam = 0.0 if regularization == "none" else 0.15
        similarity = None if regularization in ("none", "lambda") else similarity_for(regularization, 6, seed)[0]
        M = dense_regularized(Q, lam, None if similarity is None else similarity.toarray())
        np.testing.assert_allclose(M.sum(axis=1), 1.0, atol=1e-13)
        if regularization == "none":
            assert chain_is_irreducible(Q)
        expected = dense_stationary(M)
        for solver in ("linear", "power", "arpack"):
            result = stationary_distribution(t, lam=lam, similarity=similarity, solver=solver, tol=1e-13, max_iter=200_000)
            assert result.solver == solver
            assert result.converged, (solver, result.residual)
            assert result.residual <= 1e-13
            assert result.n_iter > 0
            assert result.distribution.sum() == pytest.approx(1.0, abs=1e-14)
            assert (result.distribution >= 0).all()
            np.testing.assert_allclose(result.distribution, expected, atol=1e-10, err_msg=f"{solver}")


def test_stationary_parameter_errors():
    t = transition_matrix(random_comparisons(0, n=4, m=5), "nos")
    for lam in (-0.1, 1.0, 1.5):
        with pytest.raises(ParameterError, match=r"stationary_distribution: lam must be a number in \[0, 1\)"):
            stationary_distribution(t, lam=lam)
    with pytest.raises(ParameterError, match="solver must be one of 'linear', 'power', 'arpack', got 'lu'"):
        stationary_distribution(t, solver="lu")


def test_similarity_matrices_match_their_definitions():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 2))
    A = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2) / 0.7**2)
    np.testing.assert_allclose(gaussian_similarity(X, sigma=0.7).toarray(), A / A.sum(axis=1, keepdims=True), atol=1e-14)
    # with every neighbour kept, the sparse form is the same matrix
    np.testing.assert_allclose(
        gaussian_similarity(X, sigma=0.7, n_neighbors=4).toarray().sum(axis=1), 1.0, atol=1e-14
    )
    Z = rng.integers(0, 3, (5, 4))
    agree = (Z[:, None, :] == Z[None, :, :]).sum(axis=2).astype(float)
    tau = agree.sum(axis=1).max() + 0.5
    D = agree / tau
    np.fill_diagonal(D, 0.0)
    np.fill_diagonal(D, 1.0 - D.sum(axis=1))
    built = agreement_similarity(Z, tau=tau)
    np.testing.assert_allclose(built.toarray(), D, atol=1e-14)
    x = rng.normal(size=5)
    np.testing.assert_allclose(built.left_multiply(x), x @ D, atol=1e-13)
    with pytest.raises(ParameterError, match="tau=.* is too small"):
        agreement_similarity(Z, tau=agree.sum(axis=1).max())
    S = np.array([[0.0, 2.0, 2.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    expected = np.array([[0.0, 0.5, 0.5], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(precomputed_similarity(S).toarray(), expected)
    np.testing.assert_allclose(precomputed_similarity(sp.csr_matrix(S)).toarray(), expected)


# -- the estimator ----------------------------------------------------------------------------------
def test_two_strongly_connected_components_warn_and_give_uniform():
    # {a, b} and {c, d} each compared both ways; c lost to a once: no way back from {a, b} to {c, d}
    c = Comparisons(["a", "a", "c", "c", "c"], ["b", "b", "d", "d", "a"], [0, 1, 0, 1, 1])
    model = RankCentrality()
    with pytest.warns(PaucityWarning, match="comparison graph has 2 strongly connected components"):
        model.fit(c)
    np.testing.assert_array_equal(model.scores_.to_numpy(), np.full(4, 0.25))
    assert model.ergodic_ is False and model.n_components_ == 2
    assert model.residual_ == 0.0 and model.n_iter_ == 0


def test_a_pair_one_side_never_won_is_not_an_edge_back():
    # a beat b, b beat c, a beat c: every pair is compared, but no chain leads back up
    c = Comparisons.from_winners(["a", "b", "a"], ["b", "c", "c"])
    model = RankCentrality()
    with pytest.warns(PaucityWarning, match="has 3 strongly connected components"):
        model.fit(c)
    np.testing.assert_allclose(model.scores_.to_numpy(), np.full(3, 1 / 3))


@pytest.mark.parametrize("transition", ["nos", "ra", "sampling"])
def test_lambda_regularized_never_warns_on_sparse_data(transition):
    c = btl_comparisons(btl_scores(30, random_state=0), 12, random_state=1)  # far from connected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = RankCentrality(transition=transition, regularization="uniform").fit(c)
    assert model.lam_ == pytest.approx(1 / 30)
    assert model.ergodic_ and model.n_components_ == 1
    scores = model.scores_.to_numpy()
    assert scores.sum() == pytest.approx(1.0, abs=1e-12)
    assert scores.std() > 1e-3 * scores.mean()  # not uniform
    # an item never compared keeps exactly 1/n; one that only won gains, one that only lost loses
    only_won = np.setdiff1d(c.winners, c.losers)
    only_lost = np.setdiff1d(c.losers, c.winners)
    never_compared = np.setdiff1d(np.arange(30), np.concatenate([c.i, c.j]))
    assert len(only_won) and len(only_lost) and len(never_compared)
    np.testing.assert_allclose(scores[never_compared], 1 / 30, rtol=1e-10)
    assert scores[only_won].min() > 1 / 30 > scores[only_lost].max()
    # the dense chain Q̂ D_λ agrees
    M = dense_regularized(DENSE[transition](c), 1 / 30)
    np.testing.assert_allclose(scores, dense_stationary(M), atol=1e-10)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"lam": 0.5}, "lam=0.5 has no effect without regularization"),
        ({"regularization": "uniform", "lam": 0.0}, r"lam must be in \(0, 1\) when regularizing"),
        ({"regularization": "uniform", "lam": 1.0}, r"lam must be a number in \[0, 1\) or None, got 1.0"),
        ({"regularization": "uniform", "lam": -0.2}, r"lam must be a number in \[0, 1\) or None, got -0.2"),
        ({"regularization": "uniform", "lam": np.nan}, r"lam must be a number in \[0, 1\)"),
        ({"regularization": "uniform", "lam": True}, r"lam must be a number in \[0, 1\)"),
        ({"regularization": "uniform", "lam": "0.1"}, r"lam must be a number in \[0, 1\)"),
        ({"transition": "nosy"}, "transition must be one of 'nos', 'ra', 'sampling', got 'nosy'"),
        ({"solver": "lu"}, "solver must be one of 'linear', 'power', 'arpack', got 'lu'"),
        ({"regularization": "lasso"}, "regularization must be one of 'uniform', 'similarity' or None, got 'lasso'"),
        ({"regularization": "similarity", "kernel": "cosine"}, "kernel must be one of .* or None, got 'cosine'"),
        ({"regularization": "uniform", "sigma": 0.5}, "sigma=0.5 sets the width of the Gaussian kernel, which only "
         "regularization='similarity' uses, but regularization='uniform'"),
        ({"kernel": "gaussian"}, "kernel='gaussian' sets the similarity matrix D′, .* but regularization=None"),
        ({"tau": 4.0}, "tau=4.0 sets the tightness"),
        ({"n_neighbors": 2}, "n_neighbors=2 sets the neighbours"),
        ({"regularization": "similarity", "kernel": "agreement", "sigma": 0.5}, "sigma=0.5 .* but the kernel is 'agreement'"),
        ({"regularization": "similarity", "tau": 9.0}, "tau=9.0 .* but the kernel is 'gaussian'; .* kernel='agreement'"),
        ({"regularization": "similarity", "kernel": "agreement", "n_neighbors": 2}, "n_neighbors=2 .* kernel is 'agreement'"),
        ({"pair_probabilities": np.ones((3, 3))}, "pair_probabilities is used by transition='sampling'"),
        ({"pair_probabilities": "uniform", "transition": "sampling"}, "pair_probabilities must be an"),
        ({"tol": 0.0}, "tol must be a number > 0"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1 or None"),
    ],
)
def test_parameter_errors(params, match):
    c = Comparisons(["a", "b", "c"], ["b", "c", "a"], [1, 1, 1], features=np.eye(3))
    with pytest.raises(ParameterError, match=match):
        RankCentrality(**params).fit(c)


def test_lam_may_be_zero_or_a_numpy_number():
    c = Comparisons(["a", "b", "c"], ["b", "c", "a"], [1, 1, 1])
    assert RankCentrality(lam=0).fit(c).lam_ == 0.0
    assert RankCentrality(regularization="uniform", lam=np.float32(0.25)).fit(c).lam_ == 0.25


def test_scores_ranking_and_probabilities():
    c = Comparisons.from_winners(["b", "c", "c", "a", "b"], ["a", "b", "a", "b", "c"])
    model = RankCentrality().fit(c)
    pi = model.scores_
    assert list(pi.index) == ["a", "b", "c"] and pi.name == "score"
    assert pi.sum() == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(pi.to_numpy(), [1 / 9, 3 / 9, 5 / 9], atol=1e-12)
    assert list(model.ranking_) == ["c", "b", "a"]
    assert list(model.items_) == ["a", "b", "c"] and model.n_items_ == 3
    assert model.residual_ <= 1e-12
    p = model.predict_proba("a", "c")
    assert isinstance(p, float) and p == pytest.approx(pi["c"] / (pi["a"] + pi["c"]))
    many = model.predict_proba(["a", "b", "c"], ["b", "c", "a"])
    np.testing.assert_allclose(many, [pi[j] / (pi[i] + pi[j]) for i, j in [("a", "b"), ("b", "c"), ("c", "a")]])
    np.testing.assert_allclose(model.predict_proba(["a", "c"], ["c", "a"]).sum(), 1.0)
    assert model.predict([["a", "c"], ["c", "b"]]).tolist() == [1, 0]
    with pytest.raises(InputError, match="names item 'z'"):
        model.predict_proba("a", "z")


def test_ranking_ties_in_item_order():
    c = Comparisons(["p", "q", "r", "s"], ["q", "p", "s", "r"], [1, 1, 1, 1])
    model = RankCentrality(regularization="uniform").fit(c)
    np.testing.assert_allclose(model.scores_.to_numpy(), 0.25, atol=1e-12)
    assert list(model.ranking_) == ["p", "q", "r", "s"]


def test_consistency_with_many_btl_comparisons():
    v = btl_scores(8, low=0.0, high=2.0, random_state=4)
    c = btl_comparisons(v, 60_000, random_state=5)
    for transition in ("nos", "ra", "sampling"):
        model = RankCentrality(transition=transition).fit(c)
        error = np.log(model.scores_.to_numpy()) - v
        assert np.abs(error - error.mean()).max() < 0.06, transition  # log π = v + constant
    # a hundredth of the data estimates less well
    few = RankCentrality().fit(c.subset(np.arange(600)))
    error_few = np.log(few.scores_.to_numpy()) - v
    assert np.abs(error_few - error_few.mean()).max() > np.abs(error - error.mean()).max()


@pytest.mark.parametrize("kernel", ["gaussian", "agreement", "precomputed"])
def test_similarity_regularization_matches_the_dense_chain(kernel):
    n = 8
    c = btl_comparisons(btl_scores(n, random_state=2), 6, random_state=3)
    S, data = similarity_for(kernel, n, 7)
    if kernel == "precomputed":
        c = c.with_features(similarity=data)
        params = {}
    else:
        c = c.with_features(data)
        params = {"sigma": 1.0} if kernel == "gaussian" else {"tau": 3.0 * n + 1.0}
    model = RankCentrality(transition="sampling", regularization="similarity", kernel=kernel, lam=0.1, **params).fit(c)
    M = dense_regularized(dense_sampling(c), 0.1, S.toarray())
    np.testing.assert_allclose(model.scores_.to_numpy(), dense_stationary(M), atol=1e-10)
    assert model.scores_.sum() == pytest.approx(1.0, abs=1e-12)


def test_similarity_defaults():
    c = Comparisons([0, 1], [1, 2], [1, 1], items=range(4))
    S = np.array([[1.0, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    with_matrix = RankCentrality(regularization="similarity").fit(c.with_features(similarity=S))
    explicit = RankCentrality(regularization="similarity", kernel="precomputed").fit(c.with_features(similarity=S))
    np.testing.assert_allclose(with_matrix.scores_, explicit.scores_)
    assert with_matrix.lam_ == 0.25
    X = np.array([[0.0], [0.1], [3.0], [3.1]])
    gaussian = RankCentrality(regularization="similarity").fit(c.with_features(X))
    M = dense_regularized(dense_nos(c), 0.25, gaussian_similarity(X, sigma=1.0).toarray())
    np.testing.assert_allclose(gaussian.scores_.to_numpy(), dense_stationary(M), atol=1e-10)
    # the default tightness is one more than the largest agreement row sum
    Z = np.array([[0, 1], [0, 1], [1, 0], [1, 1]])
    agreement = RankCentrality(regularization="similarity", kernel="agreement").fit(c.with_features(Z))
    row_max = (Z[:, None, :] == Z[None, :, :]).sum(axis=2).sum(axis=1).max()
    M = dense_regularized(dense_nos(c), 0.25, agreement_similarity(Z, tau=row_max + 1.0).toarray())
    np.testing.assert_allclose(agreement.scores_.to_numpy(), dense_stationary(M), atol=1e-10)


def test_similarity_errors():
    c = Comparisons([0, 1], [1, 2], [1, 1], features=np.array([[0, 1], [0, 0], [1, 0]]))
    with pytest.raises(ParameterError, match="tau=2.0 is too small"):
        RankCentrality(regularization="similarity", kernel="agreement", tau=2.0).fit(c)
    with pytest.raises(ParameterError, match="RankCentrality: sigma must be a number > 0 or None, got 0.0"):
        RankCentrality(regularization="similarity", kernel="gaussian", sigma=0.0).fit(c)
    bare = Comparisons([0, 1], [1, 2], [1, 1])
    with pytest.raises(InputError, match="regularization='similarity' needs item features or a similarity matrix"):
        RankCentrality(regularization="similarity").fit(bare)
    with pytest.raises(InputError, match="kernel='precomputed' needs a similarity matrix"):
        RankCentrality(regularization="similarity", kernel="precomputed").fit(c)


def test_power_solver_reports_non_convergence():
    c = random_comparisons(0, n=6, m=30)
    with pytest.warns(PaucityWarning, match="the power solver stopped at residual .* raise max_iter"):
        model = RankCentrality(transition="sampling", solver="power", max_iter=3).fit(c)
    assert model.n_iter_ == 3 and model.residual_ > model.tol


@pytest.mark.parametrize("solver", ["linear", "power", "arpack"])
def test_estimator_solvers_agree(solver):
    c = random_comparisons(4, n=9, m=60)
    model = RankCentrality(solver=solver, max_iter=100_000).fit(c)
    np.testing.assert_allclose(model.scores_.to_numpy(), dense_stationary(dense_nos(c)), atol=1e-10)


@pytest.mark.parametrize("solver", ["linear", "power", "arpack"])
def test_two_items(solver):
    c = Comparisons.from_winners([0, 0, 1], [1, 1, 0])  # 0 beat 1 twice and lost once: π ∝ (2, 1)
    model = RankCentrality(solver=solver).fit(c)
    np.testing.assert_allclose(model.scores_.to_numpy(), [2 / 3, 1 / 3], atol=1e-12)
    assert model.predict_proba(0, 1) == pytest.approx(1 / 3)


def test_sklearn_clone_and_params():
    model = RankCentrality(transition="ra", regularization="uniform", lam=0.2, solver="power", tol=1e-10)
    params = model.get_params()
    assert params["transition"] == "ra" and params["lam"] == 0.2 and params["solver"] == "power"
    assert set(params) == {
        "transition", "regularization", "lam", "pair_probabilities", "kernel", "sigma", "tau", "n_neighbors",
        "solver", "tol", "max_iter",
    }
    copy = clone(model)
    assert copy.get_params() == params and copy is not model
    assert not hasattr(copy, "scores_")
    copy.set_params(lam=0.3)
    assert copy.lam == 0.3 and model.lam == 0.2
    with_mu = clone(RankCentrality(transition="sampling", pair_probabilities=np.full((3, 3), 1 / 3)))
    np.testing.assert_array_equal(with_mu.pair_probabilities, np.full((3, 3), 1 / 3))


def test_fit_on_pairs_equals_fit_on_comparisons():
    c = Comparisons.from_winners(["b", "c", "c", "a", "b", "a"], ["a", "b", "a", "b", "c", "c"])
    X = np.column_stack([c.items[c.i], c.items[c.j]])
    on_pairs = RankCentrality().fit(X, c.y)
    on_comparisons = RankCentrality().fit(c)
    pd.testing.assert_series_equal(on_pairs.scores_, on_comparisons.scores_)
    frame = pd.DataFrame(X, columns=["first", "second"])
    pd.testing.assert_series_equal(RankCentrality().fit(frame, list(c.y)).scores_, on_comparisons.scores_)
    weights = np.array([1.0, 2.0, 1.0, 0.5, 1.0, 1.0])
    weighted = Comparisons(c.items[c.i], c.items[c.j], c.y, weights=weights)
    pd.testing.assert_series_equal(
        RankCentrality().fit(X, c.y, sample_weight=weights).scores_, RankCentrality().fit(weighted).scores_
    )
    with pytest.raises(InputError, match=r"X must have shape \(m, 2\)"):
        RankCentrality().fit(np.ones((3, 3)), [0, 1, 0])
    with pytest.raises(InputError, match="y is needed with X"):
        RankCentrality().fit(X)
    with pytest.raises(InputError, match="y must not be given with a Comparisons object"):
        RankCentrality().fit(c, c.y)


def test_unfitted_model():
    with pytest.raises(NotFittedError, match="not fitted yet"):
        RankCentrality().predict_proba("a", "b")
