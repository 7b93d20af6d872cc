"""Run POT (Python Optimal Transport) on arrays saved by the differences benchmarks.

POT is used as a black-box oracle: this script calls its public functions and
records their values and timings. None of its code is part of paucity.
``benchmarks/differences.py`` and ``experiments/differences_power.py`` run it in
a subprocess with the anchor's interpreter (``--anchor-python`` or the
environment variable ``PAUCITY_ANCHOR_PYTHON``)::

    /path/to/pot-venv/bin/python benchmarks/_pot_runner.py max-sliced X.npy Y.npy out.json \
        --n-projections 10000 --seed 0 --repeats 3
    /path/to/pot-venv/bin/python benchmarks/_pot_runner.py emd-permutations data.npz out.npz

``max-sliced``
    ``ot.sliced.max_sliced_wasserstein_distance(X, Y, n_projections, p=2,
    seed, log=True)``, warmed on a tiny input and timed ``--repeats`` times
    (best kept). POT returns ``max over sampled θ of W_p(θᵀX, θᵀY)`` — the
    p-th root of the largest projected ``W_p^p``, i.e. W₂ itself, not its
    square, for p = 2. With ``log=True`` it also returns the sampled
    projections (``d × n_projections``) and each one's ``W_p^p``; the JSON
    holds the value, its square, the largest projected ``W_2^2`` (the same
    number) and the best projection, so that the caller can evaluate it with
    its own code.
``emd-permutations``
    The exact d-dimensional Wasserstein statistic of a permutation test: for
    each data set ``k`` of the npz (``pooled_k`` of shape (n + m, d),
    ``permutations_k`` of shape (B, n + m), ``n_k`` the size of the first
    sample) the squared-Euclidean optimal transport cost
    ``ot.emd2(1/n, 1/m, ot.dist(X, Y))`` between the first n and the last m
    rows, on the identity order and then on every permutation. Writes
    ``observed_k``, ``null_k`` and ``seconds_k`` to the output npz.

Each run writes the package versions next to its results.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np


def versions() -> dict:
    return {
        "python": platform.python_version(),
        "POT": version("POT"),
        "numpy": np.__version__,
        "scipy": version("scipy"),
    }


def max_sliced(args) -> None:
    import ot

    X = np.load(args.X)
    Y = np.load(args.Y)
    rng = np.random.default_rng(1)
    tiny_x, tiny_y = rng.normal(size=(20, 5)), rng.normal(size=(15, 5))
    ot.sliced.max_sliced_wasserstein_distance(tiny_x, tiny_y, n_projections=10, p=2, seed=0)  # warm-up
    times, cpu = [], []
    for _ in range(args.repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        value, log = ot.sliced.max_sliced_wasserstein_distance(
            X, Y, n_projections=args.n_projections, p=2, seed=args.seed, log=True
        )
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    projected = np.asarray(log["projected_emds"], dtype=np.float64)  # W_2^2 along each sampled direction
    projections = np.asarray(log["projections"], dtype=np.float64)  # (d, n_projections)
    best = int(np.argmax(projected))
    report = {
        "function": "ot.sliced.max_sliced_wasserstein_distance",
        "kwargs": {"n_projections": args.n_projections, "p": 2, "seed": args.seed, "log": True},
        "value": float(value),
        "value_squared": float(value) ** 2,
        "max_projected_w2_squared": float(projected[best]),
        "best_index": best,
        "best_projection": projections[:, best].tolist(),
        "seconds": min(times),
        "cpu_seconds": cpu[int(np.argmin(times))],
        "all_seconds": times,
        "versions": versions(),
    }
    Path(args.output).write_text(json.dumps(report, indent=1))
    print(f"max-sliced W2 = {value:.6g} (squared {value ** 2:.6g}) in {min(times):.2f} s", flush=True)


def emd_statistic(ot, pooled, order, n, a, b) -> float:
    """Squared-Euclidean optimal transport cost between rows order[:n] and order[n:] of pooled."""
    X, Y = pooled[order[:n]], pooled[order[n:]]
    return float(ot.emd2(a, b, ot.dist(X, Y, metric="sqeuclidean")))


def emd_permutations(args) -> None:
    import ot

    out = {}
    with np.load(args.data) as f:
        keys = sorted(int(name.split("_", 1)[1]) for name in f.files if name.startswith("pooled_"))
        for k in keys:
            pooled = np.asarray(f[f"pooled_{k}"], dtype=np.float64)
            permutations = np.asarray(f[f"permutations_{k}"])
            n = int(f[f"n_{k}"])
            m = pooled.shape[0] - n
            a = np.full(n, 1.0 / n)
            b = np.full(m, 1.0 / m)

            t0 = time.perf_counter()
            observed = emd_statistic(ot, pooled, np.arange(pooled.shape[0]), n, a, b)
            null = np.array([emd_statistic(ot, pooled, order, n, a, b) for order in permutations])
            out[f"observed_{k}"] = np.float64(observed)
            out[f"null_{k}"] = null
            out[f"seconds_{k}"] = np.float64(time.perf_counter() - t0)
    out["versions"] = np.str_(json.dumps(versions()))
    np.savez(args.output, **out)
    print(f"emd2 permutation statistics for {len(keys)} data set(s)", flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sliced = commands.add_parser("max-sliced", help="max-sliced W2 of two samples")
    sliced.add_argument("X", help=".npy of shape (n, d)")
    sliced.add_argument("Y", help=".npy of shape (m, d)")
    sliced.add_argument("output", help="JSON file to write")
    sliced.add_argument("--n-projections", type=int, default=10_000)
    sliced.add_argument("--seed", type=int, default=0)
    sliced.add_argument("--repeats", type=int, default=1)
    emd = commands.add_parser("emd-permutations", help="d-dimensional W2^2 on the observed split and permutations")
    emd.add_argument("data", help="npz with pooled_k, permutations_k, n_k")
    emd.add_argument("output", help="npz to write")
    args = parser.parse_args(argv)
    if args.command == "max-sliced":
        max_sliced(args)
    else:
        emd_permutations(args)


if __name__ == "__main__":
    main()
