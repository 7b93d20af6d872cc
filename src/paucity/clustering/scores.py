"""The active-learning scores of IU-RED and S&T over all pairs (seed 003, eq. 2.6, Algorithms 1 and 2).

By first-order perturbation theory (eq. 2.6), with ∂L̂/∂ŵᵢⱼ = (eᵢ − eⱼ)(eᵢ − eⱼ)ᵀ,

    dv̂₂/dŵᵢⱼ = Σ_{p>2} (v̂₂ᵀ(eᵢ − eⱼ))((eᵢ − eⱼ)ᵀv̂_p) / (λ̂₂ − λ̂_p) · v̂_p
             = (v̂₂(i) − v̂₂(j)) · R(eᵢ − eⱼ),     R = Σ_{p>2} v̂_p v̂_pᵀ / (λ̂₂ − λ̂_p).

IU-RED scores a pair by the change of the entry of v̂₂ nearest zero,
|dv̂₂(k)/dŵᵢⱼ| = |(v̂₂(i) − v̂₂(j))(g(i) − g(j))| with g = R e_k and
k = argmin |v̂₂|. Since (L̂ − λ̂₂I)R = −P, where P projects onto the complement
of v̂₁ and v̂₂, g is the solution of (L̂ − λ̂₂I)g = −Pe_k in that complement:
one linear solve, no other eigenvector. S&T scores a pair by
‖dv̂₂/dŵᵢⱼ‖² = (v̂₂(i) − v̂₂(j))² (eᵢ − eⱼ)ᵀR²(eᵢ − eⱼ), which needs R² whole:
it uses the full eigendecomposition.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._errors import InputError
from ._checks import check_similarities
from . import spectral
from .conjugate import conjugate_gradients
from .spectral import FiedlerVector, dense_spectrum, fiedler_of, laplacian

__all__ = ["iu_red_scores", "shamir_tishby_scores", "IuRedDirection", "iu_red_direction", "pair_scores", "nearest_to_boundary",
           "shamir_tishby_dense"]

#: Relative residual at which the conjugate-gradient solve for g stops.
SOLVE_TOLERANCE = 1e-12
#: Conjugate-gradient iterations at most before the dense solve takes over.
SOLVE_MAX_ITER = 2000


@dataclass(frozen=True)
class IuRedDirection:
    """What IU-RED's score needs besides v̂₂: the uncertain item and g = R e_k.

    Attributes
    ----------
    k_min : int
        argmin_k |v̂₂(k)|, the item nearest the cluster boundary (the lowest
        index among ties up to round-off, :func:`nearest_to_boundary`).
    g : ndarray of shape (n,)
        Σ_{p>2} v̂_p v̂_p(k_min) / (λ̂₂ − λ̂_p).
    """

    k_min: int
    g: np.ndarray


def _undefined(fiedler: FiedlerVector, name: str) -> InputError:
    why = (
        f"the graph of positive similarities has {fiedler.n_components} connected components"
        if fiedler.n_components >= 3
        else f"λ̂₃ − λ̂₂ = {fiedler.third_value - fiedler.value:.3g} is round-off"
    )
    return InputError(
        f"{name}: v̂₂ is not unique for this matrix, so eq. (2.6) is undefined: λ̂₂ is a repeated eigenvalue "
        f"({why}). Measure pairs that join the components (ActiveSpectralClustering does so at random "
        "until v̂₂ is defined)."
    )


def iu_red_scores(W_hat) -> np.ndarray:
    """IU-RED's score of every pair: |dv̂₂(k_min)/dŵᵢⱼ| (seed 003, Algorithm 1, line 2).

    Parameters
    ----------
    W_hat : array-like or scipy.sparse matrix of shape (n, n)
        The current estimate Ŵ: symmetric, non-negative, zeros for unmeasured
        pairs (eq. 2.2). Sparse input stays sparse.

    Returns
    -------
    ndarray of shape (n, n)
        Symmetric, zero diagonal; entry (i, j) is the score of the pair {i, j}
        whether or not it has been measured (the caller masks those).

    Raises
    ------
    InputError
        When λ̂₂ is repeated, so that v̂₂ and eq. (2.6) are undefined (three or
        more components of positive similarities, e.g. Ŵ = I).

    Notes
    -----
    Eq. (2.6) with k_min = argmin_k |v̂₂(k)|, on L̂ = diag(Ŵ1) − Ŵ: the score is
    |(v̂₂(i) − v̂₂(j))(g(i) − g(j))| with g = Σ_{p>2} v̂_p v̂_p(k_min)/(λ̂₂ − λ̂_p),
    found by one conjugate-gradient solve of (L̂ − λ̂₂I)g = −Pe_{k_min} on the
    complement of v̂₁ and v̂₂ (dense eigendecomposition up to 64 items). The
    score does not depend on the sign of v̂₂. Memory: the n × n result.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1, .9, .3, 0], [.9, 1, 0, .1], [.3, 0, 1, .8], [0, .1, .8, 1]])
    >>> np.round(iu_red_scores(W), 3)
    array([[0.   , 0.007, 0.334, 0.364],
           [0.007, 0.   , 0.442, 0.327],
           [0.334, 0.442, 0.   , 0.093],
           [0.364, 0.327, 0.093, 0.   ]])
    """
    W = check_similarities(W_hat, name="W_hat")
    fiedler = fiedler_of(W)
    if not fiedler.defined:
        raise _undefined(fiedler, "iu_red_scores")
    direction = iu_red_direction(W, fiedler)
    return pair_scores(fiedler.vector, direction.g)


def pair_scores(v2: np.ndarray, g: np.ndarray) -> np.ndarray:
    """|(v₂(i) − v₂(j))(g(i) − g(j))| for every pair, as an n × n matrix."""
    return np.abs(np.subtract.outer(v2, v2) * np.subtract.outer(g, g))


def iu_red_direction(W, fiedler: FiedlerVector, *, dense_max: int | None = None) -> IuRedDirection:
    """k_min and g = R e_{k_min} for a validated W whose v̂₂ is defined."""
    v2 = fiedler.vector
    k_min = nearest_to_boundary(v2)
    n = len(v2)
    L = laplacian(W)
    limit = spectral.DENSE_MAX_ITEMS if dense_max is None else dense_max
    if n > limit:
        g = _solve(L, fiedler, k_min)
        if g is not None:
            return IuRedDirection(k_min, g)
    return IuRedDirection(k_min, _dense_g(L, fiedler, k_min))


def nearest_to_boundary(v2: np.ndarray) -> int:
    """k_min = argmin_k |v̂₂(k)|, the lowest index among entries equal to the minimum up to round-off.

    Ties are common (v̂₂ is constant on each component of a graph with two
    components); a relative tolerance of 1e-9 keeps the choice from depending
    on the eigensolver's last digits.
    """
    magnitude = np.abs(v2)
    smallest = magnitude.min()
    return int(np.flatnonzero(magnitude <= smallest * (1 + 1e-9) + 1e-14 * magnitude.max())[0])


def _dense_g(L, fiedler: FiedlerVector, k_min: int) -> np.ndarray:
    degrees = L.diagonal() if sp.issparse(L) else np.diag(L)
    values, vectors = dense_spectrum(L, 2.0 * float(degrees.max()))
    rest, rest_values = vectors[:, 1:], values[1:]  # p > 2 (p = 1, the constant, is deflated)
    return rest @ (rest[k_min] / (fiedler.value - rest_values))


def _solve(L, fiedler: FiedlerVector, k_min: int) -> np.ndarray | None:
    """Preconditioned conjugate gradients for (L − λ₂I)g = −Pe_k on range(P); None when it stalls or runs out."""
    n = L.shape[0]
    Y = np.column_stack([np.full(n, 1.0 / np.sqrt(n)), fiedler.vector])

    def project(x):
        return x - Y @ (Y.T @ x)

    shift = fiedler.value
    degrees = L.diagonal() if sp.issparse(L) else np.diag(L).copy()
    inverse = 1.0 / np.where(degrees > 0, degrees, 1.0)
    rhs = np.zeros(n)
    rhs[k_min] = -1.0
    found = conjugate_gradients(lambda x: L @ x - shift * x, project(rhs), precondition=lambda r: inverse * r,
                                project=project, tolerance=SOLVE_TOLERANCE, max_iter=SOLVE_MAX_ITER)
    return found.solution if found.converged else None


def shamir_tishby_scores(W_hat) -> np.ndarray:
    """S&T's score of every pair: ‖dv̂₂/dŵᵢⱼ‖₂² (seed 003, Algorithm 2, line 2).

    Parameters
    ----------
    W_hat : array-like or scipy.sparse matrix of shape (n, n)
        The current estimate Ŵ: symmetric, non-negative, zeros for unmeasured
        pairs (eq. 2.2).

    Returns
    -------
    ndarray of shape (n, n)
        Symmetric, zero diagonal; entry (i, j) is the score of the pair {i, j}.

    Raises
    ------
    InputError
        When λ̂₂ is repeated, so that v̂₂ and eq. (2.6) are undefined.

    Notes
    -----
    Eq. (2.6) on L̂ = diag(Ŵ1) − Ŵ: ‖dv̂₂/dŵᵢⱼ‖² = (v̂₂(i) − v̂₂(j))²
    Σ_{p>2} (v̂_p(i) − v̂_p(j))²/(λ̂₂ − λ̂_p)², from the full eigendecomposition
    of L̂ (O(n³) time, O(n²) memory: the global change needs every v̂_p).
    Shamir and Tishby's method as the seed gives it (Algorithm 2).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1, .9, .3, 0], [.9, 1, 0, .1], [.3, 0, 1, .8], [0, .1, .8, 1]])
    >>> np.round(shamir_tishby_scores(W), 3)
    array([[0.   , 0.009, 0.316, 0.561],
           [0.009, 0.   , 0.587, 0.314],
           [0.316, 0.587, 0.   , 0.016],
           [0.561, 0.314, 0.016, 0.   ]])
    """
    W = check_similarities(W_hat, name="W_hat")
    fiedler = fiedler_of(W)
    if not fiedler.defined:
        raise _undefined(fiedler, "shamir_tishby_scores")
    return shamir_tishby_from(W, fiedler)


def shamir_tishby_from(W, fiedler: FiedlerVector) -> np.ndarray:
    """:func:`shamir_tishby_scores` for a validated W whose v̂₂ is defined."""
    return shamir_tishby_dense(W, fiedler.n_components)[1]


def shamir_tishby_dense(W, n_components: int) -> tuple[FiedlerVector, np.ndarray | None]:
    """v̂₂ and S&T's scores from one dense eigendecomposition (scores None when v̂₂ is undefined)."""
    L = laplacian(W)
    degrees = L.diagonal() if sp.issparse(L) else np.diag(L)
    scale = 2.0 * float(degrees.max())
    values, vectors = dense_spectrum(L, scale)
    fiedler = spectral.fiedler_result(values[0], vectors[:, 0], values[1], scale, n_components, None)
    if not fiedler.defined:
        return fiedler, None
    v2 = vectors[:, 0]
    scaled = vectors[:, 1:] / (values[0] - values[1:])
    gram = scaled @ scaled.T  # R²
    diagonal = np.diag(gram)
    norms = diagonal[:, None] + diagonal[None, :] - 2.0 * gram
    scores = np.subtract.outer(v2, v2) ** 2 * np.maximum(norms, 0.0)
    np.fill_diagonal(scores, 0.0)
    return fiedler, scores
