"""Reproductions of the ranking experiments of the seed theses.

Run with paucity's development Python from the repository root::

    python experiments/ranking.py all              # every figure, the seeds' sizes
    python experiments/ranking.py fig3_1           # one figure
    python experiments/ranking.py fig5_1c --repeats 100
    python experiments/ranking.py fig5_1ab          # bound probabilities against c
    python experiments/ranking.py all --quick      # small grids, few repetitions
    python experiments/ranking.py tune_siamese     # choose the Siamese network's constants on unreported draws
    python experiments/ranking.py siamese_draws    # the Siamese plateau of Figure 3.5 on four further draws

Subcommands (seed 000 is the thesis of chapter 3, seed 003 the one of chapter 5):

``fig3_1``, ``fig3_2``
    Seed 000, §3.4: n = 200 (Figure 3.1) and n = 20 (Figure 3.2) items with
    log-weights ``v ~ U[0, 5]`` (``w = exp(v)``), m comparisons of pairs drawn
    uniformly with replacement and BTL winners. Unregularized and
    λ-regularized RankCentrality (λ = 1/n, 1/(2n), 1/(4n), 1/(8n)), each on the
    chain Q̂ of eq. 3.5 (the seed's Algorithms 6 and 7) and on Q̂^NOS of eq. 3.3,
    the BTL maximum likelihood estimate and the L2-regularized BTL estimate
    (``BTL(alpha=1)``: the penalty ``‖v‖²/2`` of scikit-learn's logistic
    regression with ``C = 1``, without intercept). Relative ℓ2 error of the
    normalized weights and Kendall's tau-b against ``v``; 40 repetitions.
``fig3_4``, ``fig3_5``, ``fig3_6``
    Seed 000, §3.5.2: the synthetic feature experiments 1–3 (1000, 1600 and
    1000 items). (a) Kendall's tau-b against m for similarity-regularized
    RankCentrality (Gaussian kernel of width σ = 2⁻⁵, 2⁻⁴, 2⁻⁵, λ = 1/n),
    λ-regularized RankCentrality, regularized BTL, RankSVM (linear and on
    random Fourier features) and the Siamese network of §3.5.3; 20
    repetitions. (b) tau-b against σ for a few m.
``tune_siamese``
    The Siamese network's constants (hidden layers, penalty alpha) for
    Figures 3.4–3.6, chosen on draws that the figures do not report (seeds
    100–104, ``TUNING_SEEDS``): the grid ``SIAMESE_GRID``, criterion the
    mean Kendall tau-b over the three experiments, the three m of their
    panels (b) and the five seeds. The winner is fixed in ``SIAMESE``.
``siamese_draws``
    How much the Siamese network's plateau in experiment 2 (Figure 3.5)
    depends on the draw of the items: experiment 2 at m = 3·10⁴ drawn from
    the seeds ``DRAW_SEEDS`` (200–203, neither reported nor used for tuning),
    the Siamese network and similarity-regularized RankCentrality (Q̂^NOS,
    σ = 2⁻⁴), ``DRAW_REPEATS`` sets of comparisons per draw, seeded as the
    figure seeds its own; ``experiments/results/ranking_siamese_draws.csv``
    (a row per draw and method: mean, standard deviation, count).
``fig5_1ab``
    Seed 003, §5.5, Figures 5.1(a) and 5.1(b): noiseless permutations of 1000
    items, each pair measured with probability ``c log(n) / n``; the fraction
    of 300 runs in which the displacement bound of Theorem 5.4.2 (BRE, eq.
    5.13) and of Theorem 5.4.6 (URE, eq. 5.23) holds, against c, for a few ν
    (four times smaller for URE), with the theorems' lower bounds on that
    probability (eqs. 5.83 and 5.22) as dashed curves.
``fig5_1c``
    Seed 003, §5.5: a noiseless permutation of 8000 items, each pair measured
    with probability ``c log(n) / n``; BRE and URE on the same comparisons;
    median displacement ``|π̂(j) − π*(j)|`` against the true position, with
    error bars of half a standard deviation; 500 runs.

The data of every figure come from a fixed seed (``--seed``). Figures are
written to ``docs/figures/ranking_*.png`` and the numbers behind them to
``experiments/results/ranking_*.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from paucity._errors import InputError
from paucity.datasets import btl_comparisons, btl_scores, feature_experiment, flip_comparisons
from paucity.io import write_csv, write_figure
from paucity.ranking import BTL, RankCentrality, RankSVM, SiameseRanker
from paucity.ranking.metrics import displacement, kendall_tau_b, l2_error

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"
RESULTS = ROOT / "experiments" / "results"
SEED = 0

# -- settings of each figure at full size (--quick uses the quick_* entries and smaller grids) ---------
CONVERGENCE = {
    "fig3_1": {"n": 200, "m_grid": [50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000], "repeats": 40,
               "quick_m_grid": [100, 1000, 10000], "quick_repeats": 4},
    "fig3_2": {"n": 20, "m_grid": [5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000], "repeats": 40,
               "quick_m_grid": [10, 100, 1000], "quick_repeats": 4},
}
LAMBDA_DIVISORS = (1, 2, 4, 8)  # λ = 1 / (k n)
BTL_ALPHA = 1.0  # penalty (alpha / 2) ‖v‖²: scikit-learn's LogisticRegression(C=1) without intercept
CHAINS = {"sampling": "Q̂ of (3.5)", "nos": "Q̂ NOS (3.3)"}

FEATURES = {
    "fig3_4": {"number": 1, "sigma": 2.0**-5, "m_grid": [100, 200, 500, 1000, 2000, 5000, 10000],
               "sweep_m": [100, 1000, 10000]},
    "fig3_5": {"number": 2, "sigma": 2.0**-4, "m_grid": [100, 300, 1000, 3000, 10000, 30000, 100000],
               "sweep_m": [300, 3000, 30000]},
    "fig3_6": {"number": 3, "sigma": 2.0**-5, "m_grid": [100, 200, 500, 1000, 2000, 5000, 10000],
               "sweep_m": [100, 1000, 10000]},
}
FEATURE_REPEATS = 20
SWEEP_REPEATS = 10
SIGMAS = [2.0**k for k in range(-8, 4)]
RFF_MAX_M = 10000  # RankSVM on random features is fitted up to this many comparisons (its cost grows fastest)
# The Siamese network of §3.5.3. Its constants were chosen by `tune_siamese` on the draws of TUNING_SEEDS, never
# on the reported draws of SEED; the grid, the criterion and every configuration's score are in
# experiments/results/ranking_siamese_tuning.csv.
SIAMESE = {"hidden": (16,), "alpha": 3e-5}
TUNING_SEEDS = (100, 101, 102, 103, 104)
SIAMESE_GRID = {"hidden": [(8,), (16,), (20, 20)], "alpha": [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1e-1, 1.0]}
# Further draws of experiment 2 for `siamese_draws` (not SEED, not TUNING_SEEDS), at the m of the plateau.
DRAW_SEEDS = (200, 201, 202, 203)
DRAW_M = 30000
DRAW_REPEATS = 5

DISPLACEMENT = {"n": 8000, "c": 10.0, "runs": 500, "bin_size": 100}
QUICK_DISPLACEMENT = {"n": 2000, "c": 10.0, "runs": 20, "bin_size": 100}
# Figures 5.1(a)/(b). The seed does not list its ν or its grid of c; ν for URE is a quarter of BRE's, as in the
# seed, so that both theorems bound the top νn positions by the same νn. c stops below n / log(n) ≈ 145, where
# the measurement probability c log(n)/n would exceed 1.
BOUNDS = {"n": 1000, "runs": 300, "nu": (0.1, 0.2, 0.4),
          "c_grid": (0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)}
QUICK_BOUNDS = {"n": 300, "runs": 10, "nu": (0.1, 0.2, 0.4), "c_grid": (2, 8, 32)}


def _streams(seed, count: int) -> list[np.random.Generator]:
    """Independent generators, one per repetition, from one seed."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(count)]


def _table(df: pd.DataFrame, path) -> None:
    """Write a CSV atomically, creating its folder."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_csv(df, path, index=False, float_format="%.6g")


def _figure(fig, path) -> None:
    """Save a PNG atomically, creating its folder."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_figure(fig, path, dpi=110)


def _log(message: str, progress: bool) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


# -- Figures 3.1 and 3.2 ---------------------------------------------------------------------------
def _convergence_methods(n: int, chains=tuple(CHAINS), divisors=LAMBDA_DIVISORS, btl_alpha=BTL_ALPHA):
    """(method, chain, estimator) of the convergence experiment."""
    methods = []
    for chain in chains:
        methods.append(("RankCentrality", chain, RankCentrality(transition=chain)))
        for k in divisors:
            label = "λ = 1/n" if k == 1 else f"λ = 1/({k}n)"
            methods.append((label, chain, RankCentrality(transition=chain, regularization="uniform", lam=1.0 / (k * n))))
    methods.append(("BTL-MLE", "", BTL(alpha=0.0)))
    methods.append((f"BTL-MLE, alpha = {btl_alpha:g}", "", BTL(alpha=btl_alpha)))
    return methods


def convergence_experiment(n: int, m_grid, repeats: int, *, random_state=SEED, chains=tuple(CHAINS),
                           divisors=LAMBDA_DIVISORS, btl_alpha=BTL_ALPHA, progress=False) -> pd.DataFrame:
    """ℓ2 error and Kendall's tau-b of the estimators of Figures 3.1/3.2, one row per run and method.

    The log-weights ``v ~ U[0, 5]`` are drawn once; for every m and repetition
    m pairs are drawn uniformly with replacement and their winners by BTL,
    and every estimator is fitted on the same comparisons. A BTL-MLE that does
    not exist (comparison graph not strongly connected) is recorded as NaN;
    unregularized RankCentrality then returns the uniform distribution, whose
    tau-b is undefined (NaN) and whose ℓ2 error is that of uniform weights.
    """
    v = btl_scores(n, random_state=np.random.default_rng([random_state, n]))
    weights = np.exp(v)
    rows = []
    for m in m_grid:
        started = time.perf_counter()
        for repeat, rng in enumerate(_streams([random_state, n, m], repeats)):
            comparisons = btl_comparisons(v, m, random_state=rng)
            for method, chain, estimator in _convergence_methods(n, chains, divisors, btl_alpha):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        estimator.fit(comparisons)
                    except InputError:  # the BTL-MLE does not exist
                        rows.append((n, m, repeat, method, chain, np.nan, np.nan, False))
                        continue
                scores = estimator.scores_.to_numpy()
                if isinstance(estimator, BTL):
                    error = l2_error(scores, v, log=True)
                    trivial = False
                else:
                    error = l2_error(scores, weights)
                    trivial = not estimator.ergodic_
                rows.append((n, m, repeat, method, chain, error, kendall_tau_b(scores, v), trivial))
        _log(f"n={n} m={m}: {time.perf_counter() - started:.1f}s", progress)
    return pd.DataFrame(rows, columns=["n", "m", "repeat", "method", "chain", "l2_error", "tau_b", "uniform"])


def summarize(runs: pd.DataFrame, by, values) -> pd.DataFrame:
    """Mean, standard deviation and number of defined values of each metric per group."""
    grouped = runs.groupby(by, sort=False, dropna=False)
    parts = {"runs": grouped.size()}
    for value in values:
        parts[f"{value}_mean"] = grouped[value].mean()
        parts[f"{value}_std"] = grouped[value].std(ddof=0)
        parts[f"{value}_defined"] = grouped[value].count()
    if "uniform" in runs:
        parts["uniform_runs"] = grouped["uniform"].sum()
    return pd.DataFrame(parts).reset_index()


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


_STYLE = {
    "RankCentrality": ("black", "o", "-"),
    "λ = 1/n": ("tab:blue", "s", "-"),
    "λ = 1/(2n)": ("tab:cyan", "v", "-"),
    "λ = 1/(4n)": ("tab:green", "^", "-"),
    "λ = 1/(8n)": ("tab:olive", "D", "-"),
    "BTL-MLE": ("tab:red", "x", "--"),
}


def _style(method: str):
    return _STYLE.get(method, ("tab:purple", "+", "--"))


def plot_convergence(summary: pd.DataFrame, path, *, title: str = "") -> None:
    """Two columns (ℓ2 error, tau-b) against m; a row per chain, BTL in every row.

    A point is drawn where at least half of the runs give a defined value
    (tau-b is undefined for the uniform output of unregularized RankCentrality).
    """
    plt = _plt()
    chains = [c for c in summary["chain"].unique() if c]
    fig, axes = plt.subplots(len(chains), 2, figsize=(11, 4.2 * len(chains)), squeeze=False)
    for row, chain in enumerate(chains):
        part = summary[(summary["chain"] == chain) | (summary["chain"] == "")]
        for col, (metric, label) in enumerate((("l2_error", "ℓ2 error ‖π̂ − π‖ / ‖π‖"), ("tau_b", "Kendall tau-b"))):
            ax = axes[row, col]
            for method, group in part.groupby("method", sort=False):
                keep = group[f"{metric}_defined"] >= group["runs"] / 2
                group = group[keep]
                if group.empty:
                    continue
                color, marker, line = _style(method)
                mean, std = group[f"{metric}_mean"].to_numpy(), group[f"{metric}_std"].to_numpy()
                ax.plot(group["m"], mean, color=color, marker=marker, linestyle=line, markersize=4, label=method)
                ax.fill_between(group["m"], mean - std, mean + std, color=color, alpha=0.12, linewidth=0)
            ax.set_xscale("log")
            if metric == "l2_error":
                ax.set_yscale("log")
            ax.set_xlabel("m (comparisons)")
            ax.set_ylabel(label)
            ax.set_title(f"{label.split(' ‖')[0]}, RankCentrality on {CHAINS.get(chain, chain)}", fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
        axes[row, 1].legend(fontsize=8, loc="lower right")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    _figure(fig, path)
    plt.close(fig)


# -- Figures 3.4–3.6 -------------------------------------------------------------------------------
def feature_methods(sigma: float, random_state: int, siamese=None):
    """(name, estimator) of the feature experiments; λ = 1/n throughout.

    ``siamese`` holds the Siamese network's ``hidden`` and ``alpha`` (default ``SIAMESE``).
    """
    siamese = SIAMESE if siamese is None else siamese
    similarity = {"regularization": "similarity", "kernel": "gaussian", "sigma": sigma, "solver": "arpack"}
    return [
        (f"similarity σ = 2^{np.log2(sigma):g}, Q̂ NOS", RankCentrality(transition="nos", **similarity)),
        (f"similarity σ = 2^{np.log2(sigma):g}, Q̂ of (3.5)", RankCentrality(transition="sampling", **similarity)),
        ("λ-regularized, Q̂ NOS", RankCentrality(transition="nos", regularization="uniform")),
        (f"BTL-MLE, alpha = {BTL_ALPHA:g}", BTL(alpha=BTL_ALPHA)),
        ("RankSVM linear", RankSVM(kernel="linear", random_state=random_state)),
        ("RankSVM random features", RankSVM(kernel="rbf", random_state=random_state)),
        ("Siamese network", SiameseRanker(**siamese, random_state=random_state)),
    ]


def feature_performance(number: int, m_grid, repeats: int, *, sigma: float, random_state=SEED, n_items=None,
                        rff_max_m: int = RFF_MAX_M, methods=None, progress=False) -> pd.DataFrame:
    """Kendall's tau-b of every method against m on one feature experiment, a row per run and method.

    The items (features and BTL weights) are drawn once; the comparisons
    anew for every m and repetition, all methods fitted on the same ones.
    RankSVM on random features is skipped (NaN) above ``rff_max_m``.
    ``methods`` (names of :func:`feature_methods`) keeps only those; the
    draws are the same whichever are kept.
    """
    experiment = feature_experiment(number, n_items=n_items, random_state=np.random.default_rng([random_state, number]))
    v = experiment.log_weights
    rows = []
    for m in m_grid:
        started = time.perf_counter()
        for repeat, rng in enumerate(_streams([random_state, number, m], repeats)):
            comparisons = experiment.comparisons(m, random_state=rng)
            for method, estimator in feature_methods(sigma, int(rng.integers(2**31 - 1))):
                if methods is not None and method not in methods:
                    continue
                if method == "RankSVM random features" and m > rff_max_m:
                    rows.append((number, m, repeat, method, np.nan))
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    estimator.fit(comparisons)
                rows.append((number, m, repeat, method, kendall_tau_b(estimator.scores_.to_numpy(), v)))
        _log(f"experiment {number} m={m}: {time.perf_counter() - started:.1f}s", progress)
    return pd.DataFrame(rows, columns=["experiment", "m", "repeat", "method", "tau_b"])


def sigma_sweep(number: int, m_values, sigmas, repeats: int, *, random_state=SEED, n_items=None,
                progress=False) -> pd.DataFrame:
    """tau-b of similarity-regularized RankCentrality (Q̂ NOS, λ = 1/n) against σ, with λ-regularized as σ = 0."""
    experiment = feature_experiment(number, n_items=n_items, random_state=np.random.default_rng([random_state, number]))
    v = experiment.log_weights
    rows = []
    for m in m_values:
        started = time.perf_counter()
        for repeat, rng in enumerate(_streams([random_state, number, m, 1], repeats)):
            comparisons = experiment.comparisons(m, random_state=rng)
            fits = [(0.0, RankCentrality(transition="nos", regularization="uniform"))]
            fits += [(s, RankCentrality(transition="nos", regularization="similarity", kernel="gaussian", sigma=s,
                                        solver="arpack")) for s in sigmas]
            for sigma, estimator in fits:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    estimator.fit(comparisons)
                rows.append((number, m, repeat, sigma, kendall_tau_b(estimator.scores_.to_numpy(), v)))
        _log(f"experiment {number} sweep m={m}: {time.perf_counter() - started:.1f}s", progress)
    return pd.DataFrame(rows, columns=["experiment", "m", "repeat", "sigma", "tau_b"])


def siamese_tuning(experiments=None, seeds=TUNING_SEEDS, grid=None, *, n_items=None, progress=False) -> pd.DataFrame:
    """Kendall's tau-b of every Siamese configuration of the grid on draws that are not reported.

    For every experiment number and m in ``experiments`` (default: the three of Figures 3.4–3.6 at the m of
    their panels (b)) and every seed in ``seeds``, the items are drawn from ``[seed, number]`` and one set
    of comparisons from ``[seed, number, m]``, as the figures draw theirs from ``SEED``; every configuration
    is fitted on the same comparisons, with the same initial-weight seed. A row per configuration: the mean
    tau-b over all cells (the criterion), its mean per experiment, and its mean per (experiment, m) cell.
    """
    experiments = experiments or {FEATURES[name]["number"]: FEATURES[name]["sweep_m"] for name in FEATURES}
    grid = grid or SIAMESE_GRID
    configs = [(tuple(h), float(a)) for h in grid["hidden"] for a in grid["alpha"]]
    rows = []
    for number, m_values in experiments.items():
        for seed in seeds:
            experiment = feature_experiment(number, n_items=n_items, random_state=np.random.default_rng([seed, number]))
            for m in m_values:
                started = time.perf_counter()
                rng = _streams([seed, number, m], 1)[0]
                comparisons = experiment.comparisons(m, random_state=rng)
                init = int(rng.integers(2**31 - 1))
                for hidden, alpha in configs:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = SiameseRanker(hidden=hidden, alpha=alpha, random_state=init).fit(comparisons)
                    rows.append((hidden, alpha, number, m, seed,
                                 kendall_tau_b(model.scores_.to_numpy(), experiment.log_weights)))
                _log(f"tuning: experiment {number} seed {seed} m={m}: {time.perf_counter() - started:.1f}s", progress)
    runs = pd.DataFrame(rows, columns=["hidden", "alpha", "experiment", "m", "seed", "tau_b"])
    runs["hidden"] = runs["hidden"].map(lambda h: "-".join(map(str, h)))
    keys = ["hidden", "alpha"]
    table = runs.groupby(keys, sort=False)["tau_b"].mean().rename("tau_b_mean").to_frame()
    for number, part in runs.groupby("experiment"):
        table[f"experiment{number}"] = part.groupby(keys, sort=False)["tau_b"].mean()
    for (number, m), part in runs.groupby(["experiment", "m"]):
        table[f"experiment{number}_m{m}"] = part.groupby(keys, sort=False)["tau_b"].mean()
    table = table.reset_index()
    table["rank"] = table["tau_b_mean"].rank(ascending=False, method="min").astype(int)
    table["chosen"] = table["rank"] == 1
    table.insert(2, "seeds", "-".join(map(str, seeds)))
    return table.sort_values("rank", kind="stable").reset_index(drop=True)


_FEATURE_COLORS = ["tab:blue", "tab:cyan", "tab:green", "tab:red", "tab:orange", "tab:purple", "tab:brown"]


def plot_features(performance: pd.DataFrame, sweep: pd.DataFrame | None, path, *, title: str = "") -> None:
    """(a) tau-b against m, mean ± std; (b) tau-b against σ for a few m."""
    plt = _plt()
    panels = 1 if sweep is None else 2
    fig, axes = plt.subplots(1, panels, figsize=(6.2 * panels, 4.6), squeeze=False)
    ax = axes[0, 0]
    for color, (method, group) in zip(_FEATURE_COLORS, performance.groupby("method", sort=False)):
        group = group[group["tau_b_defined"] > 0]
        mean, std = group["tau_b_mean"].to_numpy(), group["tau_b_std"].to_numpy()
        ax.errorbar(group["m"], mean, yerr=std, color=color, marker="o", markersize=3.5, capsize=2, label=method)
    ax.set_xscale("log")
    ax.set_xlabel("m (comparisons)")
    ax.set_ylabel("Kendall tau-b")
    ax.set_title("(a) tau-b against m (mean ± std)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")
    if sweep is not None:
        ax = axes[0, 1]
        colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
        for color, (m, group) in zip(colors, sweep.groupby("m", sort=True)):
            kernel = group[group["sigma"] > 0]
            ax.errorbar(np.log2(kernel["sigma"]), kernel["tau_b_mean"], yerr=kernel["tau_b_std"], color=color,
                        marker="o", markersize=3.5, capsize=2, label=f"m = {m}")
            base = group[group["sigma"] == 0]["tau_b_mean"].to_numpy()
            if len(base):
                ax.axhline(base[0], color=color, linestyle=":", linewidth=1)
        ax.set_xlabel("log2 σ (kernel width)")
        ax.set_ylabel("Kendall tau-b")
        ax.set_title("(b) similarity-regularized (Q̂ NOS) against σ;\ndotted: λ-regularized (σ → 0)", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    _figure(fig, path)
    plt.close(fig)


# -- Figure 5.1(c) ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DisplacementResult:
    """Displacements of BRE and URE on the same noiseless comparisons.

    Attributes
    ----------
    per_position : pandas.DataFrame
        Per true position and method: median and standard deviation of the
        displacement over the runs.
    per_bin : pandas.DataFrame
        Per bin of ``bin_size`` true positions and method: median, mean and
        standard deviation of the displacements pooled over the bin's
        positions and the runs.
    mean_comparisons : float
        Average number of comparisons per run.
    """

    per_position: pd.DataFrame
    per_bin: pd.DataFrame
    mean_comparisons: float


def displacement_experiment(n: int, c: float, runs: int, *, bin_size: int = 100, random_state=SEED,
                            progress=False) -> DisplacementResult:
    """BRE and URE on a noiseless permutation, each pair measured with probability ``c log(n) / n``.

    Item k is the k-th best (true position k, 0-based). Equal scores (URE's
    loss counts tie often near the top) are ordered at random, so that the
    item order cannot leak the truth.
    """
    from paucity.ranking import BRE, URE

    truth = -np.arange(n, dtype=np.float64)
    rate = c * np.log(n) / n
    found = {"BRE": np.empty((runs, n), dtype=np.int32), "URE": np.empty((runs, n), dtype=np.int32)}
    sizes = []
    started = time.perf_counter()
    for run, rng in enumerate(_streams([random_state, n, round(c * 1000)], runs)):
        comparisons = flip_comparisons(n, rate=rate, p=1.0, random_state=rng)
        sizes.append(comparisons.n_comparisons)
        for name, cls in (("BRE", BRE), ("URE", URE)):
            scores = cls().fit(comparisons).scores_.to_numpy()
            found[name][run] = displacement(scores, truth, ties="random", random_state=rng)
        if progress and (run + 1) % 100 == 0:
            _log(f"fig5_1c: {run + 1}/{runs} runs, {time.perf_counter() - started:.1f}s", progress)
    per_position, per_bin = [], []
    bins = np.arange(n) // bin_size
    for name, values in found.items():
        per_position.append(pd.DataFrame({
            "method": name, "position": np.arange(n),
            "median": np.median(values, axis=0), "std": values.std(axis=0),
        }))
        for b in np.unique(bins):
            pooled = values[:, bins == b].ravel()
            per_bin.append((name, b * bin_size, min((b + 1) * bin_size, n), float(np.median(pooled)),
                            float(pooled.mean()), float(pooled.std())))
    per_bin = pd.DataFrame(per_bin, columns=["method", "position_from", "position_to", "median", "mean", "std"])
    return DisplacementResult(pd.concat(per_position, ignore_index=True), per_bin, float(np.mean(sizes)))


def crossover(per_bin: pd.DataFrame) -> float | None:
    """First bin start from which BRE's median displacement stays below URE's (None when it never does)."""
    bre = per_bin[per_bin["method"] == "BRE"].set_index("position_from")["median"]
    ure = per_bin[per_bin["method"] == "URE"].set_index("position_from")["median"]
    better = (bre < ure).to_numpy()
    for k in range(len(better)):
        if better[k:].mean() >= 0.9 and better[k]:
            return float(bre.index[k])
    return None


def plot_displacement(result: DisplacementResult, path, *, title: str = "") -> None:
    """Median displacement against true position: per position (faint) and per bin with ½-std error bars."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.6))
    for color, name in (("tab:blue", "BRE"), ("tab:red", "URE")):
        position = result.per_position[result.per_position["method"] == name]
        ax.plot(position["position"], position["median"], color=color, alpha=0.25, linewidth=0.6)
        binned = result.per_bin[result.per_bin["method"] == name]
        centre = (binned["position_from"] + binned["position_to"] - 1) / 2
        ax.errorbar(centre, binned["median"], yerr=binned["std"] / 2, color=color, marker="o", markersize=2.5,
                    linewidth=1.2, capsize=1.5, label=f"{name} (median per {int(binned['position_to'].iloc[0])} "
                    "positions, bars ½ std)")
    ax.set_xlabel("true position π*(j)")
    ax.set_ylabel("median displacement |π̂(j) − π*(j)|")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _figure(fig, path)
    plt.close(fig)


# -- Figures 5.1(a) and 5.1(b) -----------------------------------------------------------------------
def bre_bound_holds(moved: np.ndarray, nu: float) -> bool:
    """Whether the displacement bound of Theorem 5.4.2 (seed 003, eq. 5.13) holds.

    Eq. 5.13:  max_j |π̂(j) − π*(j)| ≤ ν n.
    """
    return bool(moved.max() <= nu * len(moved))


def ure_bound_holds(moved: np.ndarray, nu: float) -> bool:
    """Whether the displacement bound of Theorem 5.4.6 (seed 003, eq. 5.23) holds for every item.

    Eq. 5.23, with true positions π*(j) = 1, ..., n (item k of ``moved`` is at true position k + 1):
        |π*(j) − π̂(j)| ≤ 4 ν n                 if π*(j) < ν n,
        |π*(j) − π̂(j)| ≤ 4 √(ν π*(j) n)        if π*(j) ≥ ν n.
    """
    n = len(moved)
    position = np.arange(1, n + 1, dtype=np.float64)
    bound = np.where(position < nu * n, 4.0 * nu * n, 4.0 * np.sqrt(nu * position * n))
    return bool(np.all(moved <= bound))


def bre_probability_bound(n: int, c: float, nu: float) -> float:
    """The lower bound of Theorem 5.4.2 on the probability that eq. 5.13 holds, noiseless (p = 1).

    Eq. 5.83:  P ≥ 1 − 2 n^(1 − a_n (3/8) (2p − 1)² ν² c),  a_n = n / (n + c log n)  (eq. 5.83's a_n);
    with p = 1:  1 − 2 n^(1 − a_n (3/8) ν² c).  Clipped at 0 (the bound says nothing below).
    """
    a_n = n / (n + c * np.log(n))
    return float(max(0.0, 1.0 - 2.0 * n ** (1.0 - a_n * 3.0 / 8.0 * nu**2 * c)))


def ure_probability_bound(n: int, c: float, nu: float, p: float = 1.0) -> float:
    """The lower bound of Theorem 5.4.6 on the probability that eq. 5.23 holds.

    Eq. 5.22:  P ≥ 1 − 2 n^(1 − (3/2) [(2p − 1)² ν² / (3(1 − p) + (5p − 1) ν)] c);
    with p = 1 the bracket is ν / 4:  1 − 2 n^(1 − 3 ν c / 8).  Clipped at 0.
    """
    rate = (2 * p - 1) ** 2 * nu**2 / (3 * (1 - p) + (5 * p - 1) * nu)
    return float(max(0.0, 1.0 - 2.0 * n ** (1.0 - 1.5 * rate * c)))


def bound_experiment(n: int, c_grid, runs: int, nus, *, random_state=SEED, progress=False) -> pd.DataFrame:
    """How often the displacement bounds of Theorems 5.4.2 (BRE, ν) and 5.4.6 (URE, ν/4) hold, per c.

    For every c, ``runs`` noiseless permutations of ``n`` items (item k the
    k-th best), each pair measured with probability ``c log(n) / n``; BRE and
    URE are fitted on the same comparisons, ties broken at random. One row per
    method, ν and c: the number of runs in which the bound held, their
    fraction, and the theorem's lower bound on that probability.
    """
    from paucity.ranking import BRE, URE

    truth = -np.arange(n, dtype=np.float64)
    rows = []
    for c in c_grid:
        started = time.perf_counter()
        rate = c * np.log(n) / n
        held = {("BRE", nu): 0 for nu in nus} | {("URE", nu / 4): 0 for nu in nus}
        worst = {"BRE": [], "URE": []}
        sizes = []
        for rng in _streams([random_state, n, round(c * 1000), 51], runs):
            comparisons = flip_comparisons(n, rate=rate, p=1.0, random_state=rng)
            sizes.append(comparisons.n_comparisons)
            bre = displacement(BRE().fit(comparisons).scores_.to_numpy(), truth, ties="random", random_state=rng)
            ure = displacement(URE().fit(comparisons).scores_.to_numpy(), truth, ties="random", random_state=rng)
            worst["BRE"].append(bre.max())
            worst["URE"].append(ure.max())
            for nu in nus:
                held[("BRE", nu)] += bre_bound_holds(bre, nu)
                held[("URE", nu / 4)] += ure_bound_holds(ure, nu / 4)
        for (method, nu), count in held.items():
            bound = bre_probability_bound(n, c, nu) if method == "BRE" else ure_probability_bound(n, c, nu)
            rows.append((method, nu, c, n, runs, float(np.mean(sizes)), count, count / runs, bound,
                         float(np.median(worst[method]))))
        _log(f"fig5_1ab c={c:g}: {time.perf_counter() - started:.1f}s", progress)
    return pd.DataFrame(rows, columns=["method", "nu", "c", "n", "runs", "mean_comparisons", "held", "probability",
                                       "lower_bound", "median_max_displacement"])


def plot_bounds(table: pd.DataFrame, path, *, title: str = "") -> None:
    """(a) BRE, (b) URE: empirical probability (solid) and the theorem's lower bound (dashed) against c."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), squeeze=False)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    n = int(table["n"].iloc[0])
    fine = np.geomspace(table["c"].min(), table["c"].max(), 200)
    for ax, method, panel, theorem in ((axes[0, 0], "BRE", "(a)", "Theorem 5.4.2"),
                                       (axes[0, 1], "URE", "(b)", "Theorem 5.4.6")):
        part = table[table["method"] == method]
        for color, (nu, group) in zip(colors, part.groupby("nu", sort=True)):
            ax.plot(group["c"], group["probability"], color=color, marker="o", markersize=3.5, label=f"ν = {nu:g}")
            bound = bre_probability_bound if method == "BRE" else ure_probability_bound
            ax.plot(fine, [bound(n, c, nu) for c in fine], color=color, linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("c (each pair measured with probability c log(n)/n)")
        ax.set_ylabel("P(displacement bound holds)")
        ax.set_title(f"{panel} {method}, bound of {theorem}; dashed: the theorem's lower bound", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    _figure(fig, path)
    plt.close(fig)


# -- subcommands -----------------------------------------------------------------------------------
def run_convergence(name: str, *, repeats=None, quick=False, seed=SEED, figures=FIGURES, results=RESULTS,
                    progress=True) -> pd.DataFrame:
    settings = CONVERGENCE[name]
    m_grid = settings["quick_m_grid"] if quick else settings["m_grid"]
    repeats = repeats or (settings["quick_repeats"] if quick else settings["repeats"])
    runs = convergence_experiment(settings["n"], m_grid, repeats, random_state=seed, progress=progress)
    summary = summarize(runs, ["n", "m", "method", "chain"], ["l2_error", "tau_b"])
    _table(summary, Path(results) / f"ranking_{name}.csv")
    figure = "3.1" if name == "fig3_1" else "3.2"
    plot_convergence(summary, Path(figures) / f"ranking_{name}.png",
                     title=f"Figure {figure}: n = {settings['n']}, v ~ U[0, 5], {repeats} repetitions (mean ± std)")
    return summary


def run_features(name: str, *, repeats=None, quick=False, seed=SEED, figures=FIGURES, results=RESULTS,
                 sweep=True, progress=True):
    settings = FEATURES[name]
    number, sigma = settings["number"], settings["sigma"]
    if quick:
        m_grid, sweep_m, sigmas, n_items = settings["m_grid"][::3], settings["sweep_m"][:1], SIGMAS[::3], None
        repeats, sweep_repeats = repeats or 3, 2
    else:
        m_grid, sweep_m, sigmas, n_items = settings["m_grid"], settings["sweep_m"], SIGMAS, None
        repeats, sweep_repeats = repeats or FEATURE_REPEATS, SWEEP_REPEATS
    runs = feature_performance(number, m_grid, repeats, sigma=sigma, random_state=seed, n_items=n_items,
                               progress=progress)
    performance = summarize(runs, ["experiment", "m", "method"], ["tau_b"])
    _table(performance, Path(results) / f"ranking_{name}a.csv")
    swept = None
    if sweep:
        sweep_runs = sigma_sweep(number, sweep_m, sigmas, sweep_repeats, random_state=seed, n_items=n_items,
                                 progress=progress)
        swept = summarize(sweep_runs, ["experiment", "m", "sigma"], ["tau_b"])
        _table(swept, Path(results) / f"ranking_{name}b.csv")
    figure = {"fig3_4": "3.4", "fig3_5": "3.5", "fig3_6": "3.6"}[name]
    plot_features(performance, swept, Path(figures) / f"ranking_{name}.png",
                  title=f"Figure {figure}: synthetic experiment {number} ({repeats} repetitions in (a), "
                        f"{sweep_repeats} in (b))")
    return performance, swept


def run_displacement(*, repeats=None, quick=False, seed=SEED, c=None, figures=FIGURES, results=RESULTS,
                     progress=True) -> DisplacementResult:
    settings = dict(QUICK_DISPLACEMENT if quick else DISPLACEMENT)
    if repeats:
        settings["runs"] = repeats
    if c is not None:
        settings["c"] = c
    result = displacement_experiment(settings["n"], settings["c"], settings["runs"], bin_size=settings["bin_size"],
                                     random_state=seed, progress=progress)
    _table(result.per_bin, Path(results) / "ranking_fig5_1c.csv")
    at = crossover(result.per_bin)
    title = (f"Figure 5.1(c): n = {settings['n']}, noiseless, each pair measured with probability "
             f"{settings['c']:g} log(n)/n\n({result.mean_comparisons:,.0f} comparisons per run, {settings['runs']} runs"
             + (f"; BRE better from position {at:.0f})" if at is not None else ")"))
    plot_displacement(result, Path(figures) / "ranking_fig5_1c.png", title=title)
    return result


def run_bounds(*, repeats=None, quick=False, seed=SEED, figures=FIGURES, results=RESULTS,
               progress=True) -> pd.DataFrame:
    settings = dict(QUICK_BOUNDS if quick else BOUNDS)
    if repeats:
        settings["runs"] = repeats
    table = bound_experiment(settings["n"], settings["c_grid"], settings["runs"], settings["nu"], random_state=seed,
                             progress=progress)
    _table(table, Path(results) / "ranking_fig5_1ab.csv")
    plot_bounds(table, Path(figures) / "ranking_fig5_1ab.png",
                title=f"Figure 5.1(a, b): n = {settings['n']}, noiseless, {settings['runs']} runs per c")
    return table


def run_siamese_tuning(*, quick=False, results=RESULTS, progress=True) -> pd.DataFrame:
    """Score the Siamese grid on the tuning draws and write ``ranking_siamese_tuning.csv``."""
    if quick:
        table = siamese_tuning({1: [300]}, seeds=TUNING_SEEDS[:1], grid={"hidden": [(16,)], "alpha": [1e-4, 1e-1]},
                               n_items=200, progress=progress)
    else:
        table = siamese_tuning(progress=progress)
    _table(table, Path(results) / "ranking_siamese_tuning.csv")
    best = table.iloc[0]
    print(f"Siamese network: best hidden={best['hidden']} alpha={best['alpha']:g} "
          f"(mean tau-b {best['tau_b_mean']:.4f}); SIAMESE = {SIAMESE}", flush=True)
    return table


def siamese_draws(seeds=DRAW_SEEDS, m: int = DRAW_M, repeats: int = DRAW_REPEATS, *, n_items=None,
                  progress=False) -> pd.DataFrame:
    """tau-b of the Siamese network and similarity regularization on experiment 2 at one m, per draw of the items."""
    sigma = FEATURES["fig3_5"]["sigma"]
    keep = ("Siamese network", f"similarity σ = 2^{np.log2(sigma):g}, Q̂ NOS")
    runs = pd.concat([feature_performance(2, [m], repeats, sigma=sigma, random_state=seed, n_items=n_items,
                                          methods=keep, progress=progress).assign(seed=seed) for seed in seeds])
    return summarize(runs, ["experiment", "m", "seed", "method"], ["tau_b"])


def run_siamese_draws(*, repeats=None, quick=False, results=RESULTS, progress=True) -> pd.DataFrame:
    """Write ``ranking_siamese_draws.csv``: the Siamese plateau of Figure 3.5 on the draws of ``DRAW_SEEDS``."""
    if quick:
        table = siamese_draws(DRAW_SEEDS[:2], 1000, repeats or 1, n_items=300, progress=progress)
    else:
        table = siamese_draws(repeats=repeats or DRAW_REPEATS, progress=progress)
        _table(table, Path(results) / "ranking_siamese_draws.csv")
    print(table.to_string(index=False), flush=True)
    return table


COMMANDS = ("fig3_1", "fig3_2", "fig3_4", "fig3_5", "fig3_6", "fig5_1ab", "fig5_1c")


def run(name: str, *, repeats=None, quick=False, seed=SEED, c=None, sweep=True, figures=FIGURES, results=RESULTS,
        progress=True):
    """Run one subcommand; returns what it computed."""
    if name in CONVERGENCE:
        return run_convergence(name, repeats=repeats, quick=quick, seed=seed, figures=figures, results=results,
                               progress=progress)
    if name in FEATURES:
        return run_features(name, repeats=repeats, quick=quick, seed=seed, figures=figures, results=results,
                            sweep=sweep, progress=progress)
    if name == "fig5_1ab":
        return run_bounds(repeats=repeats, quick=quick, seed=seed, figures=figures, results=results,
                          progress=progress)
    if name == "fig5_1c":
        return run_displacement(repeats=repeats, quick=quick, seed=seed, c=c, figures=figures, results=results,
                                progress=progress)
    if name == "tune_siamese":
        return run_siamese_tuning(quick=quick, results=results, progress=progress)
    if name == "siamese_draws":
        return run_siamese_draws(repeats=repeats, quick=quick, results=results, progress=progress)
    raise ValueError(f"unknown experiment {name!r}; expected one of {', '.join(COMMANDS)}, 'tune_siamese' or 'all'.")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", choices=(*COMMANDS, "all", "tune_siamese", "siamese_draws"),
                   help="which figure to reproduce ('tune_siamese': choose the Siamese network's constants)")
    p.add_argument("--repeats", type=int, default=None,
                   help="repetitions (default: the seeds' 40 for fig3_1/3_2, 20 for fig3_4-3_6 (a), 300 per c for "
                        "fig5_1ab, 500 for fig5_1c)")
    p.add_argument("--quick", action="store_true", help="small grids and few repetitions, for a check in seconds")
    p.add_argument("--seed", type=int, default=SEED, help="seed of all random draws (default 0)")
    p.add_argument("--c", type=float, default=None,
                   help=f"fig5_1c: each pair is measured with probability c log(n)/n (default {DISPLACEMENT['c']:g})")
    p.add_argument("--no-sweep", action="store_true", help="fig3_4-3_6: skip the (b) panels (tau-b against sigma)")
    p.add_argument("--figures-dir", type=Path, default=FIGURES, help="where the PNG files go (default docs/figures)")
    p.add_argument("--results-dir", type=Path, default=RESULTS,
                   help="where the CSV files go (default experiments/results)")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    names = COMMANDS if args.experiment == "all" else (args.experiment,)
    for name in names:
        started = time.perf_counter()
        run(name, repeats=args.repeats, quick=args.quick, seed=args.seed, c=args.c, sweep=not args.no_sweep,
            figures=args.figures_dir, results=args.results_dir)
        print(f"{name}: {time.perf_counter() - started:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
