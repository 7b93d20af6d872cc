"""Heavy-tailed process classification against scikit-learn's GaussianProcessClassifier: fit and predict times.

Run from the repository root with paucity's development Python, on an otherwise idle machine::

    python benchmarks/gp.py                        # n = 500 and 2,000 training points
    python benchmarks/gp.py --quick                # n = 60 and 120, a check in seconds (not a figure)
    python benchmarks/gp.py --sizes 500 --methods sklearn-fixed hpc-gaussian-fixed

Data: three classes on the torus with dense clusters and isolated points
(``paucity.datasets.torus_classes`` with 10 % isolated points; a generator of the same shape in this
file where paucity does not have it), n training points and ``--n-test`` test points (default 1,000)
from the same draw. Every method gets the same kernel, ``ConstantKernel(1.0) * VonMises(1.0)``, the
seed's kernel for angles (§4.6), with bounds (1e-2, 1e2) on the amplitude and (1e-3, 1e3) on the
concentration:

- ``sklearn-fixed``: ``GaussianProcessClassifier(kernel, optimizer=None)`` (one-vs-rest, three binary
  Laplace GPCs with the kernel as given);
- ``sklearn-optimized``: the same with its default L-BFGS-B on each binary marginal likelihood;
- ``hpc-laplace-optimized``: ``HeavyTailedProcessClassifier(marginal="laplace")``, the kernel and b
  fitted on eq. (4.11);
- ``hpc-gaussian-fixed`` and ``hpc-gaussian-optimized``: ``marginal="gaussian"`` (multiclass Laplace
  GPC), with the kernel as given and fitted.

Every method runs in this process, one after the other, each once per size after an untimed warm-up
fit at n = 40 (imports and first calls). Fit and ``predict_proba`` on the test points are timed
separately (wall-clock and process time; process time counts every thread). Thread counts are left
as the machine's default and recorded (environment variables and threadpoolctl's view of BLAS/OpenMP).
The issue's goals, read from the ratios at n = 2,000: HPC with optimized kernel no slower than 2x
scikit-learn's optimized GPC, and ``marginal="gaussian"`` faster than it. Test accuracy (all test
points and the isolated ones) is recorded beside the times as a check that every method did the
same job.

Writes ``benchmarks/results/gp.json`` (or ``--output``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "gp.json"
SIZES = (500, 2000)
QUICK_SIZES = (60, 120)
METHODS = ("sklearn-fixed", "sklearn-optimized", "hpc-laplace-optimized", "hpc-gaussian-fixed",
           "hpc-gaussian-optimized")
# (numerator, denominator) of the ratios recorded; the goals are on the first two
RATIOS = {
    "hpc_laplace_optimized_over_sklearn_optimized": ("hpc-laplace-optimized", "sklearn-optimized"),
    "hpc_gaussian_optimized_over_sklearn_optimized": ("hpc-gaussian-optimized", "sklearn-optimized"),
    "hpc_gaussian_fixed_over_sklearn_fixed": ("hpc-gaussian-fixed", "sklearn-fixed"),
}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def simple_torus_classes(n: int, seed: int):
    """Three classes on the torus: six tight von Mises clusters and 10 % points uniform on the torus.

    Each cluster has a class; clustered points take it with probability 0.9 (else another class at
    random); isolated points take the class of the nearest centre (angular distance on the torus).
    Returns X (n, 2) in [-pi, pi), y in {0, 1, 2} and the isolated mask.
    """
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-np.pi, np.pi, (6, 2))
    cluster_class = np.arange(6) % 3
    n_isolated = int(round(0.1 * n))
    member = rng.integers(6, size=n - n_isolated)
    dense = centres[member] + rng.vonmises(0.0, 20.0, (n - n_isolated, 2))
    spread = rng.uniform(-np.pi, np.pi, (n_isolated, 2))
    X = np.mod(np.vstack([dense, spread]) + np.pi, 2 * np.pi) - np.pi
    y = np.empty(n, dtype=np.int64)
    y[: n - n_isolated] = cluster_class[member]
    flip = rng.uniform(size=n - n_isolated) < 0.1
    y[: n - n_isolated][flip] = (y[: n - n_isolated][flip] + rng.integers(1, 3, size=flip.sum())) % 3
    gap = np.angle(np.exp(1j * (spread[:, None, :] - centres[None, :, :])))
    y[n - n_isolated:] = cluster_class[np.argmin((gap**2).sum(axis=2), axis=1)]
    isolated = np.arange(n) >= n - n_isolated
    order = rng.permutation(n)
    return X[order], y[order], isolated[order]


def draw(n: int, seed: int):
    """X, y, isolated from paucity's generator where it exists, else from :func:`simple_torus_classes`."""
    try:
        from paucity.datasets import torus_classes
    except ImportError:
        return (*simple_torus_classes(n, seed), "simple_torus_classes (benchmarks/gp.py)")
    X, y, isolated = torus_classes(n, random_state=seed)
    return X, y, isolated, "paucity.datasets.torus_classes"


def kernel(fixed: bool):
    from sklearn.gaussian_process.kernels import ConstantKernel

    from paucity.gp.kernels import VonMises

    if fixed:
        return ConstantKernel(1.0, "fixed") * VonMises(1.0, "fixed")
    return ConstantKernel(1.0, (1e-2, 1e2)) * VonMises(1.0, (1e-3, 1e3))


def estimator(method: str):
    from sklearn.gaussian_process import GaussianProcessClassifier

    from paucity.gp.classification import HeavyTailedProcessClassifier

    if method == "sklearn-fixed":
        return GaussianProcessClassifier(kernel(fixed=True), optimizer=None)
    if method == "sklearn-optimized":
        return GaussianProcessClassifier(kernel(fixed=False), random_state=0)
    if method == "hpc-laplace-optimized":
        return HeavyTailedProcessClassifier(marginal="laplace", kernel=kernel(fixed=False), optimize=True,
                                            random_state=0)
    if method == "hpc-gaussian-fixed":
        return HeavyTailedProcessClassifier(marginal="gaussian", kernel=kernel(fixed=True), optimize=False,
                                            random_state=0)
    if method == "hpc-gaussian-optimized":
        return HeavyTailedProcessClassifier(marginal="gaussian", kernel=kernel(fixed=False), optimize=True,
                                            random_state=0)
    raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")


def fitted_kernel(model) -> str:
    estimators = getattr(getattr(model, "base_estimator_", None), "estimators_", None)
    if estimators is not None:
        # scikit-learn's multiclass GPC: one fitted kernel per one-vs-rest problem
        return "; ".join(repr(e.kernel_) for e in estimators)
    return repr(model.kernel_)


def run(method: str, X, y, X_test, y_test, isolated_test) -> dict:
    model = estimator(method)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    fit_wall, fit_cpu = time.perf_counter() - wall, time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    proba = model.predict_proba(X_test)
    predict_wall, predict_cpu = time.perf_counter() - wall, time.process_time() - cpu
    predicted = model.classes_[proba.argmax(axis=1)]
    row = {
        "method": method,
        "n_train": len(X),
        "n_test": len(X_test),
        "fit_wall_seconds": fit_wall,
        "fit_process_seconds": fit_cpu,
        "predict_wall_seconds": predict_wall,
        "predict_process_seconds": predict_cpu,
        "wall_seconds": fit_wall + predict_wall,
        "process_seconds": fit_cpu + predict_cpu,
        "accuracy": float(np.mean(predicted == y_test)),
        "accuracy_isolated": float(np.mean(predicted[isolated_test] == y_test[isolated_test]))
        if isolated_test.any() else None,
        "log_loss": float(-np.mean(np.log(np.clip(proba[np.arange(len(y_test)), y_test], 1e-300, None)))),
        "fitted_kernel": fitted_kernel(model),
        "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught}),
    }
    if hasattr(model, "b_"):
        row["b"] = float(model.b_)
    return row


def thread_settings() -> dict:
    from threadpoolctl import threadpool_info

    return {
        "environment": {v: os.environ.get(v) for v in THREAD_VARIABLES},
        "pools": [{k: pool.get(k) for k in ("user_api", "internal_api", "num_threads")} for pool in threadpool_info()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 60 and 120 with 200 test points (a check)")
    parser.add_argument("--sizes", type=int, nargs="+", help="training sizes (default 500 2000)")
    parser.add_argument("--n-test", type=int, default=None, help="test points (default 1000; 200 with --quick)")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument("--random-state", type=int, default=0, help="seed of the data draw")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where the JSON goes")
    args = parser.parse_args()
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    n_test = args.n_test or (200 if args.quick else 1000)

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from markers import machine, package_version

    load_before = os.getloadavg()
    X_all, y_all, isolated_all, generator = draw(max(sizes) + n_test, args.random_state)
    X_test, y_test, isolated_test = X_all[-n_test:], y_all[-n_test:], isolated_all[-n_test:]
    for method in args.methods:  # warm-up: imports and first calls, not timed
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator(method).fit(X_all[:40], y_all[:40]).predict_proba(X_test[:5])
    rows = []
    for n in sizes:
        X, y = X_all[:n], y_all[:n]
        for method in args.methods:
            row = run(method, X, y, X_test, y_test, isolated_test)
            row["isolated_train"] = int(isolated_all[:n].sum())
            rows.append(row)
            print(f"n={n:5d} {method:24s} fit {row['fit_wall_seconds']:8.2f} s wall "
                  f"({row['fit_process_seconds']:8.2f} s process), predict {row['predict_wall_seconds']:6.2f} s, "
                  f"accuracy {row['accuracy']:.3f} (isolated {row['accuracy_isolated'] or float('nan'):.3f}), "
                  f"{row['fitted_kernel']}", flush=True)
    ratios = {}
    for n in sizes:
        by_method = {r["method"]: r for r in rows if r["n_train"] == n}
        for name, (top, bottom) in RATIOS.items():
            if top in by_method and bottom in by_method:
                ratios.setdefault(str(n), {})[name] = {
                    "fit_wall": by_method[top]["fit_wall_seconds"] / by_method[bottom]["fit_wall_seconds"],
                    "total_wall": by_method[top]["wall_seconds"] / by_method[bottom]["wall_seconds"],
                    "total_process": by_method[top]["process_seconds"] / by_method[bottom]["process_seconds"],
                }
                print(f"n={n:5d} {name}: {ratios[str(n)][name]['total_wall']:.2f}x (fit + predict, wall)")
    report = {
        "machine": machine(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "threads": thread_settings(),
        "versions": {name: package_version(name) for name in ("paucity", "scikit-learn", "numpy", "scipy")},
        "quick": args.quick,
        "data": {"generator": generator, "random_state": args.random_state, "n_test": n_test,
                 "isolated_test": int(isolated_test.sum())},
        "kernel": repr(kernel(fixed=False)),
        "sizes": list(sizes),
        "rows": rows,
        "ratios": ratios,
    }
    from paucity.io import write_text

    write_text(json.dumps(report, indent=1, default=float), args.output)
    print(f"load average before {load_before}, after {report['load_average_after']}; wrote {args.output}")


if __name__ == "__main__":
    main()
