"""The projected objectives of seed 002 (§3) and the matrix M_r they are built on.

For a repeat vector r (judgments per attribute), the best linear predictor on
the means of r[a] judgments explains obj(r) = sub_r(b)ᵀ M_r⁺ sub_r(b) of the
label's variance, with M_r = sub_r(Σ + Diag(v/r)): Σ the external covariance,
v the internal variance, b the correlation of each attribute's mean with the
label, and sub_r keeping the attributes with r[a] > 0. Its squared loss is
E[Y²] − obj(r). These functions evaluate it, and its Scoring form (Σ taken
diagonal), on estimates or on population values alike: the greedy runs
(:mod:`~paucity.judgments.selection`), the regressor's projected loss and
coefficients (:mod:`~paucity.judgments.regressor`) all call them.

Every function takes plain arrays; only :func:`scoring_objective` and
:func:`full_objective` check the repeat vector.
"""

from __future__ import annotations

import numpy as np

from .._errors import ParameterError

__all__ = [
    "check_repeats",
    "full_objective",
    "full_weights",
    "repeat_matrix",
    "scoring_objective",
    "scoring_terms",
    "scoring_weights",
]


def check_repeats(repeats, n_attributes: int) -> np.ndarray:
    """A repeat vector as float64: ``n_attributes`` whole numbers >= 0.

    Examples
    --------
    >>> check_repeats([2, 0, 1], 3).tolist()
    [2.0, 0.0, 1.0]
    """
    repeats = np.asarray(repeats)
    if repeats.shape != (n_attributes,) or (repeats < 0).any():
        raise ParameterError(f"repeats must be {n_attributes} whole numbers >= 0, one per attribute.")
    return repeats.astype(np.float64)


def repeat_matrix(repeats, external_covariance, internal_variance) -> np.ndarray:
    """M_r = sub_r(Σ + Diag(v/r)): the covariance of the means of r[a] judgments of the attributes with r[a] > 0.

    Parameters
    ----------
    repeats : ndarray of shape (d,)
        r, judgments per attribute (>= 0, not checked).
    external_covariance : ndarray of shape (d, d)
        Σ (with any ``ridge`` already on its diagonal: sub_r(Σ + ridge·I) is
        M_r + ridge·I).
    internal_variance : ndarray of shape (d,)
        v.

    Returns
    -------
    ndarray of shape (s, s)
        On the s attributes with r[a] > 0, in the order of ``numpy.flatnonzero(repeats > 0)``.

    Examples
    --------
    >>> repeat_matrix(np.array([2, 0]), np.array([[1.0, 0.5], [0.5, 1.0]]), np.array([1.0, 1.0])).tolist()
    [[1.5]]
    """
    used = np.flatnonzero(repeats > 0)
    return external_covariance[np.ix_(used, used)] + np.diag(internal_variance[used] / repeats[used])


def scoring_terms(repeats, correlation, external_variance, internal_variance) -> np.ndarray:
    """b[a]² / (σ²[a] + v[a]/r[a]) per attribute: its share of the Scoring objective (eq. 1).

    0 where r[a] = 0 and where the denominator is 0 (a 0/0 term counts as 0).

    Examples
    --------
    >>> scoring_terms(np.array([2.0, 0.0]), np.array([1.0, 5.0]), np.array([0.5, 1.0]), np.array([1.0, 1.0])).tolist()
    [1.0, 0.0]
    """
    repeats = np.asarray(repeats, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = external_variance + internal_variance / repeats
        terms = correlation**2 / denominator
    return np.where((repeats > 0) & (denominator > 0), terms, 0.0)


def scoring_objective(repeats, correlation, external_variance, internal_variance) -> float:
    """The Scoring objective obĵₛ(r) = Σ_{a: r[a] > 0} b̂[a]² / (σ̂²[a] + v̂[a]/r[a]) (seed 002, eq. 1).

    The Full objective when the external covariance is diagonal: exact when
    attributes are uncorrelated (§3.1). A 0/0 term counts as 0.

    Examples
    --------
    >>> scoring_objective([2, 0], np.array([1.0, 5.0]), np.array([0.5, 1.0]), np.array([1.0, 1.0]))
    1.0
    """
    repeats = check_repeats(repeats, len(correlation))
    used = repeats > 0
    return float(np.sum(scoring_terms(repeats[used], correlation[used], external_variance[used],
                                      internal_variance[used])))


def full_objective(repeats, correlation, external_covariance, internal_variance) -> float:
    """The Full objective obĵ_f(r) = sub_r(b̂)ᵀ M_r⁺ sub_r(b̂), M_r = sub_r(Σ̂ + Diag(v̂/r)) (Algorithm 1, lines 11–12).

    E[Y²] minus it is the projected squared loss of the best linear predictor
    on the means of r[a] judgments (§3.2). 0 when r = 0.

    Examples
    --------
    >>> sigma = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> round(full_objective([1, 1], np.array([1.0, 1.0]), sigma, np.array([1.0, 1.0])), 6)
    0.8
    """
    repeats = check_repeats(repeats, len(correlation))
    used = np.flatnonzero(repeats > 0)
    if not len(used):
        return 0.0
    b = correlation[used]
    return float(b @ np.linalg.pinv(repeat_matrix(repeats, external_covariance, internal_variance), hermitian=True) @ b)


def full_weights(repeats, correlation, external_covariance, internal_variance) -> np.ndarray:
    """w = M_r⁺ sub_r(b̂) on the attributes with r[a] > 0, 0 elsewhere: the best linear predictor on the means.

    Examples
    --------
    >>> sigma = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> full_weights(np.array([1, 0]), np.array([1.0, 1.0]), sigma, np.array([1.0, 1.0])).tolist()
    [0.5, 0.0]
    """
    repeats = np.asarray(repeats, dtype=np.float64)
    used = np.flatnonzero(repeats > 0)
    weights = np.zeros(len(repeats))
    if len(used):
        block = repeat_matrix(repeats, external_covariance, internal_variance)
        weights[used] = np.linalg.pinv(block, hermitian=True) @ correlation[used]
    return weights


def scoring_weights(repeats, correlation, external_variance, internal_variance) -> np.ndarray:
    """w[a] = b̂[a] / (σ̂²[a] + v̂[a]/r[a]) where r[a] > 0 (and the denominator is not 0), 0 elsewhere.

    The predictor the Scoring objective assumes: :func:`full_weights` with a
    diagonal external covariance.

    Examples
    --------
    >>> scoring_weights(np.array([2, 0]), np.array([1.0, 5.0]), np.array([0.5, 1.0]), np.array([1.0, 1.0])).tolist()
    [1.0, 0.0]
    """
    repeats = np.asarray(repeats, dtype=np.float64)
    used = np.flatnonzero(repeats > 0)
    weights = np.zeros(len(repeats))
    if len(used):
        terms = external_variance[used] + internal_variance[used] / repeats[used]
        weights[used] = np.where(terms > 0, correlation[used] / np.where(terms > 0, terms, 1.0), 0.0)
    return weights
