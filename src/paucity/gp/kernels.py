"""Kernels for heavy-tailed process models: the von Mises product kernel for angles (seed 003, §4.6).

The seed defines its classifiers on the torus, where the covariates are
backbone angle pairs (Φ, Ψ), with the von Mises-inspired kernel

``k(x, x') = σ² exp{λ (Σ_k cos(x_k − x'_k) − d)}``

for d-dimensional angles in radians. :class:`VonMises` is the factor with
the concentration λ; the amplitude σ² comes from multiplying by scikit-learn's
``ConstantKernel``, so ``ConstantKernel(σ²) * VonMises(λ)`` is the seed's
kernel and both parameters are fitted like any scikit-learn kernel's.

:func:`check_kernel_input` guards against the usual mistake with angles:
passing degrees. The kernel is periodic in every coordinate, so degrees give a
valid but meaningless kernel rather than an error; the check refuses any
coordinate outside [−2π, 2π] whenever the kernel contains a :class:`VonMises`.
"""

from __future__ import annotations

import numpy as np
from sklearn.gaussian_process.kernels import (
    Hyperparameter,
    Kernel,
    NormalizedKernelMixin,
    StationaryKernelMixin,
)

from .._errors import InputError, ParameterError

__all__ = ["VonMises", "check_kernel_input", "contains_von_mises"]

_TWO_PI = 2.0 * np.pi


def _as_angles(X) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    return X


def _cosine_sum(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``S[i, j] = Σ_k cos(X[i, k] − Y[j, k]) − d``, always ≤ 0.

    Uses ``cos(a − b) = cos a cos b + sin a sin b``: two matrix products
    instead of an n × m × d array of differences.
    """
    S = np.cos(X) @ np.cos(Y).T + np.sin(X) @ np.sin(Y).T
    S -= X.shape[1]
    # cos² + sin² is 1 only up to rounding; a cosine sum above d would give
    # kernel values above the amplitude.
    np.minimum(S, 0.0, out=S)
    return S


class VonMises(StationaryKernelMixin, NormalizedKernelMixin, Kernel):
    """The von Mises product kernel for d-dimensional angles (in radians).

    ``k(x, x') = exp{λ (Σ_k cos(x_k − x'_k) − d)}``, with ``k(x, x) = 1``;
    multiply by ``ConstantKernel`` for an amplitude.

    Parameters
    ----------
    concentration : float, default=1.0
        The concentration λ > 0: large values make the kernel narrow (for
        large λ it behaves like an RBF kernel of length scale ``1/√λ`` in
        each angle), small values make it nearly constant.
    concentration_bounds : pair of floats >= 0 or "fixed", default=(1e-3, 1e3)
        The range searched when the kernel is fitted; ``"fixed"`` keeps
        ``concentration`` as given.

    Notes
    -----
    Seed 003, §4.6 (the kernel defined for the rotamer experiment, with its
    footnote's argument that it is positive semidefinite: ``cos(a − b)`` is
    the inner product of ``(cos a, sin a)`` and ``(cos b, sin b)``, and
    exponentials and products of kernels are kernels). As in every
    scikit-learn kernel, ``theta`` holds ``log λ`` and the gradient returned
    with ``eval_gradient=True`` is ``∂k/∂ log λ = λ (Σ_k cos(x_k − x'_k) − d) k``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import ConstantKernel
    >>> from paucity.gp.kernels import VonMises
    >>> X = np.array([[0.0, 0.0], [np.pi / 2, 0.0], [2 * np.pi, 0.0]])
    >>> np.round(VonMises(concentration=2.0)(X), 4)
    array([[1.    , 0.1353, 1.    ],
           [0.1353, 1.    , 0.1353],
           [1.    , 0.1353, 1.    ]])
    >>> kernel = ConstantKernel(3.0) * VonMises(concentration=2.0)
    >>> float(np.round(kernel(X)[0, 1], 4))
    0.406
    """

    def __init__(self, concentration=1.0, concentration_bounds=(1e-3, 1e3)):
        self.concentration = concentration
        self.concentration_bounds = concentration_bounds

    @property
    def hyperparameter_concentration(self) -> Hyperparameter:
        """The concentration as scikit-learn's kernel machinery sees it (bounds ``concentration_bounds``)."""
        return Hyperparameter("concentration", "numeric", self.concentration_bounds)

    def __call__(self, X, Y=None, eval_gradient=False):
        """The kernel matrix ``k(X, Y)`` and, optionally, its gradient in ``log λ``.

        Parameters
        ----------
        X : array of shape (n_samples_X, n_features)
            Angles in radians.
        Y : array of shape (n_samples_Y, n_features), default=None
            Angles in radians; ``None`` means ``k(X, X)``.
        eval_gradient : bool, default=False
            Also return the gradient in the log-concentration (only when
            ``Y`` is None).

        Returns
        -------
        K : array of shape (n_samples_X, n_samples_Y)
        K_gradient : array of shape (n_samples_X, n_samples_X, 1) or (..., 0)
            Only with ``eval_gradient=True``; empty in its last axis when the
            concentration is fixed.
        """
        concentration = float(self.concentration)
        if not np.isfinite(concentration) or concentration < 0:
            raise ParameterError(
                f"concentration must be a finite number >= 0, got {self.concentration!r}: "
                "pass a positive value such as 1.0"
            )
        X = _as_angles(X)
        if Y is None:
            S = _cosine_sum(X, X)
            np.fill_diagonal(S, 0.0)
        else:
            if eval_gradient:
                raise InputError(
                    "the gradient of the von Mises kernel is only available for k(X, X): "
                    "call it with Y=None when eval_gradient=True"
                )
            Y = _as_angles(Y)
            if Y.shape[1] != X.shape[1]:
                raise InputError(
                    f"Y has {Y.shape[1]} angle columns but X has {X.shape[1]}: "
                    "pass angles of the same dimension"
                )
            S = _cosine_sum(X, Y)
        K = np.exp(concentration * S)
        if not eval_gradient:
            return K
        if self.hyperparameter_concentration.fixed:
            return K, np.empty((X.shape[0], X.shape[0], 0))
        return K, (concentration * S * K)[:, :, np.newaxis]

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(concentration={float(self.concentration):.3g})"


def contains_von_mises(kernel) -> bool:
    """Whether a scikit-learn kernel has a :class:`VonMises` factor or term anywhere.

    Walks sums and products (``k1``, ``k2``) and exponentiation (``kernel``).
    """
    stack = [kernel]
    while stack:
        node = stack.pop()
        if isinstance(node, VonMises):
            return True
        for attribute in ("k1", "k2", "kernel"):
            child = getattr(node, attribute, None)
            if isinstance(child, Kernel):
                stack.append(child)
    return False


def check_kernel_input(kernel, X) -> None:
    """Refuse angles outside [−2π, 2π] when ``kernel`` contains a :class:`VonMises`.

    Parameters
    ----------
    kernel : scikit-learn kernel or None
        The kernel the data will be passed to; nothing is checked unless it
        contains a :class:`VonMises` (in a sum, a product or an exponent).
    X : array of shape (n_samples, n_features)
        The inputs.

    Raises
    ------
    InputError
        If some entry of ``X`` has absolute value above 2π (most often angles
        given in degrees).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import ConstantKernel
    >>> from paucity.gp.kernels import VonMises, check_kernel_input
    >>> check_kernel_input(ConstantKernel() * VonMises(), np.array([[0.5, -3.0]]))
    >>> check_kernel_input(ConstantKernel() * VonMises(), np.array([[90.0, 0.0]]))
    Traceback (most recent call last):
    ...
    paucity._errors.InputError: angles must be in radians within [-2pi, 2pi]; X has 90.0 at row 0, column 0: convert degrees with numpy.deg2rad
    """
    if kernel is None or not contains_von_mises(kernel):
        return
    X = _as_angles(X)
    outside = np.abs(X) > _TWO_PI
    if outside.any():
        row, column = np.argwhere(outside)[0]
        raise InputError(
            "angles must be in radians within [-2pi, 2pi]; "
            f"X has {float(X[row, column])!r} at row {int(row)}, column {int(column)}: "
            "convert degrees with numpy.deg2rad"
        )
