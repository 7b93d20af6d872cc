"""What every ranking estimator shares: the input contract and the fitted views.

An estimator's ``fit`` takes a :class:`~paucity.ranking.Comparisons`, or, in
the scikit-learn way, ``X`` of shape ``(m, 2)`` holding the two items of each
comparison and ``y`` the 0/1 outcomes (1 when the second item was preferred).
After ``fit`` it has

- ``scores_``: a pandas Series indexed by item label, higher is better, on the
  estimator's own scale (RankCentrality's stationary distribution, BTL's
  log-weights, BRE's and URE's negated relative positions, RankSVM's f(x));
- ``log_scores_``: the same items on BTL's centred log scale, mean-zero
  log-weights ``v − mean(v)`` with ``P(j preferred to i) = 1 / (1 + exp(vᵢ − vⱼ))``,
  so that every estimator's output compares directly with every other's and
  with true log-weights (each class says how its scores map to this scale);
- ``ranking_`` (item labels, best first), ``order_`` and ``items_``.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from .._errors import InputError, InputTypeError, ParameterError, PaucityWarning, warn
from .._spelling import named, owner_prefix, spelled, spells
from .._validation import check_is_fitted
from .comparisons import Comparisons, require_no_ties
from .metrics import held_out_error, order_by_scores

__all__ = ["Ranker", "as_comparisons", "centred", "dask_comparisons_class", "order_by_scores"]


def centred(log_values) -> np.ndarray:
    """Log-weights shifted to mean zero, BTL's identifiable scale.

    Entries of ``-inf`` (a weight of zero) stay ``-inf`` and the finite ones
    are centred among themselves.

    Examples
    --------
    >>> centred(np.log([1.0, 2.0, 4.0])).round(4).tolist()
    [-0.6931, 0.0, 0.6931]
    """
    values = np.array(log_values, dtype=np.float64)
    finite = np.isfinite(values)
    if finite.any():
        values[finite] -= values[finite].mean()
    return values


def as_comparisons(X, y=None, sample_weight=None, *, model: str = "this estimator") -> Comparisons:
    """A :class:`Comparisons` from what ``fit`` was given, refusing draws.

    ``model`` names the caller in the error raised when the comparisons hold
    a draw (``y = 0.5``), which only ``BTL(ties=...)`` can fit.

    Examples
    --------
    >>> as_comparisons([["a", "b"], ["b", "c"]], [1, 0]).n_items
    3
    """
    if isinstance(X, Comparisons):
        if y is not None:
            raise InputError("y must not be given with a Comparisons object, which holds its own outcomes.")
        if sample_weight is not None:
            raise InputError("sample_weight must not be given with a Comparisons object; set its weights instead.")
        require_no_ties(X, model)
        return X
    if X is None:
        raise InputTypeError("fit needs a Comparisons object, or X of shape (m, 2) with y.")
    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    pairs = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise InputError(
            f"X must have shape (m, 2), the two items of each comparison, got shape {np.shape(pairs)}; "
            "or pass a paucity.ranking.Comparisons."
        )
    if y is None:
        raise InputError("y is needed with X: 1 when the second item of a row was preferred, 0 when the first was.")
    comparisons = Comparisons(pairs[:, 0], pairs[:, 1], y, weights=sample_weight)
    require_no_ties(comparisons, model)
    return comparisons


#: The largest penalty weight alpha, as a multiple of the data's total weight: beyond, the penalty outweighs every
#: comparison 10^8 times over, every score is shrunk to about (total weight) / alpha, and the order they give is
#: rounding noise (at alpha = 1e308, scores of 1e-308 and an overflow on the way).
MAX_PENALTY_RATIO = 1e8


def check_penalty(alpha: float, data, owner: str) -> None:
    """Refuse a penalty weight so large against the data that the fit would mean nothing.

    ``data`` is the comparisons (their weights summed) or rankings (counted) the fit is on.

    Examples
    --------
    >>> from paucity.ranking import Comparisons
    >>> data = Comparisons.from_winners(["a", "a", "b", "c", "c", "d"], ["b", "c", "c", "d", "a", "b"])
    >>> check_penalty(1.0, data, "BTL")
    >>> check_penalty(1e308, data, "BTL")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: BTL: alpha=1e+308 outweighs the data (total weight 6) more than 1e+08 times over: every score would shrink to about 0 and the ranking would mean nothing. Use alpha of the order of 1 (the default is 1), at most 6e+08 here.
    """
    weights = getattr(data, "observation_weights", None)
    total_weight = float(np.sum(weights())) if callable(weights) else float(len(data))
    limit = MAX_PENALTY_RATIO * max(total_weight, 1.0)
    if alpha > limit:
        raise ParameterError(
            f"{owner_prefix(owner)}{named('alpha')}{' ' if spells('alpha') else ''}"
            f"{alpha:g} outweighs the data (total weight {total_weight:g}) more than "
            f"{MAX_PENALTY_RATIO:g} times over: every score would shrink to about 0 and the ranking would mean "
            f"nothing. Use {spelled('alpha')} of the order of 1 (the default is 1), at most {limit:g} here."
        )


def dask_comparisons_class():
    """:class:`~paucity.ranking.distributed.DaskComparisons` once its module is imported, else None.

    Dask input can only exist after that module was imported, so the
    single-machine path never imports Dask to recognise it.
    """
    module = sys.modules.get("paucity.ranking.distributed")
    return None if module is None else module.DaskComparisons


def backtracking(trial_loss, loss: float, decrease: float):
    """Armijo backtracking from a full step, shared by the Newton solvers.

    Tries steps 1, 1/2, 1/4, ... down to 1e-12 and returns ``(step, trial_loss(step))`` for the first
    with ``trial_loss(step) ≤ loss + 1e-4·step·decrease + 1e-13·|loss|`` (the last term forgives the
    round-off of summing the loss over many terms), or ``(None, None)`` when none qualifies.
    ``decrease`` is the directional derivative (negative along a descent direction).

    Examples
    --------
    >>> backtracking(lambda step: (1.0 - step) ** 2, 1.0, -2.0)
    (1.0, 0.0)
    >>> backtracking(lambda step: 1.0 + step, 1.0, -2.0)
    (None, None)
    """
    step = 1.0
    while step > 1e-12:
        value = trial_loss(step)
        if value <= loss + 1e-4 * step * decrease + 1e-13 * abs(loss):
            return step, value
        step *= 0.5
    return None, None


class Ranker(BaseEstimator):
    """Base class of the ranking estimators (not used directly)."""

    def _set_scores(self, items: pd.Index, values: np.ndarray, log_values: np.ndarray, rng=None) -> None:
        """Set the fitted views from the scores on the estimator's scale and on BTL's log scale.

        ``log_values`` must order the items as ``values`` does (a map that does
        not decrease); it is centred here.
        """
        values = np.asarray(values, dtype=np.float64)
        self.items_ = items
        self.n_items_ = len(items)
        self.scores_ = pd.Series(values, index=items, name="score")
        self.log_scores_ = pd.Series(centred(log_values), index=items, name="log_score")
        self.order_ = order_by_scores(values, rng)
        self.ranking_ = items[self.order_]

    def _keep_likelihood_fit(self, items: pd.Index, result, unconverged: str, stacklevel: int) -> None:
        """The fitted attributes of a likelihood estimator from its solver's result (``log_weights``,
        ``log_likelihood``, ``n_iter``, ``converged``), with a ``PaucityWarning`` saying ``unconverged``
        when the solver stopped short (``stacklevel`` counted from the caller)."""
        if not result.converged:
            warn(unconverged, PaucityWarning)
        self.log_likelihood_ = result.log_likelihood
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self._set_scores(items, result.log_weights, result.log_weights)

    def _positions(self, labels, name: str) -> np.ndarray:
        scalar = np.ndim(labels) == 0 and not isinstance(labels, (list, tuple, np.ndarray, pd.Index, pd.Series))
        values = [labels] if scalar else list(labels)
        index = pd.Index(values, dtype=object) if len(values) else pd.Index([], dtype=object)
        codes = self.items_.get_indexer(index) if len(index) else np.zeros(0, dtype=np.int64)
        if (codes < 0).any():
            first = index[int(np.flatnonzero(codes < 0)[0])]
            raise InputError(f"{name} names item {first!r}, which was not among the items this model was fitted on.")
        return codes

    def _pairs(self, i, j):
        check_is_fitted(self, "scores_")
        a = self._positions(i, "i")
        b = self._positions(j, "j")
        if len(a) != len(b):
            raise InputError(f"i has {len(a)} items but j has {len(b)}; give the two items of each pair.")
        return a, b

    def _probability(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not define a probability that j is preferred to i.")

    def predict_proba(self, i, j):
        """Probability that ``j`` is preferred to ``i`` under the fitted model.

        ``i`` and ``j`` are item labels (or equal-length sequences of them);
        returns a float for one pair and an array for several.
        """
        a, b = self._pairs(i, j)
        out = self._probability(a, b)
        return float(out[0]) if np.ndim(i) == 0 and not isinstance(i, (list, tuple)) else out

    def predict(self, X):
        """Predicted outcome (1 when the second item of a row is scored higher) of pairs ``X`` of shape (m, 2)."""
        pairs = _pair_array(X)
        a, b = self._pairs(pairs[:, 0], pairs[:, 1])
        scores = self.scores_.to_numpy()
        return (scores[b] > scores[a]).astype(np.int8)

    def score(self, X, y=None, sample_weight=None) -> float:
        """Fraction of held-out comparisons whose winner is the higher-scored item (ties count half)."""
        check_is_fitted(self, "scores_")
        held = as_comparisons(X, y, sample_weight, model=f"{type(self).__name__}.score")
        return 1.0 - held_out_error(self.scores_, held)


def _pair_array(X) -> np.ndarray:
    if isinstance(X, Comparisons):
        return np.column_stack([X.items[X.i], X.items[X.j]])
    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    pairs = np.asarray(X, dtype=object)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise InputError(f"X must have shape (m, 2), the two items of each pair, got shape {pairs.shape}.")
    return pairs
