"""Spectral bisection with the unnormalized Laplacian (seed 003, §2.3 and eq. 2.2).

The second eigenvector v̂₂ of L̂ = diag(Ŵ1) − Ŵ is found on the complement of
the constant vector (the constraint vᵀ1 = 0 of eq. 2.5): directly by a dense
eigendecomposition for small problems, by a warm-started block eigensolver
(LOBPCG) otherwise.

v̂₂ is defined only when λ̂₂ is a simple eigenvalue. It is not when the graph
of positive similarities has three or more connected components (every vector
constant on each component and orthogonal to 1 has eigenvalue 0), which is
the case at the start of the seed's Algorithm 1 (Ŵ = I, so L̂ = 0), nor when
λ̂₂ is repeated by a symmetry of Ŵ. :class:`FiedlerVector` says which.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._validation import Interval, check_parameter
from ._checks import check_similarities
from .settings import CUTS  # declared with the other settings of the loop

__all__ = ["FiedlerVector", "fiedler_vector", "spectral_bisection", "laplacian", "canonical_sign", "CUTS",
           "sweep_cut", "normalized_vector"]


#: Problems with at most this many items are solved by a dense eigendecomposition.
DENSE_MAX_ITEMS = 64
#: λ̂₃ − λ̂₂ at most this fraction of the spectral scale (twice the largest degree) counts as a repeated λ̂₂.
REPEATED_TOLERANCE = 1e-9
#: Relative residual ‖L̂v − λv‖ / scale at which the iterative eigensolver stops.
EIGEN_TOLERANCE = 1e-11


@dataclass(frozen=True)
class FiedlerVector:
    """The second eigenpair of L̂ = diag(Ŵ1) − Ŵ, and whether it is unique.

    Attributes
    ----------
    value : float
        λ̂₂, the smallest eigenvalue of L̂ on the complement of the constant vector.
    vector : ndarray of shape (n,)
        v̂₂: unit norm, orthogonal to the constant vector, its sign fixed so that
        its entry of largest magnitude is positive (the first such entry on
        ties). When ``defined`` is False it is the tie-break stated in
        :func:`fiedler_vector`.
    third_value : float
        λ̂₃, the next eigenvalue (NaN when not computed: three or more components).
    n_components : int
        Connected components of the graph of positive similarities.
    defined : bool
        True when λ̂₂ is simple (λ̂₃ − λ̂₂ above a round-off tolerance), so that
        v̂₂ and its derivatives (eq. 2.6) are defined.
    block : ndarray of shape (n, b) or None
        The eigenvectors found by the iterative eigensolver (v̂₂, v̂₃, ...), kept
        to warm-start the next solve; None from the dense path.
    """

    value: float
    vector: np.ndarray
    third_value: float
    n_components: int
    defined: bool
    block: np.ndarray | None = None


def laplacian(W):
    """The unnormalized Laplacian L = diag(W1) − W (eq. 2.2); the diagonal of W does not enter.

    Parameters
    ----------
    W : ndarray or scipy.sparse matrix of shape (n, n)
        Symmetric similarities (validated by the caller).

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix
        L, dense for dense W.

    Examples
    --------
    >>> import numpy as np
    >>> laplacian(np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]]))
    array([[ 0.5, -0.5,  0. ],
           [-0.5,  0.7, -0.2],
           [ 0. , -0.2,  0.2]])
    """
    if sp.issparse(W):
        W = sp.csr_matrix(W, dtype=np.float64)
        W = W - sp.diags(W.diagonal())
        return (sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W).tocsr()
    W = np.array(W, dtype=np.float64)
    np.fill_diagonal(W, 0.0)
    L = np.negative(W, where=W != 0, out=np.zeros_like(W))  # no -0.0 where w = 0
    L[np.diag_indices_from(L)] = W.sum(axis=1)
    return L


def canonical_sign(v: np.ndarray) -> np.ndarray:
    """v with its sign fixed: the entry of largest magnitude (the first on ties) is positive.

    Magnitudes within a relative 1e-9 of the largest count as ties, so that two
    computations of the same vector that differ by round-off get the same sign.
    """
    magnitude = np.abs(v)
    k = int(np.argmax(magnitude >= magnitude.max() * (1.0 - 1e-9)))
    return -v if v[k] < 0 else v


def components(W) -> tuple[int, np.ndarray]:
    """Connected components of the graph of positive off-diagonal similarities: (count, label per item)."""
    if sp.issparse(W):
        graph = sp.csr_matrix(W)
        graph.data = (graph.data > 0).astype(np.int8)
        graph.eliminate_zeros()
    else:
        graph = sp.csr_matrix(W > 0)
    return connected_components(graph, directed=False)


def tie_break_vector(labels: np.ndarray) -> np.ndarray:
    """The null-space vector used when v̂₂ is not unique: the largest component against the rest.

    The indicator of the largest component (the one holding the lowest item
    index on ties) divided by its size, minus that of the other items divided
    by theirs, normalized: an eigenvector of eigenvalue 0, orthogonal to 1.
    """
    sizes = np.bincount(labels)
    largest = int(np.argmax(sizes))
    inside = labels == largest
    v = np.where(inside, 1.0 / inside.sum(), -1.0 / (~inside).sum())
    return canonical_sign(v / np.linalg.norm(v))


def fiedler_vector(W, *, start=None) -> FiedlerVector:
    """λ̂₂ and v̂₂ of the unnormalized Laplacian of W, and whether they are unique.

    Parameters
    ----------
    W : array-like or scipy.sparse matrix of shape (n, n)
        Symmetric non-negative similarities, zeros for unmeasured pairs (eq. 2.2).
    start : ndarray of shape (n, b), optional
        Eigenvectors of a nearby matrix (``FiedlerVector.block`` of the previous
        step) to warm-start the iterative eigensolver.

    Returns
    -------
    FiedlerVector

    Notes
    -----
    Seed 003, §2.3–2.4: v̂₂ minimizes vᵀL̂v subject to vᵀv = 1 and vᵀ1 = 0
    (eqs. 2.3–2.5). It is computed on the complement of 1 (v̂₁ = 1/√n is
    deflated exactly), so a graph with two components gets the indicator
    contrast of its components, with λ̂₂ = 0. With three or more components
    λ̂₂ = 0 is repeated and v̂₂ is not unique; ``defined`` is then False and
    ``vector`` is a fixed choice in the null space, the largest component
    against the rest (:func:`tie_break_vector`), which makes the labels of a
    matrix with too few measurements reproducible. Up to 64 items a dense
    eigendecomposition is used; above, LOBPCG with a Jacobi preconditioner,
    falling back to the dense one when it does not converge.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1, .9, .3, 0], [.9, 1, 0, .1], [.3, 0, 1, .8], [0, .1, .8, 1]])
    >>> f = fiedler_vector(W)
    >>> f.defined, round(f.value, 4), np.sign(f.vector).astype(int).tolist()
    (True, 0.3767, [-1, -1, 1, 1])
    >>> fiedler_vector(np.eye(4)).defined  # the start of Algorithm 1: no measurement yet
    False
    """
    W = check_similarities(W, name="W")
    return fiedler_of(W, start=start)


def fiedler_of(W, *, start=None, dense_max: int | None = None) -> FiedlerVector:
    """:func:`fiedler_vector` on a validated matrix (dense ndarray or CSR)."""
    n = W.shape[0]
    n_components, labels = components(W)
    if n_components >= 3:
        return FiedlerVector(0.0, tie_break_vector(labels), float("nan"), n_components, False)
    L = laplacian(W)
    degrees = L.diagonal() if sp.issparse(L) else np.diag(L).copy()
    scale = 2.0 * float(degrees.max())  # an upper bound of λ̂ₙ
    limit = DENSE_MAX_ITEMS if dense_max is None else dense_max
    if n > limit:
        result = _iterative(L, degrees, scale, n_components, start)
        if result is not None:
            return result
    return _dense(L, scale, n_components)


def _dense(L, scale: float, n_components: int) -> FiedlerVector:
    values, vectors = dense_spectrum(L, scale)
    return fiedler_result(values[0], vectors[:, 0], values[1], scale, n_components, None)


def dense_spectrum(L, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of L on the complement of 1, ascending: ``(values[:n-1], vectors[:, :n-1])``.

    L + σ·11ᵀ/n with σ above every eigenvalue of L moves v̂₁ = 1/√n to the end
    of the spectrum without touching the other eigenpairs, so round-off never
    mixes it with a small λ̂₂. LAPACK's divide and conquer (``syevd``) through
    SciPy: NumPy's ``eigh`` calls the same routine, and SciPy's build of it
    took 12 % less time at 500 items.
    """
    from scipy.linalg import eigh

    dense = L.toarray() if sp.issparse(L) else L
    n = dense.shape[0]
    shift = 2.0 * scale + 1.0
    values, vectors = eigh(dense + shift / n, driver="evd", overwrite_a=True, check_finite=False)
    return values[:-1], vectors[:, :-1]


def fiedler_result(value, vector, third, scale, n_components, block) -> FiedlerVector:
    """A :class:`FiedlerVector` from an eigenpair and the next eigenvalue: sign fixed, definedness decided."""
    defined = bool(third - value > REPEATED_TOLERANCE * max(scale, np.finfo(float).tiny))
    vector = vector - vector.mean()  # exact orthogonality to 1 after round-off
    vector = canonical_sign(vector / np.linalg.norm(vector))
    return FiedlerVector(float(value), vector, float(third), n_components, defined, block)


def _iterative(L, degrees, scale, n_components, start) -> FiedlerVector | None:
    """LOBPCG for the two (three) smallest eigenpairs on the complement of 1; None when it fails."""
    from scipy.sparse.linalg import LinearOperator, lobpcg

    n = L.shape[0]
    size = 3
    constant = np.full((n, 1), 1.0 / np.sqrt(n))
    rng = np.random.default_rng(0)
    if start is not None and start.shape == (n, size):
        X = np.array(start, dtype=np.float64)
        X += 1e-8 * rng.standard_normal(X.shape)  # LOBPCG needs a full-rank block
    else:
        X = rng.standard_normal((n, size))
    inverse = 1.0 / np.where(degrees > 0, degrees, 1.0)
    preconditioner = LinearOperator(
        (n, n), matvec=lambda x: inverse * x.ravel(), matmat=lambda x: inverse[:, None] * x, dtype=np.float64
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            values, vectors = lobpcg(
                L, X, M=preconditioner, Y=constant, tol=EIGEN_TOLERANCE * max(scale, 1e-300), maxiter=200,
                largest=False,
            )
        except Exception:  # a breakdown of the block iteration: the dense path decides
            return None
    order = np.argsort(values)
    values, vectors = values[order], vectors[:, order]
    residual = np.linalg.norm(L @ vectors[:, :2] - vectors[:, :2] * values[:2], axis=0)
    gap = values[1] - values[0]
    # the eigenvector's error is about residual / gap: demand it small, or go dense
    if not np.all(np.isfinite(values)) or residual[0] > 1e-9 * max(gap, 1e-300) + 1e-14 * scale:
        return None
    if residual[1] > 1e-6 * scale:
        return None
    return fiedler_result(values[0], vectors[:, 0], values[1], scale, n_components, vectors)


def spectral_bisection(W, n_clusters: int = 2, *, cut: str = "sign") -> np.ndarray:
    """Cluster labels by the sign of v̂₂ (eq. 2.1), recursively for more than two clusters.

    Parameters
    ----------
    W : array-like or scipy.sparse matrix of shape (n, n)
        Symmetric non-negative similarities (zeros where unmeasured).
    n_clusters : int, default=2
        Number of clusters. With more than two, the largest cluster (the one
        with the lowest label on ties) is split next by the v̂₂ of its own
        sub-matrix, until there are ``n_clusters``.
    cut : {"sign", "ratio", "normalized"}, default="sign"
        How a split's two sides are chosen. ``"sign"``: the sign of v̂₂, as
        the seed does (eq. 2.1). ``"ratio"``: the threshold along v̂₂ with
        the smallest RatioCut, cut(A, B)(1/|A| + 1/|B|) (the sign is one of
        the thresholds tried, so the ratio cut is never worse on that
        measure). ``"normalized"``: the second generalized eigenvector of
        L̂v = λDv (the normalized Laplacian's, D the degrees), split at the
        threshold with the smallest normalized cut,
        cut(A, B)(1/vol(A) + 1/vol(B)) (Shi and Malik's rule). Where the
        graph of positive similarities is disconnected, all three split its
        components as ``"sign"`` does.

    Returns
    -------
    ndarray of shape (n,)
        Integer labels 0..n_clusters−1, numbered in order of first appearance
        (item 0 is in cluster 0), so that equal partitions give equal labels.

    Notes
    -----
    Seed 003, eq. (2.1): cᵢ = 2[v₂(i) > 0] − 1, here written 0/1. The seed
    treats two clusters and notes that recursive splitting extends it (§2.6).
    Where v̂₂ is not unique (three or more components of positive
    similarities), the split is the largest component against the rest.
    The sign rule is the seed's; on noisy similarities it can cut off a few
    items (the sign of v̂₂ need not minimize any cut): ``cut="ratio"`` and
    ``cut="normalized"`` are the usual remedies (the guide compares them
    with scikit-learn's SpectralClustering). A sweep costs a sort and one
    pass over the nonzeros of W.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1, .9, .3, 0], [.9, 1, 0, .1], [.3, 0, 1, .8], [0, .1, .8, 1]])
    >>> spectral_bisection(W).tolist()
    [0, 0, 1, 1]
    >>> spectral_bisection(W, cut="ratio").tolist(), spectral_bisection(W, cut="normalized").tolist()
    ([0, 0, 1, 1], [0, 0, 1, 1])
    """
    W = check_similarities(W, name="W")
    n_clusters = check_parameter(n_clusters, "n_clusters", [Interval(numbers.Integral, 2, W.shape[0])],
                                 owner="spectral_bisection",
                                 hint="There must be at least two clusters and no more than items.")
    cut = check_cut(cut, owner="spectral_bisection")
    return recursive_bisection(W, int(n_clusters), cut=cut)[0]


def check_cut(cut, *, owner: str) -> str:
    """``cut`` checked to be one of :data:`CUTS` (a ParameterError naming the value and the choices otherwise)."""
    from .._validation import Options

    cut = check_parameter(cut, "cut", [Options(*CUTS)], owner=owner,
                          hint='Pass cut="sign" (the seed\'s rule), "ratio" or "normalized".')
    return cut.lower()


def _off_diagonal(W) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positive off-diagonal entries of W as (rows, columns, weights), both triangles."""
    if sp.issparse(W):
        coo = sp.coo_matrix(W)
        rows, cols, weights = coo.row, coo.col, coo.data
    else:
        rows, cols = np.nonzero(W)
        weights = W[rows, cols]
    keep = (rows != cols) & (weights > 0)
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64), np.asarray(weights[keep], dtype=np.float64)


def sweep_cut(W, vector: np.ndarray, criterion: str = "ratio") -> np.ndarray:
    """The side of the best threshold along ``vector``: True for the items above it.

    Items are sorted by ``vector``; every threshold between two distinct
    values (relative tolerance 1e-12 of the largest magnitude) is tried, and
    the one with the smallest RatioCut (``"ratio"``: cut(A, B)(1/|A| + 1/|B|))
    or normalized cut (``"normalized"``: cut(A, B)(1/vol(A) + 1/vol(B)))
    wins; the lowest threshold on ties. O(nnz + n log n).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1, .9, .3, 0], [.9, 1, 0, .1], [.3, 0, 1, .8], [0, .1, .8, 1]])
    >>> sweep_cut(W, np.array([-0.6, -0.5, 0.3, 0.7])).tolist()
    [False, False, True, True]
    """
    n = len(vector)
    rows, cols, weights = _off_diagonal(W)
    degrees = np.bincount(rows, weights=weights, minlength=n)
    order = np.argsort(vector, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    before = rank[cols] < rank[rows]
    inside = np.bincount(rank[rows], weights=weights * before, minlength=n)  # weight to the items before, by rank
    cut = np.cumsum(degrees[order] - 2.0 * inside)[:-1]  # cut(first m, rest) for m = 1..n−1
    sizes = np.arange(1, n, dtype=np.float64)
    if criterion == "ratio":
        score = cut * (1.0 / sizes + 1.0 / (n - sizes))
    else:
        volume = np.cumsum(degrees[order])[:-1]
        total = degrees.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            score = cut * (1.0 / volume + 1.0 / (total - volume))
        score = np.where(np.isfinite(score), score, np.inf)
    values = vector[order]
    distinct = values[1:] - values[:-1] > 1e-12 * max(float(np.abs(values).max()), np.finfo(float).tiny)
    score = np.where(distinct, np.maximum(score, 0.0), np.inf)
    if not np.any(np.isfinite(score)):
        return vector > 0
    m = int(np.argmin(score)) + 1
    return rank >= m


def normalized_vector(W, fiedler: FiedlerVector) -> np.ndarray:
    """The second generalized eigenvector of L̂v = λDv (D the degrees) of a connected W: the normalized Laplacian's.

    Dense W: from the symmetric normalized Laplacian D^{-1/2} L̂ D^{-1/2}
    (a dense eigendecomposition). Sparse W: LOBPCG on the pencil (L̂, D),
    warm-started from v̂₂, dense when it does not converge.
    """
    L = laplacian(W)
    degrees = L.diagonal() if sp.issparse(L) else np.diag(L).copy()
    n = len(degrees)
    root = np.sqrt(degrees)
    if sp.issparse(L) and n > DENSE_MAX_ITEMS:
        from scipy.sparse.linalg import lobpcg

        rng = np.random.default_rng(0)
        X = np.column_stack([fiedler.vector, rng.standard_normal((n, 2))])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                values, vectors = lobpcg(L, X, B=sp.diags(degrees), Y=np.ones((n, 1)), tol=1e-10, maxiter=500,
                                         largest=False)
                order = np.argsort(values)
                v = vectors[:, order[0]]
                residual = np.linalg.norm(L @ v - values[order[0]] * degrees * v)
                if np.isfinite(residual) and residual <= 1e-8 * max(degrees.max(), 1e-300) * np.linalg.norm(v):
                    return canonical_sign(v / np.linalg.norm(v))
            except Exception:  # the dense path decides
                pass
    dense = L.toarray() if sp.issparse(L) else L
    scaled = dense / root[:, None] / root[None, :]
    values, vectors = np.linalg.eigh(scaled + (2.0 * 2.0 + 1.0) * np.outer(root, root) / degrees.sum())
    v = vectors[:, 0] / root  # the first eigenvector of the shifted matrix: the constant one moved to the top
    return canonical_sign(v / np.linalg.norm(v))


def split_side(W, fiedler: FiedlerVector, cut: str) -> np.ndarray:
    """The items of one split that go to the new cluster (True), by the rule ``cut`` (see :func:`spectral_bisection`)."""
    if cut == "sign" or fiedler.n_components >= 2:
        return fiedler.vector > 0
    if cut == "ratio":
        return sweep_cut(W, fiedler.vector, "ratio")
    return sweep_cut(W, normalized_vector(W, fiedler), "normalized")


def first_appearance(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0, 1, ... in order of first appearance."""
    if labels.dtype == bool or (len(labels) and labels.min() >= 0 and labels.max() <= 1):  # two labels: no sort
        flip = bool(labels[0])
        return (labels != flip).astype(np.int64) if flip else labels.astype(np.int64)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse.ravel()]


def recursive_bisection(W, n_clusters: int, *, start=None, root: FiedlerVector | None = None, cut: str = "sign"):
    """Labels by recursive bisection of the largest cluster, and each split's (items, FiedlerVector).

    The first split is of all items (``root`` when given, else computed,
    warm-started from ``start``); later ones are of the largest cluster's
    sub-matrix.
    """
    n = W.shape[0]
    labels = np.zeros(n, dtype=np.int64)
    splits = []
    for new_label in range(1, n_clusters):
        sizes = np.bincount(labels, minlength=new_label)
        target = int(np.argmax(sizes))
        items = np.flatnonzero(labels == target)
        if len(items) < 2:  # cannot happen while n_clusters <= n; kept as a guard
            break
        sub = W
        if len(items) == n:
            fiedler = root if root is not None else fiedler_of(W, start=start)
        elif len(items) == 2:
            fiedler = FiedlerVector(0.0, np.array([1.0, -1.0]) / np.sqrt(2.0), float("nan"), 2, True)
        else:
            sub = W[items][:, items]
            sub = sub.tocsr() if sp.issparse(sub) else np.ascontiguousarray(sub)
            fiedler = fiedler_of(sub)
        splits.append((items, fiedler))
        side = fiedler.vector > 0 if cut == "sign" or len(items) == 2 else split_side(sub, fiedler, cut)
        labels[items[side]] = new_label
    return first_appearance(labels), splits
