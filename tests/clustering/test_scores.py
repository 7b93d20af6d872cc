"""IU-RED and S&T scores (seed 003, eq. 2.6) against a direct evaluation of the sum over p and against
central finite differences of v̂₂."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from paucity._errors import InputError
from paucity.clustering import iu_red_scores, shamir_tishby_scores, spectral
from paucity.clustering.scores import iu_red_direction
from paucity.clustering.spectral import fiedler_of


# -- the reference: eq. (2.6) written out, from a full eigendecomposition -----------------------------------
def laplacian(W):
    W = np.array(W, dtype=float)
    np.fill_diagonal(W, 0.0)
    return np.diag(W.sum(axis=1)) - W


def eigenpairs(W):
    """λ̂ ascending and v̂_p, with v̂₁ = 1/√n and, for a graph of two components, v̂₂ their contrast."""
    values, vectors = np.linalg.eigh(laplacian(W))
    n = len(values)
    null = values < 1e-9
    if null.sum() == 2:  # two components: eigh returns any basis of their null space
        from scipy.sparse.csgraph import connected_components

        _, labels = connected_components(sp.csr_matrix(np.asarray(W) > 0), directed=False)
        inside = labels == labels[0]
        contrast = np.where(inside, 1.0 / inside.sum(), -1.0 / (~inside).sum())
        vectors[:, 0] = 1.0 / np.sqrt(n)
        vectors[:, 1] = contrast / np.linalg.norm(contrast)
        values[:2] = 0.0
    return values, vectors


def derivative_26(W, i, j):
    """dv̂₂/dŵᵢⱼ by eq. (2.6): Σ_{p>2} v̂₂ᵀ[(eᵢ − eⱼ)(eᵢ − eⱼ)ᵀ]v̂_p / (λ̂₂ − λ̂_p) · v̂_p."""
    values, vectors = eigenpairs(W)
    n = len(values)
    e = np.zeros(n)
    e[i], e[j] = 1.0, -1.0
    dL = np.outer(e, e)
    v2 = vectors[:, 1]
    total = np.zeros(n)
    for p in range(2, n):
        total += (v2 @ dL @ vectors[:, p]) / (values[1] - values[p]) * vectors[:, p]
    return total


def argmin_magnitude(v):
    """argmin |v|, the lowest index among ties up to round-off (v̂₂ is constant on a component)."""
    return int(np.flatnonzero(np.abs(v) <= np.abs(v).min() * (1 + 1e-9) + 1e-14)[0])


def direct_scores(W):
    """Both score matrices, pair by pair from eq. (2.6), and k_min."""
    values, vectors = eigenpairs(W)
    k_min = argmin_magnitude(vectors[:, 1])
    n = len(values)
    iu, st = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            d = derivative_26(W, i, j)
            iu[i, j] = iu[j, i] = abs(d[k_min])
            st[i, j] = st[j, i] = d @ d
    return iu, st, k_min


def random_similarities(seed, n, density=0.6):
    """A connected random symmetric matrix with entries in [0, 1], some pairs unmeasured (0), unit diagonal."""
    rng = np.random.default_rng(seed)
    W = rng.random((n, n)) * (rng.random((n, n)) < density)
    W = np.triu(W, 1)
    ring = np.arange(n)
    W[ring[:-1], ring[1:]] = np.maximum(W[ring[:-1], ring[1:]], 0.05)  # a path keeps it connected
    W = W + W.T
    np.fill_diagonal(W, 1.0)
    return W


def aligned_fiedler(W, reference):
    values, vectors = eigenpairs(W)
    v = vectors[:, 1]
    return v if v @ reference >= 0 else -v


# -- against the direct evaluation --------------------------------------------------------------------------
@pytest.mark.parametrize("seed,n", [(0, 5), (1, 7), (2, 10), (3, 12)])
def test_both_scores_equal_the_sum_over_p(seed, n):
    W = random_similarities(seed, n)
    iu, st, _ = direct_scores(W)
    np.testing.assert_allclose(iu_red_scores(W), iu, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(shamir_tishby_scores(W), st, rtol=1e-8, atol=1e-12)


def test_iu_red_by_the_linear_solve_equals_the_sum_over_p(monkeypatch):
    """Above the dense size, v̂₂ comes from LOBPCG and g from one conjugate-gradient solve."""
    W = random_similarities(4, 70, density=0.3)
    iu, st, k_min = direct_scores(W)
    monkeypatch.setattr(spectral, "DENSE_MAX_ITEMS", 10)
    fiedler = fiedler_of(W)
    assert fiedler.block is not None  # the iterative path ran
    assert iu_red_direction(W, fiedler).k_min == k_min
    np.testing.assert_allclose(iu_red_scores(W), iu, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(shamir_tishby_scores(W), st, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("dense_max", [64, 4])
def test_two_components_contrast_and_scores(monkeypatch, dense_max):
    """Two components: λ̂₂ = 0 is simple on the complement of 1 and v̂₂ is the contrast of the components."""
    monkeypatch.setattr(spectral, "DENSE_MAX_ITEMS", dense_max)
    A, B = random_similarities(5, 6), random_similarities(6, 5)
    W = np.zeros((11, 11))
    W[:6, :6], W[6:, 6:] = A, B
    fiedler = fiedler_of(W)
    assert fiedler.defined and fiedler.n_components == 2
    assert abs(fiedler.value) < 1e-10
    contrast = np.r_[np.full(6, 1 / 6), np.full(5, -1 / 5)]
    assert abs(abs(fiedler.vector @ contrast) / np.linalg.norm(contrast) - 1) < 1e-10
    iu, st, _ = direct_scores(W)
    np.testing.assert_allclose(iu_red_scores(W), iu, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(shamir_tishby_scores(W), st, rtol=1e-8, atol=1e-12)


def test_sparse_input_gives_the_dense_answer(monkeypatch):
    W = random_similarities(7, 80, density=0.2)
    monkeypatch.setattr(spectral, "DENSE_MAX_ITEMS", 10)
    np.testing.assert_allclose(iu_red_scores(sp.csr_matrix(W)), iu_red_scores(W), rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(
        shamir_tishby_scores(sp.csr_matrix(W)), shamir_tishby_scores(W), rtol=1e-8, atol=1e-12
    )


# -- against finite differences of v̂₂ ----------------------------------------------------------------------
@pytest.mark.parametrize("seed,n", [(10, 6), (11, 9)])
def test_scores_match_central_differences_of_the_fiedler_vector(seed, n):
    W = random_similarities(seed, n)
    values, vectors = eigenpairs(W)
    v2 = vectors[:, 1]
    k_min = argmin_magnitude(v2)
    iu, st = iu_red_scores(W), shamir_tishby_scores(W)
    h = 1e-6
    for i, j in [(0, 1), (0, n - 1), (1, 3), (2, n - 2)]:
        plus, minus = W.copy(), W.copy()
        plus[i, j] += h
        plus[j, i] += h
        minus[i, j] -= h
        minus[j, i] -= h
        difference = (aligned_fiedler(plus, v2) - aligned_fiedler(minus, v2)) / (2 * h)
        assert iu[i, j] == pytest.approx(abs(difference[k_min]), rel=1e-5, abs=1e-8)
        assert st[i, j] == pytest.approx(difference @ difference, rel=1e-5, abs=1e-8)


def test_scores_do_not_depend_on_the_order_of_items():
    W = random_similarities(12, 8)
    order = np.random.default_rng(0).permutation(8)
    permuted = W[np.ix_(order, order)]
    np.testing.assert_allclose(iu_red_scores(permuted), iu_red_scores(W)[np.ix_(order, order)], atol=1e-12)
    np.testing.assert_allclose(
        shamir_tishby_scores(permuted), shamir_tishby_scores(W)[np.ix_(order, order)], atol=1e-12
    )


def test_scores_are_symmetric_with_a_zero_diagonal():
    W = random_similarities(13, 9)
    for scores in (iu_red_scores(W), shamir_tishby_scores(W)):
        np.testing.assert_array_equal(scores, scores.T)
        assert np.all(np.diag(scores) == 0)
        assert np.all(scores >= 0)


# -- undefined v̂₂ ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("function", [iu_red_scores, shamir_tishby_scores])
def test_the_start_of_algorithm_1_is_refused(function):
    with pytest.raises(InputError, match=r"not unique.*4 connected components"):
        function(np.eye(4))


@pytest.mark.parametrize("function", [iu_red_scores, shamir_tishby_scores])
def test_a_repeated_second_eigenvalue_is_refused(function):
    W = np.ones((5, 5))  # the complete graph: every eigenvalue on the complement of 1 is 5
    with pytest.raises(InputError, match="repeated eigenvalue"):
        function(W)
