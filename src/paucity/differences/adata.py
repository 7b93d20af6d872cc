"""The scanpy-style adapter: principal differences between two groups of cells of an AnnData object."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._anndata import expression_matrix, group_labels
from .._deprecation import renamed_parameter
from .._errors import InputError, ParameterError
from .._validation import BOOLEAN, Instance, check_parameter
from .analysis import analyze
from .stored import DEFAULT_KEY

__all__ = ["compare", "two_groups"]

_MIN_CELLS = 2


def _show(value) -> str:
    return repr(value.item() if isinstance(value, np.generic) else value)


def two_groups(adata, groupby: str, group1, group2, *, layer: str | None = None, use_raw: bool | None = None):
    """The expression of two groups of cells, as DataFrames of genes (dense copies).

    Returns ``(X, Y, use_raw)``: the cells of ``group1`` and of ``group2``
    (rows) × the genes of the matrix read (columns, by name), and whether
    ``adata.raw`` was read. A group is matched by value in
    ``adata.obs[groupby]``, or by its text when the value is a string.
    """
    labels = group_labels(adata, groupby)
    if str(group1) == str(group2):
        raise ParameterError(f"group1 and group2 are both {_show(group1)}; name two different groups.")
    masks = []
    for group in (group1, group2):
        mask = np.asarray(labels == group, dtype=bool)
        if not mask.any() and isinstance(group, str):
            mask = np.asarray(labels.astype(str) == group, dtype=bool)
        count = int(mask.sum())
        if count == 0:
            shown = ", ".join(map(_show, list(pd.unique(labels))[:20]))
            raise InputError(f"group {_show(group)} has no cells in adata.obs[{groupby!r}] (groups there: {shown}).")
        if count < _MIN_CELLS:
            raise InputError(
                f"group {_show(group)} has {count} cell in adata.obs[{groupby!r}]; comparing two distributions "
                f"needs at least {_MIN_CELLS} cells in each group."
            )
        masks.append(mask)
    resolved_raw = bool(use_raw) if use_raw is not None else (adata.raw is not None and layer is None)
    matrix, var_names = expression_matrix(adata, layer, use_raw)
    columns = pd.Index(var_names).astype(str)
    frames = []
    for mask in masks:
        rows = matrix[np.flatnonzero(mask)]
        rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
        frames.append(pd.DataFrame(np.asarray(rows, dtype=np.float64), columns=columns))
    return frames[0], frames[1], resolved_raw


def compare(
    adata,
    groupby: str,
    group1,
    group2,
    *,
    layer: str | None = None,
    use_raw: bool | None = None,
    marginal_normalize: bool = False,
    standardize: bool = False,
    n_features: int | None = None,
    lam: float | None = None,
    cv: bool = False,
    n_permutations: int = 0,
    divergence="wasserstein",
    key_added: str = DEFAULT_KEY,
    copy: bool = False,
    random_state=0,
    n_jobs=None,
    progress: bool = False,
    k: int | None = None,
    **params,
):
    """Principal differences between two groups of cells, written into ``adata``.

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
        relationships (and in the shape of each gene's distribution).
    standardize : bool, default False
        Divide every gene by its standard deviation over the cells of both
        groups first, so that highly expressed genes do not dominate by their
        units alone (see :func:`analyze`).
    n_features, lam, cv
        SPARDA keeping ``n_features`` genes, or with the seed's λ (the weight
        of the penalty −λ‖B‖₁ in RELAX's objective, see :class:`PDA`), or with
        λ chosen on held-out cells (``cv=True``). At most one; with none, PDA
        (every gene may carry weight).
    n_permutations : int, default 0
        B > 0 adds the permutation test of "do the groups differ?".
    divergence : str or Divergence, default "wasserstein"
    key_added : str, default "paucity_differences"
        Key of the result in ``adata.uns`` and prefix of the column in ``adata.var``.
    copy : bool, default False
        Work on a copy of ``adata`` and return it; ``adata`` is left untouched.
    random_state : int, Generator or None, default 0
    n_jobs : int, "dask" or None
        Where the permutations run.
    progress : bool, default False
    k : int, optional
        Deprecated old name of ``n_features`` (FutureWarning).
    **params
        The solver's settings (``max_iter``, ``n_restarts``, ``patience``,
        ``tighten_max_iter``, ``batch_size``), as in :func:`analyze`.

    Returns
    -------
    anndata.AnnData or None
        None, with the results written into ``adata``; with ``copy=True`` the
        new AnnData holding them.

    Notes
    -----
    Seed 004 (Mueller & Jaakkola), "Cellular gene expression in cortex vs.
    hippocampus" and "Marginally-normalized differential expression analysis";
    the analysis is :func:`analyze`. What is written:

    - ``adata.uns[key_added]``, a dict: ``"params"`` (the call's parameters,
      h5ad-writable: ``groupby``, ``groups``, ``layer``, ``use_raw``,
      ``method``, ``divergence``, ``n_features`` or ``lam`` — the chosen λ with
      ``cv`` —, ``cv``, ``marginal_normalize``, ``standardize``, ``n_permutations``,
      ``random_state``, the solver settings, and the analysis' scalar results
      ``statistic`` (D on the two groups) and ``pvalue`` with a test), and the
      table of genes with non-zero weight as equal-length 1-D arrays:
      ``names``, ``indices`` (columns of the matrix read), ``weights``,
      ``ranks``, ``means_x`` and ``means_y`` (mean expression in group1 and
      group2, before any normalization), by decreasing |weight|.
      :func:`~paucity.differences.get` (``paucity.differences.get(adata, key_added)``)
      reads that table back, as :meth:`DifferencesResult.to_frame` gives it,
      and :meth:`StoredDifferences.read <paucity.differences.StoredDifferences.read>`
      the parameters with it.
    - ``adata.var[key_added + "_weight"]``: every gene's weight in β̂ (0 off
      the selection; genes of ``adata.var`` missing from ``adata.raw``, when
      it was read, get NaN).

    The two groups' expression is copied densely (cells in the two groups ×
    genes).

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 4)); X[60:, 3] *= 4.0
    >>> obs = pd.DataFrame({"kind": ["a"] * 60 + ["b"] * 60}, index=[str(i) for i in range(120)])
    >>> adata = anndata.AnnData(X, obs=obs)
    >>> compare(adata, "kind", "a", "b", n_features=1)
    >>> from paucity.differences import get
    >>> get(adata)["names"].tolist()
    ['3']
    >>> adata.var["paucity_differences_weight"].tolist()
    [0.0, 0.0, 0.0, 1.0]
    """
    check_parameter(copy, "copy", [BOOLEAN], owner="compare")
    check_parameter(key_added, "key_added", [Instance(str, description="a string")], owner="compare")
    n_features = renamed_parameter("compare", "k", k, "n_features", n_features)
    X, Y, resolved_raw = two_groups(adata, groupby, group1, group2, layer=layer, use_raw=use_raw)
    result = analyze(
        X,
        Y,
        n_features=n_features,
        lam=lam,
        cv=cv,
        n_permutations=n_permutations,
        marginal_normalize=marginal_normalize,
        standardize=standardize,
        divergence=divergence,
        groups=(str(group1), str(group2)),
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        **params,
    )
    if copy:
        adata = adata.copy()
    result.write(adata, key_added, groupby=groupby, layer=layer, use_raw=resolved_raw)
    return adata if copy else None
