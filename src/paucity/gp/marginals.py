"""Heavy-tailed marginals and the copula map f = G_b⁻¹(Φ_{0,σ²}(z)) (seed 003, eqs. 4.2-4.3).

A Gaussian process z is turned into a process f with marginal c.d.f. ``G_b``
by ``f = G_b⁻¹(Φ_{0,σ²}(z))``. Every marginal here is symmetric about zero and
a scale family, ``G_b(x) = G_1(x / b)``, so ``f = b·H(z / σ)`` with
``H = G_1⁻¹ ∘ Φ`` the standard map, and every derivative in ``b`` is the same
quantity divided by ``b`` (``∂f/∂b = f / b``, ``∂f'/∂b = f' / b``, ...).

The map and its first three derivatives in z are computed from log-space tail
probabilities (``scipy.special.log_ndtr``), so nothing overflows or loses its
digits at |z| = 30. The derivatives follow from ``f' = φ(s) / g(F)`` with
``s = z / σ`` and ``F = H(s)``:

- ``F'   = exp(log φ(s) − log g(F))``
- ``F''  = F'·(−s − ℓ'(F)·F')``
- ``F''' = F''·(−s − ℓ'(F)·F') + F'·(−1 − ℓ''(F)·F'² − ℓ'(F)·F'')``

with ``ℓ = log g``; then ``f^{(k)}(z) = b·F^{(k)}(s) / σ^k``. The third
derivative enters the gradient of the approximate marginal likelihood (4.11)
through the Hessian of the log posterior.

The four marginals (each with scale b):

- ``"laplace"``: ``g_b(x) = exp(−|x| / b) / (2b)``.
- ``"hypsecant"``: the hyperbolic secant distribution in its unit-variance
  form, ``g_b(x) = sech(πx / (2b)) / (2b)``, ``G_b(x) = (2/π)·arctan(exp(πx / (2b)))``.
- ``"student"``: the seed's "Student-t inspired" distribution (its formula is
  lost from the text; Fig. 4.1 shows only that it is heavier-tailed still).
  We take the Student-t with 2 degrees of freedom scaled by ``b / √2``, whose
  c.d.f. and quantile are closed-form: ``G_b(x) = (1 + x / √(b² + x²)) / 2``,
  ``G_b⁻¹(u) = b·(2u − 1) / (2√(u(1 − u)))``, ``g_b(x) = b² / (2(b² + x²)^{3/2})``.
- ``"gaussian"``: ``N(0, b²)``; the map is the line ``f = (b / σ)·z`` and the
  process is the Gaussian process itself (b = σ gives f = z).

Examples
--------
>>> import numpy as np
>>> from paucity.gp.marginals import warp
>>> w = warp(np.array([-30.0, 0.0, 2.0, 30.0]), "laplace", b=1.0)
>>> np.round(w.f, 3)
array([-453.628,    0.   ,    3.09 ,  453.628])
>>> bool(np.isfinite(w.d3f).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtri_exp

from .._errors import ParameterError

__all__ = ["MARGINALS", "Marginal", "Warp", "get_marginal", "warp", "unwarp", "log_density"]

MARGINALS = ("laplace", "hypsecant", "student", "gaussian")

_LOG2 = np.log(2.0)
_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_HALF_PI = 0.5 * np.pi


def _log_phi(s):
    return -0.5 * s * s - _LOG_SQRT_2PI


class Marginal:
    """A symmetric marginal of unit scale: its log density and the standard copula map.

    Subclasses give ``quantile_of_gaussian`` (``H(s) = G_1⁻¹(Φ(s))``),
    ``gaussian_of`` (``Φ⁻¹(G_1(x))``, the inverse map) and ``logpdf`` with its
    first two derivatives, all for unit scale.
    """

    name = ""

    def quantile_of_gaussian(self, s: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def gaussian_of(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def logpdf(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def dlogpdf(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def d2logpdf(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Laplace(Marginal):
    """``g(x) = exp(−|x|) / 2``; ``H(s) = sign(s)·(−log 2 − log Φ(−|s|))``."""

    name = "laplace"

    def quantile_of_gaussian(self, s):
        return np.sign(s) * (-_LOG2 - log_ndtr(-np.abs(s)))

    def gaussian_of(self, x):
        # 1 - G(t) = exp(-t) / 2 for t >= 0
        return -np.sign(x) * ndtri_exp(-_LOG2 - np.abs(x))

    def logpdf(self, x):
        return -_LOG2 - np.abs(x)

    def dlogpdf(self, x):
        return -np.sign(x)

    def d2logpdf(self, x):
        return np.zeros_like(x)


class HyperbolicSecant(Marginal):
    """``g(x) = sech(πx/2) / 2``; ``G(x) = (2/π)·arctan(exp(πx/2))``; unit variance."""

    name = "hypsecant"

    def quantile_of_gaussian(self, s):
        t = np.abs(s)
        log_v = log_ndtr(-t)  # v = Φ(-|s|) = 1 - u
        x = np.exp(np.log(_HALF_PI) + log_v)  # πv/2, in (0, π/4]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(x > 0, np.tan(x) / np.where(x > 0, x, 1.0), 1.0)
        # G⁻¹(1 - v) = (2/π)·log cot(πv/2) = -(2/π)·log tan(πv/2)
        return np.sign(s) * -(2.0 / np.pi) * (np.log(_HALF_PI) + log_v + np.log(ratio))

    def gaussian_of(self, x):
        t = np.abs(x)
        y = np.exp(-_HALF_PI * t)  # in (0, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(y > 0, np.arctan(y) / np.where(y > 0, y, 1.0), 1.0)
        log_tail = np.log(2.0 / np.pi) - _HALF_PI * t + np.log(ratio)  # log(1 - G(t))
        return -np.sign(x) * ndtri_exp(log_tail)

    def logpdf(self, x):
        y = _HALF_PI * np.abs(x)
        log_cosh = y + np.log1p(np.exp(-2.0 * y)) - _LOG2
        return -_LOG2 - log_cosh

    def dlogpdf(self, x):
        return -_HALF_PI * np.tanh(_HALF_PI * x)

    def d2logpdf(self, x):
        e = np.exp(-np.pi * np.abs(x))  # sech²(y) = 4e^{-2y} / (1 + e^{-2y})²
        return -(_HALF_PI**2) * 4.0 * e / (1.0 + e) ** 2


class StudentInspired(Marginal):
    """``G(x) = (1 + x/√(1 + x²)) / 2``: the Student-t with 2 degrees of freedom scaled by 1/√2."""

    name = "student"

    def quantile_of_gaussian(self, s):
        log_v = log_ndtr(-np.abs(s))
        v = np.exp(log_v)
        # G⁻¹(1 - v) = (1 - 2v) / (2√(v(1 - v)))
        return np.sign(s) * (1.0 - 2.0 * v) / (2.0 * np.sqrt(1.0 - v)) * np.exp(-0.5 * log_v)

    def gaussian_of(self, x):
        t = np.abs(x)
        # 1 - G(t) = 1 / (2√(1+t²)(√(1+t²) + t)), and log(√(1+t²) + t) = arcsinh(t)
        log_tail = -_LOG2 - np.log(np.hypot(1.0, t)) - np.arcsinh(t)
        return -np.sign(x) * ndtri_exp(log_tail)

    def logpdf(self, x):
        return -_LOG2 - 3.0 * np.log(np.hypot(1.0, x))

    @staticmethod
    def _r(x):
        """1 / (1 + x²) and x / (1 + x²), without overflow for large |x|."""
        big = np.abs(x) > 1.0
        w = np.where(big, 1.0 / np.where(big, x, 1.0), x)
        r = np.where(big, w * w / (1.0 + w * w), 1.0 / (1.0 + x * x))
        xr = np.where(big, w / (1.0 + w * w), x / (1.0 + x * x))
        return r, xr

    def dlogpdf(self, x):
        _, xr = self._r(x)
        return -3.0 * xr

    def d2logpdf(self, x):
        r, _ = self._r(x)
        return 3.0 * (r - 2.0 * r * r)  # -3(1 - x²)/(1 + x²)²


class Gaussian(Marginal):
    """``N(0, 1)``: the map is the identity and the process stays Gaussian."""

    name = "gaussian"

    def quantile_of_gaussian(self, s):
        return np.array(s, dtype=float, copy=True)

    def gaussian_of(self, x):
        return np.array(x, dtype=float, copy=True)

    def logpdf(self, x):
        return _log_phi(x)

    def dlogpdf(self, x):
        return -np.asarray(x, dtype=float)

    def d2logpdf(self, x):
        return -np.ones_like(x)


_MARGINALS = {m.name: m for m in (Laplace(), HyperbolicSecant(), StudentInspired(), Gaussian())}


def get_marginal(marginal) -> Marginal:
    """The :class:`Marginal` named ``marginal`` (one of :data:`MARGINALS`), or ``marginal`` itself."""
    if isinstance(marginal, Marginal):
        return marginal
    if isinstance(marginal, str) and marginal.lower() in _MARGINALS:
        return _MARGINALS[marginal.lower()]
    raise ParameterError(
        f"marginal must be one of {', '.join(repr(m) for m in MARGINALS)}, got {marginal!r}."
    )


@dataclass(frozen=True)
class Warp:
    """The copula map at z and its derivatives in z.

    Attributes
    ----------
    f, df, d2f, d3f : ndarray
        ``f = G_b⁻¹(Φ_{0,σ²}(z))`` and its first three derivatives in z. The
        derivatives in b are these divided by b.
    """

    f: np.ndarray
    df: np.ndarray
    d2f: np.ndarray
    d3f: np.ndarray


def warp(z, marginal="laplace", *, b: float = 1.0, sigma: float = 1.0) -> Warp:
    """The map ``f = G_b⁻¹(Φ_{0,σ²}(z))`` (eq. 4.3) and its first three derivatives.

    Parameters
    ----------
    z : array_like
        Values of the Gaussian process.
    marginal : {"laplace", "hypsecant", "student", "gaussian"}
        The marginal ``G_b`` of the heavy-tailed process.
    b : float
        Its scale, > 0.
    sigma : float
        The standard deviation σ of the Gaussian c.d.f. ``Φ_{0,σ²}``, > 0.

    Returns
    -------
    Warp
        ``f`` and ``df``, ``d2f``, ``d3f`` (derivatives in z), arrays shaped like z.

    Notes
    -----
    Seed 003, eq. (4.3); the derivatives enter ∇J and ∇²J of §4.5. Tails are
    computed from ``log Φ``, so |z| = 30 is finite to the last derivative.

    Examples
    --------
    >>> import numpy as np
    >>> w = warp(np.array([0.0, 1.0]), "gaussian", b=2.0)
    >>> np.round(w.f, 6), np.round(w.df, 6)
    (array([0., 2.]), array([2., 2.]))
    """
    m = get_marginal(marginal)
    b = float(b)
    sigma = float(sigma)
    s = np.asarray(z, dtype=float) / sigma
    F = m.quantile_of_gaussian(s)
    d1 = np.exp(_log_phi(s) - m.logpdf(F))
    l1 = m.dlogpdf(F)
    a = -s - l1 * d1
    d2 = d1 * a
    d3 = d2 * a + d1 * (-1.0 - (m.d2logpdf(F) * d1) * d1 - l1 * d2)
    return Warp(f=b * F, df=(b / sigma) * d1, d2f=(b / sigma**2) * d2, d3f=(b / sigma**3) * d3)


def unwarp(f, marginal="laplace", *, b: float = 1.0, sigma: float = 1.0) -> np.ndarray:
    """The inverse map ``z = σ·Φ⁻¹(G_b(f))``: f-space values to z-space (used by HPR, eqs. 4.5-4.7).

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([-3.0, 0.5, 12.0])
    >>> np.allclose(unwarp(warp(z, "hypsecant", b=2.0).f, "hypsecant", b=2.0), z)
    True
    """
    m = get_marginal(marginal)
    return float(sigma) * m.gaussian_of(np.asarray(f, dtype=float) / float(b))


def log_density(f, marginal="laplace", *, b: float = 1.0) -> np.ndarray:
    """``log g_b(f)``, the log density of the marginal with scale b.

    Examples
    --------
    >>> round(float(log_density(0.0, "laplace", b=1.0)), 4)   # log(1/2)
    -0.6931
    """
    m = get_marginal(marginal)
    return m.logpdf(np.asarray(f, dtype=float) / float(b)) - np.log(float(b))
