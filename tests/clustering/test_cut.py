"""The final cut of a split (cut="sign" | "ratio" | "normalized") against brute force and scipy's generalized eigh."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp

from paucity._errors import ParameterError
from paucity.clustering import ActiveSpectralClustering, MatrixOracle, spectral_bisection
from paucity.clustering.spectral import fiedler_of, normalized_vector, sweep_cut


def _blobs(sizes=(60, 40), seed=0, separation=2.0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (sizes[0], 2)), rng.normal(0, 1, (sizes[1], 2)) + [separation, 0.0]]
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)


def _brute(W, vector, criterion):
    """Every threshold between distinct values, scored from the definition; the lowest best one."""
    W = W - np.diag(np.diag(W))
    order = np.argsort(vector, kind="stable")
    best, side = np.inf, None
    for m in range(1, len(vector)):
        if not vector[order[m]] > vector[order[m - 1]]:
            continue
        A = np.zeros(len(vector), dtype=bool)
        A[order[:m]] = True
        cut = W[A][:, ~A].sum()
        if criterion == "ratio":
            score = cut * (1 / A.sum() + 1 / (~A).sum())
        else:
            degrees = W.sum(1)
            score = cut * (1 / degrees[A].sum() + 1 / degrees[~A].sum())
        if score < best - 1e-12 * abs(best if np.isfinite(best) else 1):
            best, side = score, ~A
    return side


@pytest.mark.parametrize("criterion", ["ratio", "normalized"])
@pytest.mark.parametrize("seed", range(4))
def test_sweep_cut_is_the_best_threshold_by_brute_force(criterion, seed):
    W = _blobs(seed=seed)
    vector = fiedler_of(W).vector
    np.testing.assert_array_equal(sweep_cut(W, vector, criterion), _brute(W, vector, criterion))
    np.testing.assert_array_equal(sweep_cut(sp.csr_matrix(W), vector, criterion), _brute(W, vector, criterion))


def test_normalized_vector_is_the_generalized_eigenvector():
    W = _blobs(seed=1)
    L = np.diag(W.sum(1) - np.diag(W)) - (W - np.diag(np.diag(W)))
    values, vectors = scipy.linalg.eigh(L, np.diag(np.diag(L)))
    expected = vectors[:, 1] / np.linalg.norm(vectors[:, 1])
    found = normalized_vector(W, fiedler_of(W))
    assert abs(found @ expected) == pytest.approx(1.0, abs=1e-9)
    sparse = normalized_vector(sp.csr_matrix(W), fiedler_of(sp.csr_matrix(W)))
    assert abs(sparse @ expected) == pytest.approx(1.0, abs=1e-6)


def test_ratio_never_has_a_larger_ratio_cut_than_the_sign():
    for seed in range(5):
        W = _blobs(seed=seed)
        off = W - np.diag(np.diag(W))

        def ratio(labels):
            A = labels == labels[0]
            return off[A][:, ~A].sum() * (1 / A.sum() + 1 / (~A).sum())

        assert ratio(spectral_bisection(W, cut="ratio")) <= ratio(spectral_bisection(W)) + 1e-12


def test_disconnected_graphs_split_by_components_whatever_the_cut():
    W = np.eye(6)
    W[0, 1] = W[1, 0] = W[2, 3] = W[3, 2] = 0.5
    for cut in ("sign", "ratio", "normalized"):
        assert spectral_bisection(W, cut=cut).tolist() == spectral_bisection(W).tolist()


@pytest.mark.parametrize("bad", ["ratios", "kmeans", 2, None])
def test_bad_cut_is_refused_naming_the_parameter(bad):
    with pytest.raises(ParameterError, match="cut"):
        spectral_bisection(_blobs(), cut=bad)
    with pytest.raises(ParameterError, match="cut"):
        ActiveSpectralClustering(cut=bad, budget=10).fit(MatrixOracle(_blobs()))


@pytest.mark.parametrize("cut", ["ratio", "normalized"])
def test_the_estimator_labels_its_final_estimate_by_the_cut(cut):
    W = _blobs(sizes=(30, 20), seed=2)
    model = ActiveSpectralClustering(budget=0.3, batch_size=10, cut=cut, random_state=0).fit(MatrixOracle(W))
    W_hat = model.estimates_.matrix()
    np.testing.assert_array_equal(model.labels_, spectral_bisection(W_hat, cut=cut))
