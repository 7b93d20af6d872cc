"""The marker selection methods the benchmark compares: the registry, the baselines and user methods (seed 000, §2.6)."""

from __future__ import annotations

import inspect
import math
import re
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..._errors import InputError, ParameterError, PaucityWarning
from ..._validation import CALLABLE, Instance, check_choice, check_parameter
from ..greedy import merge_per_class
from ..objectives import SUPERVISED, UNSUPERVISED
from .anchors import TimedSelection, cosg_select
from .classifiers import N_TREES, random_forest_input, sklearn_jobs

__all__ = [
    "ANCHOR_METHODS",
    "AVAILABLE_METHODS",
    "DEFAULT_METHODS",
    "INFORMATION_METHODS",
    "SCANPY_METHODS",
    "BenchmarkMethod",
    "TimedSelection",
    "call_method",
    "cosg_method",
    "method_label",
    "resolve_methods",
    "timed_call",
    "timed_selection",
    "warm_up",
]

INFORMATION_METHODS = SUPERVISED + UNSUPERVISED
"""The paucity objectives the benchmark can run: the supervised ones in multiclass and binary mode,
``entropy`` and ``entropy2`` (which ignore the labels) in multiclass mode only."""
SCANPY_METHODS = ("t-test", "t-test_overestim_var", "wilcoxon", "logreg")
"""``scanpy.tl.rank_genes_groups`` methods (one-vs-rest, so binary)."""
ANCHOR_METHODS = ("cosg",)
"""Methods run by another program in a Python environment of its own (one-vs-rest, so binary):
COSG, given its interpreter as ``cosg_python`` (see :mod:`~paucity.markers.benchmark.anchors`)."""
AVAILABLE_METHODS = (
    *INFORMATION_METHODS,
    *(f"{name}-binary" for name in SUPERVISED),
    *SCANPY_METHODS,
    *ANCHOR_METHODS,
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

_KEY_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")  # a key names result files


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
        ``"information"``, ``"differential expression"``, ``"anchor"`` (run
        by another program in its own environment, e.g. COSG), ``"random
        forest"``, ``"random"`` or ``"custom"``.
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
        "cosg": "COSG",
        "random_forest": "RForest",
        "random": "Random",
    }
    if name in INFORMATION_METHODS:
        return name.upper() + (" (B)" if mode == "binary" else "")
    return labels.get(name, name)


# --- the built-in methods ------------------------------------------------------------------


def _information_select(name: str, mode: str, n_bins: int, prefilter: int | None, n_jobs):
    def select(X, y, n_features, random_state=None):
        from ..selector import InfoSelector

        selector = InfoSelector(
            method=name, n_features=n_features, mode=mode, n_bins=n_bins, prefilter=prefilter, n_jobs=n_jobs
        )
        with warnings.catch_warnings():
            # a gene constant on one training fold scores 0 and is not chosen, as the protocol intends;
            # saying so for every fold, method and marker count would bury the warnings that matter
            warnings.filterwarnings("ignore", message=r".*constant after binning", category=PaucityWarning)
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


def _random_forest_select(n_jobs):
    def select(X, y, n_features, random_state=None):
        from sklearn.ensemble import RandomForestClassifier

        forest = RandomForestClassifier(n_estimators=N_TREES, random_state=random_state, n_jobs=sklearn_jobs(n_jobs))
        forest.fit(random_forest_input(X), y)
        return np.argsort(-forest.feature_importances_, kind="stable")[:n_features]

    return select


def _random_select(X, y, n_features, random_state=None):
    return np.random.default_rng(random_state).permutation(X.shape[1])[:n_features]


def cosg_method(python=None, *, runner=None) -> BenchmarkMethod:
    """The method ``"cosg"``: COSG run by ``python`` (else ``$PAUCITY_COSG_PYTHON``) in its own environment.

    Binary (one ranking per cell type, merged ⌈n/c⌉ per class); its
    ``select`` is checked now (see
    :func:`~paucity.markers.benchmark.anchors.cosg_select`, which takes the
    same arguments) and its ``select.versions`` holds COSG's versions.

    Raises
    ------
    ParameterError
        When no interpreter is given, it is not executable, or it cannot
        import COSG.
    """
    return BenchmarkMethod("cosg", "cosg", "binary", cosg_select(python, runner=runner), "anchor")


def _builtin(key: str, n_bins, prefilter, n_jobs, cosg_python) -> BenchmarkMethod:
    if key.endswith("-binary"):
        name = key.removesuffix("-binary")
        return BenchmarkMethod(key, name, "binary", _information_select(name, "binary", n_bins, prefilter, n_jobs), "information")
    if key in INFORMATION_METHODS:
        return BenchmarkMethod(key, key, "multiclass", _information_select(key, "multiclass", n_bins, prefilter, n_jobs), "information")
    if key in SCANPY_METHODS:
        return BenchmarkMethod(key, key, "binary", _scanpy_select(key), "differential expression")
    if key == "cosg":
        return cosg_method(cosg_python)
    if key == "random_forest":
        return BenchmarkMethod(key, key, "multiclass", _random_forest_select(n_jobs), "random forest")
    return BenchmarkMethod(key, key, "multiclass", _random_select, "random")


# --- resolving and calling ----------------------------------------------------------------


def resolve_methods(
    methods=DEFAULT_METHODS, *, n_bins: int = 5, prefilter: int | None = 5000, n_jobs=None, cosg_python=None
):
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
    cosg_python : str or path-like, optional
        The Python of a virtual environment with COSG installed, which runs
        the method ``"cosg"`` (default: the environment variable
        ``PAUCITY_COSG_PYTHON``). Without either, ``"cosg"`` is refused with
        a message saying how to give one; with it, the interpreter is checked
        (COSG must import) before anything else is done.

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
    importance; ``random`` is a baseline the seed does not run, and so is
    COSG (``"cosg"``, Dai et al. 2022), run in its own environment.

    Examples
    --------
    >>> from paucity.markers.benchmark import resolve_methods
    >>> [(m.name, m.mode) for m in resolve_methods(["cife", "cife-binary", "wilcoxon"])]
    [('cife', 'multiclass'), ('cife', 'binary'), ('wilcoxon', 'binary')]
    """
    if isinstance(methods, (str, BenchmarkMethod)) or callable(methods):
        methods = [methods]
    check_parameter(
        methods, "methods", [Instance(list, tuple, np.ndarray, description="a list of methods")],
        hint="Give names (e.g. ['mim', 'cife-binary']), callables f(X, y, n_features) or BenchmarkMethod objects.",
    )
    resolved = []
    for item in np.ravel(methods).tolist() if isinstance(methods, np.ndarray) else methods:
        check_parameter(
            item, "each entry of methods", [Instance(str, BenchmarkMethod, description="a name, a BenchmarkMethod"), CALLABLE],
            hint="A callable takes (X, y, n_features) and returns column indices.",
        )
        if isinstance(item, BenchmarkMethod):
            check_choice(item.mode, ("multiclass", "binary"), "mode")
            resolved.append(item)
        elif isinstance(item, str):
            key = check_choice(item.strip(), AVAILABLE_METHODS, "benchmark method")
            resolved.append(_builtin(key, n_bins, prefilter, n_jobs, cosg_python))
        else:  # a callable (the constraint held)
            name = getattr(item, "__name__", None) or type(item).__name__  # a function, or a callable object
            name = "custom" if name == "<lambda>" else name
            resolved.append(BenchmarkMethod(key=name, name=name, mode="multiclass", select=item, family="custom"))
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


def call_method(method: BenchmarkMethod, X, y, n_features: int, random_state: int) -> np.ndarray:
    """Run ``method.select`` (with ``random_state=`` when it takes one) and check what it returns.

    Returns
    -------
    numpy.ndarray of int64
        Distinct column indices (a boolean mask over the columns is turned
        into them; a :class:`TimedSelection` gives its ``indices``).

    Raises
    ------
    InputError
        When the method selects nothing, returns indices outside the
        columns, or the same column twice.
    """
    return timed_call(method, X, y, n_features, random_state)[0]


def _select(method: BenchmarkMethod, X, y, n_features: int, random_state: int):
    """``method.select``, given ``random_state=`` when it takes one."""
    try:
        parameters = inspect.signature(method.select).parameters.values()
        accepts_seed = any(p.name == "random_state" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    except (TypeError, ValueError):
        accepts_seed = False
    if accepts_seed:
        return method.select(X, y, n_features, random_state=random_state)
    return method.select(X, y, n_features)


def _checked(method: BenchmarkMethod, chosen, n_columns: int, n_features: int) -> np.ndarray:
    """The distinct column indices a method returned, checked."""
    if isinstance(chosen, TimedSelection):
        chosen = chosen.indices
    chosen = np.asarray(chosen).ravel()
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


def timed_call(method: BenchmarkMethod, X, y, n_features: int, random_state: int) -> tuple[np.ndarray, float]:
    """:func:`call_method`, with the seconds of the selection.

    The seconds are the wall-clock time of the call, or, for a method that
    returns a :class:`TimedSelection` (one run in another process), the
    seconds it measured itself.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark.methods import BenchmarkMethod, TimedSelection, timed_call
    >>> method = BenchmarkMethod("fixed", "fixed", "multiclass", lambda X, y, n: TimedSelection(np.arange(n), 0.25))
    >>> indices, seconds = timed_call(method, np.ones((4, 3)), np.array([0, 0, 1, 1]), 2, 0)
    >>> indices.tolist(), seconds
    ([0, 1], 0.25)
    """
    start = time.perf_counter()
    chosen = _select(method, X, y, n_features, random_state)
    seconds = time.perf_counter() - start
    if isinstance(chosen, TimedSelection):
        seconds = float(chosen.seconds)
    return _checked(method, chosen, X.shape[1], n_features), seconds


def timed_selection(method: BenchmarkMethod, X, y, n_features: int, random_state: int, *,
                    repeats: int = 3, budget: float = 2.0) -> tuple[np.ndarray, float]:
    """A method's selection on all the given cells and its seconds, as the seed's Figure 2.6 times it.

    Built-in methods are warmed up first (:func:`warm_up`) and timed as the
    best of up to ``repeats`` runs, stopping once ``budget`` seconds of
    selection have been spent (sub-second timings are noisy); your own
    methods run once.

    Returns
    -------
    (numpy.ndarray of int64, float)
        The column indices of the first run and the best seconds.
    """
    warm_up(method, X, y)
    selected, seconds = timed_call(method, X, y, n_features, random_state)
    spent, done = seconds, 1
    while method.family != "custom" and done < repeats and spent < budget:
        _, elapsed = timed_call(method, X, y, n_features, random_state)
        seconds, spent, done = min(seconds, elapsed), spent + elapsed, done + 1
    return selected, seconds


_WARM: set = set()


def warm_up(method: BenchmarkMethod, X, y) -> None:
    """Call a built-in method once, untimed, on a few cells, so that its timed runs do not include compilation.

    numba's kernels (paucity's, and scanpy's Wilcoxon) are compiled or loaded
    from cache on their first call in a process, which would otherwise be
    charged to whichever fold runs first. User methods are never called more
    than the protocol asks, and anchors warm themselves in their own process.
    """
    if method.family in ("custom", "anchor") or method.key in _WARM:
        return
    _WARM.add(method.key)
    rows = np.concatenate([np.flatnonzero(y == t)[:15] for t in range(int(y.max()) + 1)])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            method.select(X[rows], y[rows], min(2, X.shape[1]), random_state=0)
    except Exception:  # a warm-up only; the timed run reports any real problem
        pass
