"""The scanpy-style adapter: marker selection on an AnnData object."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._anndata import expression_matrix, group_labels
from .._errors import ParameterError
from .._validation import BOOLEAN, Instance, check_parameter, validate_params
from .objectives import SUPERVISED
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
    beta: float | None = None,
    degree: int | None = None,
    layer: str | None = None,
    use_raw: bool | None = None,
    key_added: str = "paucity_markers",
    copy: bool = False,
    n_jobs: int | None = None,
    progress: bool = False,
):
    """Select marker genes of the groups in ``adata.obs[groupby]``; results stored in ``adata``.

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
    Seed 000, chapter 2; see :class:`~paucity.markers.InfoSelector`.

    What is stored:

    ``adata.uns[key_added]``, a dict of
        ``"params"``: the call's parameters (``method``, ``n_features``,
        ``mode``, ``n_bins``, ``prefilter``, ``beta``, ``degree``,
        ``groupby``, ``layer``, ``use_raw``; those that are None are left
        out), and the table of selected genes, one equal-length array per
        column, in selection order:

        - ``names``: the gene (``var_names`` of the matrix read);
        - ``group``: binary mode only, the group whose one-vs-rest list
          gave the gene in the round-robin merge;
        - ``step``: the greedy step (1, 2, ...) at which the gene was
          chosen; in binary mode, the step in its group's list;
        - ``selection_scores``: the objective's value (bits) at that step,
          :attr:`InfoSelector.selection_scores_`;
        - ``scores``: the gene's relevance I(gene; groups) in bits (its
          entropy for the unsupervised methods), :attr:`InfoSelector.scores_`;
        - ``feature_index``: the gene's column in the matrix read.

        ``pandas.DataFrame({k: v for k, v in adata.uns[key_added].items() if k != "params"})``
        gives the table.
    ``adata.var[key_added]``
        True for the selected genes.
    ``adata.var[f"{key_added}_score"]``
        The relevance (``scores_``) of every gene, when every gene of
        ``adata.var`` is in the matrix read (always, except for a
        ``adata.raw`` that lacks some of them).

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> from paucity.markers import select
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.choice(["B", "T"], size=200)
    >>> X = rng.poisson(1.0, size=(200, 5)).astype(np.float32)
    >>> X[:, 3] += 4 * (groups == "T")
    >>> cells = pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(200)])
    >>> adata = anndata.AnnData(X, obs=cells, var=pd.DataFrame(index=["CD3E", "MS4A1", "LYZ", "CD3D", "NKG7"]))
    >>> select(adata, "cell_type", n_features=2)
    >>> adata.uns["paucity_markers"]["names"].tolist()
    ['CD3D', 'LYZ']
    >>> adata.var["paucity_markers"].tolist()
    [False, False, True, True, False]
    >>> adata.var["paucity_markers_score"].round(2).tolist()     # I(gene; cell_type), bits
    [0.04, 0.01, 0.01, 0.72, 0.02]
    """
    key_added = check_parameter(key_added, "key_added", [Instance(str, description="a string")], owner="select")
    copy = check_parameter(copy, "copy", [BOOLEAN], owner="select")
    groupby = check_parameter(groupby, "groupby", [Instance(str, description="a column name"), None], owner="select")
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
    params = validate_params(selector)  # bad parameters fail before anything is read
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
    selector._message_names = var_names  # warnings name genes, not columns x0, x1, ...
    selector.fit(_lazy_if_backed(X), labels)  # a file opened with backed="r" is read block by block, never whole

    selected = selector.selected_
    table = {"names": np.asarray(var_names[selected], dtype=object)}
    if params["mode"] == "binary":
        group, step = _origin(selector)
        table["group"] = group
        table["step"] = step
    else:
        table["step"] = np.arange(1, len(selected) + 1, dtype=np.int64)
    table["selection_scores"] = np.asarray(selector.selection_scores_, dtype=np.float64)
    table["scores"] = np.asarray(selector.scores_[selected], dtype=np.float64)
    table["feature_index"] = np.asarray(selected, dtype=np.int64)
    if use_raw is None:
        use_raw = adata.raw is not None and layer is None
    recorded = {
        "method": method,
        "n_features": params["n_features"],
        "mode": params["mode"],
        "n_bins": params["n_bins"],
        "prefilter": params["prefilter"],
        "beta": params["beta"],
        "degree": params["degree"],
        "groupby": groupby,
        "layer": layer,
        "use_raw": bool(use_raw),
    }

    if copy:
        adata = adata.copy()
    adata.uns[key_added] = {"params": {k: v for k, v in recorded.items() if v is not None}, **table}
    adata.var[key_added] = adata.var_names.isin(table["names"])
    relevance = _per_var(selector.scores_, var_names, adata.var_names)
    if relevance is not None:
        adata.var[f"{key_added}_score"] = relevance
    return adata if copy else None


def _origin(selector: InfoSelector) -> tuple[np.ndarray, np.ndarray]:
    """For each gene of a binary-mode selection: the group whose list gave it first, and its step there.

    The round-robin merge takes a gene at the smallest step at which some
    group's list has it, from the first such group.
    """
    groups, steps = [], []
    for feature in selector.selected_:
        best = None
        for group, chosen in selector.selected_per_class_.items():
            where = np.flatnonzero(chosen == feature)
            if where.size and (best is None or where[0] < best[1]):
                best = (group, int(where[0]))
        groups.append(str(best[0]))
        steps.append(best[1] + 1)
    return np.asarray(groups, dtype=object), np.asarray(steps, dtype=np.int64)


def _per_var(values: np.ndarray, names: pd.Index, var_names: pd.Index):
    """``values`` (one per gene of the matrix read) in the order of ``adata.var``, or None when some gene is missing."""
    if names.equals(pd.Index(var_names).astype(str)):
        return np.asarray(values)
    if not names.is_unique:
        return None
    position = names.get_indexer(pd.Index(var_names).astype(str))
    if (position < 0).any():
        return None
    return np.asarray(values)[position]
