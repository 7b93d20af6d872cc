"""A command's first second: each ``paucity`` command's warm time on its smallest example, and every ``--help``.

Run from the repository root with paucity's development Python, on a machine where nothing else runs::

    python benchmarks/startup.py                 # best of 5 fresh processes each
    python benchmarks/startup.py --repeats 9 --importtime

Every time is the wall-clock time of a fresh process (the ``paucity`` script beside this Python, as a user runs
it), the best of ``--repeats`` after one unmeasured run that fills numba's cache; a run that compiled a kernel
(it says ``compiling kernels, first run only``) would be reported. The examples are made in a temporary folder:
scanpy's bundled PBMC cells (700 x 765, ``paucity.datasets.pbmc68k_reduced``) as an ``.h5ad`` for ``markers``,
``markers-benchmark`` and ``serve markers`` (until it prints its address), and the small tables of the command
line's tests for the others. Beside ``markers``: ``python -c "import anndata; anndata.read_h5ad(FILE)"`` on the
same file, the time that reading it alone takes (the issue's goal: ``markers`` within 2x of it). ``--help`` is
timed for ``paucity`` and every command and subcommand, found by walking the command line's groups.
``--importtime`` adds, for ``paucity markers``, the seconds of each top-level package imported
(``python -X importtime``). The load average is read before and after; the run waits (``--quiet-load``,
``--max-wait``) for the one-minute load average to fall below 0.5 first. Results are printed and written to
``benchmarks/results/startup.json``; the figures in ``docs/benchmarks.md`` come from there.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "startup.json"
COMPILING = "compiling kernels, first run only"

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explorer_wait import machine, wait_for_quiet  # noqa: E402


def paucity() -> list[str]:
    script = Path(sys.executable).with_name("paucity")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from paucity.cli import main; main()"]


# ---------------------------------------------------------------------------------------------------- examples
def make_examples(folder: Path) -> dict[str, Path]:
    """The smallest example of each command, as the command line's tests make them."""
    import pandas as pd

    from paucity.datasets import btl_comparisons, btl_scores, pbmc68k_reduced

    paths = {}
    paths["pbmc"] = folder / "pbmc.h5ad"
    pbmc68k_reduced().write_h5ad(paths["pbmc"])

    strength = btl_scores(30, random_state=0)
    names = [f"t{k}" for k in range(30)]
    table = btl_comparisons(strength, 600, items=names, random_state=1).to_dataframe()
    table["winner"] = np.where(table["y"] == 1, table["j"], table["i"])
    table = table.rename(columns={"i": "home", "j": "away"})
    paths["games"], paths["held"] = folder / "games.csv", folder / "held.csv"
    table[["home", "away", "winner"]].iloc[:450].to_csv(paths["games"], index=False)
    table[["home", "away", "winner"]].iloc[450:].to_csv(paths["held"], index=False)

    rng = np.random.default_rng(0)
    columns = [f"f{j}" for j in range(5)]
    paths["x"], paths["y"] = folder / "X.csv", folder / "Y.csv"
    pd.DataFrame(rng.normal(size=(60, 5)), columns=columns).to_csv(paths["x"], index=False)
    Y = pd.DataFrame(rng.normal(size=(50, 5)), columns=columns)
    Y["f2"] = 3.0 * Y["f2"] + 1.5
    Y.to_csv(paths["y"], index=False)

    attributes = ["signal", "a", "b", "c"]
    truth = rng.normal(size=(60, len(attributes)))
    objects = [f"o{i}" for i in range(60)]
    rows = [(name, attribute, truth[i, a] + rng.normal()) for i, name in enumerate(objects)
            for a, attribute in enumerate(attributes) for _ in range(2)]
    paths["judgments"], paths["judgment_labels"] = folder / "judgments.csv", folder / "judgment_labels.csv"
    pd.DataFrame(rows, columns=["object", "attribute", "value"]).to_csv(paths["judgments"], index=False)
    pd.DataFrame({"object": objects, "label": truth[:, 0] + 0.1 * rng.normal(size=60)}).to_csv(
        paths["judgment_labels"], index=False)

    ids = [f"t{i:03d}" for i in range(70)]
    X = pd.DataFrame(rng.normal(size=(70, 2)), columns=["a", "b"], index=pd.Index(ids, name="task"))
    answer = np.where(X["a"] - X["b"] > 0, "yes", "no")
    flip = {"yes": "no", "no": "yes"}
    crowd = [(ids[i], f"w{w}", answer[i] if w < 8 else flip[answer[i]]) for i in range(50) for w in range(12)
             if rng.random() < 0.3]
    crowd += [(ids[i], "R", answer[i]) for i in range(6)]
    paths["labels"], paths["tasks"] = folder / "labels.csv", folder / "tasks.csv"
    pd.DataFrame(crowd, columns=["task", "worker", "label"]).to_csv(paths["labels"], index=False)
    X.to_csv(paths["tasks"])

    points = np.r_[rng.normal(0, 1, (8, 2)), rng.normal(0, 1, (8, 2)) + [3, 0]]
    W = np.exp(-((points[:, None] - points[None]) ** 2).sum(-1) / 2)
    items = [f"i{k}" for k in range(16)]
    paths["similarities"] = folder / "similarities.csv"
    pd.DataFrame(W, index=items, columns=items).to_csv(paths["similarities"], float_format="%.17g")
    paths["items"] = folder / "items.csv"
    pd.DataFrame({"photo": [f"ph{k}" for k in range(10)]}).to_csv(paths["items"], index=False)
    return paths


def commands(paths: dict[str, Path], folder: Path) -> dict[str, list[str]]:
    out = folder / "out"
    out.mkdir(exist_ok=True)
    crowd = ["--n-factors", "2", "--n-burnin", "50", "--n-samples", "100", "--random-state", "0"]
    session = folder / "session.db"
    return {
        "markers": ["markers", paths["pbmc"], "--groupby", "bulk_labels", "-n", "10", "--out", out / "markers.csv"],
        "markers-benchmark": ["markers-benchmark", paths["pbmc"], "--groupby", "bulk_labels", "--methods", "mim",
                              "--n-features", "5", "--n-folds", "2", "--classifiers", "nearest_centroids",
                              "--out", out / "benchmark.csv"],
        "rank": ["rank", paths["games"], "--i-column", "home", "--j-column", "away", "--winner-column", "winner",
                 "--out", out / "scores.csv"],
        "rank-suggest": ["rank-suggest", paths["games"], "--i-column", "home", "--j-column", "away",
                         "--winner-column", "winner", "--out", out / "pairs.csv"],
        "rank-evaluate": ["rank-evaluate", out / "scores.csv", paths["held"], "--i-column", "home", "--j-column",
                          "away", "--winner-column", "winner"],
        "differences": ["differences", paths["x"], paths["y"], "--n-features", "2", "--n-permutations", "19",
                        "--out", out / "differences.json"],
        "multiselect": ["multiselect", paths["judgments"], "--labels", paths["judgment_labels"], "--budget", "5",
                        "--out", out / "multiselect.json"],
        "crowd": ["crowd", paths["labels"], "--labeler-column", "worker", "--features", paths["tasks"],
                  "--researcher", "R", *crowd, "--out", out / "crowd.csv"],
        "cluster-active": ["cluster-active", paths["similarities"], "--budget", "0.25", "--random-state", "3",
                           "--out", out / "labels.csv"],
        "cluster-session start": ["cluster-session", "start", session, "--items", paths["items"], "--budget", "12",
                                  "--out", out / "asks.csv"],
        "cluster-session status": ["cluster-session", "status", session],
        "cluster-session ask": ["cluster-session", "ask", session, "--out", out / "more.csv"],
        "serve markers (to its address)": ["serve", "markers", paths["pbmc"], "--groupby", "bulk_labels"],
    }


# ---------------------------------------------------------------------------------------------------- timing
def run_once(argv: list[str], until: str | None = None) -> tuple[float, str]:
    """Seconds of one fresh process (or, with ``until``, to the first output line holding it; then stopped)."""
    start = time.perf_counter()
    if until is None:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
        return seconds, done.stderr
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in process.stdout:
        lines.append(line)
        if until in line:
            break
    seconds = time.perf_counter() - start
    process.terminate()
    process.wait(timeout=60)
    return seconds, "".join(lines)


def best_of(argv: list[str], repeats: int, until: str | None = None) -> dict:
    run_once(argv, until)  # fills numba's cache; not measured
    times, compiled = [], False
    for _ in range(repeats):
        seconds, said = run_once(argv, until)
        times.append(seconds)
        compiled |= COMPILING in said
    return {"best": min(times), "median": float(np.median(times)), "times": [round(t, 3) for t in times],
            "compiled": compiled}


def help_commands() -> list[list[str]]:
    """``[]`` and the path of every command and subcommand of the command line."""
    import typer.main

    from paucity.cli.application import app

    found = []

    def walk(command, path):
        found.append(path)
        for name in sorted(getattr(command, "commands", {})):
            walk(command.commands[name], [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def importtime(argv: list[str]) -> dict[str, float]:
    """Seconds spent importing each package in ``argv``'s process: the cumulative import time of its outermost
    imports (those not made by the package itself). A package that another imports is inside that one's time
    too: sklearn's includes scipy.stats."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "from paucity.cli import main; main()",
                           *argv[1:]] if argv[0].endswith("paucity") else argv, capture_output=True, text=True)
    entries = []
    for line in done.stderr.splitlines():
        found = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if found:
            entries.append((len(found[2]), found[3].split(".")[0], int(found[1]) / 1e6))
    packages: dict[str, float] = {}
    for k, (depth, package, seconds) in enumerate(entries):  # a module's importer is the next one less indented
        parent = next((p for d, p, _ in entries[k + 1:] if d < depth), None)
        if parent != package:
            packages[package] = packages.get(package, 0.0) + seconds
    return dict(sorted(packages.items(), key=lambda item: -item[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--importtime", action="store_true")
    parser.add_argument("--quiet-load", type=float, default=0.5)
    parser.add_argument("--max-wait", type=float, default=1800)
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()

    report = {"machine": machine()}
    with tempfile.TemporaryDirectory(prefix="paucity-startup-") as folder:
        folder = Path(folder)
        paths = make_examples(folder)
        todo = {name: [*paucity(), *map(str, argv)] for name, argv in commands(paths, folder).items()}
        report["waited_for_quiet_seconds"] = round(wait_for_quiet(args.quiet_load, args.max_wait))
        report["load_average_before"] = os.getloadavg()
        baseline = [sys.executable, "-c", f"import anndata; anndata.read_h5ad({str(paths['pbmc'])!r})"]
        report["anndata_read"] = best_of(baseline, args.repeats)
        report["commands"] = {}
        for name, argv in todo.items():
            until = "http://" if name.startswith("serve") else None
            report["commands"][name] = best_of(argv, args.repeats, until)
            print(f"{name:34} {report['commands'][name]['best']:6.2f} s", flush=True)
        report["markers_over_anndata"] = report["commands"]["markers"]["best"] / report["anndata_read"]["best"]
        report["help"] = {}
        for path in help_commands():
            argv = [*paucity(), *path, "--help"]
            report["help"][" ".join(["paucity", *path])] = best_of(argv, args.repeats)
        report["version"] = best_of([*paucity(), "--version"], args.repeats)
        if args.importtime:
            report["markers_imports"] = importtime(todo["markers"])
        report["load_average_after"] = os.getloadavg()

    print(f"\nanndata.read_h5ad alone: {report['anndata_read']['best']:.2f} s; paucity markers "
          f"{report['commands']['markers']['best']:.2f} s ({report['markers_over_anndata']:.2f}x)")
    slowest = max(report["help"].items(), key=lambda item: item[1]["best"])
    print(f"--help: {len(report['help'])} commands, {min(h['best'] for h in report['help'].values()):.2f} to "
          f"{slowest[1]['best']:.2f} s ({slowest[0]})")
    print(f"load {report['load_average_before'][0]:.2f} before, {report['load_average_after'][0]:.2f} after")
    if args.importtime:
        print("imports of paucity markers: " + ", ".join(f"{k} {v:.2f} s" for k, v in
                                                          list(report["markers_imports"].items())[:8]))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
