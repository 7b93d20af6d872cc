"""What a benchmark run returns: the tidy table, its summary over folds, and the genes methods share (seed 000, §2.6.2)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .folds import Folds
from .interactions import PairInteractions
from .methods import BenchmarkMethod, method_label

__all__ = ["TABLE_COLUMNS", "BenchmarkResult", "overlap_table", "summarize"]

TABLE_COLUMNS = (
    "method",
    "mode",
    "n_requested",
    "n_used",
    "fold",
    "classifier",
    "error_rate",
    "selection_seconds",
)
"""Columns of the tidy table of :func:`~paucity.markers.benchmark.run_benchmark`."""


@dataclass(frozen=True, eq=False)
class BenchmarkResult:
    """The outcome of :func:`~paucity.markers.benchmark.run_benchmark`.

    Attributes
    ----------
    table : pandas.DataFrame
        The tidy table: ``method``, ``mode``, ``n_requested``, ``n_used``,
        ``fold``, ``classifier``, ``error_rate``, ``selection_seconds``; one
        row per (method, n, fold, classifier) that has been run.
    folds : Folds
    selections : pandas.DataFrame or None
        The genes each method selects on all the cells at ``max(n_features)``
        (``method``, ``mode``, ``rank``, ``feature_index``, ``gene``).
    runtimes : pandas.DataFrame or None
        Seconds of those selections (``method``, ``mode``, ``n_requested``,
        ``n_used``, ``selection_seconds``), as the seed's Figure 2.6: the
        best of up to three runs (within 2 s) for the built-in methods, after
        an untimed warm-up call that compiles their kernels; one run for
        your own methods.
    overlap : pandas.DataFrame or None
        Genes in common between the methods' selections (Tables 2.2-2.5);
        the diagonal is the size of each selection.
    interactions : PairInteractions or None
        The I(x_i; x_j; y) diagnostic (Figure 2.7).
    feature_names : numpy.ndarray of str
    n_features : tuple of int
        The numbers of features each method was asked to select, sorted.
    methods : tuple of BenchmarkMethod
    n_markers : tuple of int
        Deprecated old name of ``n_features`` (a ``FutureWarning``).
    """

    table: pd.DataFrame
    folds: Folds
    selections: pd.DataFrame | None
    runtimes: pd.DataFrame | None
    overlap: pd.DataFrame | None
    interactions: PairInteractions | None
    feature_names: np.ndarray
    n_features: tuple
    methods: tuple = field(default=())

    @property
    def n_markers(self) -> tuple:
        """Deprecated: the old name of :attr:`n_features`."""
        warnings.warn(
            "BenchmarkResult.n_markers is deprecated and will be removed; use n_features (the same thing, renamed).",
            FutureWarning,
            stacklevel=2,
        )
        return self.n_features

    def summary(self) -> pd.DataFrame:
        """Mean error rate and markers used over folds; see :func:`summarize`."""
        return summarize(self.table)


def summarize(table: pd.DataFrame) -> pd.DataFrame:
    """Mean over folds of the tidy table, per (classifier, method, mode, n_requested).

    Returns
    -------
    pandas.DataFrame
        ``classifier``, ``method``, ``mode``, ``n_requested``, ``n_used``
        (mean, as step 3(b) of §2.6.2), ``error_rate`` (mean), ``error_sd``
        (standard deviation over folds), ``n_folds``, ``selection_seconds``
        (mean).

    Notes
    -----
    Seed 000, §2.6.2, step 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from paucity.markers.benchmark import summarize
    >>> table = pd.DataFrame({"method": ["cife"] * 2, "mode": ["binary"] * 2, "n_requested": [5, 5],
    ...     "n_used": [9, 10], "fold": [0, 1], "classifier": ["random_forest"] * 2,
    ...     "error_rate": [0.2, 0.3], "selection_seconds": [0.1, 0.1]})
    >>> summarize(table)[["n_used", "error_rate", "n_folds"]].to_dict("records")
    [{'n_used': 9.5, 'error_rate': 0.25, 'n_folds': 2}]
    """
    if table.empty:
        return pd.DataFrame(
            columns=["classifier", "method", "mode", "n_requested", "n_used", "error_rate", "error_sd", "n_folds", "selection_seconds"]
        )
    grouped = table.groupby(["classifier", "method", "mode", "n_requested"], sort=False)
    summary = grouped.agg(
        n_used=("n_used", "mean"),
        error_rate=("error_rate", "mean"),
        error_sd=("error_rate", "std"),
        n_folds=("fold", "nunique"),
        selection_seconds=("selection_seconds", "mean"),
    ).reset_index()
    summary["error_sd"] = summary["error_sd"].fillna(0.0)
    return summary


def overlap_table(selections: pd.DataFrame, methods: Sequence[BenchmarkMethod] | None = None) -> pd.DataFrame:
    """Number of genes in common between every two methods' selections.

    Parameters
    ----------
    selections : pandas.DataFrame
        ``method``, ``mode`` and ``feature_index`` columns (one row per
        selected gene), as :attr:`BenchmarkResult.selections`.
    methods : sequence of BenchmarkMethod, optional
        Fixes the order of rows and columns.

    Returns
    -------
    pandas.DataFrame
        Square, indexed by display labels (``"CIFE (B)"``); the diagonal
        holds the size of each selection (Remark 1: binary lists may differ
        from n).

    Notes
    -----
    Seed 000, Tables 2.2-2.5.

    Examples
    --------
    >>> import pandas as pd
    >>> from paucity.markers.benchmark import overlap_table
    >>> picks = pd.DataFrame({"method": ["mim"] * 3 + ["cife"] * 3, "mode": ["multiclass"] * 6,
    ...                       "feature_index": [1, 2, 3, 3, 4, 5]})
    >>> overlap_table(picks).to_dict()
    {'MIM': {'MIM': 3, 'CIFE': 1}, 'CIFE': {'MIM': 1, 'CIFE': 3}}
    """
    if methods is not None:
        order = [(m.name, m.mode) for m in methods]
    else:
        order = list(dict.fromkeys(zip(selections["method"], selections["mode"])))
    sets = {
        key: set(selections.loc[(selections["method"] == key[0]) & (selections["mode"] == key[1]), "feature_index"].tolist())
        for key in order
    }
    order = [key for key in order if sets[key]]
    labels = [method_label(*key) for key in order]
    counts = np.array([[len(sets[a] & sets[b]) for b in order] for a in order], dtype=np.int64).reshape(len(order), len(order))
    return pd.DataFrame(counts, index=pd.Index(labels, name="method"), columns=labels)
