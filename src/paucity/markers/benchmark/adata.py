"""The benchmark on an AnnData: counts from ``X``, a layer or ``raw``, labels from ``obs[groupby]``."""

from __future__ import annotations

import numpy as np

from .results import BenchmarkResult
from ..._deprecation import renamed_parameter
from .run import run_benchmark

__all__ = ["run_benchmark_adata"]


def run_benchmark_adata(
    adata,
    groupby: str,
    *,
    layer: str | None = None,
    use_raw: bool | None = None,
    **kwargs,
) -> BenchmarkResult:
    """:func:`run_benchmark` on an AnnData: counts from ``X``, a layer or ``raw``; labels from ``obs[groupby]``.

    Parameters
    ----------
    adata : anndata.AnnData
    groupby : str
        Column of ``adata.obs`` with the cell labels.
    layer, use_raw
        Where the counts are read, as in :func:`paucity.markers.select`
        (``adata.raw`` by default when present).
    **kwargs
        The keywords of :func:`run_benchmark` (``n_features``, ``n_folds``,
        ``methods``, ``random_state``, ``out``...); ``feature_names`` and
        ``sample_names`` default to the var and obs names. The deprecated
        ``n_markers`` is the old name of ``n_features`` (a ``FutureWarning``).

    Returns
    -------
    BenchmarkResult

    Notes
    -----
    Seed 000, §2.6.2; see :func:`run_benchmark`.

    Examples
    --------
    >>> from paucity.datasets import make_scrna_counts
    >>> from paucity.markers.benchmark import run_benchmark_adata
    >>> adata = make_scrna_counts(n_cells=150, n_genes=40, n_types=3, n_markers=12, random_state=0).to_anndata()
    >>> result = run_benchmark_adata(adata, "cell_type", n_features=[3], n_folds=3, methods=["cife-binary"],
    ...                              classifiers=["random_forest"], full_data=False)
    >>> sorted(result.table["n_used"].unique().tolist())     # ⌈3/3⌉ = 1 gene per class
    [3]
    """
    from ..._anndata import expression_matrix, group_labels

    if "n_markers" in kwargs:
        kwargs["n_features"] = renamed_parameter(
            "run_benchmark_adata", "n_markers", kwargs.pop("n_markers"), "n_features", kwargs.get("n_features")
        )
    labels = group_labels(adata, groupby)
    X, var_names = expression_matrix(adata, layer, use_raw)
    kwargs.setdefault("feature_names", np.asarray(var_names, dtype=str))
    kwargs.setdefault("sample_names", np.asarray(adata.obs_names, dtype=str))
    extra = dict(kwargs.pop("extra_params", None) or {})
    extra.setdefault("groupby", groupby)
    extra.setdefault("layer", layer)
    extra.setdefault("use_raw", bool(use_raw) if use_raw is not None else adata.raw is not None and layer is None)
    return run_benchmark(X, labels.to_numpy(), extra_params=extra, **kwargs)
