"""The benchmark's loop: every (fold, method, n) selected, classified and stored, then the full-data selections."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..._errors import ParameterError, ShapeMismatchError
from ..._progress import progress_bar
from ..._validation import check_choice, check_labels, check_matrix, check_positive_int
from .classifiers import CLASSIFIERS, classification_error
from .folds import Folds, check_class_sizes, check_folds_cover_classes, make_folds
from .interactions import pair_interactions
from .methods import DEFAULT_METHODS, BenchmarkMethod, call_method, resolve_methods, warm_up
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

__all__ = ["run_benchmark"]


def run_benchmark(
    X,
    y,
    *,
    n_markers: Sequence[int] = (5, 10, 20, 50, 100),
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
        When ``out`` holds results of a run with other parameters, or
        ``random_state`` is a negative int.

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
    # the one integer seed of the run (drawn once here from a Generator or fresh entropy), recorded in params.json
    random_state = check_seed(random_state)
    n_bins = check_positive_int(n_bins, "n_bins", maximum=255, maximum_name="the largest bin count")
    prefilter = None if prefilter is None else check_positive_int(prefilter, "prefilter")
    n_top = check_positive_int(n_top, "n_top", minimum=2)
    methods = resolve_methods(methods, n_bins=n_bins, prefilter=prefilter, n_jobs=n_jobs)
    out = None if out is None else Path(out)
    saved_folds = out / "folds.csv" if out is not None else None

    if folds is None:
        # a new split from the seed, or the one saved by the run being resumed
        n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
        check_class_sizes(codes, classes, n_folds)
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
    check_folds_cover_classes(folds, codes, classes)
    if run_folds is None:
        run_folds = tuple(range(folds.n_folds))
    else:
        run_folds = tuple(sorted({int(k) for k in run_folds}))
        bad = [k for k in run_folds if not 0 <= k < folds.n_folds]
        if bad:
            raise ParameterError(f"fold {bad[0]} does not exist; folds are numbered 0 to {folds.n_folds - 1}.")

    params = {
        "version": PARAMS_VERSION,
        "n_markers": list(n_markers),
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
        if out.exists() and not out.is_dir():
            raise ParameterError(f"--out {out} is a file, not a folder.")
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
            with progress_bar(len(n_markers), description, progress) as bar:
                for n in n_markers:
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
        table = stored_table(out, methods, n_markers, n_folds, classifiers, table)
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


def _run_unit(method, X, X_train, y_train, codes, train, test, n, fold, classifiers, random_state, library_size, names, n_jobs):
    """One (fold, method, n): select on the training rows (timed), then score with every classifier."""
    seed = derived_seed(random_state, fold, 0)
    warm_up(method, X_train, y_train)
    start = time.perf_counter()
    selected = call_method(method, X_train, y_train, n, seed)
    seconds = time.perf_counter() - start
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
                warm_up(method, X, codes)
                start = time.perf_counter()
                selected = call_method(method, X, codes, n, seed)
                seconds = time.perf_counter() - start
                # built-in methods: best of up to 3 runs within 2 s, as sub-second timings are noisy
                spent, repeats = seconds, 1
                while method.family != "custom" and repeats < 3 and spent < 2.0:
                    start = time.perf_counter()
                    call_method(method, X, codes, n, seed)
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
