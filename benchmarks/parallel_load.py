"""Parallel kernels on a loaded machine: CIFE with one and two threads, idle and beside a busy process.

Run with paucity's development Python from the repository root, on a machine
where nothing else runs::

    python benchmarks/parallel_load.py                  # 7 repeats, about a minute on two cores
    python benchmarks/parallel_load.py --write-docs     # also fill the table in docs/benchmarks.md

The data are ``paucity.datasets.make_scrna_counts(20000, 2000, random_state=0)``
(sparse negative-binomial counts, 10 cell types). One run is
``InfoSelector(method="cife", n_features=50, n_jobs=n_jobs).fit(X, y)`` from the
counts: binning, counting and the 50 greedy steps. Each setting runs
``--repeats`` times, interleaved with the others, after a warm-up; the table
gives the median, and its ratio to the median of ``n_jobs=1`` under the same
load (above 1: slower than one thread).

The settings are ``n_jobs=1``, ``n_jobs=2``, and ``n_jobs=2`` with the load
check switched off (the kernels then run on two threads whatever the load),
each on the idle machine and beside a competing process: a Python subprocess
spinning on one core, started before and stopped after its runs. The load
average is printed before and after, and every run is written to
``benchmarks/results/parallel_load.csv``.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SECTION = ("<!-- parallel-load:begin -->", "<!-- parallel-load:end -->")
TABLE = ("<!-- parallel-load-table:begin -->", "<!-- parallel-load-table:end -->")
SPIN = "while True:\n    pass\n"
SETTINGS = (("1", 1, True), ("2", 2, True), ("2, load check off", 2, False))


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        return "unavailable"


def start_competitor() -> subprocess.Popen:
    """A CPU-bound process on one core (the last one this process may use, where affinity is available)."""
    process = subprocess.Popen([sys.executable, "-c", SPIN])
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(process.pid, {max(os.sched_getaffinity(0))})
        except OSError:
            pass
    time.sleep(0.5)  # let it take its core
    return process


def stop(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()


def run_once(X, y, n_jobs: int, load_check: bool) -> tuple[float, int]:
    """Seconds of one fit, and the threads the kernels ran on."""
    import paucity._parallel as parallel
    from paucity.markers import InfoSelector

    measure, choose = parallel.busy_cores, parallel.threads_for_load
    chosen = [1]  # what kernel_threads decides (it asks only when n_jobs > 1)

    def recording(*args):
        chosen[0] = choose(*args)
        return chosen[0]

    parallel.threads_for_load = recording
    if not load_check:
        parallel.busy_cores = lambda: 0.0
    try:
        start = time.perf_counter()
        InfoSelector(method="cife", n_features=50, n_jobs=n_jobs).fit(X, y)
        return time.perf_counter() - start, chosen[0]
    finally:
        parallel.busy_cores, parallel.threads_for_load = measure, choose


def measure(X, y, repeats: int, loaded: bool) -> list[dict]:
    rows = []
    competitor = start_competitor() if loaded else None
    try:
        for repeat in range(repeats):
            for label, n_jobs, load_check in SETTINGS:
                seconds, threads = run_once(X, y, n_jobs, load_check)
                rows.append({
                    "load": "one core busy" if loaded else "idle",
                    "n_jobs": label,
                    "repeat": repeat,
                    "threads": threads,
                    "seconds": round(seconds, 4),
                })
    finally:
        if competitor is not None:
            stop(competitor)
    return rows


def summary(rows: list[dict]) -> list[dict]:
    table = []
    for load in ("idle", "one core busy"):
        single = statistics.median(r["seconds"] for r in rows if r["load"] == load and r["n_jobs"] == "1")
        for label, _, _ in SETTINGS:
            mine = [r for r in rows if r["load"] == load and r["n_jobs"] == label]
            if not mine:
                continue
            median = statistics.median(r["seconds"] for r in mine)
            threads = sorted({r["threads"] for r in mine})
            table.append({
                "load": load,
                "n_jobs": label,
                "threads": "/".join(map(str, threads)),
                "median": median,
                "ratio": median / single,
            })
    return table


def markdown(table: list[dict], repeats: int, before: str, after: str) -> str:
    from markers import machine, our_versions

    lines = [
        "| load | n_jobs | threads used | median (s) | ratio to n_jobs=1 |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for row in table:
        cells = (row["load"], row["n_jobs"], row["threads"], f"{row['median']:.3f}", f"{row['ratio']:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    info, versions = machine(), our_versions()
    lines += [
        "",
        f"Medians of {repeats} runs. Load average before: {before}; after: {after}.  ",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory']} memory, {info['os']}.  ",
        "paucity side: " + ", ".join(f"{k} {v}" for k, v in versions.items() if k != "scanpy") + ".",
    ]
    return "\n".join(lines)


def with_table(page: str, table: str) -> str:
    """The section's text from ``page`` with ``table`` between its table markers (the prose is kept)."""
    begin, end = SECTION
    if begin not in page:
        raise SystemExit(f"docs/benchmarks.md has no {begin} section to fill.")
    body = page.split(begin, 1)[1].split(end, 1)[0]
    head, found, rest = body.partition(TABLE[0])
    if not found or TABLE[1] not in rest:
        raise SystemExit(f"the section has no {TABLE[0]} ... {TABLE[1]} table to replace.")
    tail = rest.split(TABLE[1], 1)[1]
    return f"{head.strip()}\n\n{TABLE[0]}\n{table}\n{TABLE[1]}\n\n{tail.strip()}"


def write_csv(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".parallel_load.", suffix=".csv", delete=False,
                                     newline="") as tmp:
        writer = csv.DictWriter(tmp, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp.name, path)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs of each setting under each load (default 7)")
    parser.add_argument("--cells", type=int, default=20000)
    parser.add_argument("--genes", type=int, default=2000)
    parser.add_argument("--output", type=Path, default=RESULTS / "parallel_load.csv")
    parser.add_argument("--write-docs", action="store_true",
                        help="replace the table of docs/benchmarks.md between " + " and ".join(SECTION))
    args = parser.parse_args(argv)

    import numba

    from paucity.datasets import make_scrna_counts

    if numba.config.NUMBA_NUM_THREADS < 2:
        raise SystemExit("numba has one thread here (NUMBA_NUM_THREADS); nothing to compare.")
    data = make_scrna_counts(args.cells, args.genes, random_state=0)
    X, y = data.X, np.asarray(data.labels)
    small = make_scrna_counts(500, 100, n_markers=20, random_state=1)
    for n_jobs in (1, 2):  # compile (or load the cached kernels) before timing
        run_once(small.X, np.asarray(small.labels), n_jobs, True)
    run_once(X, y, 1, True)

    before = load_average()
    print(f"load average before: {before}", flush=True)
    rows = measure(X, y, args.repeats, loaded=False)
    rows += measure(X, y, args.repeats, loaded=True)
    after = load_average()
    print(f"load average after:  {after}")

    write_csv(rows, args.output)
    table = summary(rows)
    text = markdown(table, args.repeats, before, after)
    print()
    print(text)
    print(f"\nwrote {args.output}")
    if args.write_docs:
        from markers import REPORT, write_section

        write_section(SECTION, with_table(REPORT.read_text(), text))
        print(f"wrote the table into {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
