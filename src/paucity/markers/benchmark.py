"""The cross-validation benchmark of marker selection methods (seed 000, §2.6.2).

The protocol, with no leakage between folds:

1. split the cells into k stratified folds (seeded; the split can be saved
   and reloaded, see :class:`Folds`);
2. for each fold, on the *other* folds only: select n markers with each
   method, then train a random forest and a nearest-centroid classifier on
   those markers, and predict the cells of the fold;
3. report the error rate of every (method, n, fold, classifier) in a tidy
   table, with the number of markers actually used (binary methods merge
   ⌈n/c⌉ per class and may give fewer, Remark 1) and the selection time.

:func:`run_benchmark` runs it on arrays, :func:`run_benchmark_adata` on an
AnnData; with ``out=`` every (fold, method, n) result is a file written
atomically, so an interrupted run resumes where it stopped and the folds can be
split across jobs. Besides the cross-validation, each method also selects
``max(n_markers)`` genes on all the cells (the seed's Tables 2.2-2.5 of genes
in common and its Figure 2.6 of run times), and :func:`pair_interactions`
gives the histogram of I(x_i; x_j; y) over pairs of top features (Figure 2.7).
The figures are drawn by :mod:`paucity.markers.benchmark_plots`.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import re
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._errors import InputError, ParameterError, ReaderError, ShapeMismatchError
from .._progress import progress_bar
from .._validation import check_choice, check_labels, check_matrix, check_positive_int
from .objectives import SUPERVISED, UNSUPERVISED

__all__ = [
    "AVAILABLE_METHODS",
    "BenchmarkMethod",
    "BenchmarkResult",
    "CLASSIFIERS",
    "DEFAULT_METHODS",
    "Folds",
    "PairInteractions",
    "classification_error",
    "make_folds",
    "merge_per_class",
    "method_label",
    "overlap_table",
    "pair_interactions",
    "resolve_methods",
    "run_benchmark",
    "run_benchmark_adata",
    "summarize",
]

INFORMATION_METHODS = SUPERVISED + UNSUPERVISED
"""The paucity objectives the benchmark can run: the supervised ones in multiclass and binary mode,
``entropy`` and ``entropy2`` (which ignore the labels) in multiclass mode only."""
SCANPY_METHODS = ("t-test", "t-test_overestim_var", "wilcoxon", "logreg")
"""``scanpy.tl.rank_genes_groups`` methods (one-vs-rest, so binary)."""
AVAILABLE_METHODS = (
    *INFORMATION_METHODS,
    *(f"{name}-binary" for name in SUPERVISED),
    *SCANPY_METHODS,
    "random_forest",
    "random",
)
"""Every method name :func:`resolve_methods` knows; ``NAME-binary`` is NAME in binary mode."""
DEFAULT_METHODS = (
    "mim",
    "jmi",
    "cife",
    "mim-binary",
    "jmi-binary",
    "cife-binary",
    "mrmr",
    "t-test_overestim_var",
    "wilcoxon",
    "logreg",
    "random_forest",
    "random",
)
"""The methods run by default: the seed's comparison (§2.6), plus mRMR and a random baseline."""
CLASSIFIERS = ("random_forest", "nearest_centroids")
"""The classifiers of §2.6.2."""
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
"""Columns of the tidy table of :func:`run_benchmark`."""

_LIBRARY_SIZE = 1000.0  # counts per cell before log1p for the random forest (§2.6.2)
_N_COMPONENTS = 30  # principal components of the nearest-centroid classifier (§2.6.2)
_N_TREES = 100
_NEGATIVE_TOLERANCE = 1e-9  # I(x_i; x_j; y) below -tolerance counts as negative
_KEY_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_PARAMS_VERSION = 1


# --- folds ---------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Folds:
    """An assignment of samples to cross-validation folds.

    Attributes
    ----------
    fold_of : numpy.ndarray of int64, shape (n_samples,)
        The fold (0 .. n_folds - 1) each sample is tested in.
    n_folds : int
    samples : numpy.ndarray of str, shape (n_samples,)
        Sample (cell) names, so that a saved split is matched to the data by
        name when reloaded.
    random_state : int or None
        The seed that made the split (None when loaded from a file that does
        not say).
    """

    fold_of: np.ndarray
    n_folds: int
    samples: np.ndarray
    random_state: int | None = None

    def train_indices(self, fold: int) -> np.ndarray:
        """Rows used to select and to train when testing on ``fold``."""
        return np.flatnonzero(self.fold_of != fold)

    def test_indices(self, fold: int) -> np.ndarray:
        """Rows of ``fold``."""
        return np.flatnonzero(self.fold_of == fold)

    def save(self, path) -> None:
        """Write the split as a CSV (``sample,fold``), atomically.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from paucity.markers.benchmark import Folds, make_folds
        >>> folds = make_folds(["a", "b"] * 6, n_folds=3, random_state=0)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "folds.csv"
        >>> folds.save(path)
        >>> Folds.load(path).fold_of.tolist() == folds.fold_of.tolist()
        True
        """
        from ..io import write_csv

        table = pd.DataFrame({"sample": self.samples, "fold": self.fold_of})
        write_csv(table, path, index=False)

    @classmethod
    def load(cls, path, *, samples=None) -> Folds:
        """Read a split written by :meth:`save`.

        Parameters
        ----------
        path : str or path-like
        samples : sequence of str, optional
            The names of the data's samples: the split is reordered to them,
            and an error is raised when the file lists other samples.
        """
        path = Path(path)
        if not path.is_file():
            raise ReaderError(f"folds file {path} does not exist.")
        try:
            table = pd.read_csv(path, dtype={"sample": str})
        except Exception as exc:
            raise ReaderError(f"could not read {path} as a folds file: {type(exc).__name__}: {exc}") from None
        if list(table.columns[:2]) != ["sample", "fold"]:
            raise ReaderError(f"{path} is not a folds file: its columns must be 'sample,fold'.")
        fold = pd.to_numeric(table["fold"], errors="coerce")
        if fold.isna().any() or (fold < 0).any() or (fold % 1 != 0).any():
            raise ReaderError(f"{path}: the fold column must hold integers 0, 1, ...")
        fold_of = fold.to_numpy().astype(np.int64)
        names = table["sample"].astype(str).to_numpy()
        if samples is not None:
            samples = np.asarray(samples, dtype=str)
            position = pd.Index(names)
            if position.has_duplicates:
                raise ReaderError(f"{path} lists a sample more than once.")
            where = position.get_indexer(samples)
            if len(names) != len(samples) or (where < 0).any():
                missing = [str(name) for name in samples[where < 0][:3]]
                raise ShapeMismatchError(
                    f"{path} assigns {len(names)} samples to folds and the data has {len(samples)}"
                    + (f"; it does not list {', '.join(map(repr, missing))}" if missing else "")
                    + ". Use a folds file made for these data."
                )
            fold_of, names = fold_of[where], samples
        n_folds = int(fold_of.max()) + 1 if fold_of.size else 0
        if n_folds < 2 or len(np.unique(fold_of)) != n_folds:
            raise ReaderError(f"{path} must use every fold 0 .. k-1 with k >= 2; it uses {sorted(set(fold_of.tolist()))}.")
        return cls(fold_of=fold_of, n_folds=n_folds, samples=names)


def _check_class_sizes(codes: np.ndarray, classes, n_folds: int) -> None:
    sizes = np.bincount(codes, minlength=len(classes))
    smallest = int(np.argmin(sizes))
    if sizes[smallest] < n_folds:
        small = [f"{classes[t]!r} ({int(sizes[t])})" for t in np.flatnonzero(sizes < n_folds)]
        raise InputError(
            f"class {classes[smallest]!r} has {int(sizes[smallest])} member(s), fewer than the {n_folds} folds, so some "
            f"fold would have no {classes[smallest]!r} to test on or train with (classes below {n_folds}: "
            f"{', '.join(small)}). Use fewer folds, or drop or merge the small classes."
        )


def make_folds(labels, n_folds: int = 5, *, random_state: int = 0, samples=None) -> Folds:
    """Split samples into stratified folds.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The class of each sample; every class needs at least ``n_folds``
        members.
    n_folds : int, default=5
    random_state : int, default=0
        Seed of the shuffle; the same seed and labels give the same folds.
    samples : sequence of str, optional
        Sample names (default ``"0"``, ``"1"``, ...), kept for :meth:`Folds.save`.

    Returns
    -------
    Folds

    Raises
    ------
    InputError
        When a class has fewer members than folds (naming the class and its
        size), or a label is missing.

    Notes
    -----
    Seed 000, §2.6.2, step 1, with :class:`sklearn.model_selection.StratifiedKFold`
    (shuffled, seeded) so that each fold holds every class in proportion.

    Examples
    --------
    >>> from paucity.markers.benchmark import make_folds
    >>> folds = make_folds(["B"] * 6 + ["T"] * 9, n_folds=3, random_state=0)
    >>> [int((folds.fold_of == k).sum()) for k in range(3)]
    [5, 5, 5]
    >>> folds.test_indices(0).size + folds.train_indices(0).size
    15
    """
    from sklearn.model_selection import StratifiedKFold

    n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
    random_state = _check_seed(random_state)
    series = pd.Series(np.asarray(labels).ravel() if not isinstance(labels, pd.Series) else labels.to_numpy())
    if series.isna().any():
        raise InputError(f"labels has {int(series.isna().sum())} missing value(s); every sample needs a class to be put in a fold.")
    codes, classes = pd.factorize(series, sort=True)
    if len(classes) < 2:
        raise InputError("labels has one class only; at least 2 classes are needed for a classification benchmark.")
    _check_class_sizes(codes, np.asarray(classes), n_folds)
    n = codes.shape[0]
    samples = np.arange(n).astype(str) if samples is None else np.asarray(samples, dtype=str)
    if samples.shape[0] != n:
        raise ShapeMismatchError(f"samples has {samples.shape[0]} names but labels has {n} entries.")
    fold_of = np.empty(n, dtype=np.int64)
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    for k, (_, test) in enumerate(splitter.split(np.zeros((n, 1)), codes)):
        fold_of[test] = k
    return Folds(fold_of=fold_of, n_folds=n_folds, samples=samples, random_state=random_state)


def _check_seed(random_state) -> int:
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) or random_state < 0:
        raise ParameterError(
            f"random_state must be a non-negative integer (it is recorded so that a run can be resumed), got {random_state!r}."
        )
    return int(random_state)


def _derived_seed(random_state: int, *keys: int) -> int:
    """A 31-bit seed for one stream of the run (fold, purpose), from the user's seed."""
    return int(np.random.SeedSequence([random_state, *keys]).generate_state(1)[0] >> 1)


# --- methods ---------------------------------------------------------------------


@dataclass(frozen=True)
class BenchmarkMethod:
    """A marker selection method the benchmark can run.

    Attributes
    ----------
    key : str
        The name it is asked for by (``"cife-binary"``); names its result files.
    name : str
        The method column of the table (``"cife"``).
    mode : {"multiclass", "binary"}
        ``"binary"`` for one-vs-rest methods, which take ⌈n/c⌉ per class.
    select : callable
        ``select(X, y, n_features, random_state=...) -> indices``: X holds the
        training rows only (sparse CSR or dense, as given), y their class
        codes 0..c-1; returns the selected column indices.
    family : str
        ``"information"``, ``"differential expression"``, ``"random forest"``,
        ``"random"`` or ``"custom"``; decides where the method is drawn.
    """

    key: str
    name: str
    mode: str
    select: Callable
    family: str = "custom"

    @property
    def label(self) -> str:
        """Display name, as the seed's tables write it (``"CIFE (B)"``)."""
        return method_label(self.name, self.mode)


def method_label(name: str, mode: str) -> str:
    """Display name of a method: ``method_label("cife", "binary") == "CIFE (B)"``."""
    labels = {
        "t-test": "t-test",
        "t-test_overestim_var": "t-test (ov)",
        "wilcoxon": "Wilcoxon",
        "logreg": "LogReg",
        "random_forest": "RForest",
        "random": "Random",
    }
    if name in INFORMATION_METHODS:
        return name.upper() + (" (B)" if mode == "binary" else "")
    return labels.get(name, name)


def merge_per_class(rankings: Sequence[np.ndarray], n_per_class: int) -> np.ndarray:
    """The top ``n_per_class`` of every class's ranking, merged round robin without duplicates.

    Parameters
    ----------
    rankings : sequence of numpy.ndarray of int
        One ranking (best first) per class.
    n_per_class : int

    Returns
    -------
    numpy.ndarray of int64
        First the best of every class, then the second, ...; a feature
        already taken is skipped, so there may be fewer than
        ``len(rankings) * n_per_class``.

    Notes
    -----
    Seed 000, §2.6.2, Remark 1.

    Examples
    --------
    >>> from paucity.markers.benchmark import merge_per_class
    >>> merge_per_class([[4, 1, 0], [4, 2, 1]], 2).tolist()
    [4, 1, 2]
    """
    merged, seen = [], set()
    for rank in range(n_per_class):
        for ranking in rankings:
            if rank < len(ranking):
                feature = int(ranking[rank])
                if feature not in seen:
                    seen.add(feature)
                    merged.append(feature)
    return np.array(merged, dtype=np.int64)


def _information_select(name: str, mode: str, n_bins: int, prefilter: int | None, n_jobs):
    def select(X, y, n_features, random_state=None):
        from .selector import InfoSelector

        selector = InfoSelector(
            method=name, n_features=n_features, mode=mode, n_bins=n_bins, prefilter=prefilter, n_jobs=n_jobs
        )
        return selector.fit(X, y if name in SUPERVISED else None).selected_

    return select


def _normalized_log(X):
    """X scaled to the median count per cell, then log1p (scanpy's normalize_total and log1p), on a copy."""
    import anndata
    import scanpy as sc

    adata = anndata.AnnData(X.astype(np.float32, copy=True))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Some cells have zero counts")
        sc.pp.normalize_total(adata)
    sc.pp.log1p(adata)
    return adata


def _scanpy_select(method: str):
    def select(X, y, n_features, random_state=None):
        import scanpy as sc

        n_classes = int(y.max()) + 1
        per_class = math.ceil(n_features / n_classes)
        adata = _normalized_log(X)
        groups = [f"class{t}" for t in range(n_classes)]
        adata.obs["group"] = pd.Categorical.from_codes(y, categories=groups)
        two_class_logreg = method == "logreg" and n_classes == 2
        n_genes = adata.n_vars if two_class_logreg else per_class
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sc.tl.rank_genes_groups(adata, "group", method=method, n_genes=n_genes, use_raw=False)
        names = adata.uns["rank_genes_groups"]["names"]
        rankings = [np.asarray(names[g]).astype(np.int64) for g in names.dtype.names]
        if two_class_logreg:
            # one coefficient vector: its top genes mark one class, its bottom genes the other
            rankings = [rankings[0][:per_class], rankings[0][::-1][:per_class]]
        return merge_per_class(rankings, per_class)

    return select


def _random_forest_input(X, library_size: np.ndarray | None = None):
    """Counts scaled to 1,000 per cell, then log1p (sparse stays sparse)."""
    if library_size is None:
        library_size = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    scale = np.divide(_LIBRARY_SIZE, library_size, out=np.zeros_like(library_size), where=library_size > 0)
    if sp.issparse(X):
        scaled = sp.csr_matrix(sp.diags(scale) @ X, dtype=np.float64)
        scaled.data = np.log1p(scaled.data)
        return scaled
    return np.log1p(np.asarray(X, dtype=np.float64) * scale[:, None])


def _random_forest_select(n_jobs):
    def select(X, y, n_features, random_state=None):
        from sklearn.ensemble import RandomForestClassifier

        forest = RandomForestClassifier(n_estimators=_N_TREES, random_state=random_state, n_jobs=_sklearn_jobs(n_jobs))
        forest.fit(_random_forest_input(X), y)
        return np.argsort(-forest.feature_importances_, kind="stable")[:n_features]

    return select


def _random_select(X, y, n_features, random_state=None):
    return np.random.default_rng(random_state).permutation(X.shape[1])[:n_features]


def _sklearn_jobs(n_jobs):
    return -1 if n_jobs is None else n_jobs


def resolve_methods(methods=DEFAULT_METHODS, *, n_bins: int = 5, prefilter: int | None = 5000, n_jobs=None):
    """The methods to benchmark, from names, callables or :class:`BenchmarkMethod` objects.

    Parameters
    ----------
    methods : sequence of (str, callable or BenchmarkMethod), default=DEFAULT_METHODS
        A name of :data:`AVAILABLE_METHODS` (``"cife"``, ``"cife-binary"``,
        ``"wilcoxon"``, ``"random_forest"``, ...); a callable
        ``f(X, y, n_features)`` (optionally taking ``random_state=``) that
        returns column indices, named by its ``__name__``; or a
        :class:`BenchmarkMethod` for full control (binary mode, name).
    n_bins, prefilter, n_jobs
        Passed to :class:`~paucity.markers.InfoSelector` for the paucity
        objectives (``n_jobs`` also to the random forest).

    Returns
    -------
    tuple of BenchmarkMethod

    Notes
    -----
    Seed 000, §2.6: the information-theoretic methods (with the recursive
    quantile binning of §2.7.1 and the MIM prefilter of Remark 2), scanpy's
    t-test with overestimated variance, Wilcoxon rank sum and logistic
    regression (after ``normalize_total`` and ``log1p`` on a copy, the top
    ⌈n/c⌉ genes of each class merged, Remark 1), and random-forest feature
    importance; ``random`` is a baseline the seed does not run.

    Examples
    --------
    >>> from paucity.markers.benchmark import resolve_methods
    >>> [(m.name, m.mode) for m in resolve_methods(["cife", "cife-binary", "wilcoxon"])]
    [('cife', 'multiclass'), ('cife', 'binary'), ('wilcoxon', 'binary')]
    """
    if isinstance(methods, (str, BenchmarkMethod)) or callable(methods):
        methods = [methods]
    resolved = []
    for item in methods:
        if isinstance(item, BenchmarkMethod):
            check_choice(item.mode, ("multiclass", "binary"), "mode")
            resolved.append(item)
        elif isinstance(item, str):
            key = check_choice(item.strip(), AVAILABLE_METHODS, "benchmark method")
            resolved.append(_builtin(key, n_bins, prefilter, n_jobs))
        elif callable(item):
            name = getattr(item, "__name__", None) or type(item).__name__  # a function, or a callable object
            name = "custom" if name == "<lambda>" else name
            resolved.append(BenchmarkMethod(key=name, name=name, mode="multiclass", select=item, family="custom"))
        else:
            raise ParameterError(
                f"a benchmark method must be a name, a callable or a BenchmarkMethod, got {item!r}."
            )
    if not resolved:
        raise ParameterError("no methods to benchmark; give at least one.")
    keys = [m.key for m in resolved]
    for method in resolved:
        if not _KEY_PATTERN.match(method.key):
            raise ParameterError(
                f"method name {method.key!r} cannot name a result file; use letters, digits and _ . + - only."
            )
        if keys.count(method.key) > 1:
            raise ParameterError(f"method {method.key!r} is listed twice; give each method once.")
    if any(m.family == "differential expression" for m in resolved):
        try:
            import scanpy  # noqa: F401
        except ImportError:
            listed = ", ".join(m.key for m in resolved if m.family == "differential expression")
            raise ImportError(
                f"the methods {listed} call scanpy, which is not installed. Install it with "
                "`pip install paucity[scanpy]`, or leave them out of the methods."
            ) from None
    return tuple(resolved)


def _builtin(key: str, n_bins, prefilter, n_jobs) -> BenchmarkMethod:
    if key.endswith("-binary"):
        name = key.removesuffix("-binary")
        return BenchmarkMethod(key, name, "binary", _information_select(name, "binary", n_bins, prefilter, n_jobs), "information")
    if key in INFORMATION_METHODS:
        return BenchmarkMethod(key, key, "multiclass", _information_select(key, "multiclass", n_bins, prefilter, n_jobs), "information")
    if key in SCANPY_METHODS:
        return BenchmarkMethod(key, key, "binary", _scanpy_select(key), "differential expression")
    if key == "random_forest":
        return BenchmarkMethod(key, key, "multiclass", _random_forest_select(n_jobs), "random forest")
    return BenchmarkMethod(key, key, "multiclass", _random_select, "random")


def _call_method(method: BenchmarkMethod, X, y, n_features: int, random_state: int) -> np.ndarray:
    try:
        accepts_seed = "random_state" in inspect.signature(method.select).parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(method.select).parameters.values()
        )
    except (TypeError, ValueError):
        accepts_seed = False
    if accepts_seed:
        chosen = method.select(X, y, n_features, random_state=random_state)
    else:
        chosen = method.select(X, y, n_features)
    chosen = np.asarray(chosen).ravel()
    n_columns = X.shape[1]
    if chosen.dtype == bool and chosen.shape[0] == n_columns:
        chosen = np.flatnonzero(chosen)
    if chosen.size == 0:
        raise InputError(f"method {method.key!r} selected no features for n={n_features}; it must return column indices.")
    if chosen.dtype.kind not in "iu" or chosen.min() < 0 or chosen.max() >= n_columns:
        raise InputError(
            f"method {method.key!r} returned {chosen[:5].tolist()}...; it must return column indices in 0..{n_columns - 1}."
        )
    if len(np.unique(chosen)) != chosen.size:
        raise InputError(f"method {method.key!r} returned the same column twice; return distinct column indices.")
    return chosen.astype(np.int64)


# --- classifiers -------------------------------------------------------------------


def classification_error(
    X,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    selected: np.ndarray,
    classifier: str,
    *,
    random_state: int = 0,
    library_size: np.ndarray | None = None,
    n_jobs=None,
) -> float:
    """Error rate on ``test`` of a classifier trained on ``train``, using the ``selected`` columns only.

    Parameters
    ----------
    X : numpy.ndarray or scipy.sparse matrix of shape (n_samples, n_features)
        Counts.
    y : numpy.ndarray of int
        Class codes.
    train, test : numpy.ndarray of int
        Row indices.
    selected : numpy.ndarray of int
        Columns (markers) the classifier sees.
    classifier : {"random_forest", "nearest_centroids"}
    random_state : int
        Seed of the random forest.
    library_size : numpy.ndarray, optional
        Total count of each row over *all* columns (default: computed from X),
        for the random forest's scaling to 1,000 counts per cell.
    n_jobs : int or None
        Threads of the random forest (None: all cores); the result does not
        depend on it.

    Returns
    -------
    float
        #(wrongly classified) / #(test samples).

    Notes
    -----
    Seed 000, §2.6.2: the random forest (scikit-learn, 100 trees) sees the
    counts scaled to 1,000 per cell (the cell's total over all genes, a
    per-cell quantity, so nothing leaks between rows) then ``log1p``; the
    nearest-centroid classifier sees ``log1p`` of the counts projected onto
    the top 30 principal components of the training rows (fewer when fewer
    markers were selected). Only the selected columns are densified.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark import classification_error
    >>> y = np.repeat([0, 1], 20)
    >>> X = np.column_stack([10.0 * y + 1, np.ones(40)])
    >>> classification_error(X, y, np.arange(0, 40, 2), np.arange(1, 40, 2), np.array([0]), "nearest_centroids")
    0.0
    """
    classifier = check_choice(classifier, CLASSIFIERS, "classifier")
    columns = X[:, selected]
    columns = columns.toarray() if sp.issparse(columns) else np.asarray(columns)
    columns = columns.astype(np.float64, copy=False)
    if classifier == "random_forest":
        from sklearn.ensemble import RandomForestClassifier

        if library_size is None:
            library_size = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
        features = _random_forest_input(columns, library_size)
        model = RandomForestClassifier(n_estimators=_N_TREES, random_state=random_state, n_jobs=_sklearn_jobs(n_jobs))
        model.fit(features[train], y[train])
        predicted = model.predict(features[test])
    else:
        from sklearn.decomposition import PCA
        from sklearn.neighbors import NearestCentroid

        features = np.log1p(columns)
        if not np.any(np.ptp(features[train], axis=0) > 0):
            # markers constant on the training rows: every centroid is the same point, and the tie
            # goes to the first class, as nearest centroids' argmin does
            predicted = np.full(test.shape[0], np.min(y[train]))
        else:
            n_components = min(_N_COMPONENTS, features.shape[1], train.shape[0])
            pca = PCA(n_components=n_components, svd_solver="full").fit(features[train])
            with warnings.catch_warnings():
                # sklearn's note that a class has a constant coordinate, and the division it makes of it,
                # concern its shrinkage statistics only, not the centroids used here
                warnings.filterwarnings("ignore", message=".*within_class_std_dev_", category=UserWarning)
                warnings.filterwarnings("ignore", category=RuntimeWarning, module="sklearn")
                model = NearestCentroid().fit(pca.transform(features[train]), y[train])
            predicted = model.predict(pca.transform(features[test]))
    return float(np.mean(predicted != y[test]))


# --- the I(x_i; x_j; y) diagnostic -------------------------------------------------


@dataclass(frozen=True, eq=False)
class PairInteractions:
    """I(x_i; x_j; y) over the pairs of the top features (the seed's Figure 2.7).

    Attributes
    ----------
    features : numpy.ndarray of int64
        The top features by I(x; y), best first.
    first, second : numpy.ndarray of int64
        The two features of each pair (column indices).
    values : numpy.ndarray of float64
        I(x_i; x_j; y) in bits: positive for redundancy, negative for synergy.
    """

    features: np.ndarray
    first: np.ndarray
    second: np.ndarray
    values: np.ndarray

    @property
    def negative_fraction(self) -> float:
        """Fraction of pairs with I(x_i; x_j; y) < 0, where Corollary 2.14's hypothesis fails."""
        if self.values.size == 0:
            return 0.0
        return float(np.mean(self.values < -_NEGATIVE_TOLERANCE))

    def to_frame(self, feature_names=None) -> pd.DataFrame:
        """The pairs as a table (``feature_i``, ``feature_j``, ``interaction``; gene names when given)."""
        table = pd.DataFrame({"feature_i": self.first, "feature_j": self.second, "interaction": self.values})
        if feature_names is not None:
            names = np.asarray(feature_names, dtype=str)
            table.insert(2, "gene_i", names[self.first])
            table.insert(3, "gene_j", names[self.second])
        return table


def pair_interactions(X, y, *, n_top: int = 100, n_bins: int | None = 5, n_jobs=None) -> PairInteractions:
    """I(x_i; x_j; y) for every pair of the ``n_top`` features of highest I(x; y).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Counts (binned here), or bins when ``n_bins=None``.
    y : array-like of shape (n_samples,)
        Class labels.
    n_top : int, default=100
        Features taken, by decreasing I(x; y) (ties: lowest index); gives
        n_top (n_top - 1) / 2 pairs.
    n_bins : int or None, default=5
        Bins of the recursive-quantile discretization; None when X is
        already discretized.
    n_jobs : int or None
        Threads of the counting kernels.

    Returns
    -------
    PairInteractions
        With ``negative_fraction``, the share of pairs that break the
        hypothesis I(x_i; x_j; y) >= 0 of Corollary 2.14 (CIFE's guarantee).

    Notes
    -----
    Seed 000, Figure 2.7 and Corollary 2.14; I(x_i; x_j; y) =
    I(x_i; x_j) - I(x_i; x_j | y) (Proposition 2.1), counted on the binned
    data with :func:`paucity.info.candidate_interactions`, one pass per top
    feature.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark import pair_interactions
    >>> x1 = np.tile([0, 0, 1, 1], 25); x2 = np.tile([0, 1, 0, 1], 25)
    >>> result = pair_interactions(np.column_stack([x1, x2]), x1 ^ x2, n_bins=None)
    >>> result.values.tolist(), result.negative_fraction        # XOR: pure synergy
    ([-1.0], 1.0)
    """
    from .._parallel import kernel_threads
    from .._validation import check_discrete_matrix
    from ..info import BinnedMatrix, candidate_interactions
    from ..info.discretize import discretize_validated

    n_top = check_positive_int(n_top, "n_top", minimum=2)
    if n_bins is None:
        X = check_discrete_matrix(X, name="X")
    else:
        n_bins = check_positive_int(n_bins, "n_bins", maximum=255, maximum_name="the largest bin count")
        X = check_matrix(X, name="X", nonnegative=True, sparse_format="csc")
    codes, classes, keep = check_labels(y, X.shape[0], name="y")
    with kernel_threads(n_jobs):
        if n_bins is not None:
            X = discretize_validated(X, n_bins)
        binned = BinnedMatrix.from_binned(X)
        if keep is not None:
            binned = binned.restrict_rows(keep)
        n_classes = len(classes)
        columns = np.arange(binned.n_features, dtype=np.int64)
        relevance = candidate_interactions(binned, [codes], [n_classes], columns)
        top = np.argsort(-relevance, kind="stable")[: min(n_top, binned.n_features)].astype(np.int64)
        first, second, values = [], [], []
        for position, feature in enumerate(top[:-1]):
            others = top[position + 1 :]
            fixed = [binned.column(int(feature)).astype(np.int64), codes]
            values.append(candidate_interactions(binned, fixed, [binned.n_bins, n_classes], others))
            first.append(np.full(others.shape[0], feature, dtype=np.int64))
            second.append(others)
    if not values:
        empty = np.zeros(0, dtype=np.int64)
        return PairInteractions(features=top, first=empty, second=empty, values=np.zeros(0))
    return PairInteractions(
        features=top, first=np.concatenate(first), second=np.concatenate(second), values=np.concatenate(values)
    )


# --- the run -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BenchmarkResult:
    """The outcome of :func:`run_benchmark`.

    Attributes
    ----------
    table : pandas.DataFrame
        The tidy table: ``method``, ``mode``, ``n_requested``, ``n_used``,
        ``fold``, ``classifier``, ``error_rate``, ``selection_seconds``; one
        row per (method, n, fold, classifier) that has been run.
    folds : Folds
    selections : pandas.DataFrame or None
        The genes each method selects on all the cells at ``max(n_markers)``
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
    n_markers : tuple of int
    methods : tuple of BenchmarkMethod
    """

    table: pd.DataFrame
    folds: Folds
    selections: pd.DataFrame | None
    runtimes: pd.DataFrame | None
    overlap: pd.DataFrame | None
    interactions: PairInteractions | None
    feature_names: np.ndarray
    n_markers: tuple
    methods: tuple = field(default=())

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


def _fingerprint(X, labels_codes, classes, feature_names, samples) -> dict:
    def digest(*arrays) -> str:
        h = hashlib.sha256()
        for arr in arrays:
            h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()[:16]

    return {
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "labels": digest(labels_codes, np.asarray([str(c) for c in classes]).astype("U")),
        "feature_names": digest(np.asarray(feature_names).astype("U")),
        "samples": digest(np.asarray(samples).astype("U")),
        "total": float(f"{float(X.sum()):.9g}"),
    }


def _check_params(out: Path, params: dict) -> None:
    path = out / "params.json"
    if not path.exists():
        if (out / "results").exists():
            raise ParameterError(
                f"{out} holds benchmark results but no params.json, so they cannot be checked against this run; "
                "use an empty folder for --out."
            )
        return
    try:
        previous = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ParameterError(f"{path} cannot be read ({exc}); use an empty folder for --out.") from None
    if previous == params:
        return
    keys = sorted(set(previous) | set(params))
    changed = [key for key in keys if previous.get(key) != params.get(key)]
    described = "; ".join(f"{key}: {_short(previous.get(key))} there, {_short(params.get(key))} now" for key in changed)
    raise ParameterError(
        f"{out} holds a benchmark run with different parameters ({described}); refusing to mix their results. "
        "Resume with the same parameters, or use a new --out folder."
    )


def _short(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _unit_path(out: Path, fold, key: str, n: int) -> Path:
    folder = "all" if fold == "all" else f"fold{fold}"
    return out / "results" / folder / f"{key}-n{n}.json"


def _load_unit(path: Path | None) -> dict | None:
    if path is None or not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # unreadable: recomputed and rewritten


def run_benchmark(
    X,
    y,
    *,
    n_markers: Sequence[int] = (5, 10, 20, 50, 100),
    n_folds: int = 5,
    methods=DEFAULT_METHODS,
    classifiers: Sequence[str] = CLASSIFIERS,
    random_state: int = 0,
    out=None,
    folds: Folds | str | Path | None = None,
    run_folds: Sequence[int] | None = None,
    full_data: bool = True,
    n_top: int = 100,
    n_bins: int = 5,
    prefilter: int | None = 5000,
    feature_names=None,
    sample_names=None,
    extra_params: dict | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> BenchmarkResult:
    """Cross-validate marker selection methods by the classification error of their markers.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Non-negative counts, cells in rows; sparse input stays sparse.
    y : array-like of shape (n_samples,)
        Class labels; samples without a label are left out with a warning.
    n_markers : sequence of int, default=(5, 10, 20, 50, 100)
        Numbers of markers n to select.
    n_folds : int, default=5
    methods : sequence, default=DEFAULT_METHODS
        Names, callables or :class:`BenchmarkMethod` objects; see
        :func:`resolve_methods`. The default runs MIM, JMI and CIFE in both
        modes, mRMR, scanpy's t-test (overestimated variance), Wilcoxon and
        logistic regression, random-forest importance and a random draw.
    classifiers : sequence of {"random_forest", "nearest_centroids"}, default both
    random_state : int, default=0
        Seeds the folds, the random forests and the random baseline: a rerun
        gives the same table (but for the seconds).
    out : str or path-like, optional
        Folder for the results. Each (fold, method, n) result is a JSON file
        written atomically under ``out/results``; a later call with the same
        parameters skips what is there, and one with different parameters is
        refused (``out/params.json``). The split is saved as
        ``out/folds.csv``, and the tables as ``results.csv``,
        ``selections.csv``, ``runtimes.csv``, ``overlap.csv`` and
        ``interactions.csv``.
    folds : Folds or path, optional
        A split to use (e.g. the ``folds.csv`` of another run) instead of a
        new one from ``random_state``.
    run_folds : sequence of int, optional
        Run these folds only (to split a run across jobs sharing ``out``);
        default all.
    full_data : bool, default=True
        Also select ``max(n_markers)`` genes with each method on all the
        cells (for the tables of genes in common and the run times) and
        compute the I(x_i; x_j; y) diagnostic.
    n_top : int, default=100
        Top features of the I(x_i; x_j; y) diagnostic.
    n_bins, prefilter
        Discretization and MIM prefilter of the paucity objectives.
    feature_names, sample_names : sequence of str, optional
        Names of the columns and rows (default their positions).
    extra_params : dict, optional
        More parameters to record in ``params.json`` (the CLI adds the input
        file's ``groupby``, ``layer``...).
    n_jobs : int or None
        Threads of the counting kernels and the random forests; results do
        not depend on it.
    progress : bool, default=False
        A progress bar per fold and method.

    Returns
    -------
    BenchmarkResult

    Raises
    ------
    InputError
        When a class has fewer members than folds (before any work).
    ParameterError
        When ``out`` holds results of a run with other parameters.

    Notes
    -----
    Seed 000, §2.6.2. For each fold k, every method selects n markers on the
    rows outside fold k only (the binning of the information methods, the
    normalization of scanpy's, everything); binary methods take ⌈n/c⌉ per
    class and the count actually used is recorded (Remark 1); bivariate
    objectives choose among the 5,000 genes of highest MIM score (Remark 2).
    Then both classifiers are trained on those rows and markers and tested on
    fold k (see :func:`classification_error`).

    Memory: each fold copies its training rows (sparse stays sparse); the
    scanpy and random-forest methods make one normalized copy of them (float32
    and float64 respectively); the classifiers densify only the selected
    columns (cells x markers).

    Examples
    --------
    >>> from paucity.datasets import make_scrna_counts
    >>> from paucity.markers.benchmark import run_benchmark
    >>> data = make_scrna_counts(n_cells=150, n_genes=40, n_types=3, n_markers=12, random_state=0)
    >>> result = run_benchmark(data.X, data.labels, n_markers=[3], n_folds=3, methods=["mim", "random"],
    ...                        classifiers=["nearest_centroids"], full_data=False)
    >>> result.table.shape
    (6, 8)
    >>> summary = result.summary().set_index("method")["error_rate"]
    >>> bool(summary["mim"] < summary["random"])
    True
    """
    # validation: everything is checked before anything is computed or written
    X = check_matrix(X, name="X", nonnegative=True, sparse_format="csr")
    n_samples, n_features = X.shape
    codes, classes, keep = check_labels(y, n_samples, name="y")
    if keep is not None:
        X = X[np.flatnonzero(keep)]
    samples = np.arange(n_samples).astype(str) if sample_names is None else np.asarray(sample_names, dtype=str)
    if samples.shape[0] != n_samples:
        raise ShapeMismatchError(f"sample_names has {samples.shape[0]} names but X has {n_samples} rows.")
    if keep is not None:
        samples = samples[keep]
    names = np.arange(n_features).astype(str) if feature_names is None else np.asarray(feature_names, dtype=str)
    if names.shape[0] != n_features:
        raise ShapeMismatchError(f"feature_names has {names.shape[0]} names but X has {n_features} columns.")
    n_markers = _check_n_markers(n_markers, n_features)
    classifiers = tuple(dict.fromkeys(check_choice(c, CLASSIFIERS, "classifier") for c in classifiers))
    if not classifiers:
        raise ParameterError("no classifiers given; use random_forest, nearest_centroids or both.")
    random_state = _check_seed(random_state)
    n_bins = check_positive_int(n_bins, "n_bins", maximum=255, maximum_name="the largest bin count")
    prefilter = None if prefilter is None else check_positive_int(prefilter, "prefilter")
    n_top = check_positive_int(n_top, "n_top", minimum=2)
    methods = resolve_methods(methods, n_bins=n_bins, prefilter=prefilter, n_jobs=n_jobs)
    out = None if out is None else Path(out)
    saved_folds = out / "folds.csv" if out is not None else None

    if folds is None:
        # a new split from the seed, or the one saved by the run being resumed
        n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
        _check_class_sizes(codes, classes, n_folds)
        if saved_folds is not None and saved_folds.exists():
            folds = Folds.load(saved_folds, samples=samples)
        else:
            folds = make_folds(codes, n_folds, random_state=random_state, samples=samples)
    else:
        if not isinstance(folds, Folds):
            folds = Folds.load(folds, samples=samples)
        elif folds.fold_of.shape[0] != codes.shape[0]:
            raise ShapeMismatchError(f"folds assigns {folds.fold_of.shape[0]} samples but X has {codes.shape[0]} labelled rows.")
        n_folds = folds.n_folds
    _check_folds_cover_classes(folds, codes, classes)
    if run_folds is None:
        run_folds = tuple(range(folds.n_folds))
    else:
        run_folds = tuple(sorted({int(k) for k in run_folds}))
        bad = [k for k in run_folds if not 0 <= k < folds.n_folds]
        if bad:
            raise ParameterError(f"fold {bad[0]} does not exist; folds are numbered 0 to {folds.n_folds - 1}.")

    params = {
        "version": _PARAMS_VERSION,
        "n_markers": list(n_markers),
        "n_folds": n_folds,
        "methods": [f"{m.key}:{m.mode}" for m in methods],
        "classifiers": list(classifiers),
        "random_state": random_state,
        "n_bins": n_bins,
        "prefilter": prefilter,
        "n_top": n_top,
        "folds": hashlib.sha256(folds.fold_of.tobytes()).hexdigest()[:16],
        "data": _fingerprint(X, codes, classes, names, samples),
        **(extra_params or {}),
    }
    params = json.loads(json.dumps(params))  # as it reads back from the file
    if out is not None:
        if out.exists() and not out.is_dir():
            raise ParameterError(f"--out {out} is a file, not a folder.")
        _check_params(out, params)

    # the work
    from ..io import write_csv, write_text

    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_text(json.dumps(params, indent=2, sort_keys=True) + "\n", out / "params.json")
        if not saved_folds.exists():
            folds.save(saved_folds)
    library_size = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    rows = []
    for fold in run_folds:
        train, test = folds.train_indices(fold), folds.test_indices(fold)
        X_train, y_train = X[train], codes[train]
        for method in methods:
            description = f"fold {fold + 1}/{n_folds} · {method.label}"
            with progress_bar(len(n_markers), description, progress) as bar:
                for n in n_markers:
                    path = None if out is None else _unit_path(out, fold, method.key, n)
                    unit = _load_unit(path)
                    if unit is None or not all(c in unit["errors"] for c in classifiers):
                        unit = _run_unit(
                            method, X, X_train, y_train, codes, train, test, n, fold, classifiers,
                            random_state, library_size, names, n_jobs,
                        )
                        if path is not None:
                            path.parent.mkdir(parents=True, exist_ok=True)
                            write_text(json.dumps(unit) + "\n", path)
                    for classifier in classifiers:
                        rows.append(
                            (method.name, method.mode, n, unit["n_used"], fold, classifier,
                             unit["errors"][classifier], unit["selection_seconds"])
                        )
                    bar.advance()
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    if out is not None:
        table = _all_results(out, methods, n_markers, n_folds, classifiers, table)
        write_csv(table, out / "results.csv", index=False)

    selections = runtimes = overlap = interactions = None
    if full_data:
        selections, runtimes = _full_data_selections(
            X, codes, methods, max(n_markers), random_state, names, out, n_folds, progress
        )
        overlap = overlap_table(selections, methods)
        with progress_bar(None, "I(x_i; x_j; y) of the top features", progress):
            interactions = pair_interactions(X, codes, n_top=n_top, n_bins=n_bins, n_jobs=n_jobs)
        if out is not None:
            write_csv(selections, out / "selections.csv", index=False)
            write_csv(runtimes, out / "runtimes.csv", index=False)
            write_csv(overlap, out / "overlap.csv")
            write_csv(interactions.to_frame(names), out / "interactions.csv", index=False)
    return BenchmarkResult(
        table=table,
        folds=folds,
        selections=selections,
        runtimes=runtimes,
        overlap=overlap,
        interactions=interactions,
        feature_names=names,
        n_markers=n_markers,
        methods=methods,
    )


def _check_n_markers(n_markers, n_features: int) -> tuple:
    if isinstance(n_markers, (int, np.integer)) and not isinstance(n_markers, bool):
        n_markers = [n_markers]
    values = [check_positive_int(n, "n_markers") for n in n_markers]
    if not values:
        raise ParameterError("n_markers is empty; give at least one number of markers, e.g. 5,10,20.")
    too_many = [n for n in values if n > n_features]
    if too_many:
        raise ParameterError(
            f"n_markers asks for {too_many[0]} markers but the data has {n_features} genes; ask for fewer markers."
        )
    return tuple(sorted(set(values)))


def _check_folds_cover_classes(folds: Folds, codes, classes) -> None:
    for fold in range(folds.n_folds):
        present = np.unique(codes[folds.train_indices(fold)])
        if present.shape[0] < len(classes):
            missing = min(set(range(len(classes))) - set(present.tolist()))
            size = int(np.sum(codes == missing))
            raise InputError(
                f"class {classes[missing]!r} ({size} member(s)) has no member outside fold {fold}, so the methods "
                "could not learn it there; use a split with every class in every training set."
            )


_WARM: set = set()


def _warm_up(method: BenchmarkMethod, X, y) -> None:
    """Call a built-in method once, untimed, on a few cells, so that its timed runs do not include compilation.

    numba's kernels (paucity's, and scanpy's Wilcoxon) are compiled or loaded
    from cache on their first call in a process, which would otherwise be
    charged to whichever fold runs first. User methods are never called more
    than the protocol asks.
    """
    if method.family == "custom" or method.key in _WARM:
        return
    _WARM.add(method.key)
    rows = np.concatenate([np.flatnonzero(y == t)[:15] for t in range(int(y.max()) + 1)])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            method.select(X[rows], y[rows], min(2, X.shape[1]), random_state=0)
    except Exception:  # a warm-up only; the timed run reports any real problem
        pass


def _run_unit(method, X, X_train, y_train, codes, train, test, n, fold, classifiers, random_state, library_size, names, n_jobs):
    seed = _derived_seed(random_state, fold, 0)
    _warm_up(method, X_train, y_train)
    start = time.perf_counter()
    selected = _call_method(method, X_train, y_train, n, seed)
    seconds = time.perf_counter() - start
    classifier_seed = _derived_seed(random_state, fold, 1)
    errors = {
        classifier: classification_error(
            X, codes, train, test, selected, classifier, random_state=classifier_seed,
            library_size=library_size, n_jobs=n_jobs,
        )
        for classifier in classifiers
    }
    return {
        "method": method.name,
        "mode": method.mode,
        "n_requested": int(n),
        "n_used": int(selected.size),
        "fold": int(fold),
        "selected": selected.tolist(),
        "genes": names[selected].tolist(),
        "selection_seconds": seconds,
        "errors": errors,
    }


def _all_results(out: Path, methods, n_markers, n_folds, classifiers, table) -> pd.DataFrame:
    """Every finished result in out (other jobs' folds too), as the tidy table."""
    rows = []
    for fold in range(n_folds):
        for method in methods:
            for n in n_markers:
                unit = _load_unit(_unit_path(out, fold, method.key, n))
                if unit is None:
                    continue
                for classifier in classifiers:
                    if classifier in unit["errors"]:
                        rows.append(
                            (method.name, method.mode, n, unit["n_used"], fold, classifier,
                             unit["errors"][classifier], unit["selection_seconds"])
                        )
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS)) if rows else table


def _full_data_selections(X, codes, methods, n, random_state, names, out, n_folds, progress):
    """Each method's n markers on all the cells, with its run time (Tables 2.2-2.5, Figure 2.6)."""
    from ..io import write_text

    picks, times = [], []
    seed = _derived_seed(random_state, n_folds, 0)
    with progress_bar(len(methods), f"all {X.shape[0]} cells · n={n}", progress) as bar:
        for method in methods:
            path = None if out is None else _unit_path(out, "all", method.key, n)
            unit = _load_unit(path)
            if unit is None:
                _warm_up(method, X, codes)
                start = time.perf_counter()
                selected = _call_method(method, X, codes, n, seed)
                seconds = time.perf_counter() - start
                # built-in methods: best of up to 3 runs within 2 s, as sub-second timings are noisy
                spent, repeats = seconds, 1
                while method.family != "custom" and repeats < 3 and spent < 2.0:
                    start = time.perf_counter()
                    _call_method(method, X, codes, n, seed)
                    elapsed = time.perf_counter() - start
                    seconds, spent, repeats = min(seconds, elapsed), spent + elapsed, repeats + 1
                unit = {
                    "method": method.name,
                    "mode": method.mode,
                    "n_requested": int(n),
                    "n_used": int(selected.size),
                    "fold": "all",
                    "selected": selected.tolist(),
                    "genes": names[selected].tolist(),
                    "selection_seconds": seconds,
                }
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_text(json.dumps(unit) + "\n", path)
            selected = np.asarray(unit["selected"], dtype=np.int64)
            picks.append(
                pd.DataFrame(
                    {
                        "method": method.name,
                        "mode": method.mode,
                        "rank": np.arange(1, selected.size + 1),
                        "feature_index": selected,
                        "gene": names[selected],
                    }
                )
            )
            times.append((method.name, method.mode, n, int(selected.size), unit["selection_seconds"]))
            bar.advance()
    selections = pd.concat(picks, ignore_index=True)
    runtimes = pd.DataFrame(times, columns=["method", "mode", "n_requested", "n_used", "selection_seconds"])
    return selections, runtimes


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
        The keywords of :func:`run_benchmark`; ``feature_names`` and
        ``sample_names`` default to the var and obs names.

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
    >>> result = run_benchmark_adata(adata, "cell_type", n_markers=[3], n_folds=3, methods=["cife-binary"],
    ...                              classifiers=["random_forest"], full_data=False)
    >>> sorted(result.table["n_used"].unique().tolist())     # ⌈3/3⌉ = 1 gene per class
    [3]
    """
    from .._anndata import expression_matrix

    if groupby not in adata.obs.columns:
        available = ", ".join(map(repr, adata.obs.columns)) or "none"
        raise InputError(f"groupby {groupby!r} is not a column of adata.obs (columns: {available}).")
    X, var_names = expression_matrix(adata, layer, use_raw)
    kwargs.setdefault("feature_names", np.asarray(var_names, dtype=str))
    kwargs.setdefault("sample_names", np.asarray(adata.obs_names, dtype=str))
    extra = dict(kwargs.pop("extra_params", None) or {})
    extra.setdefault("groupby", groupby)
    extra.setdefault("layer", layer)
    extra.setdefault("use_raw", bool(use_raw) if use_raw is not None else adata.raw is not None and layer is None)
    return run_benchmark(X, adata.obs[groupby].to_numpy(), extra_params=extra, **kwargs)
