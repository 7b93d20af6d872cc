"""Synthetic single-cell count matrices with known cell types and marker genes.

The generator draws negative-binomial counts straight into a sparse matrix, one
block of rows at a time, so that matrices of hundreds of thousands of cells can
be made without ever holding a dense cells x genes array.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._errors import ParameterError
from .._validation import Interval, check_parameter, check_positive_int, check_random_state

__all__ = ["SyntheticCounts", "make_scrna_counts"]

# Standard deviation of the log base means of the genes (natural log): gene
# means span a few orders of magnitude, as they do in droplet scRNA-seq data.
_LOG_MEAN_SD = 1.5
# Marker genes are multiplied by a fold change drawn log-uniformly in this range
# in the cell type they mark.
_FOLD_CHANGE_RANGE = (4.0, 16.0)
# Number of matrix entries drawn per block of rows (about 32 MiB of float32).
_BLOCK_ENTRIES = 1 << 23
# Non-zero values of mean at most this, or whose probability of a zero count
# exceeds _INVERSE_CDF_MIN_P0, are drawn by inverting the zero-truncated CDF
# (cost grows with the value); the others by redrawing zeros (fewer than
# 1 / (1 - 0.3) negative-binomial draws per value on average).
_INVERSE_CDF_MAX_MEAN = 20.0
_INVERSE_CDF_MIN_P0 = 0.3
# Inverse-CDF steps before the few entries left fall back to redrawing.
_INVERSE_CDF_MAX_STEPS = 2000


@dataclass(frozen=True, eq=False)
class SyntheticCounts:
    """A synthetic count matrix with its cell types and marker genes.

    Attributes
    ----------
    X : scipy.sparse.csr_matrix of shape (n_cells, n_genes), float32
        Integer-valued negative-binomial counts, cells in rows.
    labels : numpy.ndarray of shape (n_cells,), int64
        Cell type of each cell, ``0 .. n_types - 1``.
    marker_genes : tuple of numpy.ndarray
        ``marker_genes[t]`` holds the (sorted, int64) indices of the genes
        up-regulated in cell type ``t``. The sets of different types are disjoint.
    means : numpy.ndarray of shape (n_types, n_genes), float64
        The negative-binomial mean of each gene in each cell type.
    dispersion : float
        The negative-binomial dispersion ``alpha`` (variance ``mu + alpha mu^2``).
    """

    X: sp.csr_matrix
    labels: np.ndarray
    marker_genes: tuple
    means: np.ndarray
    dispersion: float

    @property
    def n_cells(self) -> int:
        """Number of cells (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_genes(self) -> int:
        """Number of genes (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def n_types(self) -> int:
        """Number of cell types."""
        return len(self.marker_genes)

    def __repr__(self) -> str:
        n_markers = sum(len(m) for m in self.marker_genes)
        density = self.X.nnz / max(1, self.n_cells * self.n_genes)
        return (
            f"SyntheticCounts(n_cells={self.n_cells}, n_genes={self.n_genes}, n_types={self.n_types}, "
            f"n_markers={n_markers}, density={density:.3f}, dispersion={self.dispersion})"
        )

    def to_anndata(self):
        """The data as an :class:`anndata.AnnData`.

        Returns
        -------
        anndata.AnnData
            ``X`` is the CSR count matrix (shared, not copied);
            ``obs["cell_type"]`` is categorical with categories ``"type0"``,
            ``"type1"``, ... in numeric order; ``var_names`` are ``"gene0"``,
            ``"gene1"``, ...; ``var["marker_of"]`` names the type a gene marks
            (empty string for genes that mark none).

        Examples
        --------
        >>> from paucity.datasets import make_scrna_counts
        >>> adata = make_scrna_counts(n_cells=300, n_genes=100, n_types=3, n_markers=12).to_anndata()
        >>> adata.shape
        (300, 100)
        >>> list(adata.obs["cell_type"].cat.categories)
        ['type0', 'type1', 'type2']
        >>> int((adata.var["marker_of"] != "").sum())
        12
        """
        import anndata
        import pandas as pd

        type_names = [f"type{t}" for t in range(self.n_types)]
        cell_type = pd.Categorical.from_codes(self.labels, categories=type_names)
        obs = pd.DataFrame({"cell_type": cell_type}, index=[f"cell{i}" for i in range(self.n_cells)])
        marker_of = np.full(self.n_genes, "", dtype=object)
        for t, genes in enumerate(self.marker_genes):
            marker_of[genes] = type_names[t]
        var = pd.DataFrame({"marker_of": marker_of}, index=[f"gene{j}" for j in range(self.n_genes)])
        return anndata.AnnData(X=self.X, obs=obs, var=var)


def make_scrna_counts(
    n_cells: int = 20000,
    n_genes: int = 2000,
    n_types: int = 10,
    n_markers: int | None = None,
    density: float = 0.12,
    dispersion: float = 0.5,
    random_state=0,
) -> SyntheticCounts:
    """Draw a sparse scRNA-seq-like count matrix with cell types and marker genes.

    Parameters
    ----------
    n_cells : int, default 20000
        Number of cells (rows).
    n_genes : int, default 2000
        Number of genes (columns).
    n_types : int, default 10
        Number of cell types; cells are split among them as evenly as possible
        (sizes differ by at most one) and shuffled.
    n_markers : int, optional
        Total number of marker genes, split as evenly as possible among the
        types (disjoint sets, chosen at random among the genes). 0 gives data
        with no cell-type signal. By default 300, or half the genes when there
        are fewer than 600, so that every default fits any ``n_genes``.
    density : float, default 0.12
        Expected fraction of non-zero entries, in (0, 1).
    dispersion : float, default 0.5
        Negative-binomial dispersion ``alpha > 0``: a gene of mean ``mu`` has
        variance ``mu + alpha * mu**2`` (size parameter ``1 / alpha``).
    random_state : int, numpy.random.Generator or None, default 0
        Seed; the same seed and arguments give the same matrix.

    Returns
    -------
    SyntheticCounts
        ``X`` (CSR float32 counts), ``labels``, ``marker_genes``, ``means`` and
        ``dispersion``.

    Raises
    ------
    paucity._errors.ParameterError
        When an argument is out of range.

    Notes
    -----
    This is a benchmark workload shaped like the count matrices of the seed's
    chapter 2 experiments (Varma 2019, Section 2.6: droplet scRNA-seq with most
    entries zero); the seed itself does not prescribe a generator. The model:

    * the base mean of gene ``g`` is ``mu_g = exp(m + 1.5 z_g)`` with
      ``z_g ~ N(0, 1)`` (a log-normal spread of gene means);
    * a marker gene of type ``t`` has mean ``mu_g * f_g`` in the cells of type
      ``t`` and ``mu_g`` elsewhere, with the fold change ``f_g`` log-uniform in
      [4, 16];
    * the count of gene ``g`` in a cell of type ``t`` is negative binomial with
      mean ``mu_gt`` and dispersion ``alpha``, so that
      ``P(count = 0) = (1 + alpha mu_gt) ** (-1 / alpha)``;
    * the location ``m`` is solved (by bisection) so that the expected fraction
      of non-zeros, averaged over the drawn genes and the cell-type sizes,
      equals ``density``.

    Entries are drawn in blocks of rows: a non-zero mask from
    ``P(count > 0)``, then the value of each non-zero entry from the
    zero-truncated negative binomial (by inverting its CDF for low means and
    by redrawing zeros for high means). Memory is that of the output
    (``nnz`` float32 values and int32 column indices) plus one block of about
    ``2**23`` entries; no dense cells x genes array is allocated.

    Examples
    --------
    >>> from paucity.datasets import make_scrna_counts
    >>> data = make_scrna_counts(n_cells=2000, n_genes=500, n_types=5, n_markers=50, random_state=1)
    >>> data.X.shape, data.X.format, data.X.dtype
    ((2000, 500), 'csr', dtype('float32'))
    >>> round(data.X.nnz / (2000 * 500), 2)
    0.12
    >>> [len(genes) for genes in data.marker_genes]
    [10, 10, 10, 10, 10]
    >>> bool((data.X.data == data.X.data.round()).all())
    True
    >>> sum(len(genes) for genes in make_scrna_counts(600, 200).marker_genes)   # half the genes, below 600
    100
    """
    n_cells = check_positive_int(n_cells, "n_cells")
    n_genes = check_positive_int(n_genes, "n_genes")
    n_types = check_positive_int(n_types, "n_types")
    if n_types > n_cells:
        raise ParameterError(
            f"n_types={n_types} is larger than n_cells={n_cells}; every cell type needs at least one cell. "
            "Lower n_types or raise n_cells."
        )
    if n_markers is None:
        n_markers = min(300, n_genes // 2)
    n_markers = check_positive_int(
        n_markers, "n_markers", minimum=0, maximum=n_genes, maximum_name="n_genes (marker genes are distinct genes)"
    )
    density = float(
        check_parameter(
            density, "density", [Interval(numbers.Real, 0, 1, closed="neither")], owner="make_scrna_counts",
            hint="It is the fraction of non-zero entries, e.g. 0.12.",
        )
    )
    dispersion = float(
        check_parameter(
            dispersion, "dispersion", [Interval(numbers.Real, 0, None, closed="neither")], owner="make_scrna_counts",
            hint="Use a small value such as 0.01 for nearly Poisson counts.",
        )
    )
    rng = check_random_state(random_state)

    # Cell types: as balanced as possible, shuffled.
    sizes = np.full(n_types, n_cells // n_types, dtype=np.int64)
    sizes[: n_cells % n_types] += 1
    labels = rng.permutation(np.repeat(np.arange(n_types, dtype=np.int64), sizes))

    # Marker genes: disjoint random sets, split evenly among the types.
    per_type = np.full(n_types, n_markers // n_types, dtype=np.int64)
    per_type[: n_markers % n_types] += 1
    chosen = rng.permutation(n_genes)[:n_markers]
    bounds = np.concatenate([[0], np.cumsum(per_type)])
    marker_genes = tuple(np.sort(chosen[bounds[t] : bounds[t + 1]]).astype(np.int64) for t in range(n_types))

    # Means: log-normal base means, multiplied by a fold change in the marked type.
    z = rng.standard_normal(n_genes)
    log_fold = np.zeros((n_types, n_genes))
    low, high = np.log(_FOLD_CHANGE_RANGE[0]), np.log(_FOLD_CHANGE_RANGE[1])
    for t, genes in enumerate(marker_genes):
        log_fold[t, genes] = rng.uniform(low, high, size=len(genes))
    shape_log = _LOG_MEAN_SD * z[None, :] + log_fold
    weights = sizes / n_cells
    location = _calibrate_location(shape_log, weights, dispersion, density)
    means = np.exp(location + shape_log)
    p_zero = _prob_zero(means, dispersion)

    X = _draw_counts(rng, labels, means, p_zero, dispersion)
    return SyntheticCounts(X=X, labels=labels, marker_genes=marker_genes, means=means, dispersion=dispersion)


def _prob_zero(means: np.ndarray, dispersion: float) -> np.ndarray:
    """P(count = 0) of a negative binomial: (1 + alpha mu) ** (-1 / alpha)."""
    return np.exp(-np.log1p(dispersion * means) / dispersion)


def _calibrate_location(shape_log: np.ndarray, weights: np.ndarray, dispersion: float, density: float) -> float:
    """Location m such that the expected fraction of non-zeros equals density."""

    def expected_density(m: float) -> float:
        p_nonzero = 1.0 - _prob_zero(np.exp(m + shape_log), dispersion)
        return float(weights @ p_nonzero.mean(axis=1))

    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if expected_density(mid) < density:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


def _draw_counts(rng, labels, means, p_zero, dispersion) -> sp.csr_matrix:
    """CSR counts drawn block of rows by block of rows."""
    n_cells = labels.shape[0]
    n_types, n_genes = means.shape
    p_nonzero = (1.0 - p_zero).astype(np.float32)
    flat_means = means.ravel()
    flat_p_zero = p_zero.ravel()
    size = 1.0 / dispersion
    block_rows = max(1, _BLOCK_ENTRIES // n_genes)

    indptr = np.zeros(n_cells + 1, dtype=np.int64)
    indices_parts: list[np.ndarray] = []
    data_parts: list[np.ndarray] = []
    for start in range(0, n_cells, block_rows):
        stop = min(n_cells, start + block_rows)
        block_labels = labels[start:stop]
        uniform = rng.random((stop - start, n_genes), dtype=np.float32)
        mask = uniform < p_nonzero[block_labels]
        del uniform
        indptr[start + 1 : stop + 1] = np.count_nonzero(mask, axis=1)
        flat = np.flatnonzero(mask)
        del mask
        rows = flat // n_genes
        cols = flat - rows * n_genes
        where = block_labels[rows] * n_genes + cols
        del flat, rows
        values = _zero_truncated_negative_binomial(rng, flat_means[where], flat_p_zero[where], size)
        indices_parts.append(cols.astype(np.int32))
        data_parts.append(values)
    np.cumsum(indptr, out=indptr)
    indices = np.concatenate(indices_parts) if indices_parts else np.zeros(0, np.int32)
    del indices_parts
    data = np.concatenate(data_parts) if data_parts else np.zeros(0, np.float32)
    del data_parts
    if indptr[-1] < 2**31:
        indptr = indptr.astype(np.int32)
    return sp.csr_matrix((data, indices, indptr), shape=(n_cells, n_genes))


def _zero_truncated_negative_binomial(rng, mu: np.ndarray, p_zero: np.ndarray, size: float) -> np.ndarray:
    """One draw per entry from NB(mean mu, size) conditioned on being > 0, as float32."""
    out = np.empty(mu.shape[0], dtype=np.float32)
    by_inversion = (mu <= _INVERSE_CDF_MAX_MEAN) | (p_zero > _INVERSE_CDF_MIN_P0)

    # Low means: invert the CDF of the zero-truncated law, all entries in step.
    idx = np.flatnonzero(by_inversion)
    p0 = p_zero[idx]
    target = p0 + (1.0 - p0) * rng.random(idx.shape[0])
    ratio = mu[idx] / (size + mu[idx])
    pmf = p0.copy()
    cdf = p0.copy()
    k = 0
    while idx.size and k < _INVERSE_CDF_MAX_STEPS:
        k += 1
        pmf *= ratio * ((k - 1 + size) / k)
        cdf += pmf
        done = cdf >= target
        if done.any():
            out[idx[done]] = k
            keep = ~done
            idx, target, ratio, pmf, cdf = idx[keep], target[keep], ratio[keep], pmf[keep], cdf[keep]
    leftover = idx  # rounding kept these from reaching their target; redraw them below

    # High means (and any leftover): draw and redraw the zeros.
    idx = np.concatenate([np.flatnonzero(~by_inversion), leftover])
    success = size / (size + mu[idx])
    while idx.size:
        draws = rng.negative_binomial(size, success)
        positive = draws > 0
        out[idx[positive]] = draws[positive]
        idx, success = idx[~positive], success[~positive]
    return out
