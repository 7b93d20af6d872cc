"""The scanpy-style adapter: marker selection on an AnnData object."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._anndata import expression_matrix, group_labels
from .selector import InfoSelector

__all__ = ["select"]


BACKED_BLOCK_ROWS = 50_000


def _lazy_if_backed(X):
    """A backed (on-disk) matrix of an AnnData opened with backed="r", as a Dask array of row blocks."""
    group = getattr(X, "group", None)
    if group is None or not hasattr(X, "to_memory"):
        return X
    from anndata.experimental import read_elem_lazy

    return read_elem_lazy(group, chunks=(min(BACKED_BLOCK_ROWS, X.shape[0]), X.shape[1]))


def select(
    adata,
    groupby: str | None,
    method: str = "cife",
    n_features: int = 50,
    mode: str = "multiclass",
    *,
    n_bins: int | None = 5,
    prefilter: int | None = 5000,
    beta: float = 1.0,
    degree: int = 2,
    layer: str | None = None,
    use_raw: bool | None = None,
    key_added: str = "paucity_markers",
    copy: bool = False,
    n_jobs: int | None = None,
    progress: bool = False,
):
    """Select marker genes of the groups in ``adata.obs[groupby]``.

    Parameters
    ----------
    adata : anndata.AnnData
        Cells x genes. Expression is read from ``layer``, from ``adata.raw``
        (``use_raw``; by default when ``adata.raw`` is set, as
        ``scanpy.tl.rank_genes_groups`` does) or from ``adata.X``. A Dask
        ``X``, or one left on disk by ``anndata.read_h5ad(path, backed="r")``,
        is counted block by block with the in-memory result.
    groupby : str or None
        Column of ``adata.obs`` with the cell labels; None for the
        unsupervised methods.
    method, n_features, mode, n_bins, prefilter, beta, degree, n_jobs, progress
        As in :class:`paucity.markers.InfoSelector`.
    layer : str, optional
    use_raw : bool, optional
    key_added : str, default="paucity_markers"
        Key of the result in ``adata.uns`` and of the boolean column in ``adata.var``.
    copy : bool, default=False
        Work on a copy of adata and return it with the table.

    Returns
    -------
    pandas.DataFrame or (anndata.AnnData, pandas.DataFrame)
        The tidy table (``rank``, ``gene``, ``feature_index``, ``score``; in
        binary mode also ``group``, the class whose list gave the gene), and
        the modified copy first when ``copy=True``. ``adata.uns[key_added]``
        holds ``genes``, ``scores``, ``feature_index``, ``per_group`` (binary
        mode) and ``params``; ``adata.var[key_added]`` marks the selected genes.

    Notes
    -----
    Seed 000, chapter 2; see :class:`~paucity.markers.InfoSelector`.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> from paucity.markers import select
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.choice(["B", "T"], size=200)
    >>> X = rng.poisson(1.0, size=(200, 5)).astype(np.float32)
    >>> X[:, 3] += 4 * (groups == "T")
    >>> adata = anndata.AnnData(X, obs=pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(200)]))
    >>> table = select(adata, "cell_type", n_features=1)
    >>> table["gene"].tolist(), adata.uns["paucity_markers"]["genes"]
    (['3'], ['3'])
    """
    if copy:
        adata = adata.copy()
    labels = None
    if groupby is not None:
        labels = group_labels(adata, groupby)
    X, var_names = expression_matrix(adata, layer, use_raw)
    X = _lazy_if_backed(X)  # a file opened with backed="r" is read block by block, never whole
    selector = InfoSelector(
        method=method,
        n_features=n_features,
        mode=mode,
        n_bins=n_bins,
        prefilter=prefilter,
        beta=beta,
        degree=degree,
        n_jobs=n_jobs,
        progress=progress,
    )
    selector.fit(X, None if labels is None else labels.to_numpy())
    var_names = pd.Index(var_names)
    genes = var_names[selector.selected_].astype(str).tolist()
    table = pd.DataFrame(
        {
            "rank": np.arange(1, len(genes) + 1),
            "gene": genes,
            "feature_index": selector.selected_,
            "score": selector.scores_,
        }
    )
    result = {
        "genes": genes,
        "scores": np.asarray(selector.scores_, dtype=float),
        "feature_index": np.asarray(selector.selected_, dtype=np.int64),
        "params": {
            key: value
            for key, value in {
                "method": method,
                "n_features": n_features,
                "mode": mode,
                "n_bins": n_bins,
                "prefilter": prefilter,
                "groupby": groupby,
                "layer": layer,
                "use_raw": bool(use_raw) if use_raw is not None else adata.raw is not None and layer is None,
            }.items()
            if value is not None
        },
    }
    if mode == "binary":
        per_group = {str(group): var_names[idx].astype(str).tolist() for group, idx in selector.selected_per_class_.items()}
        result["per_group"] = per_group
        # the group whose list contributed the gene in the round-robin merge
        table["group"] = [_contributor(gene, per_group) for gene in genes]
    adata.uns[key_added] = result
    adata.var[key_added] = adata.var_names.isin(genes)
    if copy:
        return adata, table
    return table


def _contributor(gene, per_group) -> str:
    best = None
    for group, group_genes in per_group.items():
        if gene in group_genes:
            rank = group_genes.index(gene)
            if best is None or rank < best[0]:
                best = (rank, group)
    return best[1]
