"""Active spectral clustering benchmark: the seed's IU-RED loop as printed beside ActiveSpectralClustering.

Run with paucity's development Python from the repository root, on a quiet machine::

    python benchmarks/clustering.py                    # n = 200 and 500, then batch mode at n = 2,000
    python benchmarks/clustering.py --sizes 200 --reference-steps 300 --skip-batch
    python benchmarks/clustering.py --size 10000       # the photo collection: 10,000 items, FunctionOracle
    python benchmarks/clustering.py --paths            # n = 2,000 batches on the dense and the sparse path

Data: two Gaussian clouds in the plane (centres 3 standard deviations apart, n/2 points each, a fixed
seed), scaled to the unit square, similarities exp(−‖x − y‖² / (2 · 0.1²)).

For each n, ``ActiveSpectralClustering(strategy="iu_red", budget=0.1, batch_size=1)`` is run once with a
MatrixOracle and timed as a whole (its start, while the graph of measured pairs has three or more
components, measures random pairs; then every query is IU-RED's). The seed's loop as printed (seed 003,
Algorithm 1) is then replayed on the same sequence of estimates: at each active step it forms the
Laplacian of the current Ŵ, takes a full ``numpy.linalg.eigh``, computes every unmeasured pair's score
|dv̂₂(k_min)/dŵᵢⱼ| from eq. (2.6) with the whole spectrum, and takes the best pair. Its choice is checked
against paucity's query at that step on the steps where it is defined (λ̂₂ simple and k_min unique;
the fraction that agree is reported; where λ̂₂ is repeated, as on a graph with two symmetric leaves,
v̂₂ is any vector of its eigenspace and the two loops may differ), and its time per step is
measured over the first ``--reference-steps`` active steps (all of them with 0); the ratio is the
reference's mean time per active step over paucity's mean time per query of the whole run (start and
final clustering included). Both run with one BLAS thread. Each is timed ``--repeats`` times (2 by
default), alternating paucity's run and the seed's replay, and the best time of each counts: this
machine's speed drifts by a quarter within minutes, and a single run of each, a minute apart, measured
that drift as much as the code.

Batch mode: ``batch_size=100`` at n = 2,000 with 5 % of the pairs, timed once with the estimator's own
thread policy (one BLAS thread); five active updates spread over the run (the 100th, 300th, ...)
are then checked against the 100 best pairs of eq. (2.6) with a full eigendecomposition.

Writes ``benchmarks/results/clustering.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markers import machine, package_version  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "clustering.json"
WIDTH = 0.1
FRACTION = 0.05


def two_gaussians(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    half = n // 2
    X = np.r_[rng.normal(0.0, 1.0, (half, 2)), rng.normal(0.0, 1.0, (n - half, 2)) + [3.0, 0.0]]
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    squared = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    W = np.exp(-squared / (2 * WIDTH**2))
    np.fill_diagonal(W, 1.0)
    return W


def seed_scores(W_hat: np.ndarray, measured: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Algorithm 1's scores as printed: a full eigendecomposition, eq. (2.6) for every unmeasured pair (i < j).

    Returns the eigenvalues, v̂₂ and the n × n scores (−inf for measured pairs and the lower triangle).
    """
    W = W_hat.copy()
    np.fill_diagonal(W, 0.0)
    L = np.diag(W.sum(axis=1)) - W
    values, vectors = np.linalg.eigh(L)
    v2 = vectors[:, 1]
    k = int(np.argmin(np.abs(v2)))
    # dv̂₂(k)/dŵᵢⱼ = Σ_{p>2} (v̂₂(i) − v̂₂(j))(v̂_p(i) − v̂_p(j)) v̂_p(k) / (λ̂₂ − λ̂_p)
    weights = vectors[k, 2:] / (values[1] - values[2:])
    g = vectors[:, 2:] @ weights
    scores = np.abs(np.subtract.outer(v2, v2) * np.subtract.outer(g, g))
    scores[measured] = -np.inf
    scores[np.tril_indices_from(scores)] = -np.inf
    return values, v2, scores


def seed_choice(W_hat: np.ndarray, measured: np.ndarray) -> tuple[tuple[int, int], bool]:
    """One step of Algorithm 1 as printed: full eigendecomposition, eq. (2.6) for every unmeasured pair.

    Returns the best pair and whether the step is well posed: λ̂₂ simple (else v̂₂ and (2.6) are not
    defined) and k_min unique.
    """
    values, v2, scores = seed_scores(W_hat, measured)
    flat = int(np.argmax(scores))
    scale = max(values[-1], 1e-300)
    magnitudes = np.sort(np.abs(v2))
    posed = values[2] - values[1] > 1e-9 * scale and magnitudes[1] - magnitudes[0] > 1e-12
    return divmod(flat, scores.shape[0]), bool(posed)


def compare(n: int, reference_steps: int, repeats: int = 2) -> dict:
    """paucity's whole run and the seed's loop replayed on it, each timed ``repeats`` times, alternating; the best of each."""
    # the machine's speed drifts by a quarter within minutes: one run of each, minutes apart, measured the drift
    first = None
    ours = reference = np.inf
    for _ in range(repeats):
        row = _compare_once(n, reference_steps)
        first = first or row
        if row["queries_checksum"] != first["queries_checksum"]:
            raise AssertionError("paucity chose other pairs on a repeat of the same run")
        ours = min(ours, row["paucity_seconds"])
        reference = min(reference, row["reference_seconds_per_step"])
    row = dict(first, paucity_seconds=ours, reference_seconds_per_step=reference, repeats=repeats)
    row["paucity_seconds_per_query"] = ours / row["queries"]
    row["ratio"] = row["reference_seconds_per_step"] / row["paucity_seconds_per_query"]
    print(f"n = {n}, best of {repeats}: paucity {ours:.1f} s ({1e3 * row['paucity_seconds_per_query']:.2f} ms per query); "
          f"the seed's loop {1e3 * reference:.1f} ms per step; ratio {row['ratio']:.1f}x", flush=True)
    return row


def _compare_once(n: int, reference_steps: int) -> dict:
    from scipy.sparse.csgraph import connected_components

    from paucity.clustering import ActiveSpectralClustering, MatrixOracle

    W = two_gaussians(n)
    # warm: the tracker (above 64 items) and its kernels load here, not in the timed run
    ActiveSpectralClustering(strategy="iu_red", budget=0.3, random_state=0).fit(MatrixOracle(two_gaussians(100)))
    with threadpool_limits(1):
        start = time.perf_counter()
        model = ActiveSpectralClustering(strategy="iu_red", budget=0.1, batch_size=1, random_state=0).fit(MatrixOracle(W))
        ours = time.perf_counter() - start
    queries = model.queries_[["i", "j", "value"]].to_numpy()
    n_queries = len(queries)
    W_hat = np.eye(n)
    measured = np.eye(n, dtype=bool)
    agree = steps = posed_steps = 0
    reference_seconds = 0.0
    for order, (i, j, value) in enumerate(queries):
        i, j = int(i), int(j)
        components = connected_components(W_hat > 0, directed=False)[0]
        if components == 1 and (reference_steps == 0 or steps < reference_steps):
            with threadpool_limits(1):
                t0 = time.perf_counter()
                chosen, posed = seed_choice(W_hat, measured)
                reference_seconds += time.perf_counter() - t0
            steps += 1
            posed_steps += posed
            agree += posed and chosen == (min(i, j), max(i, j))
        W_hat[i, j] = W_hat[j, i] = value
        measured[i, j] = measured[j, i] = True
    row = {
        "n": n,
        "queries": n_queries,
        "paucity_seconds": ours,
        "paucity_seconds_per_query": ours / n_queries,
        "reference_steps_timed": steps,
        "reference_seconds_per_step": reference_seconds / max(steps, 1),
        "well_posed_steps": posed_steps,
        "same_choice": agree / max(posed_steps, 1),
        "queries_checksum": int(queries[:, :2].astype(np.int64).sum() + (queries[:, 0] * 7919).astype(np.int64).sum()),
    }
    row["ratio"] = row["reference_seconds_per_step"] / row["paucity_seconds_per_query"]
    print(f"n = {n}: paucity {ours:.1f} s for {n_queries} queries ({1e3 * row['paucity_seconds_per_query']:.2f} ms "
          f"each); the seed's loop {1e3 * row['reference_seconds_per_step']:.1f} ms per active step over {steps} "
          f"steps, same choice in {100 * row['same_choice']:.1f} % of the {posed_steps} well-posed ones; ratio {row['ratio']:.1f}x", flush=True)
    return row


def seed_batch(W_hat: np.ndarray, measured: np.ndarray, b: int) -> tuple[set, bool]:
    """The b best unmeasured pairs by eq. (2.6) with a full eigendecomposition, and whether the update is well posed.

    Well posed: λ̂₂ simple, k_min unique, and the b-th and (b+1)-th scores apart (else the batch is not unique).
    """
    values, v2, scores = seed_scores(W_hat, measured)
    flat = scores.ravel()
    top = np.argpartition(-flat, b)[: b + 1]
    top = top[np.argsort(-flat[top], kind="stable")]
    scale = max(values[-1], 1e-300)
    magnitudes = np.sort(np.abs(v2))
    separated = flat[top[b - 1]] - flat[top[b]] > 1e-9 * flat[top[0]]
    posed = values[2] - values[1] > 1e-9 * scale and magnitudes[1] - magnitudes[0] > 1e-12 and separated
    n = len(W_hat)
    return {divmod(int(index), n) for index in top[:b]}, bool(posed)


def batch(n: int = 2000, check_updates: int = 5, check_every: int = 200) -> dict:
    from scipy.sparse.csgraph import connected_components

    from paucity.clustering import ActiveSpectralClustering, MatrixOracle

    size = 100
    W = two_gaussians(n)
    start = time.perf_counter()
    # the estimator's own thread policy: one BLAS thread
    model = ActiveSpectralClustering(strategy="iu_red", budget=FRACTION, batch_size=size, random_state=0).fit(
        MatrixOracle(W))
    seconds = time.perf_counter() - start
    print(f"batch mode, n = {n}, {100 * FRACTION:g} % of pairs, batch_size = {size}: {seconds:.1f} s ({model.n_queries_} queries)",
          flush=True)
    # active updates spread over the run (every check_every-th, from the middle of the first stretch) against
    # the seed's formula with a full eigendecomposition; the first ones are near-trees, seldom well posed
    queries = model.queries_[["i", "j", "value"]].to_numpy()
    W_hat = np.eye(n)
    measured = np.eye(n, dtype=bool)
    checked = posed_updates = same = 0
    for update, first in enumerate(range(0, len(queries), size)):
        if checked >= check_updates:
            break
        due = update % check_every == check_every // 2
        if due and connected_components(W_hat > 0, directed=False)[0] == 1:
            chosen = {(int(min(i, j)), int(max(i, j))) for i, j, _ in queries[first:first + size]}
            expected, posed = seed_batch(W_hat, measured, size)
            checked += 1
            posed_updates += posed
            same += posed and chosen == expected
        for i, j, value in queries[first:first + size]:
            i, j = int(i), int(j)
            W_hat[i, j] = W_hat[j, i] = value
            measured[i, j] = measured[j, i] = True
    print(f"  {checked} active updates (every {check_every}th from the {check_every // 2}th): the same {size} pairs as "
          f"the seed's formula in {same} of the {posed_updates} well-posed ones", flush=True)
    return {"n": n, "fraction": FRACTION, "batch_size": size, "queries": int(model.n_queries_), "seconds": seconds,
            "updates_checked": checked, "check_every": check_every, "well_posed_updates": posed_updates, "same_batch": same}


def photo_collection(n: int, per_item: int = 30, batch_size: int = 500, seed: int = 0) -> dict:
    """IU-RED over n items whose similarities come from a FunctionOracle (never a matrix): time, memory, error.

    Two planted groups of n/2 points in the plane, N(0, I) and N((6, 0), I) (well separated), similarity
    exp(−‖x − y‖²/2) computed on demand; ``per_item`` · n / 2 measurements in batches of ``batch_size``.
    Peak memory is the process's resident high-water mark (``ru_maxrss``), read after the run; the run
    is the first thing the process does besides importing, so it is the run's peak.
    """
    import math
    import resource

    from paucity.clustering import ActiveSpectralClustering, FunctionOracle, misclustering_error
    from paucity.clustering import loop as loop_module

    rng = np.random.default_rng(seed)
    half = n // 2
    X = np.r_[rng.normal(0.0, 1.0, (half, 2)), rng.normal(0.0, 1.0, (n - half, 2)) + [6.0, 0.0]]
    planted = np.r_[np.zeros(half, int), np.ones(n - half, int)]
    points = X.tolist()

    def similarity(i, j):
        a, b = points[i], points[j]
        return math.exp(-((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) / 2.0)

    budget = per_item * n // 2
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    model = ActiveSpectralClustering(budget=budget, batch_size=batch_size, random_state=0).fit(
        FunctionOracle(similarity, n_items=n))
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    peak = after.ru_maxrss / 1024  # KiB on Linux
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)  # less sensitive to a busy machine
    loop = model._session.loop
    error = misclustering_error(model.labels_, planted)
    history = model.history_
    row = {"n": n, "measurements": int(model.n_queries_), "batch_size": batch_size, "seconds": seconds,
           "cpu_seconds": cpu,
           "peak_memory_mib": peak, "error": float(error), "sparse_path": bool(loop.sparse),
           "updates": int(len(history)), "lobpcg_iterations": int(getattr(loop.tracker, "iterations", 0)),
           "cg_iterations": int(getattr(loop.tracker, "solve_iterations", 0)),
           "sparse_min_items": loop_module.SPARSE_MIN_ITEMS}
    print(f"n = {n}: {model.n_queries_} measurements in batches of {batch_size}: {seconds:.1f} s ({cpu:.1f} s of CPU), peak memory "
          f"{peak:.0f} MiB, error against the planted groups {error:.4f} (sparse path: {loop.sparse})", flush=True)
    return row


def batch_paths(n: int = 2000) -> dict:
    """Today's batch benchmark (n = 2,000, 5 %, batches of 100) on the dense path and on the sparse path."""
    from paucity.clustering import loop as loop_module

    rows = {}
    saved = loop_module.SPARSE_MIN_ITEMS
    try:
        for path, limit in (("dense", 10**9), ("sparse", 2)):
            loop_module.SPARSE_MIN_ITEMS = limit
            print(f"{path} path:", flush=True)
            rows[path] = batch(n)
    finally:
        loop_module.SPARSE_MIN_ITEMS = saved
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500])
    parser.add_argument("--reference-steps", type=int, default=1000,
                        help="active steps of the seed's loop that are timed and checked (0: all)")
    parser.add_argument("--skip-batch", action="store_true")
    parser.add_argument("--repeats", type=int, default=2,
                        help="runs of paucity and of the seed's loop per size, alternating; the best of each counts")
    parser.add_argument("--size", type=int, default=None,
                        help="only the photo-collection run at this many items (FunctionOracle, 30 pairs per item, "
                             "batches of 500), e.g. --size 10000; results in clustering_large.json")
    parser.add_argument("--paths", action="store_true",
                        help="only today's n = 2,000 batch run, on the dense and on the sparse path")
    args = parser.parse_args()
    load_before = os.getloadavg()
    if args.size is not None or args.paths:
        from paucity.io import write_text

        row = photo_collection(args.size) if args.size is not None else batch_paths()
        report = {"machine": machine(), "load_average_before": load_before, "load_average_after": os.getloadavg(),
                  "versions": {"paucity": package_version("paucity"), "numpy": np.__version__}, "run": row}
        target = RESULTS.with_name("clustering_large.json" if args.size is not None else "clustering_paths.json")
        write_text(json.dumps(report, indent=1), target)
        print(f"load average before {load_before}, after {report['load_average_after']}; wrote {target}")
        return
    rows = [compare(n, args.reference_steps, args.repeats) for n in args.sizes]
    batch_row = None if args.skip_batch else batch()
    report = {"machine": machine(), "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "versions": {"paucity": package_version("paucity"), "numpy": np.__version__},
              "compare": rows, "batch": batch_row, "reference_steps": args.reference_steps}
    from paucity.io import write_text

    write_text(json.dumps(report, indent=1), RESULTS)
    print(f"load average before {load_before}, after {report['load_average_after']}; wrote {RESULTS}")


if __name__ == "__main__":
    main()
