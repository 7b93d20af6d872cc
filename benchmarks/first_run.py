"""First run of a command: numba compile time, per kernel and signature, cold cache against warm.

Run with paucity's development Python from the repository root, on a machine
where nothing else runs::

    python benchmarks/first_run.py                     # paucity markers pbmc.h5ad --groupby bulk_labels --method cife -n 10
    python benchmarks/first_run.py --repeats 3         # the median of three cold/warm pairs
    python benchmarks/first_run.py --json first_run.json

The data are ``paucity.datasets.pbmc68k_reduced()`` written to an ``.h5ad`` in
a temporary folder. Every run is a fresh Python process running the command as
a user would (the ``paucity`` script beside this interpreter):

1. *cold*: ``NUMBA_CACHE_DIR`` points to a new, empty temporary folder, so
   every kernel the command needs is compiled (paucity's own cache folders
   are not read or written);
2. *warm*: the same command again with the same cache folder, so every kernel
   is loaded from the cache written by the cold run.

The wall-clock seconds of each process are printed, and their ratio. Then the
pair is repeated once with a recorder loaded into the process (numba's event
API, :mod:`numba.core.event`): every ``numba:compile`` event (a compilation,
not a load from the cache) with its dispatcher, argument types and seconds,
its own seconds without the nested compilations of the kernels it calls, the
seconds spent loading each signature from the cache, and the signatures every
paucity dispatcher holds at the end (``Dispatcher.signatures``). The tables
give compile seconds per kernel (summed over its signatures) and per
signature. ``uptime``'s load averages are printed before and after: timings on
a busy machine are not comparable with timings on a quiet one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The command of the issue; {data} is replaced by the .h5ad file.
COMMAND = ["markers", "{data}", "--groupby", "bulk_labels", "--method", "cife", "-n", "10"]

#: Loaded in the measured process (``python -c``) when a report is asked for: numba's compile
#: events and cache loads, written as JSON to the path in PAUCITY_FIRST_RUN_REPORT at exit.
RECORDER = r"""
import json, os, sys, time
from numba.core import caching, event
from numba.core.registry import CPUDispatcher

compiles, loads, stack = [], [], []
started = time.perf_counter()


def _name(dispatcher):
    function = dispatcher.py_func
    return f"{function.__module__}.{function.__qualname__}"


class _Recorder(event.Listener):
    def on_start(self, ev):
        stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        start, nested = stack.pop()
        seconds = time.perf_counter() - start
        if stack:
            stack[-1][1] += seconds
        data = ev.data
        compiles.append({
            "kernel": _name(data["dispatcher"]),
            "signature": "(" + ", ".join(str(a) for a in data["args"]) + ")",
            "seconds": seconds,
            "self_seconds": seconds - nested,
            "nested": bool(stack),
        })


event.register("numba:compile", _Recorder())
_load = caching.Cache.load_overload


def _timed_load(self, sig, target_context):
    start = time.perf_counter()
    result = _load(self, sig, target_context)
    if result is not None:
        loads.append({"kernel": self._name, "signature": str(sig), "seconds": time.perf_counter() - start})
    return result


caching.Cache.load_overload = _timed_load


def _report():
    signatures = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("paucity"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name:
                signatures[_name(value)] = [
                    "(" + ", ".join(str(a) for a in sig) + ")" for sig in value.signatures
                ]
    with open(os.environ["PAUCITY_FIRST_RUN_REPORT"], "w") as f:
        json.dump({"seconds": time.perf_counter() - started, "compiles": compiles, "loads": loads,
                   "signatures": signatures}, f, indent=1)


sys.argv = ["paucity", *sys.argv[1:]]
from paucity.cli import main
try:
    main()
except SystemExit as stop:
    if stop.code not in (0, None):
        raise
finally:
    _report()
"""


def load_averages() -> str:
    """The 1, 5 and 15-minute load averages, as ``uptime`` prints them."""
    one, five, fifteen = os.getloadavg()
    return f"load average: {one:.2f}, {five:.2f}, {fifteen:.2f}"


def paucity_command() -> list[str]:
    """The ``paucity`` script of this interpreter's environment, or the same entry point through ``-c``."""
    script = Path(sys.executable).with_name("paucity")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from paucity.cli import main; sys.argv[0] = 'paucity'; main()"]


def run(args: list[str], cache: Path, workdir: Path, report: Path | None = None) -> float:
    """Run paucity once in a fresh process with ``NUMBA_CACHE_DIR=cache``; its wall-clock seconds."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    if report is None:
        command = [*paucity_command(), "--quiet", *args]
    else:
        env["PAUCITY_FIRST_RUN_REPORT"] = str(report)
        command = [sys.executable, "-c", RECORDER, "--quiet", *args]
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=workdir, check=True)
    return time.perf_counter() - start


def cold_and_warm(args, workdir: Path, report_prefix: Path | None = None) -> tuple[float, float]:
    """One cold run (empty cache folder) and one warm run (the cache it wrote); both in seconds."""
    cache = Path(tempfile.mkdtemp(prefix="numba-cache-", dir=workdir))
    try:
        cold = run(args, cache, workdir, None if report_prefix is None else report_prefix.with_suffix(".cold.json"))
        warm = run(args, cache, workdir, None if report_prefix is None else report_prefix.with_suffix(".warm.json"))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return cold, warm


def compile_tables(cold: dict, warm: dict) -> str:
    """Markdown tables: compile seconds per kernel and per signature, and what the warm run loaded."""
    per_kernel: dict[str, list[float]] = {}
    for event in cold["compiles"]:
        entry = per_kernel.setdefault(event["kernel"], [0, 0.0])
        entry[0] += 1
        entry[1] += event["self_seconds"]
    loaded: dict[str, float] = {}
    for event in warm["loads"]:
        loaded[event["kernel"]] = loaded.get(event["kernel"], 0.0) + event["seconds"]
    lines = [
        "| kernel | signatures compiled | compile s (own) | warm: load s |",
        "|---|---:|---:|---:|",
    ]
    short = {k: k.removeprefix("paucity.") for k in per_kernel}
    for kernel, (count, seconds) in sorted(per_kernel.items(), key=lambda item: -item[1][1]):
        load = next((s for name, s in loaded.items() if name.endswith(kernel.rsplit(".", 1)[-1])), 0.0)
        lines.append(f"| {short[kernel]} | {count} | {seconds:.2f} | {load:.3f} |")
    total = sum(seconds for _, seconds in per_kernel.values())
    lines.append(f"| **total** | {sum(c for c, _ in per_kernel.values())} | **{total:.2f}** | "
                 f"{sum(loaded.values()):.3f} |")
    lines += ["", "| kernel | signature | compile s (own) | with nested |", "|---|---|---:|---:|"]
    for event in sorted(cold["compiles"], key=lambda e: -e["self_seconds"]):
        lines.append(f"| {event['kernel'].removeprefix('paucity.')} | `{event['signature']}` | "
                     f"{event['self_seconds']:.2f} | {event['seconds']:.2f} |")
    lines += ["", "Signatures held at exit (cold run):", ""]
    for kernel, signatures in sorted(cold["signatures"].items()):
        if signatures:
            lines.append(f"- {kernel.removeprefix('paucity.')}: " + "; ".join(f"`{s}`" for s in signatures))
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="An .h5ad file (default: pbmc68k_reduced, written to a temporary folder).")
    parser.add_argument("--repeats", type=int, default=1, help="Cold/warm pairs to time (the median is reported).")
    parser.add_argument("--no-breakdown", action="store_true", help="Skip the recorded run and its per-kernel tables.")
    parser.add_argument("--json", type=Path, help="Also write every timing and the recorded events here.")
    options = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="paucity-first-run-"))
    try:
        data = options.data
        if data is None:
            from paucity.datasets import pbmc68k_reduced

            data = workdir / "pbmc.h5ad"
            pbmc68k_reduced().write_h5ad(data)
        args = [part.format(data=data) for part in COMMAND] + ["--out", str(workdir / "markers.csv")]
        shown = "paucity " + " ".join(COMMAND).format(data=data.name if options.data is None else data)
        print(f"command: {shown}")
        print(f"before: {load_averages()}")
        pairs = [cold_and_warm(args, workdir) for _ in range(options.repeats)]
        cold = statistics.median(c for c, _ in pairs)
        warm = statistics.median(w for _, w in pairs)
        for i, (c, w) in enumerate(pairs):
            print(f"run {i + 1}: cold {c:.2f} s, warm {w:.2f} s")
        print(f"cold {cold:.2f} s, warm {warm:.2f} s, cold / warm = {cold / warm:.1f}")
        result = {"command": shown, "pairs": pairs, "cold": cold, "warm": warm}
        if not options.no_breakdown:
            prefix = workdir / "report"
            recorded = cold_and_warm(args, workdir, prefix)
            reports = {kind: json.loads(prefix.with_suffix(f".{kind}.json").read_text()) for kind in ("cold", "warm")}
            total = sum(e["self_seconds"] for e in reports["cold"]["compiles"])
            print(f"\nrecorded run: cold {recorded[0]:.2f} s, warm {recorded[1]:.2f} s; "
                  f"compiling {total:.2f} s in {len(reports['cold']['compiles'])} compilations "
                  f"(warm run: {len(reports['warm']['compiles'])} compilations, "
                  f"{len(reports['warm']['loads'])} signatures loaded from the cache)\n")
            print(compile_tables(reports["cold"], reports["warm"]))
            result.update(recorded=recorded, reports=reports)
        print(f"\nafter: {load_averages()}")
        if options.json is not None:
            options.json.write_text(json.dumps(result, indent=1))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
