"""One eigen-update of the active loop on a sparse Ŵ: thousands of items, no n × n matrix (seed 003, ch. 2).

The dense loop keeps Ŵ, the measurement counts and the pending asks as
n × n matrices and scores pairs from them; at 10,000 items each is 400 to
800 MB. Here the measured pairs live in arrays (:class:`RunningEstimates`
with ``sparse=True``), Ŵ is a CSR matrix built from them, the pending asks a
set, and the candidates are read from the sorted list of pairs measured or
asked so far (the "touched" pairs): every other pair is a candidate with no
measurement. The scan over the n(n−1)/2 pairs is the dense loop's, pair for
pair, so both choose the same pairs from the same v̂₂ and g.
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from .estimates import PRIOR_SIGMA, RunningEstimates
from .selection import Step, interleaved_step
from .spectral import FiedlerVector, recursive_bisection

__all__ = ["Touched", "choose_pairs_sparse"]


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
