"""The seed's formulas written out, slowly, as the reference the clustering tests check against."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


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


def derivative_26(W, i, j, spectrum=None):
    """dv̂₂/dŵᵢⱼ by eq. (2.6): Σ_{p>2} v̂₂ᵀ[(eᵢ − eⱼ)(eᵢ − eⱼ)ᵀ]v̂_p / (λ̂₂ − λ̂_p) · v̂_p."""
    values, vectors = eigenpairs(W) if spectrum is None else spectrum
    n = len(values)
    e = np.zeros(n)
    e[i], e[j] = 1.0, -1.0
    dL = np.outer(e, e)
    v2 = vectors[:, 1]
    numerators = v2 @ dL @ vectors[:, 2:]  # v̂₂ᵀ[∂L̂/∂ŵᵢⱼ]v̂_p for p = 3..n
    return vectors[:, 2:] @ (numerators / (values[1] - values[2:]))


def argmin_magnitude(v):
    """argmin |v|, the lowest index among ties up to round-off (v̂₂ is constant on a component)."""
    return int(np.flatnonzero(np.abs(v) <= np.abs(v).min() * (1 + 1e-9) + 1e-14)[0])


def direct_scores(W):
    """Both score matrices, pair by pair from eq. (2.6), and k_min."""
    spectrum = eigenpairs(W)
    k_min = argmin_magnitude(spectrum[1][:, 1])
    n = len(spectrum[0])
    iu, st = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            d = derivative_26(W, i, j, spectrum)
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




def seed_choice(W_hat, candidates, strategy, sigma=None):
    """Line 2 of Algorithm 1 (IU-RED) or 2 (S&T) as printed: argmax over the candidate pairs i < j of the
    score from a full eigendecomposition, times σ̂ᵢⱼ in the noisy variant (§2.5)."""
    iu, st, _ = direct_scores(W_hat)
    scores = iu if strategy == "iu_red" else st
    if sigma is not None:
        scores = scores * sigma
    best, choice = -1.0, None
    n = len(W_hat)
    for i in range(n):
        for j in range(i + 1, n):
            if candidates[i, j] and scores[i, j] > best:
                best, choice = scores[i, j], (i, j)
    return choice, best


def components(W):
    """Connected components of the graph of positive off-diagonal entries, by union-find."""
    n = len(W)
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i in range(n):
        for j in range(i + 1, n):
            if W[i, j] > 0:
                parent[find(i)] = find(j)
    return [find(a) for a in range(n)]


def replay(queries, n):
    """Ŵ, the measurement counts and the running estimates before each query of a queries_ table."""
    W = np.eye(n)
    counts = np.zeros((n, n), dtype=int)
    values: dict = {}
    for row in queries.itertuples():
        yield row, W.copy(), counts.copy(), {k: list(v) for k, v in values.items()}
        values.setdefault((row.i, row.j), []).append(row.value)
        W[row.i, row.j] = W[row.j, row.i] = np.median(values[(row.i, row.j)])
        counts[row.i, row.j] = counts[row.j, row.i] = len(values[(row.i, row.j)])


def sigma_hat(values: dict, n: int):
    """σ̂ of §2.5 for every pair: √(1/12) unmeasured, s/√r after r, s the pooled SD (√(1/12) before a repeat)."""
    repeated = [v for v in values.values() if len(v) > 1]
    if repeated:
        s = np.sqrt(sum(((np.asarray(v) - np.mean(v)) ** 2).sum() for v in repeated) / sum(len(v) - 1 for v in repeated))
    else:
        s = np.sqrt(1 / 12)
    sigma = np.full((n, n), np.sqrt(1 / 12))
    for (i, j), v in values.items():
        sigma[i, j] = sigma[j, i] = s / np.sqrt(len(v))
    return sigma
