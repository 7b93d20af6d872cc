"""One eigen-update of the active loop on a sparse Ŵ: thousands of items, no n × n matrix (seed 003, ch. 2).

The dense loop keeps Ŵ, the measurement counts and the pending asks as
n × n matrices and scores pairs from them; at 10,000 items each is 400 to
800 MB. Here the measured pairs live in arrays (:class:`RunningEstimates`
with ``sparse=True``), Ŵ is a CSR matrix built from them, the pending asks a
set, and the candidates are read from the sorted list of pairs measured or
asked so far (the "touched" pairs): every other pair is a candidate with no
measurement. The scan over the n(n−1)/2 pairs is the dense loop's, pair for
pair, so both choose the same pairs from the same v̂₂ and g.
:class:`SparseTracker` gives v̂₂ and g of the sparse Ŵ, by warm-started LOBPCG
and preconditioned conjugate gradients.
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from .conjugate import conjugate_gradients
from .estimates import PRIOR_SIGMA, RunningEstimates
from .selection import Step, interleaved_step
from .spectral import REPEATED_TOLERANCE, FiedlerVector, canonical_sign, laplacian, recursive_bisection

__all__ = ["Touched", "choose_pairs_sparse", "SparseTracker"]


class Touched:
    """The pairs measured or asked, by rows (i < j, j ascending): CSR ``indptr``/``indices``, ``taken``, ``counts``.

    ``taken`` is measurements plus pending asks, ``counts`` measurements; a
    pair not listed has neither.
    """

    def __init__(self, n: int, estimates: RunningEstimates, asked: set, extra: list[int] = ()):
        i, j, _, counts = estimates.pair_arrays()
        measured = i * n + j
        asked_keys = np.fromiter((a * n + b for a, b in asked), dtype=np.int64, count=len(asked))
        extra = np.asarray(list(extra), dtype=np.int64)
        keys = np.concatenate([measured, asked_keys, extra])
        taken = np.concatenate([counts.astype(np.int64), np.ones(len(asked_keys) + len(extra), dtype=np.int64)])
        count = np.concatenate([counts.astype(np.int64), np.zeros(len(asked_keys) + len(extra), dtype=np.int64)])
        unique, inverse = np.unique(keys, return_inverse=True)
        self.taken = np.bincount(inverse, weights=taken, minlength=len(unique)).astype(np.int64)
        self.counts = np.bincount(inverse, weights=count, minlength=len(unique)).astype(np.int64)
        rows, self.indices = np.divmod(unique, n)
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]).astype(np.int64)
        self.n = n


def choose_pairs_sparse(
    W,
    *,
    strategy: str,
    slots: np.ndarray,
    estimates: RunningEstimates,
    asked: set,
    repeats: int,
    rng: np.random.Generator,
    population_sd: float | None,
    root: FiedlerVector | None,
    root_direction: np.ndarray | None,
    component_labels: np.ndarray | None,
) -> Step:
    """One step of the active loop on the CSR Ŵ, as :func:`~paucity.clustering.selection.choose_pairs` with two clusters.

    ``root`` is v̂₂ of Ŵ (None with the random strategy and no reference),
    ``root_direction`` IU-RED's g (None when v̂₂ is undefined, or when the
    update could not be checked: its strategy slots are then filled at random,
    as where v̂₂ is undefined).
    """
    n = W.shape[0]
    if root is not None:
        labels, _ = recursive_bisection(W, 2, root=root)
    else:
        labels = None
    touched = Touched(n, estimates, asked)
    chosen: list[int] = []
    chosen_by: list[str] = []
    n_active = int(np.count_nonzero(slots))
    use_sigma = population_sd is not None
    s = float(population_sd) if use_sigma else 0.0
    if strategy != "random" and n_active:
        if root is not None and root.defined and root_direction is not None:
            best_score, best_index = np.empty(n_active), np.empty(n_active, dtype=np.int64)
            found = _kernels.top_pairs_sparse(
                root.vector, np.ascontiguousarray(root_direction), touched.indptr, touched.indices, touched.taken,
                touched.counts, repeats, use_sigma, PRIOR_SIGMA, s, best_score, best_index,
            )
            chosen += best_index[:found].tolist()
            chosen_by += ["active"] * found
        else:
            joining = component_labels is not None
            picked = _uniform(touched, repeats, n_active, rng, component_labels, joining=joining)
            if len(picked) < n_active:  # no pair left that joins two components: any candidate
                touched = Touched(n, estimates, asked, picked)
                picked += _uniform(touched, repeats, n_active - len(picked), rng, None, joining=False)
            chosen += picked
            chosen_by += ["start"] * len(picked)
    n_random = len(slots) - len(chosen)
    if n_random:
        if chosen:
            touched = Touched(n, estimates, asked, chosen)
        picked = _uniform(touched, repeats, n_random, rng, None, joining=False)
        chosen += picked
        chosen_by += ["random"] * len(picked)
    return interleaved_step(chosen, chosen_by, slots, n, labels, root)


def _uniform(touched: Touched, repeats: int, count: int, rng, labels, *, joining: bool) -> list[int]:
    """``count`` distinct candidates drawn uniformly (only pairs joining two labels, with ``joining``)."""
    if count <= 0:
        return []
    n = touched.n
    labels = np.zeros(n, dtype=np.int64) if labels is None else np.ascontiguousarray(labels, np.int64)
    total = _kernels.count_candidates_sparse(n, touched.indptr, touched.indices, touched.taken, repeats, labels,
                                             joining)
    take = min(count, total)
    if take == 0:
        return []
    ranks = rng.choice(total, size=take, replace=False)
    order = np.argsort(ranks)
    found = np.empty(take, dtype=np.int64)
    _kernels.nth_candidates_sparse(n, touched.indptr, touched.indices, touched.taken, repeats, labels, joining,
                                   np.ascontiguousarray(ranks[order]), found)
    drawn = np.empty(take, dtype=np.int64)
    drawn[order] = found
    return drawn.tolist()


class SparseTracker:
    """λ̂₂, v̂₂ and IU-RED's g of a sparse Ŵ, without any n × n matrix: the path for thousands of items.

    Each update reads the current Ŵ as a CSR matrix and

    - counts its components, first of the graph of positive similarities,
      then, when that is connected, of its *numerical* graph, the
      similarities above :data:`NUMERICAL_WEIGHT` times the spectral scale
      (the weaker ones lift eigenvalues from 0 by amounts no iterative solver
      separates). Three or more: v̂₂ is undefined (the caller measures pairs
      joining components, as at the start). Exactly two: λ̂₂ = 0 is simple
      (λ̂₃ > 0 on a graph of two components) and v̂₂ is the contrast of the
      two components, in closed form (:func:`~paucity.clustering.spectral.tie_break_vector`).
      One: LOBPCG for the smallest eigenpairs on the complement of 1, warm-started
      from the previous update's block plus one fresh random vector;
    - solves (L̂ − λ̂₂I)g = −Pe_k on the complement of 1 and v̂₂ by
      preconditioned conjugate gradients, warm-started from the previous g
      when k is the same item.

    Both use one preconditioner: while the measured graph is nearly a tree
    (fewer than :data:`TREE_PRECONDITIONER_DEGREE` / 2 pairs per item, the
    early updates), the sparse factorization of the Laplacian of its
    maximum-weight spanning forest plus the rest of the degrees (a tree
    factors without fill, and spectrally it is most of the graph); later,
    the inverse degree diagonal.

    The check (what stands in for the dense path's exact answer): v̂₂'s
    residual ‖L̂v̂₂ − λ̂₂v̂₂‖ at most 1e-9 of the gap λ̂₃ − λ̂₂ (so v̂₂ is within
    about 1e-9 of the true eigenvector of the Ritz value's eigenvalue) — or,
    once LOBPCG has run :data:`LOOSE_AFTER` iterations, at most
    :data:`LOOSE_EIGEN_TOLERANCE` of it, an estimate good enough to rank pairs
    by —, λ̂₃'s residual below a tenth of that gap, and g's residual at most
    1e-9 of the right-hand side. No inertia count (a factorization of
    L̂ − σI) certifies that v̂₂ is the *second* eigenvector: at 10,000 items
    the factor of a measured graph is nearly dense (a sparse LU of early
    graphs took 8 to 32 s each). A residual certifies that an eigenvalue
    lies near each Ritz value, not that none lies below: that part rests on
    the block being started with a fresh random vector at every update (an
    eigenvector missed by a random start has probability zero and a
    geometric rate of surfacing), and it is what the tests check against
    the dense path.
    Anything that does not converge returns None.

    Memory: Ŵ, L̂ and the factor (about a tree's worth) in CSR, and a few
    n-vectors: O(n + measured pairs).
    """

    def __init__(self, n: int, *, block: int = 4, seed: int = 0):
        self.n = n
        self.block = min(block, n - 1)
        self.Y = None
        self.theta = None
        self.g = None
        self.k = None
        self.rng = np.random.default_rng(seed)
        self.numerical_labels = None  # the parts of a numerically disconnected Ŵ at the last update, if any
        self.iterations = 0  # LOBPCG iterations so far (for benchmarks)
        self.solve_iterations = 0  # CG iterations so far

    def update(self, i: int, j: int, delta: float) -> None:
        """Nothing to do: each update reads the current Ŵ."""

    def fiedler(self, W, n_components: int, labels=None) -> FiedlerVector | None:
        """λ̂₂ and v̂₂ of the Laplacian of the CSR Ŵ (``labels``: its components when there are two)."""

        n = self.n
        L = laplacian(W)
        degrees = L.diagonal()
        scale = max(2.0 * float(degrees.max()), np.finfo(float).tiny)
        self.L, self.degrees, self.scale = L, degrees, scale
        self.precondition = _preconditioner(W, L, degrees, scale, n_components)
        self.numerical_labels = None
        if n_components == 1:
            # numerically disconnected: similarities below NUMERICAL_WEIGHT · scale join parts whose λ̂ double
            # precision cannot resolve; the parts they join count as components
            import scipy.sparse as sp
            from scipy.sparse.csgraph import connected_components

            strong = sp.csr_matrix(W, copy=True)
            strong.data = (strong.data > NUMERICAL_WEIGHT * scale).astype(np.int8)
            strong.eliminate_zeros()
            count, parts = connected_components(strong, directed=False)
            if count >= 3:
                from .spectral import tie_break_vector

                self.numerical_labels = parts
                return FiedlerVector(0.0, tie_break_vector(parts), float("nan"), 1, False, None)
            if count == 2:
                n_components, labels = 2, parts
        if n_components == 2:
            from .spectral import tie_break_vector

            if labels is None:
                from .spectral import components

                labels = components(W)[1]
            vector = tie_break_vector(labels)
            self.theta = None
            return FiedlerVector(0.0, vector, float("nan"), 2, True, None)
        if n_components != 1:
            return None
        best = None
        for attempt in range(2):
            result, vector, broke = self._lobpcg(L, scale, warm=attempt == 0, max_iter=MAX_EIGEN_ITERATIONS)
            if result is not None:
                return result
            best = vector if vector is not None else best
            if not broke and (attempt > 0 or self.Y is None):
                break  # it ran its iterations from a start with a fresh random vector: another start gains nothing
        self.Y, self.theta = None, None
        if best is None:
            return None
        # not checked: an estimate to label the items by, marked undefined so that no score is computed from it
        best = canonical_sign((best - best.mean()) / np.linalg.norm(best - best.mean()))
        return FiedlerVector(float(best @ (L @ best)), best, float("nan"), 1, False, None)

    def _lobpcg(self, L, scale: float, *, warm: bool, max_iter: int):
        """LOBPCG in rounds, each checked: (result, best vector, broke down), with result None on failure.

        scipy's LOBPCG stops only when every block vector has converged; the
        check here needs v̂₂ to 1e-9 of the gap and λ̂₃ roughly, so it is run in
        rounds, each started from the last one's block, until the check
        passes (:data:`EIGEN_ROUNDS`). Each round restarts the iteration's
        search directions, which costs convergence where the spectrum near λ̂₂
        is crowded: short rounds first, for the warm starts that are close
        already, then a long one. (Rounds of a fixed 16 iterations did not
        reach 1e-9 in 200 iterations where one run of 200 did.)
        """
        import warnings

        from scipy.sparse.linalg import LinearOperator, lobpcg

        n, b = self.n, self.block
        constant = np.full((n, 1), 1.0 / np.sqrt(n))
        fresh = self.rng.standard_normal((n, 1))
        if warm and self.Y is not None:
            X = np.column_stack([self.Y[:, : b - 1], fresh])
        else:
            X = np.column_stack([self.rng.standard_normal((n, b - 1)), fresh])
        precondition = self.precondition
        M = LinearOperator((n, n), matvec=lambda x: precondition(x.reshape(n, -1)).ravel(), matmat=precondition,
                           dtype=np.float64)
        vectors = None
        done = 0
        for rounds in EIGEN_ROUNDS:
            if done >= max_iter:
                break
            rounds = min(rounds, max_iter - done)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    values, X = lobpcg(L, X, M=M, Y=constant, tol=1e-14 * scale, maxiter=rounds, largest=False)
                except Exception:  # a breakdown of the block iteration
                    return None, vectors, True
            done += rounds
            self.iterations += rounds
            order = np.argsort(values)
            values, X = values[order], X[:, order]
            if not np.all(np.isfinite(values)) or not np.all(np.isfinite(X)):
                return None, vectors, True
            vectors = X[:, 0]
            residual = np.linalg.norm(L @ X[:, :2] - X[:, :2] * values[:2], axis=0)
            gap = values[1] - values[0]
            # v̂₂ to 1e-9 of the gap; from LOOSE_AFTER iterations on, to LOOSE_EIGEN_TOLERANCE of it (an estimate
            # good enough to rank pairs by, where the spectrum near λ̂₂ is too crowded for the iteration to do better)
            accuracy = LOOSE_EIGEN_TOLERANCE if done >= LOOSE_AFTER else 1e-9
            if residual[0] <= max(accuracy * gap, 1e-14 * scale) and residual[1] <= max(0.1 * gap, 1e-12 * scale):
                self.Y, self.theta = X, values
                vector = X[:, 0] - X[:, 0].mean()
                vector = canonical_sign(vector / np.linalg.norm(vector))
                defined = bool(gap - residual[1] > REPEATED_TOLERANCE * scale)
                return FiedlerVector(float(values[0]), vector, float(values[1]), 1, defined, None), vector, False
        return None, vectors, False

    def direction(self, fiedler: FiedlerVector, k: int, max_iter: int = 5000) -> np.ndarray | None:
        """g = R e_k for ``fiedler`` (of the last :meth:`fiedler`): preconditioned CG on the deflated system."""
        n = self.n
        L, lam2 = self.L, fiedler.value
        v2 = fiedler.vector

        def project(x):
            x = x - x.mean()
            return x - (v2 @ x) * v2

        b = np.zeros(n)
        b[k] = -1.0
        b = project(b)
        warm = self.g is not None and self.k == k and len(self.g) == n
        found = conjugate_gradients(lambda x: L @ x - lam2 * x, b,
                                    precondition=lambda r: self.precondition(r[:, None])[:, 0], project=project,
                                    start=self.g if warm else None, tolerance=1e-9, max_iter=max_iter)
        self.solve_iterations += found.iterations
        if not found.converged or not found.residual <= 2.0 * (1e-9 * np.linalg.norm(b)):
            return None
        self.g, self.k = found.solution, k
        return found.solution


#: Similarities at most this fraction of the spectral scale (twice the largest degree) do not join components on
#: the sparse path: the eigenvalues they alone lift from 0 form a cluster that the eigensolver does not resolve
#: (a Gaussian kernel's far pairs, e^-18 and below, measured at random early on, are the usual case).
NUMERICAL_WEIGHT = 1e-8
#: v̂₂'s residual, as a fraction of the gap λ̂₃ − λ̂₂, accepted from LOOSE_AFTER iterations on (1e-9 before).
LOOSE_EIGEN_TOLERANCE = 1e-4
#: LOBPCG iterations after which the loose tolerance is accepted (the first four rounds).
LOOSE_AFTER = 56
#: LOBPCG's rounds on the sparse path, each checked: short ones while a warm start is close, then long ones
#: where the spectrum near λ̂₂ is crowded (each round restarts LOBPCG's search directions).
EIGEN_ROUNDS = (8, 16, 16, 16, 64)
#: LOBPCG iterations before an update is declared unresolved; a cold start follows only a breakdown, or a warm
#: start that used them all.
MAX_EIGEN_ITERATIONS = sum(EIGEN_ROUNDS)
#: Below this many measured pairs per item (twice: the average degree of the measured graph), the sparse path
#: preconditions with the graph's maximum-weight spanning forest; from it on, with the degree diagonal.
TREE_PRECONDITIONER_DEGREE = 5.0


def _preconditioner(W, L, degrees, scale, n_components):
    """M⁻¹ for LOBPCG and CG on the sparse path (see :class:`SparseTracker`); applies to an n × b block."""
    import scipy.sparse as sp

    n = L.shape[0]
    edges = (L.nnz - n) / 2
    floor = 1e-6 * scale
    if edges < TREE_PRECONDITIONER_DEGREE / 2 * n:
        from scipy.sparse.csgraph import minimum_spanning_tree
        from scipy.sparse.linalg import splu

        A = sp.csr_matrix(W, copy=True)
        A.setdiag(0.0)
        A.eliminate_zeros()
        A.data = -A.data  # the maximum-weight forest is the minimum of the negated weights
        forest = -minimum_spanning_tree(A)
        forest = (forest + forest.T).tocsr()
        P = sp.diags(degrees + floor) - forest  # the forest's Laplacian plus the rest of each degree, made definite
        try:
            factor = splu(P.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                          options={"SymmetricMode": True})
        except RuntimeError:  # an exactly singular pivot: the diagonal is the safe choice
            factor = None
        if factor is not None:
            return lambda X: factor.solve(np.asarray(X, dtype=np.float64))
    inverse = 1.0 / np.maximum(degrees, floor)
    return lambda X: inverse[:, None] * X
