"""Greedy search with incremental scores, as a stepwise object (seed 000, Algorithms 1 and 5, §2.10)."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .._errors import ParameterError
from ..info.counts import BinnedMatrix, candidate_interactions
from .objectives import Objective

__all__ = ["Stepwise"]


class Stepwise:
    """Greedy selection one feature at a time, with every candidate's score on view.

    Adding a feature costs one pass over the data per new interaction term
    (one pass for bivariate objectives, Algorithm 5); removing one costs no
    pass at all. A biologist can therefore overrule the greedy choice at any
    step (seed 000, §2.10) and the scores stay those of a fresh run on the
    same selection.

    Parameters
    ----------
    binned : BinnedMatrix
        The discretized data.
    objective : Objective
    labels : numpy.ndarray of int64, optional
        Class codes 0..c-1, required by supervised objectives.
    candidates : numpy.ndarray of int, optional
        Features allowed (e.g. after a prefilter), ascending; all by default.
    base : numpy.ndarray, optional
        The univariate term (I(x; y) or H(x)) of the candidates, if already known.
    entropies : dict, optional
        Entropies of the candidates already counted, in the ``cache`` format of
        :func:`paucity.info.candidate_interactions` (names: feature indices and
        ``"y"``), e.g. from the pass that gave ``base``.
    labelled_values : numpy.ndarray, optional
        ``binned.with_labels(labels, n_classes)``, if already computed.
    pairs : paucity.info.PairCounter, optional
        Counts the bivariate terms from the rows where the new feature is
        non-zero only (same bits, fewer values read). Built with the same
        labels (or none, for unsupervised objectives).

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.info import BinnedMatrix
    >>> from paucity.markers import Stepwise, make_objective
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    >>> y = 2 * a + b                                  # two bits of label
    >>> X = np.column_stack([a, a, b]).astype(np.uint8)
    >>> search = Stepwise(BinnedMatrix.from_binned(X), make_objective("cife"), labels=y)
    >>> round(search.add(0), 1)                     # choose a (its score when chosen)
    1.0
    >>> (search.scores()[1:].round(1) + 0.0).tolist()   # the copy of a is now worth nothing, b a bit
    [0.0, 1.0]
    """

    def __init__(
        self,
        binned: BinnedMatrix,
        objective: Objective,
        labels=None,
        candidates=None,
        base=None,
        entropies=None,
        labelled_values=None,
        pairs=None,
    ):
        if objective.supervised and labels is None:
            raise ParameterError(f"method {objective.name!r} needs labels y.")
        self._binned = binned
        self._objective = objective
        self._labels = labels
        self._n_classes = int(labels.max()) + 1 if labels is not None else 0
        if candidates is None:
            candidates = np.arange(binned.n_features, dtype=np.int64)
        self._candidates = np.asarray(candidates, dtype=np.int64)
        self._position = {int(f): t for t, f in enumerate(self._candidates)}
        self._entropies = dict(entropies) if entropies is not None else {}
        self._pairs = pairs
        self._folded_values = labelled_values  # paired with the labels on first use: steps whose entropies
        # all come from ``entropies`` and ``pairs`` never need them
        if base is None:
            fixed, radices, names = self._label_variables()
            folded = self._folded if names else None
            base = candidate_interactions(
                binned, fixed, radices, self._candidates, names=names, cache=self._entropies, folded=folded
            )
        self._base = np.asarray(base, dtype=np.float64)
        self._selected: list[int] = []
        self._selected_scores: list[float] = []
        self._terms: dict[tuple[int, ...], np.ndarray] = {}
        self._columns: dict[int, np.ndarray] = {}
        self._score = None

    # ----------------------------------------------------------------- reading
    @property
    def selected(self) -> tuple[int, ...]:
        """Selected features, in the order they were added."""
        return tuple(self._selected)

    @property
    def selected_scores(self) -> tuple[float, ...]:
        """Score of each selected feature at the moment it was added."""
        return tuple(self._selected_scores)

    @property
    def candidates(self) -> np.ndarray:
        """Column indices that may still be added (a copy)."""
        return self._candidates.copy()

    def scores(self) -> np.ndarray:
        """Current objective of every feature (NaN for selected and non-candidates)."""
        out = np.full(self._binned.n_features, np.nan)
        current = self._current()
        out[self._candidates] = current
        out[self._selected] = np.nan
        return out

    def terms(self, feature: int) -> tuple[float, dict[tuple[int, ...], float]]:
        """What ``feature``'s current score is made of: its base term (I(x; y), or H(x) unsupervised) and the
        interaction term of each subset of the selection (seed 000, Algorithm 5), before the objective weighs
        them (its ``combine``).

        Returns
        -------
        (float, dict)
            The base term, and ``{subset of selected features: T(subset; x)}``.
        """
        feature = self._check_feature(feature)
        position = self._position[feature]
        return float(self._base[position]), {key: float(value[position]) for key, value in self._terms.items()}

    @property
    def objective(self) -> Objective:
        """The objective that scores the candidates."""
        return self._objective

    def best(self) -> int | None:
        """The unselected candidate of highest score (lowest index on ties), or None."""
        current = self._current().copy()
        for f in self._selected:
            if f in self._position:
                current[self._position[f]] = -np.inf
        if len(self._selected) >= len(self._candidates):
            return None
        return int(self._candidates[int(np.argmax(current))])

    # --------------------------------------------------------------- changing
    def step(self) -> tuple[int, float]:
        """Add the best candidate; returns it and its score."""
        feature = self.best()
        if feature is None:
            raise ParameterError("every candidate feature is already selected.")
        return feature, self.add(feature)

    def add(self, feature: int) -> float:
        """Add ``feature`` to the selection; returns its score before adding."""
        feature = self._check_feature(feature)
        if feature in self._selected:
            raise ParameterError(f"feature {feature} is already selected.")
        score = float(self._current()[self._position[feature]])
        degree = self._objective.max_degree
        if degree > 0:
            column = self._binned.column(feature)
            self._columns[feature] = column
            previous = list(self._selected)
            if self._pairs is not None:
                pair, with_labels = self._pairs.entropies(feature, self._candidates)
                self._entropies[frozenset({feature})] = pair
                if self._objective.with_labels:
                    self._entropies[frozenset({feature, "y"})] = with_labels
            for size in range(0, degree):
                for subset in combinations(previous, size):
                    key = (*subset, feature)
                    self._terms[key] = self._interaction(key)
        self._selected.append(feature)
        self._selected_scores.append(score)
        self._score = None
        return score

    def remove(self, feature: int) -> None:
        """Remove ``feature`` from the selection and every term that involves it."""
        feature = self._check_feature(feature)
        if feature not in self._selected:
            raise ParameterError(f"feature {feature} is not selected.")
        index = self._selected.index(feature)
        del self._selected[index]
        del self._selected_scores[index]
        self._terms = {key: value for key, value in self._terms.items() if feature not in key}
        self._entropies = {key: value for key, value in self._entropies.items() if feature not in _names_of(key)}
        self._columns.pop(feature, None)
        self._score = None

    # --------------------------------------------------------------- internals
    @property
    def _folded(self):
        """The stored bins paired with the labels (``binned.with_labels``), made when first asked for."""
        if self._folded_values is None and self._labels is not None:
            self._folded_values = self._binned.with_labels(self._labels, self._n_classes)
        return self._folded_values

    def _check_feature(self, feature) -> int:
        feature = int(feature)
        if feature not in self._position:
            if 0 <= feature < self._binned.n_features:
                raise ParameterError(
                    f"feature {feature} is not a candidate (it was left out by the prefilter); "
                    "raise prefilter to consider it."
                )
            raise ParameterError(f"feature {feature} does not exist; there are {self._binned.n_features} features.")
        return feature

    def _label_variables(self):
        """Fixed variables of the base term: y for I(x; y), none for H(x)."""
        if self._objective.supervised:
            return [self._labels], [self._n_classes], ["y"]
        return [], [], []

    def _interaction(self, key: tuple[int, ...]) -> np.ndarray:
        fixed = [self._columns[f] for f in key]
        radices = [self._binned.n_bins] * len(key)
        names = list(key)
        folded = None
        if self._objective.with_labels:
            fixed.append(self._labels)
            radices.append(self._n_classes)
            names.append("y")
            subsets = (frozenset(A) for size in range(len(names) + 1) for A in combinations(names, size))
            if any(subset not in self._entropies for subset in subsets):  # counted here, not all from pairs
                folded = self._folded
        return candidate_interactions(
            self._binned,
            fixed,
            radices,
            self._candidates,
            names=names,
            cache=self._entropies,
            folded=folded,
        )

    def _current(self) -> np.ndarray:
        if self._score is None:
            k = len(self._selected)
            score = self._base.copy()
            for d in range(1, self._objective.max_degree + 1):
                terms = [value for key, value in self._terms.items() if len(key) == d]
                if not terms:
                    continue
                total = terms[0].copy()
                for value in terms[1:]:
                    total += value
                score = score + self._objective.combine(d, total, k)
            self._score = score
        return self._score


def _names_of(key) -> frozenset:
    """The variable names an entropy-cache key involves."""
    return key[1] if isinstance(key, tuple) else key
