"""Reproductions of the active spectral clustering experiments of seed 003, chapter 2.

Run with paucity's development Python from the repository root::

    python experiments/clustering.py tune_width     # the RBF width rule, on draws the figures do not report
    python experiments/clustering.py fig2_2          # two Gaussians of increasing separation
    python experiments/clustering.py table2_1        # error decrease over one active step
    python experiments/clustering.py fig2_3          # the real data sets
    python experiments/clustering.py tune_crowd      # the photos' stand-in, on draws Figure 2.5 does not report
    python experiments/clustering.py fig2_5          # a simulated crowd (Figure 2.5 and Table 2.2)
    python experiments/clustering.py all --quick     # small grids, few runs, for a check in seconds

Subcommands:

``tune_width``
    The width of the RBF kernel, ``σ = c · median pairwise distance`` of the
    points normalized to the unit hypercube, with ``c`` from ``WIDTH_GRID``
    chosen on two-Gaussian draws with seeds 100–102 (``TUNING_SEEDS``, never
    reported): the ``c`` whose complete-data spectral bisection best recovers
    the two generating Gaussians (mean misclustering error over the
    separations of Figure 2.2 and the three seeds). The winner is fixed in
    ``WIDTH``.
``fig2_2``
    Seed 003, §2.6, Figure 2.2: 200 points, 100 from each of two spherical
    Gaussians in two dimensions with unit variance whose means are
    ``SEPARATIONS`` = 3, 4, 5, 6 standard deviations apart, normalized to the
    unit hypercube; similarities ``exp(−‖x − y‖² / (2σ²))`` with the width
    rule above. The misclustering error of the active clustering against the
    spectral bisection of the complete matrix, against the fraction of the
    n(n − 1)/2 pairs queried, for IU-RED, IU-RED interleaved, S&T, S&T
    interleaved and random selection; mean over runs that differ in the
    methods' random choices (one data set per separation).
``table2_1``
    Seed 003, §2.6, Table 2.1: for each data set, random partial matrices
    (``PARTIAL_FRACTION`` of the pairs measured, uniformly at random, redrawn
    until the measured graph is connected), one step of IU-RED and one of S&T
    from the same partial matrix; the mean (± standard error) decrease in
    misclustering error against the complete-data clustering. Data: the real
    data sets of ``fig2_3`` and matrices of ``UNIFORM_N`` items with
    off-diagonal entries uniform in [0, 1] (a new matrix per restart).
``fig2_3``
    Seed 003, §2.6, Figure 2.3 on scikit-learn's bundled data standing in for
    the UCI sets (two classes each, at most 100 items of each class drawn at
    random): iris versicolor/virginica, wine classes 0/1, digits 3/8 (for
    pendigits), breast cancer malignant/benign and Breiman's waveform classes
    0/1 (generated here, 21 features). Same methods and error as Figure 2.2.
``tune_crowd``
    The constants of the photos' stand-in of ``fig2_5``, chosen on draws with
    seeds 100–109 (``CROWD_TUNING_SEEDS``, never reported) from
    ``PHOTOS_SEPARATION_GRID`` × ``CROWD_GRID`` (see :func:`crowd_tuning`);
    the winners are fixed in ``PHOTOS_SEPARATION``, ``CROWD_CONCENTRATION``
    and ``CROWD_ADVERSARIAL``.
``fig2_5``
    Seed 003, §2.6, Figure 2.5 and Table 2.2, with a simulated crowd in place
    of the photos and their Mechanical Turk answers (not available): 100
    items, 50 from each of two 2-D unit-variance Gaussians whose means are
    ``PHOTOS_SEPARATION`` sd apart (the two rooms), RBF similarities with the
    width rule above as the true similarities; for every pair three recorded
    answers from paucity's ``BetaNoise`` (Beta(1 + κw, 1 + κ(1 − w)),
    κ = ``CROWD_CONCENTRATION``, and with probability ``CROWD_ADVERSARIAL``
    the adversarial answer 1 − w) through a ``MatrixOracle``. The reference is
    the spectral bisection of the complete median-of-three matrix. Panels:
    (a) the methods on the median matrix itself (each query costs three
    answers); (b) ``repeats=3``, the r-th ask of a pair answered by its r-th
    recorded answer (:class:`RecordedAnswers`); (c) one answer per pair (the
    first). The x-axis counts answers in units of n(n − 1)/2. Table 2.2:
    the first x where a method's mean error is at most 0.05, priced at
    US$0.045 per median of three answers (US$0.015 per answer).

Sizes: 20 runs per curve for Figures 2.2, 2.3 and 2.5 (``--runs 20``; the defaults are smaller for 2.2
and 2.3 so that a plain run finishes in about ten minutes on two cores) and 1000 restarts per row of
Table 2.1 (the seed: 20 runs, 30 000 restarts); ``--runs`` sets them.

Every figure is drawn from a fixed seed (``--seed``). Figures are written to
``docs/figures/clustering_*.png`` and the numbers behind them to
``experiments/results/clustering_*.csv``. Runs are spread over ``--jobs``
processes (default 2).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from paucity._errors import InputError
from paucity.clustering import (
    ActiveSpectralClustering,
    BetaNoise,
    MatrixOracle,
    iu_red_scores,
    misclustering_error,
    shamir_tishby_scores,
    spectral_bisection,
)
from paucity.io import write_csv, write_figure

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"
RESULTS = ROOT / "experiments" / "results"
SEED = 0
TUNING_SEEDS = (100, 101, 102)

# The width rule σ = WIDTH · median pairwise distance; WIDTH chosen from WIDTH_GRID by ``tune_width``.
WIDTH_GRID = (0.125, 0.25, 0.5, 1.0)
WIDTH = 0.5

SEPARATIONS = (3.0, 4.0, 5.0, 6.0)
N_POINTS = 200
METHODS = {
    "IU-RED": ("iu_red", False),
    "IU-RED, interleave": ("iu_red", True),
    "S&T": ("shamir_tishby", False),
    "S&T, interleave": ("shamir_tishby", True),
    "Random": ("random", False),
}
FIG2_2 = {"budget": 0.2, "runs": 3, "grid": np.round(np.linspace(0, 0.2, 41), 4)}
QUICK_FIG2_2 = {"budget": 0.05, "runs": 1, "grid": np.round(np.linspace(0, 0.05, 6), 4), "n_points": 40}
FIG2_3 = {"budget": 0.2, "runs": 2, "grid": np.round(np.linspace(0, 0.2, 41), 4)}
QUICK_FIG2_3 = {"budget": 0.05, "runs": 1, "grid": np.round(np.linspace(0, 0.05, 6), 4), "per_class": 20}

PARTIAL_FRACTION = 0.1
UNIFORM_N = 200
TABLE2_1 = {"restarts": 1000}
QUICK_TABLE2_1 = {"restarts": 5, "per_class": 20, "uniform_n": 40}

# Figure 2.5 / Table 2.2: the photos' stand-in (100 items in two overlapping groups) and its simulated crowd;
# separation and crowd chosen by ``tune_crowd`` on TUNING_SEEDS.
PHOTOS_N = 100
CROWD_TUNING_SEEDS = tuple(range(100, 110))
PHOTOS_SEPARATION_GRID = (3.5, 4.0, 4.5, 5.0)
CROWD_GRID = tuple((k, a) for k in (5.0, 10.0, 20.0, 40.0) for a in (0.05, 0.1, 0.2))
PHOTOS_SEPARATION = 5.0
CROWD_CONCENTRATION = 40.0
CROWD_ADVERSARIAL = 0.05
PRICE = 0.045  # US$ per median of three answers (the seed's price per measurement): US$0.015 per answer
COST_TARGET = 0.05
FIG2_5 = {"runs": 20, "x_a": 3.0, "x_b": 3.0, "x_c": 1.0, "step": 0.025}
QUICK_FIG2_5 = {"runs": 1, "x_a": 0.6, "x_b": 0.6, "x_c": 0.3, "step": 0.1, "n_points": 30}

DATASETS = ("iris", "wine", "digits", "breast_cancer", "waveform")


# -- data -------------------------------------------------------------------------------------------
def unit_hypercube(X: np.ndarray) -> np.ndarray:
    """Scale every feature to [0, 1] (constant features become 0)."""
    X = np.asarray(X, dtype=float)
    low, span = X.min(0), X.max(0) - X.min(0)
    return (X - low) / np.where(span > 0, span, 1.0)


def rbf_similarities(X: np.ndarray, width: float = WIDTH) -> np.ndarray:
    """``exp(−‖x − y‖² / (2σ²))`` with ``σ = width · median pairwise distance``; unit diagonal."""
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    sigma = width * np.median(np.sqrt(sq[np.triu_indices(len(X), 1)]))
    W = np.exp(-sq / (2 * sigma**2))
    np.fill_diagonal(W, 1.0)
    return W


def two_gaussians(separation: float, rng, n_points: int = N_POINTS):
    """``n_points`` points (half from each of two unit-variance 2-D Gaussians), in the unit hypercube."""
    y = np.repeat([0, 1], [n_points // 2, n_points - n_points // 2])
    X = rng.normal(size=(n_points, 2))
    X[y == 1, 0] += separation
    return unit_hypercube(X), y


def waveform(n_points: int, rng, classes=(0, 1)):
    """Breiman's waveform data (CART, 1984): 21 features, three classes of random mixtures of two of three waves.

    The base waves are triangles ``h1(i) = max(6 − |i − 11|, 0)``, ``h2(i) = h1(i − 4)``,
    ``h3(i) = h1(i + 4)`` on i = 1..21; class 0 mixes (h1, h2), class 1 (h1, h3),
    class 2 (h2, h3), as ``u·a + (1 − u)·b + ε`` with u ~ U(0, 1), ε ~ N(0, 1).
    The ``classes`` asked for come in equal numbers (up to one item).
    """
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0.0)
    h2, h3 = np.maximum(6 - np.abs(i - 15), 0.0), np.maximum(6 - np.abs(i - 7), 0.0)
    pairs = {0: (h1, h2), 1: (h1, h3), 2: (h2, h3)}
    classes = np.asarray(classes)
    y = rng.permutation(np.resize(classes, n_points))  # as equal class sizes as n_points allows
    u = rng.uniform(size=(n_points, 1))
    a = np.stack([pairs[c][0] for c in y])
    b = np.stack([pairs[c][1] for c in y])
    return u * a + (1 - u) * b + rng.normal(size=(n_points, 21)), y


def real_dataset(name: str, rng, per_class: int = 100):
    """Two classes of a bundled data set (at most ``per_class`` items of each, drawn at random), unit hypercube."""
    from sklearn import datasets as sk

    if name == "waveform":
        X, y = waveform(2 * per_class, rng)
        return unit_hypercube(X), y
    loaders = {"iris": (sk.load_iris, (1, 2)), "wine": (sk.load_wine, (0, 1)), "digits": (sk.load_digits, (3, 8)),
               "breast_cancer": (sk.load_breast_cancer, (0, 1))}
    loader, classes = loaders[name]
    X, y = loader(return_X_y=True)
    keep = []
    for c in classes:
        members = np.flatnonzero(y == c)
        keep.append(np.sort(rng.choice(members, size=min(per_class, len(members)), replace=False)))
    keep = np.concatenate(keep)
    return unit_hypercube(X[keep]), (y[keep] == classes[1]).astype(int)


# -- helpers ----------------------------------------------------------------------------------------
def _seeds(seed, count: int) -> list[int]:
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(count)]


def _table(df: pd.DataFrame, path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_csv(df, path, index=False, float_format="%.6g")


def _log(message: str, progress: bool) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _map(fn, tasks, jobs: int):
    """``fn(*task)`` for every task, yielded in order as they finish."""
    if jobs <= 1:
        for t in tasks:
            yield fn(*t)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(fn, *zip(*tasks))


def _checkpoint(rows: list, path) -> None:
    """The per-run rows so far (the tasks run one whole run after another, so a stopped run keeps its complete runs)."""
    if path is not None:
        _table(pd.DataFrame(rows), path)


# -- the error curves (Figures 2.2 and 2.3) ---------------------------------------------------------
def error_curve(W: np.ndarray, method: str, budget: float, grid, random_state: int) -> np.ndarray:
    """Misclustering error against the complete-data clustering at each fraction of ``grid`` (step interpolation)."""
    strategy, interleave = METHODS[method]
    reference = spectral_bisection(W)
    model = ActiveSpectralClustering(strategy=strategy, interleave=interleave, budget=budget,
                                     random_state=random_state)
    model.fit(MatrixOracle(W), reference=reference)
    history = model.history_
    if strategy == "random":  # without eigen-updates along the way: cluster the prefixes of the queries
        return _random_curve(W, model.queries_, grid, reference)
    fractions, errors = history["fraction"].to_numpy(), history["error"].to_numpy()
    at = np.searchsorted(fractions, np.asarray(grid) + 1e-12, side="right") - 1
    return errors[np.clip(at, 0, None)]


def _random_curve(W, queries: pd.DataFrame, grid, reference) -> np.ndarray:
    n = len(W)
    total = n * (n - 1) // 2
    i, j, v = (queries[c].to_numpy() for c in ("i", "j", "value"))
    out = []
    for f in grid:
        m = int(round(f * total))
        W_hat = np.eye(n)
        W_hat[i[:m], j[:m]] = v[:m]
        W_hat[j[:m], i[:m]] = v[:m]
        out.append(misclustering_error(spectral_bisection(W_hat), reference))
    return np.asarray(out)


def _curve_task(W, method, budget, grid, random_state, key):
    return key, method, error_curve(W, method, budget, grid, random_state)


def curves(matrices: dict, settings: dict, *, seed=SEED, jobs: int = 2, progress=True,
           checkpoint=None) -> pd.DataFrame:
    """Every method's error curve on every matrix, ``settings['runs']`` runs each; one row per (matrix, method, run, fraction).

    Run r of every matrix and method comes before run r + 1, and run r's seeds do not depend on the
    number of runs, so the first r runs of a longer experiment are those of ``--runs r``. With
    ``checkpoint`` (a path) the rows so far are written there after every curve.
    """
    grid, runs = settings["grid"], settings["runs"]
    states = {key: _seeds([seed, k], runs) for k, key in enumerate(matrices)}
    tasks = []
    for r in range(runs):
        for key, W in matrices.items():
            for method in METHODS:
                tasks.append((W, method, settings["budget"], grid, states[key][r], (key, r)))
    _log(f"{len(tasks)} runs on {jobs} processes", progress)
    rows = []
    for (key, r), method, errors in _map(_curve_task, tasks, jobs):
        rows += [{"data": key, "method": method, "run": r, "fraction": f, "error": e} for f, e in zip(grid, errors)]
        _checkpoint(rows, checkpoint)
    return pd.DataFrame(rows)


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    g = runs.groupby(["data", "method", "fraction"], sort=False)["error"]
    out = g.agg(error_mean="mean", error_std="std", runs="count").reset_index()
    out["error_se"] = out["error_std"] / np.sqrt(out["runs"])
    return out


_STYLE = {"IU-RED": ("tab:red", "-"), "IU-RED, interleave": ("tab:red", "--"), "S&T": ("tab:blue", "-"),
          "S&T, interleave": ("tab:blue", "--"), "Random": ("black", ":")}


def plot_curves(summary: pd.DataFrame, path, titles: dict, xlabel: str = "fraction of pairs queried") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(dict.fromkeys(summary["data"]))
    fig, axes = plt.subplots(1, len(keys), figsize=(3.4 * len(keys), 3.2), squeeze=False)
    for ax, key in zip(axes[0], keys):
        part = summary[summary["data"] == key]
        for method in METHODS:
            m = part[part["method"] == method]
            color, line = _STYLE[method]
            ax.plot(m["fraction"], m["error_mean"], line, color=color, label=method)
        ax.set_title(titles.get(key, str(key)), fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel("misclustering error")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_figure(fig, path, dpi=110)
    plt.close(fig)


# -- tune_width -------------------------------------------------------------------------------------
def width_tuning(seeds=TUNING_SEEDS, grid=WIDTH_GRID, separations=SEPARATIONS, n_points=N_POINTS) -> pd.DataFrame:
    """Mean error of complete-data spectral bisection against the generating Gaussians, per width."""
    rows = []
    for width in grid:
        errors = []
        for s in seeds:
            for sep in separations:
                X, y = two_gaussians(sep, np.random.default_rng([s, int(sep * 10)]), n_points)
                errors.append(misclustering_error(spectral_bisection(rbf_similarities(X, width)), y))
        rows.append({"width": width, "error_mean": float(np.mean(errors)), "draws": len(errors),
                     "seeds": " ".join(map(str, seeds))})
    table = pd.DataFrame(rows)
    table["chosen"] = table["error_mean"] == table["error_mean"].min()
    return table


# -- Table 2.1 ----------------------------------------------------------------------------------------
def one_step(W: np.ndarray, rng, fraction: float = PARTIAL_FRACTION, reference=None) -> dict | None:
    """From one random partial matrix: the decrease in error after one IU-RED step and one S&T step.

    ``None`` when the sampled graph leaves v̂₂ undefined (the caller redraws).
    """
    n = len(W)
    if reference is None:
        reference = spectral_bisection(W)
    iu, ju = np.triu_indices(n, 1)
    pick = rng.random(len(iu)) < fraction
    W_hat = np.eye(n)
    W_hat[iu[pick], ju[pick]] = W[iu[pick], ju[pick]]
    W_hat[ju[pick], iu[pick]] = W[ju[pick], iu[pick]]
    try:
        scores = {"IU-RED": iu_red_scores(W_hat), "S&T": shamir_tishby_scores(W_hat)}
    except InputError:
        return None
    before = misclustering_error(spectral_bisection(W_hat), reference)
    out = {"measured": int(pick.sum()), "error_before": before}
    open_pairs = ~pick
    for name, S in scores.items():
        s = np.where(open_pairs, S[iu, ju], -np.inf)
        k = int(np.argmax(s))
        step = W_hat.copy()
        step[iu[k], ju[k]] = step[ju[k], iu[k]] = W[iu[k], ju[k]]
        out[name] = before - misclustering_error(spectral_bisection(step), reference)
    return out


def _uniform_matrix(n: int, rng) -> np.ndarray:
    U = np.triu(rng.uniform(size=(n, n)), 1)
    return U + U.T + np.eye(n)


def _table_task(name, W, restarts, state, uniform_n):
    rng = np.random.default_rng(state)
    rows, redraws = [], 0
    reference = None if W is None else spectral_bisection(W)
    while len(rows) < restarts:
        M = _uniform_matrix(uniform_n, rng) if W is None else W
        row = one_step(M, rng, reference=None if W is None else reference)
        if row is None:
            redraws += 1
            continue
        rows.append(row)
    df = pd.DataFrame(rows)
    df["data"] = name
    df["redraws"] = redraws
    df["task"] = state
    return df


def table2_1(matrices: dict, restarts: int, *, seed=SEED, jobs: int = 2, uniform_n=UNIFORM_N,
             progress=True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per restart rows, and the mean ± standard error per data set (``matrices`` values None: uniform)."""
    tasks = []
    per_task = int(np.ceil(restarts / jobs))
    for k, (name, W) in enumerate(matrices.items()):
        for p, state in enumerate(_seeds([seed, 21, k], jobs)):
            count = min(per_task, restarts - p * per_task)
            if count > 0:
                tasks.append((name, W, count, state, uniform_n))
    _log(f"{len(tasks)} tasks on {jobs} processes", progress)
    restarts_table = pd.concat(_map(_table_task, tasks, jobs), ignore_index=True)
    summary = []
    for name, part in restarts_table.groupby("data", sort=False):
        row = {"data": name, "restarts": len(part), "redraws": int(part.groupby("task")["redraws"].first().sum()),
               "measured_mean": part["measured"].mean(), "error_before_mean": part["error_before"].mean()}
        for method in ("IU-RED", "S&T"):
            row[f"{method}_mean"] = part[method].mean()
            row[f"{method}_se"] = part[method].std() / np.sqrt(len(part))
        summary.append(row)
    return restarts_table, pd.DataFrame(summary)


# -- Figure 2.5 and Table 2.2: a simulated crowd ------------------------------------------------------
class RecordedAnswers:
    """A crowd whose answers were recorded beforehand: the r-th ask of a pair returns its r-th recorded answer.

    ``answers`` has shape (R, n, n): R recorded answers per pair (symmetric). An algorithm that may
    repeat a pair up to R times then sees the same answers, in the same order, whatever it asks first,
    as the seed's algorithms saw its three Mechanical Turk answers per pair.
    """

    def __init__(self, answers: np.ndarray):
        self.answers = np.asarray(answers, dtype=float)
        self.n_items = self.answers.shape[1]
        self.asked = np.zeros(self.answers.shape[1:], dtype=np.int64)

    def query(self, pairs) -> np.ndarray:
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        i, j = pairs.min(1), pairs.max(1)
        out = np.empty(len(pairs))
        for k, (a, b) in enumerate(zip(i, j)):
            r = self.asked[a, b]
            if r >= len(self.answers):
                raise InputError(f"RecordedAnswers: pair ({a}, {b}) asked {r + 1} times but only "
                                 f"{len(self.answers)} answers were recorded; ask with repeats <= {len(self.answers)}.")
            out[k] = self.answers[r, a, b]
            self.asked[a, b] += 1
        return out


def crowd_answers(W: np.ndarray, rng, concentration: float, adversarial: float, recorded: int = 3) -> np.ndarray:
    """``recorded`` answers per pair from paucity's simulated crowd (BetaNoise through a MatrixOracle), symmetric."""
    n = len(W)
    iu, ju = np.triu_indices(n, 1)
    pairs = np.column_stack([iu, ju])
    oracle = MatrixOracle(W, noise=BetaNoise(concentration=concentration, adversarial=adversarial),
                          random_state=rng)
    answers = np.empty((recorded, n, n))
    for r in range(recorded):
        A = np.eye(n)
        A[iu, ju] = A[ju, iu] = oracle.query(pairs)
        answers[r] = A
    return answers


def photos_stand_in(seed, *, separation=None, concentration=None, adversarial=None, n_points=PHOTOS_N):
    """The photos' stand-in: true similarities, the three recorded answers per pair, their median, the rooms."""
    separation = PHOTOS_SEPARATION if separation is None else separation
    concentration = CROWD_CONCENTRATION if concentration is None else concentration
    adversarial = CROWD_ADVERSARIAL if adversarial is None else adversarial
    X, rooms = two_gaussians(separation, np.random.default_rng([seed, 25]), n_points)
    W = rbf_similarities(X)
    answers = crowd_answers(W, np.random.default_rng([seed, 26]), concentration, adversarial)
    return W, answers, np.median(answers, axis=0), rooms


def crowd_tuning(seeds=CROWD_TUNING_SEEDS, n_points=PHOTOS_N) -> pd.DataFrame:
    """The stand-in's constants, on draws the figure does not report (``TUNING_SEEDS``).

    For every separation of ``PHOTOS_SEPARATION_GRID`` and crowd of ``CROWD_GRID``: the error of the
    complete median-of-three matrix's bisection against the generating groups (``error_rooms``), and the
    error of the bisection of one complete set of single answers against the median reference
    (``error_single``), each a mean over the seeds.
    """
    rows = []
    for sep in PHOTOS_SEPARATION_GRID:
        for concentration, adversarial in CROWD_GRID:
            rooms_err, single_err = [], []
            for s in seeds:
                _, answers, median, rooms = photos_stand_in(s, separation=sep, concentration=concentration,
                                                            adversarial=adversarial, n_points=n_points)
                reference = spectral_bisection(median)
                rooms_err.append(misclustering_error(reference, rooms))
                single_err.append(misclustering_error(spectral_bisection(answers[0]), reference))
            rows.append({"separation": sep, "concentration": concentration, "adversarial": adversarial,
                         "error_rooms": float(np.mean(rooms_err)), "error_single": float(np.mean(single_err)),
                         "seeds": " ".join(map(str, seeds))})
    table = pd.DataFrame(rows)
    ok = table[table["error_rooms"] <= COST_TARGET]
    table["chosen"] = False
    if len(ok):
        ok = ok[ok["separation"] == ok["separation"].min()]
        table.loc[ok["error_single"].idxmax(), "chosen"] = True
    return table


def crowd_curve(W_oracle, answers, panel: str, method: str, budget: int, grid, random_state: int,
                reference) -> np.ndarray:
    """One run's error against the median reference at each x of ``grid`` (the panel's x-axis)."""
    strategy, interleave = METHODS[method]
    n = len(reference)
    total = n * (n - 1) // 2
    per_query = 3 if panel == "a" else 1  # (a): each query is a median of three answers
    repeats = 3 if panel == "b" else 1
    oracle = MatrixOracle(W_oracle) if panel == "a" else RecordedAnswers(answers if panel == "b" else answers[:1])
    model = ActiveSpectralClustering(strategy=strategy, interleave=interleave, budget=budget, repeats=repeats,
                                     random_state=random_state)
    model.fit(oracle, reference=reference)
    counts = np.round(np.asarray(grid) * total / per_query).astype(int)
    if strategy == "random":
        return _prefix_curve(model.queries_, counts, n, reference)
    history = model.history_
    n_queries, errors = history["n_queries"].to_numpy(), history["error"].to_numpy()
    at = np.searchsorted(n_queries, counts, side="right") - 1
    return errors[np.clip(at, 0, None)]


def _prefix_curve(queries: pd.DataFrame, counts, n: int, reference) -> np.ndarray:
    """The error of the running-median Ŵ of the first m queries, for each m of ``counts``."""
    out = []
    for m in counts:
        W_hat = np.eye(n)
        if m > 0:
            med = queries.iloc[:m].groupby(["i", "j"])["value"].median()
            i = med.index.get_level_values(0).to_numpy()
            j = med.index.get_level_values(1).to_numpy()
            W_hat[i, j] = W_hat[j, i] = med.to_numpy()
        out.append(misclustering_error(spectral_bisection(W_hat), reference))
    return np.asarray(out)


def _crowd_task(W_oracle, answers, panel, method, budget, grid, state, reference, r):
    return panel, method, r, crowd_curve(W_oracle, answers, panel, method, budget, grid, state, reference)


def cost_to_reach(summary: pd.DataFrame, target: float = COST_TARGET, price: float = PRICE) -> pd.DataFrame:
    """Table 2.2: per panel and method, the first x where the mean error is at most ``target``, and its cost.

    A panel's x counts answers in units of n(n−1)/2 (in (a) three per median), so the cost is
    ``x · n(n−1)/2 · price / 3`` with ``price`` per median of three answers (the seed's US$0.045),
    that is US$0.015 per answer. ``reached`` is False when no x of the run's budget gets there; the cost
    is then that of the whole budget (written ">$X"). ``x_stays`` and ``cost_stays_usd``: the first x
    from which the mean error stays at most ``target`` to the end of the budget (NaN if it never does).
    """
    rows = []
    for (panel, method), part in summary.groupby(["panel", "method"], sort=False):
        total = part["pairs"].iloc[0]
        below = part[part["error_mean"] <= target]
        reached = len(below) > 0
        x = float(below["x"].iloc[0]) if reached else float(part["x"].max())
        stays = bool(reached and (part.loc[part["x"] >= x, "error_mean"] <= target).all())
        ordered = part.sort_values("x")
        above = ordered.loc[ordered["error_mean"] > target, "x"]
        after = ordered.loc[ordered["x"] > above.max(), "x"] if len(above) else ordered["x"]
        x_stays = float(after.min()) if len(after) else float("nan")
        rows.append({"panel": panel, "method": method, "target": target, "reached": reached, "x": x,
                     "cost_usd": x * total * price / 3, "stays_below": stays, "x_stays": x_stays,
                     "cost_stays_usd": x_stays * total * price / 3, "runs": int(part["runs"].min())})
    return pd.DataFrame(rows)


def run_fig2_5(*, runs=None, quick=False, seed=SEED, jobs=2, figures=FIGURES, results=RESULTS, progress=True,
               checkpoint=None):
    settings = dict(QUICK_FIG2_5 if quick else FIG2_5)
    if runs:
        settings["runs"] = runs
    n_points = settings.get("n_points", PHOTOS_N)
    W, answers, median, rooms = photos_stand_in(seed, n_points=n_points)
    reference = spectral_bisection(median)
    total = n_points * (n_points - 1) // 2
    fractions = {"a": settings["x_a"], "b": settings["x_b"], "c": settings["x_c"]}
    budgets = {"a": int(round(fractions["a"] * total / 3)), "b": int(round(fractions["b"] * total)),
               "c": int(round(fractions["c"] * total))}
    grids = {p: np.round(np.arange(0, fractions[p] + 1e-9, settings["step"] * (1 if p != "c" else 0.5)), 4)
             for p in "abc"}
    states = {panel: _seeds([seed, 25, k], settings["runs"]) for k, panel in enumerate("abc")}
    tasks = []
    for r in range(settings["runs"]):  # whole runs one after another, as in curves()
        for panel in "abc":
            for method in METHODS:
                tasks.append((median, answers, panel, method, budgets[panel], grids[panel], states[panel][r],
                              reference, r))
    _log(f"{len(tasks)} runs on {jobs} processes; reference vs rooms: "
         f"{misclustering_error(reference, rooms):.3f}", progress)
    rows = []
    for panel, method, r, errors in _map(_crowd_task, tasks, jobs):
        rows += [{"panel": panel, "method": method, "run": r, "x": x, "error": e}
                 for x, e in zip(grids[panel], errors)]
        _checkpoint(rows, checkpoint)
    return finish_fig2_5(pd.DataFrame(rows), n_points, figures=figures, results=results)


def finish_fig2_5(table: pd.DataFrame, n_points: int = PHOTOS_N, *, figures=FIGURES, results=RESULTS):
    """Figure 2.5's summary, Table 2.2 and the figure from the per-run rows (``--checkpoint``'s file)."""
    total = n_points * (n_points - 1) // 2
    g = table.groupby(["panel", "method", "x"], sort=False)["error"]
    summary = g.agg(error_mean="mean", error_std="std", runs="count").reset_index()
    summary["error_se"] = summary["error_std"] / np.sqrt(summary["runs"])
    summary["pairs"] = total
    _table(summary, Path(results) / "clustering_fig2_5.csv")
    costs = cost_to_reach(summary)
    _table(costs, Path(results) / "clustering_table2_2.csv")
    titles = {"a": "(a) median of three answers", "b": "(b) up to three repeats, chosen by σ̂",
              "c": "(c) one answer per pair"}
    plot_curves(summary.rename(columns={"panel": "data", "x": "fraction"}),
                Path(figures) / "clustering_fig2_5.png", titles,
                xlabel="answers / (n(n−1)/2)")
    return summary, costs


# -- runs ---------------------------------------------------------------------------------------------
def run_tune_width(*, results=RESULTS, progress=True) -> pd.DataFrame:
    table = width_tuning()
    _table(table, Path(results) / "clustering_width_tuning.csv")
    best = table.loc[table["chosen"], "width"].iloc[0]
    print(f"RBF width: best c = {best:g} (σ = c · median distance); WIDTH = {WIDTH:g}", flush=True)
    return table


def run_fig2_2(*, runs=None, quick=False, seed=SEED, jobs=2, figures=FIGURES, results=RESULTS, progress=True,
               checkpoint=None):
    settings = dict(QUICK_FIG2_2 if quick else FIG2_2)
    if runs:
        settings["runs"] = runs
    n_points = settings.get("n_points", N_POINTS)
    matrices, titles = {}, {}
    for sep in SEPARATIONS:
        X, _ = two_gaussians(sep, np.random.default_rng([seed, int(sep * 10)]), n_points)
        matrices[f"separation {sep:g}"] = rbf_similarities(X)
        titles[f"separation {sep:g}"] = f"means {sep:g} sd apart, n = {n_points}"
    table = curves(matrices, settings, seed=seed, jobs=jobs, progress=progress, checkpoint=checkpoint)
    summary = summarize(table)
    _table(summary, Path(results) / "clustering_fig2_2.csv")
    plot_curves(summary, Path(figures) / "clustering_fig2_2.png", titles)
    return summary


def run_fig2_3(*, runs=None, quick=False, seed=SEED, jobs=2, figures=FIGURES, results=RESULTS, progress=True):
    settings = dict(QUICK_FIG2_3 if quick else FIG2_3)
    if runs:
        settings["runs"] = runs
    per_class = settings.get("per_class", 100)
    matrices, titles = {}, {}
    for k, name in enumerate(DATASETS):
        X, _ = real_dataset(name, np.random.default_rng([seed, 23, k]), per_class)
        matrices[name] = rbf_similarities(X)
        titles[name] = f"{name}, n = {len(X)}"
    table = curves(matrices, settings, seed=seed, jobs=jobs, progress=progress)
    summary = summarize(table)
    _table(summary, Path(results) / "clustering_fig2_3.csv")
    plot_curves(summary, Path(figures) / "clustering_fig2_3.png", titles)
    return summary


def run_table2_1(*, runs=None, quick=False, seed=SEED, jobs=2, results=RESULTS, progress=True, **_):
    settings = dict(QUICK_TABLE2_1 if quick else TABLE2_1)
    restarts = runs or settings["restarts"]
    per_class = settings.get("per_class", 100)
    matrices = {}
    for k, name in enumerate(DATASETS):
        X, _ = real_dataset(name, np.random.default_rng([seed, 23, k]), per_class)  # the data of fig2_3
        matrices[name] = rbf_similarities(X)
    matrices["uniform"] = None
    _, summary = table2_1(matrices, restarts, seed=seed, jobs=jobs,
                          uniform_n=settings.get("uniform_n", UNIFORM_N), progress=progress)
    _table(summary, Path(results) / "clustering_table2_1.csv")
    return summary


def run_tune_crowd(*, results=RESULTS, progress=True) -> pd.DataFrame:
    table = crowd_tuning()
    _table(table, Path(results) / "clustering_crowd_tuning.csv")
    best = table[table["chosen"]].iloc[0]
    print(f"photos stand-in: separation {best['separation']:g}, concentration {best['concentration']:g}, "
          f"adversarial {best['adversarial']:g} (in use: {PHOTOS_SEPARATION:g}, {CROWD_CONCENTRATION:g}, "
          f"{CROWD_ADVERSARIAL:g})", flush=True)
    return table


COMMANDS = ("fig2_2", "table2_1", "fig2_3", "fig2_5")


def run(name: str, **kwargs):
    """Run one subcommand; returns what it computed."""
    if name == "tune_width":
        return run_tune_width(results=kwargs.get("results", RESULTS), progress=kwargs.get("progress", True))
    if name == "fig2_2":
        return run_fig2_2(**kwargs)
    if name == "fig2_3":
        return run_fig2_3(**kwargs)
    if name == "tune_crowd":
        return run_tune_crowd(results=kwargs.get("results", RESULTS), progress=kwargs.get("progress", True))
    if name == "fig2_5":
        return run_fig2_5(**kwargs)
    if name == "table2_1":
        kwargs.pop("figures", None)
        return run_table2_1(**kwargs)
    raise ValueError(f"unknown experiment {name!r}; expected one of {', '.join(COMMANDS)}, 'tune_width', 'tune_crowd' or 'all'.")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", choices=(*COMMANDS, "all", "tune_width", "tune_crowd"))
    p.add_argument("--runs", type=int, default=None,
                   help=f"runs per curve (default {FIG2_2['runs']} for fig2_2, {FIG2_3['runs']} for fig2_3, "
                        f"{FIG2_5['runs']} for fig2_5) or "
                        f"restarts per data set for table2_1 (default {TABLE2_1['restarts']})")
    p.add_argument("--quick", action="store_true", help="small data, grids and few runs, for a check in seconds")
    p.add_argument("--seed", type=int, default=SEED, help="seed of all random draws (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--checkpoint", type=Path, default=None,
                   help="fig2_2, fig2_5: write every run's curves so far to this CSV after each curve")
    p.add_argument("--figures-dir", type=Path, default=FIGURES, help="where the PNG files go (default docs/figures)")
    p.add_argument("--results-dir", type=Path, default=RESULTS,
                   help="where the CSV files go (default experiments/results)")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    names = COMMANDS if args.experiment == "all" else (args.experiment,)
    for name in names:
        started = time.perf_counter()
        extra = {"checkpoint": args.checkpoint} if args.checkpoint and name in ("fig2_2", "fig2_5") else {}
        run(name, runs=args.runs, quick=args.quick, seed=args.seed, jobs=args.jobs, figures=args.figures_dir,
            results=args.results_dir, **extra)
        print(f"{name}: {time.perf_counter() - started:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
