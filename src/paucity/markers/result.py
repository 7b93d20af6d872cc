"""What marker selection returns: :class:`MarkerResult`, one frozen result that every adapter writes and reads.

:func:`~paucity.markers.select` (AnnData), ``paucity markers`` (files) and the
marker explorer produce a :class:`MarkerResult`; :meth:`MarkerResult.write`
is the one writer of ``adata.uns[key_added]`` and ``adata.var`` for marker
selection, and :meth:`MarkerResult.read` (and :func:`get`) reads them back.

``adata.uns[key_added]`` is laid out as ``scanpy.tl.rank_genes_groups`` lays
out its result, so that scanpy's getter ``sc.get.rank_genes_groups_df`` and
plots ``sc.pl.rank_genes_groups_dotplot``, ``_matrixplot``, ``_heatmap``,
``_stacked_violin`` and ``sc.pl.rank_genes_groups`` read it with
``key=key_added``:

- ``"names"``, ``"scores"``: record arrays with one field per group, the
  genes and their scores in each group's order. In binary (one-vs-rest) mode
  the groups are the cell groups, each with its own list (cut to the
  shortest list when their lengths differ; :func:`get` has them whole).
  A multiclass selection marks no group in particular: it is one group,
  ``"all"``, holding every selected gene in the order chosen (scanpy's plots
  then draw the genes under one bracket, the cells by ``groupby``). The
  scores are the objective's value (bits) when the gene was chosen.
- ``"logfoldchanges"``, ``"pvals"``, ``"pvals_adj"``: NaN. paucity computes no
  fold changes or p-values; the fields are there so that scanpy's getter
  finds them (its ``pval_cutoff`` then keeps nothing).
- ``"relevance"``, ``"step"``: paucity's own, per group as the names:
  I(gene; groups) in bits (its entropy for the unsupervised methods), and
  the greedy step at which the gene was chosen.
- ``"params"``: scanpy's ``groupby``, ``reference`` (``"rest"``), ``method``,
  ``use_raw``, ``layer``, and paucity's ``mode``, ``n_features``, ``n_bins``,
  ``prefilter``, ``beta``, ``degree``, ``target`` (those that are None left out).
- ``"selection"``: the table of :meth:`MarkerResult.to_frame`, one array per
  column, in selection order.
- ``"history"``: the marker explorer's log of changes, when it saved the
  selection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import InputError, ParameterError
from .._json import plain

__all__ = ["MarkerResult", "get", "DEFAULT_KEY", "ALL_GROUPS"]

#: Where :func:`~paucity.markers.select` stores its result by default.
DEFAULT_KEY = "paucity_markers"
#: The one group of a multiclass selection in the scanpy layout.
ALL_GROUPS = "all"
#: The tidy table's columns, in order (``group`` in binary mode only).
COLUMNS = ("names", "group", "step", "selection_scores", "scores", "feature_index")
#: What the stored params hold for scanpy alone (paucity's parameters are the rest).
_SCANPY_ONLY = ("reference",)
#: The explorer's log, as stored.
HISTORY_COLUMNS = ("step", "action", "gene", "method", "target", "score", "n_selected")


@dataclass(frozen=True)
class MarkerResult:
    """Marker genes chosen by greedy information-theoretic selection, in order, with their scores.

    Attributes
    ----------
    names : tuple of str
        The selected genes, in selection order (binary mode: the round-robin
        merge of the groups' lists).
    feature_index : numpy.ndarray of int64
        Their columns in the matrix read.
    selection_scores : numpy.ndarray of float64
        The objective's value (bits) of each gene at the step it was chosen.
    relevance : numpy.ndarray of float64
        Each gene's I(gene; groups) in bits (its entropy H(gene) for the
        unsupervised methods).
    steps : numpy.ndarray of int64
        The greedy step of each gene (in binary mode, in its group's list).
    groups : tuple of str or None
        Binary mode: for each gene, the group whose list gave it. None otherwise.
    per_group : dict or None
        Binary mode: each group's own list, ``{group: (names, scores)}``.
    method : str
    params : dict
        The parameters of the selection: ``method``, ``mode``,
        ``n_features``, ``n_bins``, ``prefilter``, ``beta``, ``degree``,
        ``groupby``, ``layer``, ``use_raw``, ``target`` (the explorer's group
        against the rest), ``source``; those that are None are left out.
    gene_names : pandas.Index
        Every gene of the matrix read (for :meth:`write`'s per-gene columns).
    gene_relevance : numpy.ndarray or None
        The relevance of every gene of the matrix read.
    history : pandas.DataFrame or None
        The marker explorer's log of changes, when it made the selection.

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
    >>> result.names
    ('CD3D', 'LYZ')
    >>> result.to_frame()[["names", "step"]]
      names  step
    0  CD3D     1
    1   LYZ     2
    >>> result.write(adata)
    >>> MarkerResult.read(adata).names == result.names
    True
    """

    names: tuple
    feature_index: np.ndarray
    selection_scores: np.ndarray
    relevance: np.ndarray
    steps: np.ndarray
    method: str
    params: dict
    groups: tuple | None = None
    per_group: dict | None = None
    gene_names: pd.Index | None = None
    gene_relevance: np.ndarray | None = None
    history: pd.DataFrame | None = field(default=None, compare=False)

    # -- views ---------------------------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        """``multiclass`` (one list for all groups) or ``binary`` (one list per group, merged)."""
        return str(self.params.get("mode", "multiclass"))

    def to_frame(self) -> pd.DataFrame:
        """One row per selected gene, in selection order: names, group (binary mode), step, selection_scores,
        scores (the relevance), feature_index."""
        table = {"names": np.asarray(self.names, dtype=object)}
        if self.groups is not None:
            table["group"] = np.asarray(self.groups, dtype=object)
        table["step"] = np.asarray(self.steps, dtype=np.int64)
        table["selection_scores"] = np.asarray(self.selection_scores, dtype=np.float64)
        table["scores"] = np.asarray(self.relevance, dtype=np.float64)
        table["feature_index"] = np.asarray(self.feature_index, dtype=np.int64)
        return pd.DataFrame(table)

    def to_dict(self) -> dict:
        """The result as plain values (what a JSON file holds): method, params, and the table's columns."""
        frame = self.to_frame()
        return {"method": self.method, "params": dict(self.params),
                **{column: frame[column].tolist() for column in frame.columns}}

    def group_lists(self) -> dict[str, tuple[tuple, np.ndarray, np.ndarray, np.ndarray]]:
        """Each group's list as scanpy's layout shows it: ``{group: (names, scores, relevance, steps)}``."""
        if self.per_group is None:
            return {ALL_GROUPS: (tuple(self.names), np.asarray(self.selection_scores, dtype=np.float64),
                                 np.asarray(self.relevance, dtype=np.float64), np.asarray(self.steps, dtype=np.int64))}
        relevance = dict(zip(self.names, self.relevance))
        lists = {}
        for group, (names, scores) in self.per_group.items():
            names = tuple(names)
            lists[str(group)] = (names, np.asarray(scores, dtype=np.float64),
                                 np.asarray([relevance.get(name, np.nan) for name in names], dtype=np.float64),
                                 np.arange(1, len(names) + 1, dtype=np.int64))
        return lists

    # -- AnnData -------------------------------------------------------------------------------------------------
    def write(self, adata, key_added: str = DEFAULT_KEY) -> None:
        """Store the result in ``adata``: ``adata.uns[key_added]`` (scanpy's layout, module docstring), the
        selected genes marked in ``adata.var[key_added]``, and every gene's relevance in
        ``adata.var[f"{key_added}_score"]`` (when every gene of ``adata.var`` is in the matrix read)."""
        if not isinstance(key_added, str) or not key_added:
            raise ParameterError(f"key_added must be a non-empty string, got {key_added!r}.")
        lists = self.group_lists()
        length = min(len(names) for names, _, _, _ in lists.values())
        groups = list(lists)
        stored = {
            "params": _scanpy_params(self.params),
            "names": _records({g: np.asarray(lists[g][0][:length], dtype=object) for g in groups}),
            "scores": _records({g: lists[g][1][:length].astype(np.float32) for g in groups}),
            "logfoldchanges": _records({g: np.full(length, np.nan, dtype=np.float32) for g in groups}),
            "pvals": _records({g: np.full(length, np.nan) for g in groups}),
            "pvals_adj": _records({g: np.full(length, np.nan) for g in groups}),
            "relevance": _records({g: lists[g][2][:length] for g in groups}),
            "step": _records({g: lists[g][3][:length] for g in groups}),
            "selection": {column: values.to_numpy().astype(object) if values.dtype == object else values.to_numpy()
                          for column, values in self.to_frame().items()},
        }
        if self.per_group is not None:  # each group's whole list, when scanpy's layout cut them to one length
            stored["groups"] = {str(g): {"names": np.asarray(lists[g][0], dtype=object),
                                         "scores": np.asarray(lists[g][1])} for g in groups}
        if self.history is not None and len(self.history):
            stored["history"] = {column: _storable(self.history[column]) for column in self.history.columns}
        adata.uns[key_added] = stored
        adata.var[key_added] = pd.Index(adata.var_names).astype(str).isin(list(self.names))
        if self.gene_relevance is not None and self.gene_names is not None:
            relevance = _per_var(np.asarray(self.gene_relevance), pd.Index(self.gene_names).astype(str),
                                 adata.var_names)
            if relevance is not None:
                adata.var[f"{key_added}_score"] = relevance

    @classmethod
    def read(cls, adata, key: str = DEFAULT_KEY) -> "MarkerResult":
        """The result stored in ``adata.uns[key]`` by :meth:`write` (or by an earlier paucity, whose table of
        selected genes was kept under the same key)."""
        if key not in adata.uns:
            raise InputError(f"adata.uns has no {key!r}: select markers first (paucity.markers.select), or give "
                             "the key_added they were stored under.")
        stored = adata.uns[key]
        if not isinstance(stored, dict) or "params" not in stored:
            raise InputError(f"adata.uns[{key!r}] is not a marker selection of paucity.")
        params = {k: plain(v) for k, v in dict(stored["params"]).items() if k not in _SCANPY_ONLY}
        table = stored.get("selection")
        if table is None and "names" in stored and np.ndim(stored["names"]) == 1 and \
                getattr(stored["names"], "dtype", None) is not None and stored["names"].dtype.names is None:
            table = stored  # the layout of paucity 0.1: the table's columns beside params
        if table is None:
            raise InputError(f"adata.uns[{key!r}] holds no table of selected genes (was it written by paucity?).")
        names = tuple(str(name) for name in np.asarray(table["names"]))
        n = len(names)
        groups = tuple(str(g) for g in np.asarray(table["group"])) if "group" in table else None
        per_group = None
        if "groups" in stored:
            per_group = {str(g): (tuple(str(x) for x in np.asarray(v["names"])), np.asarray(v["scores"], dtype=float))
                         for g, v in dict(stored["groups"]).items()}
        history = None
        if "history" in stored:
            history = pd.DataFrame({column: list(values) for column, values in dict(stored["history"]).items()})
            history = history.replace({"": None}).where(history.notna(), None)
        for column in ("step", "selection_scores", "scores", "feature_index"):
            if column not in table or len(np.asarray(table[column])) != n:
                raise InputError(f"adata.uns[{key!r}] is damaged: its column {column!r} is missing or of another "
                                 "length than names.")
        return cls(
            names=names,
            feature_index=np.asarray(table["feature_index"], dtype=np.int64),
            selection_scores=np.asarray(table["selection_scores"], dtype=np.float64),
            relevance=np.asarray(table["scores"], dtype=np.float64),
            steps=np.asarray(table["step"], dtype=np.int64),
            method=str(params.get("method", "")),
            params=params,
            groups=groups,
            per_group=per_group,
            history=history,
        )

    # -- building ------------------------------------------------------------------------------------------------
    @classmethod
    def from_selector(cls, selector, gene_names, params: dict, *, history=None) -> "MarkerResult":
        """The result of a fitted :class:`~paucity.markers.InfoSelector`, its genes named by ``gene_names``."""
        names = pd.Index(gene_names).astype(str)
        selected = np.asarray(selector.selected_, dtype=np.int64)
        relevance = np.asarray(selector.scores_, dtype=np.float64)
        groups = per_group = None
        steps = np.arange(1, len(selected) + 1, dtype=np.int64)
        if params.get("mode") == "binary":
            groups, steps = _origin(selector)
            per_group = {str(group): (tuple(names[chosen]), _scores_of(selector, group))
                         for group, chosen in selector.selected_per_class_.items()}
        clean = {k: plain(v) for k, v in params.items() if v is not None}
        return cls(
            names=tuple(names[selected]),
            feature_index=selected,
            selection_scores=np.asarray(selector.selection_scores_, dtype=np.float64),
            relevance=relevance[selected],
            steps=np.asarray(steps, dtype=np.int64),
            method=str(clean.get("method", selector.method)),
            params=clean,
            groups=groups,
            per_group=per_group,
            gene_names=names,
            gene_relevance=relevance,
            history=history,
        )


def get(adata, key: str = DEFAULT_KEY) -> pd.DataFrame:
    """The marker genes stored under ``adata.uns[key]`` as a tidy table, in selection order, whatever the mode:
    names, group (binary mode), step, selection_scores, scores (the relevance), feature_index.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> import paucity.markers
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.choice(["B", "T"], size=200)
    >>> X = rng.poisson(1.0, size=(200, 4)).astype(np.float32)
    >>> X[:, 1] += 4 * (groups == "T")
    >>> cells = pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(200)])
    >>> adata = anndata.AnnData(X, obs=cells, var=pd.DataFrame(index=["CD3E", "CD3D", "LYZ", "NKG7"]))
    >>> paucity.markers.select(adata, "cell_type", n_features=2)
    >>> paucity.markers.get(adata)["names"].tolist()
    ['CD3D', 'CD3E']
    """
    return MarkerResult.read(adata, key).to_frame()


# -- helpers -------------------------------------------------------------------------------------------------------
def _records(columns: dict) -> np.ndarray:
    """A record array with one field per group (scanpy's layout)."""
    return np.rec.fromarrays(list(columns.values()), names=[str(name) for name in columns])


def _scanpy_params(params: dict) -> dict:
    """scanpy's params (groupby, reference, method, use_raw, layer), then paucity's; None values left out."""
    out = {"groupby": params.get("groupby"), "reference": "rest", "method": params.get("method"),
           "use_raw": params.get("use_raw"), "layer": params.get("layer")}
    out.update({k: v for k, v in params.items() if k not in out})
    return {k: plain(v) for k, v in out.items() if v is not None}


def _storable(values: pd.Series) -> np.ndarray:
    """A column of the explorer's log as h5ad holds it: text ('' for none) or floats (NaN for none)."""
    if values.map(lambda v: v is None or isinstance(v, (int, float, np.number)) and not isinstance(v, bool)).all():
        return np.asarray([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    return np.asarray(["" if v is None else str(v) for v in values], dtype=object)


def _origin(selector) -> tuple[tuple, np.ndarray]:
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
    return tuple(groups), np.asarray(steps, dtype=np.int64)


def _scores_of(selector, group) -> np.ndarray:
    """The objective's values along one group's own list (binary mode)."""
    scores = getattr(selector, "selection_scores_per_class_", None)
    if scores is not None and group in scores:
        return np.asarray(scores[group], dtype=np.float64)
    chosen = selector.selected_per_class_[group]
    position = {int(f): k for k, f in enumerate(selector.selected_)}
    return np.asarray([selector.selection_scores_[position[int(f)]] if int(f) in position else math.nan
                       for f in chosen], dtype=np.float64)


def _per_var(values: np.ndarray, names: pd.Index, var_names) -> np.ndarray | None:
    """``values`` (one per gene of the matrix read) in the order of ``adata.var``, or None when some gene is missing."""
    if names.equals(pd.Index(var_names).astype(str)):
        return np.asarray(values)
    if not names.is_unique:
        return None
    position = names.get_indexer(pd.Index(var_names).astype(str))
    if (position < 0).any():
        return None
    return np.asarray(values)[position]
