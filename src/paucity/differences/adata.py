"""The scanpy-style adapter: principal differences between two groups of cells of an AnnData object."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._anndata import expression_matrix, group_labels
from .._errors import InputError, ParameterError
from .cv import PDACV
from .pda import PDA

__all__ = ["compare", "marginal_normalize"]


def marginal_normalize(X: np.ndarray) -> np.ndarray:
    """Centre every column at zero and scale it to unit variance; constant columns are only centred.

    Seed 004, "Marginally-normalized differential expression analysis":
    applied to each population separately, it removes differences in every
    gene's own distribution (mean and spread), so that what remains between
    the populations is in the relationships between genes.

    Examples
    --------
    >>> marginal_normalize(np.array([[1.0, 5.0], [3.0, 5.0]])).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    spread = centred.std(axis=0)
    return centred / np.where(spread > 0, spread, 1.0)


_normalize = marginal_normalize  # compare's parameter of the same name hides the function


def _rows_of(matrix, mask: np.ndarray) -> np.ndarray:
    rows = matrix[np.flatnonzero(mask)]
    if sp.issparse(rows):
        return rows.toarray()
    return np.asarray(rows)


def compare(
    adata,
    groupby: str,
    group1,
    group2,
    *,
    layer: str | None = None,
    use_raw: bool | None = None,
    marginal_normalize: bool = False,
    lam: float | None = None,
    k: int | None = None,
    cv: bool = False,
    divergence="wasserstein",
    key_added: str = "pda",
    random_state=0,
    progress: bool = False,
    **params,
) -> pd.DataFrame:
    """Principal differences between two groups of cells; results stored in ``adata.uns[key_added]``.

    Parameters
    ----------
    adata : anndata.AnnData
        Cells × genes.
    groupby : str
        Column of ``adata.obs`` holding the groups.
    group1, group2
        The two groups to compare (values of that column): X and Y.
    layer, use_raw
        Where the expression is read from, as in scanpy (``use_raw=None``:
        ``adata.raw`` when it is set and no layer is named).
    marginal_normalize : bool, default False
        Centre and scale every gene to unit variance within each group first
        (:func:`marginal_normalize`), leaving only changes in gene–gene
        relationships.
    lam, k : optional
        SPARDA's penalty or cardinality. With neither (and ``cv=False``), PDA
        without sparsity.
    cv : bool, default False
        Choose λ by held-out divergence (:class:`PDACV`); ``k`` then gives
        nothing and ``lam`` is refused.
    divergence : str or Divergence, default "wasserstein"
    key_added : str, default "pda"
    random_state : int, Generator or None, default 0
    progress : bool, default False
    **params
        Further parameters of :class:`PDA` (or :class:`PDACV`).

    Returns
    -------
    pandas.DataFrame
        One row per gene with non-zero weight, by decreasing |weight|:
        ``gene``, ``weight``, ``rank``, and the mean expression in each group
        (``mean_<group1>``, ``mean_<group2>``) before any normalization.

    Notes
    -----
    Seed 004 (Mueller & Jaakkola), "Cellular gene expression in cortex vs.
    hippocampus" and "Marginally-normalized differential expression analysis".
    Stores in ``adata.uns[key_added]``: ``beta`` (one weight per gene of the
    matrix used), ``genes``, ``weights`` and ``divergence`` of the selected
    genes, ``groups`` and ``params``; and ``adata.var[key_added + "_weight"]``
    when the genes are those of ``adata.var``. The two groups' expression is
    copied densely (cells in the two groups × genes).

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 4)); X[60:, 3] *= 4.0
    >>> adata = anndata.AnnData(X, obs=pd.DataFrame({"kind": ["a"] * 60 + ["b"] * 60}, index=[str(i) for i in range(120)]))
    >>> table = compare(adata, "kind", "a", "b", k=1)
    >>> table[["gene", "rank"]].to_dict("records")
    [{'gene': '3', 'rank': 1}]
    >>> adata.uns["pda"]["genes"]
    ['3']
    """
    labels = group_labels(adata, groupby)
    present = pd.unique(labels)
    masks = []
    for group in (group1, group2):
        mask = np.asarray(labels == group)
        if not mask.any():
            shown = ", ".join(map(repr, list(present)[:20]))
            raise InputError(f"group {group!r} has no cells in adata.obs[{groupby!r}] (groups there: {shown}).")
        masks.append(mask)
    if str(group1) == str(group2):
        raise ParameterError("group1 and group2 are the same group; name two different groups.")
    if cv and lam is not None:
        raise ParameterError("cv=True chooses lam itself; drop lam= or cv=.")
    matrix, var_names = expression_matrix(adata, layer, use_raw)
    X = _rows_of(matrix, masks[0])
    Y = _rows_of(matrix, masks[1])
    means = X.mean(axis=0), Y.mean(axis=0)
    if marginal_normalize:
        X, Y = _normalize(X), _normalize(Y)
    frame_x = pd.DataFrame(X, columns=pd.Index(var_names).astype(str))
    frame_y = pd.DataFrame(Y, columns=pd.Index(var_names).astype(str))
    if cv:
        model = PDACV(divergence=divergence, random_state=random_state, progress=progress, **params)
    elif lam is not None or k is not None:
        model = PDA(divergence=divergence, sparsity="l1", lam=0.0 if lam is None else lam, k=k,
                    random_state=random_state, progress=progress, **params)
    else:
        model = PDA(divergence=divergence, random_state=random_state, progress=progress, **params)
    model.fit(frame_x, frame_y)
    table = model.weights().rename(columns={"feature": "gene"})
    index = pd.Index(var_names).astype(str).get_indexer(table["gene"])
    table[f"mean_{group1}"] = means[0][index]
    table[f"mean_{group2}"] = means[1][index]
    adata.uns[key_added] = {
        "beta": np.asarray(model.beta_, dtype=float),
        "genes": table["gene"].tolist(),
        "weights": table["weight"].to_numpy(dtype=float),
        "divergence": float(model.divergence_),
        "groups": [str(group1), str(group2)],
        "params": {
            key: value
            for key, value in {
                "groupby": groupby,
                "layer": layer,
                "use_raw": bool(use_raw) if use_raw is not None else adata.raw is not None and layer is None,
                "marginal_normalize": bool(marginal_normalize),
                "lam": getattr(model, "lam_", lam),
                "k": k,
                "cv": bool(cv),
                "divergence": str(getattr(divergence, "name", divergence)),
            }.items()
            if value is not None
        },
    }
    if len(var_names) == adata.n_vars and pd.Index(var_names).equals(adata.var_names):
        adata.var[key_added + "_weight"] = model.beta_
    return table
