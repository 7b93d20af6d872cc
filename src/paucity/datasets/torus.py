"""Three classes on the torus with dense clusters and isolated points (seed 003, §4.6).

The synthetic stand-in of the rotamer data: angle pairs like (Phi, Psi), most
of them in a few tight clusters (the helix and sheet regions of a
Ramachandran plot), a few spread over the whole torus, and three classes
drawn from one smooth class-probability function, so that a classifier that
is right in the clusters can be over-confident at the isolated points.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import Interval, check_parameter, check_random_state
from .ramachandran import wrap_angles

__all__ = ["TorusClasses", "torus_classes"]


@dataclass(frozen=True)
class TorusClasses:
    """A draw of :func:`torus_classes`.

    Attributes
    ----------
    X : numpy.ndarray of float64, shape (n, 2)
        Angle pairs in radians, in [-pi, pi).
    y : numpy.ndarray of int64, shape (n,)
        Classes 0, 1, 2.
    isolated : numpy.ndarray of bool, shape (n,)
        True for the points drawn uniformly on the torus (not from a cluster).
    proba : numpy.ndarray of float64, shape (n, 3)
        The true class probabilities at each point.
    centers : numpy.ndarray of float64, shape (n_clusters, 2)
        The cluster centres.
    """

    X: np.ndarray
    y: np.ndarray
    isolated: np.ndarray
    proba: np.ndarray
    centers: np.ndarray

    def __iter__(self):
        """Unpack as ``X, y, isolated = torus_classes(...)``."""
        return iter((self.X, self.y, self.isolated))


def torus_classes(n: int = 300, *, n_clusters: int = 3, isolated_fraction: float = 0.1,
                  concentration: float = 30.0, strength: float = 3.0, random_state=None) -> TorusClasses:
    """Draw three classes on the torus: dense clusters and isolated points.

    Parameters
    ----------
    n : int, default 300
        Number of points.
    n_clusters : int, default 3
        Dense clusters; their centres are uniform on the torus.
    isolated_fraction : float in [0, 1], default 0.1
        Share of the points drawn uniformly on the torus instead of from a
        cluster (rounded to a whole number of points).
    concentration : float, default 30
        Von Mises concentration of each cluster in both angles (a spread of
        about ``1 / sqrt(concentration)`` radians, 10 degrees at 30).
    strength : float, default 3
        Scale of the class logits: larger means classes that are easier to tell.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    TorusClasses
        ``X`` (n, 2) angles in [-pi, pi), ``y`` in {0, 1, 2}, ``isolated``
        and the true ``proba``; unpacks as ``X, y, isolated``.

    Notes
    -----
    The class of a point x is drawn from ``softmax(strength * g(x))``, where
    each of the three logits ``g_c(x) = sum_k a_ck cos(x_1 - u_ck) +
    b_ck cos(x_2 - v_ck)`` (k = 1, 2 harmonics: k x in place of x) has random
    amplitudes ``a, b ~ N(0, 1 / k)`` and phases: a smooth function on the
    torus, the same at the clusters and at the isolated points. Seed 003,
    §4.6 uses real (Phi, Psi) angles; this is the synthetic fallback of the
    tests.

    Examples
    --------
    >>> from paucity.datasets import torus_classes
    >>> X, y, isolated = torus_classes(200, isolated_fraction=0.1, random_state=0)
    >>> X.shape, int(isolated.sum()), sorted(set(y.tolist()))
    ((200, 2), 20, [0, 1, 2])
    """
    owner = "torus_classes"
    n = check_parameter(n, "n", [Interval(numbers.Integral, 3, None)], owner=owner)
    n_clusters = check_parameter(n_clusters, "n_clusters", [Interval(numbers.Integral, 1, None)], owner=owner)
    isolated_fraction = check_parameter(isolated_fraction, "isolated_fraction",
                                        [Interval(numbers.Real, 0, 1)], owner=owner)
    concentration = check_parameter(concentration, "concentration",
                                    [Interval(numbers.Real, 0, None, closed="neither")], owner=owner)
    strength = check_parameter(strength, "strength", [Interval(numbers.Real, 0, None)], owner=owner)
    rng = check_random_state(random_state)

    centers = rng.uniform(-np.pi, np.pi, (n_clusters, 2))
    n_isolated = int(round(isolated_fraction * n))
    n_dense = n - n_isolated
    member = rng.integers(n_clusters, size=n_dense)
    dense = centers[member] + rng.vonmises(0.0, concentration, (n_dense, 2))
    spread = rng.uniform(-np.pi, np.pi, (n_isolated, 2))
    X = wrap_angles(np.vstack([dense, spread]))
    isolated = np.arange(n) >= n_dense

    harmonics = np.array([1.0, 2.0])
    amplitude = rng.normal(size=(3, 2, harmonics.size)) / np.sqrt(harmonics)  # class, angle, harmonic
    phase = rng.uniform(-np.pi, np.pi, (3, 2, harmonics.size))
    # logits[i, c] = sum over angle d and harmonic k of a[c, d, k] cos(k x[i, d] - phase[c, d, k])
    logits = np.einsum("cdk,icdk->ic", amplitude,
                       np.cos(harmonics[None, None, None, :] * X[:, None, :, None] - phase[None]))
    logits = strength * logits
    logits -= logits.max(axis=1, keepdims=True)
    proba = np.exp(logits)
    proba /= proba.sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(n, 1)) > np.cumsum(proba, axis=1)).sum(axis=1).astype(np.int64)
    y = np.minimum(y, 2)

    order = rng.permutation(n)
    return TorusClasses(X=X[order], y=y[order], isolated=isolated[order], proba=proba[order], centers=centers)
