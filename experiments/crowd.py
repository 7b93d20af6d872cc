"""Reproduction of the BBMC experiment of seed 003, chapter 3 (Table 3.1), on a simulated crowd.

Run with paucity's development Python from the repository root::

    python -m experiments.crowd tune            # simulator and BBMC constants, on draws Table 3.1 does not report
    python -m experiments.crowd table3_1        # Table 3.1: 10 restarts of every method
    python -m experiments.crowd table3_1 --quick   # small data, short chains, 2 restarts: a check in seconds
    python -m experiments.crowd fig3_2          # Figure 3.2: easy and ambiguous tasks of the simulator

Subcommands:

``tune``
    The simulator's constants (labeler noise ``NOISE`` and the spread of the
    triangle's direction ``SPREAD``) from ``NOISE_GRID`` × ``SPREAD_GRID``, and
    BBMC's ``n_factors``, ``sigma`` and ``alpha`` (the IBP's concentration)
    from ``FACTOR_GRID`` × ``SIGMA_GRID`` × ``ALPHA_GRID``, on data seeds 100–104
    (``TUNING_SEEDS``, never reported). The rules, fixed before any draw was
    looked at: the simulator's pair whose mean share of training tasks with
    disagreement is nearest the seed's 523 / 1000; then the BBMC pair with
    the lowest mean held-out error on those draws (shorter chains:
    ``TUNING_CHAIN``; ties to the smaller K, then the smaller sigma). The
    chosen K = 6 is ``FACTOR_GRID``'s largest value; the grid was not extended.
    Written to ``experiments/results/crowd_tuning.csv``.
``fig3_2``
    Seed 003, Figure 3.2: four easy tasks (the centroid, extreme-point and
    size rules agree, by the widest margins) and four ambiguous ones (they
    disagree) from one draw of the simulator (seed ``FIG3_2_SEED``), each
    titled with every rule's answer. Written to ``docs/figures/crowd_fig3_2.png``.
``table3_1``
    Seed 003, §3.6, Table 3.1 on the simulator below (the seed's Mechanical
    Turk answers are not available): GOLD, CONS and BBMC (2000 burn-in sweeps,
    20000 draws), crowd-kit's Dawid–Skene and GLAD on the training tasks, and
    with 100 active selections from the researcher (2000 burn-in sweeps, a
    query every 200 sweeps, the score from the last 200 sweeps) GOLD-ACT,
    CONS-ACT, RAND-ACT, DIS-ACT, MCMC-ACT and BBMC-ACT through
    :func:`paucity.crowd.active_loop`. Restart r draws a new data set and new
    chains from ``SeedSequence([seed, r])``. Per restart and method: the held-out
    log likelihood (``model.log_likelihood``), the held-out error, and the
    process time. Written to ``experiments/results/crowd_table3_1_runs.csv``
    (one row per restart and method, rewritten after each, so a stopped run
    keeps its finished rows; ``--resume`` skips them) and the summary
    ``experiments/results/crowd_table3_1.csv`` (mean, sd and the number of
    restarts per method).

The simulator (``simulate``): each task shows a triangle and a rectangle,
each with a random rotation, size and aspect ratio; the triangle sits at a
random distance from the rectangle in a direction drawn around the
diagonal "up and to the left" (135° ± ``SPREAD``), so that many tasks are
ambiguous between "left" and "above". Features (``FEATURES``): the centroid
offsets in x and y, the gaps between the extreme points (the rectangle's
left edge minus the triangle's right edge; the triangle's bottom minus the
rectangle's top), the centroid offsets relative to the pair's widths and
heights, the log ratio of the areas, standardized on the training tasks,
and a constant column. Labelers answer "left" when ``score / (noise · sd) + ε
> 0`` (probit noise ε ~ N(0, 1)) for their rule's score: the centroid rule
(x offset minus y offset of the centroids), the extreme-point rule (x gap
minus y gap), the size rule (the offsets relative to the objects' sizes),
or, for adversaries, the opposite of the centroid rule; each labeler's noise
is ``NOISE`` times a factor uniform in [0.5, 1.5]. The researcher's labels
(gold labels on training tasks, test labels, the oracle's answers) are the
centroid rule without noise. 1000 training tasks get 3 labels each from 3 of
``N_LABELERS`` labelers (``MIX``); the tasks with disagreement are kept, and
``N_GOLD`` of them get a gold label. The test set: tasks with disagreement
among 3 labelers, drawn until ``N_TEST`` are found (the seed selected them
from 2000 tasks).

crowd-kit is not a dependency of paucity. When it cannot be imported, give
``--crowdkit-python`` an interpreter that has it (crowd-kit 1.4.2): the
labels go to it through a CSV file and the ``crowdkit`` subcommand of this
script; without either, Dawid–Skene and GLAD are skipped (and said so).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
SEED = 0
TUNING_SEEDS = (100, 101, 102, 103, 104)

# -- the simulator's constants ----------------------------------------------------------------------------
N_TASKS = 1000
N_LABELERS = 75
LABELS_PER_TASK = 3
N_GOLD = 60
N_TEST = 1101
MIX = {"centroid": 32, "extreme": 19, "size": 19, "adversary": 5}  # labelers by rule (75), fixed a priori
KEPT_TARGET = 523 / 1000  # the seed's share of training tasks with disagreement
NOISE_GRID = (0.25, 0.5, 0.75, 1.0, 1.5)
SPREAD_GRID = (15.0, 30.0, 45.0)
NOISE = 0.75  # chosen by ``tune``
SPREAD = 30.0  # chosen by ``tune``
FEATURES = ("dx_centroid", "dy_centroid", "gap_x", "gap_y", "dx_relative", "dy_relative", "log_area_ratio",
            "constant")

# -- BBMC's constants ---------------------------------------------------------------------------------
FACTOR_GRID = (2, 4, 6)
SIGMA_GRID = (1.0, 3.0)
ALPHA_GRID = (1.0, 4.0)
N_FACTORS = 6  # chosen by ``tune``
SIGMA = 3.0  # chosen by ``tune``
ALPHA = 4.0  # chosen by ``tune``
TUNING_CHAIN = {"n_burnin": 300, "n_samples": 1500}

TABLE3_1 = {"restarts": 10, "n_burnin": 2000, "n_samples": 20000, "n_queries": 100, "every": 200}
QUICK = {"restarts": 2, "n_burnin": 100, "n_samples": 300, "max_sweeps": 400, "n_queries": 4, "every": 20,
         "n_tasks": 300, "n_test": 300, "n_gold": 20}
PASSIVE = ("GOLD", "CONS", "BBMC", "BBMC-AUTO")  # BBMC-AUTO: BBMC's defaults, two chains until they agree
ACTIVE = ("GOLD-ACT", "CONS-ACT", "RAND-ACT", "DIS-ACT", "MCMC-ACT", "BBMC-ACT")
AGGREGATORS = ("DS", "GLAD")
METHODS = (*PASSIVE, *AGGREGATORS, *ACTIVE)
STRATEGY = {"GOLD-ACT": "gold", "CONS-ACT": "cons", "RAND-ACT": "rand", "DIS-ACT": "dis", "MCMC-ACT": "mcmc",
            "BBMC-ACT": "bbmc"}
SEED_TABLE = {  # the seed's Table 3.1: (log likelihood, sd, error, sd)
    "GOLD": (-3716, 1695, 0.0547, 0.0102), "CONS": (-421.1, 2.6, 0.0935, 0.0031),
    "BBMC": (-219.1, 3.1, 0.0309, 0.0033), "GOLD-ACT": (-1957, 696, 0.0290, 0.0037),
    "CONS-ACT": (-396.1, 3.6, 0.0906, 0.0024), "RAND-ACT": (-186.0, 2.2, 0.0292, 0.0029),
    "DIS-ACT": (-198.3, 5.8, 0.0392, 0.0052), "MCMC-ACT": (-196.1, 6.7, 0.0492, 0.0050),
    "BBMC-ACT": (-160.8, 3.9, 0.0188, 0.0018),
}
LEFT, ABOVE = "left", "above"
RESEARCHER = "researcher"


# -- the simulator -----------------------------------------------------------------------------------------

def _shape(kind: str, n: int, rng):
    """Vertices (n, k, 2) of rotated triangles or rectangles of random size and aspect ratio, centred at 0."""
    scale = np.exp(rng.uniform(np.log(0.5), np.log(2.0), n))
    aspect = np.exp(rng.uniform(-np.log(3.0), np.log(3.0), n))
    width, height = scale * np.sqrt(aspect), scale / np.sqrt(aspect)
    if kind == "triangle":  # isosceles, centroid at the origin
        unit = np.array([[-0.5, -1 / 3], [0.5, -1 / 3], [0.0, 2 / 3]])
    else:
        unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    points = unit[None] * np.stack([width, height], axis=1)[:, None, :]
    angle = rng.uniform(0, 2 * np.pi, n)
    c, s = np.cos(angle), np.sin(angle)
    rotation = np.stack([np.stack([c, -s], 1), np.stack([s, c], 1)], 1)  # (n, 2, 2)
    return np.einsum("nij,nkj->nki", rotation, points)


def _area(vertices) -> np.ndarray:
    x, y = vertices[..., 0], vertices[..., 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))


def draw_tasks(n: int, rng, spread: float = SPREAD, *, shapes: bool = False):
    """Geometry of n tasks: the rules' scores and the raw features (before standardization).

    With ``shapes=True`` also the vertices of the triangles (n, 3, 2) and rectangles (n, 4, 2), as
    ``(frame, triangles, rectangles)``; the draws are the same either way.
    """
    triangle, rectangle = _shape("triangle", n, rng), _shape("rectangle", n, rng)
    size = np.sqrt(_area(triangle)) + np.sqrt(_area(rectangle))
    direction = np.deg2rad(135.0 + rng.normal(scale=spread, size=n))
    distance = size * rng.uniform(0.6, 1.5, n)
    rect_centre = rng.uniform(-1, 1, (n, 2))
    tri_centre = rect_centre + distance[:, None] * np.stack([np.cos(direction), np.sin(direction)], 1)
    tri, rect = triangle + tri_centre[:, None], rectangle + rect_centre[:, None]
    dx = rect_centre[:, 0] - tri_centre[:, 0]  # how far the triangle is to the left
    dy = tri_centre[:, 1] - rect_centre[:, 1]  # how far it is above
    gap_x = rect[..., 0].min(1) - tri[..., 0].max(1)
    gap_y = tri[..., 1].min(1) - rect[..., 1].max(1)
    widths = np.ptp(tri[..., 0], axis=1) + np.ptp(rect[..., 0], axis=1)
    heights = np.ptp(tri[..., 1], axis=1) + np.ptp(rect[..., 1], axis=1)
    frame = pd.DataFrame({
        "dx_centroid": dx, "dy_centroid": dy, "gap_x": gap_x, "gap_y": gap_y,
        "dx_relative": dx / widths, "dy_relative": dy / heights,
        "log_area_ratio": np.log(_area(tri) / _area(rect)),
    })
    frame["centroid"] = frame["dx_centroid"] - frame["dy_centroid"]
    frame["extreme"] = frame["gap_x"] - frame["gap_y"]
    frame["size"] = frame["dx_relative"] - frame["dy_relative"]
    frame["adversary"] = -frame["centroid"]
    if shapes:
        return frame, tri, rect
    return frame


def labeler_table(rng, noise: float = NOISE, mix=None) -> pd.DataFrame:
    """The crowd: each labeler's rule and noise level (noise times a factor uniform in [0.5, 1.5])."""
    mix = MIX if mix is None else mix
    rules = [rule for rule, count in mix.items() for _ in range(count)]
    return pd.DataFrame({"rule": rules, "noise": noise * rng.uniform(0.5, 1.5, len(rules))},
                        index=pd.Index([f"w{j:02d}" for j in range(len(rules))], name="labeler"))


# The sd of each rule's score, fixed from a large draw (so a labeler's noise is in units of her rule's spread).
def _rule_scale(spread: float) -> dict:
    frame = draw_tasks(20000, np.random.default_rng(12345), spread)
    return {rule: float(frame[rule].std()) for rule in ("centroid", "extreme", "size", "adversary")}


def _answers(frame, rows, labelers, crowd, scale, rng) -> np.ndarray:
    rule = crowd["rule"].to_numpy()[labelers]
    score = frame[["centroid", "extreme", "size", "adversary"]].to_numpy()
    index = pd.Index(["centroid", "extreme", "size", "adversary"]).get_indexer(rule)
    value = score[rows, index] / (crowd["noise"].to_numpy()[labelers] * np.array([scale[r] for r in rule]))
    return np.where(value + rng.normal(size=len(rows)) > 0, 1, -1)


def _crowd_labels(frame, crowd, scale, rng, per_task=LABELS_PER_TASK):
    n, m = len(frame), len(crowd)
    labelers = np.array([rng.choice(m, per_task, replace=False) for _ in range(n)])
    rows = np.repeat(np.arange(n), per_task)
    signs = _answers(frame, rows, labelers.ravel(), crowd, scale, rng).reshape(n, per_task)
    disagree = np.abs(signs.sum(1)) < per_task
    return labelers, signs, disagree


def simulate(seed, *, n_tasks=N_TASKS, n_test=N_TEST, n_gold=N_GOLD, noise=NOISE, spread=SPREAD,
             scale=None) -> dict:
    """One data set of Table 3.1's experiment (see the module docstring).

    Returns a dict: ``labels`` (LabelMatrix of the kept training tasks, with the researcher's gold labels),
    ``X`` (standardized features of the kept training tasks, a DataFrame by task id), ``X_test``,
    ``y_test`` (the researcher's test labels), ``truth`` (the researcher's label of every kept training
    task), ``crowd`` (the labelers' rules), ``n_drawn`` and ``n_kept`` (training tasks drawn and kept),
    ``long`` (the training labels as a long table).
    """
    from paucity.crowd import LabelMatrix

    rng = np.random.default_rng(seed)
    scale = _rule_scale(spread) if scale is None else scale
    crowd = labeler_table(rng, noise)
    frame = draw_tasks(n_tasks, rng, spread)
    labelers, signs, disagree = _crowd_labels(frame, crowd, scale, rng)
    kept = np.flatnonzero(disagree)
    ids = [f"t{i:04d}" for i in kept]
    truth = np.where(frame["centroid"].to_numpy()[kept] > 0, LEFT, ABOVE)
    words = np.where(signs[kept] > 0, LEFT, ABOVE)
    long = pd.DataFrame({"task": np.repeat(ids, LABELS_PER_TASK),
                         "labeler": crowd.index.to_numpy()[labelers[kept]].ravel(), "label": words.ravel()})
    gold = rng.choice(len(kept), min(n_gold, len(kept)), replace=False)
    gold_rows = pd.DataFrame({"task": np.asarray(ids)[gold], "labeler": RESEARCHER, "label": truth[gold]})
    labels = LabelMatrix.from_long(pd.concat([long, gold_rows], ignore_index=True), positive=LEFT)
    raw = frame.loc[kept, list(FEATURES[:-1])].to_numpy()
    mean, sd = raw.mean(0), raw.std(0)

    def standardize(values, index):
        X = pd.DataFrame((values - mean) / sd, index=index, columns=list(FEATURES[:-1]))
        X["constant"] = 1.0
        return X

    X = standardize(raw, pd.Index(ids, name="task"))
    tests = []
    drawn = 0
    while sum(len(t) for t in tests) < n_test:
        more = draw_tasks(2 * n_test, rng, spread)
        _, _, keep = _crowd_labels(more, crowd, scale, rng)
        tests.append(more[keep])
        drawn += len(more)
    test = pd.concat(tests, ignore_index=True).iloc[:n_test]
    X_test = standardize(test[list(FEATURES[:-1])].to_numpy(), pd.Index([f"s{i:04d}" for i in range(n_test)]))
    y_test = np.where(test["centroid"].to_numpy() > 0, LEFT, ABOVE)
    return {"labels": labels, "X": X, "X_test": X_test, "y_test": y_test,
            "truth": pd.Series(truth, index=pd.Index(ids, name="task")), "crowd": crowd, "long": long,
            "n_drawn": n_tasks, "n_kept": len(kept), "n_gold": len(gold)}


def restart_seed(seed: int, restart: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, restart])


def _method_seed(seed: int, restart: int, method: str) -> int:
    return int(np.random.SeedSequence([seed, restart, METHODS.index(method) + 1]).generate_state(1)[0])


# -- the methods ---------------------------------------------------------------------------------------

def _scores(model, data) -> tuple[float, float]:
    loglik = float(model.log_likelihood(data["y_test"], data["X_test"]))
    error = float(np.mean(model.predict(data["X_test"]) != data["y_test"]))
    return loglik, error


def _bbmc(n_burnin, n_samples, random_state, n_factors=None, sigma=None, alpha=None, max_sweeps=22000):
    """The seed's setting: one chain of the given length (n_burnin="auto", n_samples="auto" for BBMC's defaults,
    two chains run until they agree, at most ``max_sweeps`` sweeps)."""
    from paucity.crowd import BBMC

    chains = {"n_chains": 1, "n_jobs": 1} if n_samples != "auto" else {"n_jobs": 1, "max_sweeps": max_sweeps}
    return BBMC(n_factors=N_FACTORS if n_factors is None else n_factors, alpha=ALPHA if alpha is None else alpha,
                sigma=SIGMA if sigma is None else sigma, n_burnin=n_burnin, n_samples=n_samples,
                random_state=random_state, **chains)


def crowdkit_errors(data, python=None) -> dict:
    """Error of crowd-kit's Dawid–Skene and GLAD labels against the researcher's on the kept training tasks.

    In this interpreter when crowd-kit imports, otherwise through ``python`` (an interpreter with crowd-kit)
    and a CSV file; an empty dict when neither works.
    """
    long = data["long"]
    try:
        import crowdkit  # noqa: F401
    except ImportError:
        if python is None:
            return {}
        with tempfile.TemporaryDirectory() as folder:
            source, target = Path(folder) / "labels.csv", Path(folder) / "aggregated.csv"
            long.to_csv(source, index=False)
            subprocess.run([str(python), str(Path(__file__).resolve()), "crowdkit", "--input", str(source),
                            "--output", str(target)], check=True, capture_output=True)
            table = pd.read_csv(target, dtype={"task": str})
    else:
        table = _crowdkit_aggregate(long)
    errors = {}
    for method in AGGREGATORS:
        labels = table[table["method"] == method].set_index("task")["label"]
        errors[method] = float(np.mean(labels.reindex(data["truth"].index).to_numpy() != data["truth"].to_numpy()))
    return errors


def _crowdkit_aggregate(long: pd.DataFrame) -> pd.DataFrame:
    """crowd-kit 1.4.2's Dawid–Skene and GLAD (100 iterations, tol 1e-5) on a long table (task, labeler, label)."""
    from crowdkit.aggregation import GLAD, DawidSkene

    table = long.rename(columns={"labeler": "worker"})[["task", "worker", "label"]]
    out = []
    for name, model in (("DS", DawidSkene(n_iter=100, tol=1e-5)), ("GLAD", GLAD(n_iter=100, tol=1e-5))):
        labels = model.fit_predict(table)
        out.append(pd.DataFrame({"method": name, "task": labels.index.astype(str), "label": labels.to_numpy()}))
    return pd.concat(out, ignore_index=True)


def run_method(method: str, restart: int, *, seed=SEED, sizes=None, crowdkit_python=None) -> list[dict]:
    """One method on one restart's data: rows of (restart, method, loglik, error, seconds, ...)."""
    from paucity.crowd import CONS, GOLD, active_loop

    sizes = TABLE3_1 if sizes is None else sizes
    data = simulate(restart_seed(seed, restart), **{k: sizes[k] for k in ("n_tasks", "n_test", "n_gold")
                                                    if k in sizes})
    base = {"restart": restart, "n_kept": data["n_kept"], "n_gold": data["n_gold"], "n_test": len(data["y_test"])}
    started = time.process_time()
    if method in AGGREGATORS or method == "DS+GLAD":
        errors = crowdkit_errors(data, crowdkit_python)
        seconds = time.process_time() - started  # this process only (a helper interpreter's time is not counted)
        return [{**base, "method": name, "loglik": np.nan, "error": errors[name], "seconds": seconds,
                 "queries": 0, "on": "training tasks"} for name in AGGREGATORS if name in errors]
    state = _method_seed(seed, restart, method)
    queries = 0
    if method == "GOLD":
        model = GOLD().fit(data["labels"], data["X"], researcher=RESEARCHER)
    elif method == "CONS":
        model = CONS().fit(data["labels"], data["X"], researcher=RESEARCHER)
    elif method == "BBMC":
        model = _bbmc(sizes["n_burnin"], sizes["n_samples"], state).fit(data["labels"], data["X"],
                                                                         researcher=RESEARCHER)
    elif method == "BBMC-AUTO":
        model = _bbmc("auto", "auto", _method_seed(seed, restart, "BBMC"),
                      max_sweeps=sizes.get("max_sweeps", 22000)).fit(data["labels"], data["X"], researcher=RESEARCHER)

    else:
        strategy = STRATEGY[method]
        chains = strategy not in ("gold", "cons")
        # the burn-in, of which the last `every` sweeps are the draws the first query is chosen from
        n_burnin, n_samples = (sizes["n_burnin"] - sizes["every"], sizes["every"]) if chains else (0, 1)
        fitted = _bbmc(n_burnin, n_samples, state).fit(data["labels"], data["X"], researcher=RESEARCHER)
        truth = data["truth"]

        def researcher(task, labeler):  # the oracle: the centroid rule, without noise
            return truth[task]

        result = active_loop(fitted, researcher, n_queries=sizes["n_queries"], every=sizes["every"],
                             strategy=strategy, random_state=state + 1)
        model, queries = result.model, len(result.queries)
    seconds = time.process_time() - started
    loglik, error = _scores(model, data)
    sweeps = int(getattr(model, "n_sweeps_", 0))  # per chain, for the methods that run chains
    return [{**base, "method": method, "loglik": loglik, "error": error, "seconds": seconds, "queries": queries,
             "sweeps": sweeps,
             "on": "test tasks"}]


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd over restarts per method, in Table 3.1's order, with the seed's numbers beside."""
    rows = []
    for method in METHODS:
        part = runs[runs["method"] == method]
        if part.empty:
            continue
        seed = SEED_TABLE.get(method, (np.nan,) * 4)
        rows.append({"method": method, "restarts": len(part), "on": part["on"].iloc[0],
                     "loglik_mean": part["loglik"].mean(), "loglik_sd": part["loglik"].std(ddof=1),
                     "error_mean": part["error"].mean(), "error_sd": part["error"].std(ddof=1),
                     "seconds_mean": part["seconds"].mean(), "seconds_sd": part["seconds"].std(ddof=1),
                     "seed_loglik": seed[0], "seed_loglik_sd": seed[1], "seed_error": seed[2],
                     "seed_error_sd": seed[3]})
    return pd.DataFrame(rows)


def _table(df: pd.DataFrame, path) -> None:
    from paucity.io import write_csv

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_csv(df, path, index=False, float_format="%.6g")


def _log(message: str, progress: bool) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _one_thread():
    """BLAS on one thread: the sampler's small matrices gain nothing from more, and two processes share two cores."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def _task(method, restart, seed, sizes, crowdkit_python):
    with _one_thread():
        return run_method(method, restart, seed=seed, sizes=sizes, crowdkit_python=crowdkit_python)


def run_table3_1(*, restarts=None, quick=False, seed=SEED, jobs=2, results=RESULTS, progress=True, resume=False,
                 methods=METHODS, crowdkit_python=None, mcmc_restarts=None) -> pd.DataFrame:
    """Every method on every restart; the runs file is rewritten after each (restart, method)."""
    sizes = dict(QUICK if quick else TABLE3_1)
    restarts = sizes["restarts"] if restarts is None else restarts
    mcmc_restarts = restarts if mcmc_restarts is None else min(mcmc_restarts, restarts)
    path = Path(results) / "crowd_table3_1_runs.csv"
    rows = pd.read_csv(path).to_dict("records") if resume and path.exists() else []
    done = {("DS+GLAD" if r["method"] in AGGREGATORS else r["method"], int(r["restart"])) for r in rows}
    wanted = ["DS+GLAD" if m in AGGREGATORS else m for m in methods]
    wanted = list(dict.fromkeys(wanted))
    # every method but MCMC-ACT on every restart first (BBMC-ACT first, the longest), then MCMC-ACT's restarts
    order = ["BBMC-ACT", *[m for m in wanted if m not in ("BBMC-ACT", "MCMC-ACT")]]
    tasks = [(m, r) for r in range(restarts) for m in order if m in wanted]
    tasks += [("MCMC-ACT", r) for r in range(mcmc_restarts) if "MCMC-ACT" in wanted]
    tasks = [t for t in tasks if t not in done]

    def record(new):
        rows.extend(new)
        _table(pd.DataFrame(rows), path)
        _table(summarize(pd.DataFrame(rows)), Path(results) / "crowd_table3_1.csv")  # a stopped run keeps it too
        for row in new:
            _log(f"restart {row['restart']} {row['method']}: loglik {row['loglik']:.1f} error {row['error']:.4f} "
                 f"({row['seconds']:.0f} s)", progress)

    if jobs <= 1:
        for method, restart in tasks:
            record(_task(method, restart, seed, sizes, crowdkit_python))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pending = {pool.submit(_task, m, r, seed, sizes, crowdkit_python) for m, r in tasks}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    record(future.result())
    runs = pd.DataFrame(rows)
    if not any(m in AGGREGATORS for m in runs.get("method", [])):
        _log("Dawid-Skene and GLAD skipped: crowd-kit cannot be imported here and no --crowdkit-python was given.",
             progress and any(m in AGGREGATORS for m in methods))
    summary = summarize(runs)
    _table(summary, Path(results) / "crowd_table3_1.csv")
    return summary


# -- tuning on unreported draws ----------------------------------------------------------------------------

def simulator_tuning(seeds=TUNING_SEEDS, noises=NOISE_GRID, spreads=SPREAD_GRID, n_tasks=N_TASKS) -> pd.DataFrame:
    """Share of training tasks with disagreement for each (noise, spread), mean over ``seeds``; the pick marked."""
    rows = []
    for spread in spreads:
        scale = _rule_scale(spread)
        for noise in noises:
            kept = []
            for s in seeds:
                rng = np.random.default_rng(s)
                crowd = labeler_table(rng, noise)
                frame = draw_tasks(n_tasks, rng, spread)
                kept.append(_crowd_labels(frame, crowd, scale, rng)[2].mean())
            rows.append({"stage": "simulator", "noise": noise, "spread": spread, "kept_share": float(np.mean(kept))})
    table = pd.DataFrame(rows)
    distance = (table["kept_share"] - KEPT_TARGET).abs()
    table["chosen"] = distance == distance.min()
    return table


def bbmc_tuning(seeds=TUNING_SEEDS, factors=FACTOR_GRID, sigmas=SIGMA_GRID, alphas=ALPHA_GRID, noise=NOISE,
                spread=SPREAD, chain=None, sizes=None) -> pd.DataFrame:
    """Held-out error and log likelihood of BBMC for each (K, sigma, alpha), mean over ``seeds``; the pick marked."""
    chain = TUNING_CHAIN if chain is None else chain
    sizes = {} if sizes is None else sizes
    scale = _rule_scale(spread)
    draws = [simulate(s, noise=noise, spread=spread, scale=scale, **sizes) for s in seeds]
    rows = []
    for K in factors:
        for sigma in sigmas:
            for alpha in alphas:
                with _one_thread():
                    scores = [_scores(_bbmc(chain["n_burnin"], chain["n_samples"], 7, K, sigma, alpha).fit(
                        d["labels"], d["X"], researcher=RESEARCHER), d) for d in draws]
                rows.append({"stage": "bbmc", "n_factors": K, "sigma": sigma, "alpha": alpha,
                             "loglik": float(np.mean([s[0] for s in scores])),
                             "error": float(np.mean([s[1] for s in scores]))})
    table = pd.DataFrame(rows)
    best = table.sort_values(["error", "n_factors", "sigma", "alpha"]).index[0]
    table["chosen"] = table.index == best
    return table


def run_tune(*, quick=False, results=RESULTS, progress=True, **_) -> pd.DataFrame:
    simulator = simulator_tuning(seeds=TUNING_SEEDS[:2] if quick else TUNING_SEEDS)
    pick = simulator[simulator["chosen"]].iloc[0]
    _log(f"simulator: noise {pick['noise']:g}, spread {pick['spread']:g} (kept share {pick['kept_share']:.3f})",
         progress)
    if quick:
        bbmc = bbmc_tuning(seeds=TUNING_SEEDS[:1], factors=FACTOR_GRID[:2], sigmas=SIGMA_GRID[:1], alphas=ALPHA_GRID[:1],
                           noise=pick["noise"], spread=pick["spread"], chain={"n_burnin": 50, "n_samples": 100},
                           sizes={"n_tasks": 200, "n_test": 200, "n_gold": 20})
    else:
        bbmc = bbmc_tuning(noise=pick["noise"], spread=pick["spread"])
    best = bbmc[bbmc["chosen"]].iloc[0]
    _log(f"BBMC: n_factors {best['n_factors']}, sigma {best['sigma']:g}, alpha {best['alpha']:g} "
         f"(error {best['error']:.4f})", progress)
    table = pd.concat([simulator, bbmc], ignore_index=True)
    _table(table, Path(results) / "crowd_tuning.csv")
    return table


# -- the command line --------------------------------------------------------------------------------

def _crowdkit_main(args) -> int:
    """Run in an interpreter that has crowd-kit (no paucity needed): labels CSV in, aggregated labels out."""
    long = pd.read_csv(args.input, dtype={"task": str, "labeler": str, "label": str})
    _crowdkit_aggregate(long).to_csv(args.output, index=False)
    return 0


FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"
FIG3_2_SEED = 7  # the figure's own draw; no table uses it


def example_tasks(n_each: int = 4, *, seed: int = FIG3_2_SEED, spread: float = SPREAD):
    """Figure 3.2's examples: ``n_each`` easy tasks (the three rules agree, by a wide margin) and
    ``n_each`` ambiguous ones (the rules disagree), as (kind, frame row, triangle, rectangle) tuples."""
    rng = np.random.default_rng(seed)
    frame, tri, rect = draw_tasks(400, rng, spread, shapes=True)
    rules = frame[["centroid", "extreme", "size"]]
    agree = (np.sign(rules).nunique(axis=1) == 1).to_numpy()
    margin = (rules.abs() / rules.std()).min(axis=1).to_numpy()
    easy = np.flatnonzero(agree)[np.argsort(-margin[agree], kind="stable")][:n_each]
    ambiguous = np.flatnonzero(~agree)[:n_each]
    return ([("easy", frame.iloc[i], tri[i], rect[i]) for i in easy]
            + [("ambiguous", frame.iloc[i], tri[i], rect[i]) for i in ambiguous])


def run_fig3_2(*, figures=FIGURES, **_) -> Path:
    """Seed 003, Figure 3.2: easy and ambiguous tasks of the simulator, with each rule's answer."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon

    examples = example_tasks()
    n_each = len(examples) // 2
    fig, axes = plt.subplots(2, n_each, figsize=(2.6 * n_each, 5.6))
    for ax, (kind, row, tri, rect) in zip(axes.ravel(), examples):
        ax.add_patch(Polygon(rect, closed=True, color="tab:blue", alpha=0.8))
        ax.add_patch(Polygon(tri, closed=True, color="tab:orange", alpha=0.9))
        points = np.vstack([tri, rect])
        centre, half = (points.min(0) + points.max(0)) / 2, 0.55 * np.ptp(points, axis=0).max()
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        answers = " ".join(f"{rule[0].upper()}:{LEFT if row[rule] > 0 else ABOVE}"
                           for rule in ("centroid", "extreme", "size"))
        ax.set_title(f"{kind}\n{answers}", fontsize=7)
    fig.suptitle("Is the triangle (orange) left of or above the rectangle? "
                 "C, E, S: the centroid, extreme-point and size rules", fontsize=8)
    fig.tight_layout()
    path = Path(figures) / "crowd_fig3_2.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", choices=("tune", "table3_1", "fig3_2", "crowdkit"))
    p.add_argument("--restarts", type=int, default=None,
                   help=f"restarts (default {TABLE3_1['restarts']}, {QUICK['restarts']} with --quick)")
    p.add_argument("--mcmc-restarts", type=int, default=None, help="restarts of MCMC-ACT (default: all)")
    p.add_argument("--methods", default=",".join(METHODS), help="comma-separated methods (default: all)")
    p.add_argument("--quick", action="store_true", help="small data, short chains and few restarts")
    p.add_argument("--seed", type=int, default=SEED, help="seed of all random draws (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--resume", action="store_true", help="keep the finished rows of the runs file and skip them")
    p.add_argument("--crowdkit-python", type=Path, default=None,
                   help="an interpreter with crowd-kit 1.4.2, when this one cannot import it")
    p.add_argument("--results-dir", type=Path, default=RESULTS,
                   help="where the CSV files go (default experiments/results)")
    p.add_argument("--figures-dir", type=Path, default=FIGURES,
                   help="where fig3_2 writes its PNG (default docs/figures)")
    p.add_argument("--input", type=Path, help="crowdkit: the labels (task, labeler, label)")
    p.add_argument("--output", type=Path, help="crowdkit: where the aggregated labels go")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.experiment == "crowdkit":
        return _crowdkit_main(args)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    started = time.perf_counter()
    if args.experiment == "tune":
        run_tune(quick=args.quick, results=args.results_dir)
    elif args.experiment == "fig3_2":
        print(run_fig3_2(figures=args.figures_dir))
    else:
        methods = [m.strip() for m in args.methods.split(",") if m.strip()]
        unknown = sorted(set(methods) - set(METHODS))
        if unknown:
            raise SystemExit(f"unknown method(s) {unknown}; expected some of {', '.join(METHODS)}.")
        run_table3_1(restarts=args.restarts, quick=args.quick, seed=args.seed, jobs=args.jobs,
                     results=args.results_dir, resume=args.resume, methods=methods,
                     crowdkit_python=args.crowdkit_python, mcmc_restarts=args.mcmc_restarts)
    print(f"{args.experiment}: {time.perf_counter() - started:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
