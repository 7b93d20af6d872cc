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
    """Insert (score, index) into the top list kept sorted by score descending, index ascending.

    Pairs may come in any order: ties go to the lower index whichever came first.
    """
    k = len(best_score)
    if filled == k and not (score > best_score[k - 1] or (score == best_score[k - 1] and index < best_index[k - 1])):
        return filled
    position = filled if filled < k else k - 1
    while position > 0 and (score > best_score[position - 1]
                            or (score == best_score[position - 1] and index < best_index[position - 1])):
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
    first, lowest index first on ties; returns how many were found. The
    pairs are visited cell by cell (:func:`top_pairs_in_cells`), about 20
    items to a cell.
    """  # pragma: no cover - compiled
    slabs = max(1, int(np.sqrt(len(v) / 20.0)))
    return top_pairs_in_cells(v, g, counts, asked, repeats, use_sigma, prior, population_sd, best_score, best_index,
                              slabs)


@numba.njit(cache=True)
def _scan_cells(a, b, items, starts, v, g, counts, asked, repeats, use_sigma, prior, population_sd, sigma_bound,
                best_score, best_index, filled):  # pragma: no cover - compiled
    """Offer every candidate pair with one item in cell a and the other in cell b (a ≤ b)."""
    n = len(v)
    k = len(best_score)
    for x in range(starts[a], starts[a + 1]):
        first = items[x]
        y0 = x + 1 if a == b else starts[b]
        for y in range(y0, starts[b + 1]):
            second = items[y]
            i = min(first, second)
            j = max(first, second)
            score = abs((v[i] - v[j]) * (g[i] - g[j]))
            if filled == k:  # the score alone decides most pairs, before the counts are read
                ceiling = score * sigma_bound if use_sigma else score
                if ceiling < best_score[k - 1]:
                    continue
            count = counts[i, j]
            if count + asked[i, j] >= repeats:
                continue
            if use_sigma:
                score *= _sigma(count, prior, population_sd)
            if score > 0.0:
                filled = _offer(score, i * n + j, best_score, best_index, filled)
    return filled


@numba.njit(cache=True)
def top_pairs_in_cells(v, g, counts, asked, repeats, use_sigma, prior, population_sd, best_score, best_index,
                       slabs):  # pragma: no cover - compiled
    """As :func:`top_pairs_from_vectors`, the items cut into ``slabs`` × ``slabs`` cells.

    The items are cut into slabs of equal size by v and each slab into cells
    by g. The scores of the pairs between two cells are at most the product
    of the widest differences in v and in g between their boxes (and the
    largest σ̂); rounding is monotone, so this bound, computed in floating
    point, is never below a score computed in it. Pairs of cells are visited
    by decreasing bound, the one with the highest first, and the visit stops
    at the first bound below the last score kept: the answer is the full
    scan's, ties included (they go to the lower index whatever the order of
    the visit). Non-finite v or g: every pair is visited.
    """
    n = len(v)
    k = len(best_score)
    sigma_bound = max(prior, population_sd) if use_sigma else 1.0
    finite = True
    for i in range(n):
        if not (np.isfinite(v[i]) and np.isfinite(g[i])):
            finite = False
    if not finite or n < 2:
        slabs = 1
    # cells: slabs of v-order, each cut by g-order
    by_v = np.argsort(v, kind="mergesort") if slabs > 1 else np.arange(n)
    per_slab = (n + slabs - 1) // slabs
    items = np.empty(n, dtype=np.int64)
    starts = np.zeros(slabs * slabs + 1, dtype=np.int64)
    cells = 0
    filled_items = 0
    for s in range(slabs):
        slab = by_v[s * per_slab: min(n, (s + 1) * per_slab)]
        if len(slab) == 0:
            continue
        if slabs > 1:
            slab = slab[np.argsort(g[slab], kind="mergesort")]
        per_cell = (len(slab) + slabs - 1) // slabs
        for c in range(slabs):
            part = slab[c * per_cell: min(len(slab), (c + 1) * per_cell)]
            if len(part) == 0:
                continue
            starts[cells] = filled_items
            for item in part:
                items[filled_items] = item
                filled_items += 1
            cells += 1
    starts[cells] = filled_items
    low_v = np.empty(cells)
    high_v = np.empty(cells)
    low_g = np.empty(cells)
    high_g = np.empty(cells)
    for c in range(cells):
        first = items[starts[c]]
        low_v[c] = high_v[c] = v[first]
        low_g[c] = high_g[c] = g[first]
        for x in range(starts[c] + 1, starts[c + 1]):
            item = items[x]
            low_v[c] = min(low_v[c], v[item])
            high_v[c] = max(high_v[c], v[item])
            low_g[c] = min(low_g[c], g[item])
            high_g[c] = max(high_g[c], g[item])
    n_pairs = cells * (cells + 1) // 2
    bound = np.empty(n_pairs)
    cell_a = np.empty(n_pairs, dtype=np.int64)
    cell_b = np.empty(n_pairs, dtype=np.int64)
    q = 0
    for a in range(cells):
        for b in range(a, cells):
            spread_v = max(abs(high_v[a] - low_v[b]), abs(low_v[a] - high_v[b]))
            spread_g = max(abs(high_g[a] - low_g[b]), abs(low_g[a] - high_g[b]))
            bound[q] = spread_v * spread_g * sigma_bound if use_sigma else spread_v * spread_g
            if not finite:
                bound[q] = np.inf
            cell_a[q] = a
            cell_b[q] = b
            q += 1
    filled = 0
    # the pair of cells with the highest bound first: its scores usually set the bar for the rest
    top = 0
    for q in range(n_pairs):
        if bound[q] > bound[top]:
            top = q
    if bound[top] > 0.0:
        filled = _scan_cells(cell_a[top], cell_b[top], items, starts, v, g, counts, asked, repeats, use_sigma, prior,
                             population_sd, sigma_bound, best_score, best_index, filled)
    # then, by decreasing bound, the pairs of cells that can still hold a score as high as the last one kept
    keep = np.empty(n_pairs, dtype=np.int64)
    kept = 0
    for q in range(n_pairs):
        if q != top and bound[q] > 0.0 and (filled < k or not bound[q] < best_score[k - 1]):
            keep[kept] = q
            kept += 1
    keep = keep[:kept]
    keep = keep[np.argsort(-bound[keep], kind="mergesort")]
    for q in keep:
        if filled == k and bound[q] < best_score[k - 1]:
            break
        filled = _scan_cells(cell_a[q], cell_b[q], items, starts, v, g, counts, asked, repeats, use_sigma, prior,
                             population_sd, sigma_bound, best_score, best_index, filled)
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
def shift_parts(lam, Z, d, shift, margin, U, Us):  # pragma: no cover - compiled
    """The Woodbury form of (Λ + Z D Zᵀ − shift·I)⁻¹, kept for many steps (see :func:`shift_append`).

    ``U`` and ``Us`` are Fortran-ordered n × r views with r = t plus the
    number of entries of Λ − shift closer to 0 than ``margin``; they are
    filled with those entries as unit columns, then Z, and ``Us`` = diag⁻¹U.
    Returns (diagonal, Kinv): the inverse applied to X is
    X / diagonal − Us Kinv Usᵀ X with Kinv = (Uᵀ diag⁻¹ U + diag(1/w))⁻¹, w the
    columns' weights.
    """
    m, t = Z.shape
    r = U.shape[1]
    A = lam - shift
    diagonal = A.copy()
    weights = np.empty(r)
    c = 0
    for p in range(m):
        if abs(A[p]) < margin and c < r - t:
            diagonal[p] = margin
            U[:, c] = 0.0
            U[p, c] = 1.0
            weights[c] = A[p] - margin
            c += 1
    for a in range(t):
        U[:, c] = Z[:, a]
        weights[c] = d[a]
        c += 1
    for c in range(r):
        for p in range(m):
            Us[p, c] = U[p, c] / diagonal[p]
    if r == 0:
        return diagonal, np.zeros((0, 0))
    K = U.T @ Us
    for c in range(r):
        K[c, c] += 1.0 / weights[c]
    return diagonal, np.linalg.inv(K)


@numba.njit(cache=True)
def shift_append(z, delta, diagonal, U, Us, Kinv, u, us):  # pragma: no cover - compiled
    """One more change δzzᵀ in the parts of :func:`shift_parts`: the new columns and Kinv bordered.

    ``U``, ``Us`` hold the r columns so far; ``u`` and ``us`` (views of the
    next column of the same buffers) receive z and diag⁻¹z. Returns (Kinv of
    size r + 1, relative pivot): the pivot is the Schur complement of the new
    column, and the caller drops the parts when it is too small for the
    bordered inverse to be trusted.
    """
    m = len(z)
    r = U.shape[1]
    for p in range(m):
        u[p] = z[p]
        us[p] = z[p] / diagonal[p]
    c = z @ us + 1.0 / delta
    out = np.empty((r + 1, r + 1))
    if r == 0:
        out[0, 0] = 1.0 / c
        return out, 1.0
    k = U.T @ us
    a = Kinv @ k
    ka = k @ a
    pivot = c - ka
    for x in range(r):
        for y in range(r):
            out[x, y] = Kinv[x, y] + a[x] * a[y] / pivot
        out[x, r] = -a[x] / pivot
        out[r, x] = -a[x] / pivot
    out[r, r] = 1.0 / pivot
    return out, pivot / (abs(c) + abs(ka))


@numba.njit(cache=True)
def shift_apply(diagonal, Us, Kinv, X):  # pragma: no cover - compiled
    """(Λ + Z D Zᵀ − shift·I)⁻¹ X from the parts of :func:`shift_parts` (Us: its first r columns)."""
    out = X / diagonal.reshape(-1, 1)
    if Kinv.shape[0]:
        out -= Us @ (Kinv @ (np.ascontiguousarray(Us.T) @ X))
    return out


@numba.njit(cache=True)
def thin_qr(X):  # pragma: no cover - compiled
    """X = QR for a tall n × b block (b small): Gram–Schmidt, each column orthogonalized twice.

    A tenth of LAPACK's call overhead on a 500 × 4 block; twice is enough for
    orthogonality to the working precision (Giraud, Langou, Rozložník 2005)
    unless a column is numerically dependent on the others, which the
    caller's residual check then reports. Returns (Q, R), Q C-ordered.
    """
    m, b = X.shape
    Q = np.empty((m, b))
    R = np.zeros((b, b))
    for a in range(b):
        for p in range(m):
            Q[p, a] = X[p, a]
        for _ in range(2):
            for c in range(a):
                dot = 0.0
                for p in range(m):
                    dot += Q[p, c] * Q[p, a]
                R[c, a] += dot
                for p in range(m):
                    Q[p, a] -= dot * Q[p, c]
        norm = 0.0
        for p in range(m):
            norm += Q[p, a] * Q[p, a]
        norm = np.sqrt(norm)
        R[a, a] = norm
        if norm > 0.0:
            for p in range(m):
                Q[p, a] /= norm
    return Q, R


@numba.njit(cache=True)
def _ritz_residuals(Y, MY, theta, residual):  # pragma: no cover - compiled
    m, b = Y.shape
    for a in range(b):
        total = 0.0
        for p in range(m):
            diff = MY[p, a] - Y[p, a] * theta[a]
            total += diff * diff
        residual[a] = np.sqrt(total)


@numba.njit(cache=True)
def _converged(theta, residual, scale):  # pragma: no cover - compiled
    """v̂₂ to about 1e-10 (its error is residual / gap); λ̂₃ only to place the certificate's point."""
    gap = theta[1] - theta[0]
    return residual[0] <= max(1e-10 * gap, 1e-13 * scale) and residual[1] <= max(
        0.1 * (theta[2] - theta[1]), 1e-10 * scale
    )


@numba.njit(cache=True)
def tracker_iterate(lam, Z, d, Y, scale, max_iter, shift, diagonal, Us, Kinv):  # pragma: no cover - compiled
    """Shift-and-invert subspace iteration with Rayleigh–Ritz for the smallest eigenpairs of Λ + Z D Zᵀ.

    The shifted inverse is given (:func:`shift_parts`, kept across steps by
    :func:`shift_append`); iteration 0 is Rayleigh–Ritz on Y alone. Inside
    the loop M X comes from the inverse itself, M X = σX + Y for
    X = (M − σI)⁻¹Y, and only an answer that passes with it is checked with
    M applied outright. Returns (Y, theta, residual, converged): v̂₂ to a
    residual of 1e-10 of the gap, λ̂₃ to a tenth of the next one.
    """
    m, b = Y.shape
    theta = np.zeros(b)
    residual = np.zeros(b)
    exact = True  # MY is M applied to Y, not its image through the inverse
    for iteration in range(max_iter + 1):
        if iteration:
            X = shift_apply(diagonal, Us, Kinv, Y)
            MX = shift * X + Y
            Q, R = thin_qr(X)
            MQ = np.ascontiguousarray(np.linalg.solve(R.T, np.ascontiguousarray(MX.T)).T)  # M Q = (M X) R⁻¹
            exact = False
        else:
            Q, _ = thin_qr(Y)
            MQ = apply_low_rank(lam, Z, d, Q)
        H = np.ascontiguousarray(Q.T) @ MQ
        H = 0.5 * (H + H.T)
        theta, C = np.linalg.eigh(H)
        C = np.ascontiguousarray(C)
        Y = Q @ C
        MY = MQ @ C
        _ritz_residuals(Y, MY, theta, residual)
        if _converged(theta, residual, scale):
            if exact:
                return Y, theta, residual, True
            MY = apply_low_rank(lam, Z, d, Y)  # checked with M itself
            exact = True
            _ritz_residuals(Y, MY, theta, residual)
            if _converged(theta, residual, scale):
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
def tracker_direction_refined(lam, Z, d, y, lam2, gap, b, shift, diagonal, Us, Kinv, max_iter):  # pragma: no cover
    """As :func:`tracker_direction`, by iterative refinement with the tracker's shifted inverse.

    (diagonal, Us, Kinv) are the parts of (M − σI)⁻¹ for a shift σ below λ̂₂
    (:func:`shift_parts`). On the complement of ŷ₂, (M − σI)⁻¹(M − λ̂₂I) has
    its eigenvalues in [1 − ε, 1), ε = (λ̂₂ − σ)/(λ̂₃ − σ), so each step
    h ← h + ω P(M − σI)⁻¹P r (P = I − ŷ₂ŷ₂ᵀ, ω = 2/(2 − ε)) shrinks the error
    by ε/(2 − ε), with no factorization of its own. Refined to the rounding
    level, as a direct solve is; returns (h, ok), ok False when ``max_iter``
    steps do not reach the direct solve's check.
    """
    m = len(lam)
    q = b - (y @ b) * y
    qnorm = np.sqrt(q @ q)
    epsilon = (lam2 - shift) / (lam2 + gap - shift)
    if not (epsilon >= 0.0 and epsilon < 0.5):
        return np.zeros(m), False
    omega = 2.0 / (2.0 - epsilon)
    UsT = np.ascontiguousarray(Us.T)
    h = np.zeros(m)
    r = -q
    last = np.inf
    for _ in range(max_iter):
        r -= (y @ r) * y
        step = r / diagonal
        if Kinv.shape[0]:
            step -= Us @ (Kinv @ (UsT @ r))
        step -= (y @ step) * y
        h += omega * step
        residual = apply_low_rank(lam, Z, d, h.reshape(m, 1))[:, 0] - lam2 * h + q
        size = np.sqrt(residual @ residual)
        scale = qnorm + gap * np.sqrt(h @ h)
        # on to the rounding level, as a direct solve would be (g is ill-conditioned where the spectrum is
        # crowded); accepted at the direct solve's check
        if size <= 1e-14 * scale or not size < 0.5 * last:
            return h, bool(size <= 1e-8 * scale)
        last = size
        r = -residual
    return h, bool(last <= 1e-8 * (qnorm + gap * np.sqrt(h @ h)))


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
