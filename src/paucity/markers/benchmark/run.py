"""The benchmark's loop: every (fold, method, n) selected, classified and stored, then the full-data selections."""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..._deprecation import renamed_parameter
from ..._errors import ParameterError, ShapeMismatchError
from ..._progress import progress_bar
from ...info.discretize import N_BINS
from ..._validation import (
    BOOLEAN,
    N_JOBS,
    Instance,
    Interval,
    Options,
    check_labels,
    check_matrix,
    check_parameter,
)
from .classifiers import CLASSIFIERS, classification_error
from .folds import Folds, check_class_sizes, check_folds_cover_classes, make_folds
from .interactions import pair_interactions
from .methods import DEFAULT_METHODS, BenchmarkMethod, resolve_methods, timed_call, timed_selection, warm_up
from .results import TABLE_COLUMNS, BenchmarkResult, overlap_table
from .seeds import check_seed, derived_seed
from .store import (
    PARAMS_VERSION,
    check_params,
    fingerprint,
    folds_digest,
    load_unit,
    save_unit,
    stored_table,
    unit_path,
    unit_rows,
    write_params,
)

__all__ = ["DEFAULT_N_FEATURES", "run_benchmark"]

DEFAULT_N_FEATURES = (5, 10, 20, 50, 100)
"""The numbers of features :func:`run_benchmark` selects when not told (the seed's, §2.6.2)."""


def run_benchmark(
    X,
    y,
    *,
    n_features: int | Sequence[int] | None = None,
    n_folds: int = 5,
    methods=DEFAULT_METHODS,
    classifiers: Sequence[str] = CLASSIFIERS,
    random_state=0,
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
    n_markers: Sequence[int] | None = None,
    cosg_python=None,
) -> BenchmarkResult:
    """Cross-validate marker selection methods by the classification error of their markers.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Non-negative counts, cells in rows; sparse input stays sparse.
    y : array-like of shape (n_samples,)
        Class labels; samples without a label are left out with a warning.
    n_features : int or sequence of int, optional
        The numbers n of features (markers) each method selects; default
        :data:`DEFAULT_N_FEATURES`, (5, 10, 20, 50, 100). Each is at least 1
        and at most the number of columns of X.
    n_folds : int, default=5
        Number of stratified cross-validation folds (at least 2); ignored
        when ``folds`` is given.
    methods : sequence, default=DEFAULT_METHODS
        Names, callables or :class:`BenchmarkMethod` objects; see
        :func:`resolve_methods`. The default runs MIM, JMI and CIFE in both
        modes, mRMR, scanpy's t-test (overestimated variance), Wilcoxon and
        logistic regression, random-forest importance and a random draw.
    classifiers : sequence of {"random_forest", "nearest_centroids"}, default both
    random_state : int, numpy.random.Generator or None, default=0
        Seeds the folds, the random forests and the random baseline: a rerun
        with the same int gives the same table (but for the seconds). The
        run needs one integer seed that ``params.json`` records (so that it
        can be resumed): a Generator is drawn from once, at the start, for
        it, and None draws it from fresh entropy; rerun with the recorded
        ``random_state`` of ``params.json`` to resume such a run.
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
        Also select ``max(n_features)`` genes with each method on all the
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
        The most threads for the counting kernels and the random forests
        (None or -1: the idle cores); results do not depend on it.
    progress : bool, default=False
        A progress bar per fold and method.
    n_markers : sequence of int, optional
        Deprecated old name of ``n_features`` (a ``FutureWarning``); give
        ``n_features`` instead.
    cosg_python : str or path-like, optional
        The Python of a virtual environment with COSG installed, for the
        method ``"cosg"`` (default: the environment variable
        ``PAUCITY_COSG_PYTHON``); see
        :mod:`~paucity.markers.benchmark.anchors`. Its seconds are those
        COSG's process measures around its normalization and selection.

    Returns
    -------
    BenchmarkResult

    Raises
    ------
    InputError
        When a class has fewer members than folds (before any work).
    ParameterError
        When a parameter is out of range (``random_state`` a negative int or
        one of 2**32 or more, ``n_features`` larger than X has columns...),
        or ``out`` is a file or holds results of a run with other parameters,
        or ``"cosg"`` is asked for without a Python that can run it.

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
    and float64 respectively), COSG a temporary file of them that its own
    process reads; the classifiers densify only the selected columns (cells x
    markers).

    Examples
    --------
    >>> from paucity.datasets import make_scrna_counts
    >>> from paucity.markers.benchmark import run_benchmark
    >>> data = make_scrna_counts(n_cells=150, n_genes=40, n_types=3, n_markers=12, random_state=0)
    >>> result = run_benchmark(data.X, data.labels, n_features=[3], n_folds=3, methods=["mim", "random"],
    ...                        classifiers=["nearest_centroids"], full_data=False)
    >>> result.table.shape
    (6, 8)
    >>> summary = result.summary().set_index("method")["error_rate"]
    >>> bool(summary["mim"] < summary["random"])
    True
    """
    # validation: everything is checked before anything is computed or written
    n_features = renamed_parameter("run_benchmark", "n_markers", n_markers, "n_features", n_features)
    X = check_matrix(X, name="X", nonnegative=True, sparse_format="csr")
    n_samples, n_columns = X.shape
    codes, classes, keep = check_labels(y, n_samples, name="y")
    if keep is not None:
        X = X[np.flatnonzero(keep)]
    samples = np.arange(n_samples).astype(str) if sample_names is None else np.asarray(sample_names, dtype=str)
    if samples.shape[0] != n_samples:
        raise ShapeMismatchError(f"sample_names has {samples.shape[0]} names but X has {n_samples} rows.")
    if keep is not None:
        samples = samples[keep]
    names = np.arange(n_columns).astype(str) if feature_names is None else np.asarray(feature_names, dtype=str)
    if names.shape[0] != n_columns:
        raise ShapeMismatchError(f"feature_names has {names.shape[0]} names but X has {n_columns} columns.")
    n_features = _check_n_features(n_features, n_columns)
    classifiers = _check_classifiers(classifiers)
    # the one integer seed of the run (drawn once here from a Generator or fresh entropy), recorded in params.json
    random_state = check_seed(random_state, owner="run_benchmark")
    n_bins = int(check_parameter(n_bins, "n_bins", [N_BINS], owner="run_benchmark"))
    prefilter = check_parameter(
        prefilter, "prefilter", [Interval(numbers.Integral, 1, None), None], owner="run_benchmark",
        hint="It is how many top-MIM features the bivariate objectives choose among (None: all).",
    )
    n_top = int(check_parameter(
        n_top, "n_top", [Interval(numbers.Integral, 2, None)], owner="run_benchmark",
        hint="It is how many top features enter the I(x_i; x_j; y) diagnostic (at least one pair).",
    ))
    check_parameter(n_jobs, "n_jobs", [N_JOBS], owner="run_benchmark")
    full_data = bool(check_parameter(full_data, "full_data", [BOOLEAN], owner="run_benchmark"))
    progress = bool(check_parameter(progress, "progress", [BOOLEAN], owner="run_benchmark"))
    check_parameter(extra_params, "extra_params", [Instance(dict, description="a dict"), None], owner="run_benchmark")
    check_parameter(
        folds, "folds", [Instance(Folds), Instance(str, os.PathLike, description="the path of a folds.csv"), None],
        owner="run_benchmark",
    )
    out = None if out is None else _check_out(out)
    methods = resolve_methods(methods, n_bins=n_bins, prefilter=prefilter, n_jobs=n_jobs, cosg_python=cosg_python)
    saved_folds = out / "folds.csv" if out is not None else None

    if folds is None:
        # a new split from the seed, or the one saved by the run being resumed
        n_folds = int(check_parameter(
            n_folds, "n_folds", [Interval(numbers.Integral, 2, None)], owner="run_benchmark",
            hint="It is the number of cross-validation folds, e.g. 5.",
        ))
        check_class_sizes(codes, classes, n_folds)
        if saved_folds is not None and saved_folds.exists():
            folds = Folds.load(saved_folds, samples=samples)
        else:
            folds = make_folds(codes, n_folds, random_state=random_state, samples=samples)
    else:
        if not isinstance(folds, Folds):  # a path (checked above)
            folds = Folds.load(folds, samples=samples)
        elif folds.fold_of.shape[0] != codes.shape[0]:
            raise ShapeMismatchError(f"folds assigns {folds.fold_of.shape[0]} samples but X has {codes.shape[0]} labelled rows.")
        n_folds = folds.n_folds
    check_folds_cover_classes(folds, codes, classes)
    run_folds = _check_run_folds(run_folds, folds.n_folds)

    params = {
        "version": PARAMS_VERSION,
        "n_features": list(n_features),
        "n_folds": n_folds,
        "methods": [f"{m.key}:{m.mode}" for m in methods],
        "classifiers": list(classifiers),
        "random_state": random_state,
        "n_bins": n_bins,
        "prefilter": prefilter,
        "n_top": n_top,
        "folds": folds_digest(folds.fold_of),
        "data": fingerprint(X, codes, classes, names, samples),
        **(extra_params or {}),
    }
    params = json.loads(json.dumps(params))  # as it reads back from the file
    if out is not None:
        check_params(out, params)

    # the work
    from ...io import write_csv

    if out is not None:
        write_params(out, params)
        if not saved_folds.exists():
            folds.save(saved_folds)
    library_size = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    rows = []
    for fold in run_folds:
        train, test = folds.train_indices(fold), folds.test_indices(fold)
        X_train, y_train = X[train], codes[train]
        for method in methods:
            description = f"fold {fold + 1}/{n_folds} · {method.label}"
            with progress_bar(len(n_features), description, progress) as bar:
                for n in n_features:
                    path = None if out is None else unit_path(out, fold, method.key, n)
                    unit = load_unit(path)
                    if unit is None or not all(c in unit["errors"] for c in classifiers):
                        unit = _run_unit(
                            method, X, X_train, y_train, codes, train, test, n, fold, classifiers,
                            random_state, library_size, names, n_jobs,
                        )
                        save_unit(path, unit)
                    rows += unit_rows(unit, method, n, fold, classifiers)
                    bar.advance()
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    if out is not None:
        table = stored_table(out, methods, n_features, n_folds, classifiers, table)
        write_csv(table, out / "results.csv", index=False)

    selections = runtimes = overlap = interactions = None
    if full_data:
        selections, runtimes = _full_data_selections(
            X, codes, methods, max(n_features), random_state, names, out, n_folds, progress
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
        n_features=n_features,
        methods=methods,
    )


_AT_LEAST_ONE = Interval(numbers.Integral, 1, None)


def _check_n_features(n_features, n_columns: int) -> tuple:
    """The distinct numbers of features to select, sorted; each in 1 .. n_columns."""
    if n_features is None:
        n_features = DEFAULT_N_FEATURES
    hint = "It is the numbers of features (markers) each method selects, e.g. [5, 10, 20]."
    n_features = check_parameter(
        n_features, "n_features",
        [_AT_LEAST_ONE, Instance(list, tuple, range, np.ndarray, description="a list of such integers")],
        owner="run_benchmark", hint=hint,
    )
    values = [n_features] if isinstance(n_features, numbers.Integral) else _items(n_features)
    values = [int(check_parameter(n, "n_features", [_AT_LEAST_ONE], owner="run_benchmark", hint=hint)) for n in values]
    if not values:
        raise ParameterError(f"run_benchmark: n_features is empty. {hint}")
    too_many = sorted(n for n in set(values) if n > n_columns)
    if too_many:
        from ..._spelling import owner_prefix, spelled

        raise ParameterError(
            f"{owner_prefix('run_benchmark')}{spelled('n_features')} asks for {' and '.join(map(str, too_many))} "
            "markers but the data has "
            f"{n_columns} genes (columns of X); ask for at most {n_columns}."
        )
    return tuple(sorted(set(values)))


def _items(values) -> list:
    """The entries of a list, tuple, range or 1-D array (numpy integers as Python ints)."""
    return np.ravel(values).tolist() if isinstance(values, np.ndarray) else list(values)


def _check_classifiers(classifiers) -> tuple:
    """The distinct classifiers, in the order given; one name alone is accepted too."""
    choices = Options(*CLASSIFIERS)
    hint = "Use random_forest, nearest_centroids or both."
    classifiers = check_parameter(
        classifiers, "classifiers", [choices, Instance(list, tuple, description="a list of them")],
        owner="run_benchmark", hint=hint,
    )
    if isinstance(classifiers, str):  # one name (the constraint held)
        classifiers = [classifiers]
    chosen = tuple(dict.fromkeys(check_parameter(c, "classifier", [choices], hint=hint) for c in classifiers))
    if not chosen:
        raise ParameterError(f"run_benchmark: no classifiers given. {hint}")
    return chosen


def _check_run_folds(run_folds, n_folds: int) -> tuple:
    """The folds to run, sorted and distinct; all of them when None."""
    if run_folds is None:
        return tuple(range(n_folds))
    hint = f"Folds are numbered 0 to {n_folds - 1}."
    check_parameter(
        run_folds, "run_folds", [Instance(list, tuple, range, np.ndarray, description="a list of fold numbers"), None],
        owner="run_benchmark", hint=hint,
    )
    within = Interval(numbers.Integral, 0, n_folds - 1)
    chosen = [int(check_parameter(k, "run_folds", [within], owner="run_benchmark", hint=hint)) for k in _items(run_folds)]
    if not chosen:
        raise ParameterError(f"run_benchmark: run_folds is empty; give None for every fold. {hint}")
    return tuple(sorted(set(chosen)))


def _check_out(out) -> Path:
    """The result folder: a path that is not a file (it is created, with its parents, when missing)."""
    check_parameter(out, "out", [Instance(str, os.PathLike, description="the path of a folder")], owner="run_benchmark")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ParameterError(f"run_benchmark: out {out} is a file, not a folder; give a folder for the results.")
    return out


def _run_unit(method, X, X_train, y_train, codes, train, test, n, fold, classifiers, random_state, library_size, names, n_jobs):
    """One (fold, method, n): select on the training rows (timed), then score with every classifier."""
    seed = derived_seed(random_state, fold, 0)
    warm_up(method, X_train, y_train)
    selected, seconds = timed_call(method, X_train, y_train, n, seed)
    classifier_seed = derived_seed(random_state, fold, 1)
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


def _full_data_selections(X, codes, methods: Sequence[BenchmarkMethod], n, random_state, names, out, n_folds, progress):
    """Each method's n markers on all the cells, with its run time (Tables 2.2-2.5, Figure 2.6)."""
    picks, times = [], []
    seed = derived_seed(random_state, n_folds, 0)
    with progress_bar(len(methods), f"all {X.shape[0]} cells · n={n}", progress) as bar:
        for method in methods:
            path = None if out is None else unit_path(out, "all", method.key, n)
            unit = load_unit(path)
            if unit is None:
                # built-in methods: best of up to 3 runs within 2 s, as sub-second timings are noisy
                selected, seconds = timed_selection(method, X, codes, n, seed)
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
                save_unit(path, unit)
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
