"""Two-sample power with λ fixed by a rule, with and without SPARDA's support rules, beside hyppo (seed 004).

The seed's "Two-sample Testing" experiment (the data of
``experiments/differences_power.py``: only 3 of d features differ, Wishart
covariances, the columns shuffled) rerun so that nothing is chosen on the
reported draws:

- **λ by a rule fixed in advance.** For each d and each variant, ``PDACV``
  (its defaults: 8 values of ``lambda_grid``, one split into halves; the
  solver settings below) is fitted on a separate draw of the design
  (repetition ``LAMBDA_DRAW`` = 100, never tested) and its ``lam_`` is used
  for all the reported repetitions 0–9 of that d.
- **With and without the support rules** of ``PDA`` (``support_rules=True`` /
  ``False``); each variant chooses its own λ.
- **Beside the permutation tests the seed compares with**, run by the
  anchor: hyppo's energy test and its MMD test (Gaussian kernel), each a
  permutation test of ``HYPPO_REPS`` permutations (``benchmarks/_hyppo_runner.py``
  in the anchor's interpreter, ``--anchor-python``).

SPARDA's statistic is its ``divergence_``, refitted on each of B permutations
(``paucity.differences.permutation_test``, p = (b + 1)/(B + 1)). The seed's
n = m = 1,000 does not fit two cores with a refit per permutation (one SPARDA
fit at d = 100 takes about 1 s at n = 300, 3 s at 400 and 7 s at 600 with the
reduced solver, and the run makes 2 × 40 × (B + 1) of them); the sizes used
are in ``SETTINGS`` and in the JSON beside the CSV.

Writes ``experiments/results/differences_power_rules.csv`` (one row per d,
repetition and method), ``differences_power_rules.json`` (settings, the λ
chosen, versions, rejection rates) and ``docs/figures/differences_power_rules.png``.

Run from the repository root (about 40 minutes on 2 cores)::

    python -m experiments.differences_power_rules --anchor-python /path/to/hyppo-venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.differences_power import N_DIFFERING, make_data, permutation_seed

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
FIGURES = ROOT / "docs" / "figures"
RUNNER = ROOT / "benchmarks" / "_hyppo_runner.py"
LAMBDA_DRAW = 100
SETTINGS = {
    "d": [3, 10, 30, 100],
    "repetitions": 10,
    "n": 300,  # rows of X and of Y (the seed: 1,000)
    "permutations": 39,  # B for SPARDA: p = (b + 1) / 40, so p <= 0.05 means at most one permuted divergence as large
    "hyppo_reps": 200,
    "solver": {"max_iter": 100, "patience": 20, "n_restarts": 1, "tighten_max_iter": 100},
}
QUICK = {"d": [3, 10], "repetitions": 2, "n": 60, "permutations": 9, "hyppo_reps": 20,
         "solver": {"max_iter": 20, "patience": 10, "n_restarts": 0, "tighten_max_iter": 30}}
VARIANTS = {"SPARDA, support rules": True, "SPARDA, RELAX's support": False}


def choose_lambda(d: int, rules: bool, settings: dict) -> float:
    from threadpoolctl import threadpool_limits

    from paucity.differences import PDACV

    X, Y, _ = make_data(d, LAMBDA_DRAW, settings["n"])
    with threadpool_limits(1):
        return float(PDACV(random_state=0, support_rules=rules, **settings["solver"]).fit(X, Y).lam_)


def test_one(task) -> list[dict]:
    d, repetition, method, lam, settings = task
    from threadpoolctl import threadpool_limits

    from paucity.differences import PDA, permutation_test

    X, Y, differing = make_data(d, repetition, settings["n"])
    model = PDA(sparsity="l1", lam=lam, random_state=0, support_rules=VARIANTS[method], **settings["solver"])
    start = time.perf_counter()
    with threadpool_limits(1):
        result = permutation_test(X, Y, model, n_permutations=settings["permutations"],
                                  random_state=permutation_seed(d, repetition))
        fitted = model.fit(X, Y)
    return [{"d": d, "repetition": repetition, "method": method, "lam": lam, "pvalue": result.pvalue,
             "statistic": result.statistic, "n_selected": len(fitted.selected_),
             "differing_selected": int(np.isin(fitted.selected_, differing).sum()),
             "seconds": round(time.perf_counter() - start, 2)}]


def run_hyppo(settings: dict, anchor_python: str) -> tuple[list[dict], dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    tasks = [(d, r) for d in settings["d"] for r in range(settings["repetitions"])]
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "data.npz", Path(tmp) / "out.npz"
        arrays = {}
        for k, (d, r) in enumerate(tasks):
            X, Y, _ = make_data(d, r, settings["n"])
            arrays[f"pooled_{k}"] = np.concatenate([X, Y])
            arrays[f"n_{k}"] = np.int64(X.shape[0])
            arrays[f"seed_{k}"] = np.int64(permutation_seed(d, r) % 2**31)
        np.savez(data, **arrays)
        done = subprocess.run([anchor_python, str(RUNNER), str(data), str(out), "--reps", str(settings["hyppo_reps"])],
                              check=False, capture_output=True, text=True, env=env)
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"hyppo runner failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        rows = []
        with np.load(out) as f:
            versions = json.loads(str(f["versions"]))
            for k, (d, r) in enumerate(tasks):
                for name, label in (("energy", "energy (hyppo)"), ("mmd", "MMD (hyppo)")):
                    rows.append({"d": d, "repetition": r, "method": label, "pvalue": float(f[f"{name}_pvalue_{k}"]),
                                 "statistic": float(f[f"{name}_stat_{k}"]), "seconds": float(f[f"seconds_{k}"]) / 2})
    return rows, versions


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.assign(rejected=frame["pvalue"] <= 0.05)
    table = frame.groupby(["d", "method"]).agg(power=("rejected", "mean"), mean_pvalue=("pvalue", "mean"),
                                               n_selected=("n_selected", "mean"),
                                               differing_selected=("differing_selected", "mean"))
    return table.reset_index()


def plot(summary: pd.DataFrame, settings: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from paucity.io import write_figure

    styles = {"SPARDA, support rules": ("tab:red", "-"), "SPARDA, RELAX's support": ("tab:red", "--"),
              "energy (hyppo)": ("black", "-"), "MMD (hyppo)": ("tab:green", "-")}
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for method, (colour, line) in styles.items():
        part = summary[summary["method"] == method]
        if len(part):
            ax.plot(part["d"], part["power"], marker="o", color=colour, linestyle=line, label=method)
    ax.set_xscale("log")
    ax.set_xticks(settings["d"], [str(d) for d in settings["d"]])
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("dimension d (only 3 features differ)")
    ax.set_ylabel(f"share of {settings['repetitions']} repetitions with p ≤ 0.05")
    ax.set_title(f"Power, n = m = {settings['n']}, λ by PDACV on a separate draw", fontsize=10)
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_figure(fig, path, dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor-python", default=os.environ.get("PAUCITY_ANCHOR_PYTHON"),
                        help="interpreter with hyppo installed (default: $PAUCITY_ANCHOR_PYTHON; skipped when unset)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, written to a temporary folder")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else SETTINGS
    folder = Path(tempfile.mkdtemp(prefix="power-rules-")) if args.quick else None
    csv_path = (folder or RESULTS) / "differences_power_rules.csv"
    json_path = (folder or RESULTS) / "differences_power_rules.json"
    png_path = (folder or FIGURES) / "differences_power_rules.png"
    started = time.perf_counter()
    from joblib import Parallel, delayed

    choices = [(d, method) for d in settings["d"] for method in VARIANTS]
    lams = Parallel(n_jobs=args.jobs)(delayed(choose_lambda)(d, VARIANTS[method], settings) for d, method in choices)
    chosen = {f"{d}|{method}": lam for (d, method), lam in zip(choices, lams)}
    print("λ chosen on repetition", LAMBDA_DRAW, json.dumps(chosen, ensure_ascii=False), flush=True)
    tasks = [(d, r, method, chosen[f"{d}|{method}"], settings)
             for d in sorted(settings["d"], reverse=True) for r in range(settings["repetitions"]) for method in VARIANTS]
    rows = []
    for k, part in enumerate(Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
            delayed(test_one)(task) for task in tasks)):
        rows += part
        print(f"[{k + 1}/{len(tasks)}, {time.perf_counter() - started:.0f} s] d={part[0]['d']} rep {part[0]['repetition']} "
              f"{part[0]['method']}: p={part[0]['pvalue']:.3f}, {part[0]['n_selected']} selected", flush=True)
    versions = None
    if args.anchor_python:
        hyppo_rows, versions = run_hyppo(settings, args.anchor_python)
        rows += hyppo_rows
    else:
        print("no --anchor-python: hyppo's tests are skipped", flush=True)
    frame = pd.DataFrame(rows).sort_values(["d", "method", "repetition"], kind="stable")
    summary = summarize(frame)
    from paucity.io import write_csv, write_text

    sys_path = csv_path.parent
    sys_path.mkdir(parents=True, exist_ok=True)
    write_csv(frame, csv_path, index=False, float_format="%.6g")
    write_text(json.dumps({"settings": settings, "lambda_draw": LAMBDA_DRAW, "lambda_chosen": chosen,
                           "hyppo_versions": versions, "wall_seconds": round(time.perf_counter() - started, 1),
                           "summary": summary.to_dict(orient="records")}, indent=1, ensure_ascii=False), json_path)
    plot(summary, settings, png_path)
    print(summary.round(3).to_string(index=False))
    print(f"wrote {csv_path}, {json_path} and {png_path}")


if __name__ == "__main__":
    main()
