"""Numba kernels of the active loop (no validation; contiguous arrays in, results out).

Each has a NumPy reference in ``tests/clustering/test_kernels.py``. They scan
the n(n−1)/2 pairs once, without building n × n temporaries: a pair is a
candidate when it has been measured and asked fewer than ``repeats`` times.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _offer(score, index, best_score, best_index, filled):  # pragma: no cover - compiled
    """Insert (score, index) into the top list kept sorted by score descending, index ascending."""
    k = len(best_score)
    if filled == k and not score > best_score[k - 1]:
        return filled  # ties keep the lower index, seen first
    position = filled if filled < k else k - 1
    while position > 0 and score > best_score[position - 1]:
        if position < k:
            best_score[position] = best_score[position - 1]
            best_index[position] = best_index[position - 1]
        position -= 1
    best_score[position] = score
    best_index[position] = index
    return min(filled + 1, k)


@numba.njit(cache=True)
def _sigma(count, prior, population_sd):  # pragma: no cover - compiled
    return prior if count == 0 else population_sd / np.sqrt(count)


@numba.njit(cache=True)
def top_pairs_from_vectors(v, g, counts, asked, repeats, use_sigma, prior, population_sd, best_score, best_index):
    """The best candidate pairs by |(v_i − v_j)(g_i − g_j)| (times σ̂ᵢⱼ with ``use_sigma``), positive scores only.

    Fills ``best_score``/``best_index`` (flat index i·n + j, i < j), best
    first, lowest index first on ties; returns how many were found.
    """  # pragma: no cover - compiled
    n = len(v)
    filled = 0
    for i in range(n):
        for j in range(i + 1, n):
            count = counts[i, j]
            if count + asked[i, j] >= repeats:
                continue
            score = abs((v[i] - v[j]) * (g[i] - g[j]))
            if use_sigma:
                score *= _sigma(count, prior, population_sd)
            if score > 0.0:
                filled = _offer(score, i * n + j, best_score, best_index, filled)
    return filled


@numba.njit(cache=True)
def top_pairs_from_matrix(scores, counts, asked, repeats, use_sigma, prior, population_sd, best_score, best_index):
    """As :func:`top_pairs_from_vectors`, the scores read from an n × n matrix (upper triangle)."""  # pragma: no cover
    n = scores.shape[0]
    filled = 0
    for i in range(n):
        for j in range(i + 1, n):
            count = counts[i, j]
            if count + asked[i, j] >= repeats:
                continue
            score = scores[i, j]
            if use_sigma:
                score *= _sigma(count, prior, population_sd)
            if score > 0.0:
                filled = _offer(score, i * n + j, best_score, best_index, filled)
    return filled


@numba.njit(cache=True)
def count_candidates(counts, asked, repeats, labels, joining):  # pragma: no cover - compiled
    """The number of candidate pairs (joining two labels only, with ``joining``)."""
    n = counts.shape[0]
    total = 0
    for i in range(n):
        for j in range(i + 1, n):
            if counts[i, j] + asked[i, j] < repeats and (not joining or labels[i] != labels[j]):
                total += 1
    return total


@numba.njit(cache=True)
def nth_candidates(counts, asked, repeats, labels, joining, ranks, out):  # pragma: no cover - compiled
    """The flat indices of the candidates numbered ``ranks`` (sorted ascending) in row-major order."""
    n = counts.shape[0]
    seen = 0
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            if counts[i, j] + asked[i, j] < repeats and (not joining or labels[i] != labels[j]):
                while k < len(ranks) and ranks[k] == seen:
                    out[k] = i * n + j
                    k += 1
                seen += 1
                if k == len(ranks):
                    return


# -- FiedlerTracker's linear algebra in the eigenbasis of its last refresh (see tracking.py) --------------------------
@numba.njit(cache=True)
def woodbury_parts(lam, Z, d, shift, margin, extra, extra_weights):  # pragma: no cover - compiled
    """The pieces of (Λ + Z D Zᵀ − shift·I + E diag(w) Eᵀ)⁻¹ by the Woodbury identity.

    Returns (diagonal, Us, K) such that the inverse applied to X is
    X / diagonal − Us K⁻¹ Usᵀ X. Entries of Λ − shift closer to 0 than
    ``margin`` are set to ``margin`` and the difference joins the low-rank term.
    """
    m, t = Z.shape
    e = extra.shape[1]
    A = lam - shift
    close = 0
    for p in range(m):
        if abs(A[p]) < margin:
            close += 1
    r = t + close + e
    diagonal = A.copy()
    U = np.zeros((m, r))
    w = np.empty(r)
    for a in range(t):
        w[a] = d[a]
        for p in range(m):
            U[p, a] = Z[p, a]
    c = t
    for p in range(m):
        if abs(A[p]) < margin:
            diagonal[p] = margin
            U[p, c] = 1.0
            w[c] = A[p] - margin
            c += 1
    for a in range(e):
        w[c + a] = extra_weights[a]
        for p in range(m):
            U[p, c + a] = extra[p, a]
    Us = np.empty((m, r))
    for p in range(m):
        for a in range(r):
            Us[p, a] = U[p, a] / diagonal[p]
    if r == 0:
        return diagonal, Us, np.zeros((0, 0))
    K = U.T @ Us
    for a in range(r):
        K[a, a] += 1.0 / w[a]
    return diagonal, Us, K


@numba.njit(cache=True)
def woodbury_apply(diagonal, Us, K, X):  # pragma: no cover - compiled
    """X / diagonal − Us K⁻¹ Usᵀ X (see :func:`woodbury_parts`)."""
    out = X / diagonal.reshape(-1, 1)
    if K.shape[0]:
        out -= Us @ np.linalg.solve(K, np.ascontiguousarray(Us.T) @ X)
    return out


@numba.njit(cache=True)
def apply_low_rank(lam, Z, d, X):  # pragma: no cover - compiled
    """(Λ + Z D Zᵀ) X."""
    out = lam.reshape(-1, 1) * X
    if Z.shape[1]:
        out += Z @ (d.reshape(-1, 1) * (np.ascontiguousarray(Z.T) @ X))
    return out


@numba.njit(cache=True)
def tracker_iterate(lam, Z, d, Y, scale, max_iter):  # pragma: no cover - compiled
    """Shift-and-invert subspace iteration with Rayleigh–Ritz for the smallest eigenpairs of Λ + Z D Zᵀ.

    Returns (Y, theta, residual, converged). The shift sits just below the
    current Ritz value λ̂₂ (an upper bound), set at the first iteration and
    moved once, at the third, as the estimate improves.
    """
    m, b = Y.shape
    empty_columns = np.zeros((m, 0))
    empty_weights = np.zeros(0)
    theta = np.zeros(b)
    residual = np.zeros(b)
    diagonal, Us, K = np.ones(m), np.zeros((m, 0)), np.zeros((0, 0))  # set at the first iteration
    for iteration in range(max_iter + 1):
        if iteration == 1 or iteration == 3:
            spacing = max(theta[1] - theta[0], 1e-12 * scale)
            diagonal, Us, K = woodbury_parts(lam, Z, d, theta[0] - 1e-4 * spacing, 5e-5 * spacing, empty_columns,
                                             empty_weights)
        if iteration:
            Y = woodbury_apply(diagonal, Us, K, Y)
        Q, _ = np.linalg.qr(Y)
        Y = np.ascontiguousarray(Q)
        MY = apply_low_rank(lam, Z, d, Y)
        theta, C = np.linalg.eigh(np.ascontiguousarray(Y.T) @ MY)
        C = np.ascontiguousarray(C)
        Y = Y @ C
        MY = MY @ C
        for a in range(b):
            total = 0.0
            for p in range(m):
                diff = MY[p, a] - Y[p, a] * theta[a]
                total += diff * diff
            residual[a] = np.sqrt(total)
        gap = theta[1] - theta[0]
        # v̂₂ to about 1e-10 (its error is residual / gap); λ̂₃ only to place the certificate's point
        if residual[0] <= max(1e-10 * gap, 1e-13 * scale) and residual[1] <= max(
            0.1 * (theta[2] - theta[1]), 1e-10 * scale
        ):
            return Y, theta, residual, True
    return Y, theta, residual, False


@numba.njit(cache=True)
def count_below(lam, Z, d, theta):  # pragma: no cover - compiled
    """The number of eigenvalues of Λ + Z D Zᵀ below θ (Sylvester's law of inertia on the bordered matrix)."""
    below = 0
    for p in range(len(lam)):
        if lam[p] < theta:
            below += 1
    t = Z.shape[1]
    if t == 0:
        return below
    scaled = Z / (lam - theta).reshape(-1, 1)
    K = np.ascontiguousarray(Z.T) @ scaled
    positive_d = 0
    for a in range(t):
        K[a, a] += 1.0 / d[a]
        if d[a] > 0:
            positive_d += 1
    values = np.linalg.eigvalsh(K)
    positive = 0
    for value in values:
        if value > 0:
            positive += 1
    return below + positive - positive_d


@numba.njit(cache=True)
def tracker_direction(lam, Z, d, y, lam2, gap, b):  # pragma: no cover - compiled
    """h with (Λ + Z D Zᵀ − λ̂₂I)h = −(b − (yᵀb)y), h ⊥ y; and whether its residual checks."""
    m = len(lam)
    q = b - (y @ b) * y
    extra = y.reshape(m, 1).copy()
    weights = np.array([gap])
    # (M − λ̂₂I + gap·ŷ₂ŷ₂ᵀ) is invertible, and its solution for a right-hand side orthogonal to ŷ₂ is too
    diagonal, Us, K = woodbury_parts(lam, Z, d, lam2, 0.5 * gap, extra, weights)
    h = -woodbury_apply(diagonal, Us, K, q.reshape(m, 1))[:, 0]
    h -= (y @ h) * y
    residual = apply_low_rank(lam, Z, d, h.reshape(m, 1))[:, 0] - lam2 * h + q
    ok = np.sqrt(residual @ residual) <= 1e-8 * (np.sqrt(q @ q) + gap * np.sqrt(h @ h))
    return h, ok


@numba.njit(cache=True)
def adjacency(W, indptr, indices, weights, degrees):  # pragma: no cover - compiled
    """The off-diagonal nonzeros of a symmetric W by rows (CSR) and the degrees Σ_{j≠i} W_ij, in one scan.

    Fills ``indptr`` (n + 1) and ``degrees`` (n) always, and ``indices``/``weights``
    up to their length; returns the number of nonzeros, which the caller
    compares with that length (a larger count: call again with room for it).
    """
    n = W.shape[0]
    capacity = len(indices)
    count = 0
    indptr[0] = 0
    for i in range(n):
        total = 0.0
        for j in range(n):
            w = W[i, j]
            if w != 0.0 and j != i:
                if count < capacity:
                    indices[count] = j
                    weights[count] = w
                count += 1
                total += w
        indptr[i + 1] = count
        degrees[i] = total
    return count


@numba.njit(cache=True)
def laplacian_apply(indptr, indices, weights, degrees, X, out):  # pragma: no cover - compiled
    """out = L X for L = diag(degrees) − A, A given by rows (CSR); X and out C-ordered n × b."""
    n, b = X.shape
    for i in range(n):
        d = degrees[i]
        for c in range(b):
            out[i, c] = d * X[i, c]
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            w = weights[p]
            for c in range(b):
                out[i, c] -= w * X[j, c]


# -- the sparse loop: candidates read from the pairs touched so far (see sparse.py) -----------------------------------
# ``indptr``/``indices`` list, row by row, the pairs (i, j), i < j, that were measured or asked (j ascending);
# ``taken`` holds measurements + pending asks of each, ``counts`` its measurements. Every other pair has 0 of both.
@numba.njit(cache=True)
def top_pairs_sparse(v, g, indptr, indices, taken, counts, repeats, use_sigma, prior, population_sd, best_score,
                     best_index):  # pragma: no cover - compiled
    """As :func:`top_pairs_from_vectors`, the candidates read from the touched pairs instead of n × n matrices."""
    n = len(v)
    filled = 0
    for i in range(n):
        p = indptr[i]
        end = indptr[i + 1]
        vi = v[i]
        gi = g[i]
        for j in range(i + 1, n):
            count = 0
            if p < end and indices[p] == j:
                count = counts[p]
                if taken[p] >= repeats:
                    p += 1
                    continue
                p += 1
            score = abs((vi - v[j]) * (gi - g[j]))
            if use_sigma:
                score *= _sigma(count, prior, population_sd)
            if score > 0.0 and (filled < len(best_score) or score > best_score[len(best_score) - 1]):
                filled = _offer(score, i * n + j, best_score, best_index, filled)
    return filled


@numba.njit(cache=True)
def count_candidates_sparse(n, indptr, indices, taken, repeats, labels, joining):  # pragma: no cover - compiled
    """As :func:`count_candidates`, from the touched pairs."""
    total = 0
    for i in range(n):
        p = indptr[i]
        end = indptr[i + 1]
        for j in range(i + 1, n):
            if p < end and indices[p] == j:
                full = taken[p] >= repeats
                p += 1
                if full:
                    continue
            if not joining or labels[i] != labels[j]:
                total += 1
    return total


@numba.njit(cache=True)
def nth_candidates_sparse(n, indptr, indices, taken, repeats, labels, joining, ranks, out):  # pragma: no cover
    """As :func:`nth_candidates`, from the touched pairs."""
    seen = 0
    k = 0
    for i in range(n):
        p = indptr[i]
        end = indptr[i + 1]
        for j in range(i + 1, n):
            if p < end and indices[p] == j:
                full = taken[p] >= repeats
                p += 1
                if full:
                    continue
            if not joining or labels[i] != labels[j]:
                while k < len(ranks) and ranks[k] == seen:
                    out[k] = i * n + j
                    k += 1
                seen += 1
                if k == len(ranks):
                    return
