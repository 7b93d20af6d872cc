"""Marker selection on an AnnData object: :func:`find_markers` (the analysis) and :func:`select` (scanpy-style).

:func:`find_markers` runs the selection on the matrix of an AnnData and
returns a :class:`~paucity.markers.MarkerResult`; :func:`select` stores that
result in the AnnData, as ``scanpy.tl.rank_genes_groups`` stores its own, with
:meth:`MarkerResult.write`. Every check of the parameters is the estimator's
(:class:`~paucity.markers.InfoSelector`).
"""

from __future__ import annotations

import pandas as pd

from .._anndata import expression_matrix, group_labels
from .._errors import ParameterError
from .._validation import BOOLEAN, Instance, check_parameter, validate_params
from .objectives import SUPERVISED
from .result import DEFAULT_KEY, MarkerResult
from ._core import SelectorCore

__all__ = ["find_markers", "select"]


BACKED_BLOCK_ROWS = 50_000


def _lazy_if_backed(X):
    """A backed (on-disk) matrix of an AnnData opened with backed="r", as a Dask array of row blocks."""
    group = getattr(X, "group", None)
    if group is None or not hasattr(X, "to_memory"):
        return X
    from anndata.experimental import read_elem_lazy

    return read_elem_lazy(group, chunks=(min(BACKED_BLOCK_ROWS, X.shape[0]), X.shape[1]))


def find_markers(
    adata,
    groupby: str | None,
    method: str = "cife",
    n_features: int = 50,
    mode: str = "multiclass",
    *,
    n_bins: int | None = 5,
    prefilter: int | None = 5000,
    beta: float | None = None,
    degree: int | None = None,
    layer: str | None = None,
    use_raw: bool | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> MarkerResult:
    """Select marker genes of the groups in ``adata.obs[groupby]``; returns the result, ``adata`` unchanged.

    Parameters
    ----------
    adata : anndata.AnnData
        Cells x genes. Expression is read from ``layer``, from ``adata.raw``
        (``use_raw``; by default when ``adata.raw`` is set, as
        ``scanpy.tl.rank_genes_groups`` does) or from ``adata.X``. A Dask
        ``X``, or one left on disk by ``anndata.read_h5ad(path, backed="r")``,
        is counted block by block with the in-memory result.
    groupby : str or None
        Column of ``adata.obs`` with the cell labels (cells without a label
        are left out, with a warning). Required by the supervised methods;
        must be None for the unsupervised ones ("entropy", "entropy2"),
        which use no labels.
    method, n_features, mode, n_bins, prefilter, beta, degree, n_jobs, progress
        As in :class:`paucity.markers.InfoSelector`.
    layer : str, optional
    use_raw : bool, optional

    Returns
    -------
    MarkerResult

    Notes
    -----
    Seed 000, chapter 2; see :class:`~paucity.markers.InfoSelector`.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> from paucity.markers import find_markers
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.choice(["B", "T"], size=200)
    >>> X = rng.poisson(1.0, size=(200, 5)).astype(np.float32)
    >>> X[:, 3] += 4 * (groups == "T")
    >>> cells = pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(200)])
    >>> adata = anndata.AnnData(X, obs=cells, var=pd.DataFrame(index=["CD3E", "MS4A1", "LYZ", "CD3D", "NKG7"]))
    >>> result = find_markers(adata, "cell_type", n_features=2)
    >>> result.names, result.relevance.round(2).tolist()      # I(gene; cell_type), bits
    (('CD3D', 'LYZ'), [0.72, 0.01])
    """
    groupby = check_parameter(groupby, "groupby", [Instance(str, description="a column name"), None],
                              owner="find_markers")
    # the estimator's parameters, checks and search, without importing scikit-learn
    selector = SelectorCore(method=method, n_features=n_features, mode=mode, n_bins=n_bins, prefilter=prefilter,
                            beta=beta, degree=degree, n_jobs=n_jobs, progress=progress)
    params = validate_params(selector)  # the estimator's checks, before anything is read
    method = params["method"]
    if method in SUPERVISED and groupby is None:
        raise ParameterError(
            f"method {method!r} is supervised: pass groupby, the column of adata.obs with the cell labels "
            "(or use an unsupervised method, 'entropy' or 'entropy2')."
        )
    if method not in SUPERVISED and groupby is not None:
        raise ParameterError(
            f"method {method!r} is unsupervised and uses no labels, so groupby={groupby!r} would be ignored; "
            "pass groupby=None, or use a supervised method such as 'cife'."
        )
    labels = None if groupby is None else group_labels(adata, groupby).to_numpy()
    X, var_names = expression_matrix(adata, layer, use_raw)
    var_names = pd.Index(var_names).astype(str)
    # a file opened with backed="r" is read block by block, never whole
    selector.fit(_lazy_if_backed(X), labels, feature_names=var_names)
    if use_raw is None:
        use_raw = adata.raw is not None and layer is None
    recorded = {
        "method": method, "n_features": params["n_features"], "mode": params["mode"], "n_bins": params["n_bins"],
        "prefilter": params["prefilter"], "beta": params["beta"], "degree": params["degree"], "groupby": groupby,
        "layer": layer, "use_raw": bool(use_raw),
    }
    return MarkerResult.from_selector(selector, var_names, recorded)


def select(
    adata,
    groupby: str | None,
    method: str = "cife",
    n_features: int = 50,
    mode: str = "multiclass",
    *,
    n_bins: int | None = 5,
    prefilter: int | None = 5000,
    beta: float | None = None,
    degree: int | None = None,
    layer: str | None = None,
    use_raw: bool | None = None,
    key_added: str = DEFAULT_KEY,
    copy: bool = False,
    n_jobs: int | None = None,
    progress: bool = False,
):
    """Select marker genes of the groups in ``adata.obs[groupby]``; results stored in ``adata``.

    :func:`find_markers`, then :meth:`MarkerResult.write` into ``adata`` (or
    a copy): as ``scanpy.tl.rank_genes_groups`` stores its result, so that
    ``sc.get.rank_genes_groups_df(adata, group=None, key=key_added)`` and
    ``sc.pl.rank_genes_groups_dotplot(adata, key=key_added)`` (and
    ``_matrixplot``, ``_heatmap``, ``_stacked_violin``) read it.

    Parameters
    ----------
    adata, groupby, method, n_features, mode, n_bins, prefilter, beta, degree, layer, use_raw, n_jobs, progress
        As :func:`find_markers`.
    key_added : str, default="paucity_markers"
        Key of the result in ``adata.uns`` and prefix of the columns added to
        ``adata.var``.
    copy : bool, default=False
        Leave ``adata`` untouched and return a copy with the results.

    Returns
    -------
    None or anndata.AnnData
        None, with the results written into ``adata``; with ``copy=True`` the
        copy that holds them.

    Notes
    -----
    What is stored (:mod:`paucity.markers.result` says it in full):

    ``adata.uns[key_added]``
        scanpy's layout: ``names`` and ``scores`` per group (binary mode:
        each group's list; multiclass: one group ``"all"``, every gene in
        the order chosen), NaN ``logfoldchanges``, ``pvals`` and
        ``pvals_adj``, paucity's ``relevance`` and ``step`` per group,
        ``params``, and ``selection``, the table of
        :meth:`MarkerResult.to_frame` (:func:`paucity.markers.get` returns it).
    ``adata.var[key_added]``
        True for the selected genes.
    ``adata.var[f"{key_added}_score"]``
        The relevance I(gene; groups) of every gene, when every gene of
        ``adata.var`` is in the matrix read (always, except for a
        ``adata.raw`` that lacks some of them).

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> import paucity.markers
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.choice(["B", "T"], size=200)
    >>> X = rng.poisson(1.0, size=(200, 5)).astype(np.float32)
    >>> X[:, 3] += 4 * (groups == "T")
    >>> cells = pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(200)])
    >>> adata = anndata.AnnData(X, obs=cells, var=pd.DataFrame(index=["CD3E", "MS4A1", "LYZ", "CD3D", "NKG7"]))
    >>> paucity.markers.select(adata, "cell_type", n_features=2)
    >>> paucity.markers.get(adata)["names"].tolist()
    ['CD3D', 'LYZ']
    >>> adata.var["paucity_markers"].tolist()
    [False, False, True, True, False]
    >>> adata.var["paucity_markers_score"].round(2).tolist()     # I(gene; cell_type), bits
    [0.04, 0.01, 0.01, 0.72, 0.02]
    """
    key_added = check_parameter(key_added, "key_added", [Instance(str, description="a string")], owner="select")
    copy = check_parameter(copy, "copy", [BOOLEAN], owner="select")
    result = find_markers(adata, groupby, method=method, n_features=n_features, mode=mode, n_bins=n_bins,
                          prefilter=prefilter, beta=beta, degree=degree, layer=layer, use_raw=use_raw, n_jobs=n_jobs,
                          progress=progress)
    if copy:
        adata = adata.copy()
    result.write(adata, key_added)
    return adata if copy else None
