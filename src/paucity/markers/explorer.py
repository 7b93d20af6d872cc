"""The marker explorer's model: a greedy search a person steers one gene at a time (seed 000, §2.10).

The web page (``paucity serve markers``, :mod:`paucity.serve.markers`) shows
and changes a :class:`MarkerExplorer`; the selection it saves is a
:class:`~paucity.markers.MarkerResult`, written and read as
:func:`~paucity.markers.select` writes its own, so that a file saved from the
page opens again where it was left.
"""

from __future__ import annotations

import json
import numbers
import os
import secrets
import shlex
import shutil
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._anndata import expression_matrix, group_labels, in_memory
from .._sparse import to_csr
from .._errors import InputError, ParameterError, warn
from .._validation import Instance, Interval, Options, check_labels, check_matrix, check_parameter
from ..info import BinnedMatrix, discretize
from ..io.files import file_version
from ..info.counts import PairCounter
from .greedy import prefilter_candidates, univariate_scores
from .objectives import SUPERVISED, UNSUPERVISED, make_objective
from .result import DEFAULT_KEY, HISTORY_COLUMNS, MarkerResult
from .stepwise import Stepwise

__all__ = ["MarkerExplorer", "SelectionConflict", "EXPLORER_METHODS", "EMBEDDINGS", "MAX_GENE_NAME", "journal_path"]

#: The objectives the explorer offers (``degree`` needs its K and is left to ``paucity markers``).
EXPLORER_METHODS = tuple(m for m in SUPERVISED if m != "degree") + UNSUPERVISED
#: The embeddings of ``adata.obsm`` the explorer looks for, in this order.
EMBEDDINGS = ("X_umap", "X_tsne", "X_pca")
#: The longest gene name a request may carry.
MAX_GENE_NAME = 200
#: Undo steps kept.
MAX_UNDO = 200
#: The journal of unsaved changes lies beside the ``.h5ad``, under its name and this ending.
JOURNAL_SUFFIX = ".paucity-journal.json"
#: What a journal says it is (a file of that name written by something else is not read).
JOURNAL_FORMAT = "paucity marker explorer journal"
#: Features whose pair counts each target keeps (every objective's search on the target reuses them).
KEPT_PAIRS = 256
#: Bytes of the all-groups target's count tables kept for one-group-against-the-rest targets (1.8 MB a gene at a
#: million cells, 2,000 genes and 11 groups).
KEPT_TABLE_BYTES = 256 * 2**20


def journal_path(path) -> Path:
    """Where the explorer of the ``.h5ad`` at ``path`` keeps its unsaved changes: ``<file>.h5ad.paucity-journal.json``.

    Examples
    --------
    >>> from paucity.markers.explorer import journal_path
    >>> journal_path("data/cells.h5ad").name
    'cells.h5ad.paucity-journal.json'
    """
    path = Path(path)
    return path.with_name(path.name + JOURNAL_SUFFIX)


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
    (none for a removal) and nothing is recomputed from scratch: the pair
    counts of a gene are kept per target, so that switching between
    objectives on the same groups counts nothing again. Every method is safe
    to call from several threads.

    With a ``path``, every change is written at once to a journal beside the
    file (:func:`journal_path`; atomically, so a killed server leaves the
    last change whole): an explorer opened again on the same file and
    ``groupby`` takes up the unsaved selection from it (:attr:`recovered`)
    before the one saved in the file, and a save removes it.

    Parameters
    ----------
    adata : anndata.AnnData
        Cells x genes, in memory or opened with ``backed="r"``: a backed
        file's matrix is read once into the explorer's own columns, so that
        the file's copy is not held beside them (at a million cells x 2,000
        genes, 2 GB less). Its ``obs``, ``obsm`` and ``uns`` are read from
        the object as it is.
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
        rewrites, and beside which the journal of unsaved changes is kept.
    key_added : str, default="paucity_markers"
        Where :meth:`export_h5ad` stores the selection.

    Notes
    -----
    Seed 000, §2.10 (the interactive tool) on top of Algorithm 1 with the
    incremental scores of Algorithm 5. Holds the binned matrix (one byte
    per stored value) and a row-major copy of its bins (two to four bytes
    per stored value, shared by every objective and group) besides the
    expression it plots.

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
        X = in_memory(X)  # a backed file's matrix: read once, into the columns below, and not kept as stored
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
        self._row_major = None  # the bins row by row, built once for every target's pair counts
        self._n_obs = int(adata.n_obs)
        self._targets: dict = {}
        self._searches: dict = {}
        self._selection: list[int] = []
        self._added_score: dict[int, float] = {}
        self._history: list[dict] = []
        self._undo: list[tuple] = []
        self._method, self._target = method, None
        self._version = 0
        self._cv_lock, self._cv_latest = threading.Lock(), 0
        self._cv_cache: OrderedDict = OrderedDict()  # (set of genes, folds, seed) -> error: undo and reorder are free
        self._cv_folds: dict = {}  # (folds, seed) -> the fold of every cell
        self._cv_sums: dict = {}  # (folds, seed) -> {gene: its sums per (fold, group)}, kept for the next selection
        self._saved: dict[str, tuple | None] = {}  # per key: the selection as this explorer found or last saved it
        self._journal = None if self._path is None else journal_path(self._path)
        self._journal_error: str | None = None
        self._copies: list = []  # a copy of the file being made for the next save (see _stage), or none
        self._copies_finalizer = weakref.finalize(self, _discard_all, self._copies)
        self._ours: set = set()  # versions of the file (inode, size, time) this explorer found or wrote
        self._written: set = set()  # the keys it saved into them
        self._target_of(self._target_key(method, None))  # the first scores are ready before the page opens
        #: What became of the selection saved in the file (None when it holds none, or when the journal's was taken).
        self.restored = None
        #: What became of the journal of unsaved changes found beside the file (None when there was none).
        self.recovered = None
        entry, self.recovered = self._read_journal()
        saved = self._restore(apply=entry is None)
        if entry is not None:
            self._recover(entry)
        else:
            self.restored = saved
        if self._path is not None and self._path.exists():
            from ..io import StagedCopy

            StagedCopy.remove_stale(self._path)  # copies a killed server left
            self._ours.add(file_version(self._path))
            self._stage()
        found = self.recovered  # said where a person sees it: the command line prints it as a warning line
        if found is not None and found["recovered"]:
            warn(f"took up the unsaved selection of {found['n_genes']} gene(s) kept in {found['journal']} (its server "
                 "stopped before a save)" + (f"; {found['reason']}." if found["reason"] else "."))
        elif found is not None:
            warn(f"the unsaved selection in {found['journal']} was not taken up: {found['reason']}.")
        self._warm_up()

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
                "recovered": self.recovered,
                "key": self._key,
                "file": None if self._path is None else self._path.name,
                "journal": None if self._journal is None else {"file": self._journal.name,
                                                               "error": self._journal_error},
                "restart": self.restart_command(),
            }

    def restart_command(self) -> str | None:
        """The command that serves this file again as it is served now (None without a file).

        Examples
        --------
        >>> import anndata, numpy as np, pandas as pd
        >>> from paucity.markers import MarkerExplorer
        >>> cells = pd.DataFrame({"cell_type": ["B", "T"] * 50}, index=[f"c{i}" for i in range(100)])
        >>> adata = anndata.AnnData(np.eye(100, 3, dtype=np.float32), obs=cells)
        >>> MarkerExplorer(adata, "cell_type", n_bins=3).restart_command() is None
        True
        """
        if self._path is None:
            return None
        words = ["paucity", "serve", "markers", os.fspath(self._path.absolute()), "--groupby", self._groupby]
        if self._layer is not None:
            words += ["--layer", self._layer]
        if self._use_raw != bool(self._adata.raw is not None and self._layer is None):
            words.append("--use-raw" if self._use_raw else "--no-use-raw")
        if self._n_bins != 5:
            words += ["--n-bins", str(self._n_bins)]
        if self._prefilter != 5000:
            words += ["--prefilter", str(self._prefilter if self._prefilter is not None else self._binned.n_features)]
        if self._key != DEFAULT_KEY:
            words += ["--key", self._key]
        return shlex.join(words)

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
            self._write_journal()
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
            self._write_journal()

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
            self._write_journal()

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
            self._write_journal()
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
            self._write_journal()

    def undo(self) -> None:
        """Go back to before the last change (add, remove, reorder, take, objective)."""
        with self._lock:
            if not self._undo:
                raise ParameterError("there is nothing to undo.")
            selection, scores, method, target = self._undo.pop()
            self._selection, self._added_score = list(selection), dict(scores)
            self._method, self._target = method, target
            self._log("undo", None, None)
            self._write_journal()

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
        a free key. The previous file is kept as ``<name>.h5ad.bak`` (a hard
        link to it where the file system has them, else a copy); the new one
        is written to a temporary file that then replaces the old one
        (:func:`os.replace`), so a crash leaves either version whole. That
        file is one made beforehand: for the first save a copy made in the
        background when the explorer opened (:class:`paucity.io.StagedCopy`,
        a hidden file beside the data), for every later one the backup the
        save replaces (the file two saves back), so saving does not wait for
        a copy of the whole file; if another program changed the file since,
        it is copied now. Only ``uns[key]`` and the columns ``var[key]``,
        ``var[key + "_score"]`` change in the file
        (:func:`paucity.io.update_h5ad`), and those of every key this
        explorer saved under when the file changed is an older version of its
        own: what another page or program stored there meanwhile is kept. The
        journal of unsaved changes is removed: they are saved.

        Returns
        -------
        dict
            ``{"path", "backup", "n_genes", "key"}``.
        """
        from ..io import atomic_path, remove_later, update_h5ad, write_h5ad

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
                # the previous backup keeps a second name while it is replaced, and is removed in the background:
                # freeing a large file's blocks is not the person's wait
                previous = backup.with_name(f".{backup.name}.paucity-old-{os.getpid()}-{secrets.token_hex(4)}")
                try:
                    os.link(backup, previous)
                except OSError:  # no backup yet, or no hard links here
                    previous = None
                with atomic_path(backup) as tmp:
                    try:  # the file is replaced whole below, so the backup may be the old file itself
                        os.link(self._path, tmp)
                    except OSError:  # a file system without hard links
                        shutil.copy2(self._path, tmp)
                staged, lineage = self._copy_for_save(previous)
                # only this key's entries change: what another page or program saved in the file meanwhile stays.
                # A copy of a version before the last save is brought up to it by writing again every key this
                # explorer saved under (only entries of those keys differ between the versions it wrote)
                keys = sorted(self._written | {key}) if lineage else [key]
                try:
                    update_h5ad(self._path, self._adata, uns=keys, var=[c for k in keys for c in (k, f"{k}_score")],
                                staged=staged)
                except BaseException:  # the file stays as it was: its backup must not be the same file
                    with atomic_path(backup) as tmp:
                        shutil.copy2(self._path, tmp)
                    if previous is not None and previous.exists():
                        remove_later(previous)
                    self._ours = {file_version(self._path)}
                    self._written = set()
                    self._stage()
                    raise
                if lineage:
                    self._ours.add(file_version(self._path))
                    self._written.add(key)
                else:  # the file had changed: only its new versions are this explorer's to rewrite
                    self._ours, self._written = {file_version(self._path)}, {key}
                if previous is not None and previous.exists():
                    remove_later(previous)
                if file_version(backup) not in self._ours:  # the next save cannot take the backup: copy the file now
                    self._stage()
            elif self._adata.isbacked:
                raise ParameterError(
                    f"{self._path} was removed while the explorer ran, and its matrix was read from that file "
                    "(not held whole), so it cannot be written again; put the file back (or its backup, "
                    f"{backup.name}) and save again, or download the selection as CSV.")
            else:
                write_h5ad(self._adata, self._path)
            self._saved[key] = tuple(result.names)
            self._key = key  # the next Save goes where this one went
            self._version += 1
            self._forget_journal()
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
                    redundancy = _shared_information(self._binned, feature, s)
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

        A quick check of how well the selection tells the groups apart. The
        cells of each group are dealt at random to ``n_folds`` folds; each
        fold's cells are assigned to the group of the nearest centroid
        (Euclidean, on the selected genes' expression) of the other folds'
        cells, and the error is one minus the mean of the folds' accuracies.
        Tens of milliseconds at 200,000 cells; the folds are drawn once, and
        the answers for the last selections are kept (an undo, or a reorder,
        asks for one of them again). A request that a newer one overtook
        while it waited returns at once with ``superseded`` (the page asks
        again after every change; only the last question is worth the work).

        Returns
        -------
        dict
            ``error_rate`` (None when nothing is selected or a group has fewer
            cells than folds), ``n_folds``, ``superseded``, ``genes`` (the
            selection it is about).
        """
        with self._lock:
            self._cv_latest += 1
            mine = self._cv_latest
        with self._cv_lock:
            if mine != self._cv_latest:
                return {"error_rate": None, "n_folds": n_folds, "superseded": True, "genes": None}
            with self._lock:
                features = tuple(self._selection)
            counts = np.bincount(self._codes, minlength=len(self._groups))
            folds = int(min(n_folds, counts.min()))
            key = (frozenset(features), folds, random_state)
            error = self._cv_cache.get(key)
            if error is None and features and folds >= 2:
                if (folds, random_state) not in self._cv_folds:
                    self._cv_folds[(folds, random_state)] = _stratified_folds(self._codes, len(self._groups), folds,
                                                                              random_state)
                error = _nearest_centroid_error(self._expression, self._codes, len(self._groups),
                                                self._cv_folds[(folds, random_state)], columns=sorted(features),
                                                kept_sums=self._cv_sums.setdefault((folds, random_state), {}))
                self._cv_cache[key] = error
                while len(self._cv_cache) > MAX_UNDO:
                    self._cv_cache.popitem(last=False)
            if key in self._cv_cache:
                self._cv_cache.move_to_end(key)
            return {"error_rate": error, "n_folds": folds, "superseded": False,
                    "genes": [self._names[f] for f in features]}

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
            whole = self._targets.get(None) if isinstance(key, int) else None
            counted: dict = {}
            if whole is not None and whole.pairs is not None:
                # one group against the rest, summed from the all-groups counts: no pass over the data (at a
                # million cells, 0.9 s and one pair count per selected gene saved), the same bits
                counter = whole.pairs.counter.folded((np.arange(len(self._groups)) == key).astype(np.int64))
                counted.update(_entropies_of_tables(counter.reference, self._binned))
                labelled = None  # paired with the labels only if a search asks (see Stepwise)
                pairs = _KeptPairs(counter, source=whole.pairs)
            else:
                labelled = self._binned.with_labels(labels, n_classes) if labels is not None else None
                pairs = None
            univariate = univariate_scores(self._binned, labels, n_classes, cache=counted, labelled_values=labelled)
            if self._prefilter is None:
                candidates = np.arange(self._binned.n_features, dtype=np.int64)
            else:
                candidates = prefilter_candidates(univariate, self._prefilter)
            entropies = {k: (v[candidates] if isinstance(v, np.ndarray) else v) for k, v in counted.items()}
            if pairs is None and PairCounter.fits(self._binned, n_classes):
                if self._row_major is None:
                    self._row_major = _row_major(self._binned)
                pairs = _KeptPairs(PairCounter(self._binned, labels, n_classes, labelled_values=labelled,
                                               row_major=self._row_major))
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

    def _restore(self, apply: bool = True) -> dict | None:
        """Take up the selection saved under the explorer's key in the AnnData (by this page, or by select):
        its genes in order, its objective and group, its log; what could not be taken up is said. Without
        ``apply``, only remember what is saved there (a newer selection from the journal is taken up instead)."""
        if self._key not in self._adata.uns:
            self._saved[self._key] = None
            return None
        try:
            saved = MarkerResult.read(self._adata, self._key)
        except InputError as error:
            self._saved[self._key] = None
            return {"restored": False, "n_genes": 0, "reason": str(error)}
        self._saved[self._key] = tuple(saved.names)
        if not apply:
            return None
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

    # ------------------------------------------------------- the journal of unsaved changes
    def _journal_entry(self) -> dict:
        """What the journal keeps of this explorer's groupby: the selection, each gene's score when added, the
        objective, the key it saves under, the log."""
        return {
            "selection": [self._names[f] for f in self._selection],
            "scores": [self._added_score.get(f) for f in self._selection],
            "method": self._method,
            "target": self._target,
            "key": self._key,
            "history": self.history(),
        }

    def _read_journal(self) -> tuple[dict | None, dict | None]:
        """The journal's entry for this file and groupby, if one was left by a server that stopped before a
        save; and what to say about it (None when there is no journal)."""
        if self._journal is None or not self._journal.exists():
            return None, None
        name = self._journal.name
        try:
            stored = json.loads(self._journal.read_text(encoding="utf-8"))
            if not isinstance(stored, dict) or stored.get("format") != JOURNAL_FORMAT:
                raise ValueError("it is not a journal of the marker explorer")
        except (OSError, ValueError) as error:  # ValueError covers bad JSON and text that is not UTF-8
            return None, {"recovered": False, "n_genes": 0, "journal": name,
                          "reason": f"it could not be read ({error}); {self._set_aside()}"}
        if stored.get("file") != self._path.name or stored.get("n_cells") != self._n_obs \
                or stored.get("n_genes") != len(self._names):
            return None, {"recovered": False, "n_genes": 0, "journal": name,
                          "reason": f"it belongs to another file ({stored.get('file')!r}, "
                                    f"{stored.get('n_cells')} cells x {stored.get('n_genes')} genes); "
                                    f"{self._set_aside()}"}
        entries = stored.get("selections")
        entry = entries.get(self._groupby) if isinstance(entries, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("selection"), list):
            others = sorted(entries) if isinstance(entries, dict) else []
            return None, {"recovered": False, "n_genes": 0, "journal": name,
                          "reason": f"it holds unsaved selections for the groups of "
                                    f"{', '.join(map(repr, others)) or 'no column'}, not {self._groupby!r}"}
        return entry, None

    def _set_aside(self) -> str:
        """Move a journal this explorer cannot take up out of the way of its own, keeping it: what was done."""
        aside = self._journal.with_name(self._journal.name + ".old")
        try:
            os.replace(self._journal, aside)
        except OSError as error:
            return f"it could not be moved aside ({error.strerror or error}) and is replaced at the first change"
        return f"it was kept as {aside.name}"

    def _recover(self, entry: dict) -> None:
        """Take up the journal's selection: its genes in order with their scores when added, its objective, its log."""
        notes = []
        method, target = entry.get("method"), entry.get("target")
        if method in EXPLORER_METHODS:
            self._method = method
        if isinstance(target, str) and target in self._groups and self._method not in UNSUPERVISED:
            self._target = target
        elif target is not None:
            notes.append(f"its group {target!r} is not a group here; scoring against all groups")
        search = self._search()
        scores = entry.get("scores") if isinstance(entry.get("scores"), list) else []
        skipped = []
        for place, name in enumerate(entry["selection"]):
            position = self._names.get_indexer([str(name)])[0]
            if position < 0 or not np.isin(position, search.candidates) or position in self._selection:
                skipped.append(str(name))
                continue
            score = search.add(int(position))
            kept = scores[place] if place < len(scores) else None
            self._selection.append(int(position))
            self._added_score[int(position)] = float(kept) if isinstance(kept, (int, float)) else score
        if skipped:
            notes.append(f"{len(skipped)} gene(s) not among the genes scored here were left out "
                         f"({', '.join(skipped[:5])})")
        for event in entry.get("history") or []:
            if isinstance(event, dict):
                self._history.append({name: _plain_event(event.get(name)) for name in HISTORY_COLUMNS})
        self._log("recover", None, None)
        self.recovered = {"recovered": True, "n_genes": len(self._selection), "journal": self._journal.name,
                          "reason": "; ".join(notes) or None}

    def _stage(self) -> None:
        """Begin a copy of the file in the background (:class:`paucity.io.StagedCopy`) for the next save to
        change and rename onto the file, so that a person saving waits for the entries written, not for a copy
        of the whole file (0.13 s per 400 MB). Made when the explorer opens, and after a save whose backup
        cannot serve the next one (see :meth:`_copy_for_save`). Removed when the explorer is collected or the
        program ends, and at the next start when the program was killed."""
        from ..io import StagedCopy

        _discard_all(self._copies)
        self._copies.append(StagedCopy(self._path).start())

    def _copy_for_save(self, previous: Path | None) -> tuple[Path | None, bool]:
        """The file for a save to change and rename onto the file, and whether it is a version this explorer
        found or wrote (else None: another program changed the file, which the save then copies).

        The backup the save replaces (``previous``: the file two saves back) is such a version whenever the
        file is too: it is taken, and brought up to date by the save, instead of being deleted; so from the
        second save on no copy of the whole file is made (at a million cells, 2 GB: 2 s, which a save soon
        after another waited for). Otherwise the copy made beforehand, when it is of the file as it is."""
        if file_version(self._path) not in self._ours:
            _discard_all(self._copies)
            return None, False
        if previous is not None and file_version(previous) in self._ours:
            _discard_all(self._copies)
            return previous, True
        while self._copies:
            taken = self._copies.pop().take()
            if taken is not None:
                return taken, True
        return None, False

    def _write_journal(self) -> None:
        """Write the selection to the journal, atomically (called under the lock after every change)."""
        if self._journal is None:
            return
        from ..io import write_text

        try:
            stored = {}
            if self._journal.exists():  # another grouping's explorer of the same file may have written meanwhile
                try:
                    stored = json.loads(self._journal.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    stored = {}
            entries = stored.get("selections") if isinstance(stored, dict) and stored.get("file") == self._path.name \
                and stored.get("format") == JOURNAL_FORMAT else None
            entries = dict(entries) if isinstance(entries, dict) else {}  # other groupings' unsaved work is kept
            entries[self._groupby] = self._journal_entry()
            record = {"format": JOURNAL_FORMAT, "version": 1, "file": self._path.name, "n_cells": self._n_obs,
                      "n_genes": len(self._names), "selections": entries}
            write_text(json.dumps(record, default=_json_value, indent=1), self._journal)
            self._journal_error = None
        except OSError as error:
            if self._journal_error is None:
                warn(f"the unsaved selection could not be written to {self._journal} ({error}); it is lost if the "
                     "server stops before a save.")
            self._journal_error = f"{self._journal.name} could not be written: {error.strerror or error}"

    def _forget_journal(self) -> None:
        """Remove this groupby's entry from the journal once the selection is saved (the file with its last entry)."""
        if self._journal is None or not self._journal.exists():
            return
        from ..io import write_text

        try:
            stored = json.loads(self._journal.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # not a journal this explorer wrote: not its to remove
        if not isinstance(stored, dict) or stored.get("format") != JOURNAL_FORMAT \
                or stored.get("file") != self._path.name or not isinstance(stored.get("selections"), dict):
            return
        entries = stored["selections"]
        entries.pop(self._groupby, None)
        try:
            if entries:  # other groupings' unsaved work stays
                write_text(json.dumps(stored, default=_json_value, indent=1), self._journal)
            else:
                self._journal.unlink(missing_ok=True)
        except OSError as error:
            warn(f"{self._journal} could not be updated after the save ({error}); the next start takes up its "
                 "selection, which is the one just saved.")

    def _warm_up(self) -> None:
        """Count one greedy step of the current search and take it back, and cross-validate one gene, so that
        the first click on the page loads (or, on a machine's first run, compiles) the counting and the
        cross-validation's kernels now, not while a person waits for it; the counts are kept, so adding that gene
        later is free. When that compiled kernels (a machine's first run),
        the smallest group scored against the rest, and the unsupervised objectives, do the same: their kernels
        are other signatures, which would otherwise compile at the first click on them (seconds each)."""
        from .._compile import compile_seconds

        compiled = compile_seconds()
        self._step_and_back(self._search())
        # the cross-validation's kernel too, on the expression itself (its types, and the serial or parallel
        # dispatcher of its size): the page asks for it after the first change
        counts = np.bincount(self._codes, minlength=len(self._groups))
        if counts.min() >= 2:
            fold = np.arange(self._codes.shape[0]) % 2
            for group in range(len(self._groups)):  # each group in both folds
                fold[np.flatnonzero(self._codes == group)[:2]] = [0, 1]
            _nearest_centroid_error(self._expression, self._codes, len(self._groups), fold, columns=[0])
        if compile_seconds() == compiled:  # loaded from the cache: the others are there too
            return
        others = [("entropy2", "unsupervised")]
        if len(self._groups) > 2:
            others.append(("cife", int(np.argmin(np.bincount(self._codes, minlength=len(self._groups))))))
        for method, key in others:
            if (method, key) in self._searches:
                continue
            target = self._target_of(key)
            self._step_and_back(Stepwise(self._binned, make_objective(method), labels=target.labels,
                                         candidates=target.candidates, base=target.univariate,
                                         entropies=target.entropies, labelled_values=target.labelled,
                                         pairs=target.pairs))

    @staticmethod
    def _step_and_back(search: Stepwise) -> None:
        if search.objective.max_degree < 1 or len(search.selected) >= len(search.candidates):
            return
        feature = search.best()
        if feature is not None:
            search.add(feature)
            search.remove(feature)

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


class _KeptPairs:
    """A target's :class:`~paucity.info.counts.PairCounter` that keeps the counts of the last features it counted.

    The pair entropies H(x_j, s) and H(x_j, s, y) of a gene ``s`` depend on the groups, not on the objective: every
    search on the same target (CIFE, JMI, mRMR, ... against the same groups) asks for the same ones, and undoing a
    removal asks again. The arrays handed out are read-only and shared. The all-groups target also keeps each
    gene's count tables (up to :data:`KEPT_TABLE_BYTES`): a target of one group against the rest (``source``,
    with a counter :meth:`~paucity.info.counts.PairCounter.folded` from the all-groups one) sums them into its
    own instead of counting over the cells again.
    """

    def __init__(self, counter: PairCounter, limit: int = KEPT_PAIRS, source: _KeptPairs | None = None):
        self.counter = counter
        self._limit = limit
        self._source = source
        self._kept: OrderedDict = OrderedDict()
        self._tables: OrderedDict = OrderedDict()
        self._table_bytes = 0

    def entropies(self, feature: int, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        feature = int(feature)
        found = self._kept.get(feature)
        if found is not None and (found[0] is columns or np.array_equal(found[0], columns)):
            self._kept.move_to_end(feature)
            return found[1], found[2]
        if self._source is not None:
            tables = self.counter.fold(*self._source.tables(feature))
        else:
            tables = self.tables(feature)
        pair, with_labels = self.counter.entropies_of(*tables, columns)
        pair.flags.writeable = with_labels.flags.writeable = False
        self._kept[feature] = (columns, pair, with_labels)
        while len(self._kept) > self._limit:
            self._kept.popitem(last=False)
        return pair, with_labels

    def tables(self, feature: int) -> tuple[np.ndarray, np.ndarray]:
        """The counter's :meth:`~paucity.info.counts.PairCounter.tables` of ``feature``, kept for the next ask."""
        found = self._tables.get(feature)
        if found is not None:
            self._tables.move_to_end(feature)
            return found
        tables = self.counter.tables(feature)
        size = tables[0].nbytes + tables[1].nbytes
        if size <= KEPT_TABLE_BYTES:
            self._tables[feature] = tables
            self._table_bytes += size
            while self._table_bytes > KEPT_TABLE_BYTES:
                _, (pairs, count_s) = self._tables.popitem(last=False)
                self._table_bytes -= pairs.nbytes + count_s.nbytes
        return tables


def _discard_all(copies: list) -> None:
    """Remove the staged copies in ``copies`` (emptied)."""
    while copies:
        copies.pop().discard()


def _entropies_of_tables(reference: np.ndarray, binned: BinnedMatrix) -> dict:
    """H(x_j) and H(x_j, y) of every gene from a counter's reference tables (``reference[j, b * n_codes + y]``:
    the cells with x_j = b and label y), with the counting kernels' fixed-point sums, so that they equal the
    counted ones to the bit; keyed as :func:`~paucity.info.candidate_interactions` keys them."""
    from ..info._kernels import FIXED_SCALE

    n, xlogx = binned.n_samples, binned.xlogx
    joint = reference.reshape(reference.shape[0], binned.n_bins, -1)

    def entropies(counts: np.ndarray) -> np.ndarray:
        acc = xlogx[counts.reshape(counts.shape[0], -1)].sum(axis=1)
        return ((xlogx[n] - acc) / FIXED_SCALE) / n

    return {frozenset(): entropies(joint.sum(axis=2)), frozenset({"y"}): entropies(joint)}


def _row_major(binned: BinnedMatrix) -> tuple[np.ndarray, np.ndarray]:
    """The bins row by row, as :class:`~paucity.info.counts.PairCounter` reads them (its ``row_major``): row pointers,
    and the (column, bin) cell ``column * n_bins + bin`` of each stored value in row order. Built once (a million
    cells: 1.6 s, where scipy's one-pass conversion took 13 s) and shared by every target's counter."""
    csc = sp.csc_matrix((binned.data, binned.indices, binned.indptr), shape=(binned.n_samples, binned.n_features))
    csr = to_csr(csc)
    n_cells = binned.n_features * binned.n_bins
    cell_type = np.uint16 if n_cells <= 2**16 else np.int32 if n_cells < 2**31 else np.int64
    cells = csr.indices.astype(cell_type)
    cells *= cell_type(binned.n_bins)
    cells += csr.data
    return csr.indptr.astype(np.int64, copy=False), cells


def _shared_information(binned: BinnedMatrix, x: int, s: int) -> float:
    """I(x; s) in bits, from the joint counts of the two columns over the rows where x is stored (non-zero).

    The rows where x is 0 hold what the rest leaves of s's counts, so the pass reads x's stored values and
    one dense copy of s: no kernel (nothing to compile on a machine's first run), a millisecond at 200,000
    cells. In floating point, which the page's three decimals do not tell from the kernels' fixed point.
    """
    n, n_bins = binned.n_samples, binned.n_bins
    start, stop = binned.indptr[x], binned.indptr[x + 1]
    rows, bins = binned.indices[start:stop], binned.data[start:stop].astype(np.int64)
    column = binned.column(s)
    joint = np.bincount(bins * n_bins + column[rows], minlength=n_bins * n_bins).reshape(n_bins, n_bins)
    counts_s = np.bincount(binned.data[binned.indptr[s]:binned.indptr[s + 1]], minlength=n_bins)
    counts_s[0] = n - counts_s[1:].sum()
    joint[0] = counts_s - joint[1:].sum(axis=0)  # the rows where x is 0

    def entropy(counts: np.ndarray) -> float:
        counts = counts[counts > 0].astype(np.float64)
        return float(np.log2(n) - (counts * np.log2(counts)).sum() / n)

    return entropy(joint.sum(axis=1)) + entropy(joint.sum(axis=0)) - entropy(joint.ravel())


def _stratified_folds(codes: np.ndarray, n_classes: int, n_folds: int, random_state: int) -> np.ndarray:
    """The fold (0 to ``n_folds`` - 1) of every cell: each group's cells dealt to the folds in a random order, so
    that every fold holds each group's share (to one cell)."""
    rng = np.random.default_rng(random_state)
    fold = np.empty(codes.shape[0], dtype=np.int64)
    for group in range(n_classes):
        members = np.flatnonzero(codes == group)
        fold[members[rng.permutation(members.shape[0])]] = np.arange(members.shape[0]) % n_folds
    return fold


def _nearest_centroid_error(X, codes: np.ndarray, n_classes: int, fold: np.ndarray, columns=None,
                            kept_sums: dict | None = None) -> float:
    """One minus the mean accuracy over the folds of a nearest-centroid classifier trained on the other folds.

    The classifier reads the genes ``columns`` of ``X`` (cells x genes, sparse or dense; every gene when None).
    The centroids of each fold come from the per-(fold, group) sums, and a cell's nearest centroid minimises
    ``|c|^2 - 2 x.c``. A CSC matrix is read where it lies, in two passes over the chosen genes' stored values:
    the sums are a weighted count per gene; each cell's products with the centroids of the fold it is tested
    in are added up block by block of cells, and every fold is scored in the same pass
    (:func:`paucity.markers._kernels.nearest_centroid_hits`). No row or column of X is copied: at a million
    cells, slicing the selected genes, widening their values and keeping every cell's products took 0.1 s of
    the page's wait after every change. ``kept_sums`` (a dict, filled as it goes) keeps each gene's sums per
    (fold, group) for the next call with the same ``X``, codes and folds: a selection one gene larger then sums
    one gene. Every group needs cells outside every fold.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.repeat([0, 1], 50)
    >>> X = np.c_[codes * 10.0 + np.random.default_rng(0).normal(size=100)]
    >>> float(_nearest_centroid_error(X, codes, 2, _stratified_folds(codes, 2, 5, 0)))
    0.0
    """
    import numba

    from ._kernels import nearest_centroid_hits

    if columns is None:
        columns = np.arange(X.shape[1])
    columns = np.sort(np.asarray(columns, dtype=np.int64))
    if not (sp.issparse(X) and X.format == "csc" and X.has_sorted_indices):
        X, columns, kept_sums = sp.csc_matrix(X[:, columns]), np.arange(columns.shape[0], dtype=np.int64), None
        X.sort_indices()
    if kept_sums is None:
        kept_sums = {}
    n_folds = int(fold.max()) + 1
    n_codes = n_folds * n_classes
    cell = fold * n_classes + codes
    sizes = np.bincount(cell, minlength=n_codes).reshape(n_folds, n_classes).astype(np.float64)
    k = columns.shape[0]
    sums = np.empty((n_codes, k))
    for t, j in enumerate(columns.tolist()):
        if j not in kept_sums:
            rows, values = X.indices[X.indptr[j]:X.indptr[j + 1]], X.data[X.indptr[j]:X.indptr[j + 1]]
            kept_sums[j] = np.bincount(cell[rows], weights=values, minlength=n_codes)
        sums[:, t] = kept_sums[j]
    sums = sums.reshape(n_folds, n_classes, k)
    trained = sizes.sum(axis=0)[None, :] - sizes  # (fold, group): the group's cells outside the fold
    centroids = np.ascontiguousarray((sums.sum(axis=0)[None] - sums) / trained[:, :, None])  # (fold, group, gene)
    norms = np.ascontiguousarray((centroids * centroids).sum(axis=2))
    n_chunks = max(1, numba.get_num_threads())
    hits = np.zeros((n_chunks, n_folds), dtype=np.int64)
    nearest_centroid_hits(X.indptr.astype(np.int64, copy=False), X.indices, X.data, columns,
                          np.ascontiguousarray(fold, dtype=np.int64), np.ascontiguousarray(codes, dtype=np.int64),
                          np.ascontiguousarray(centroids.transpose(0, 2, 1)), norms, n_chunks, hits)
    return float(1.0 - np.mean(hits.sum(axis=0) / sizes.sum(axis=1)))


def _json_value(value):
    """A value of the journal that JSON does not know (NumPy's numbers) as a plain one."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


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
