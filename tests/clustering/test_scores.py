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

from .reference import aligned_fiedler, argmin_magnitude, direct_scores, eigenpairs, random_similarities


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
