"""BBMC on a crowd of the seed's kind at 200,000 and 1,000,000 labels, beside Dawid–Skene in the same run.

Run from the repository root with paucity's development Python (crowd-kit installed, for Dawid–Skene), on an
otherwise idle machine::

    python benchmarks/crowd_scale.py                          # 200,000 labels: DS, pool() at its defaults, a profile
    python benchmarks/crowd_scale.py --tasks 100000           # 1,000,000 labels
    python benchmarks/crowd_scale.py --max-sweeps 2000        # cap the open length (the default is pool's: 22,000)
    python benchmarks/crowd_scale.py --quick                  # 2,000 tasks, a check in seconds
    python benchmarks/crowd_scale.py --modes 1,2,3            # where single chains from these seeds settle

The crowd: ``--tasks`` tasks x 10 labels from 500 labelers, 5 standard normal features; half the labelers
answer by the researcher's rule (probit, unit noise), a quarter lean one way and a quarter another; the
researcher's gold labels (her rule without noise) on 2 % of the tasks. Accuracy is against her rule on every
task. Dawid–Skene (``aggregate(labels, method="dawid_skene")``, crowd-kit's) pools the crowd without her
labels' features, so it follows the crowd. The profile times each step of the sweep on one chain (one thread)
and says what a sweep costs per label and per task. Wall-clock and process time, the peak resident memory of
this process, and the load average before and after are recorded.

``--modes`` runs one chain per seed (the sampler's own sweep, ``--mode-sweeps`` of them, one after another in
this thread, started as BBMC starts a chain) and says where each settles: the researcher's row of Z, how many labelers hold each factor, the
size of her weights |beta_r| over the second half and their cosine with her rule, and the log-likelihood of
her gold labels under her weights at the end, the effective sample size of her weights over the second half, and
the R-hat of the seeds' chains taken together.

Writes ``benchmarks/results/crowd_scale_<labels>.json`` (``_seed<N>`` added for a crowd drawn with ``--seed N``
other than 0; ``--modes``: ``crowd_scale_modes_<labels>.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
RULE = np.array([1.5, -1.0, 0.8, 0.0, 0.5])
LEANS = (np.array([0.0, 2.0, 0.0, -1.5, 0.0]), np.array([-1.0, 0.0, 1.0, 1.5, -1.5]))


def simulate(n_tasks: int, *, per_task: int = 10, n_labelers: int = 500, gold_share: float = 0.02, seed: int = 0):
    """The crowd of the module docstring: (long table of labels, task features, the rule's answer per task)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_tasks, RULE.size))
    groups = np.repeat([0, 1, 2], [n_labelers // 2, n_labelers // 4, n_labelers - n_labelers // 2 - n_labelers // 4])
    weights = np.stack([RULE, RULE + LEANS[0], RULE + LEANS[1]])[groups]
    task = np.repeat(np.arange(n_tasks), per_task)
    labeler = np.concatenate([rng.choice(n_labelers, per_task, replace=False) for _ in range(n_tasks)])
    margin = np.einsum("nd,nd->n", X[task], weights[labeler]) + rng.normal(size=task.size)
    truth = np.where(X @ RULE > 0, "yes", "no")
    frame = pd.DataFrame({"task": task, "labeler": np.char.add("w", labeler.astype(str)),
                          "label": np.where(margin > 0, "yes", "no")})
    gold = rng.choice(n_tasks, int(gold_share * n_tasks), replace=False)
    frame = pd.concat([frame, pd.DataFrame({"task": gold, "labeler": "researcher", "label": truth[gold]})],
                      ignore_index=True)
    return frame, pd.DataFrame(X, columns=[f"x{k}" for k in range(RULE.size)]), truth


def _timed(function):
    wall, cpu = time.perf_counter(), time.process_time()
    value = function()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def profile(labels, X, *, n_sweeps: int, n_factors: int = 4) -> dict:
    """Seconds per sweep in each step, on one chain in this thread, after a short warm-up from the usual start."""
    from paucity.crowd.gibbs import initial_state, latent_and_sums, prepare, private_factor_moves, sample_factors
    from paucity.crowd._kernels import nesting_moves, sample_assignments, sample_rows, swap_moves
    from paucity.crowd.labels import align_features

    features, _ = align_features(labels, X)
    task, labeler, sign = labels.triples()
    data, prepare_seconds, _ = _timed(lambda: prepare(features, task, labeler, sign, labels.n_labelers))
    researcher = labels.labeler_index("researcher")
    rng = np.random.default_rng(0)
    state = initial_state(data, n_factors, 1.0, rng, researcher=researcher)
    gamma, Z = state.gamma, state.Z.copy()
    scratch = np.empty((3, data.task.size))
    rows = np.array([researcher], dtype=np.int64)
    log_weight = math.log(1.0 / n_factors)
    steps = {"latent": 0.0, "factors": 0.0, "entries": 0.0, "swaps": 0.0, "researcher_row": 0.0, "nesting": 0.0,
             "private_factors": 0.0}
    exact_entries = 0
    for sweep in range(n_sweeps + 20):
        t0 = time.perf_counter()
        t, sums = latent_and_sums(data, gamma, Z, rng)
        t1 = time.perf_counter()
        gamma = sample_factors(data, Z, t, 1.0, rng, sums)
        projections = np.ascontiguousarray(data.X @ gamma.T)
        t2 = time.perf_counter()
        exact = sample_assignments(Z, projections, data.task, data.sign, data.pointer, log_weight,
                                   rng.random(Z.shape), scratch)
        t3a = time.perf_counter()
        swap_moves(Z, projections, data.task, data.sign, data.pointer, log_weight,
                   rng.random((Z.shape[0], n_factors * (n_factors - 1) // 2)), scratch)
        t3 = time.perf_counter()
        sample_rows(Z, projections, data.task, data.sign, data.pointer, rows, log_weight, rng.random(1),
                    np.empty(1 << n_factors))
        t4 = time.perf_counter()
        gamma = np.array(gamma, order="C")
        nesting_moves(Z, gamma, log_weight, 1.0, rng.random(n_factors * (n_factors - 1)))
        t5 = time.perf_counter()
        gamma = private_factor_moves(data, gamma, Z, researcher, 1.0, rng)
        t6 = time.perf_counter()
        if sweep >= 20:  # the first sweeps compile and settle
            exact_entries += exact
            for name, seconds in zip(steps, (t1 - t0, t2 - t1, t3a - t2, t3 - t3a, t4 - t3, t5 - t4, t6 - t5)):
                steps[name] += seconds
    per_sweep = {name: seconds / n_sweeps for name, seconds in steps.items()}
    total = sum(per_sweep.values())
    return {"n_sweeps": n_sweeps, "prepare_seconds": prepare_seconds, "seconds_per_sweep": total,
            "steps_seconds_per_sweep": per_sweep,
            "nanoseconds_per_label": total / data.task.size * 1e9,
            "microseconds_per_task": total / labels.n_tasks * 1e6,
            "entries_settled_exactly": exact_entries / (n_sweeps * Z.size),
            "gold_labels": int(data.pointer[researcher + 1] - data.pointer[researcher]),
            "private_factors_at_end": int(((Z[researcher] == 1) & (Z.sum(axis=0) == 1)).sum())}


def modes(labels, X, *, seeds, n_sweeps: int, n_factors: int = 4) -> list[dict]:
    """One chain per seed from the sampler's usual start: where it settles (see the module docstring)."""
    from scipy.special import log_ndtr

    from paucity.crowd.chains import ROUND, SETTLE
    from paucity.crowd.convergence import effective_sample_size, split_rhat
    from paucity.crowd.gibbs import initial_state, prepare, sweep
    from paucity.crowd.labels import align_features

    features, _ = align_features(labels, X)
    task, labeler, sign = labels.triples()
    data = prepare(features, task, labeler, sign, labels.n_labelers)
    researcher = labels.labeler_index("researcher")
    first, last = data.pointer[researcher], data.pointer[researcher + 1]
    gold_features, gold_signs = data.features[first:last], data.sign[first:last]
    rows = np.array([researcher], dtype=np.int64)
    found, chains = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = initial_state(data, n_factors, 1.0, rng, researcher=researcher)
        scratch = np.empty((3, data.task.size))
        sizes, betas, wall = [], [], time.perf_counter()
        for step in range(n_sweeps):  # as BBMC's fresh chains: her last factor hers alone for the first round
            state = sweep(data, state, alpha=1.0, sigma=1.0, rng=rng, fix_assignments=step < SETTLE, scratch=scratch,
                          rows=rows, private=researcher, own_column=n_factors - 1 if step < ROUND else -1)
            betas.append(state.Z[researcher] @ state.gamma)
            sizes.append(float(np.linalg.norm(betas[-1])))
        kept = np.array(betas[n_sweeps - n_sweeps // 2:])
        chains.append(kept)
        beta = state.Z[researcher] @ state.gamma
        holders = state.Z.sum(axis=0) - state.Z[researcher]
        found.append({
            "seed": seed, "n_sweeps": n_sweeps, "seconds": time.perf_counter() - wall,
            "her_row": state.Z[researcher].astype(int).tolist(),
            "holders_besides_her": holders.astype(int).tolist(),
            "private_factors": int(((state.Z[researcher] == 1) & (holders == 0)).sum()),
            "beta_size_mean": float(np.mean(sizes[n_sweeps // 2:])), "beta_size_sd": float(np.std(sizes[n_sweeps // 2:])),
            "cosine_with_rule": float(beta @ RULE / np.linalg.norm(beta) / np.linalg.norm(RULE)),
            "gold_log_likelihood": float(log_ndtr(gold_signs * (gold_features @ beta)).sum()),
            "ess_beta_second_half": effective_sample_size(kept[None]).tolist(),
        })
        print(f"seed {seed}: her row {found[-1]['her_row']}, holders besides her {found[-1]['holders_besides_her']}, "
              f"|beta_r| {found[-1]['beta_size_mean']:.2f} (sd {found[-1]['beta_size_sd']:.2f}), cosine with her rule "
              f"{found[-1]['cosine_with_rule']:.3f}, log-likelihood of her gold labels "
              f"{found[-1]['gold_log_likelihood']:.1f}, ESS of beta_r's coordinates over the second half "
              f"{np.round(found[-1]['ess_beta_second_half'], 0).tolist()}", flush=True)
    together = np.stack(chains)
    found.append({"all_seeds_as_chains": {"rhat": split_rhat(together).tolist(),
                                          "ess": effective_sample_size(together).tolist()}})
    print(f"the seeds' chains together, second halves: R-hat {np.round(split_rhat(together), 3).tolist()}, ESS "
          f"{np.round(effective_sample_size(together), 0).tolist()}", flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20000, help="tasks, 10 labels each (default 20,000)")
    parser.add_argument("--max-sweeps", type=int, default=22000, help="pool()'s max_sweeps (its default: 22,000)")
    parser.add_argument("--profile-sweeps", type=int, default=50, help="sweeps timed step by step (default 50)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-pool", action="store_true", help="Dawid–Skene and the profile only")
    parser.add_argument("--quick", action="store_true", help="2,000 tasks and 400 sweeps at most: a check")
    parser.add_argument("--modes", help="seeds (comma-separated): one chain each, and where it settles")
    parser.add_argument("--mode-sweeps", type=int, default=600, help="sweeps of each --modes chain (default 600)")
    args = parser.parse_args()
    if args.quick:
        args.tasks, args.max_sweeps, args.profile_sweeps = 2000, 400, 5
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from markers import machine, package_version

    from paucity.crowd import LabelMatrix, aggregate, pool

    load_before = os.getloadavg()
    frame, X, truth = simulate(args.tasks, seed=args.seed)
    labels, build_seconds, _ = _timed(lambda: LabelMatrix.from_frame(frame, positive="yes"))
    n_labels = labels.n_labels
    print(f"{n_labels} labels on {labels.n_tasks} tasks from {labels.n_labelers - 1} labelers and the researcher "
          f"(label matrix built in {build_seconds:.1f} s)", flush=True)
    rule = pd.Series(truth, index=X.index)
    if args.modes:
        seeds = [int(seed) for seed in args.modes.split(",")]
        report = {"machine": machine(), "load_average_before": load_before, "n_labels": n_labels, "seed": args.seed,
                  "modes": modes(labels, X, seeds=seeds, n_sweeps=args.mode_sweeps),
                  "load_average_after": os.getloadavg()}
        from paucity.io import write_text

        write_text(json.dumps(report, indent=1, default=float),
                   ROOT / "benchmarks" / "results" / f"crowd_scale_modes_{n_labels}.json")
        return
    ds, ds_wall, ds_cpu = _timed(lambda: aggregate(labels, method="dawid_skene", exclude="researcher"))
    ds_accuracy = float((ds["label"] == rule.reindex(ds.index)).mean())
    print(f"Dawid–Skene: {ds_wall:.1f} s wall, accuracy {ds_accuracy:.4f} against her rule", flush=True)
    report = {"machine": machine(), "load_average_before": load_before, "n_labels": n_labels,
              "n_tasks": labels.n_tasks, "n_labelers": labels.n_labelers, "seed": args.seed,
              "versions": {"paucity": package_version("paucity"), "crowd-kit": package_version("crowd-kit")},
              "dawid_skene": {"wall_seconds": ds_wall, "process_seconds": ds_cpu, "accuracy": ds_accuracy}}
    if not args.skip_pool:
        result, wall, cpu = _timed(lambda: pool(labels, X, researcher="researcher", random_state=args.seed,
                                                max_sweeps=args.max_sweeps))
        accuracy = float((result.predictions["label"].to_numpy() == truth).mean())
        model = result.model
        report["pool"] = {
            "wall_seconds": wall, "process_seconds": cpu, "accuracy": accuracy, "n_sweeps": result.n_sweeps,
            "n_chains": int(model.n_chains), "converged": result.converged, "stop_reason": result.stop_reason,
            "rhat": model.rhat_.tolist(), "ess": model.ess_.tolist(), "coef": model.coef_.tolist(),
            "seconds_per_sweep": wall / result.n_sweeps, "max_sweeps": args.max_sweeps,
            "ratio_to_dawid_skene": wall / ds_wall,
        }
        print(f"pool(): {wall:.1f} s wall ({wall / ds_wall:.1f}x Dawid–Skene), {result.n_sweeps} sweeps per chain, "
              f"accuracy {accuracy:.4f}; {result.stop_reason}", flush=True)
    report["profile"] = profile(labels, X, n_sweeps=args.profile_sweeps)
    steps = ", ".join(f"{name} {seconds * 1e3:.1f} ms" for name, seconds in
                      report["profile"]["steps_seconds_per_sweep"].items())
    print(f"one sweep, one chain: {report['profile']['seconds_per_sweep'] * 1e3:.1f} ms "
          f"({report['profile']['nanoseconds_per_label']:.0f} ns a label): {steps}", flush=True)
    report["peak_resident_megabytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["load_average_after"] = os.getloadavg()
    from paucity.io import write_text

    name = f"{n_labels if not args.quick else 'quick'}" + (f"_seed{args.seed}" if args.seed else "")
    target = ROOT / "benchmarks" / "results" / f"crowd_scale_{name}.json"
    write_text(json.dumps(report, indent=1, default=float), target)
    print(f"peak memory {report['peak_resident_megabytes']:.0f} MB; load average before {load_before}, after "
          f"{report['load_average_after']}; wrote {target}")


if __name__ == "__main__":
    main()
