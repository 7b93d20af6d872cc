"""SiameseRanker: a small shared-weight network of item features learned from comparisons.

The third feature baseline of seed 000, §3.5.3 (after Bromley et al.'s
Siamese networks): one tower ``f`` scores both items of a comparison, and
``P(j ≻ i) = σ(f(x_j) − f(x_i))``. Because the two copies share their
weights, ``f`` is a single non-linear scoring function of the features.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from .._errors import InputError, PaucityWarning, warn
from .._progress import progress_bar
from .._validation import (
    BOOLEAN,
    RANDOM_STATE,
    Instance,
    Interval,
    check_is_fitted,
    check_parameter,
    check_random_state,
    validate_params,
)
from .base import Ranker, as_comparisons
from .svm import check_feature_rows

__all__ = ["SiameseRanker"]

# scores spanning less than this (on the log-odds scale) mean a network shrunk to a constant by the penalty
_COLLAPSED_SPREAD = 1e-6


def _shapes(n_features: int, hidden: tuple[int, ...]) -> list[tuple[int, int]]:
    sizes = [n_features, *hidden, 1]
    return [(sizes[k], sizes[k + 1]) for k in range(len(sizes) - 1)]


def _unpack(theta: np.ndarray, shapes) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Weight matrices and hidden-layer biases (the output layer has none) from the flat vector."""
    weights, biases, start = [], [], 0
    for k, (n_in, n_out) in enumerate(shapes):
        weights.append(theta[start:start + n_in * n_out].reshape(n_in, n_out))
        start += n_in * n_out
        if k < len(shapes) - 1:
            biases.append(theta[start:start + n_out])
            start += n_out
    return weights, biases


def _n_parameters(shapes) -> int:
    return sum(n_in * n_out for n_in, n_out in shapes) + sum(n_out for _, n_out in shapes[:-1])


def _tower(theta, shapes, X):
    """``f(X)`` and the hidden activations (for the backward pass)."""
    weights, biases = _unpack(theta, shapes)
    activations = [X]
    h = X
    for W, b in zip(weights[:-1], biases):
        h = np.tanh(h @ W + b)
        activations.append(h)
    return (h @ weights[-1]).ravel(), activations


def _objective(theta, shapes, X, i, j, signs, weights, alpha):
    """Mean weighted logistic loss of the score differences plus ½·alpha·‖W‖², and its gradient."""
    f, activations = _tower(theta, shapes, X)
    z = signs * (f[j] - f[i])  # positive when f agrees with the outcome
    loss = -float(np.dot(weights, log_expit(z)))
    # d loss / d f: each comparison pushes its winner up and its loser down
    slope = -weights * signs * expit(-z)
    upstream = np.bincount(j, slope, minlength=len(f)) - np.bincount(i, slope, minlength=len(f))
    W, _ = _unpack(theta, shapes)
    grads_W, grads_b = [None] * len(W), [None] * (len(W) - 1)
    delta = upstream[:, None]
    for k in range(len(W) - 1, -1, -1):
        grads_W[k] = activations[k].T @ delta + alpha * W[k]
        if k > 0:
            delta = (delta @ W[k].T) * (1.0 - activations[k] ** 2)
            grads_b[k - 1] = delta.sum(axis=0)
    penalty = 0.5 * alpha * sum(float(np.sum(w * w)) for w in W)
    gradient = []
    for k in range(len(W)):
        gradient.append(grads_W[k].ravel())
        if k < len(W) - 1:
            gradient.append(grads_b[k])
    return loss + penalty, np.concatenate(gradient)


class SiameseRanker(Ranker):
    """Rank items by a small shared-weight neural network on their features.

    Parameters
    ----------
    hidden : tuple of int, default (16,)
        Widths of the tower's hidden layers (tanh units); ``(16,)`` is one
        hidden layer of 16 units.
    alpha : float, default 1e-4
        Weight of the penalty ``(alpha/2)·Σ‖W‖²`` on the weight matrices (not
        the biases), added to the loss: the mean over comparisons (weighted)
        of ``−log σ(±(f(x_j) − f(x_i)))``, the sign ``+`` when ``j`` won.
    max_iter : int, default 500
        Most L-BFGS iterations.
    tol : float, default 1e-7
        L-BFGS stops when the relative decrease of the objective falls below it.
    random_state : int, numpy.random.Generator or None
        Randomness of the initial weights.
    progress : bool, default False
        Draw a progress bar over the iterations.

    Attributes
    ----------
    scores_ : pandas.Series
        ``f(x)`` of every item, indexed by item label (higher is better). The
        loss is BTL's likelihood with log-weights ``f``, so differences of
        ``scores_`` are log-odds.
    log_scores_ : pandas.Series
        ``f(x) − mean f``: BTL's centred log scale directly.
    ranking_ : pandas.Index
        Item labels, best first.
    items_ : pandas.Index
    coefs_ : list of numpy.ndarray
        The weight matrices, input to output.
    intercepts_ : list of numpy.ndarray
        The hidden layers' biases (the output has none: it cancels in ``f(x_j) − f(x_i)``).
    feature_mean_, feature_scale_ : numpy.ndarray of shape (n_features,)
        The features are standardized with these before entering the tower.
    n_iter_ : int
        L-BFGS iterations run.
    loss_ : float
        The objective at the fitted weights.

    Notes
    -----
    Seed 000, §3.5.3: two identical copies of a network score the two items,
    the difference of their outputs goes through a sigmoid, so that
    ``g(x, y) = 1 − g(y, x)``. The seed's network (Keras) has two hidden
    layers of 20 ReLU units with dropout 0.1 and is trained by stochastic
    gradient steps; here the tower has smooth tanh units, no dropout, an L2
    penalty, and is trained full-batch by L-BFGS (scipy) with the analytic
    gradient, which makes a fit deterministic given ``random_state``. The
    tower is evaluated once per item and the loss's gradient with respect to
    the item scores is back-propagated once: the cost of an iteration is
    ``O(n·p + m)`` for ``n`` items, ``p`` weights and ``m`` comparisons.

    Examples
    --------
    >>> from paucity.datasets import feature_experiment
    >>> from paucity.ranking.metrics import kendall_tau_b
    >>> experiment = feature_experiment(1, random_state=1)
    >>> train = experiment.comparisons(3000, random_state=1)
    >>> model = SiameseRanker(random_state=0).fit(train)
    >>> bool(kendall_tau_b(model.scores_, experiment.log_weights) > 0.8)
    True
    >>> abs(float(model.log_scores_.mean())) < 1e-9
    True
    """

    _parameter_constraints = {
        "hidden": [Instance(tuple, list, description="a tuple of positive layer widths")],
        "alpha": [Interval(numbers.Real, 0, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": [RANDOM_STATE],
        "progress": [BOOLEAN],
    }

    def __init__(self, hidden=(16,), alpha=1e-4, max_iter=500, tol=1e-7, random_state=None, progress=False):
        self.hidden = hidden
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.progress = progress

    def fit(self, X, y=None, sample_weight=None):
        """Fit the scoring network.

        Parameters
        ----------
        X : Comparisons
            Comparisons with item features (``Comparisons(..., features=...)``
            or ``comparisons.with_features(...)``).
        y, sample_weight : array-like, optional
            Outcomes and weights when ``X`` is an array of pairs (which
            carries no features, so it is refused).

        Returns
        -------
        self
        """
        params = validate_params(self)
        hidden = tuple(params["hidden"])
        for width in hidden:
            check_parameter(width, "hidden", [Interval(numbers.Integral, 1, None)], owner="SiameseRanker")
        comparisons = as_comparisons(X, y, sample_weight, model="SiameseRanker")
        if comparisons.features is None:
            raise InputError(
                "SiameseRanker needs item features: build the comparisons with Comparisons(..., features=F) or "
                "comparisons.with_features(F), F holding a row of features per item."
            )
        rng = check_random_state(self.random_state)
        features = np.asarray(comparisons.features, dtype=np.float64)
        mean = features.mean(axis=0)
        scale = features.std(axis=0)
        scale[scale == 0] = 1.0
        Z = (features - mean) / scale

        shapes = _shapes(Z.shape[1], hidden)
        theta0 = []
        for k, (n_in, n_out) in enumerate(shapes):  # Glorot's uniform initialization, zero biases
            bound = np.sqrt(6.0 / (n_in + n_out))
            theta0.append(rng.uniform(-bound, bound, size=n_in * n_out))
            if k < len(shapes) - 1:
                theta0.append(np.zeros(n_out))
        theta0 = np.concatenate(theta0)

        weights = comparisons.observation_weights.astype(np.float64)
        total = weights.sum()
        weights = weights / total if total > 0 else weights
        signs = np.where(np.asarray(comparisons.y) == 1, 1.0, -1.0)
        i = np.asarray(comparisons.i, dtype=np.intp)
        j = np.asarray(comparisons.j, dtype=np.intp)
        args = (shapes, Z, i, j, signs, weights, float(params["alpha"]))
        with progress_bar(int(params["max_iter"]), "Siamese network", enabled=bool(params["progress"])) as bar:
            result = minimize(
                _objective, theta0, args=args, jac=True, method="L-BFGS-B",
                callback=lambda _: bar.advance(),
                options={"maxiter": int(params["max_iter"]), "ftol": float(params["tol"]), "gtol": 1e-9},
            )
        if not result.success and result.nit >= int(params["max_iter"]):
            warn(
                f"SiameseRanker: L-BFGS stopped after max_iter={params['max_iter']} iterations before converging; "
                "the scores may be inaccurate. Raise max_iter or alpha.",
                PaucityWarning,
            )
        theta = result.x
        W, b = _unpack(theta, shapes)
        self.coefs_ = [w.copy() for w in W]
        self.intercepts_ = [v.copy() for v in b]
        self.feature_mean_ = mean
        self.feature_scale_ = scale
        self.n_iter_ = int(result.nit)
        self.loss_ = float(result.fun)
        self._shapes = shapes
        self._theta = theta
        scores, _ = _tower(theta, shapes, Z)
        if np.ptp(scores) < _COLLAPSED_SPREAD:
            warn(
                f"SiameseRanker: the penalty alpha={params['alpha']:g} shrank the network to a constant (its scores "
                f"span {np.ptp(scores):.1e}, every predicted probability is 0.5); their order is round-off, not a "
                "ranking. Lower alpha.",
                PaucityWarning,
            )
        self._set_scores(comparisons.items, scores, scores)
        return self

    def _probability(self, a, b):
        f = self.scores_.to_numpy()
        return expit(f[b] - f[a])

    def score_features(self, features) -> np.ndarray:
        """The fitted scoring function ``f(x)`` of new feature rows.

        Parameters
        ----------
        features : array-like of shape (n, n_features)
            Feature rows, in the columns the model was fitted on. A 1-D array
            is one item's features, or a value per item when the model has a
            single feature.

        Returns
        -------
        numpy.ndarray of shape (n,)
        """
        check_is_fitted(self, "scores_")
        values = check_feature_rows(features, len(self.feature_mean_))
        scores, _ = _tower(self._theta, self._shapes, (values - self.feature_mean_) / self.feature_scale_)
        return scores
