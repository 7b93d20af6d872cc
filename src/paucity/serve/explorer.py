"""The marker explorer's state: a greedy search a person steers one gene at a time (seed 000, §2.10)."""

from __future__ import annotations

import numbers
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._anndata import expression_matrix, group_labels
from .._errors import ParameterError
from .._validation import Instance, Interval, Options, check_labels, check_matrix, check_parameter
from ..info import BinnedMatrix, discretize
from ..info.counts import PairCounter
from ..markers import Stepwise, make_objective
from ..markers.greedy import prefilter_candidates, univariate_scores
from ..markers.objectives import SUPERVISED, UNSUPERVISED

__all__ = ["MarkerExplorer", "EXPLORER_METHODS", "EMBEDDINGS", "MAX_GENE_NAME"]

#: The objectives the explorer offers (``degree`` needs its K and is left to ``paucity markers``).
EXPLORER_METHODS = tuple(m for m in SUPERVISED if m != "degree") + UNSUPERVISED
#: The embeddings of ``adata.obsm`` the explorer looks for, in this order.
EMBEDDINGS = ("X_umap", "X_tsne", "X_pca")
#: The longest gene name a request may carry.
MAX_GENE_NAME = 200
#: Undo steps kept.
MAX_UNDO = 200


@dataclass(frozen=True)
class _Target:
    """The labels one objective is scored against: every group (multiclass), one group against the rest, or none."""

    labels: np.ndarray | None
    n_classes: int
    labelled: np.ndarray | None
    univariate: np.ndarray
    candidates: np.ndarray
    entropies: dict
    pairs: object


class MarkerExplorer:
    """Greedy marker selection that a person steers: add, remove, reorder, undo, switch objective.

    The explorer keeps one :class:`paucity.markers.Stepwise` search per
    objective and target, and brings it to the current selection by adding
    and removing genes, so a change costs one counting pass per new gene
    (none for a removal) and nothing is recomputed from scratch. Every
    method is safe to call from several threads.

    Parameters
    ----------
    adata : anndata.AnnData
        Cells x genes, held in memory.
    groupby : str
        Column of ``adata.obs`` with the cell groups (cells without one are
        left out).
    layer, use_raw
        Which matrix to read, as in :func:`paucity.markers.select`.
    method : str, default="cife"
        The first objective: one of :data:`EXPLORER_METHODS`.
    n_bins : int, default=5
        Bins of the recursive-quantile discretization.
    prefilter : int or None, default=5000
        Bivariate objectives score this many genes of highest relevance
        I(gene; groups); None scores all.
    path : path-like, optional
        The ``.h5ad`` file ``adata`` was read from, which :meth:`export_h5ad`
        rewrites.
    key_added : str, default="paucity_markers"
        Where :meth:`export_h5ad` stores the selection.

    Notes
    -----
    Seed 000, §2.10 (the interactive tool) on top of Algorithm 1 with the
    incremental scores of Algorithm 5. Holds the binned matrix (one byte
    per stored value) besides the expression it plots.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> from paucity.serve import MarkerExplorer
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.choice(["B", "T"], size=300)
    >>> X = rng.poisson(1.0, size=(300, 4)).astype(np.float32)
    >>> X[:, 2] += 4 * (groups == "T")
    >>> cells = pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(300)])
    >>> adata = anndata.AnnData(X, obs=cells, var=pd.DataFrame(index=["CD3E", "MS4A1", "CD3D", "LYZ"]))
    >>> explorer = MarkerExplorer(adata, "cell_type")
    >>> explorer.candidates(2)[0]["gene"]
    'CD3D'
    >>> round(explorer.add("CD3D"), 2)           # its score when added, bits
    0.68
    >>> explorer.selection
    ['CD3D']
    >>> explorer.undo()
    >>> explorer.selection
    []
    """

    def __init__(
        self,
        adata,
        groupby: str,
        *,
        layer: str | None = None,
        use_raw: bool | None = None,
        method: str = "cife",
        n_bins: int = 5,
        prefilter: int | None = 5000,
        path=None,
        key_added: str = "paucity_markers",
    ):
        groupby = check_parameter(groupby, "groupby", [Instance(str, description="a column name")], owner="MarkerExplorer")
        method = check_parameter(method, "method", [Options(*EXPLORER_METHODS)], owner="MarkerExplorer")
        prefilter = check_parameter(prefilter, "prefilter", [Interval(numbers.Integral, 1, None), None])
        self._lock = threading.RLock()
        self._adata = adata
        self._path = None if path is None else Path(path)
        self._key = key_added
        self._groupby, self._layer = groupby, layer
        X, names = expression_matrix(adata, layer, use_raw)
        self._use_raw = bool(adata.raw is not None and layer is None) if use_raw is None else bool(use_raw)
        X = check_matrix(X, name="the expression matrix", nonnegative=True, sparse_format="csc")
        codes, classes, keep = check_labels(group_labels(adata, groupby), X.shape[0], name=f"obs[{groupby!r}]")
        rows = np.arange(X.shape[0]) if keep is None else np.flatnonzero(keep)
        if keep is not None:  # codes are already those of the labelled cells
            X = X[rows]
        self._rows = rows
        self._expression = X
        self._codes = codes
        self._groups = [str(c) for c in classes]
        self._names = pd.Index(pd.Index(names).astype(str))
        if not self._names.is_unique:
            raise ParameterError(
                "gene names are not unique, so a gene cannot be named in a request; "
                "call adata.var_names_make_unique() (or adata.raw's) and save the file again."
            )
        self._n_bins = int(n_bins)
        self._prefilter = prefilter
        self._binned = BinnedMatrix.from_binned(discretize(X, n_bins))
        self._targets: dict = {}
        self._searches: dict = {}
        self._selection: list[int] = []
        self._added_score: dict[int, float] = {}
        self._history: list[dict] = []
        self._undo: list[tuple] = []
        self._method, self._target = method, None
        self._target_of(self._target_key(method, None))  # the first scores are ready before the page opens

    # ----------------------------------------------------------------- reading
    @property
    def genes(self) -> pd.Index:
        """Names of the genes of the matrix read."""
        return self._names

    @property
    def groups(self) -> list[str]:
        """The cell groups, sorted."""
        return list(self._groups)

    @property
    def selection(self) -> list[str]:
        """The selected genes, in the order shown."""
        return [self._names[f] for f in self._selection]

    @property
    def method(self) -> str:
        return self._method

    @property
    def target(self) -> str | None:
        """The group scored against the rest, or None for every group at once (multiclass)."""
        return self._target

    def candidates(self, n: int = 20) -> list[dict]:
        """The ``n`` unselected genes of highest score for the current objective, best first.

        Each is ``{"gene", "score", "relevance"}``: the objective's value and
        the gene's relevance (I(gene; groups), or its entropy for the
        unsupervised objectives), in bits.
        """
        n = check_parameter(n, "n", [Interval(numbers.Integral, 1, None)], owner="candidates")
        with self._lock:
            search = self._search()
            target = self._target_of(self._target_key(self._method, self._target))
            scores = search.scores()
            relevance = np.full(len(self._names), np.nan)
            relevance[target.candidates] = target.univariate
            scores[self._selection] = np.nan  # a gene outside this target's prefilter may be selected
            finite = np.flatnonzero(np.isfinite(scores))
            order = finite[np.lexsort((finite, -scores[finite]))][:n]
            return [
                {"gene": self._names[f], "score": float(scores[f]), "relevance": float(relevance[f])} for f in order
            ]

    def find(self, query: str, limit: int = 20) -> list[str]:
        """Genes whose name contains ``query`` (case-insensitive): those that start with it first."""
        query = check_parameter(query, "q", [Instance(str, description="a string")], owner="find")
        limit = check_parameter(limit, "limit", [Interval(numbers.Integral, 1, 1000)], owner="find")
        text = query.strip().lower()
        if not text:
            return []
        lower = self._names.str.lower()
        starts = np.flatnonzero(lower.str.startswith(text))
        inside = np.flatnonzero(lower.str.contains(text, regex=False) & ~lower.str.startswith(text))
        return [self._names[i] for i in np.concatenate([starts, inside])[:limit]]

    def history(self) -> list[dict]:
        """Every change so far: ``{"step", "action", "gene", "method", "target", "score"}``."""
        with self._lock:
            return [dict(event) for event in self._history]

    def state(self, n_candidates: int = 20) -> dict:
        """What the page shows: selection, objective, candidates, history, whether undo is possible."""
        with self._lock:
            candidates = self.candidates(n_candidates)
            return {
                "selection": [
                    {"gene": self._names[f], "score": self._added_score.get(f)} for f in self._selection
                ],
                "method": self._method,
                "target": self._target,
                "methods": list(EXPLORER_METHODS),
                "unsupervised": list(UNSUPERVISED),
                "groups": list(self._groups),
                "groupby": self._groupby,
                "n_cells": int(self._expression.shape[0]),
                "n_genes": len(self._names),
                "candidates": candidates,
                "history": self.history(),
                "can_undo": bool(self._undo),
            }

    # --------------------------------------------------------------- changing
    def add(self, gene: str) -> float:
        """Add ``gene``; returns its score under the current objective just before it was added (bits)."""
        with self._lock:
            feature = self._feature(gene)
            if feature in self._selection:
                raise ParameterError(f"gene {gene!r} is already selected; remove it first or choose another gene.")
            search = self._search()
            self._check_candidate(search, feature)
            self._remember()
            score = search.add(feature)
            self._selection.append(feature)
            self._added_score[feature] = score
            self._log("add", feature, score)
            return score

    def remove(self, gene: str) -> None:
        """Remove ``gene`` from the selection."""
        with self._lock:
            feature = self._feature(gene)
            if feature not in self._selection:
                raise ParameterError(f"gene {gene!r} is not selected, so it cannot be removed.")
            self._remember()
            search = self._search()
            search.remove(feature)
            self._selection.remove(feature)
            self._added_score.pop(feature, None)
            self._log("remove", feature, None)

    def reorder(self, genes) -> None:
        """Show the selection in the order ``genes`` (the selected genes, each once)."""
        with self._lock:
            if not isinstance(genes, (list, tuple)) or not all(isinstance(g, str) for g in genes):
                raise ParameterError("genes must be a list of gene names, e.g. ['CD14', 'LYZ'].")
            features = [self._feature(g) for g in genes]
            if sorted(features) != sorted(self._selection):
                raise ParameterError(
                    f"genes must list the {len(self._selection)} selected genes each once, in the new order; "
                    f"got {len(features)} name(s). The selection is {self.selection}."
                )
            if features == self._selection:
                return
            self._remember()
            self._selection = features
            self._log("reorder", None, None)

    def take(self, k: int) -> list[str]:
        """Let the search add its ``k`` best genes, one greedy step at a time; returns them."""
        with self._lock:
            search = self._search()
            left = len(search.candidates) - len(search.selected)
            if left < 1:
                raise ParameterError("every candidate gene is already selected; remove one or raise the prefilter.")
            k = check_parameter(
                k, "k", [Interval(numbers.Integral, 1, left)], owner="take",
                hint=f"({left} gene(s) can still be added).",
            )
            self._remember()
            taken = []
            for _ in range(int(k)):
                feature, score = search.step()
                self._selection.append(feature)
                self._added_score[feature] = score
                self._log("take", feature, score)
                taken.append(self._names[feature])
            return taken

    def set_objective(self, method: str, target: str | None = None) -> None:
        """Score candidates by ``method``, against every group (``target=None``) or one group against the rest."""
        with self._lock:
            method = check_parameter(method, "method", [Options(*EXPLORER_METHODS)], owner="objective")
            if target is not None:
                if not isinstance(target, str) or target not in self._groups:
                    shown = ", ".join(map(repr, self._groups[:10])) + (", ..." if len(self._groups) > 10 else "")
                    raise ParameterError(
                        f"target {target!r} is not a group of obs[{self._groupby!r}] (groups: {shown}); "
                        "give one of them, or null for every group at once."
                    )
                if method in UNSUPERVISED:
                    raise ParameterError(
                        f"method {method!r} uses no labels, so it has no target group; give target null."
                    )
            if (method, target) == (self._method, self._target):
                return
            self._remember()
            self._method, self._target = method, target
            self._log("objective", None, None)

    def undo(self) -> None:
        """Go back to before the last change (add, remove, reorder, take, objective)."""
        with self._lock:
            if not self._undo:
                raise ParameterError("there is nothing to undo.")
            selection, scores, method, target = self._undo.pop()
            self._selection, self._added_score = list(selection), dict(scores)
            self._method, self._target = method, target
            self._log("undo", None, None)

    # --------------------------------------------------------------- exporting
    def to_frame(self) -> pd.DataFrame:
        """The selection as a table: names, step, selection_scores, scores, feature_index.

        ``selection_scores`` is each gene's objective value when it was added
        (bits) and ``scores`` its relevance I(gene; groups), as
        :func:`paucity.markers.select` stores them.
        """
        with self._lock:
            multiclass = self._target_of(self._target_key("mim", None))
            relevance = dict(zip(multiclass.candidates.tolist(), multiclass.univariate.tolist()))
            features = list(self._selection)
            return pd.DataFrame(
                {
                    "names": [self._names[f] for f in features],
                    "step": np.arange(1, len(features) + 1, dtype=np.int64),
                    "selection_scores": [self._added_score.get(f, np.nan) for f in features],
                    "scores": [relevance.get(f, np.nan) for f in features],
                    "feature_index": np.asarray(features, dtype=np.int64),
                }
            )

    def params(self) -> dict:
        """The explorer's settings, as stored beside the exported selection (None values left out)."""
        recorded = {
            "method": self._method,
            "mode": "multiclass" if self._target is None else "binary",
            "target": self._target,
            "n_bins": self._n_bins,
            "prefilter": self._prefilter,
            "groupby": self._groupby,
            "layer": self._layer,
            "use_raw": self._use_raw,
            "source": "paucity serve markers",
        }
        return {k: v for k, v in recorded.items() if v is not None}

    def export_h5ad(self) -> dict:
        """Store the selection in ``adata.uns[key_added]`` and rewrite the ``.h5ad`` it came from.

        The previous file is first copied to ``<name>.h5ad.bak``; the new
        one is written to a temporary file that then replaces the old one
        (:func:`os.replace`), so a crash leaves either version whole.

        Returns
        -------
        dict
            ``{"path", "backup", "n_genes"}``.
        """
        from ..io import atomic_path, write_h5ad

        with self._lock:
            if self._path is None:
                raise ParameterError("the data was not read from an .h5ad file, so there is no file to write into.")
            table = self.to_frame()
            stored = {"params": self.params()}
            for column in table.columns:
                values = table[column].to_numpy()
                stored[column] = values.astype(object) if column == "names" else values
            self._adata.uns[self._key] = stored
            self._adata.var[self._key] = self._adata.var_names.astype(str).isin(table["names"])
            backup = self._path.with_name(self._path.name + ".bak")
            if self._path.exists():
                with atomic_path(backup) as tmp:
                    shutil.copy2(self._path, tmp)
            write_h5ad(self._adata, self._path)
            return {"path": os.fspath(self._path), "backup": os.fspath(backup), "n_genes": len(table)}

    # ------------------------------------------------------------------ plots
    def expression(self, gene: str) -> np.ndarray:
        """Expression of ``gene`` in every cell with a group (dense, float64)."""
        feature = self._feature(gene)
        column = self._expression[:, feature]
        dense = column.toarray() if hasattr(column, "toarray") else np.asarray(column)
        return np.asarray(dense, dtype=np.float64).ravel()

    @property
    def codes(self) -> np.ndarray:
        """Group code (index into :attr:`groups`) of every cell with a group."""
        return self._codes

    def embedding(self) -> tuple[str, np.ndarray] | None:
        """``(key, coordinates)`` of the first of :data:`EMBEDDINGS` in ``adata.obsm`` (2 columns), or None."""
        for key in EMBEDDINGS:
            if key in self._adata.obsm:
                coordinates = np.asarray(self._adata.obsm[key])[self._rows, :2]
                if coordinates.ndim == 2 and coordinates.shape[1] == 2:
                    return key, np.asarray(coordinates, dtype=np.float64)
        return None

    def cross_validated_error(self, n_folds: int = 5, random_state: int = 0) -> float | None:
        """Error of a nearest-centroid classifier on the selected genes, by stratified cross-validation.

        A quick check of how well the selection tells the groups apart; None
        when nothing is selected or a group has fewer cells than folds.
        """
        from sklearn.model_selection import StratifiedKFold, cross_val_score
        from sklearn.neighbors import NearestCentroid

        with self._lock:
            features = list(self._selection)
        if not features:
            return None
        counts = np.bincount(self._codes)
        folds = int(min(n_folds, counts.min()))
        if folds < 2:
            return None
        X = self._expression[:, features]
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=random_state)
        accuracy = cross_val_score(NearestCentroid(), X, self._codes, cv=splitter)
        return float(1.0 - accuracy.mean())

    # --------------------------------------------------------------- internals
    def _feature(self, gene) -> int:
        if not isinstance(gene, str):
            raise ParameterError(f"gene must be a gene name (a string), got {type(gene).__name__}.")
        if not gene or len(gene) > MAX_GENE_NAME:
            raise ParameterError(f"gene must be a name of 1 to {MAX_GENE_NAME} characters, got {len(gene)}.")
        position = self._names.get_indexer([gene])[0]
        if position < 0:
            like = self.find(gene, 3)
            suggestion = f" Did you mean {', '.join(like)}?" if like else " Search the names with /api/genes?q=..."
            shown = gene if len(gene) <= 40 else gene[:40] + "..."
            raise ParameterError(f"gene {shown!r} is not in the data ({len(self._names)} genes).{suggestion}")
        return int(position)

    def _check_candidate(self, search: Stepwise, feature: int) -> None:
        if not np.isin(feature, search.candidates):
            raise ParameterError(
                f"gene {self._names[feature]!r} is not among the {len(search.candidates)} genes of highest "
                "relevance that the search scores (the prefilter); restart with a larger --prefilter to add it."
            )

    def _target_key(self, method: str, target: str | None):
        if method in UNSUPERVISED:
            return "unsupervised"
        return None if target is None else self._groups.index(target)

    def _target_of(self, key) -> _Target:
        if key not in self._targets:
            if key == "unsupervised":
                labels, n_classes = None, 1
            elif key is None:
                labels, n_classes = self._codes, len(self._groups)
            else:
                labels, n_classes = (self._codes == key).astype(np.int64), 2
            labelled = self._binned.with_labels(labels, n_classes) if labels is not None else None
            counted: dict = {}
            univariate = univariate_scores(self._binned, labels, n_classes, cache=counted, labelled_values=labelled)
            if self._prefilter is None:
                candidates = np.arange(self._binned.n_features, dtype=np.int64)
            else:
                candidates = prefilter_candidates(univariate, self._prefilter)
            entropies = {k: (v[candidates] if isinstance(v, np.ndarray) else v) for k, v in counted.items()}
            pairs = None
            if PairCounter.fits(self._binned, n_classes):
                pairs = PairCounter(self._binned, labels, n_classes, labelled_values=labelled)
            self._targets[key] = _Target(labels, n_classes, labelled, univariate[candidates], candidates, entropies, pairs)
        return self._targets[key]

    def _search(self) -> Stepwise:
        """The search of the current objective, brought to the current selection."""
        key = (self._method, self._target_key(self._method, self._target))
        if key not in self._searches:
            target = self._target_of(key[1])
            self._searches[key] = Stepwise(
                self._binned,
                make_objective(self._method),
                labels=target.labels,
                candidates=target.candidates,
                base=target.univariate,
                entropies=target.entropies,
                labelled_values=target.labelled,
                pairs=target.pairs,
            )
        search = self._searches[key]
        wanted = set(self._selection)
        for feature in [f for f in search.selected if f not in wanted]:
            search.remove(feature)
        held = set(search.selected)
        allowed = set(search.candidates.tolist())
        for feature in self._selection:
            if feature not in held and feature in allowed:
                search.add(feature)
        return search

    def _remember(self) -> None:
        self._undo.append((tuple(self._selection), dict(self._added_score), self._method, self._target))
        del self._undo[:-MAX_UNDO]

    def _log(self, action: str, feature: int | None, score: float | None) -> None:
        self._history.append(
            {
                "step": len(self._history) + 1,
                "action": action,
                "gene": None if feature is None else self._names[feature],
                "method": self._method,
                "target": self._target,
                "score": score,
                "n_selected": len(self._selection),
            }
        )
