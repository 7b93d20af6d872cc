"""The moment estimates of Algorithm 1 (seed 002, §3).

For a repeat vector r (judgments per attribute), the best linear predictor on
the means of r[a] judgments has squared loss ℓ(r) = E[Y²] − bᵀΣ_r⁺b with
b = E[X̄Y] and Σ_r = Σ + Diag(v/r) on the attributes with r[a] > 0 (Σ: the
external covariance, v: the internal variance). Everything is estimated once
from training objects judged k ≥ 2 times each; the objectives built on the
estimates are in :mod:`paucity.judgments.objective`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._lazy import lazy_names

__all__ = ["Moments", "estimate_moments", "make_psd"]


@dataclass(frozen=True)
class Moments:
    """Training estimates of Algorithm 1, lines 3–5, 7 and 10.

    Attributes
    ----------
    correlation : ndarray of shape (d,)
        b̂ = (1/m) Σᵢ yᵢ x̄ᵢ, features and labels centred.
    internal_variance : ndarray of shape (d,)
        v̂[a] = (1/m) Σᵢ VarEst(xᵢ[a](1), …, xᵢ[a](kᵢₐ)), eq. (2).
    second_moment : ndarray of shape (d, d)
        (1/m) Σᵢ x̄ᵢ x̄ᵢᵀ of the centred means: the estimate of Σ_k.
    inverse_counts : ndarray of shape (d,)
        (1/m) Σᵢ 1/kᵢₐ: 1/k when every object has k judgments of a. The
        internal variance's share of Σ_k is Diag(v̂ ⊙ inverse_counts).
    label_second_moment : float
        (1/m) Σᵢ yᵢ² of the centred labels: the estimate of E[Y²].
    feature_means : ndarray of shape (d,)
    label_mean : float
        What was subtracted (the seed's "free" bias feature, §3.4).
    n_objects : int
    """

    correlation: np.ndarray
    internal_variance: np.ndarray
    second_moment: np.ndarray
    inverse_counts: np.ndarray
    label_second_moment: float
    feature_means: np.ndarray
    label_mean: float
    n_objects: int

    def external_variance(self) -> np.ndarray:
        """σ̂²[a] = max{0, (1/m) Σᵢ x̄ᵢ[a]² − v̂[a]/k} (Algorithm 1, line 7)."""
        return np.maximum(0.0, np.diag(self.second_moment) - self.internal_variance * self.inverse_counts)

    def external_covariance(self, ridge: float = 0.0) -> np.ndarray:
        """Σ̂ = MakePSD((1/m) Σᵢ x̄ᵢx̄ᵢᵀ − Diag(v̂)/k) (Algorithm 1, line 10), plus ``ridge``·I (§3.3).

        ``ridge`` on the diagonal of Σ̂ is ``ridge``·I added to every M_r built
        from it (:func:`~paucity.judgments.objective.repeat_matrix`).
        """
        sigma = make_psd(self.second_moment - np.diag(self.internal_variance * self.inverse_counts))
        if ridge:
            sigma = sigma + ridge * np.eye(sigma.shape[0])
        return sigma


def estimate_moments(means: np.ndarray, variances: np.ndarray, counts: np.ndarray, labels: np.ndarray) -> Moments:
    """Algorithm 1, lines 3–5, on validated arrays.

    Parameters
    ----------
    means : ndarray of shape (m, d)
        x̄ᵢ[a], the mean of object i's judgments of attribute a.
    variances : ndarray of shape (m, d)
        VarEst of those judgments (unbiased, ``ddof = 1``).
    counts : ndarray of shape (m, d)
        kᵢₐ ≥ 2, the number of judgments behind each mean.
    labels : ndarray of shape (m,)

    Returns
    -------
    Moments

    Notes
    -----
    Seed 002, Algorithm 1 and §3.4: features and labels are centred first
    (the free bias feature). The seed assumes the same k for every object;
    with kᵢₐ varying, E[x̄ᵢ[a]²] = σ²[a] + v[a]/kᵢₐ, so v̂[a]/k becomes
    v̂[a]·(1/m)Σᵢ 1/kᵢₐ, which is v̂[a]/k when all are k.

    Examples
    --------
    >>> means = np.array([[1.0], [3.0]]); variances = np.array([[0.5], [1.5]])
    >>> moments = estimate_moments(means, variances, np.full((2, 1), 2), np.array([0.0, 2.0]))
    >>> moments.correlation.tolist(), moments.internal_variance.tolist(), moments.external_variance().tolist()
    ([1.0], [1.0], [0.5])
    """
    m = means.shape[0]
    feature_means = means.mean(axis=0)
    label_mean = float(labels.mean())
    centred = means - feature_means
    y = labels - label_mean
    return Moments(
        correlation=centred.T @ y / m,
        internal_variance=variances.mean(axis=0),
        second_moment=centred.T @ centred / m,
        inverse_counts=(1.0 / counts).mean(axis=0),
        label_second_moment=float(y @ y / m),
        feature_means=feature_means,
        label_mean=label_mean,
        n_objects=m,
    )


def make_psd(matrix: np.ndarray) -> np.ndarray:
    """The positive semidefinite matrix nearest to a symmetric one in Frobenius norm.

    Eigenvalues below zero are set to zero (seed 002, §3.4, after Higham 1988).

    Examples
    --------
    >>> make_psd(np.array([[1.0, 2.0], [2.0, 1.0]])).round(6).tolist()
    [[1.5, 1.5], [1.5, 1.5]]
    """
    symmetric = 0.5 * (matrix + matrix.T)
    values, vectors = np.linalg.eigh(symmetric)
    if values.min() >= 0:
        return symmetric
    return (vectors * np.maximum(values, 0.0)) @ vectors.T


# the objectives moved to paucity.judgments.objective; the old path keeps working for a while
_MOVED = {"scoring_objective", "full_objective"}
__getattr__, __dir__ = lazy_names(
    __name__, dict.fromkeys(_MOVED, ".objective"),
    moved=dict.fromkeys(_MOVED, "is deprecated and will be removed; import it from paucity.judgments (or "
                                "paucity.judgments.objective)."),
)
