"""Principal differences benchmark: paucity's PDA and SPARDA beside POT's max-sliced Wasserstein distance.

Run with paucity's development Python from the repository root::

    python benchmarks/differences.py --anchor-python /path/to/pot-venv/bin/python
    python benchmarks/differences.py --quick          # a small smoke run (nothing written to docs/)

Data: the two classes of the MADELON-like problem of seed 004 ("Feature
Selection"), drawn by ``sklearn.datasets.make_classification(n_samples=2000,
n_features=500, n_informative=5, n_redundant=15, n_repeated=0,
n_clusters_per_class=16, shuffle=False, random_state=0)``: X is class 0
(1,001 rows), Y class 1 (999 rows). With ``shuffle=False`` the 20 features that
differ between the classes are the first 20 columns; the other 480 are noise.
Every feature is standardized on the pooled 2,000 rows (mean 0, variance 1),
so that one ℓ₁ penalty fits all features.

paucity (this process, warmed on a tiny fit first, best of ``--repeats``):

- ``PDA(random_state=0)``: RELAX + tightening with the default settings;
- ``PDA(sparsity="l1", lam=0.2, random_state=0)``: SPARDA.

POT (in a subprocess with the anchor's interpreter, ``benchmarks/_pot_runner.py``,
the data passed as temporary ``.npy`` files):
``ot.sliced.max_sliced_wasserstein_distance(X, Y, n_projections=10_000, p=2,
seed=0, log=True)``, best of ``--repeats``. POT returns the largest W₂ (not
squared) over 10,000 random unit directions; PDA's ``divergence_`` is the
squared W₂ of the projections on its direction. So the comparison is PDA's
``divergence_`` against POT's value squared, and, like for like, paucity's own
squared W₂ evaluated along POT's best direction (``log=True`` returns the
sampled directions and their W₂²). PDA optimizes over every direction, so its
value must be at least POT's.

The numbers are printed, saved to ``benchmarks/results/differences_speed.csv``
and ``.json``, and written to ``docs/benchmarks.md`` between
``<!-- differences:begin -->`` and ``<!-- differences:end -->`` (not with
``--quick``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markers import fmt_seconds, machine, package_version, versions_line, write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "benchmarks" / "_pot_runner.py"
RESULTS = ROOT / "benchmarks" / "results"
SECTION = ("<!-- differences:begin -->", "<!-- differences:end -->")
SEED = 0
N_RELEVANT = 20  # n_informative + n_redundant: the first columns with shuffle=False
FULL = {"n_samples": 2000, "n_features": 500, "n_informative": 5, "n_redundant": 15,
        "n_clusters_per_class": 16, "n_projections": 10_000, "lam": 0.2}
QUICK = {"n_samples": 300, "n_features": 40, "n_informative": 5, "n_redundant": 15,
         "n_clusters_per_class": 2, "n_projections": 1_000, "lam": 0.2}
TIME_LIMIT = 60.0  # seconds: the target for RELAX + tightening on MADELON


def make_data(settings: dict):
    """The two classes of make_classification, features standardized on the pooled rows."""
    from sklearn.datasets import make_classification

    Z, labels = make_classification(
        n_samples=settings["n_samples"], n_features=settings["n_features"],
        n_informative=settings["n_informative"], n_redundant=settings["n_redundant"], n_repeated=0,
        n_clusters_per_class=settings["n_clusters_per_class"], shuffle=False, random_state=SEED,
    )
    Z = (Z - Z.mean(axis=0)) / Z.std(axis=0)
    return np.ascontiguousarray(Z[labels == 0]), np.ascontiguousarray(Z[labels == 1])


def estimators(lam: float) -> dict:
    from paucity.differences import PDA

    return {
        "PDA()": PDA(random_state=SEED),
        f'PDA(sparsity="l1", lam={lam:g})': PDA(sparsity="l1", lam=lam, random_state=SEED),
    }


def warm() -> None:
    from paucity.differences import PDA

    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(30, 4)), rng.normal(size=(25, 4))
    PDA(max_iter=5, random_state=0).fit(X, Y)
    PDA(sparsity="l1", lam=0.1, max_iter=5, random_state=0).fit(X, Y)


def time_paucity(X, Y, lam: float, repeats: int) -> list[dict]:
    from sklearn.base import clone

    rows = []
    for name, template in estimators(lam).items():
        times, cpu = [], []
        for _ in range(repeats):
            model = clone(template)
            t0, c0 = time.perf_counter(), time.process_time()
            model.fit(X, Y)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            print(f"   {name}: {times[-1]:.1f} s ({cpu[-1]:.1f} s of CPU), divergence_ = {model.divergence_:.6g}",
                  flush=True)
        selected = np.asarray(model.selected_, dtype=np.int64)
        top = np.argsort(-np.abs(model.beta_), kind="stable")[:N_RELEVANT]
        rows.append({
            "method": name,
            "library": "paucity",
            "seconds": min(times),
            "cpu_seconds": cpu[int(np.argmin(times))],
            "all_seconds": times,
            "value": float(model.divergence_),
            "relax_iterations": int(model.relaxation_.n_iter),
            "relax_best_iteration": int(model.relaxation_.best_iteration),
            "relax_tightness": float(model.relaxation_.tightness),
            "n_selected": int(selected.size),
            "relevant_selected": int(np.sum(selected < N_RELEVANT)),
            "relevant_in_top20": int(np.sum(top < N_RELEVANT)),
        })
    return rows


def run_pot(anchor_python: str, X, Y, n_projections: int, repeats: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    with tempfile.TemporaryDirectory() as tmp:
        x_path, y_path, out = Path(tmp) / "X.npy", Path(tmp) / "Y.npy", Path(tmp) / "pot.json"
        np.save(x_path, X)
        np.save(y_path, Y)
        command = [anchor_python, str(RUNNER), "max-sliced", str(x_path), str(y_path), str(out),
                   "--n-projections", str(n_projections), "--seed", str(SEED), "--repeats", str(repeats)]
        done = subprocess.run(command, check=False, capture_output=True, text=True, env=env)
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"POT runner failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        return json.loads(out.read_text())


def pot_row(report: dict, X, Y) -> dict:
    from paucity.differences import Wasserstein

    theta = np.asarray(report["best_projection"], dtype=np.float64)
    ours = float(Wasserstein().value(X @ theta, Y @ theta))
    return {
        "method": f"ot.sliced.max_sliced_wasserstein_distance(n_projections={report['kwargs']['n_projections']:,}, p=2)",
        "library": "POT",
        "seconds": report["seconds"],
        "cpu_seconds": report.get("cpu_seconds"),
        "all_seconds": report["all_seconds"],
        "value": report["value_squared"],
        "pot_value_w2": report["value"],
        "paucity_w2_squared_on_pot_direction": ours,
    }


def table(rows: list[dict], pot: dict | None) -> str:
    lines = [
        "| method | library | seconds (wall) | seconds (CPU) | time / POT's | D = W₂² of the projections "
        "| D / POT's max-sliced W₂² | relevant among selected | relevant among the 20 largest weights |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows + ([pot] if pot else []):
        ratio = f"{row['value'] / pot['value']:.1f}×" if pot else "—"
        speed = f"{row['seconds'] / pot['seconds']:.1f}×" if pot else "—"
        cpu = fmt_seconds(row.get("cpu_seconds"))
        if row["library"] == "paucity":
            relevant = f"{row['relevant_selected']} of {row['n_selected']}"
            top = f"{row['relevant_in_top20']}"
        else:
            relevant = top = "—"
        lines.append(f"| `{row['method']}` | {row['library']} | {fmt_seconds(row['seconds'])} | {cpu} | {speed} "
                     f"| {row['value']:.4f} | {ratio} | {relevant} | {top} |")
    return "\n".join(lines)


def report_text(settings, X, Y, rows, pot, versions, pot_versions, repeats, command, load) -> str:
    host = machine()
    pda = rows[0]
    within = "within" if pda["seconds"] <= TIME_LIMIT else "over"
    cpu_note = ("CPU time is this process's (`time.process_time`): all its threads together, so on busy cores it is "
                "nearer the work done than the wall-clock time is.")
    parts = [
        "## Principal differences: paucity's PDA and SPARDA vs POT's max-sliced Wasserstein distance",
        "",
        f"MADELON-like data of seed 004: the two classes of `make_classification(n_samples={settings['n_samples']:,}, "
        f"n_features={settings['n_features']}, n_informative={settings['n_informative']}, "
        f"n_redundant={settings['n_redundant']}, n_repeated=0, n_clusters_per_class={settings['n_clusters_per_class']}, "
        f"shuffle=False, random_state={SEED})`, X = class 0 ({X.shape[0]:,} rows), Y = class 1 ({Y.shape[0]:,} rows); "
        f"the first {N_RELEVANT} features differ between the classes, the other "
        f"{settings['n_features'] - N_RELEVANT} are noise. Every feature is standardized on the pooled rows. "
        f"paucity fits in this process after a warm-up fit, best of {repeats} runs; POT runs in a process of its "
        f"own (data passed as `.npy` files), best of {repeats} runs after a warm-up call.",
        "",
        "POT's `max_sliced_wasserstein_distance` returns the largest W₂ — not squared — over its random unit "
        "directions (its docstring: the p-th root of the largest projected W_p^p); PDA's `divergence_` is the "
        "squared W₂ of the projections on the direction it found. The table compares `divergence_` with POT's value "
        "squared.",
        "",
        table(rows, pot),
        "",
    ]
    if pot:
        gap = abs(pot["paucity_w2_squared_on_pot_direction"] - pot["value"])
        parts += [
            f"- Like for like: paucity's `Wasserstein().value` along POT's best direction is "
            f"{pot['paucity_w2_squared_on_pot_direction']:.6f}, POT's own W₂² there is {pot['value']:.6f} "
            f"(difference {gap:.1e}).",
            f"- `PDA()` reaches {pda['value'] / pot['value']:.1f}× the squared max-sliced distance over "
            f"{settings['n_projections']:,} random directions, and SPARDA {rows[1]['value'] / pot['value']:.1f}×: in "
            f"{settings['n_features']} dimensions a random direction is nearly orthogonal to the few that matter. "
            f"POT took {pot['seconds']:.1f} s and `PDA()` {pda['seconds']:.1f} s "
            f"({'faster' if pda['seconds'] < pot['seconds'] else 'slower'} than POT, "
            f"{pda['seconds'] / pot['seconds']:.2f}× its time).",
        ]
    parts += [
        f"- `PDA()` (RELAX, {pda['relax_iterations']} iterations on row blocks of 256 rows per side, best at "
        f"{pda['relax_best_iteration']}; then tightening on all rows from RELAX's direction and 4 random restarts): "
        f"{pda['seconds']:.1f} s of wall-clock time "
        f"({pda['cpu_seconds']:.1f} s of CPU), {within} the {TIME_LIMIT:.0f} s target on this machine; "
        f"{pda['relevant_in_top20']} of its 20 largest weights are on relevant features.",
        f"- SPARDA (`lam={settings['lam']:g}`): {rows[1]['n_selected']} features selected, "
        f"{rows[1]['relevant_selected']} of them relevant (of {N_RELEVANT}).",
        "",
        f"Machine: {host['cpu']}, {host['cores']} cores, {host['memory']} memory, {host['os']}; 1-minute load "
        f"average {load[0]:.1f} before the paucity fits and {load[1]:.1f} after them (above 1, other work shared "
        f"the cores and the wall-clock times are inflated). {cpu_note}  ",
        f"paucity side: {versions_line(versions)}.  ",
    ]
    if pot_versions:
        parts.append(f"POT side: {versions_line(pot_versions)}.")
    parts += ["", f"Command: `{command}`."]
    return "\n".join(parts)


def our_versions() -> dict:
    import platform

    return {
        "python": platform.python_version(),
        "paucity": package_version("paucity"),
        "numpy": np.__version__,
        "scipy": package_version("scipy"),
        "scikit-learn": package_version("scikit-learn"),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor-python", default=os.environ.get("PAUCITY_ANCHOR_PYTHON"),
                        help="interpreter with POT installed (default: $PAUCITY_ANCHOR_PYTHON; skipped when unset)")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per method, best kept (default 2; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a small smoke run; writes nothing under docs/")
    parser.add_argument("--no-docs", action="store_true",
                        help="write benchmarks/results/ but print the docs/benchmarks.md section instead of writing it")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    repeats = args.repeats or (1 if args.quick else 2)

    X, Y = make_data(settings)
    print(f"data: X {X.shape}, Y {Y.shape}", flush=True)
    warm()
    load_before = os.getloadavg()[0]
    rows = time_paucity(X, Y, settings["lam"], repeats)
    load = (load_before, os.getloadavg()[0])
    pot = None
    pot_versions = None
    if args.anchor_python:
        print("running POT ...", flush=True)
        report = run_pot(args.anchor_python, X, Y, settings["n_projections"], repeats)
        pot = pot_row(report, X, Y)
        pot_versions = report["versions"]
    else:
        print("no --anchor-python (or PAUCITY_ANCHOR_PYTHON): POT skipped", flush=True)

    for row in rows + ([pot] if pot else []):
        print(f"{row['method']}: {row['seconds']:.2f} s, value {row['value']:.6g}", flush=True)
    if pot:
        print(f"paucity W2^2 on POT's best direction: {pot['paucity_w2_squared_on_pot_direction']:.6g}")
        for row in rows:
            larger = row["value"] > pot["value"]
            print(f"{row['method']}: {row['value'] / pot['value']:.2f}x POT's squared max "
                  f"({'larger' if larger else 'NOT larger'}); POT time / paucity time = "
                  f"{pot['seconds'] / row['seconds']:.2f}")

    if args.quick or not pot:
        print(table(rows, pot))
        if not pot and not args.quick:
            print("without POT beside it nothing is written: the recorded figures are side-by-side runs")
        return
    import pandas as pd

    from paucity.io import write_csv, write_text

    RESULTS.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([{k: v for k, v in row.items() if k != "all_seconds"} for row in rows + ([pot] if pot else [])])
    if pot:
        frame["value_over_pot"] = frame["value"] / pot["value"]
        frame["seconds_over_pot_seconds"] = frame["seconds"] / pot["seconds"]
    frame.insert(0, "data", "madelon")
    write_csv(frame, RESULTS / "differences_speed.csv", index=False, float_format="%.6g")
    versions = our_versions()
    summary = {"settings": settings, "machine": machine(), "load_average": load, "rows": rows, "pot": pot,
               "versions": versions, "pot_versions": pot_versions, "repeats": repeats}
    write_text(json.dumps(summary, indent=1), RESULTS / "differences_speed.json")
    command = "python benchmarks/differences.py --anchor-python $PAUCITY_ANCHOR_PYTHON" + (
        f" --repeats {args.repeats}" if args.repeats else "")
    text = report_text(settings, X, Y, rows, pot, versions, pot_versions, repeats, command, load)
    if args.no_docs:
        print(text)
        print("wrote benchmarks/results/differences_speed.csv (docs/benchmarks.md left as it is)")
        return
    write_section(SECTION, text)
    print("wrote benchmarks/results/differences_speed.csv and the differences section of docs/benchmarks.md")


if __name__ == "__main__":
    main()
