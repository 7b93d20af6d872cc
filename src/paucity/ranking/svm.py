"""RankSVM: a linear scoring function of item features learned from comparisons.

The feature baselines of seed 000, §3.5.3: each comparison ``(i, j, y)``
becomes the difference ``x_j − x_i`` of the two items' features with label
``y``, and a linear SVM without intercept separates them; the item scores are
``f(x) = wᵀ x``. With ``kernel="rbf"`` the features are first mapped by random
Fourier features, so that ``f`` is a non-linear function of ``x``.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import RBFSampler
from sklearn.svm import LinearSVC

from .._errors import InputError, ParameterError, PaucityWarning, warn
from .._validation import RANDOM_STATE, Interval, Options, check_is_fitted, check_random_state, validate_params
from .base import Ranker, as_comparisons

__all__ = ["RankSVM", "btl_scale"]

_KERNELS = ("linear", "rbf")
_POSITIVE = Interval(numbers.Real, 0, None, closed="neither")


def btl_scale(differences, outcomes, weights=None) -> float:
    """The factor ``c >= 0`` that puts score differences on BTL's log-odds scale.

    Maximizes ``Σₖ wₖ log σ(c·sₖ·dₖ) − ½ (c·r)²`` over ``c >= 0``, where
    ``dₖ = f(xⱼ) − f(xᵢ)`` is the score difference of comparison ``k``,
    ``sₖ = +1`` when ``j`` won and ``−1`` when ``i`` won, and ``r`` is the
    weighted root mean square of the ``dₖ``: the BTL log-likelihood of the
    comparisons under log-weights ``c·f``, with a standard normal prior on
    ``c·r``, the log-odds of a typical comparison.

    Parameters
    ----------
    differences : ndarray of shape (m,)
        ``f(xⱼ) − f(xᵢ)`` per comparison.
    outcomes : ndarray of {0, 1}, shape (m,)
        1 when ``j`` won.
    weights : ndarray of shape (m,), optional
        A non-negative weight per comparison.

    Returns
    -------
    float
        ``c``; 0 when the scores do not separate any comparison (all
        differences zero) or order the comparisons worse than chance.

    Notes
    -----
    Platt's calibration of a scoring function, with BTL's model and no
    intercept (``P(j ≻ i)`` is ½ when ``f(xⱼ) = f(xᵢ)``). The prior only
    matters with few comparisons, or when ``f`` orders every comparison
    correctly, where the likelihood alone grows without bound in ``c``.
    The objective is concave, so its maximum is the root of its derivative,
    found by Brent's method.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> d = rng.normal(size=20_000)                       # differences of f = v / 2
    >>> won = (rng.random(20_000) < 1 / (1 + np.exp(-2 * d))).astype(int)
    >>> round(btl_scale(d, won), 1)
    2.0
    """
    d = np.asarray(differences, dtype=np.float64)
    z = np.where(np.asarray(outcomes) == 1, d, -d)  # positive when f agrees with the outcome
    w = np.ones(len(d)) if weights is None else np.asarray(weights, dtype=np.float64)
    total = w.sum()
    if not total > 0:
        return 0.0
    r2 = float(np.dot(w, d * d) / total)
    if r2 == 0.0:
        return 0.0

    def slope(c: float) -> float:  # derivative of the objective, decreasing in c
        return float(np.dot(w, z * expit(-c * z))) - c * r2

    if slope(0.0) <= 0.0:
        return 0.0
    upper = float(np.dot(w, np.abs(z))) / r2 + 1.0  # slope(upper) < 0
    return float(brentq(slope, 0.0, upper, xtol=1e-12, rtol=1e-12))


class RankSVM(Ranker):
    """Rank items by a linear SVM on differences of their features.

    Parameters
    ----------
    kernel : {"linear", "rbf"}, default "linear"
        ``"linear"``: ``f(x) = wᵀ x`` on the item features. ``"rbf"``: the
        same on ``n_components`` random Fourier features approximating the
        RBF kernel ``exp(−gamma ‖x − x'‖²)``.
    alpha : float, default 1
        Weight of the penalty ``(alpha/2)‖w‖²`` added to the SVM's loss, the
        weighted sum over comparisons of the squared hinge
        ``max(0, 1 − ỹₖ wᵀ(xⱼ − xᵢ))²`` (``ỹₖ = ±1``). It is scikit-learn's
        ``LinearSVC(C=1/alpha)``.
    gamma : float, default 1
        RBF kernel width parameter (``kernel="rbf"`` only).
    n_components : int, default 500
        Number of random Fourier features (``kernel="rbf"`` only).
    random_state : int, numpy.random.Generator or None
        Randomness of the Fourier features and of the sign flips (below).
    C : float, deprecated
        The old name of ``1/alpha``; gives a ``FutureWarning``.

    Attributes
    ----------
    scores_ : pandas.Series
        ``f(x)`` of every item, indexed by item label (higher is better), on
        the SVM's margin scale: the hinge loss fixes a margin of 1, not a
        probability, so differences of ``scores_`` are not log-odds.
    log_scores_ : pandas.Series
        ``scale_ · (f(x) − mean f)``: ``f`` on BTL's centred log scale, by the
        factor under which BTL explains the training comparisons best
        (:func:`btl_scale`, Platt's calibration with BTL's model).
    scale_ : float
        That factor; ``predict_proba(i, j)`` is ``σ(scale_ · (f(xⱼ) − f(xᵢ)))``.
    ranking_ : pandas.Index
        Item labels, best first.
    items_ : pandas.Index
    coef_ : numpy.ndarray of shape (n_features,) or (n_components,)
        The weight vector ``w`` of the scoring function, on the item features
        or on the random features.
    feature_map_ : sklearn.kernel_approximation.RBFSampler or None
        The random feature map (``kernel="rbf"``), or None.

    Notes
    -----
    Seed 000, §3.5.3 (after Joachims' RankSVM): a comparison in which ``j``
    was preferred says that ``f(x_j) − f(x_i) = wᵀ(x_j − x_i) > 0``, so a
    linear SVM without intercept (scikit-learn's ``LinearSVC``, squared hinge
    loss) is trained on the rows ``x_j − x_i`` with labels ``y``. Because the
    model has no intercept and the loss treats the two classes alike, the row
    ``(−d, 1 − y)`` is the same constraint as ``(d, y)``: a random half of the
    rows is negated so that both classes appear even when ``j`` always won,
    which leaves the problem unchanged. With ``kernel="rbf"`` the rows are
    differences of random Fourier features (Rahimi and Recht, as the seed
    does with scikit-learn's ``RBFSampler``), on which ``f`` is again linear.

    The training matrix has a row per comparison and a column per feature
    (or random feature): ``8 m d`` bytes for ``m`` comparisons.

    Examples
    --------
    >>> from paucity.datasets import feature_experiment
    >>> from paucity.ranking.metrics import kendall_tau_b
    >>> experiment = feature_experiment(3, random_state=1)
    >>> train = experiment.comparisons(3000, random_state=1)
    >>> model = RankSVM(random_state=0).fit(train)
    >>> model.coef_.shape
    (10,)
    >>> bool(kendall_tau_b(model.scores_, experiment.log_weights) > 0.8)
    True
    """

    _parameter_constraints = {
        "kernel": [Options(*_KERNELS)],
        "alpha": [_POSITIVE],
        "gamma": [_POSITIVE],
        "n_components": [Interval(numbers.Integral, 1, None)],
        "random_state": [RANDOM_STATE],
        "C": [_POSITIVE, Options("deprecated")],
    }

    def __init__(self, kernel="linear", alpha=1.0, gamma=1.0, n_components=500, random_state=None, C="deprecated"):
        self.kernel = kernel
        self.alpha = alpha
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state
        self.C = C

    def fit(self, X, y=None, sample_weight=None):
        """Fit the scoring function.

        Parameters
        ----------
        X : Comparisons
            Comparisons with item features (``Comparisons(..., features=...)``
            or ``comparisons.with_features(...)``). An ``(m, 2)`` array of
            item pairs with ``y`` is accepted too, but carries no features.
        y, sample_weight : array-like, optional
            Outcomes and weights when ``X`` is an array of pairs.

        Returns
        -------
        self
        """
        params = validate_params(self)
        kernel = params["kernel"]
        C = 1.0 / float(params["alpha"])
        if params["C"] != "deprecated":
            if params["alpha"] != 1.0:
                raise ParameterError(
                    f"RankSVM: give alpha only (C={params['C']!r} is its deprecated inverse), not both; "
                    f"alpha={1.0 / params['C']:g} is C={params['C']!r}."
                )
            warn(
                f"RankSVM's C is deprecated and will be removed; pass alpha=1/C (alpha={1.0 / params['C']:g}), the "
                "weight of the penalty (alpha/2)‖w‖² added to the hinge loss.",
                FutureWarning,
            )
            C = float(params["C"])
        comparisons = as_comparisons(X, y, sample_weight, model="RankSVM")
        if comparisons.features is None:
            raise InputError(
                "RankSVM needs item features: build the comparisons with Comparisons(..., features=F) or "
                "comparisons.with_features(F), F holding a row of features per item."
            )
        rng = check_random_state(self.random_state)
        features = np.asarray(comparisons.features)
        if kernel == "rbf":
            feature_map = RBFSampler(
                gamma=float(params["gamma"]), n_components=int(params["n_components"]),
                random_state=int(rng.integers(2**31 - 1)),
            )
            mapped = feature_map.fit_transform(features)
        else:
            feature_map = None
            mapped = features

        rows = mapped[comparisons.j] - mapped[comparisons.i]
        labels = np.asarray(comparisons.y, dtype=np.int8).copy()
        weights = comparisons.observation_weights.copy()
        negate = rng.random(len(labels)) < 0.5
        rows[negate] *= -1.0
        labels[negate] = 1 - labels[negate]
        if labels.min() == labels.max():
            # one class only (a single comparison, say): add every row negated,
            # each copy at half weight, which is the same problem
            rows = np.concatenate([rows, -rows])
            labels = np.concatenate([labels, 1 - labels])
            weights = np.concatenate([weights, weights]) / 2.0

        coef = np.zeros(mapped.shape[1])
        if weights.sum() > 0 and np.any(rows):
            svm = LinearSVC(C=C, fit_intercept=False, random_state=int(rng.integers(2**31 - 1)))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                svm.fit(rows, labels, sample_weight=weights)
            converged = True
            for caught_warning in caught:
                if issubclass(caught_warning.category, ConvergenceWarning):
                    converged = False
                else:  # pass on anything else the solver said
                    warnings.warn_explicit(
                        caught_warning.message, caught_warning.category, caught_warning.filename, caught_warning.lineno
                    )
            if not converged:
                warn(
                    "the SVM solver did not converge; the scores may be inaccurate. Lower C or rescale the "
                    "features (for instance to unit variance).",
                    PaucityWarning,
                )
            coef = svm.coef_.ravel().astype(np.float64)
        self.coef_ = coef
        self.feature_map_ = feature_map
        scores = mapped @ coef
        self.scale_ = btl_scale(
            scores[comparisons.j] - scores[comparisons.i], comparisons.y, comparisons.observation_weights
        )
        self._set_scores(comparisons.items, scores, self.scale_ * scores)
        return self

    def _probability(self, a, b):
        f = self.scores_.to_numpy()
        return expit(self.scale_ * (f[b] - f[a]))

    def score_features(self, features) -> np.ndarray:
        """The fitted scoring function ``f(x)`` of new feature rows.

        Parameters
        ----------
        features : array-like of shape (n, n_features)
            Feature rows, in the columns the model was fitted on. A 1-D
            array is one item's features, or a value per item when the model
            has a single feature.

        Returns
        -------
        numpy.ndarray of shape (n,)

        Examples
        --------
        >>> from paucity.ranking import Comparisons
        >>> c = Comparisons([0, 1], [1, 2], [1, 1], features=[[0.0], [1.0], [2.0]])
        >>> model = RankSVM(random_state=0).fit(c)
        >>> bool(model.score_features([[5.0]])[0] > model.score_features([[3.0]])[0])
        True
        """
        check_is_fitted(self, "scores_")
        expected = self.feature_map_.n_features_in_ if self.feature_map_ is not None else len(self.coef_)
        values = check_feature_rows(features, expected)
        mapped = self.feature_map_.transform(values) if self.feature_map_ is not None else values
        return mapped @ self.coef_


def check_feature_rows(features, n_features: int) -> np.ndarray:
    """New items' feature rows for a fitted feature model: a finite (n, n_features) float array.

    A 1-D array is one item's features, or a value per item when the model
    has a single feature.
    """
    try:
        values = np.asarray(features, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("features must be a numeric array of shape (n, n_features).") from None
    if values.ndim == 1:  # a value per item of a one-feature model, or one item's features
        values = values[:, None] if n_features == 1 else values[None, :]
    if values.ndim != 2 or values.shape[1] != n_features:
        raise InputError(
            f"features has shape {values.shape} but the model was fitted on {n_features} features per item."
        )
    if not np.isfinite(values).all():
        raise InputError("features has a missing or infinite value.")
    return values
