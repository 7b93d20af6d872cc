"""Which pairs to measure next: one eigen-update of the active loop (seed 003, Algorithms 1 and 2, §2.5).

A step computes the clustering of the current estimate Ŵ (recursive
bisection), the strategy's score of every pair, and takes the best-scoring
pairs that may still be measured. Slots that the strategy cannot fill (the
random ones of ``interleave``, those of a step where v̂₂ is not defined, those
where every remaining score is zero) are filled at random.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernels
from .estimates import PRIOR_SIGMA
from .scores import iu_red_direction, pair_scores, shamir_tishby_from
from .settings import STRATEGIES  # declared with the other settings of the loop
from .spectral import FiedlerVector, components, recursive_bisection

__all__ = ["STRATEGIES", "Step", "score_pairs", "choose_pairs", "interleaved_order", "interleaved_step"]



@dataclass(frozen=True)
class Step:
    """The clustering of the current Ŵ and the pairs chosen from it.

    Attributes
    ----------
    pairs : ndarray of shape (b, 2)
        The pairs to measure, i < j, in the order chosen.
    chosen_by : ndarray of shape (b,)
        ``"active"`` (the strategy's score), ``"random"`` (an interleaved or
        random slot, or a zero score), or ``"start"`` (v̂₂ undefined: a random
        pair joining two components).
    labels : ndarray of shape (n,) or None
        The clustering of Ŵ before these pairs are measured.
    fiedler : FiedlerVector or None
        v̂₂ of Ŵ (all items).
    """

    pairs: np.ndarray
    chosen_by: np.ndarray
    labels: np.ndarray
    fiedler: FiedlerVector


def score_pairs(W, strategy: str, splits, *, root_scores: np.ndarray | None = None) -> np.ndarray | None:
    """The strategy's score of every pair, over the splits of a recursive bisection; None if no split has one.

    Each split scores the pairs of its own items (its sub-matrix's v̂₂); a
    pair's score is the largest over the splits that contain it. With two
    clusters there is one split, of all items; ``root_scores``, when given,
    are its scores, computed by the caller.
    """
    n = W.shape[0]
    total = None
    for items, fiedler in splits:
        if not fiedler.defined or len(items) < 3:
            continue
        sub = W if len(items) == n else W[np.ix_(items, items)]
        if len(items) == n and root_scores is not None:
            scores = root_scores
        elif strategy == "iu_red":
            scores = pair_scores(fiedler.vector, iu_red_direction(sub, fiedler).g)
        else:
            scores = shamir_tishby_from(sub, fiedler)
        if scores is None:  # the dense eigendecomposition found λ̂₂ repeated after all
            continue
        if len(items) == n:
            total = scores if total is None else np.maximum(total, scores)
        else:
            if total is None:
                total = np.zeros((n, n))
            block = np.ix_(items, items)
            total[block] = np.maximum(total[block], scores)
    return total


def choose_pairs(
    W,
    *,
    strategy: str,
    slots: np.ndarray,
    counts: np.ndarray,
    asked: np.ndarray,
    repeats: int,
    rng: np.random.Generator,
    n_clusters: int = 2,
    population_sd: float | None = None,
    start=None,
    cluster: bool = True,
    root: FiedlerVector | None = None,
    root_scores: np.ndarray | None = None,
    root_direction: np.ndarray | None = None,
    component_labels: np.ndarray | None = None,
) -> Step:
    """One step of the active loop on the current estimate.

    Parameters
    ----------
    W : ndarray of shape (n, n)
        Ŵ: medians of the measurements, zeros for unmeasured pairs.
    strategy : {"iu_red", "shamir_tishby", "random"}
    slots : ndarray of bool, shape (b,)
        True for a slot the strategy fills, False for a random one.
    counts, asked : ndarray of shape (n, n)
        Measurements made and asks pending per pair: a pair is a candidate
        while ``counts + asked < repeats``.
    repeats : int
    rng : numpy.random.Generator
    n_clusters : int
    population_sd : float, optional
        s of §2.5; with it the scores are multiplied by σ̂ᵢⱼ (√(1/12) for a
        pair never measured, s/√r after r).
    start : ndarray, optional
        The previous step's eigenvectors, to warm-start the eigensolver.
    cluster : bool, default=True
        With the random strategy, False skips the clustering of Ŵ (``labels``
        and ``fiedler`` of the step are then None).
    root : FiedlerVector, optional
        v̂₂ of Ŵ, when the caller has it (e.g. from a :class:`FiedlerTracker
        <paucity.clustering.tracking.FiedlerTracker>`).
    root_scores : ndarray of shape (n, n), optional
        The strategy's scores for the split of all items, when the caller has them.
    root_direction : ndarray of shape (n,), optional
        IU-RED's g for the split of all items: its scores are then computed
        pair by pair, without an n × n matrix.
    component_labels : ndarray of shape (n,), optional
        The components of positive similarities, when the caller keeps them.

    Returns
    -------
    Step
    """
    n = W.shape[0]
    if cluster or strategy != "random":
        labels, splits = recursive_bisection(W, n_clusters, start=start, root=root)
        fiedler = splits[0][1]
    else:
        labels, splits, fiedler = None, [], None
    counts = np.ascontiguousarray(counts, dtype=np.int32)
    asked = np.ascontiguousarray(asked, dtype=np.int32)
    chosen: list[int] = []
    chosen_by: list[str] = []
    n_active = int(np.count_nonzero(slots))
    use_sigma = population_sd is not None
    prior, s = PRIOR_SIGMA, float(population_sd) if use_sigma else 0.0
    if strategy != "random" and n_active:
        if fiedler.defined:
            best_score, best_index = np.empty(n_active), np.empty(n_active, dtype=np.int64)
            if root_direction is not None and len(splits) == 1:
                found = _kernels.top_pairs_from_vectors(
                    fiedler.vector, np.ascontiguousarray(root_direction), counts, asked, repeats, use_sigma, prior, s,
                    best_score, best_index,
                )
            else:
                if root_direction is not None:
                    root_scores = pair_scores(fiedler.vector, root_direction)
                scores = score_pairs(W, strategy, splits, root_scores=root_scores)
                found = 0 if scores is None else _kernels.top_pairs_from_matrix(
                    np.ascontiguousarray(scores), counts, asked, repeats, use_sigma, prior, s, best_score, best_index
                )
            chosen += best_index[:found].tolist()
            chosen_by += ["active"] * found
        else:
            if component_labels is None:
                _, component_labels = components(W)
            picked = []
            if np.any(component_labels != component_labels[0]):  # one component: no pair joins two
                picked = _uniform(counts, asked, repeats, n_active, rng, component_labels, joining=True)
            if len(picked) < n_active:  # no pair left that joins two components: any candidate
                asked = _with(asked, picked, n)
                picked += _uniform(counts, asked, repeats, n_active - len(picked), rng, None, joining=False)
            chosen += picked
            chosen_by += ["start"] * len(picked)
    n_random = len(slots) - len(chosen)
    if n_random:
        picked = _uniform(counts, _with(asked, chosen, n), repeats, n_random, rng, None, joining=False)
        chosen += picked
        chosen_by += ["random"] * len(picked)
    return interleaved_step(chosen, chosen_by, slots, n, labels, fiedler)


def _with(asked: np.ndarray, flat: list[int], n: int) -> np.ndarray:
    """``asked`` with the pairs ``flat`` marked as asked too (a copy when there are any)."""
    if not flat:
        return asked
    asked = asked.copy()
    i, j = np.divmod(np.asarray(flat, dtype=np.int64), n)
    asked[i, j] += 1
    return asked


def _uniform(counts, asked, repeats, count, rng, labels, *, joining) -> list[int]:
    """``count`` distinct candidates drawn uniformly (only pairs joining two labels, with ``joining``)."""
    if count <= 0:
        return []
    labels = np.zeros(counts.shape[0], dtype=np.int64) if labels is None else np.ascontiguousarray(labels, np.int64)
    total = _kernels.count_candidates(counts, asked, repeats, labels, joining)
    take = min(count, total)
    if take == 0:
        return []
    ranks = rng.choice(total, size=take, replace=False)
    order = np.argsort(ranks)
    found = np.empty(take, dtype=np.int64)
    _kernels.nth_candidates(counts, asked, repeats, labels, joining, np.ascontiguousarray(ranks[order]), found)
    drawn = np.empty(take, dtype=np.int64)
    drawn[order] = found
    return drawn.tolist()


def interleaved_step(chosen: list[int], chosen_by: list[str], slots: np.ndarray, n: int, labels, fiedler) -> Step:
    """The chosen pairs (flat indices i·n + j) as a :class:`Step`, in the order :func:`interleaved_order` gives."""
    order = interleaved_order(slots, chosen_by)
    flat = np.asarray(chosen, dtype=np.int64)[order] if chosen else np.empty(0, dtype=np.int64)
    pairs = np.column_stack(np.divmod(flat, n)) if len(flat) else np.empty((0, 2), dtype=np.int64)
    return Step(pairs.astype(np.int64), np.asarray(chosen_by, dtype=object)[order], labels, fiedler)


def interleaved_order(slots: np.ndarray, chosen_by: list[str]) -> np.ndarray:
    """An order of the chosen pairs that puts the strategy's picks in its slots and random picks in the others."""
    strategy_picks = [k for k, by in enumerate(chosen_by) if by != "random"]
    random_picks = [k for k, by in enumerate(chosen_by) if by == "random"]
    order = []
    for is_strategy in slots[: len(chosen_by)]:
        source = strategy_picks if (is_strategy and strategy_picks) or not random_picks else random_picks
        order.append(source.pop(0))
    order += strategy_picks + random_picks
    return np.asarray(order[: len(chosen_by)], dtype=np.int64)
