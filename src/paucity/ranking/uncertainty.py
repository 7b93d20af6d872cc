"""The Laplace approximation of a fitted log-weight vector's posterior, and what it gives.

At the (penalized) maximum likelihood estimate v̂ of BTL or Plackett–Luce the
posterior of v is approximated by ``N(v̂, (H + alpha I)⁻¹)``, H the Hessian of
the negative log-likelihood. Both models' H is a weighted graph Laplacian
``L = Σ_e w_e (e_a − e_b)(e_a − e_b)ᵀ`` (BTL: one edge per compared pair,
``w = n σ(1 − σ)``; Plackett–Luce: one edge per pair of items of a choice
stage, ``w = p_a p_b``), so every product with it is a pass over the edges
and nothing ``n × n`` is formed. Scores are reported centred, so the
covariance reported is that of the centred log-weights,
``Σ = P (L + alpha I)⁺ P`` with ``P = I − 11ᵀ/n`` (with ``alpha = 0`` the
likelihood says nothing about the mean, and Σ is the pseudo-inverse ``L⁺``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._errors import InputError
from .._validation import (
    Interval,
    Iterations,
    check_is_fitted,
    check_parameter,
    check_random_state,
)

__all__ = ["LaplacePosterior", "LaplaceUncertainty", "DENSE_LIMIT", "N_PROBES"]

#: Up to this many items the diagonal of Σ is computed exactly from a dense factorization.
DENSE_LIMIT = 2000
#: Random probes of the diagonal estimate beyond ``DENSE_LIMIT`` items.
N_PROBES = 64


@dataclass(frozen=True)
class LaplacePosterior:
    """``N(mean, Σ)`` with ``Σ = P (L + alpha I)⁺ P`` for the Laplacian of the given edges.

    Attributes
    ----------
    mean : ndarray of shape (n,)
    low, high : ndarray of int64
        The two items of each edge.
    weights : ndarray of float64
        The edges' weights (the Hessian is ``Σ_e w_e (e_low − e_high)(e_low − e_high)ᵀ``).
    alpha : float
    downdate : ndarray of shape (n,) or None
        ``u`` when the precision is ``L + alpha I − u uᵀ`` (a nuisance
        parameter integrated out: BTL's tie parameter), applied by the
        Sherman–Morrison formula; ``u`` must sum to zero.
    """

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    weights: np.ndarray
    alpha: float
    downdate: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return len(self.mean)

    def matrix(self) -> sp.csr_matrix:
        """``L + alpha I`` as a sparse matrix."""
        n = self.n_items
        w = self.weights
        off = sp.csr_matrix(
            (np.r_[-w, -w], (np.r_[self.low, self.high], np.r_[self.high, self.low])), shape=(n, n)
        )
        degree = np.bincount(self.low, w, minlength=n) + np.bincount(self.high, w, minlength=n)
        return (off + sp.diags(degree + self.alpha)).tocsr()

    def apply(self, rhs: np.ndarray, tol: float = 1e-10, max_iter: int = 2000, matrix=None) -> np.ndarray:
        """``Σ rhs`` for a vector or a block of columns, by block Jacobi-preconditioned conjugate gradients.

        ``tol`` is each column's residual relative to its right-hand side;
        ``matrix`` is :meth:`matrix`, when the caller has it already.
        """
        matrix = self.matrix() if matrix is None else matrix
        x = self._solve(rhs, tol, max_iter, matrix)
        if self.downdate is None:
            return x
        s, k = self._downdate_terms(matrix)
        # (A − uuᵀ)⁻¹ b = A⁻¹b + A⁻¹u · uᵀA⁻¹b / (1 − uᵀA⁻¹u)
        return x + (np.multiply.outer(s, self.downdate @ x) if x.ndim == 2 else s * (self.downdate @ x)) * k

    def _downdate_terms(self, matrix):
        s = self._solve(self.downdate, 1e-12, 5000, matrix)
        return s, 1.0 / (1.0 - self.downdate @ s)

    def _solve(self, rhs, tol, max_iter, matrix):
        """``P (L + alpha I)⁺ P rhs`` by block conjugate gradients."""
        vector = rhs.ndim == 1
        b = rhs[:, None] if vector else rhs
        b = b - b.mean(axis=0)
        diagonal = matrix.diagonal()
        diagonal = np.where(diagonal > 0, diagonal, 1.0)
        x = np.zeros_like(b)
        residual = b.copy()
        z = residual / diagonal[:, None]
        p = z.copy()
        rz = np.einsum("ij,ij->j", residual, z)
        target = tol * np.maximum(np.linalg.norm(b, axis=0), 1e-300)
        for _ in range(max_iter):
            if (np.linalg.norm(residual, axis=0) <= target).all():
                break
            ap = matrix @ p
            curvature = np.einsum("ij,ij->j", p, ap)
            step = np.divide(rz, curvature, out=np.zeros_like(rz), where=curvature > 0)
            x += step * p
            residual -= step * ap
            if self.alpha == 0:
                residual -= residual.mean(axis=0)  # stay in the range of L
            z = residual / diagonal[:, None]
            rz_next = np.einsum("ij,ij->j", residual, z)
            beta = np.divide(rz_next, rz, out=np.zeros_like(rz), where=rz > 0)
            p = z + beta * p
            rz = rz_next
        x = x - x.mean(axis=0)
        return x[:, 0] if vector else x

    def variances(self, *, n_probes: int = N_PROBES, random_state=0) -> np.ndarray:
        """The diagonal of Σ: exact (dense) up to ``DENSE_LIMIT`` items, else a probe estimate.

        Beyond ``DENSE_LIMIT`` items the diagonal is Hutchinson's estimate
        ``mean_k z_k ∘ Σ z_k`` over ``n_probes`` Rademacher vectors, each
        ``Σ z_k`` by conjugate gradients (block of 16 probes at a time); its
        error for item i has standard deviation ``√(Σ_{j≠i} Σ_ij² / n_probes)``,
        small where an item's posterior is coupled to many others weakly.
        """
        n = self.n_items
        if n <= DENSE_LIMIT:
            dense = self.matrix().toarray()
            if self.downdate is not None:
                dense -= np.outer(self.downdate, self.downdate)
            if self.alpha == 0:
                return np.diag(np.linalg.inv(dense + 1.0 / n)) - 1.0 / n
            inverse = np.linalg.inv(dense)
            centred = inverse - inverse.mean(axis=0) - inverse.mean(axis=1)[:, None] + inverse.mean()
            return np.diag(centred).copy()
        rng = check_random_state(random_state)
        matrix = self.matrix()
        total = np.zeros(n)
        done = 0
        while done < n_probes:
            block = min(16, n_probes - done)
            z = rng.choice(np.array([-1.0, 1.0]), size=(n, block))
            # E[z_i (Σz)_i] = Σ_ii; a relative residual of 1e-6 is far below the probes' own error
            total += np.einsum("ij,ij->i", z, self.apply(z, tol=1e-6, matrix=matrix))
            done += block
        return np.maximum(total / n_probes, 0.0)

    def sample(self, n_samples: int, rng: np.random.Generator) -> np.ndarray:
        """``n_samples`` draws of the centred log-weights, shape ``(n_samples, n)``.

        Each draw solves ``(L + alpha I) x = g`` with ``g = Bᵀ W^{1/2} ξ + √alpha ξ′``
        (B the edges' incidence matrix), whose covariance is ``L + alpha I``.
        """
        n = self.n_items
        out = np.empty((n_samples, n))
        root = np.sqrt(self.weights)
        matrix = self.matrix()
        if self.downdate is not None:
            # A⁻¹g has covariance A⁻¹; adding √k ζ A⁻¹u (ζ ~ N(0, 1)) makes it A⁻¹ + k A⁻¹u uᵀA⁻¹ = (A − uuᵀ)⁻¹
            s, k = self._downdate_terms(matrix)
        for start in range(0, n_samples, 16):
            block = min(16, n_samples - start)
            xi = rng.standard_normal((len(self.weights), block)) * root[:, None]
            g = np.zeros((n, block))
            np.add.at(g, self.low, xi)
            np.add.at(g, self.high, -xi)
            if self.alpha > 0:
                g += np.sqrt(self.alpha) * rng.standard_normal((n, block))
            x = self._solve(g, 1e-8, 2000, matrix)
            if self.downdate is not None:
                x += np.sqrt(k) * np.multiply.outer(s, rng.standard_normal(block))
            out[start : start + block] = (x + (self.mean - self.mean.mean())[:, None]).T
        return out


class LaplaceUncertainty:
    """``scores_std_``, ``covariance`` and ``rank_intervals`` from a fitted model's Laplace posterior.

    The estimator defines ``_laplace_posterior()``; the posterior and the
    standard deviations are computed on first use and kept.
    """

    def _posterior(self) -> LaplacePosterior:
        check_is_fitted(self, "scores_")
        cached = self.__dict__.get("_laplace_cache")
        if cached is None or cached[0] is not self.scores_:
            cached = (self.scores_, self._laplace_posterior(), None)
            self.__dict__["_laplace_cache"] = cached
        return cached[1]

    @property
    def scores_std_(self) -> pd.Series:
        """Posterior standard deviation of each centred log-score (Laplace approximation).

        Exact up to 2,000 items; beyond, estimated from 64 random probes with
        a fixed seed (see :meth:`LaplacePosterior.variances`).
        """
        posterior = self._posterior()
        scores, _, std = self.__dict__["_laplace_cache"]
        if std is None:
            std = pd.Series(np.sqrt(posterior.variances()), index=self.items_, name="score_std")
            self.__dict__["_laplace_cache"] = (scores, posterior, std)
        return std

    def covariance(self, items) -> pd.DataFrame:
        """Posterior covariance of the centred log-scores of the given items (a small table).

        One conjugate-gradient solve per item; exact to the solver's tolerance.

        Examples
        --------
        >>> from paucity.ranking import BTL, Comparisons
        >>> c = Comparisons.from_winners([0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1])
        >>> BTL().fit(c).covariance([0, 1]).round(3).values.tolist()
        [[0.444, -0.222], [-0.222, 0.444]]
        """
        posterior = self._posterior()
        positions = self._positions(items, "items")
        if len(positions) == 0:
            raise InputError("covariance needs at least one item.")
        unit = np.zeros((posterior.n_items, len(positions)))
        unit[positions, np.arange(len(positions))] = 1.0
        block = posterior.apply(unit)[positions]
        block = (block + block.T) / 2
        labels = self.items_[positions]
        return pd.DataFrame(block, index=labels, columns=labels)

    def rank_intervals(self, level: float = 0.95, n_samples: int = 1000, random_state=None) -> pd.DataFrame:
        """Each item's plausible range of ranks (1 = best), by simulation from the Laplace posterior.

        Draws ``n_samples`` log-score vectors from ``N(v̂, Σ)``, ranks the
        items in each draw, and reports the central ``level`` interval of
        each item's rank. Memory: ``n_samples × n_items`` 4-byte ranks.

        Returns
        -------
        pandas.DataFrame
            Indexed by item, best first: ``rank`` (of the fitted scores),
            ``lower``, ``upper`` (the interval) and ``median``.
        """
        level = check_parameter(level, "level", [Interval(numbers.Real, 0, 1, closed="neither")], owner="rank_intervals")
        n_samples = check_parameter(n_samples, "n_samples", [Iterations(1)], owner="rank_intervals")
        rng = check_random_state(random_state)
        posterior = self._posterior()
        n = posterior.n_items
        ranks = np.empty((n_samples, n), dtype=np.int32)
        for start in range(0, n_samples, 64):
            draws = posterior.sample(min(64, n_samples - start), rng)
            order = np.argsort(-draws, axis=1, kind="stable")
            block = np.empty_like(order, dtype=np.int32)
            np.put_along_axis(block, order, np.arange(1, n + 1, dtype=np.int32)[None, :], axis=1)
            ranks[start : start + len(draws)] = block
        tail = (1.0 - level) / 2
        lower = np.quantile(ranks, tail, axis=0, method="lower").astype(np.int64)
        upper = np.quantile(ranks, 1 - tail, axis=0, method="higher").astype(np.int64)
        median = np.median(ranks, axis=0)
        fitted_rank = np.empty(n, dtype=np.int64)
        fitted_rank[self.order_] = np.arange(1, n + 1)
        table = pd.DataFrame(
            {"rank": fitted_rank, "lower": lower, "upper": upper, "median": median}, index=self.items_
        )
        return table.iloc[self.order_]
