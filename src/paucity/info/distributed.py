"""Binned data spread over Dask workers, counted block by block and summed exactly.

Imported only when a Dask array is given: single-machine paths never import Dask.
With a ``dask.distributed`` Client, the binned blocks are persisted on the
workers and every greedy step is a map over them followed by a sum; a lost
worker's blocks are rebuilt from the task graph. Without a Client the same
code runs on Dask's local scheduler.
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError, ParameterError
from .._validation import check_parameter
from . import _kernels, blocks
from .counts import candidate_interactions
from .discretize import N_BINS

__all__ = ["DistributedBins"]


def _sum(*parts):
    total = parts[0].copy()
    for part in parts[1:]:
        total += part
    return total


def _any(*parts):
    total = parts[0].copy()
    for part in parts[1:]:
        total |= part
    return total


def _sum_pairs(*parts):
    return _sum(*(p[0] for p in parts)), _sum(*(p[1] for p in parts))


class DistributedBins:
    """A Dask array binned block by block with global recursive-quantile edges.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Chunks of rows, dense or scipy sparse (CSR) blocks; column chunks are
        merged. Non-negative values.
    n_bins : int or None
        Bins per feature (2 to 255); None when X already holds bins (integers < 256).

    Notes
    -----
    The edges need each feature's quantiles over all cells: every block
    reports its distinct values with their multiplicities, which add up
    exactly (no sketch), so the edges, the bins and every count equal the
    in-memory run's. Counts data have few distinct values per gene, so these
    summaries are small; continuous data send up to one entry per stored value.
    """

    def __init__(self, X, n_bins: int | None):
        import dask

        n_bins = check_parameter(n_bins, "n_bins", [N_BINS, None], owner="DistributedBins")
        if X.ndim != 2:
            raise InputError(f"X must be 2-dimensional, got {X.ndim} dimensions.")
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        self.n_samples, self.n_features = (int(X.shape[0]), int(X.shape[1]))
        if self.n_samples == 0 or self.n_features == 0:
            raise InputError(f"X is empty: shape {X.shape}; at least one sample and one feature are needed.")
        self.row_offsets = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.int64)
        source = list(X.to_delayed().ravel())
        counts = dask.compute(*[dask.delayed(blocks.value_counts)(b) for b in source])
        merged = blocks.merge_value_counts(counts)
        if n_bins is None:
            if merged.values.size and (np.any(np.mod(merged.values, 1) != 0) or merged.values.max() >= 256):
                raise InputError(
                    "X was given as pre-discretized (n_bins=None) but holds values that are not integers in 0..255; "
                    "pass n_bins=5 to discretize it."
                )
            top = int(merged.values.max()) if merged.values.size else 0
            edges, n_edges = blocks.identity_edges(self.n_features, top)
            self.n_bins = top + 1
        else:
            edges, n_edges = blocks.edges_from_counts(merged, n_bins)
            self.n_bins = n_bins
        self.n_bins = max(self.n_bins, 2)
        binned = [dask.delayed(blocks.bin_block)(b, edges, n_edges, self.n_bins) for b in source]
        self._blocks = list(dask.persist(*binned))
        self.xlogx = _kernels.xlogx_table(self.n_samples)

    # ------------------------------------------------ what Stepwise reads
    def column(self, feature: int) -> np.ndarray:
        """Bins of one feature over all rows (gathered from the blocks)."""
        import dask

        parts = dask.compute(*[dask.delayed(blocks.feature_bins)(b, int(feature), self.n_bins) for b in self._blocks])
        return np.concatenate(parts)

    def constant_features(self) -> np.ndarray:
        """Whether each feature holds one bin in every row (as :meth:`paucity.info.BinnedMatrix.constant_features`)."""
        import dask

        parts = [dask.delayed(blocks.bins_present)(b, self.n_features, self.n_bins) for b in self._blocks]
        (present,) = dask.compute(dask.delayed(_any)(*parts))
        return present.sum(axis=1) <= 1

    def with_labels(self, labels, n_classes):
        return None

    def labelling(self, labels, n_classes: int) -> "DistributedLabelling":
        """Counts with respect to these labels (None: unsupervised)."""
        return DistributedLabelling(self, labels, n_classes)


class DistributedLabelling:
    """Reference tables and per-step pair counts of :class:`DistributedBins` for one labelling."""

    def __init__(self, bins: DistributedBins, labels, n_classes: int):
        import dask

        self.bins = bins
        self.supervised = labels is not None
        self.n_codes = n_classes if labels is not None else 1
        codes = labels.astype(np.int64) if labels is not None else np.zeros(bins.n_samples, dtype=np.int64)
        self.labels = codes
        offsets = bins.row_offsets
        self._label_blocks = list(
            dask.persist(*[dask.delayed(np.asarray)(codes[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])
        )
        parts = [
            dask.delayed(blocks.reference_counts)(blk, lab, bins.n_features, bins.n_bins, self.n_codes)
            for blk, lab in zip(bins._blocks, self._label_blocks)
        ]
        (reference,) = dask.compute(dask.delayed(_sum)(*parts))
        base = np.bincount(codes, minlength=self.n_codes).astype(np.int64)
        stored = reference[:, self.n_codes:].reshape(bins.n_features, bins.n_bins - 1, self.n_codes).sum(axis=1)
        reference[:, : self.n_codes] = base[None, :] - stored
        self.reference = reference
        self._count_s = None

    def univariate_entropies(self) -> dict:
        """H(x_j) and, with labels, H(x_j, y) for every feature, keyed as candidate_interactions caches them."""
        out = np.empty((self.bins.n_features, 2), dtype=np.float64)
        _kernels.table_entropies(self.reference, self.bins.n_bins, self.n_codes, self.bins.xlogx, self.bins.n_samples, out)
        cache = {frozenset(): out[:, 0].copy()}
        if self.supervised:
            cache[frozenset({"y"})] = out[:, 1].copy()
        return cache

    def univariate_scores(self, cache: dict) -> np.ndarray:
        """I(x_j; y) (or H(x_j)) with the same arithmetic as the in-memory path."""
        columns = np.arange(self.bins.n_features, dtype=np.int64)
        if self.supervised:
            return candidate_interactions(self.bins, [self.labels], [self.n_codes], columns, names=["y"], cache=cache)
        return candidate_interactions(self.bins, [], [], columns, names=[], cache=cache)

    def entropies(self, feature: int, columns: np.ndarray):
        """H(x_j, s) and H(x_j, s, y) for the new feature s, summed over the blocks (PairCounter's interface)."""
        import dask

        bins = self.bins
        parts = [
            dask.delayed(blocks.pair_counts)(blk, int(feature), lab, bins.n_features, bins.n_bins, self.n_codes)
            for blk, lab in zip(bins._blocks, self._label_blocks)
        ]
        ((pairs, count_s),) = dask.compute(dask.delayed(_sum_pairs)(*parts))
        out = np.empty((columns.shape[0], 2), dtype=np.float64)
        _kernels.pair_entropies(
            pairs[None, :], self.reference, count_s, columns.astype(np.int64, copy=False), bins.n_features,
            bins.n_bins, self.n_codes, bins.xlogx, bins.n_samples, out,
        )
        return out[:, 0].copy(), out[:, 1].copy()


def check_degree(objective) -> None:
    """Dask input runs the objectives built from single features and pairs."""
    if objective.max_degree > 1:
        raise ParameterError(
            f"method {objective.name!r} needs joint counts of three or more features, which the Dask path does not "
            "compute; use degree <= 2 (CIFE) or an in-memory matrix."
        )
