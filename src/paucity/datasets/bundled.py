"""Loaders of small real datasets that ship with paucity's optional dependencies."""

from __future__ import annotations

__all__ = ["pbmc68k_reduced"]


def pbmc68k_reduced():
    """The 700-cell PBMC subset that ships inside scanpy.

    Returns
    -------
    anndata.AnnData
        ``scanpy.datasets.pbmc68k_reduced()``: 700 cells, 765 genes in
        ``.raw`` (log-normalized, sparse), 221 scaled genes in ``.X``, Louvain
        clusters in ``obs["louvain"]`` and cell-type names in
        ``obs["bulk_labels"]``. Nothing is downloaded: the file is part of the
        scanpy package.

    Raises
    ------
    ImportError
        When scanpy is not installed (``pip install paucity[scanpy]``).

    Notes
    -----
    A subsample of the 10x Genomics 68k PBMC data set (Zheng et al. 2017), one
    of the data sets of the seed's marker-selection benchmark (Varma 2019,
    Section 2.6). It is used in paucity's tests to compare marker selections
    with PicturedRocks on the same input.

    Examples
    --------
    >>> from paucity.datasets import pbmc68k_reduced
    >>> adata = pbmc68k_reduced()  # doctest: +SKIP
    >>> adata.raw.shape  # doctest: +SKIP
    (700, 765)
    """
    try:
        import scanpy
    except ImportError as exc:
        raise ImportError(
            "pbmc68k_reduced() needs scanpy, which is not installed. "
            "Install it with `pip install paucity[scanpy]` (or `pip install scanpy`)."
        ) from exc
    return scanpy.datasets.pbmc68k_reduced()
