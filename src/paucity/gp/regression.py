"""Heavy-tailed process regression (HPR): Gaussian process regression in z-space (seed 003, eqs. 4.4-4.7).

A heavy-tailed process is a Gaussian process z pushed through the copula map
``f = G_b⁻¹(Φ_{0,σ²}(z))`` (eq. 4.3). Observing ``f(X) = y`` is observing
``z(X) = unwarp(y)``, so regression on f reduces to ordinary Gaussian process
regression on the unwarped observations (eqs. 4.5-4.7), and every f-space
quantity follows by a change of variables.

- :class:`HeavyTailedProcessRegressor`: the estimator (scikit-learn contract).
- :func:`gp_posterior`: the z-space posterior mean and variance (4.6-4.7) on arrays.
- :func:`log_prior_density`: the density of f(X) (4.4) on arrays.
- :func:`selective_shrinkage_gram` and :func:`selective_shrinkage`: the
  idealized set-up of §4.4 (n − 1 coincident "dense" points and one isolated
  point) and inequality (4.8).

Threshold of the seed's slope condition. The map ``f(z) = b·H(z/σ)`` has
slope ``(b/σ)·H'(z/σ)``; for the three heavy-tailed marginals ``H`` is
strictly convex on ``[0, ∞)`` (odd, so concave on ``(−∞, 0]``), its slope is
smallest at 0, where ``H'(0) = φ(0) / g_1(0)``. Each of them has
``g_1(0) = 1/2``, so the slope exceeds 1 everywhere exactly when
``b > σ·g_1(0)/φ(0) = σ·√(π/2) ≈ 1.2533·σ`` (Laplace, hyperbolic secant and
Student-t-inspired alike). For ``"gaussian"`` the map is the line
``(b/σ)·z``: slope above 1 when ``b > σ``, but never strictly convex.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse
from scipy.special import ndtri
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Kernel

from .._errors import InputError, ParameterError, ShapeMismatchError, warn
from .._validation import CALLABLE, Instance, Interval, Options, check_is_fitted, check_matrix, validate_params
from .marginals import MARGINALS, get_marginal, log_density, unwarp, warp

__all__ = [
    "HeavyTailedProcessRegressor",
    "Predictive",
    "gp_posterior",
    "log_prior_density",
    "selective_shrinkage_gram",
    "selective_shrinkage",
    "Shrinkage",
    "slope_threshold",
]

_LOG_2PI = np.log(2.0 * np.pi)


class Predictive(NamedTuple):
    """A Gaussian predictive distribution in z-space: ``N(mean, variance)`` per test point."""

    mean: np.ndarray
    variance: np.ndarray


# --- algorithms on arrays ---------------------------------------------------------------------------------------


def _cholesky(K: np.ndarray, noise: float):
    """Lower Cholesky factor of ``K + noise·I``, or a paucity error saying how to fix it."""
    A = np.array(K, dtype=float, copy=True)
    A[np.diag_indices_from(A)] += noise
    try:
        return scipy.linalg.cholesky(A, lower=True, check_finite=True)
    except (np.linalg.LinAlgError, ValueError):
        raise InputError(
            f"K(X, X) + noise·I is not positive definite (noise={noise!r}, {A.shape[0]} training points); "
            "increase noise or remove duplicated training points."
        ) from None


def gp_posterior(K, z, K_cross, prior_variance, *, noise: float) -> Predictive:
    """The Gaussian process posterior in z-space at test points (eqs. 4.5-4.7).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        ``K̃(X, X)``, the kernel at the training locations, without noise.
    z : ndarray of shape (n,)
        Observations in z-space.
    K_cross : ndarray of shape (m, n)
        ``K̃(X*, X)``.
    prior_variance : ndarray of shape (m,)
        ``K̃(x*, x*)`` for each test point.
    noise : float
        ε, added to the diagonal of the training kernel: ``K = K̃ + εI``.

    Returns
    -------
    Predictive
        ``mean = K̃(X*, X) K⁻¹ z`` and ``variance = K̃(x*, x*) − K̃(x*, X) K⁻¹ K̃(X, x*)``
        (the latent process, without ε; negative round-off is clipped to 0).

    Notes
    -----
    Seed 003, eqs. (4.6)-(4.7), and the ``μ_i``, ``σ_i²`` of §4.4 (whose
    ``σ_i²`` adds ε to the prior variance; both sides of §4.4's comparisons
    shift by the same ε).

    Examples
    --------
    >>> import numpy as np
    >>> post = gp_posterior(np.eye(2), np.array([1.0, -1.0]), np.array([[1.0, 0.0]]), np.ones(1), noise=1.0)
    >>> np.round(post.mean, 6), np.round(post.variance, 6)
    (array([0.5]), array([0.5]))
    """
    L = _cholesky(K, noise)
    dual = scipy.linalg.cho_solve((L, True), np.asarray(z, dtype=float))
    K_cross = np.asarray(K_cross, dtype=float)
    mean = K_cross @ dual
    V = scipy.linalg.solve_triangular(L, K_cross.T, lower=True)
    variance = np.maximum(np.asarray(prior_variance, dtype=float) - np.einsum("ij,ij->j", V, V), 0.0)
    return Predictive(mean, variance)


def log_prior_density(f, K, *, marginal="laplace", b: float = 1.0, sigma: float = 1.0):
    """``log p(f(X))`` of the heavy-tailed process at n locations (eq. 4.4).

    Parameters
    ----------
    f : array_like of shape (..., n)
        Values of the process in f-space; leading axes are batches.
    K : ndarray of shape (n, n)
        ``K(X, X)`` of the underlying Gaussian process, positive definite
        (noise included, if any).
    marginal : {"laplace", "hypsecant", "student", "gaussian"}
    b, sigma : float
        Scale of the marginal ``G_b`` and σ of ``Φ_{0,σ²}``.

    Returns
    -------
    ndarray of shape (...)

    Notes
    -----
    Seed 003, eq. (4.4):
    ``log p(f) = Σ log g_b(f_i) − ½ log|K/σ²| − ½ z(f)ᵀ (K⁻¹ − I/σ²) z(f)``.
    It is the change of variables ``N(z(f); 0, K)·Π dz_i/df_i`` with
    ``dz/df = g_b(f) / φ_σ(z)``, so it is a normalized density for every
    positive definite K. Its one-dimensional marginals are ``g_b`` exactly
    when ``diag(K) = σ²1`` (the seed's assumption in §4.3); otherwise the
    marginal of ``f_i`` is the law of the map applied to ``N(0, K_ii)``.
    With ``K = σ²I`` it is ``Σ log g_b(f_i)``.

    Examples
    --------
    >>> import numpy as np
    >>> f = np.array([0.3, -1.2])
    >>> bool(np.isclose(log_prior_density(f, 4.0 * np.eye(2), b=1.5, sigma=2.0),
    ...                 log_density(f, "laplace", b=1.5).sum()))
    True
    """
    f = np.asarray(f, dtype=float)
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ShapeMismatchError(f"K must be a square matrix, got shape {K.shape}.")
    if f.ndim == 0 or f.shape[-1] != K.shape[0]:
        raise ShapeMismatchError(
            f"f has shape {f.shape} but its last axis must have {K.shape[0]} entries, one per row of K."
        )
    L = _cholesky(K, 0.0)
    z = unwarp(f, marginal, b=b, sigma=sigma)
    n = K.shape[0]
    flat = z.reshape(-1, n)
    W = scipy.linalg.solve_triangular(L, flat.T, lower=True)
    quad = np.einsum("ij,ij->j", W, W) - np.einsum("ij,ij->i", flat, flat) / sigma**2
    logdet = 2.0 * np.log(np.diag(L)).sum() - n * np.log(sigma**2)
    out = log_density(f, marginal, b=b).sum(axis=-1) - 0.5 * logdet - 0.5 * quad.reshape(z.shape[:-1])
    return out


def slope_threshold(marginal="laplace", *, sigma: float = 1.0) -> float:
    """The scale b above which the map ``G_b⁻¹(Φ_{0,σ²}(·))`` has slope > 1 everywhere (§4.4).

    ``σ·g_1(0)/φ(0)``: ``σ·√(π/2)`` for the three heavy-tailed marginals
    (each has ``g_1(0) = 1/2``), ``σ`` for ``"gaussian"``.

    Examples
    --------
    >>> round(slope_threshold("laplace"), 4), slope_threshold("gaussian", sigma=2.0)
    (1.2533, 2.0)
    """
    g0 = float(np.exp(log_density(0.0, get_marginal(marginal).name, b=1.0)))
    return float(float(sigma) * g0 * np.sqrt(2.0 * np.pi))


def selective_shrinkage_gram(n: int, *, noise: float = 1.0) -> np.ndarray:
    """``K̃`` of §4.4: n − 1 coincident "dense" points and one isolated point, last.

    ``K̃(x_d, x_d') = 1`` among the dense points, ``K̃(x_d, x_s) = 0`` and
    ``K̃(x_s, x_s) = ε/(ε + n − 2)``. The regression kernel is ``K̃ + εI``.

    Examples
    --------
    >>> selective_shrinkage_gram(3, noise=1.0)
    array([[1. , 1. , 0. ],
           [1. , 1. , 0. ],
           [0. , 0. , 0.5]])
    """
    n = int(n)
    if n <= 2:
        raise ParameterError(f"n must be at least 3 (n - 1 dense points and one isolated point), got {n}.")
    if not (np.isfinite(noise) and noise > 0):
        raise ParameterError(f"noise must be a positive number (the ε of §4.4), got {noise!r}.")
    K = np.zeros((n, n))
    K[: n - 1, : n - 1] = 1.0
    K[n - 1, n - 1] = noise / (noise + n - 2)
    return K


@dataclass(frozen=True)
class Shrinkage:
    """The §4.4 comparison for one y in 𝒴_gp.

    Attributes
    ----------
    y, y_warped : ndarray of shape (n,)
        The GPR observations (dense first, isolated last) and ``y' = G_b⁻¹(Φ_{0,σ²}(y))``.
    gp_mean, gp_variance : ndarray of shape (n,)
        GPR posterior of z at each training point given y (equal at every point).
    hp_mean, hp_variance : ndarray of shape (n,)
        HPR z-space posterior given y' (equal at every point, and equal to GPR's).
    lhs, rhs : float
        The two sides of inequality (4.8): ``|y'(x_s)|`` and ``|y'(x_d*)/y(x_d*)·y(x_s)|``.
    """

    y: np.ndarray
    y_warped: np.ndarray
    gp_mean: np.ndarray
    gp_variance: np.ndarray
    hp_mean: np.ndarray
    hp_variance: np.ndarray
    lhs: float
    rhs: float

    @property
    def ratio(self) -> float:
        """``lhs / rhs``: how much larger the isolated f-space observation is than linear scaling gives."""
        return self.lhs / self.rhs


def selective_shrinkage(y_dense, *, marginal="laplace", b: float = 1.0, sigma: float = 1.0,
                        noise: float = 1.0) -> Shrinkage:
    """The idealized comparison of GPR and HPR shrinkage of §4.4, and inequality (4.8).

    Parameters
    ----------
    y_dense : array_like of shape (n - 1,)
        GPR observations at the n − 1 dense points, all of one sign, not all zero
        (n ≥ 3). The isolated observation is their sum, ``y(x_s) = Σ_d y(x_d)``,
        which puts y in 𝒴_gp.
    marginal, b, sigma
        The heavy-tailed process.
    noise : float
        ε of §4.4.

    Returns
    -------
    Shrinkage

    Notes
    -----
    Seed 003, §4.4 and inequality (4.8). With ``K = K̃ + εI`` from
    :func:`selective_shrinkage_gram`, GPR gives ``σ_d² = σ_s²`` and
    ``μ_d = Σ_d y_d / (ε + n − 1) = μ_s = y_s / (ε + n − 1)``; HPR on
    ``y' = G_b⁻¹(Φ(y))`` gives the same z-space posteriors, so y' ∈ 𝒴_hp.

    Inequality (4.8) says ``f(y_s)/y_s > f(y_d*)/y_d*`` for the map f: it holds
    whenever f is strictly convex on ``[0, ∞)`` (odd) and ``|y_s| > |y_d*|``,
    which is true for every b > 0 for the three heavy-tailed marginals — the
    seed's slope > 1 condition (:func:`slope_threshold`) is sufficient, not
    needed. Because ``f = b·H(z/σ)``, the ratio of the two sides does not
    depend on b; their difference grows linearly in b. For ``"gaussian"``
    the two sides are equal.

    Examples
    --------
    >>> out = selective_shrinkage([0.5, 0.5, 0.5], marginal="laplace", b=2.0)
    >>> bool(np.allclose(out.hp_mean, out.hp_mean[0])), round(out.lhs, 3), round(out.rhs, 3)
    (True, 4.026, 2.897)
    """
    y_dense = np.asarray(y_dense, dtype=float).ravel()
    if y_dense.size < 2:
        raise ParameterError(f"y_dense needs at least 2 values (n >= 3), got {y_dense.size}.")
    if not np.isfinite(y_dense).all():
        raise InputError("y_dense has NaN or infinite values; pass finite observations.")
    if not ((y_dense >= 0).all() or (y_dense <= 0).all()) or not y_dense.any():
        raise InputError("y_dense must be all of one sign and not all zero, as §4.4 requires.")
    n = y_dense.size + 1
    K = selective_shrinkage_gram(n, noise=noise)
    y = np.append(y_dense, y_dense.sum())
    diag = np.diag(K)
    gp = gp_posterior(K, y, K, diag, noise=noise)
    y_warped = warp(y, marginal, b=b, sigma=sigma).f
    hp = gp_posterior(K, unwarp(y_warped, marginal, b=b, sigma=sigma), K, diag, noise=noise)
    d_star = int(np.argmax(np.abs(y_dense)))
    lhs = float(abs(y_warped[-1]))
    rhs = float(abs(y_warped[d_star] / y[d_star] * y[-1]))
    return Shrinkage(y=y, y_warped=y_warped, gp_mean=gp.mean, gp_variance=gp.variance, hp_mean=hp.mean,
                     hp_variance=hp.variance, lhs=lhs, rhs=rhs)


# --- the estimator ----------------------------------------------------------------------------------------------


def _gram(kernel, A, B=None) -> np.ndarray:
    K = np.asarray(kernel(A, A if B is None else B), dtype=float)
    expected = (A.shape[0], (A if B is None else B).shape[0])
    if K.shape != expected or not np.isfinite(K).all():
        raise InputError(
            f"kernel returned {'a non-finite matrix' if K.shape == expected else f'shape {K.shape}'} "
            f"where a finite matrix of shape {expected} was expected; check the kernel."
        )
    return K


def _diag(kernel, A) -> np.ndarray:
    if isinstance(kernel, Kernel):
        d = np.asarray(kernel.diag(A), dtype=float)
    else:
        d = np.array([_gram(kernel, A[i : i + 1])[0, 0] for i in range(A.shape[0])], dtype=float)
    return d


class HeavyTailedProcessRegressor(RegressorMixin, BaseEstimator):
    """Heavy-tailed process regression: a Gaussian process seen through the copula map f = G_b⁻¹(Φ_{0,σ²}(z)).

    Parameters
    ----------
    marginal : {"laplace", "hypsecant", "student", "gaussian"}, default "laplace"
        The marginal ``G_b`` of the process. ``"gaussian"`` with ``b = sigma``
        is ordinary Gaussian process regression.
    kernel : scikit-learn kernel or callable, default None
        ``K̃``, the covariance of the Gaussian process z. A callable is called
        as ``kernel(A, B)`` and returns the matrix ``K̃(A, B)`` (its diagonal is
        taken one point at a time). None is ``ConstantKernel(sigma**2) * RBF(1.0)``,
        whose diagonal is σ² as eq. (4.4) assumes. The kernel is used as given:
        its parameters are not fitted.
    b : float, default 1.0
        Scale of the marginal, > 0.
    sigma : float, default 1.0
        σ of ``Φ_{0,σ²}`` in the map, > 0. The marginals of f are exactly
        ``g_b`` when ``K̃(x, x) + noise = σ²``.
    noise : float, default 1e-10
        ε added to the diagonal of the training kernel in z-space,
        ``K = K̃(X, X) + εI`` (§4.4). It is not a penalty weight.

    Attributes
    ----------
    kernel_ : kernel or callable
        The kernel used.
    X_train_ : ndarray of shape (n_samples, n_features)
    n_features_in_ : int
    z_train_ : ndarray of shape (n_samples,)
        The observations mapped to z-space, ``unwarp(y)``.
    dual_coef_ : ndarray of shape (n_samples,)
        ``K⁻¹ z_train_``.
    log_marginal_likelihood_ : float
        ``log p(y)`` of the observations under the process with ``K = K̃ + εI``
        (eq. 4.4 at the training locations).

    Notes
    -----
    Seed 003, §4.3. Observing ``f(X) = y`` is observing ``z(X) = z(y) =
    σ·Φ⁻¹(G_b(y))``, so the z-space predictive is Gaussian, ``N(μ*, Σ*)``
    with ``μ* = K̃(x*, X) K⁻¹ z(y)`` and ``Σ* = K̃(x*, x*) − K̃(x*, X) K⁻¹ K̃(X, x*)``
    (eqs. 4.5-4.7; the latent process, without ε). The f-space predictive is
    its image under the increasing map ``G_b⁻¹(Φ_{0,σ²}(·))``; its density is
    :meth:`predictive_logpdf`, and the prior density of f(X) is eq. (4.4)
    (:meth:`log_prior_density`).

    :meth:`predict` returns the f-space predictive **median**, the map applied to
    μ*: a monotone map carries quantiles to quantiles, so the median always
    exists and is exact, while the mean of the heavy-tailed predictive need
    not exist (for ``"student"``, whose tails decay like ``|f|⁻³``, the
    f-space mean is infinite once Σ* ≥ 2σ² and the variance once Σ* ≥ σ²).
    The spread returned with ``return_std=True`` is likewise quantile-based:
    half the distance between the f-space 15.87 % and 84.13 % quantiles,
    ``(f(μ* + √Σ*) − f(μ* − √Σ*)) / 2``, which is the standard deviation for
    ``"gaussian"``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.2], [0.4], [3.0]])
    >>> y = np.array([1.0, 1.2, 0.9, 4.0])
    >>> model = HeavyTailedProcessRegressor(marginal="laplace", b=2.0, noise=0.1).fit(X, y)
    >>> np.round(model.predict(np.array([[0.1], [3.0], [6.0]])), 3)
    array([1.002, 3.492, 0.024])
    >>> post = model.predict_distribution(np.array([[3.0]]))
    >>> round(float(post.mean[0]), 3), round(float(post.variance[0]), 3)
    (1.358, 0.091)
    """

    _parameter_constraints = {
        "marginal": [Options(*MARGINALS)],
        "kernel": [None, Instance(Kernel, description="a scikit-learn kernel"), CALLABLE],
        "b": [Interval(numbers.Real, 0, None, closed="neither")],
        "sigma": [Interval(numbers.Real, 0, None, closed="neither")],
        "noise": [Interval(numbers.Real, 0, None, closed="left")],
    }
    _parameter_hints = {
        "b": "b is the scale of the heavy-tailed marginal; try 1.0.",
        "sigma": "sigma is the standard deviation in the Gaussian c.d.f. of the map; try 1.0.",
        "noise": "noise is the variance added to the kernel's diagonal in z-space; try 1e-10 (or larger for noisy data).",
    }

    def __init__(self, marginal="laplace", kernel=None, b=1.0, sigma=1.0, noise=1e-10):
        self.marginal = marginal
        self.kernel = kernel
        self.b = b
        self.sigma = sigma
        self.noise = noise

    # -- fitting --

    def fit(self, X, y):
        """Map y to z-space and condition the Gaussian process on it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Observations of f, finite.

        Returns
        -------
        self
        """
        params = validate_params(self)
        X = self._check_X(X, min_samples=1, fitted=False)
        y = self._check_y(y, X.shape[0])
        kernel = params["kernel"]
        if kernel is None:
            kernel = ConstantKernel(float(params["sigma"]) ** 2, constant_value_bounds="fixed") * RBF(
                1.0, length_scale_bounds="fixed"
            )
        self._marginal = params["marginal"]
        self._b, self._sigma, self._noise = float(params["b"]), float(params["sigma"]), float(params["noise"])
        z = unwarp(y, self._marginal, b=self._b, sigma=self._sigma)
        K = _gram(kernel, X)
        L = _cholesky(K, self._noise)
        self.kernel_ = kernel
        self.X_train_ = X
        self.n_features_in_ = X.shape[1]
        self.z_train_ = z
        self._L = L
        self.dual_coef_ = scipy.linalg.cho_solve((L, True), z)
        Kn = K.copy()
        Kn[np.diag_indices_from(Kn)] += self._noise
        self.log_marginal_likelihood_ = float(
            log_prior_density(y, Kn, marginal=self._marginal, b=self._b, sigma=self._sigma)
        )
        return self

    def _check_X(self, X, *, min_samples=1, name="X", fitted=True):
        if scipy.sparse.issparse(X):
            raise InputError(f"{name} is sparse; sparse input is not supported: pass a dense array ({name}.toarray()).")
        X = check_matrix(X, name=name, nonnegative=False, sparse_format=None, dtype=np.float64,
                         min_samples=min_samples)
        if fitted and X.shape[1] != self.X_train_.shape[1]:
            raise ShapeMismatchError(
                f"{name} has {X.shape[1]} features, but {type(self).__name__} is expecting {self.n_features_in_} "
                "features as input; pass points with the training data's columns."
            )
        return X

    @staticmethod
    def _check_y(y, n_samples, name="y"):
        if y is None:
            raise InputError(
                "HeavyTailedProcessRegressor requires y to be passed, but the target y is None; pass the observations of f."
            )
        try:
            y = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{name} must hold real numbers (observations of f).") from None
        if y.ndim == 2 and y.shape[1] == 1:
            warn(
                f"A column-vector y was passed when a 1d array was expected; pass {name} of shape (n_samples,).",
                DataConversionWarning,
            )
            y = y[:, 0]
        if y.ndim != 1:
            raise ShapeMismatchError(f"{name} must be 1-dimensional (one value per row of X), got shape {y.shape}.")
        if y.shape[0] != n_samples:
            raise ShapeMismatchError(f"{name} has {y.shape[0]} entries but X has {n_samples} rows.")
        if not np.isfinite(y).all():
            raise InputError(
                f"{name} has {int((~np.isfinite(y)).sum())} NaN or infinite value(s); drop or impute them."
            )
        return y

    # -- prediction --

    def predict_distribution(self, X) -> Predictive:
        """The z-space predictive ``N(μ*, Σ*)`` at each row of X (eqs. 4.5-4.7).

        Returns
        -------
        Predictive
            ``mean`` and ``variance``, arrays of shape (n_test,). The variance is
            that of the latent process (no noise added).
        """
        check_is_fitted(self, "dual_coef_")
        X = self._check_X(X)
        K_cross = _gram(self.kernel_, X, self.X_train_)
        mean = K_cross @ self.dual_coef_
        V = scipy.linalg.solve_triangular(self._L, K_cross.T, lower=True)
        variance = np.maximum(_diag(self.kernel_, X) - np.einsum("ij,ij->j", V, V), 0.0)
        return Predictive(mean, variance)

    def predict(self, X, return_std=False):
        """The f-space predictive median (the map applied to the z-space mean).

        Parameters
        ----------
        X : array-like of shape (n_test, n_features)
        return_std : bool, default False
            Also return the quantile-based spread ``(f(μ* + √Σ*) − f(μ* − √Σ*)) / 2``
            (the standard deviation for ``"gaussian"``; see Notes of the class).

        Returns
        -------
        median : ndarray of shape (n_test,)
        spread : ndarray of shape (n_test,), only with ``return_std=True``
        """
        mean, variance = self.predict_distribution(X)
        median = self._map(mean)
        if not return_std:
            return median
        sd = np.sqrt(variance)
        return median, 0.5 * (self._map(mean + sd) - self._map(mean - sd))

    def predict_quantile(self, X, q):
        """The q-quantile of the f-space predictive at each row of X (the map carries z-space quantiles).

        Parameters
        ----------
        X : array-like of shape (n_test, n_features)
        q : float in (0, 1)

        Returns
        -------
        ndarray of shape (n_test,)
        """
        q = float(q)
        if not 0.0 < q < 1.0:
            raise ParameterError(f"q must be a probability strictly between 0 and 1, got {q!r}.")
        mean, variance = self.predict_distribution(X)
        return self._map(mean + ndtri(q) * np.sqrt(variance))

    def predictive_logpdf(self, f_star, X):
        """``log p(f(x*) = f_star | X, y)``: the z-space predictive carried to f-space.

        Parameters
        ----------
        f_star : array_like of shape (..., n_test)
            f-space values; the last axis runs over the rows of X (leading axes
            are batches, e.g. a quadrature grid).
        X : array-like of shape (n_test, n_features)

        Returns
        -------
        ndarray shaped like ``f_star``

        Notes
        -----
        ``log N(z(f*); μ*, Σ*) + log dz/df`` with ``dz/df = g_b(f*) / φ_σ(z(f*))``
        (eq. 4.5 and the change of variables of §4.3). Where Σ* is 0 (at a
        training point with no noise) the density is a point mass and is not
        defined.
        """
        mean, variance = self.predict_distribution(X)
        f_star = np.asarray(f_star, dtype=float)
        if f_star.ndim == 0 or f_star.shape[-1] != mean.shape[0]:
            raise ShapeMismatchError(
                f"f_star has shape {f_star.shape} but its last axis must have {mean.shape[0]} entries, one per row of X."
            )
        z = unwarp(f_star, self._marginal, b=self._b, sigma=self._sigma)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_normal = -0.5 * (_LOG_2PI + np.log(variance) + (z - mean) ** 2 / variance)
        log_jacobian = log_density(f_star, self._marginal, b=self._b) + 0.5 * (
            _LOG_2PI + np.log(self._sigma**2) + (z / self._sigma) ** 2
        )
        return log_normal + log_jacobian

    def log_prior_density(self, f):
        """``log p(f(X_train))`` under the process with ``K = K̃(X, X) + εI`` (eq. 4.4).

        Parameters
        ----------
        f : array_like of shape (..., n_samples)
            f-space values at the training locations.

        Returns
        -------
        ndarray of shape (...)

        Notes
        -----
        See :func:`log_prior_density`: normalized for any kernel; its marginals
        are ``g_b`` when ``K̃(x, x) + ε = σ²``.
        """
        check_is_fitted(self, "dual_coef_")
        f = np.asarray(f, dtype=float)
        n = self.X_train_.shape[0]
        if f.ndim == 0 or f.shape[-1] != n:
            raise ShapeMismatchError(f"f has shape {f.shape} but its last axis must have {n} entries, one per training point.")
        K = _gram(self.kernel_, self.X_train_)
        K[np.diag_indices_from(K)] += self._noise
        return log_prior_density(f, K, marginal=self._marginal, b=self._b, sigma=self._sigma)

    def _map(self, z):
        return warp(z, self._marginal, b=self._b, sigma=self._sigma).f
