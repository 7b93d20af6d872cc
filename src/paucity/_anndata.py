"""Reading the expression matrix of an AnnData object the way scanpy does (``layer=``, ``use_raw=``)."""

from __future__ import annotations

from ._errors import InputError, ParameterError

__all__ = ["expression_matrix", "group_labels", "in_memory"]


def expression_matrix(adata, layer, use_raw):
    """``(matrix, var_names)`` from ``adata.layers[layer]``, ``adata.raw`` or ``adata.X``.

    As in scanpy, ``use_raw=None`` means ``adata.raw`` when it is set and no
    layer is named.
    """
    if layer is not None and use_raw:
        raise ParameterError("read either a layer or adata.raw, not both (layer= / --layer with use_raw=True / --use-raw).")
    if layer is not None:
        if layer not in adata.layers:
            available = ", ".join(map(repr, adata.layers.keys())) or "none"
            raise ParameterError(f"layer {layer!r} is not in adata.layers (available: {available}).")
        return adata.layers[layer], adata.var_names
    if use_raw is None:
        use_raw = adata.raw is not None
    if use_raw:
        if adata.raw is None:
            raise ParameterError(
                "adata.raw is empty, so it cannot be read (use_raw=True / --use-raw); read adata.X "
                "(use_raw=False / --no-use-raw) or a layer instead."
            )
        return adata.raw.X, adata.raw.var_names
    return adata.X, adata.var_names


def in_memory(X):
    """``X`` itself, or, when it was left on disk by ``anndata.read_h5ad(path, backed="r")``, read whole into
    memory (a SciPy sparse matrix in the file's format, or a NumPy array)."""
    if hasattr(X, "to_memory"):  # anndata's sparse dataset on disk
        return X.to_memory()
    if type(X).__module__.startswith("h5py"):  # a dense dataset on disk
        return X[()]
    return X


def group_labels(adata, groupby: str):
    """The column ``adata.obs[groupby]``, or an error listing the columns there are."""
    if groupby not in adata.obs.columns:
        available = ", ".join(map(repr, adata.obs.columns)) or "none"
        raise InputError(f"groupby {groupby!r} is not a column of adata.obs (columns: {available}).")
    from ._validation import check_label_types

    check_label_types(adata.obs[groupby], f"adata.obs[{groupby!r}]")  # names the column, not the y beneath
    return adata.obs[groupby]
