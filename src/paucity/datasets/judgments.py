"""Synthetic crowd judgments: the generators of the feature multi-selection experiments.

- :func:`simulate_crowd`: objects with latent Gaussian feature means, judged by
  a crowd whose judgments scatter around them (real-valued attributes) or are
  coin flips with an object-specific probability (binary attributes), with a
  label linear in the per-object means (seed 002, §2–§3).
- :func:`grouped_feature_crowd`: the simulated protocol of seed 002, §4 — each
  group of adjacent columns of a data matrix becomes one noisy feature, whose
  judgment of an object is one of the group's values, chosen at random.

Judgments are returned in long format, a :class:`pandas.DataFrame` with the
columns ``object`` (str), ``attribute`` (str) and ``value`` (float64; binary
attributes give 0.0 or 1.0), one row per judgment. Labels are a
:class:`pandas.Series` of float indexed by object name (index name
``"object"``, series name ``"label"``). Objects are named ``"o0", "o1", ...``
in the order they were drawn (the names are not zero-padded, so keep the order
of :attr:`labels` rather than sorting the names as strings).

Both generators know their population, so :meth:`SimulatedCrowd.true_loss`
and :meth:`GroupedFeatureCrowd.true_loss` give the exact loss ``ℓ(r)`` of the
best linear predictor on the means of ``r[a]`` judgments of each attribute:
the quantity a feature multi-selection algorithm tries to minimize.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse as sp
from scipy.special import ndtr

from .._errors import InputError, InputTypeError, ParameterError, ShapeMismatchError
from .._validation import Interval, check_matrix, check_parameter, check_positive_int, check_random_state

__all__ = [
    "GroupedFeatureCrowd",
    "SimulatedCrowd",
    "grouped_feature_crowd",
    "simulate_crowd",
]

# Default internal variances grow linearly across the attributes between these
# two values, so that attributes differ in reliability.
_INTERNAL_VARIANCE_RANGE = (0.2, 3.0)
# Default coefficients fall linearly from 1 and reach 0 after this fraction of
# the attributes (rounded up); the attributes after that do not enter the label.
_USEFUL_FRACTION = 0.75
# Relative tolerance of the symmetry and positive semi-definiteness checks of
# a covariance matrix.
_COVARIANCE_TOLERANCE = 1e-10
# Gauss–Legendre nodes of the bivariate normal integral (Plackett's identity in
# angle form; the integrand is smooth and bounded, so 96 nodes reach about
# 1e-15 for every correlation strictly between -1 and 1).
_LEGENDRE_NODES, _LEGENDRE_WEIGHTS = np.polynomial.legendre.leggauss(96)


# -- shared helpers -------------------------------------------------------------------------------
def _check_real(value, name: str, *, low: int | None = None) -> float:
    """A finite number (at least ``low``), declared as a constraint of :func:`simulate_crowd`'s parameter."""
    return float(check_parameter(value, name, [Interval(numbers.Real, low, None)], owner="simulate_crowd"))


def _real_vector(value, d: int, name: str, *, low: float | None = None) -> np.ndarray:
    """A float vector of length d from a scalar or a length-d array-like."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return np.full(d, _check_real(value, name, low=low))
    if isinstance(value, pd.Series):
        value = value.to_numpy()
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name} must be a number or an array of {d} numbers, got {value!r}.") from None
    if arr.ndim != 1 or len(arr) != d:
        raise ShapeMismatchError(
            f"{name} must be a number or have one entry per attribute ({d}), got shape {arr.shape}."
        )
    if not np.isfinite(arr).all():
        raise InputError(f"{name} has NaN or infinite entries; pass finite numbers.")
    if low is not None and (arr < low).any():
        bad = int(np.flatnonzero(arr < low)[0])
        raise InputError(f"{name} must be at least {low} everywhere, but entry {bad} is {arr[bad]}.")
    return arr


def _count(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise ParameterError(f"{name} must hold whole numbers of judgments, got {value!r}.")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    raise ParameterError(f"{name} must hold whole numbers of judgments, got {value!r}.")


def _counts(value, attributes: pd.Index, name: str, *, minimum: int, missing_is_zero: bool) -> np.ndarray:
    """Judgment counts per attribute from a scalar, a mapping/Series by attribute, or an array.

    A mapping or Series is read by attribute name; with ``missing_is_zero``
    the attributes it leaves out get no judgments, otherwise leaving one out is
    an error. An array is read by position.
    """
    d = len(attributes)
    if isinstance(value, (Mapping, pd.Series)):
        items = list(value.items())
        unknown = [key for key, _ in items if key not in attributes]
        if unknown:
            raise ParameterError(
                f"{name} names attribute(s) {unknown[:5]!r} that do not exist; the attributes are "
                f"{list(attributes[:8])!r}{' ...' if d > 8 else ''}. Pass an array to give counts by position."
            )
        out = np.zeros(d, dtype=np.int64)
        given = np.zeros(d, dtype=bool)
        for key, count in items:
            position = attributes.get_loc(key)
            out[position] = _count(count, name)
            given[position] = True
        if not missing_is_zero and not given.all():
            missing = list(attributes[~given][:5])
            raise ParameterError(f"{name} gives no count for attribute(s) {missing!r}; give one for every attribute.")
    elif isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, (str, bytes)):
        out = np.full(d, _count(value, name), dtype=np.int64)
    else:
        arr = np.asarray(value)
        if arr.ndim != 1 or len(arr) != d:
            raise ShapeMismatchError(
                f"{name} must be a whole number, a mapping attribute -> count, or have one entry per attribute "
                f"({d}); got shape {arr.shape}."
            )
        if arr.dtype.kind == "f" and np.isfinite(arr).all() and (arr == np.round(arr)).all():
            arr = arr.astype(np.int64)
        if arr.dtype.kind not in "iu":
            raise ParameterError(f"{name} must hold whole numbers of judgments, got dtype {arr.dtype}.")
        out = arr.astype(np.int64)
    if (out < minimum).any():
        bad = int(np.flatnonzero(out < minimum)[0])
        raise ParameterError(
            f"{name} must be at least {minimum} for every attribute, but attribute {attributes[bad]!r} has {out[bad]}."
        )
    return out


def _object_positions(objects, index: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Positions in index and names of the requested objects (None: all of them)."""
    if objects is None:
        return np.arange(len(index)), index.to_numpy(dtype=object)
    if isinstance(objects, str):
        objects = [objects]
    names = pd.Index(objects)
    positions = index.get_indexer(names)
    if (positions < 0).any():
        unknown = list(names[positions < 0][:5])
        raise InputError(
            f"objects {unknown!r} are not objects of this crowd (first objects: {list(index[:3])!r}); "
            "use new_objects() to draw fresh ones."
        )
    return positions.astype(np.int64), names.to_numpy(dtype=object)


def _long_frame(object_names: np.ndarray, attribute_names: np.ndarray, values: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "object": pd.Series(object_names, dtype=object),
            "attribute": pd.Series(attribute_names, dtype=object),
            "value": pd.Series(values, dtype=np.float64),
        }
    )


def _judgment_layout(positions: np.ndarray, repeats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Object position and attribute code of each judgment, object-major, then attribute, then repeat."""
    per_object = np.repeat(np.arange(len(repeats)), repeats)
    return np.repeat(positions, len(per_object)), np.tile(per_object, len(positions))


def _population_loss(
    covariance: np.ndarray, cross: np.ndarray, label_variance: float, internal: np.ndarray, repeats: np.ndarray
) -> float:
    """``Var(y) - cᵀ M⁺ c`` on the support of repeats, ``M = Σ + Diag(v / r)``."""
    # The same algebra as paucity.judgments.objective (full_objective on M_r), written out again on purpose:
    # this is the exact loss the library's estimate is tested against, so it must not share the library's code
    # (scipy's pinvh here, numpy's pinv there). The generators import nothing from paucity.judgments.
    support = np.flatnonzero(repeats > 0)
    if len(support) == 0:
        return float(label_variance)
    matrix = covariance[np.ix_(support, support)] + np.diag(internal[support] / repeats[support])
    c = cross[support]
    gain = float(c @ scipy.linalg.pinvh(matrix) @ c)
    return max(float(label_variance) - gain, 0.0)


def _normal_orthant_excess(h, k, rho) -> np.ndarray:
    """``Φ₂(h, k; ρ) − Φ(h) Φ(k)`` elementwise, for correlations strictly between -1 and 1.

    Plackett's identity ``∂Φ₂/∂ρ = φ₂`` integrated from 0 to ρ and written in
    the angle ``t = sin θ``: ``(1 / 2π) ∫₀^{asin ρ} exp(−(h² − 2hk sin θ + k²) /
    (2 cos² θ)) dθ``, by Gauss–Legendre quadrature.
    """
    h, k, rho = np.broadcast_arrays(np.asarray(h, float), np.asarray(k, float), np.asarray(rho, float))
    top = np.arcsin(rho)[..., None]
    theta = 0.5 * top * (_LEGENDRE_NODES + 1.0)
    sine = np.sin(theta)
    cos2 = np.cos(theta) ** 2
    hh, kk = h[..., None], k[..., None]
    integrand = np.exp(-(hh * hh - 2.0 * hh * kk * sine + kk * kk) / (2.0 * cos2))
    return 0.5 * top[..., 0] * (integrand @ _LEGENDRE_WEIGHTS) / (2.0 * np.pi)


def _mean_moments(means: np.ndarray, covariance: np.ndarray, binary: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Covariance of the per-object mean vector, and ``E[p (1 − p)]`` of the binary attributes.

    The latent means are ``μ ~ N(means, covariance)``; real attributes keep
    ``μ[a]``, binary ones become ``p[a] = Φ(μ[a])``. With ``s = Σ[a, a]`` and
    ``h = means[a] / sqrt(1 + s)``: ``E p[a] = Φ(h)``, ``Cov(μ[a'], p[a]) =
    Σ[a', a] φ(h) / sqrt(1 + s)`` (Stein's lemma), and ``E p[a] p[b] =
    Φ₂(h_a, h_b; Σ[a, b] / sqrt((1 + s_a)(1 + s_b)))`` (``a = b`` included).
    """
    d = len(means)
    moments = covariance.copy()
    internal_binary = np.zeros(d)
    flips = np.flatnonzero(binary)
    if len(flips) == 0:
        return moments, internal_binary
    real = np.flatnonzero(~binary)
    scale = np.sqrt(1.0 + np.diag(covariance))
    h = means / scale
    stein = np.exp(-0.5 * h * h) / (math.sqrt(2.0 * math.pi) * scale)
    moments[np.ix_(real, flips)] = covariance[np.ix_(real, flips)] * stein[flips]
    moments[np.ix_(flips, real)] = moments[np.ix_(real, flips)].T
    rho = covariance[np.ix_(flips, flips)] / np.outer(scale[flips], scale[flips])
    block = _normal_orthant_excess(h[flips][:, None], h[flips][None, :], rho)
    moments[np.ix_(flips, flips)] = 0.5 * (block + block.T)
    # E[p(1 - p)] = E p - E p² = Φ(h) Φ(-h) - Var p
    internal_binary[flips] = ndtr(h[flips]) * ndtr(-h[flips]) - np.diag(block)
    return moments, np.maximum(internal_binary, 0.0)


# -- what both crowds offer -----------------------------------------------------------------------
class _Crowd:
    """Objects, attributes and the explained label variance, from ``labels``, ``object_means`` and ``true_loss``."""

    @property
    def objects(self) -> pd.Index:
        """The object names, in the order of the labels."""
        return self.labels.index

    @property
    def attributes(self) -> pd.Index:
        """The attribute names."""
        return self.object_means.columns

    @property
    def n_objects(self) -> int:
        return len(self.labels)

    @property
    def n_attributes(self) -> int:
        return len(self.attributes)

    def projected_gain(self, repeats) -> float:
        """``Var(y) − ℓ(r)``: the label variance the judgments explain (seed 002, Eq. 1's left side).

        Examples
        --------
        >>> crowd = simulate_crowd(5, 3, random_state=0)
        >>> crowd.projected_gain(0)
        0.0
        """
        return self.label_variance - self.true_loss(repeats)


# -- simulated crowd ------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class SimulatedCrowd(_Crowd):
    """Judged objects of a simulated crowd, with their labels and the population behind them.

    Attributes
    ----------
    judgments : pandas.DataFrame
        The judgments in long format (columns ``object``, ``attribute``,
        ``value``), ordered by object, then attribute.
    labels : pandas.Series
        The label of each object (float, index ``"object"``, name ``"label"``).
    object_means : pandas.DataFrame
        Objects x attributes: the per-object mean ``E[X[a] | O]`` of each
        attribute, ``μᵢ[a]`` for real-valued and ``pᵢ[a] = Φ(μᵢ[a])`` for
        binary attributes.
    coefficients : pandas.Series
        The coefficients ``w`` of the label on the per-object means.
    intercept : float
        The label's intercept.
    noise : float
        Standard deviation of the label noise.
    internal_variance : pandas.Series
        The internal variance ``v[a] = E_O[Var(X[a] | O)]`` of each attribute:
        the given variance for real-valued attributes, and ``E[p (1 − p)]``
        for binary ones (computed exactly).
    external_covariance : pandas.DataFrame
        Covariance ``Σ_ext`` of the latent means ``μ`` (the parameter).
    mean_covariance : pandas.DataFrame
        Covariance of the per-object mean vector: the seed's external
        covariance ``Σ``. It equals ``external_covariance`` when no attribute
        is binary.
    binary : pandas.Series
        Boolean mask of the binary attributes.
    means : pandas.Series
        Population means of the latent ``μ``.
    judgment_counts : pandas.Series
        Number of judgments of each attribute per object in ``judgments``.
    """

    judgments: pd.DataFrame
    labels: pd.Series
    object_means: pd.DataFrame
    coefficients: pd.Series
    intercept: float
    noise: float
    internal_variance: pd.Series
    external_covariance: pd.DataFrame
    mean_covariance: pd.DataFrame
    binary: pd.Series
    means: pd.Series
    judgment_counts: pd.Series

    @property
    def label_variance(self) -> float:
        """Population variance of the label, ``wᵀ Σ w + noise²`` (the loss with no judgments)."""
        w = self.coefficients.to_numpy()
        return float(w @ self.mean_covariance.to_numpy() @ w + self.noise**2)

    def __repr__(self) -> str:
        return (
            f"SimulatedCrowd(n_objects={self.n_objects}, n_attributes={self.n_attributes}, "
            f"n_judgments={len(self.judgments)}, n_binary={int(self.binary.sum())})"
        )

    def draw(self, objects, repeats, random_state=None) -> pd.DataFrame:
        """Draw new judgments of existing objects.

        Parameters
        ----------
        objects : list of str, pandas.Index or None
            Names of objects of this crowd (None: all of them). An object named
            twice is judged twice as often.
        repeats : int, mapping attribute -> int, pandas.Series or array of int
            Number of judgments of each attribute per object. A mapping or
            Series is read by attribute name and the attributes it leaves out
            get none; an array is read by position; 0 is allowed.
        random_state : int, numpy.random.Generator or None

        Returns
        -------
        pandas.DataFrame
            Fresh judgments in long format, ordered by object (in the order
            given), then attribute. They are independent of
            :attr:`judgments` and of any earlier draw.

        Examples
        --------
        >>> crowd = simulate_crowd(5, 3, random_state=0)
        >>> crowd.draw(["o0", "o4"], {"a0": 2, "a2": 1}, random_state=1).shape
        (6, 3)
        """
        positions, names = _object_positions(objects, self.objects)
        counts = _counts(repeats, self.attributes, "repeats", minimum=0, missing_is_zero=True)
        return self._judge(self.object_means.to_numpy(), positions, names, counts, check_random_state(random_state))

    def new_objects(self, n_objects: int, *, judgments=None, name_offset: int | None = None, random_state=None):
        """Draw fresh objects of the same population, with their labels and judgments.

        Parameters
        ----------
        n_objects : int
            Number of new objects.
        judgments : int, mapping or array of int, optional
            Judgments of each attribute per new object, as ``repeats`` of
            :meth:`draw` but a mapping must name every attribute (default: the
            counts of this crowd). 0 is allowed, e.g. for test objects to be
            judged later with :meth:`draw`.
        name_offset : int, optional
            Number of the first new object (default: one past this crowd's last
            object, so the names do not collide with this crowd's). Two calls on
            the same crowd give the same names unless an offset is passed.
        random_state : int, numpy.random.Generator or None

        Returns
        -------
        SimulatedCrowd
            The new objects, with the population parameters of this crowd.

        Examples
        --------
        >>> crowd = simulate_crowd(5, 3, random_state=0)
        >>> test = crowd.new_objects(2, judgments=0, random_state=1)
        >>> list(test.objects), len(test.judgments)
        (['o5', 'o6'], 0)
        """
        n = check_positive_int(n_objects, "n_objects")
        counts = self.judgment_counts if judgments is None else judgments
        counts = _counts(counts, self.attributes, "judgments", minimum=0, missing_is_zero=False)
        if name_offset is None:
            offset = int(str(self.objects[-1])[1:]) + 1
        else:
            offset = check_positive_int(name_offset, "name_offset", minimum=0)
        return _populate(self, n, counts, offset, check_random_state(random_state))

    def true_loss(self, repeats) -> float:
        """Population squared loss of the best linear predictor on ``r[a]`` judgments of each attribute.

        Parameters
        ----------
        repeats : int, mapping attribute -> int, pandas.Series or array of int
            The repeat vector ``r`` (as in :meth:`draw`); attributes with
            ``r[a] = 0`` are left out.

        Returns
        -------
        float
            ``ℓ(r) = min over w, b of E[(b + wᵀ x̄ − y)²]``, where ``x̄[a]`` is
            the mean of ``r[a]`` judgments of attribute ``a`` of a fresh object.

        Notes
        -----
        Seed 002, §3: ``ℓ(r) = Var(y) − cᵀ M⁺ c`` on the support of ``r``,
        with ``M = Σ + Diag(v / r)``, ``c = Σ w`` and ``Var(y) = wᵀ Σ w +
        noise²``, where ``Σ`` is :attr:`mean_covariance` and ``v`` is
        :attr:`internal_variance` (the predictor has a bias, so these are
        centred moments). The moments are exact, binary attributes included
        (see :func:`simulate_crowd`), so the loss is exact up to rounding.

        Examples
        --------
        >>> crowd = simulate_crowd(5, 3, random_state=0)
        >>> crowd.true_loss(0) == crowd.label_variance
        True
        >>> bool(crowd.true_loss([4, 4, 4]) < crowd.true_loss([1, 1, 1]))
        True
        """
        counts = _counts(repeats, self.attributes, "repeats", minimum=0, missing_is_zero=True)
        covariance = self.mean_covariance.to_numpy()
        cross = covariance @ self.coefficients.to_numpy()
        return _population_loss(
            covariance, cross, self.label_variance, self.internal_variance.to_numpy(), counts.astype(np.float64)
        )

    def _judge(self, object_means, positions, names, counts, rng) -> pd.DataFrame:
        rows, codes = _judgment_layout(positions, counts)
        centre = object_means[rows, codes]
        binary = self.binary.to_numpy()[codes]
        values = np.empty(len(rows))
        real = ~binary
        sd = np.sqrt(self.internal_variance.to_numpy())
        values[real] = centre[real] + sd[codes[real]] * rng.standard_normal(int(real.sum()))
        values[binary] = (rng.random(int(binary.sum())) < centre[binary]).astype(np.float64)
        object_names = np.repeat(names, int(counts.sum()))
        return _long_frame(object_names, self.attributes.to_numpy(dtype=object)[codes], values)


def _populate(template: SimulatedCrowd, n: int, counts: np.ndarray, offset: int, rng) -> SimulatedCrowd:
    """New objects of the template's population: latent means, labels, judgments."""
    d = template.n_attributes
    root = _covariance_root(template.external_covariance.to_numpy())
    latent = template.means.to_numpy() + rng.standard_normal((n, d)) @ root
    binary = template.binary.to_numpy()
    latent[:, binary] = ndtr(latent[:, binary])
    objects = pd.Index([f"o{offset + i}" for i in range(n)], dtype=object, name="object")
    w = template.coefficients.to_numpy()
    labels = template.intercept + latent @ w + template.noise * rng.standard_normal(n)
    judged = template._judge(latent, np.arange(n), objects.to_numpy(dtype=object), counts, rng)
    return SimulatedCrowd(
        judgments=judged,
        labels=pd.Series(labels, index=objects, name="label", dtype=np.float64),
        object_means=pd.DataFrame(latent, index=objects, columns=template.attributes),
        coefficients=template.coefficients,
        intercept=template.intercept,
        noise=template.noise,
        internal_variance=template.internal_variance,
        external_covariance=template.external_covariance,
        mean_covariance=template.mean_covariance,
        binary=template.binary,
        means=template.means,
        judgment_counts=pd.Series(counts, index=template.attributes, name="judgments"),
    )


def _covariance_root(covariance: np.ndarray) -> np.ndarray:
    """The symmetric square root ``S`` of a covariance (``S @ S = covariance``, ``S`` symmetric).

    The latent means are ``z @ S`` for standard normal ``z``. ``eigh``'s
    eigenvectors are defined only up to sign, and within a repeated eigenvalue
    (the equicorrelated covariance has one of multiplicity d - 1) only up to a
    rotation, and both differ between LAPACK builds; ``V diag(sqrt λ) Vᵀ`` is
    the same for every such choice, so the draw does not depend on the machine
    beyond rounding. (``V diag(sqrt λ)`` alone, the factor used before, does.)
    """
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    return _root_from_eigenpairs(eigenvalues, eigenvectors)


def _root_from_eigenpairs(eigenvalues: np.ndarray, eigenvectors: np.ndarray) -> np.ndarray:
    root = (eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))) @ eigenvectors.T
    return (root + root.T) / 2.0


def _equicorrelated(d: int, correlation) -> np.ndarray:
    rho = _check_real(correlation, "correlation")
    low = -1.0 / (d - 1) if d > 1 else -1.0
    if not low <= rho <= 1.0:
        raise ParameterError(
            f"correlation must be between {low:.6g} and 1 for {d} attributes (otherwise the equicorrelated "
            f"covariance is not positive semi-definite), got {rho}."
        )
    covariance = np.full((d, d), rho)
    np.fill_diagonal(covariance, 1.0)
    return covariance


def _check_covariance(value, d: int) -> np.ndarray:
    if isinstance(value, pd.DataFrame):
        value = value.to_numpy()
    try:
        covariance = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError("external_covariance must be a numeric d x d array.") from None
    if covariance.shape != (d, d):
        raise ShapeMismatchError(
            f"external_covariance has shape {covariance.shape} but there are {d} attributes; pass a ({d}, {d}) "
            f"array, or set n_attributes={covariance.shape[0] if covariance.ndim == 2 else '...'}."
        )
    if not np.isfinite(covariance).all():
        raise InputError("external_covariance has NaN or infinite entries; pass a finite matrix.")
    scale = max(1.0, float(np.abs(covariance).max()))
    if np.abs(covariance - covariance.T).max() > _COVARIANCE_TOLERANCE * scale:
        raise InputError("external_covariance is not symmetric; a covariance matrix equals its transpose.")
    covariance = 0.5 * (covariance + covariance.T)
    smallest = float(np.linalg.eigvalsh(covariance)[0])
    if smallest < -_COVARIANCE_TOLERANCE * scale * d:
        raise InputError(
            f"external_covariance is not positive semi-definite (smallest eigenvalue {smallest:.3g}); "
            "pass a valid covariance matrix, e.g. A @ A.T."
        )
    return covariance


def _binary_mask(binary, d: int) -> np.ndarray:
    if binary is None:
        return np.zeros(d, dtype=bool)
    if isinstance(binary, (bool, np.bool_)):
        return np.full(d, bool(binary))
    mask = np.asarray(binary.to_numpy() if isinstance(binary, pd.Series) else binary)
    if mask.dtype != bool:
        raise ParameterError(
            f"binary must be None, True/False, or a boolean mask with one entry per attribute, got dtype {mask.dtype}."
        )
    if mask.shape != (d,):
        raise ShapeMismatchError(f"binary must have one entry per attribute ({d}), got shape {mask.shape}.")
    return mask.copy()


def _default_coefficients(d: int) -> np.ndarray:
    useful = math.ceil(_USEFUL_FRACTION * d)
    return np.clip(1.0 - np.arange(d) / useful, 0.0, None)


def simulate_crowd(
    n_objects: int,
    n_attributes: int = 8,
    *,
    judgments=2,
    correlation: float = 0.3,
    external_covariance=None,
    means=0.0,
    internal_variance=None,
    binary=None,
    coefficients=None,
    intercept: float = 0.0,
    noise: float = 0.5,
    random_state=None,
) -> SimulatedCrowd:
    """Simulate crowd judgments of objects with latent features, and the objects' labels.

    Parameters
    ----------
    n_objects : int
        Number of objects, named ``"o0", "o1", ...``.
    n_attributes : int, default 8
        Number of attributes ``d``, named ``"a0", "a1", ...``.
    judgments : int, mapping attribute -> int, or array of int, default 2
        Judgments of every attribute per object (at least 1), or one count per
        attribute (a mapping must name every attribute).
    correlation : float, default 0.3
        Correlation between the latent means of any two attributes: the
        external covariance is ``(1 − ρ) I + ρ 11ᵀ`` (unit variances). Must lie
        in ``[−1 / (d − 1), 1]``, where that matrix is positive semi-definite.
        Ignored when ``external_covariance`` is given.
    external_covariance : array-like of shape (d, d), optional
        A full, symmetric positive semi-definite covariance of the latent means.
    means : float or array-like of shape (d,), default 0
        Population means of the latent means.
    internal_variance : float or array-like of shape (d,), optional
        Variance of a judgment of a real-valued attribute around the object's
        mean (default: growing linearly from 0.2 to 3.0 across the attributes,
        so that they differ in reliability). Entries of binary attributes are
        ignored: their internal variance is ``pᵢ (1 − pᵢ)``.
    binary : bool or array-like of bool of shape (d,), optional
        Which attributes are binary (True: all; default: none).
    coefficients : float or array-like of shape (d,), optional
        The label's coefficients ``w`` on the per-object means (default:
        falling linearly from 1 to 0 over the first three quarters of the
        attributes and 0 after, so that the last attributes are useless).
    intercept : float, default 0
        The label's intercept.
    noise : float, default 0.5
        Standard deviation of the Gaussian label noise.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    SimulatedCrowd
        The judgments, labels, per-object means and population parameters,
        with :meth:`~SimulatedCrowd.draw` to collect more judgments,
        :meth:`~SimulatedCrowd.new_objects` to draw test objects and
        :meth:`~SimulatedCrowd.true_loss` for the exact loss ``ℓ(r)``.

    Notes
    -----
    The generative model of seed 002, §2 (judgments conditionally independent
    given the object). Each object has latent means ``μᵢ = means + L zᵢ``,
    ``zᵢ ~ N(0, I)``, ``L Lᵀ = Σ_ext`` (``L`` the symmetric square root, from
    the eigendecomposition, so singular covariances work and the draw does not
    depend on the signs or basis of the eigenvectors that LAPACK returns). A judgment of a real-valued attribute ``a`` is
    ``μᵢ[a] + N(0, v[a])``; a judgment of a binary attribute is
    ``Bernoulli(pᵢ[a])`` with ``pᵢ[a] = Φ(μᵢ[a])``. The per-object mean
    vector ``mᵢ`` is ``μᵢ`` on real and ``pᵢ`` on binary attributes, and the
    label is ``yᵢ = intercept + wᵀ mᵢ + N(0, noise²)``.

    The population moments behind :meth:`~SimulatedCrowd.true_loss` (§3.2)
    are exact. With binary attributes, ``h = means[a] / sqrt(1 + Σ_ext[a,
    a])`` gives ``E pᵢ[a] = Φ(h)``; Stein's lemma gives ``Cov(μ[a'], p[a]) =
    Σ_ext[a', a] φ(h) / sqrt(1 + Σ_ext[a, a])``; and ``E p[a] p[b]`` is the
    bivariate normal probability ``Φ₂(h_a, h_b; Σ_ext[a, b] / sqrt((1 +
    Σ_ext[a, a])(1 + Σ_ext[b, b])))``, computed by 96-point Gauss–Legendre
    quadrature of Plackett's identity (error about 1e-15). No reference
    sample is drawn.

    Memory: the judgments hold ``n_objects * sum(judgments)`` rows.

    Examples
    --------
    >>> crowd = simulate_crowd(100, 4, judgments=2, binary=[False, False, True, False], random_state=0)
    >>> crowd.judgments.shape
    (800, 3)
    >>> list(crowd.judgments.columns)
    ['object', 'attribute', 'value']
    >>> crowd.judgments.head(3)["attribute"].tolist()
    ['a0', 'a0', 'a1']
    >>> sorted(crowd.judgments.loc[crowd.judgments["attribute"] == "a2", "value"].unique().tolist())
    [0.0, 1.0]
    >>> crowd.labels.shape, crowd.object_means.shape
    ((100,), (100, 4))
    >>> more = crowd.draw(["o0", "o1"], {"a0": 3}, random_state=1)
    >>> more.shape
    (6, 3)
    >>> bool(crowd.true_loss([4, 2, 1, 0]) < crowd.true_loss([1, 1, 0, 0]) < crowd.true_loss(0))
    True
    """
    n = check_positive_int(n_objects, "n_objects")
    d = check_positive_int(n_attributes, "n_attributes")
    attributes = pd.Index([f"a{a}" for a in range(d)], dtype=object, name="attribute")
    counts = _counts(judgments, attributes, "judgments", minimum=1, missing_is_zero=False)
    if external_covariance is None:
        covariance = _equicorrelated(d, correlation)
    else:
        covariance = _check_covariance(external_covariance, d)
    mean_vector = _real_vector(means, d, "means")
    if internal_variance is None:
        internal = np.linspace(*_INTERNAL_VARIANCE_RANGE, d)
    else:
        internal = _real_vector(internal_variance, d, "internal_variance", low=0)
    mask = _binary_mask(binary, d)
    w = _default_coefficients(d) if coefficients is None else _real_vector(coefficients, d, "coefficients")
    intercept = _check_real(intercept, "intercept")
    noise = _check_real(noise, "noise", low=0)
    rng = check_random_state(random_state)

    moments, internal_binary = _mean_moments(mean_vector, covariance, mask)
    internal = np.where(mask, internal_binary, internal)
    square = {"index": attributes, "columns": attributes}
    template = SimulatedCrowd(
        judgments=_long_frame(np.zeros(0, dtype=object), np.zeros(0, dtype=object), np.zeros(0)),
        labels=pd.Series([], dtype=np.float64, name="label", index=pd.Index([], dtype=object, name="object")),
        object_means=pd.DataFrame(np.zeros((0, d)), columns=attributes),
        coefficients=pd.Series(w, index=attributes, name="coefficient"),
        intercept=intercept,
        noise=noise,
        internal_variance=pd.Series(internal, index=attributes, name="internal_variance"),
        external_covariance=pd.DataFrame(covariance, **square),
        mean_covariance=pd.DataFrame(moments, **square),
        binary=pd.Series(mask, index=attributes, name="binary"),
        means=pd.Series(mean_vector, index=attributes, name="mean"),
        judgment_counts=pd.Series(counts, index=attributes, name="judgments"),
    )
    return _populate(template, n, counts, 0, rng)


# -- grouped features -----------------------------------------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class GroupedFeatureCrowd(_Crowd):
    """Objects whose noisy features are groups of columns of a data matrix.

    A judgment of feature ``g`` of object ``i`` is ``X[i, j]`` for a column
    ``j`` drawn uniformly from group ``g``.

    Attributes
    ----------
    features : numpy.ndarray of shape (n_objects, n_columns)
        The data matrix ``X`` (float64).
    groups : tuple of numpy.ndarray
        The column positions of each attribute.
    labels : pandas.Series
        The label of each object (float, index ``"object"``, name ``"label"``).
    object_means : pandas.DataFrame
        Objects x attributes: the exact per-object mean of each feature, the
        row mean of its group's columns.
    internal_variance : pandas.Series
        Per attribute, the mean over objects of the population variance
        (``ddof=0``) of the group's values in the object's row — exactly
        ``E_O[Var(X[a] | O)]`` for the uniform choice of column.
    """

    features: np.ndarray
    groups: tuple
    labels: pd.Series
    object_means: pd.DataFrame
    internal_variance: pd.Series

    @property
    def mean_covariance(self) -> pd.DataFrame:
        """Covariance (``ddof=0``) of the per-object means over the objects: the seed's external covariance."""
        means = self.object_means.to_numpy()
        centred = means - means.mean(axis=0)
        return pd.DataFrame(centred.T @ centred / len(means), index=self.attributes, columns=self.attributes)

    @property
    def label_variance(self) -> float:
        """Variance (``ddof=0``) of the labels over the objects."""
        return float(np.var(self.labels.to_numpy()))

    def __repr__(self) -> str:
        return (
            f"GroupedFeatureCrowd(n_objects={self.n_objects}, n_attributes={self.n_attributes}, "
            f"n_columns={self.features.shape[1]})"
        )

    def draw(self, objects, repeats, random_state=None) -> pd.DataFrame:
        """Draw judgments: for each one, a column of the feature's group chosen uniformly at random.

        Parameters
        ----------
        objects : list of str, pandas.Index or None
            Names of objects (None: all of them).
        repeats : int, mapping attribute -> int, pandas.Series or array of int
            Number of judgments of each attribute per object (a mapping or
            Series by attribute name, the others getting none; an array by
            position; 0 allowed).
        random_state : int, numpy.random.Generator or None

        Returns
        -------
        pandas.DataFrame
            Judgments in long format, ordered by object, then attribute.

        Examples
        --------
        >>> crowd = grouped_feature_crowd([[0, 1, 2, 3]], [1.0], group_size=2)
        >>> crowd.draw(None, 3, random_state=0)["attribute"].tolist()
        ['g0', 'g0', 'g0', 'g1', 'g1', 'g1']
        """
        positions, names = _object_positions(objects, self.objects)
        counts = _counts(repeats, self.attributes, "repeats", minimum=0, missing_is_zero=True)
        rng = check_random_state(random_state)
        rows, codes = _judgment_layout(positions, counts)
        sizes = np.array([len(g) for g in self.groups])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        columns = np.concatenate(self.groups)[starts[codes] + rng.integers(0, sizes[codes])]
        values = self.features[rows, columns]
        object_names = np.repeat(names, int(counts.sum()))
        return _long_frame(object_names, self.attributes.to_numpy(dtype=object)[codes], values)

    def true_loss(self, repeats) -> float:
        """Loss ``ℓ(r)`` of the best linear predictor over these objects, drawn uniformly.

        The population is the finite set of objects (each equally likely) and
        the uniform column choice; the moments are the ``ddof=0`` covariances
        of :attr:`object_means` and the labels, and :attr:`internal_variance`
        (see :meth:`SimulatedCrowd.true_loss`).

        Examples
        --------
        >>> crowd = grouped_feature_crowd([[0, 2], [1, 1], [2, 0]], [0.0, 1.0, 2.0], group_size=1)
        >>> round(crowd.true_loss(1), 12)
        0.0
        """
        counts = _counts(repeats, self.attributes, "repeats", minimum=0, missing_is_zero=True)
        means = self.object_means.to_numpy()
        labels = self.labels.to_numpy()
        cross = (means - means.mean(axis=0)).T @ (labels - labels.mean()) / len(labels)
        return _population_loss(
            self.mean_covariance.to_numpy(), cross, self.label_variance, self.internal_variance.to_numpy(),
            counts.astype(np.float64),
        )



def grouped_feature_crowd(X, y, *, group_size: int = 8, feature_names=None) -> GroupedFeatureCrowd:
    """Turn groups of adjacent columns of a data matrix into noisy features (seed 002, §4).

    Parameters
    ----------
    X : array-like or pandas.DataFrame of shape (n_objects, n_columns)
        The data; rows are objects. A sparse matrix is made dense.
    y : array-like of shape (n_objects,)
        The labels (finite numbers).
    group_size : int, default 8
        Number of adjacent columns per feature, at most ``n_columns``. When it
        does not divide ``n_columns`` the last group holds the remaining
        columns.
    feature_names : sequence of str, optional
        Names of the columns. Feature names are then ``"first..last"`` (the
        first and last column of the group; a group of one column takes its
        name). By default the column names of a DataFrame whose columns are all
        strings are used, otherwise the features are named ``"g0", "g1", ...``.

    Returns
    -------
    GroupedFeatureCrowd
        With ``draw`` for judgments, ``object_means``, ``internal_variance``
        and ``true_loss``.

    Notes
    -----
    The simulated experiment of seed 002, §4, which "collapsed each set of 8
    adjacent histogram bins into a single feature, so that each judgment of the
    new feature was randomly chosen out of 8 possible values". Each judgment
    picks a column of the group uniformly at random and independently, so the
    per-object mean of a feature is the row mean over its group and its
    internal variance the row's population variance over the group.

    Examples
    --------
    Regress the digit shown from the 64 pixels of sklearn's digits; each
    feature is one row of the 8 x 8 image:

    >>> from sklearn.datasets import load_digits
    >>> digits = load_digits()
    >>> crowd = grouped_feature_crowd(digits.data, digits.target, group_size=8)
    >>> list(crowd.attributes)
    ['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7']
    >>> crowd.draw(crowd.objects[:2], 3, random_state=0).shape
    (48, 3)
    >>> bool(crowd.true_loss(8) < crowd.true_loss(1) < crowd.label_variance)
    True
    """
    names = feature_names
    if names is None and isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        names = list(X.columns)
    matrix = check_matrix(X, name="X", nonnegative=False, sparse_format=None)
    if sp.issparse(matrix):
        matrix = matrix.toarray()
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    n, p = matrix.shape
    if isinstance(y, (pd.Series, pd.DataFrame)):
        y = y.to_numpy()
    try:
        labels = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError("y must hold numbers (one label per row of X).") from None
    if labels.ndim == 2 and 1 in labels.shape:
        labels = labels.ravel()
    if labels.ndim != 1:
        raise InputError(f"y must be 1-dimensional (one label per row of X), got shape {labels.shape}.")
    if len(labels) != n:
        raise ShapeMismatchError(f"y has {len(labels)} entries but X has {n} rows; give one label per row.")
    if not np.isfinite(labels).all():
        raise InputError("y has NaN or infinite labels; drop those objects first.")
    size = check_positive_int(group_size, "group_size", maximum=p, maximum_name="the number of columns of X")
    groups = tuple(np.arange(start, min(start + size, p)) for start in range(0, p, size))
    if names is None:
        attribute_names = [f"g{g}" for g in range(len(groups))]
    else:
        names = [str(name) for name in names]
        if len(names) != p:
            raise ShapeMismatchError(f"feature_names has {len(names)} names but X has {p} columns.")
        attribute_names = [names[g[0]] if len(g) == 1 else f"{names[g[0]]}..{names[g[-1]]}" for g in groups]
        if len(set(attribute_names)) != len(attribute_names):
            raise ParameterError("feature_names give two groups the same name; pass distinct column names.")
    attributes = pd.Index(attribute_names, dtype=object, name="attribute")
    objects = pd.Index([f"o{i}" for i in range(n)], dtype=object, name="object")
    object_means = np.column_stack([matrix[:, g].mean(axis=1) for g in groups])
    internal = np.array([matrix[:, g].var(axis=1).mean() for g in groups])
    return GroupedFeatureCrowd(
        features=matrix,
        groups=groups,
        labels=pd.Series(labels, index=objects, name="label"),
        object_means=pd.DataFrame(object_means, index=objects, columns=attributes),
        internal_variance=pd.Series(internal, index=attributes, name="internal_variance"),
    )
