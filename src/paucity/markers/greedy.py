"""Greedy selection in multiclass and binary (one-vs-rest) modes, with the MIM prefilter."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._progress import progress_bar
from ..info.counts import BinnedMatrix, PairCounter, candidate_interactions
from .objectives import Objective
from .stepwise import Stepwise

__all__ = ["Selection", "select_features", "merge_per_class", "univariate_scores", "prefilter_candidates"]


@dataclass(frozen=True)
class Selection:
    """The outcome of a greedy selection.

    Attributes
    ----------
    selected : numpy.ndarray of int64
        Feature indices in selection order (binary mode: the round-robin merge).
    scores : numpy.ndarray of float64
        Objective value of each feature when it was selected (binary mode: in
        the class list it was first taken from).
    per_class : dict
        Binary mode only: class code -> (selected indices, scores) of that
        class's own one-vs-rest run. Empty in multiclass mode.
    n_candidates : int
        Number of features the search chose among (after the prefilter).
    relevance : numpy.ndarray of float64
        I(x_j; y) of every feature over all classes (H(x_j) when
        unsupervised), in both modes.
    """

    selected: np.ndarray
    scores: np.ndarray
    per_class: dict = field(default_factory=dict)
    n_candidates: int = 0
    relevance: np.ndarray | None = None


def univariate_scores(
    binned: BinnedMatrix, labels, n_classes: int, cache: dict | None = None, labelled_values=None
) -> np.ndarray:
    """I(x_j; y) for every feature, or H(x_j) when labels is None (one pass).

    ``cache`` receives the entropies counted on the way (H(x_j), H(x_j, y)).
    """
    columns = np.arange(binned.n_features, dtype=np.int64)
    if labels is None:
        return candidate_interactions(binned, [], [], columns, names=[], cache=cache)
    return candidate_interactions(
        binned, [labels], [n_classes], columns, names=["y"], cache=cache, folded=labelled_values
    )


def prefilter_candidates(univariate: np.ndarray, prefilter: int) -> np.ndarray:
    """The ``prefilter`` features of highest univariate score, ascending (ties: lowest index)."""
    if prefilter >= univariate.shape[0]:
        return np.arange(univariate.shape[0], dtype=np.int64)
    order = np.argsort(-univariate, kind="stable")
    return np.sort(order[:prefilter]).astype(np.int64)


def _greedy(binned, objective, labels, n_classes, n_features, prefilter, bar, row_major=None):
    if isinstance(binned, BinnedMatrix):
        counted: dict = {}
        labelled = binned.with_labels(labels, n_classes) if labels is not None else None
        univariate = univariate_scores(binned, labels, n_classes, cache=counted, labelled_values=labelled)
    else:  # blocks on Dask workers: the same entropies, summed from per-block tables
        labelling = binned.labelling(labels, n_classes)
        counted = labelling.univariate_entropies()
        labelled = None
        univariate = labelling.univariate_scores(counted)
    if objective.max_degree >= 1 and prefilter is not None:
        candidates = prefilter_candidates(univariate, prefilter)
    else:
        candidates = np.arange(binned.n_features, dtype=np.int64)
    entropies = {key: (value[candidates] if isinstance(value, np.ndarray) else value) for key, value in counted.items()}
    pairs = None
    if objective.max_degree >= 1:
        if not isinstance(binned, BinnedMatrix):
            pairs = labelling
        elif PairCounter.fits(binned, n_classes if labels is not None else 1):
            pairs = PairCounter(binned, labels, n_classes, labelled_values=labelled, row_major=row_major)
    search = Stepwise(
        binned,
        objective,
        labels=labels,
        candidates=candidates,
        base=univariate[candidates],
        entropies=entropies,
        labelled_values=labelled,
        pairs=pairs,
    )
    for _ in range(n_features):
        search.step()
        bar.advance()
    row_major = getattr(pairs, "row_major", row_major)
    selected, scores = np.array(search.selected, dtype=np.int64), np.array(search.selected_scores)
    return selected, scores, len(candidates), row_major, univariate


def merge_per_class(rankings, n_per_class: int, *, return_origin: bool = False):
    """The top ``n_per_class`` of every class's ranking, merged round robin without duplicates.

    Parameters
    ----------
    rankings : sequence of array-like of int
        One ranking of feature indices (best first) per class; a ranking
        shorter than ``n_per_class`` contributes what it has.
    n_per_class : int
    return_origin : bool, default=False
        Also return where each merged feature was taken from.

    Returns
    -------
    merged : numpy.ndarray of int64
        First the best of every class, then the second, ...; a feature
        already taken is skipped, so there may be fewer than
        ``len(rankings) * n_per_class``.
    origin : numpy.ndarray of int64, shape (len(merged), 2)
        Only with ``return_origin=True``: the (position in ``rankings``,
        rank) each merged feature was first taken from.

    Notes
    -----
    Seed 000, §2.7.2 and §2.6.2, Remark 1: the binary (one-vs-rest) mode's
    merge of the per-class lists, used for paucity's objectives and for the
    benchmark's one-vs-rest baselines alike.

    Examples
    --------
    >>> from paucity.markers.greedy import merge_per_class
    >>> merge_per_class([[4, 1, 0], [4, 2, 1]], 2).tolist()
    [4, 1, 2]
    >>> merge_per_class([[4, 1, 0], [4, 2, 1]], 2, return_origin=True)[1].tolist()
    [[0, 0], [0, 1], [1, 1]]
    """
    merged, origin, seen = [], [], set()
    for rank in range(n_per_class):
        for position, ranking in enumerate(rankings):
            if rank < len(ranking):
                feature = int(ranking[rank])
                if feature not in seen:
                    seen.add(feature)
                    merged.append(feature)
                    origin.append((position, rank))
    merged = np.array(merged, dtype=np.int64)
    if return_origin:
        return merged, np.array(origin, dtype=np.int64).reshape(-1, 2)
    return merged


def select_features(
    binned,
    objective: Objective,
    labels=None,
    *,
    n_features: int,
    mode: str = "multiclass",
    prefilter: int | None = 5000,
    progress: bool = False,
) -> Selection:
    """Greedy forward selection (seed 000, Algorithm 1 with Algorithm 5's incremental scores).

    Parameters
    ----------
    binned : BinnedMatrix or paucity.info.distributed.DistributedBins
        The bins in memory, or row blocks on Dask workers (same result).
    objective : Objective
    labels : numpy.ndarray of int64, optional
        Class codes 0..c-1 (supervised objectives).
    n_features : int
        Features to select (multiclass), or in total over classes (binary:
        ceil(n_features / c) per class, duplicates removed).
    mode : {"multiclass", "binary"}
    prefilter : int or None
        Bivariate and higher objectives first keep this many features of
        highest univariate score (MIM, or entropy when unsupervised), per class
        in binary mode (seed 000, §2.6, Remark 2).
    progress : bool
        Show a progress bar.

    Returns
    -------
    Selection

    Notes
    -----
    Binary mode (seed 000, §2.7.2 and Remark 1) runs the objective once per
    class on the one-vs-rest labels 1[y = t], takes the top ceil(n/c) of each
    and merges them in round-robin order (first of every class, then second,
    ...) without duplicates, so the count may fall short of n_features.
    Ties are broken by the lowest feature index.
    """
    if mode == "multiclass":
        n_classes = int(labels.max()) + 1 if labels is not None else 0
        with progress_bar(n_features, f"{objective.name}", progress) as bar:
            selected, scores, n_candidates, _, relevance = _greedy(
                binned, objective, labels, n_classes, n_features, prefilter, bar
            )
        return Selection(selected=selected, scores=scores, n_candidates=n_candidates, relevance=relevance)

    n_classes = int(labels.max()) + 1
    per_class_n = math.ceil(n_features / n_classes)
    per_class = {}
    row_major = None  # the row-major copy, shared by the classes
    with progress_bar(per_class_n * n_classes, f"{objective.name} (binary)", progress) as bar:
        for t in range(n_classes):
            one_vs_rest = (labels == t).astype(np.int64)
            selected, scores, n_candidates, row_major, _ = _greedy(
                binned, objective, one_vs_rest, 2, per_class_n, prefilter, bar, row_major
            )
            per_class[t] = (selected, scores)
    merged, taken_from = merge_per_class([per_class[t][0] for t in range(n_classes)], per_class_n, return_origin=True)
    merged_scores = [float(per_class[t][1][rank]) for t, rank in taken_from]
    return Selection(
        selected=merged,
        scores=np.array(merged_scores),
        per_class=per_class,
        n_candidates=n_candidates,
        relevance=_relevance(binned, labels, n_classes),
    )


def _relevance(binned, labels, n_classes: int) -> np.ndarray:
    """I(x_j; y) of every feature for the multiclass labels (one more pass; binary mode counts one-vs-rest)."""
    if isinstance(binned, BinnedMatrix):
        return univariate_scores(binned, labels, n_classes, labelled_values=binned.with_labels(labels, n_classes))
    labelling = binned.labelling(labels, n_classes)
    return labelling.univariate_scores(labelling.univariate_entropies())
