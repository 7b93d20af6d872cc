"""Running estimates of noisy similarities from repeat measurements (seed 003, §2.5).

The similarity of a pair is estimated by the median of its measurements, and
its standard deviation by

- σ̂ = √(1/12) ≈ 0.2887 before any measurement (the standard deviation of a
  uniform similarity on [0, 1]),
- σ̂ = s after one measurement and σ̂ = s/√r after r,

where s estimates the population standard deviation of one measurement: the
pooled standard deviation of the pairs measured more than once,
s² = Σ_pairs Σ_k (x_k − x̄_pair)² / Σ_pairs (r_pair − 1). Until some pair has
been measured twice s is unknown; it is then taken as √(1/12) too (the seed
does not say; this keeps σ̂ at its prior until the first repeat).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError

__all__ = ["PRIOR_SIGMA", "SimilarityEstimates", "RunningEstimates"]

#: σ̂ of a similarity never measured: the standard deviation of the uniform law on [0, 1].
PRIOR_SIGMA = float(np.sqrt(1.0 / 12.0))


@dataclass(frozen=True)
class SimilarityEstimates:
    """Running estimates of the measured pairs (what :meth:`MeasurementStore.estimates` returns).

    Attributes
    ----------
    n_items : int or None
        Number of items, when known.
    i, j : ndarray of int
        The measured pairs, i < j, sorted.
    n_repeats : ndarray of int
        Measurements of each pair.
    median : ndarray
        ŵᵢⱼ, the median of each pair's measurements.
    sigma : ndarray
        σ̂ᵢⱼ = s/√r.
    pooled_sd : float
        s, the pooled standard deviation of the repeated pairs (NaN before any repeat).

    Examples
    --------
    >>> running = RunningEstimates(3)
    >>> for i, j, value in [(0, 1, 0.8), (0, 1, 0.6), (0, 1, 0.9), (1, 2, 0.1)]:
    ...     _ = running.add(i, j, value)
    >>> estimates = running.snapshot()
    >>> estimates.to_frame().round(4)
       i  j  n_repeats  median   sigma
    0  0  1          3     0.8  0.0882
    1  1  2          1     0.1  0.1528
    >>> round(estimates.pooled_sd, 4), round(estimates.sigma_of(0, 2), 4)  # s; a pair never measured
    (0.1528, 0.2887)
    """

    n_items: int | None
    i: np.ndarray
    j: np.ndarray
    n_repeats: np.ndarray
    median: np.ndarray
    sigma: np.ndarray
    pooled_sd: float

    def to_frame(self) -> pd.DataFrame:
        """One row per measured pair: i, j, n_repeats, median, sigma."""
        return pd.DataFrame(
            {"i": self.i, "j": self.j, "n_repeats": self.n_repeats, "median": self.median, "sigma": self.sigma}
        )

    def sigma_of(self, i: int, j: int) -> float:
        """σ̂ of the pair {i, j}: √(1/12) when it was never measured."""
        i, j = min(i, j), max(i, j)
        hit = np.flatnonzero((self.i == i) & (self.j == j))
        return float(self.sigma[hit[0]]) if len(hit) else PRIOR_SIGMA

    def matrix(self) -> np.ndarray:
        """Ŵ as a dense n × n matrix: medians, zeros for unmeasured pairs, ones on the diagonal (Ŵ = I at the start)."""
        if self.n_items is None:
            raise InputError("the number of items is unknown, so Ŵ has no shape; set the store's n_items first.")
        W = np.eye(self.n_items)
        W[self.i, self.j] = self.median
        W[self.j, self.i] = self.median
        return W


class RunningEstimates:
    """Median, count and σ̂ of every pair, updated one measurement at a time.

    With ``n_items`` it keeps Ŵ (medians, zeros where unmeasured, ones on the
    diagonal) and the measurement counts as dense n × n matrices ``W`` and
    ``counts``, so that a step of the active loop reads them without copying:
    O(n²) memory.

    With ``sparse=True`` it keeps no n × n matrix: the measured pairs are
    held in arrays (one slot per pair, O(measured pairs) memory) and
    :meth:`sparse_matrix` builds Ŵ as a CSR matrix from them, once per state.

    Parameters
    ----------
    n_items : int or None
        Number of items; None keeps no matrices (for :meth:`snapshot` only).
    sparse : bool, default=False
        Keep the measured pairs in arrays instead of dense n × n matrices.
    """

    def __init__(self, n_items: int | None, *, sparse: bool = False):
        self.n_items = None if n_items is None else int(n_items)
        self.sparse = bool(sparse) and n_items is not None
        dense = n_items is not None and not self.sparse
        self.W = np.eye(self.n_items) if dense else None
        self.counts = np.zeros((self.n_items, self.n_items), dtype=np.int32) if dense else None
        self._slot: dict[tuple[int, int], int] = {}
        self._pair_i = np.zeros(0, dtype=np.int64)
        self._pair_j = np.zeros(0, dtype=np.int64)
        self._pair_median = np.zeros(0)
        self._pair_count = np.zeros(0, dtype=np.int32)
        self._csr = None  # Ŵ of the current state (sparse mode), built on demand
        self._values: dict[tuple[int, int], list[float]] = {}
        self._decided: dict[tuple[int, int], float] = {}  # values set by a person over the measurements' median
        self._squares: dict[tuple[int, int], float] = {}
        self._sum_squares = 0.0
        self._degrees_of_freedom = 0
        self.n_measurements = 0

    def add(self, i: int, j: int, value: float) -> float:
        """Record one measurement of {i, j}; returns the pair's new median."""
        key = (min(i, j), max(i, j))
        values = self._values.setdefault(key, [])
        values.append(float(value))
        r = len(values)
        if r >= 2:
            squares = float(np.sum((np.asarray(values) - np.mean(values)) ** 2))
            self._sum_squares += squares - self._squares.get(key, 0.0)
            self._squares[key] = squares
            self._degrees_of_freedom += 1
        median = values[0] if r == 1 else float(np.median(values))  # one value is its own median
        self._set(key, self._decided.get(key, median), r)
        self.n_measurements += 1
        return self._decided.get(key, median)

    def decide(self, i: int, j: int, value: float | None) -> float:
        """Set ŵᵢⱼ to ``value`` whatever its measurements say (an adjudication), or with None go back to their
        median; returns the pair's value now. Measurements of the pair still count, and are kept."""
        key = (min(i, j), max(i, j))
        if value is None:
            self._decided.pop(key, None)
        else:
            self._decided[key] = float(value)
        self._set(key, self.median_of(*key), len(self._values.get(key, ())))
        return self.median_of(*key)

    def _set(self, key: tuple[int, int], value: float, r: int) -> None:
        a, b = key
        if self.W is not None:
            self.W[a, b] = self.W[b, a] = value
            self.counts[a, b] = self.counts[b, a] = r
        elif self.sparse:
            self._remember_pair(a, b, value, r)

    def _remember_pair(self, a: int, b: int, median: float, r: int) -> None:
        slot = self._slot.get((a, b))
        if slot is None:
            slot = len(self._slot)
            self._slot[(a, b)] = slot
            if slot == len(self._pair_i):  # grow by half: amortized O(1) per pair
                size = max(64, slot + slot // 2)
                self._pair_i = np.resize(self._pair_i, size)
                self._pair_j = np.resize(self._pair_j, size)
                self._pair_median = np.resize(self._pair_median, size)
                self._pair_count = np.resize(self._pair_count, size)
            self._pair_i[slot], self._pair_j[slot] = a, b
        self._pair_median[slot] = median
        self._pair_count[slot] = r
        self._csr = None

    def pair_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The measured pairs (sparse mode): i < j, median, measurements; in the order first measured (views)."""
        m = len(self._slot)
        return self._pair_i[:m], self._pair_j[:m], self._pair_median[:m], self._pair_count[:m]

    def sparse_matrix(self):
        """Ŵ as a symmetric CSR matrix: medians, no entry for unmeasured pairs, ones on the diagonal.

        Built from the pair arrays once per state (O(measured pairs)); the
        same object is returned until the next measurement.
        """
        import scipy.sparse as sp

        if self._csr is None:
            n = self.n_items
            i, j, median, _ = self.pair_arrays()
            rows = np.concatenate([i, j, np.arange(n)])
            cols = np.concatenate([j, i, np.arange(n)])
            values = np.concatenate([median, median, np.ones(n)])
            W = sp.csr_matrix((values, (rows, cols)), shape=(n, n))
            W.sum_duplicates()
            W.sort_indices()
            self._csr = W
        return self._csr

    @property
    def pooled_sd(self) -> float:
        """s: the pooled standard deviation of the repeated pairs, NaN before the first repeat."""
        if self._degrees_of_freedom == 0:
            return float("nan")
        return float(np.sqrt(max(self._sum_squares, 0.0) / self._degrees_of_freedom))

    @property
    def population_sd(self) -> float:
        """The s used in σ̂: the pooled standard deviation, or √(1/12) before the first repeat."""
        s = self.pooled_sd
        return PRIOR_SIGMA if np.isnan(s) else s

    def matrix(self):
        """Ŵ: the dense matrix kept, or in sparse mode the CSR matrix."""
        return self.sparse_matrix() if self.sparse else self.W

    def sigma_matrix(self) -> np.ndarray:
        """σ̂ for every pair as an n × n matrix: √(1/12) where unmeasured, s/√r after r measurements."""
        counts = self.counts
        with np.errstate(divide="ignore"):
            sigma = self.population_sd / np.sqrt(counts)
        return np.where(counts == 0, PRIOR_SIGMA, sigma)

    def repeats_of(self, i: int, j: int) -> int:
        """How many times {i, j} has been measured."""
        return len(self._values.get((min(i, j), max(i, j)), ()))

    def median_of(self, i: int, j: int) -> float:
        """ŵᵢⱼ: the median of the measurements of {i, j} (the value decided for it, when one was), 0 when it is
        unmeasured."""
        key = (min(i, j), max(i, j))
        if key in self._decided:
            return self._decided[key]
        values = self._values.get(key)
        if not values:
            return 0.0
        return values[0] if len(values) == 1 else float(np.median(values))

    def snapshot(self) -> SimilarityEstimates:
        """The estimates of the measured pairs, as a frozen :class:`SimilarityEstimates`."""
        keys = sorted(self._values)
        i = np.array([k[0] for k in keys], dtype=np.int64)
        j = np.array([k[1] for k in keys], dtype=np.int64)
        counts = np.array([len(self._values[k]) for k in keys], dtype=np.int64)
        medians = np.array([v[0] if len(v) == 1 else np.median(v) for v in map(self._values.__getitem__, keys)],
                           dtype=np.float64)  # one value is its own median
        sigma = self.population_sd / np.sqrt(counts) if len(keys) else np.empty(0)
        return SimilarityEstimates(self.n_items, i, j, counts, medians, np.asarray(sigma, dtype=float), self.pooled_sd)
