"""Feature multi-selection experiments of seed 002, §4: test error against the budget, and k against m.

Run with paucity's development Python from the repository root::

    python experiments/judgments.py            # the full runs (50 splits each)
    python experiments/judgments.py --quick    # a smoke run, nothing written to docs/
    python experiments/judgments.py --from-results  # tables and figures again from the results file

The seed's protocol (§4), for every data set, budget B and algorithm:

1. draw a random train/test split of the objects;
2. judge every training object k = 2 times per attribute and choose the
   repeat vector r with ``MultiSelectRegressor(budget=B, algorithm=...)``;
3. add judgments to the training objects until each has r[a] of attribute a,
   and fit least squares on the means (``refit``);
4. judge every test object r[a] times and record the squared error of
   ``predict``.

Judgments are drawn once per split, enough for the largest budget, in arrival
order: the first 2 of each (object, attribute) are the training judgments,
the next ones those "added" in step 3, so every algorithm sees the same
judgments. Costs are 1 per judgment. Averaged over 50 splits.

Data sets:

- ``simulated``: ``paucity.datasets.simulate_crowd`` with 12 attributes,
  latent means equicorrelated (ρ = 0.3), every other attribute binary,
  internal variances from 0.2 to 3.0, the default label coefficients (the
  last 3 attributes useless) and label noise 0.5; 1,000 objects, 300 for
  training and 700 for testing in each split.
- ``simulated, small sample``: the same crowd with 40 training objects (the
  seed's remark that Scoring, which estimates fewer quantities, can win on
  small samples).
- ``digits``: the seed's simulated protocol (it collapses 8 adjacent
  histogram bins of the UCI CT-slice data into one feature) on scikit-learn's
  bundled ``load_digits`` (1,797 images of 8 × 8 pixels), regressing the digit
  value: each row of 8 adjacent pixels is one feature, so 8 features, and a
  judgment of it is one of its 8 pixels drawn uniformly
  (``paucity.datasets.grouped_feature_crowd``), the seed's group size; 300
  training images, the other 1,497 for testing. The CT-slice data is not
  bundled with the project, hence the stand-in.
- ``digits, pairs (variation)``: the same with groups of 2 adjacent pixels of
  a row (32 features); more signal survives the grouping (R² of least
  squares on the exact group means, scikit-learn's unshuffled 5-fold
  cross-validation: 0.43 for pairs, 0.18 for rows, and 0.51 and 0.21 for single
  pixels and groups of 4; ``signal_left``, written to
  ``experiments/results/judgments_signal.csv``).
- ``k against m`` (the seed's Figure 8) on digits in groups of 8: a fixed
  total of training judgments M = m·k per attribute, with k ∈ {2, 3, 4, 6, 8}
  judgments per feature and m = M/k training images, at budget 16 for Full
  and Scoring. The seed's caption plots the training loss; both the training
  loss (squared error of the refitted predictor on its own training images)
  and the test error are recorded.

Every row records the chosen repeat vector (``repeats``), so a tie (Full and
a baseline choosing the same r, hence the same predictions) is counted as a
tie and not as a win; the win rates over splits carry a 95% Wilson interval.

Results: ``experiments/results/judgments_experiments.csv`` (one row per split,
budget and algorithm), ``experiments/results/judgments_signal.csv`` (the R² above), figures ``docs/figures/judgments_budget.png`` and
``docs/figures/judgments_k_vs_m.png``, and the tables between
``<!-- judgments:begin -->`` and ``<!-- judgments:end -->`` of
``docs/judgments.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # the shared report helpers
from markers import machine, write_section  # noqa: E402

from paucity.datasets import grouped_feature_crowd, simulate_crowd  # noqa: E402
from paucity.judgments import Judgments, MultiSelectRegressor  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
FIGURES = ROOT / "docs" / "figures"
DOC = ROOT / "docs" / "judgments.md"
SECTION = ("<!-- judgments:begin -->", "<!-- judgments:end -->")
ALGORITHMS = ("full", "scoring", "averages", "copies")
LABELS = {"full": "Full", "scoring": "Scoring", "averages": "Averages", "copies": "Copies"}
K = 2
GROUP_SIZE = 8  # adjacent pixels per digits feature: the seed's group size
PAIRS = 2  # the variation with more signal left
RUN_SECONDS = 2803  # the run that wrote experiments/results/judgments_experiments.csv (a shared, busy machine)

FULL = {
    "splits": 50,
    "budgets": [1, 2, 3, 4, 6, 8, 10, 14, 18, 24, 32, 40],
    "k_values": [2, 3, 4, 6, 8],
    "totals": [240, 480, 960],
    "k_budget": 16,
}
QUICK = {"splits": 3, "budgets": [2, 6, 12], "k_values": [2, 4], "totals": [240], "k_budget": 8}


def simulated_crowd():
    return simulate_crowd(1000, 12, judgments=1, correlation=0.3, binary=[True, False] * 6,
                          noise=0.5, random_state=2013)


def digits_crowd(group_size: int = GROUP_SIZE):
    from sklearn.datasets import load_digits

    digits = load_digits()
    return grouped_feature_crowd(digits.data, digits.target.astype(np.float64), group_size=group_size)


def signal_left(group_sizes=(1, PAIRS, 4, GROUP_SIZE)) -> pd.DataFrame:
    """How much of the digit value each grouping leaves to predict from exact (infinitely judged) group means.

    R² of least squares (with intercept) on the crowd's ``object_means``,
    averaged over scikit-learn's unshuffled 5-fold cross-validation; a row per
    group size. It measures the data, not an algorithm: no judgment is drawn.
    """
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import cross_val_score

    rows = []
    for size in group_sizes:
        crowd = digits_crowd(size)
        scores = cross_val_score(LinearRegression(), crowd.object_means.to_numpy(), crowd.labels.to_numpy(), cv=5,
                                 scoring="r2")
        rows.append({"group_size": size, "features": crowd.object_means.shape[1], "r2_mean": scores.mean(),
                     "r2_std": scores.std(), "folds": len(scores)})
    return pd.DataFrame(rows)


def repeats_key(model) -> str:
    """The repeat vector as text (one count per attribute, in the model's attribute order)."""
    return " ".join(str(int(r)) for r in model.repeats_.to_numpy())


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default); (nan, nan) when n = 0."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (float(centre - half), float(centre + half))


def head_to_head(part: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Per budget: splits where Full wins, ties (same repeat vector) and loses against ``baseline``.

    ``win_rate`` is wins / (wins + losses), the splits where the two chose different r, with its 95%
    Wilson interval (``low``, ``high``).
    """
    rows = []
    for budget, group in part.groupby("budget"):
        wide = group.pivot_table(index="split", columns="algorithm", values="test_mse")
        keys = group.pivot(index="split", columns="algorithm", values="repeats")
        tie = keys["full"] == keys[baseline]
        win = ~tie & (wide["full"] < wide[baseline])
        loss = ~tie & ~win
        decided = int(win.sum() + loss.sum())
        low, high = wilson(int(win.sum()), decided)
        rows.append({"budget": budget, "baseline": baseline, "wins": int(win.sum()), "ties": int(tie.sum()),
                     "losses": int(loss.sum()),
                     "win_rate": win.sum() / decided if decided else float("nan"), "low": low, "high": high})
    return pd.DataFrame(rows).set_index("budget")


def split_judgments(crowd, train, test, most: int, seed: int):
    """Judgments for a split: ``most`` per (object, attribute), drawn once; the first K train the selection."""
    rng = np.random.default_rng(seed)
    pool_train = crowd.draw(list(train), most, random_state=rng)
    pool_test = crowd.draw(list(test), most, random_state=rng)
    return pool_train, pool_test


def first(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    return frame.groupby(["object", "attribute"], sort=False).head(k)


def run_budgets(name: str, crowd, n_train: int, settings: dict, seed: int) -> list[dict]:
    rows = []
    objects = crowd.objects
    labels = crowd.labels
    most = max(max(settings["budgets"]), K)
    for split in range(settings["splits"]):
        rng = np.random.default_rng([seed, split])
        order = rng.permutation(len(objects))
        train, test = objects[order[:n_train]], objects[order[n_train:]]
        pool_train, pool_test = split_judgments(crowd, train, test, most, seed=rng.integers(2**32))
        training = Judgments(first(pool_train, K))
        collected, judged = Judgments(pool_train), Judgments(pool_test)
        y_train, y_test = labels[train], labels[test]
        for budget in settings["budgets"]:
            for algorithm in ALGORITHMS:
                model = MultiSelectRegressor(budget=budget, algorithm=algorithm).fit(training, y_train)
                projected = model.projected_loss()
                model.refit(collected, y_train)
                error = float(np.mean((model.predict(judged)[y_test.index].to_numpy() - y_test.to_numpy()) ** 2))
                rows.append({
                    "experiment": name, "split": split, "budget": budget, "algorithm": algorithm,
                    "n_train": n_train, "k": K, "test_mse": error, "projected_loss": projected,
                    "judgments_used": int(model.repeats_.sum()), "attributes_used": int((model.repeats_ > 0).sum()),
                    "unspent": model.unspent_, "repeats": repeats_key(model),
                })
    return rows


def run_k_against_m(crowd, settings: dict, seed: int) -> list[dict]:
    rows = []
    objects, labels = crowd.objects, crowd.labels
    budget = settings["k_budget"]
    most = max(max(settings["k_values"]), budget)
    for split in range(settings["splits"]):
        rng = np.random.default_rng([seed, split])
        order = rng.permutation(len(objects))
        n_train_most = max(settings["totals"]) // min(settings["k_values"])
        pool, test = objects[order[:n_train_most]], objects[order[n_train_most:]]
        pool_train, pool_test = split_judgments(crowd, pool, test, most, seed=rng.integers(2**32))
        judged = Judgments(pool_test)
        y_test = labels[test]
        for total in settings["totals"]:
            for k in settings["k_values"]:
                m = total // k
                train = pool[:m]
                frame = pool_train[pool_train["object"].isin(train)]
                training, collected = Judgments(first(frame, k)), Judgments(frame)
                for algorithm in ("full", "scoring"):
                    model = MultiSelectRegressor(budget=budget, algorithm=algorithm).fit(training, labels[train])
                    model.refit(collected, labels[train])
                    error = float(np.mean((model.predict(judged)[y_test.index].to_numpy() - y_test.to_numpy()) ** 2))
                    y_train = labels[train]
                    fitted = model.predict(collected)[y_train.index].to_numpy()
                    training_loss = float(np.mean((fitted - y_train.to_numpy()) ** 2))
                    rows.append({
                        "experiment": f"k against m, M = {total}", "split": split, "budget": budget,
                        "algorithm": algorithm, "n_train": m, "k": k, "test_mse": error,
                        "projected_loss": np.nan, "judgments_used": int(model.repeats_.sum()),
                        "attributes_used": int((model.repeats_ > 0).sum()), "unspent": model.unspent_,
                        "repeats": repeats_key(model), "training_loss": training_loss,
                    })
    return rows


# -- reporting -------------------------------------------------------------------------------------
def budget_table(frame: pd.DataFrame, experiment: str) -> str:
    part = frame[frame["experiment"] == experiment]
    mean = part.pivot_table(index="budget", columns="algorithm", values="test_mse", aggfunc="mean")
    sem = part.pivot_table(index="budget", columns="algorithm", values="test_mse", aggfunc="sem")
    against = {baseline: head_to_head(part, baseline) for baseline in ("averages", "copies")}
    lines = ["| budget | " + " | ".join(LABELS[a] for a in ALGORITHMS)
             + " | Full against Averages: wins/ties/losses, win rate [95% CI] | Full against Copies |",
             "|---:|" + "---:|" * len(ALGORITHMS) + "---:|---:|"]
    for budget in mean.index:
        cells = [f"{mean.loc[budget, a]:.3f} ± {sem.loc[budget, a]:.3f}" for a in ALGORITHMS]
        best = min(ALGORITHMS, key=lambda a: mean.loc[budget, a])
        cells[ALGORITHMS.index(best)] = f"**{cells[ALGORITHMS.index(best)]}**"
        for baseline in ("averages", "copies"):
            cells.append(_head_to_head_cell(against[baseline].loc[budget]))
        lines.append(f"| {budget} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _head_to_head_cell(row: pd.Series) -> str:
    text = f"{row['wins']}/{row['ties']}/{row['losses']}"
    if row["wins"] + row["losses"]:
        text += f", {row['win_rate']:.0%} [{row['low']:.0%}, {row['high']:.0%}]"
    return text


def ordering_line(frame: pd.DataFrame, experiment: str) -> str:
    part = frame[frame["experiment"] == experiment]
    mean = part.pivot_table(index="budget", columns="algorithm", values="test_mse", aggfunc="mean")
    n = part["split"].nunique()
    against = {baseline: head_to_head(part, baseline) for baseline in ("averages", "copies")}
    clear, mixed, tied = [], [], {}
    for budget in mean.index:
        rows = {baseline: table.loc[budget] for baseline, table in against.items()}
        for baseline, row in rows.items():
            if row["ties"] == n:
                tied.setdefault(LABELS[baseline], []).append(budget)
        decided = [row for row in rows.values() if row["ties"] < n]
        if decided and all(row["low"] > 0.5 for row in decided):
            clear.append(budget)
        elif decided:
            mixed.append(budget)
    scoring_best = mean["scoring"] < mean["full"]
    text = (f"Full's split-wise win rate (tied splits left out) has the lower end of its 95% Wilson interval "
            f"above 50% against every baseline it does not tie at B = {_budgets(clear)}")
    if mixed:
        text += f"; not against at least one baseline at B = {_budgets(mixed)}"
    for baseline, budgets in tied.items():
        text += f"; Full and {baseline} chose the same r in every split at B = {_budgets(budgets)}"
    text += f". Scoring's mean is below Full's at {int(scoring_best.sum())} of {len(mean)} budgets"
    if scoring_best.any():
        text += f" (B = {_budgets(mean.index[scoring_best])})"
    return text + "."


def _budgets(values) -> str:
    values = list(values)
    return ", ".join(str(v) for v in values) if values else "none"


def k_table(frame: pd.DataFrame) -> str:
    part = frame[frame["experiment"].str.startswith("k against m")]
    stats = {value: (part.pivot_table(index=["experiment", "k"], columns="algorithm", values=value, aggfunc="mean"),
                     part.pivot_table(index=["experiment", "k"], columns="algorithm", values=value, aggfunc="sem"))
             for value in ("training_loss", "test_mse")}
    m = part.groupby(["experiment", "k"])["n_train"].first()
    lines = ["| M = m·k | k | m | Full, training loss | Scoring, training loss | Full, test error | Scoring, test error |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for (experiment, k) in stats["test_mse"][0].index:
        total = experiment.split("= ")[1]
        cells = [f"{stats[value][0].loc[(experiment, k), a]:.3f} ± {stats[value][1].loc[(experiment, k), a]:.3f}"
                 for value in ("training_loss", "test_mse") for a in ("full", "scoring")]
        lines.append(f"| {total} | {k} | {m.loc[(experiment, k)]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(frame: pd.DataFrame, experiments: list[str], path_budget: Path, path_k: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from paucity.io import write_figure

    columns = 2 if len(experiments) > 2 else len(experiments)
    rows = -(-len(experiments) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5 * columns, 4 * rows), squeeze=False)
    for ax in axes.ravel()[len(experiments):]:
        ax.remove()
    for ax, experiment in zip(axes.ravel(), experiments):
        part = frame[frame["experiment"] == experiment]
        mean = part.pivot_table(index="budget", columns="algorithm", values="test_mse", aggfunc="mean")
        sem = part.pivot_table(index="budget", columns="algorithm", values="test_mse", aggfunc="sem")
        for algorithm in ALGORITHMS:
            ax.errorbar(mean.index, mean[algorithm], yerr=sem[algorithm], marker="o", ms=3, capsize=2,
                        label=LABELS[algorithm])
        ax.set_title(experiment)
        ax.set_xlabel("budget B (judgments per test object)")
        ax.set_ylabel("test squared error")
        ax.legend()
    fig.tight_layout()
    write_figure(fig, path_budget, dpi=120)
    plt.close(fig)

    part = frame[frame["experiment"].str.startswith("k against m")]
    if not len(part):
        return
    fig, axes = plt.subplots(2, 2, figsize=(10, 8))
    for row, (value, label) in enumerate((("training_loss", "training loss (squared error on the training images)"),
                                          ("test_mse", "test squared error"))):
        for ax, algorithm in zip(axes[row], ("full", "scoring")):
            for experiment, group in part[part["algorithm"] == algorithm].groupby("experiment", sort=False):
                curve = group.groupby("k")[value].agg(["mean", "sem"])
                ax.errorbar(curve.index, curve["mean"], yerr=curve["sem"], marker="o", capsize=2,
                            label=experiment.split(", ")[1])
            ax.set_title(f"{LABELS[algorithm]}: digits in rows of {GROUP_SIZE}, budget {part['budget'].iloc[0]}")
            ax.set_xlabel("k, training judgments per feature (m = M/k objects)")
            ax.set_ylabel(label)
            ax.legend()
    fig.tight_layout()
    write_figure(fig, path_k, dpi=120)
    plt.close(fig)


def run_all(settings: dict) -> list[dict]:
    simulated, digits, pairs = simulated_crowd(), digits_crowd(), digits_crowd(PAIRS)
    rows = []
    for name, crowd, n_train, seed in (
        ("simulated", simulated, 300, 1),
        ("simulated, small sample", simulated, 40, 2),
        ("digits", digits, 300, 3),
        ("digits, pairs (variation)", pairs, 300, 5),
    ):
        t = time.perf_counter()
        rows += run_budgets(name, crowd, n_train, settings, seed)
        print(f"{name}: {time.perf_counter() - t:.0f} s", flush=True)
    t = time.perf_counter()
    rows += run_k_against_m(digits, settings, seed=4)
    print(f"k against m: {time.perf_counter() - t:.0f} s", flush=True)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run; writes nothing under docs/")
    parser.add_argument("--splits", type=int, default=None, help="random splits per point (default 50)")
    parser.add_argument("--from-results", action="store_true",
                        help="rewrite the tables and figures from the results file, without running anything")
    args = parser.parse_args(argv)
    settings = dict(QUICK if args.quick else FULL)
    if args.splits is not None:
        settings["splits"] = args.splits
    started = time.perf_counter()
    if args.from_results:
        frame = pd.read_csv(RESULTS / "judgments_experiments.csv", dtype={"repeats": str})
        settings["splits"] = int(frame["split"].nunique())
    else:
        frame = pd.DataFrame(run_all(settings))
    experiments = ["simulated", "simulated, small sample", "digits", "digits, pairs (variation)"]
    for experiment in experiments:
        print(f"\n{experiment}\n{budget_table(frame, experiment)}\n{ordering_line(frame, experiment)}")
    print(f"\n{k_table(frame)}")
    if args.quick:
        return
    from paucity.io import write_csv

    RESULTS.mkdir(parents=True, exist_ok=True)
    if not args.from_results:
        write_csv(frame, RESULTS / "judgments_experiments.csv", index=False)
    write_csv(signal_left(), RESULTS / "judgments_signal.csv", index=False)
    plot(frame, experiments, FIGURES / "judgments_budget.png", FIGURES / "judgments_k_vs_m.png")
    about = machine()
    body = [f"Written by `experiments/judgments.py` ({settings['splits']} random splits per point; "
            f"mean test squared error ± its standard error over the splits; the best of each row in bold; "
            f"wins/ties/losses of Full against each baseline over the splits, a tie being the same repeat "
            f"vector, and Full's win rate among the other splits with its 95% Wilson interval). "
            f"Machine: {about.get('cpu', 'unknown CPU')}, {about.get('cores', '?')} cores; "
            + (f"{RUN_SECONDS} s in all." if args.from_results else f"{time.perf_counter() - started:.0f} s in all."),
            ""]
    for experiment in experiments:
        body += [f"#### {experiment}", "", budget_table(frame, experiment), "", ordering_line(frame, experiment), ""]
    body += [f"#### k against m (digits in rows of {GROUP_SIZE}, budget {settings['k_budget']})", "", k_table(frame)]
    write_section(SECTION, "\n".join(body), DOC)
    written = "the figures" if args.from_results else f"{RESULTS / 'judgments_experiments.csv'}, the figures"
    print(f"\nwrote {written} and the section of {DOC.name}")


if __name__ == "__main__":
    main()
