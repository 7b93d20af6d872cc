"""Time choix on one set of pairwise comparisons; run by the anchor's own Python.

choix is used as a black-box oracle: this script calls its public functions
and records timings and returned parameters. None of its code is part of
paucity. ``benchmarks/ranking.py`` runs this script in a subprocess with the
interpreter given by ``--anchor-python`` (or ``PAUCITY_ANCHOR_PYTHON``)::

    /path/to/choix-venv/bin/python benchmarks/_choix_runner.py \
        benchmarks/_data/btl_5000x100000_seed0.npz runs.json out.json

Inputs:

- an npz with integer arrays ``winners`` and ``losers`` (positions
  ``0..n_items-1``, one entry per comparison) and the scalar ``n_items``;
- or, for ``ilsr_rankings``, ``lsr_rankings`` and ``opt_rankings``
  (``benchmarks/ranking_pl.py``), an npz with a 2-D integer array
  ``rankings`` (one ranking per row, best first) and ``n_items``;
- a JSON list of runs, each ``{"name": ..., "function": ..., "kwargs": {...}}``
  where ``function`` is one of ``rank_centrality``, ``ilsr_pairwise``,
  ``opt_pairwise`` and ``kwargs`` are passed to it (``alpha``, ``tol``, ...).

The run:

1. builds choix's documented data format, a list of ``(winner, loser)``
   tuples (not timed);
2. warms each requested function on a tiny data set (imports, first calls);
3. times each run once (``time.perf_counter``) and records the peak resident
   memory of this process after it (``ru_maxrss``; cumulative, so run one
   function per process for per-function figures);
4. writes a JSON (timings, peak memory, versions) and, next to it, an npz
   with the returned parameters, one array per run name.

A run that raises is recorded with its error message instead of a result.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import time
import traceback
from importlib.metadata import version
from pathlib import Path

import numpy as np

FUNCTIONS = ("rank_centrality", "ilsr_pairwise", "opt_pairwise")
#: functions on rankings: their npz holds ``rankings``, a 2-D integer array (one ranking per row, best first)
RANKING_FUNCTIONS = ("ilsr_rankings", "lsr_rankings", "opt_rankings")


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux


def load(path):
    with np.load(path) as f:
        winners = np.asarray(f["winners"], dtype=np.int64)
        losers = np.asarray(f["losers"], dtype=np.int64)
        n_items = int(f["n_items"]) if "n_items" in f.files else int(max(winners.max(), losers.max())) + 1
    return n_items, winners, losers


def load_rankings(path):
    with np.load(path) as f:
        rankings = np.asarray(f["rankings"], dtype=np.int64)
        n_items = int(f["n_items"]) if "n_items" in f.files else int(rankings.max()) + 1
    return n_items, rankings


def warm(choix, runs) -> None:
    tiny = [(0, 1), (1, 0), (1, 2), (2, 1), (2, 0), (0, 2), (0, 1)]
    tiny_rankings = [(0, 1, 2), (2, 1, 0), (1, 0, 2), (2, 0, 1)]
    for run in runs:
        if run["function"] in RANKING_FUNCTIONS:
            kwargs = {k: v for k, v in run.get("kwargs", {}).items() if k == "alpha"}
            getattr(choix, run["function"])(3, tiny_rankings, **kwargs)
            continue
        kwargs = {k: v for k, v in run.get("kwargs", {}).items() if k in ("alpha", "method")}
        getattr(choix, run["function"])(3, tiny, **kwargs)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="npz with winners, losers and n_items")
    parser.add_argument("runs", help="JSON list of {name, function, kwargs}")
    parser.add_argument("output", help="JSON file to write (the parameters go to the same name with .npz)")
    args = parser.parse_args(argv)

    runs = json.loads(Path(args.runs).read_text())
    for run in runs:
        if run.get("function") not in FUNCTIONS + RANKING_FUNCTIONS:
            parser.error(
                f"unknown function {run.get('function')!r}; expected one of {FUNCTIONS + RANKING_FUNCTIONS}"
            )
    on_rankings = {run["function"] in RANKING_FUNCTIONS for run in runs}
    if len(on_rankings) > 1:
        parser.error("runs on rankings and on pairs need separate data files; run them separately")

    import choix

    t0 = time.perf_counter()
    if on_rankings == {True}:
        # choix's documented ranking format: a list of tuples, best item first
        n_items, rankings = load_rankings(args.data)
        data = [tuple(row) for row in rankings.tolist()]
        winners = rankings[:, 0]  # only counted below
    else:
        n_items, winners, losers = load(args.data)
        data = list(zip(winners.tolist(), losers.tolist()))
    convert_seconds = time.perf_counter() - t0

    t0 = time.perf_counter()
    warm(choix, runs)
    warm_seconds = time.perf_counter() - t0

    results, params = {}, {}
    for run in runs:
        name, function, kwargs = run["name"], run["function"], run.get("kwargs", {})
        entry = {"function": function, "kwargs": kwargs}
        t0 = time.perf_counter()
        try:
            out = getattr(choix, function)(n_items, data, **kwargs)
        except Exception as error:  # noqa: BLE001 -- recorded, so the other runs still report
            entry["seconds"] = time.perf_counter() - t0
            entry["error"] = f"{type(error).__name__}: {error}"
            entry["traceback"] = traceback.format_exc(limit=3)
        else:
            entry["seconds"] = time.perf_counter() - t0
            out = np.asarray(out, dtype=np.float64)
            params[name] = out
            entry["finite"] = bool(np.isfinite(out).all())
            entry["mean"] = float(np.mean(out))
        entry["peak_rss_gib"] = peak_rss_gib()
        results[name] = entry
        print(f"{name}: {entry['seconds']:.2f} s, peak RSS {entry['peak_rss_gib']:.2f} GiB"
              + (f" ({entry['error']})" if "error" in entry else ""), flush=True)

    output = Path(args.output)
    params_path = output.with_suffix(".npz")
    np.savez(params_path, **params)
    report = {
        "n_items": n_items,
        "n_comparisons": len(winners),  # rankings, for the ranking functions
        "convert_seconds": convert_seconds,
        "warm_seconds": warm_seconds,
        "runs": results,
        "params": str(params_path),
        "versions": {
            "python": platform.python_version(),
            "choix": version("choix"),
            "numpy": np.__version__,
            "scipy": version("scipy"),
        },
    }
    output.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
