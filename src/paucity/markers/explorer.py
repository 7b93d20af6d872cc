"""The marker explorer's model: a greedy search a person steers one gene at a time (seed 000, §2.10).

The web page (``paucity serve markers``, :mod:`paucity.serve.markers`) shows
and changes a :class:`MarkerExplorer`; the selection it saves is a
:class:`~paucity.markers.MarkerResult`, written and read as
:func:`~paucity.markers.select` writes its own, so that a file saved from the
page opens again where it was left.
"""

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
from .._errors import InputError, ParameterError
from .._validation import Instance, Interval, Options, check_labels, check_matrix, check_parameter
from ..info import BinnedMatrix, discretize
from ..info.counts import PairCounter, candidate_interactions
from .greedy import prefilter_candidates, univariate_scores
from .objectives import SUPERVISED, UNSUPERVISED, make_objective
from .result import DEFAULT_KEY, HISTORY_COLUMNS, MarkerResult
from .stepwise import Stepwise

__all__ = ["MarkerExplorer", "SelectionConflict", "EXPLORER_METHODS", "EMBEDDINGS", "MAX_GENE_NAME"]

#: The objectives the explorer offers (``degree`` needs its K and is left to ``paucity markers``).
EXPLORER_METHODS = tuple(m for m in SUPERVISED if m != "degree") + UNSUPERVISED
#: The embeddings of ``adata.obsm`` the explorer looks for, in this order.
EMBEDDINGS = ("X_umap", "X_tsne", "X_pca")
#: The longest gene name a request may carry.
MAX_GENE_NAME = 200
#: Undo steps kept.
MAX_UNDO = 200


class SelectionConflict(InputError):
    """Saving would replace a different selection stored in the file (the page asks first)."""

    def __init__(self, message: str, key: str, suggested_key: str):
        super().__init__(message)
        self.key = key
        self.suggested_key = suggested_key


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
    >>> from paucity.markers import MarkerExplorer
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
        key_added: str = DEFAULT_KEY,
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
        self._version = 0
        self._cv_lock, self._cv_latest, self._cv_cache = threading.Lock(), 0, None
        self._saved: dict[str, tuple | None] = {}  # per key: the selection as this explorer found or last saved it
        self._target_of(self._target_key(method, None))  # the first scores are ready before the page opens
        self.restored = self._restore()

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
        """The objective the next gene is scored by (``mim``, ``mrmr``, ``jmi``, ``cife``, ...)."""
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
                "version": self._version,
                "restored": self.restored,
                "key": self._key,
            }

    @property
    def version(self) -> int:
        """A number that grows with every change: a page that saw another one reads the state again."""
        return self._version

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
    def result(self) -> MarkerResult:
        """The selection as a :class:`~paucity.markers.MarkerResult`: the genes in the order shown, each one's
        score when it was added (bits), its relevance I(gene; groups), the settings, and the log of changes."""
        with self._lock:
            multiclass = self._target_of(self._target_key("mim", None))
            relevance = np.zeros(len(self._names))
            relevance[multiclass.candidates] = multiclass.univariate
            features = np.asarray(self._selection, dtype=np.int64)
            history = pd.DataFrame(self.history(), columns=list(HISTORY_COLUMNS))
            return MarkerResult(
                names=tuple(self._names[f] for f in features),
                feature_index=features,
                selection_scores=np.asarray([self._added_score.get(int(f), np.nan) for f in features], dtype=float),
                relevance=relevance[features] if len(features) else np.empty(0),
                steps=np.arange(1, len(features) + 1, dtype=np.int64),
                method=self._method,
                params=self.params(),
                gene_names=self._names,
                gene_relevance=relevance,
                history=history,
            )

    def to_frame(self) -> pd.DataFrame:
        """The selection as a table: names, step, selection_scores, scores, feature_index (as
        :meth:`MarkerResult.to_frame`): each gene's objective value when it was added (bits) and its relevance
        I(gene; groups)."""
        return self.result().to_frame()

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

    def export_h5ad(self, key: str | None = None, *, overwrite: bool = False) -> dict:
        """Store the selection in ``adata.uns[key]`` (the explorer's key by default) and rewrite the ``.h5ad``.

        A selection already stored under ``key`` in the file, other than the
        one this explorer opened with or last saved there, is not replaced
        unless ``overwrite``: :class:`SelectionConflict` says so and suggests
        a free key. The previous file is first copied to ``<name>.h5ad.bak``;
        the new one is written to a temporary file that then replaces the old
        one (:func:`os.replace`), so a crash leaves either version whole. Only
        ``uns[key]`` and the columns ``var[key]``, ``var[key + "_score"]``
        change in the file (:func:`paucity.io.update_h5ad`): what another
        page or program stored there meanwhile is kept.

        Returns
        -------
        dict
            ``{"path", "backup", "n_genes", "key"}``.
        """
        from ..io import atomic_path, update_h5ad, write_h5ad

        key = self._key if key is None else check_parameter(key, "key", [Instance(str, description="a string")],
                                                              owner="export")
        if not key or len(key) > 100 or any(c in key for c in "/\\\x00"):
            raise ParameterError(f"key must be 1 to 100 characters without slashes, got {key[:40]!r}.")
        with self._lock:
            if self._path is None:
                raise ParameterError("the data was not read from an .h5ad file, so there is no file to write into.")
            found = _stored_names(self._path, key)
            if found is not None and found != self._saved.get(key) and not overwrite:
                free = next(f"{key}_{k}" for k in range(2, 1000) if _stored_names(self._path, f"{key}_{k}") is None)
                shown = ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")
                raise SelectionConflict(
                    f"{self._path.name} already holds another selection under {key!r} ({len(found)} genes: {shown}); "
                    f"save under a new key (such as {free!r}) or overwrite it.", key, free)
            result = self.result()
            result.write(self._adata, key)
            backup = self._path.with_name(self._path.name + ".bak")
            if self._path.exists():
                with atomic_path(backup) as tmp:
                    shutil.copy2(self._path, tmp)
                # only this key's entries change: what another page or program saved in the file meanwhile stays
                update_h5ad(self._path, self._adata, uns=[key], var=[key, f"{key}_score"])
            else:
                write_h5ad(self._adata, self._path)
            self._saved[key] = tuple(result.names)
            self._key = key  # the next Save goes where this one went
            self._version += 1
            return {"path": os.fspath(self._path), "backup": os.fspath(backup), "n_genes": len(result.names),
                    "key": key}

    def explain(self, gene: str) -> dict:
        """How ``gene``'s current score is made up, under the current objective and selection.

        Returns
        -------
        dict
            ``gene``, ``method``, ``target``, ``score`` (the objective's value),
            ``base`` (its relevance I(gene; groups) in bits, or its entropy
            H(gene) for the unsupervised objectives), ``terms``: one per
            selected gene ``s`` with ``redundancy`` I(gene; s),
            ``conditional`` I(gene; s | groups) (for objectives that condition
            on the groups: JMI, CIFE; None otherwise) and ``contribution``,
            what the objective adds for ``s``; ``base`` plus the
            contributions is ``score``. And ``note``, one sentence on what
            dominates.

        Notes
        -----
        Seed 000, Table 2.1: CIFE scores I(x; y) − Σ_s [I(x; s) − I(x; s | y)];
        a gene of little relevance scores high when its redundancy with the
        selection is explained by the groups (I(x; s | y) large), for CIFE
        adds that back in full. JMI averages the same terms over the
        selection; mRMR and MIFS subtract I(x; s) only.
        """
        with self._lock:
            feature = self._feature(gene)
            if feature in self._selection:
                raise ParameterError(f"gene {gene!r} is selected; its score is the one it had when added "
                                     f"({self._added_score.get(feature, float('nan')):.3f} bits).")
            search = self._search()
            self._check_candidate(search, feature)
            base, terms = search.terms(feature)
            objective = search.objective
            k = len(search.selected)
            rows = []
            for s in search.selected:
                term = terms.get((s,))
                if term is None:
                    continue
                if objective.with_labels:  # the term is I(x; s; y) = I(x; s) - I(x; s | y)
                    redundancy = float(candidate_interactions(
                        self._binned, [self._binned.column(s)], [self._binned.n_bins],
                        np.array([feature], dtype=np.int64),
                    )[0])
                    conditional = redundancy - term
                else:  # the term is I(x; s) itself
                    redundancy, conditional = term, None
                rows.append({"gene": self._names[s], "redundancy": redundancy, "conditional": conditional,
                             "contribution": float(objective.combine(1, term, k))})
            score = float(search.scores()[feature])
            total_redundancy = sum(row["redundancy"] for row in rows)
            total_conditional = sum(row["conditional"] or 0.0 for row in rows)
            return {
                "gene": self._names[feature], "method": self._method, "target": self._target, "score": score,
                "base": base, "terms": rows,
                "note": _why(self._method, base, score, total_redundancy, total_conditional, len(rows)),
            }

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

    def cross_validated_error(self, n_folds: int = 5, random_state: int = 0) -> dict:
        """Error of a nearest-centroid classifier on the selected genes, by stratified cross-validation.

        A quick check of how well the selection tells the groups apart. A
        request that a newer one overtook while it waited returns at once
        with ``superseded`` (the page asks again after every change; only the
        last question is worth the work), and the last answer is kept for the
        same selection.

        Returns
        -------
        dict
            ``error_rate`` (None when nothing is selected or a group has fewer
            cells than folds), ``n_folds``, ``superseded``, ``genes`` (the
            selection it is about).
        """
        from sklearn.model_selection import StratifiedKFold, cross_val_score
        from sklearn.neighbors import NearestCentroid

        with self._lock:
            self._cv_latest += 1
            mine = self._cv_latest
        with self._cv_lock:
            if mine != self._cv_latest:
                return {"error_rate": None, "n_folds": n_folds, "superseded": True, "genes": None}
            with self._lock:
                features = tuple(self._selection)
            if self._cv_cache is not None and self._cv_cache[0] == features:
                return self._cv_cache[1]
            counts = np.bincount(self._codes)
            folds = int(min(n_folds, counts.min()))
            error = None
            if features and folds >= 2:
                X = self._expression[:, list(features)]
                X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
                splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=random_state)
                accuracy = cross_val_score(NearestCentroid(), X, self._codes, cv=splitter)
                error = float(1.0 - accuracy.mean())
            answer = {"error_rate": error, "n_folds": folds, "superseded": False,
                      "genes": [self._names[f] for f in features]}
            self._cv_cache = (features, answer)
            return answer

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

    def _restore(self) -> dict | None:
        """Take up the selection saved under the explorer's key in the AnnData (by this page, or by select):
        its genes in order, its objective and group, its log; what could not be taken up is said."""
        if self._key not in self._adata.uns:
            self._saved[self._key] = None
            return None
        try:
            saved = MarkerResult.read(self._adata, self._key)
        except InputError as error:
            self._saved[self._key] = None
            return {"restored": False, "n_genes": 0, "reason": str(error)}
        self._saved[self._key] = tuple(saved.names)
        groupby = saved.params.get("groupby")
        if groupby is not None and groupby != self._groupby:
            return {"restored": False, "n_genes": len(saved.names),
                    "reason": f"it was chosen for the groups of {groupby!r}, not {self._groupby!r}"}
        notes = []
        method, target = saved.params.get("method"), saved.params.get("target")
        if method in EXPLORER_METHODS:
            self._method = method
        else:
            notes.append(f"its objective {method!r} is not offered here; scoring by {self._method}")
        if target is not None and target in self._groups and self._method not in UNSUPERVISED:
            self._target = target
        elif saved.params.get("mode") == "binary" and target is None:
            notes.append("it was chosen group by group (binary mode); scoring here against all groups")
        search = self._search()
        skipped = []
        for name in saved.names:
            position = self._names.get_indexer([name])[0]
            if position < 0 or not np.isin(position, search.candidates) or position in self._selection:
                skipped.append(name)
                continue
            score = search.add(int(position))
            self._selection.append(int(position))
            self._added_score[int(position)] = score
        if skipped:
            notes.append(f"{len(skipped)} gene(s) not among the genes scored here were left out "
                         f"({', '.join(skipped[:5])})")
        if saved.history is not None:
            for event in saved.history.to_dict("records"):
                self._history.append({name: _plain_event(event.get(name)) for name in HISTORY_COLUMNS})
        self._log("restore", None, None)
        return {"restored": True, "n_genes": len(self._selection), "reason": "; ".join(notes) or None}

    def _remember(self) -> None:
        self._undo.append((tuple(self._selection), dict(self._added_score), self._method, self._target))
        del self._undo[:-MAX_UNDO]

    def _log(self, action: str, feature: int | None, score: float | None) -> None:
        self._version += 1
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


def _plain_event(value):
    """A value of a stored log as the explorer keeps it (None for empty text and NaN; ints as ints)."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value == "":
        return None
    if isinstance(value, (np.floating, float)) and float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return value.item() if isinstance(value, np.generic) else value


def _stored_names(path: Path, key: str) -> tuple | None:
    """The genes of the selection stored under ``uns/key`` in the file at ``path``, or None for none."""
    import h5py

    if not path.exists():
        return None
    try:
        with h5py.File(path, "r") as handle:
            group = handle.get(f"uns/{key}")
            if group is None:
                return None
            for name in ("selection/names", "names"):  # paucity 0.1 kept the names beside params
                data = group.get(name)
                if data is not None and getattr(data, "dtype", None) is not None and data.dtype.names is None \
                        and data.ndim == 1:
                    return tuple(str(v) for v in data.asstr()[:])
            return ()
    except (OSError, KeyError, TypeError, ValueError):
        return None


def _why(method: str, base: float, score: float, redundancy: float, conditional: float, n_terms: int) -> str:
    """One sentence on what makes a candidate's score."""
    if method in ("mim", "entropy") or n_terms == 0:
        return "With nothing selected yet, or for this objective, the score is the gene's relevance alone."
    if method == "cife" and conditional > redundancy and score > base:
        return (f"CIFE adds back the redundancy the groups explain: the gene shares {redundancy:.3f} bits with the "
                f"selection, but {conditional:.3f} bits given the groups, so its score ({score:.3f}) rises above its "
                f"relevance ({base:.3f}); it is informative together with the genes already chosen.")
    if method == "jmi":
        return ("JMI averages, over the selected genes, what each shares with this gene outside the groups "
                "minus what it shares given the groups, and subtracts that from the relevance.")
    if method in ("mrmr", "mifs"):
        return (f"{method.upper()} subtracts the redundancy with the selection ({redundancy:.3f} bits in all) from the "
                "relevance; the groups play no part in it.")
    return f"The score is the relevance ({base:.3f} bits) plus the contributions of the selected genes."
