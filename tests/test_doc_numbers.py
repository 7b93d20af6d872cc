"""Every number a guide quotes from experiments/results/ matches the stored file.

Each quote below names the page, the text as it stands on the page (the test fails if the text is no longer
there, so a reworded sentence must be declared again), and for each number in that text the value it must
round to, read from a CSV in experiments/results/. Tables are checked cell by cell against the CSV they are
written from. A rerun that changes a stored number fails here until the page follows.

Run times are left out: they depend on the machine and on what else runs on it, and the pages give them as
indicative only. Numbers that come from elsewhere (the seeds' own numbers, benchmarks/, tests) are not
quotes from experiments/results/ and are not listed.

Nothing here reruns an experiment: the test reads the stored files only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = ROOT / "experiments" / "results"
NUMBER = re.compile(r"[−-]?\d+(?:[.,]\d+)*")


@cache
def csv(name: str) -> pd.DataFrame:
    return pd.read_csv(RESULTS / name)


@cache
def page(name: str) -> str:
    # the pages wrap sentences over lines and bold some numbers: quotes are matched with whitespace runs
    # collapsed and without the bold marks
    return re.sub(r"\s+", " ", (DOCS / name).read_text().replace("**", ""))


def rows(name: str, **where) -> pd.DataFrame:
    frame = csv(name)
    mask = np.ones(len(frame), dtype=bool)
    for column, wanted in where.items():
        column = column.replace("__", " ")
        values = frame[column]
        mask &= np.isclose(values, wanted) if isinstance(wanted, float) else (values == wanted).to_numpy()
    part = frame[mask]
    assert len(part), f"{name}: no row where {where}"
    return part


def one(name: str, column: str, **where) -> float:
    part = rows(name, **where)
    assert len(part) == 1, f"{name}: {len(part)} rows where {where}, expected one"
    return float(part[column].iloc[0])


def parse(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def agrees(quoted: str, value: float) -> bool:
    """The quoted number is the value rounded to the quoted decimals (either way at a tie)."""
    return abs(parse(quoted) - value) <= 0.5 * 10.0 ** -decimals(quoted) + 1e-9


@dataclass(frozen=True)
class Quote:
    page: str
    text: str  # as on the page (whitespace runs count as one space)
    numbers: tuple  # (the number as written in text, its value from the stored file)

    @property
    def id(self) -> str:
        return f"{self.page}: {self.text[:60]}"


def quote(page_name: str, text: str, *numbers) -> Quote:
    return Quote(page_name, text, tuple(numbers))


# -- readers of the stored files -------------------------------------------------------------------
def fig2_5(panel: str, method: str, x: float) -> float:
    return one("clustering_fig2_5.csv", "error_mean", panel=panel, method=method, x=x)


def fig2_2_late(method: str) -> pd.Series:
    """Figure 2.2's mean errors of a method from 10% of the pairs on, at separations 4 to 6."""
    frame = rows("clustering_fig2_2.csv", method=method)
    return frame[(frame["fraction"] >= 0.1) & (frame["data"] != "separation 3")]["error_mean"]


def tau(figure: str, m: int, method: str) -> float:
    return one(f"ranking_{figure}a.csv", "tau_b_mean", m=m, method=method)


def draws(seed: int, method: str) -> float:
    return one("ranking_siamese_draws.csv", "tau_b_mean", seed=seed, method=method)


def bounds(method: str, nu: float, c: float) -> float:
    return one("ranking_fig5_1ab.csv", "probability", method=method, nu=nu, c=c)


def reaches(method: str, nu: float, level: float = 0.9) -> float:
    """The smallest c of the grid from which the bound holds in at least ``level`` of the runs."""
    part = rows("ranking_fig5_1ab.csv", method=method, nu=nu).sort_values("c")
    below = part[part["probability"] < level]
    return float(part[part["c"] > below["c"].max()]["c"].min()) if len(below) else float(part["c"].min())


def bound_leaves_zero(method: str, nu: float) -> float:
    """The c at which the theorem's lower bound on the probability first exceeds 0 (eqs. 5.83 and 5.22, n = 1000)."""
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from experiments.ranking import bre_probability_bound, ure_probability_bound

    bound = bre_probability_bound if method == "BRE" else ure_probability_bound
    grid = np.arange(1.0, 145.0, 0.1)
    return float(grid[np.argmax([bound(1000, c, nu) > 0 for c in grid])])


def power(method: str, ds, reduce=max, level: float = 0.05) -> float:
    """The share of repetitions whose p-value is at most ``level``, reduced over the dimensions ``ds``."""
    part = rows("differences_power_rules.csv", method=method)
    return float(reduce((part[part["d"] == d]["pvalue"] <= level).mean() for d in ds))


def crossing_bin() -> int:
    """The first bin of Figure 5.1(c) from which URE's median displacement is no longer below BRE's."""
    table = csv("ranking_fig5_1c.csv").pivot(index="position_from", columns="method", values="median")
    return int(table.index[table["URE"] >= table["BRE"]].min())


@cache
def _judgments_module():
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from experiments import judgments

    return judgments


@cache
def _judgments_frame() -> pd.DataFrame:
    return pd.read_csv(RESULTS / "judgments_experiments.csv", dtype={"repeats": str})


@cache
def _head_to_head(experiment: str, baseline: str) -> pd.DataFrame:
    frame = _judgments_frame()
    return _judgments_module().head_to_head(frame[frame["experiment"] == experiment], baseline)


def versus(experiment: str, baseline: str, budget: int, column: str) -> float:
    """Full against a baseline over the splits (wins, ties, losses, win_rate, low, high), as the script counts."""
    return float(_head_to_head(experiment, baseline).loc[budget, column])


def judgment_mean(experiment: str, algorithm: str, budget: int) -> float:
    frame = _judgments_frame()
    part = frame[(frame["experiment"] == experiment) & (frame["algorithm"] == algorithm) & (frame["budget"] == budget)]
    return float(part["test_mse"].mean())


def only(values: list) -> float:
    """The one value of a list, NaN (which matches no quote) if there are more or none."""
    return float(values[0]) if len(values) == 1 else float("nan")


def digits_budgets(condition) -> list:
    """The budgets of the digits experiment where the condition holds."""
    budgets = sorted(_judgments_frame().query("experiment == 'digits'")["budget"].unique())
    return [b for b in budgets if condition(b)]


def gp(method: str, column: str = "over_gpc_sparse", file: str = "gp_fig4_3.csv") -> float:
    return one(file, column, residue="mean", method=method)


def gp_growing(quantile: float, method: str) -> float:
    return one("gp_fig4_4.csv", "over_gpc", quantile=quantile, method=method)


def cost(panel: str, method: str, column: str = "cost_usd") -> float:
    return one("clustering_table2_2.csv", column, panel=panel, method=method)


def crowd(method: str, column: str) -> float:
    return one("crowd_table3_1.csv", column, method=method)


def markers_error(run: str, method: str, mode: str, n: int, classifier: str = "random_forest") -> float:
    return rows(f"markers_{run}.csv", method=method, mode=mode, n_requested=n, classifier=classifier)["error_rate"].mean()


def overlap(run: str, a: str, b: str) -> float:
    return one(f"markers_{run}_overlap.csv", b, method=a)


def interactions(run: str, column: str) -> float:
    return float(csv(f"markers_{run}_interactions.csv")[column].iloc[0])


MARKER_LABELS = {  # the benchmark's row labels (paucity.markers.benchmark's method_label) by (method, mode)
    ("mim", "multiclass"): "MIM", ("jmi", "multiclass"): "JMI", ("cife", "multiclass"): "CIFE",
    ("mim", "binary"): "MIM (B)", ("jmi", "binary"): "JMI (B)", ("cife", "binary"): "CIFE (B)",
    ("mrmr", "multiclass"): "MRMR", ("t-test_overestim_var", "binary"): "t-test (ov)",
    ("wilcoxon", "binary"): "Wilcoxon", ("logreg", "binary"): "LogReg", ("random_forest", "multiclass"): "RForest",
    ("random", "multiclass"): "Random", ("t-test", "binary"): "t-test", ("cosg", "binary"): "COSG",
}


FINDERS = ("MIM", "JMI", "MRMR", "MIM (B)", "JMI (B)", "t-test (ov)", "Wilcoxon", "LogReg", "RForest")


def true_markers(method: str, mode: str, column: str = "true_markers", file: str = "synthetic") -> float:
    return one(f"markers_{file}_true_markers.csv", column, method=method, mode=mode)


def anchors_overlap(method: str, but=()) -> list:
    table = csv("markers_pbmc-anchors_overlap.csv").set_index("method")
    return [float(table.loc[method, other]) for other in table.columns if other != method and other not in but]


def finders_overlap() -> list:
    return [overlap("synthetic", a, b) for a in FINDERS for b in FINDERS if a != b]


NOS3_4 = "similarity σ = 2^-5, Q̂ NOS"
NOS3_5 = "similarity σ = 2^-4, Q̂ NOS"
NOS3_6 = NOS3_4
BTL = "BTL-MLE, alpha = 1"
LAMBDA = "λ-regularized, Q̂ NOS"

QUOTES = [
    # -- seed 000, chapter 2 (markers_*.csv of experiments/markers.py) ---------------------------------
    quote("fidelity.md", "it is not better than the best methods (0.194 against 0.193 at 50 genes)",
          ("0.194", lambda: markers_error("pbmc", "random_forest", "multiclass", 50)),
          ("0.193", lambda: markers_error("pbmc", "mim", "binary", 50))),
    quote("fidelity.md", "same here (3 of 50 genes shared with MIM on PBMC)",
          ("3", lambda: overlap("pbmc", "CIFE", "MIM"))),
    quote("fidelity.md", "(JMI–MIM: 44 of 50 on PBMC, 98 of 100 on the synthetic counts)",
          ("44", lambda: overlap("pbmc", "JMI", "MIM")), ("98", lambda: overlap("synthetic", "JMI", "MIM"))),
    quote("fidelity.md", "Here 38.5 % negative on PBMC and 89.6 % on synthetic counts",
          ("38.5", lambda: 100 * interactions("pbmc", "negative_fraction")),
          ("89.6", lambda: 100 * interactions("synthetic", "negative_fraction"))),
    quote("fidelity.md", "true on PBMC (0.304 against 0.272 on average)",
          ("0.304", lambda: rows("markers_pbmc.csv", classifier="nearest_centroids")["error_rate"].mean()),
          ("0.272", lambda: rows("markers_pbmc.csv", classifier="random_forest")["error_rate"].mean())),
    quote("fidelity.md", "asserts 38.5 %", ("38.5", lambda: 100 * interactions("pbmc", "negative_fraction"))),
    quote("markers-benchmark.md", "I(x_i; x_j; y) over the 4,950 pairs of the 100 genes of highest I(x; y): 38.5 % "
          "negative; median 0.020 bits, from −0.151 to 0.855.",
          ("4,950", lambda: interactions("pbmc", "pairs")), ("38.5", lambda: 100 * interactions("pbmc", "negative_fraction")),
          ("0.020", lambda: interactions("pbmc", "median")), ("−0.151", lambda: interactions("pbmc", "minimum")),
          ("0.855", lambda: interactions("pbmc", "maximum"))),
    quote("markers-benchmark.md", "I(x_i; x_j; y) over the 4,950 pairs of the top 100 genes: 89.6 % negative; median "
          "−0.006 bits, from −0.026 to 0.18.",
          ("4,950", lambda: interactions("synthetic", "pairs")),
          ("89.6", lambda: 100 * interactions("synthetic", "negative_fraction")),
          ("−0.006", lambda: interactions("synthetic", "median")), ("−0.026", lambda: interactions("synthetic", "minimum")),
          ("0.18", lambda: interactions("synthetic", "maximum"))),
    quote("markers-benchmark.md", "(e.g. n = 100: 0.008 for every method but CIFE 0.091, CIFE (B) 0.057 and random 0.583)",
          *[("0.008", (lambda m=m, mode=mode: markers_error("synthetic", m, mode, 100, "nearest_centroids")))
            for (m, mode) in MARKER_LABELS if m not in ("cife", "random", "t-test", "cosg")],
          ("0.091", lambda: markers_error("synthetic", "cife", "multiclass", 100, "nearest_centroids")),
          ("0.057", lambda: markers_error("synthetic", "cife", "binary", 100, "nearest_centroids")),
          ("0.583", lambda: markers_error("synthetic", "random", "multiclass", 100, "nearest_centroids"))),
    quote("markers-benchmark.md", "24 for CIFE and 30 of 66 for binary CIFE — random genes hit 28",
          ("24", lambda: true_markers("cife", "multiclass")), ("30", lambda: true_markers("cife", "binary")),
          ("66", lambda: true_markers("cife", "binary", "selected")), ("28", lambda: true_markers("random", "multiclass"))),
    quote("markers-benchmark.md", "the marker-finding methods share 85–100 genes, CIFE 22–23 with each of them and 56 "
          "with binary CIFE",
          ("85", lambda: min(finders_overlap())), ("100", lambda: max(finders_overlap())),
          ("22", lambda: min(overlap("synthetic", "CIFE", b) for b in FINDERS)),
          ("23", lambda: max(overlap("synthetic", "CIFE", b) for b in FINDERS)),
          ("56", lambda: overlap("synthetic", "CIFE", "CIFE (B)"))),
    quote("markers-benchmark.md", "3 of 50 shared with MIM on PBMC, 22 of 100 on the synthetic data; JMI–MIM 44 of 50 "
          "and 98 of 100",
          ("3", lambda: overlap("pbmc", "CIFE", "MIM")), ("22", lambda: overlap("synthetic", "CIFE", "MIM")),
          ("44", lambda: overlap("pbmc", "JMI", "MIM")), ("98", lambda: overlap("synthetic", "JMI", "MIM"))),
    quote("markers-benchmark.md", "Not better than the best methods on PBMC (0.194 at 50 genes against 0.193 for binary "
          "MIM/JMI)",
          ("0.194", lambda: markers_error("pbmc", "random_forest", "multiclass", 50)),
          ("0.193", lambda: markers_error("pbmc", "mim", "binary", 50)),
          ("0.193", lambda: markers_error("pbmc", "jmi", "binary", 50))),
    quote("markers-benchmark.md", "True on PBMC (0.304 against 0.272 on average)",
          ("0.304", lambda: rows("markers_pbmc.csv", classifier="nearest_centroids")["error_rate"].mean()),
          ("0.272", lambda: rows("markers_pbmc.csv", classifier="random_forest")["error_rate"].mean())),
    quote("markers-benchmark.md", "38.5 % negative on PBMC, 89.6 % on synthetic data",
          ("38.5", lambda: 100 * interactions("pbmc", "negative_fraction")),
          ("89.6", lambda: 100 * interactions("synthetic", "negative_fraction"))),
    quote("markers-benchmark.md", "PBMC, random forest, 17–19 genes: binary JMI and CIFE 0.210, logistic regression 0.213, "
          "Wilcoxon 0.223, binary MIM 0.226, `t-test_overestim_var` 0.230, `t-test` 0.233",
          *[(q, (lambda m=m, mode=mode: markers_error("pbmc-anchors", m, mode, 20))) for q, m, mode in (
              ("0.210", "jmi", "binary"), ("0.210", "cife", "binary"), ("0.213", "logreg", "binary"),
              ("0.223", "wilcoxon", "binary"), ("0.226", "mim", "binary"), ("0.230", "t-test_overestim_var", "binary"),
              ("0.233", "t-test", "binary"))]),
    quote("markers-benchmark.md", "(PBMC, random forest, 10 genes: MIM 0.333, JMI 0.283, mRMR 0.249)",
          *[(q, (lambda m=m: markers_error("pbmc", m, "multiclass", 10))) for q, m in (
              ("0.333", "mim"), ("0.283", "jmi"), ("0.249", "mrmr"))]),
    quote("markers-benchmark.md", "With 10 genes (one per cell type) it errs on 0.374 of PBMC cells (random forest)",
          ("0.374", lambda: markers_error("pbmc-anchors", "cosg", "binary", 10))),
    quote("markers-benchmark.md", "random forest: multiclass JMI with 10 genes 0.283, binary JMI with 8.8 genes 0.256",
          ("0.283", lambda: markers_error("pbmc", "jmi", "multiclass", 10)),
          ("8.8", lambda: rows("markers_pbmc.csv", method="jmi", mode="binary", n_requested=10)["n_used"].mean()),
          ("0.256", lambda: markers_error("pbmc", "jmi", "binary", 10))),
    quote("markers-benchmark.md", "(PBMC, n = 5, random forest: the best multiclass method, 0.309) and then stops "
          "improving (0.276 at 50 genes",
          ("0.309", lambda: markers_error("pbmc", "cife", "multiclass", 5)),
          ("0.309", lambda: min(markers_error("pbmc", m, "multiclass", 5) for m in ("mim", "jmi", "cife", "mrmr", "random_forest"))),
          ("0.276", lambda: markers_error("pbmc", "cife", "multiclass", 50))),
    quote("markers-benchmark.md", "COSG shares 7–16 with every other method but multiclass CIFE (2) and random genes (5) "
          "(16 with binary MIM, 15 with the random forest's, 13 with scanpy's `t-test_overestim_var`); scanpy's `t-test` shares 31 with Wilcoxon and 21–25 with "
          "paucity's MIM, JMI and binary MIM",
          ("7", lambda: min(anchors_overlap("COSG", but=("CIFE", "Random")))),
          ("16", lambda: max(anchors_overlap("COSG", but=("CIFE", "Random")))),
          ("2", lambda: overlap("pbmc-anchors", "COSG", "CIFE")), ("5", lambda: overlap("pbmc-anchors", "COSG", "Random")),
          ("16", lambda: overlap("pbmc-anchors", "COSG", "MIM (B)")), ("15", lambda: overlap("pbmc-anchors", "COSG", "RForest")),
          ("13", lambda: overlap("pbmc-anchors", "COSG", "t-test (ov)")),
          ("31", lambda: overlap("pbmc-anchors", "t-test", "Wilcoxon")),
          ("21", lambda: min(overlap("pbmc-anchors", "t-test", b) for b in ("MIM", "JMI", "MIM (B)"))),
          ("25", lambda: max(overlap("pbmc-anchors", "t-test", b) for b in ("MIM", "JMI", "MIM (B)")))),
    quote("markers-benchmark.md", "MIM, JMI, mRMR, binary MIM and JMI, all four scanpy methods, COSG and the random forest "
          "100 of 100; CIFE 24 of 100; binary CIFE 30 of the 66 it kept; random genes 28 of 100",
          *[("100", (lambda m=m, mode=mode: true_markers(m, mode, file="synthetic-anchors"))) for m, mode in (
              ("mim", "multiclass"), ("jmi", "multiclass"), ("mrmr", "multiclass"), ("mim", "binary"), ("jmi", "binary"),
              ("t-test", "binary"), ("t-test_overestim_var", "binary"), ("wilcoxon", "binary"), ("logreg", "binary"),
              ("cosg", "binary"), ("random_forest", "multiclass"))],
          ("24", lambda: true_markers("cife", "multiclass", file="synthetic-anchors")),
          ("30", lambda: true_markers("cife", "binary", file="synthetic-anchors")),
          ("66", lambda: true_markers("cife", "binary", "selected", file="synthetic-anchors")),
          ("28", lambda: true_markers("random", "multiclass", file="synthetic-anchors"))),
    quote("markers-benchmark.md", "all 100 are true markers for MIM, JMI, mRMR, both binary MIM and JMI, the three scanpy "
          "tests and random-forest importance",
          *[("100", (lambda m=m, mode=mode: true_markers(m, mode))) for m, mode in (
              ("mim", "multiclass"), ("jmi", "multiclass"), ("mrmr", "multiclass"), ("mim", "binary"), ("jmi", "binary"),
              ("t-test_overestim_var", "binary"), ("wilcoxon", "binary"), ("logreg", "binary"),
              ("random_forest", "multiclass"))]),
    # -- seed 002 (judgments_*.csv of experiments/judgments.py) ---------------------------------------
    quote("fidelity.md", "(R² = 0.18 of least squares on the exact row means, 5-fold; `judgments_signal.csv`)",
          ("0.18", lambda: one("judgments_signal.csv", "r2_mean", group_size=8))),
    quote("judgments.md", "R² = 0.51 for single pixels, 0.43 for pairs, 0.21 for groups of 4, 0.18 for whole rows",
          *[(q, (lambda g=g: one("judgments_signal.csv", "r2_mean", group_size=g)))
            for q, g in (("0.51", 1), ("0.43", 2), ("0.21", 4), ("0.18", 8))]),
    quote("judgments.md", "(R² = 0.18 with the exact row means)",
          ("0.18", lambda: one("judgments_signal.csv", "r2_mean", group_size=8))),
    quote("judgments.md", "At B = 2 and 3 Full and Copies mostly tie (47 and 27 of 50 splits); of the rest Full wins "
          "3 of 3 at B = 2 and 9 of 23 at B = 3. At B = 6 Averages is level with Full: its mean is 0.001 lower and it "
          "wins 24 of the 44 splits that are not ties (Full's win rate 45% [32%, 60%]).",
          ("47", lambda: versus("simulated", "copies", 2, "ties")), ("27", lambda: versus("simulated", "copies", 3, "ties")),
          ("3", lambda: versus("simulated", "copies", 2, "wins")), ("3", lambda: 50 - versus("simulated", "copies", 2, "ties")),
          ("9", lambda: versus("simulated", "copies", 3, "wins")), ("23", lambda: 50 - versus("simulated", "copies", 3, "ties")),
          ("0.001", lambda: judgment_mean("simulated", "full", 6) - judgment_mean("simulated", "averages", 6)),
          ("24", lambda: versus("simulated", "averages", 6, "losses")),
          ("44", lambda: 50 - versus("simulated", "averages", 6, "ties")),
          ("45", lambda: 100 * versus("simulated", "averages", 6, "win_rate")),
          ("32", lambda: 100 * versus("simulated", "averages", 6, "low")),
          ("60", lambda: 100 * versus("simulated", "averages", 6, "high"))),
    quote("judgments.md", "undecided at B = 4, 6, 8 and 10 (51% [36%, 66%], 60% [45%, 72%], 59% [44%, 72%], 62% [48%, 74%])",
          *[(q, (lambda b=b, c=c: 100 * versus("simulated, small sample", "averages", b, c))) for q, b, c in (
              ("51", 4, "win_rate"), ("36", 4, "low"), ("66", 4, "high"), ("60", 6, "win_rate"), ("45", 6, "low"),
              ("72", 6, "high"), ("59", 8, "win_rate"), ("44", 8, "low"), ("72", 8, "high"), ("62", 10, "win_rate"),
              ("48", 10, "low"), ("74", 10, "high"))]),
    quote("judgments.md", "Full and Copies take the same attribute once in 49 of 50 splits",
          ("49", lambda: versus("simulated", "copies", 1, "ties"))),
    quote("fidelity.md", "here Full's mean is below both baselines' at every budget but B = 2, with a split-wise win "
          "rate clearly above one half at B = 3 and 6–40 and undecided at B = 1, 2, 4. Disagree: Scoring's mean is below "
          "Full's at 11 of 12 budgets",
          ("2", lambda: only(digits_budgets(lambda b: judgment_mean("digits", "full", b) >= min(
              judgment_mean("digits", "averages", b), judgment_mean("digits", "copies", b))))),
          ("11", lambda: float(len(digits_budgets(lambda b: judgment_mean("digits", "scoring", b)
                                                  < judgment_mean("digits", "full", b))))),
          ("12", lambda: float(len(digits_budgets(lambda b: True))))),
    # -- seed 000, chapter 3 (ranking_*.csv of experiments/ranking.py) ---------------------------------
    quote("fidelity.md", "(tau 0.60 against 0.10 at m = 100, on Q̂^NOS)",
          ("0.60", lambda: tau("fig3_4", 100, NOS3_4)), ("0.10", lambda: tau("fig3_4", 100, LAMBDA))),
    quote("ranking.md", "tau is 0.60 against 0.10 at m = 100 and 0.86 against 0.57 at m = 10⁴.",
          ("0.60", lambda: tau("fig3_4", 100, NOS3_4)), ("0.10", lambda: tau("fig3_4", 100, LAMBDA)),
          ("0.86", lambda: tau("fig3_4", 10000, NOS3_4)), ("0.57", lambda: tau("fig3_4", 10000, LAMBDA))),
    quote("fidelity.md", "similarity regularization beats it at m = 100 (0.60 against 0.50)",
          ("0.60", lambda: tau("fig3_4", 100, NOS3_4)), ("0.50", lambda: tau("fig3_4", 100, "Siamese network"))),
    quote("fidelity.md", "it matches RankSVM on random features from m = 2000 (0.97 at m = 10⁴)",
          ("0.97", lambda: tau("fig3_4", 10000, "Siamese network"))),
    quote("fidelity.md", "The Siamese network flattens at tau 0.30–0.31 from m = 10⁴",
          ("0.30", lambda: tau("fig3_5", 10000, "Siamese network")),
          ("0.31", lambda: tau("fig3_5", 100000, "Siamese network"))),
    quote("fidelity.md", "(0.60, 0.57, 0.57 at m = 10⁵)",
          ("0.60", lambda: tau("fig3_5", 100000, NOS3_5)), ("0.57", lambda: tau("fig3_5", 100000, BTL)),
          ("0.57", lambda: tau("fig3_5", 100000, LAMBDA))),
    quote("fidelity.md", "(at m = 3·10⁴, 0.07 to 0.52 on four further draws, where similarity regularization "
          "reaches 0.50 to 0.57 and is ahead on each;",
          ("0.07", lambda: min(draws(s, "Siamese network") for s in range(200, 204))),
          ("0.52", lambda: max(draws(s, "Siamese network") for s in range(200, 204))),
          ("0.50", lambda: min(draws(s, NOS3_5) for s in range(200, 204))),
          ("0.57", lambda: max(draws(s, NOS3_5) for s in range(200, 204)))),
    quote("fidelity.md", "(0.27 against 0.17–0.18 at m = 10⁴)",
          ("0.27", lambda: tau("fig3_6", 10000, "Siamese network")), ("0.17", lambda: tau("fig3_6", 10000, LAMBDA)),
          ("0.18", lambda: tau("fig3_6", 10000, BTL))),
    quote("fidelity.md", "but stays far below linear RankSVM (0.78)", ("0.78", lambda: tau("fig3_6", 10000, "RankSVM linear"))),
    quote("ranking.md", "on the tuning draws the same network reaches 0.53 at m = 3·10⁴ on average",
          ("0.53", lambda: one("ranking_siamese_tuning.csv", "experiment2_m30000", chosen=True))),
    quote("ranking.md", "0.28, 0.30, 0.52 and 0.07, where similarity regularization reaches 0.55, 0.50, 0.57 and 0.56",
          *[(q, (lambda s=s: draws(s, "Siamese network")))
            for q, s in (("0.28", 200), ("0.30", 201), ("0.52", 202), ("0.07", 203))],
          *[(q, (lambda s=s: draws(s, NOS3_5))) for q, s in (("0.55", 200), ("0.50", 201), ("0.57", 202), ("0.56", 203))]),
    quote("ranking.md", "regularization is ahead every time, by 0.06 to 0.49",
          ("0.06", lambda: min(draws(s, NOS3_5) - draws(s, "Siamese network") for s in range(200, 204))),
          ("0.49", lambda: max(draws(s, NOS3_5) - draws(s, "Siamese network") for s in range(200, 204)))),
    quote("ranking.md", "from c = 16 (ν = 0.2; 0.897 at c = 12)",
          ("0.897", lambda: bounds("BRE", 0.2, 12.0))),
    quote("ranking.md", "least 90% of the runs from c = 3 (BRE, ν = 0.4) against c = 2 (URE, ν = 0.1), from c = 16 "
          "(ν = 0.2; 0.897 at c = 12) against c = 4 (ν = 0.05), and from c = 48 (ν = 0.1) against c = 8 (ν = 0.025).",
          ("3", lambda: reaches("BRE", 0.4)), ("2", lambda: reaches("URE", 0.1)), ("16", lambda: reaches("BRE", 0.2)),
          ("4", lambda: reaches("URE", 0.05)), ("48", lambda: reaches("BRE", 0.1)), ("8", lambda: reaches("URE", 0.025))),
    quote("ranking.md", "observed probability reaches 0.9 at a c 7 to 15 times smaller than the c at which the dashed "
          "curve leaves 0 (BRE, ν = 0.4: c = 3 against 21; URE, ν = 0.1, 0.05, 0.025: c = 2, 4, 8 against 29, 59, 117)",
          ("3", lambda: reaches("BRE", 0.4)), ("2", lambda: reaches("URE", 0.1)), ("4", lambda: reaches("URE", 0.05)),
          ("8", lambda: reaches("URE", 0.025)), ("21", lambda: bound_leaves_zero("BRE", 0.4)),
          ("29", lambda: bound_leaves_zero("URE", 0.1)), ("59", lambda: bound_leaves_zero("URE", 0.05)),
          ("117", lambda: bound_leaves_zero("URE", 0.025)),
          ("7", lambda: bound_leaves_zero("BRE", 0.4) / reaches("BRE", 0.4)),
          ("15", lambda: max(bound_leaves_zero("URE", nu) / reaches("URE", nu) for nu in (0.1, 0.05, 0.025)))),
    # -- seed 003, chapter 2 (clustering_*.csv of experiments/clustering.py) ---------------------------
    quote("fidelity.md", "(from 10% of the pairs on, at separations 4–6, it stays at 0.02–0.09 where IU-RED is at or "
          "below 0.020)",
          ("0.02", lambda: fig2_2_late("S&T").min()), ("0.09", lambda: fig2_2_late("S&T").max()),
          ("0.020", lambda: fig2_2_late("IU-RED").max())),
    quote("fidelity.md", "(0.069 at x = 0.3, 0.005 at x = 1)",
          ("0.069", lambda: fig2_5("a", "IU-RED, interleave", 0.3)), ("0.005", lambda: fig2_5("a", "IU-RED, interleave", 1.0))),
    quote("fidelity.md", "(at x = 0.2: 0.226 against 0.310 and 0.315)",
          ("0.226", lambda: fig2_5("a", "S&T", 0.2)), ("0.310", lambda: fig2_5("a", "IU-RED", 0.2)),
          ("0.315", lambda: fig2_5("a", "IU-RED, interleave", 0.2))),
    quote("clustering.md", "IU-RED variants: 0.226 against 0.310 and 0.315 at x = 0.2)",
          ("0.226", lambda: fig2_5("a", "S&T", 0.2)), ("0.310", lambda: fig2_5("a", "IU-RED", 0.2)),
          ("0.315", lambda: fig2_5("a", "IU-RED, interleave", 0.2))),
    quote("fidelity.md", "S&T is ahead (−0.0004 ± 0.0007 against −0.0023 ± 0.0008)",
          ("−0.0004", lambda: one("clustering_table2_1.csv", "S&T_mean", data="uniform")),
          ("0.0007", lambda: one("clustering_table2_1.csv", "S&T_se", data="uniform")),
          ("−0.0023", lambda: one("clustering_table2_1.csv", "IU-RED_mean", data="uniform")),
          ("0.0008", lambda: one("clustering_table2_1.csv", "IU-RED_se", data="uniform"))),
    quote("fidelity.md", "IU-RED is ahead only on waveform (0.048 against 0.024)",
          ("0.048", lambda: one("clustering_table2_1.csv", "IU-RED_mean", data="waveform")),
          ("0.024", lambda: one("clustering_table2_1.csv", "S&T_mean", data="waveform"))),
    quote("fidelity.md", "(a): random $134, S&T $115, S&T inter. $37, IU-RED $26, IU-RED inter. $26",
          ("134", lambda: cost("a", "Random")), ("115", lambda: cost("a", "S&T")),
          ("37", lambda: cost("a", "S&T, interleave")), ("26", lambda: cost("a", "IU-RED")),
          ("26", lambda: cost("a", "IU-RED, interleave"))),
    quote("fidelity.md", "(b): $82, $45, $41, $41, $17; (c): $50, $48, $30, $40, $15.",
          *[(q, (lambda p=p, m=m: cost(p, m))) for q, p, m in (
              ("82", "b", "Random"), ("45", "b", "S&T"), ("41", "b", "S&T, interleave"), ("41", "b", "IU-RED"),
              ("17", "b", "IU-RED, interleave"), ("50", "c", "Random"), ("48", "c", "S&T"),
              ("30", "c", "S&T, interleave"), ("40", "c", "IU-RED"), ("15", "c", "IU-RED, interleave"))]),
    # -- seed 003, chapter 3 (crowd_*.csv of experiments/crowd.py) -------------------------------------
    quote("fidelity.md", "about 514 of 1,000 tasks kept",
          ("514", lambda: csv("crowd_table3_1_runs.csv").groupby("restart")["n_kept"].first().mean())),
    quote("fidelity.md", "BBMC-ACT best active method (error 0.012 against 0.023 for RAND-ACT)",
          ("0.012", lambda: crowd("BBMC-ACT", "error_mean")), ("0.023", lambda: crowd("RAND-ACT", "error_mean"))),
    quote("fidelity.md", "MCMC-ACT poor and 25 times slower than BBMC-ACT",
          ("25", lambda: crowd("MCMC-ACT", "seconds_mean") / crowd("BBMC-ACT", "seconds_mean"))),
    quote("fidelity.md", "BBMC's mean log likelihood is the worst of the three passive models (sd 405)",
          ("405", lambda: crowd("BBMC", "loglik_sd"))),
    quote("fidelity.md", "whose share of tasks with disagreement is nearest the seed's 523 of 1,000 (0.512 with noise "
          "0.75, spread 30)",
          ("0.512", lambda: one("crowd_tuning.csv", "kept_share", stage="simulator", chosen=True)),
          ("0.75", lambda: one("crowd_tuning.csv", "noise", stage="simulator", chosen=True)),
          ("30", lambda: one("crowd_tuning.csv", "spread", stage="simulator", chosen=True))),
    quote("fidelity.md", "The choice K = 6 is the grid's largest value",
          ("6", lambda: one("crowd_tuning.csv", "n_factors", stage="bbmc", chosen=True)),
          ("6", lambda: csv("crowd_tuning.csv")["n_factors"].max())),
    # -- seed 003, chapter 4 (gp_*.csv of experiments/gp.py) -------------------------------------------
    quote("fidelity.md", "HPC over GPC in the sparse region is +0.6 (hyperbolic secant) and +1.0 (Laplace) points",
          ("+0.6", lambda: gp("HPC-hypsecant")), ("+1.0", lambda: gp("HPC-laplace"))),
    quote("fidelity.md", "within the noise of sparse regions of 9–137 points",
          ("9", lambda: rows("gp_fig4_3.csv", method="GPC").query("residue != 'mean'")["n_sparse"].min()),
          ("137", lambda: rows("gp_fig4_3.csv", method="GPC").query("residue != 'mean'")["n_sparse"].max())),
    quote("fidelity.md", "With the first penalty grid (0–10, whose edge was chosen everywhere) both were +0.9",
          ("+0.9", lambda: gp("HPC-laplace", file="gp_fig4_3_first_grid.csv")),
          ("+0.9", lambda: gp("HPC-hypsecant", file="gp_fig4_3_first_grid.csv"))),
    quote("fidelity.md", "with the grid to 1000, both choose 10 everywhere",
          ("10", lambda: rows("gp_fig4_3.csv").query("residue != 'mean' and method.str.startswith('HPC')")["alpha"].min()),
          ("10", lambda: rows("gp_fig4_3.csv").query("residue != 'mean' and method.str.startswith('HPC')")["alpha"].max())),
    quote("fidelity.md", "Agree: HPC within 0.1 points of GPC in dense regions (largest per-residue loss 2.1",
          ("0.1", lambda: max(abs(gp("HPC-laplace", "over_gpc_dense")), abs(gp("HPC-hypsecant", "over_gpc_dense")))),
          ("2.1", lambda: -rows("gp_fig4_3.csv").query("residue != 'mean' and method.str.startswith('HPC')")[
              "over_gpc_dense"].min())),
    quote("fidelity.md", "(47 sparse points per residue on average against about 155)",
          ("47", lambda: rows("gp_fig4_3.csv", method="GPC").query("residue != 'mean'")["n_sparse"].mean())),
    quote("fidelity.md", "the Laplace marginal's lead (1.0–1.3 points up to 20 %) falls to 0.2 at 50 %",
          ("1.0", lambda: min(gp_growing(q, "HPC-laplace") for q in (0.05, 0.1, 0.15, 0.2))),
          ("1.3", lambda: max(gp_growing(q, "HPC-laplace") for q in (0.05, 0.1, 0.15, 0.2))),
          ("0.2", lambda: gp_growing(0.5, "HPC-laplace"))),
    quote("fidelity.md", "the hyperbolic secant's +0.6 at 10 %", ("+0.6", lambda: gp_growing(0.1, "HPC-hypsecant"))),
    quote("fidelity.md", "GPC is marginally ahead from 30 % on (0.1 at 30 and 40 %, 0.03 at 50 %)",
          ("0.1", lambda: -gp_growing(0.3, "HPC-hypsecant")), ("0.1", lambda: -gp_growing(0.4, "HPC-hypsecant")),
          ("0.03", lambda: -gp_growing(0.5, "HPC-hypsecant"))),
    # -- seed 003, chapter 5 ----------------------------------------------------------------------------
    quote("fidelity.md", "(median displacement 44 against 149 in the first 100 positions",
          ("44", lambda: one("ranking_fig5_1c.csv", "median", method="URE", position_from=0)),
          ("149", lambda: one("ranking_fig5_1c.csv", "median", method="BRE", position_from=0))),
    quote("fidelity.md", "crossing in the bin at 2000)",
          ("2000", lambda: float(crossing_bin()))),
    quote("fidelity.md", "a von Mises density estimate of all 8,026 residues",
          ("8,026", lambda: gp("GPC", "n_sparse") + gp("GPC", "n_dense"))),
    # -- seed 004 (differences_*.csv) -------------------------------------------------------------------
    quote("fidelity.md", "selects 19.6 ± 0.7 of the 20 relevant features and no other",
          ("19.6", lambda: csv("differences_madelon_report.csv")["relevant"].mean()),
          ("0.7", lambda: csv("differences_madelon_report.csv")["relevant"].std(ddof=0)),
          ("20", lambda: 20.0)),
    quote("fidelity.md", "RELAX's relaxation is far from tight here (top eigenvalue 1–6 % of the trace)",
          ("1", lambda: 100 * csv("differences_madelon.csv")["tightness"].min()),
          ("6", lambda: 100 * csv("differences_madelon.csv")["tightness"].max())),
    quote("fidelity.md", "SPARDA keeps its power (1.0 up to d = 30, 0.5 at d = 100) where the energy and MMD tests "
          "lose it (0.1 at d = 30, 0 at d = 100)",
          ("1.0", lambda: power("SPARDA, support rules", (3, 10, 30), min)),
          ("0.5", lambda: power("SPARDA, support rules", (100,))),
          ("0.1", lambda: power("energy (hyppo)", (30,))), ("0.1", lambda: power("MMD (hyppo)", (30,))),
          ("0", lambda: power("energy (hyppo)", (100,))), ("0", lambda: power("MMD (hyppo)", (100,)))),
]

# -- docs/clustering.md, Figures 2.2, 2.3 and Table 2.1 (clustering_fig2_2.csv, _fig2_3.csv, _table2_1.csv) ----
def fig2_2(separation: int, method: str, fraction: float) -> float:
    return one("clustering_fig2_2.csv", "error_mean", data=f"separation {separation}", method=method, fraction=fraction)


def fig2_3(data: str, method: str, fraction: float) -> float:
    return one("clustering_fig2_3.csv", "error_mean", data=data, method=method, fraction=fraction)


def fig2_2_random_at_3() -> pd.Series:
    """Random selection's mean errors at separation 3 from 3% of the pairs (the table's first column) on."""
    frame = rows("clustering_fig2_2.csv", data="separation 3", method="Random")
    return frame[frame["fraction"] >= 0.03 - 1e-9]["error_mean"]


def table2_1(data: str, column: str) -> float:
    return one("clustering_table2_1.csv", column, data=data)


def gp_residues(method: str) -> pd.DataFrame:
    return rows("gp_fig4_3.csv", method=method).query("residue != 'mean'")


def gp_split(method: str, region: str, column: str = "over_gpc") -> float:
    return one("gp_splits.csv", column, split="all", method=method, region=region)


QUOTES += [
    quote("clustering.md", "random selection, which finds the same kind of split, is best by far (error 0.008–0.024)",
          ("0.008", lambda: fig2_2_random_at_3().min()), ("0.024", lambda: fig2_2_random_at_3().max())),
    quote("clustering.md", "Plain S&T stalls at an error of 0.02–0.09 from 10% of the pairs on, where IU-RED is at or "
          "below 0.020",
          ("0.02", lambda: fig2_2_late("S&T").min()), ("0.09", lambda: fig2_2_late("S&T").max()),
          ("0.020", lambda: fig2_2_late("IU-RED").max())),
    quote("clustering.md", "At 20% of the pairs S&T, interleave is at 0.013, 0.006 and 0.003 against 0.059, 0.069 and "
          "0.023 for S&T.",
          *[(q, (lambda s=s, m=m: fig2_2(s, m, 0.2))) for q, s, m in (
              ("0.013", 4, "S&T, interleave"), ("0.006", 5, "S&T, interleave"), ("0.003", 6, "S&T, interleave"),
              ("0.059", 4, "S&T"), ("0.069", 5, "S&T"), ("0.023", 6, "S&T"))]),
    quote("clustering.md", "At 3% of the pairs the interleaved IU-RED is behind only at separation 5 (0.288 against "
          "0.211) and ahead at 4 and 6 (0.234 and 0.077 against 0.274 and 0.133); at 20% it is lower at every "
          "separation (0.002, 0.001, 0.000 against 0.009, 0.005, 0.003).",
          *[(q, (lambda s=s, m=m, f=f: fig2_2(s, m, f))) for q, s, m, f in (
              ("0.288", 5, "IU-RED, interleave", 0.03), ("0.211", 5, "IU-RED", 0.03),
              ("0.234", 4, "IU-RED, interleave", 0.03), ("0.077", 6, "IU-RED, interleave", 0.03),
              ("0.274", 4, "IU-RED", 0.03), ("0.133", 6, "IU-RED", 0.03),
              ("0.002", 4, "IU-RED, interleave", 0.2), ("0.001", 5, "IU-RED, interleave", 0.2),
              ("0.000", 6, "IU-RED, interleave", 0.2), ("0.009", 4, "IU-RED", 0.2), ("0.005", 5, "IU-RED", 0.2),
              ("0.003", 6, "IU-RED", 0.2))]),
    quote("clustering.md", "(0.313 at 3% of the pairs and 0.164 at 5%, against 0.334 and 0.224 for S&T and 0.422 and "
          "0.433 for random)",
          *[(q, (lambda m=m, f=f: fig2_3("waveform", m, f))) for q, m, f in (
              ("0.313", "IU-RED", 0.03), ("0.164", "IU-RED", 0.05), ("0.334", "S&T", 0.03), ("0.224", "S&T", 0.05),
              ("0.422", "Random", 0.03), ("0.433", "Random", 0.05))]),
    quote("clustering.md", "on iris all methods are close (0.17–0.26 at 10%) and random selection and S&T, interleave "
          "end lowest (0.146 and 0.149 at 20%)",
          ("0.17", lambda: rows("clustering_fig2_3.csv", data="iris", fraction=0.1)["error_mean"].min()),
          ("0.26", lambda: rows("clustering_fig2_3.csv", data="iris", fraction=0.1)["error_mean"].max()),
          ("0.146", lambda: fig2_3("iris", "Random", 0.2)), ("0.149", lambda: fig2_3("iris", "S&T, interleave", 0.2)),
          ("0.146", lambda: rows("clustering_fig2_3.csv", data="iris", fraction=0.2)["error_mean"].min())),
    quote("clustering.md", "Plain S&T is the worst active method on waveform (0.172 at 20%, IU-RED 0.097), and random "
          "selection overtakes it there late, as the seed says (0.180 against 0.176 at 15%, 0.142 against 0.172 at 20%)",
          ("0.172", lambda: fig2_3("waveform", "S&T", 0.2)), ("0.097", lambda: fig2_3("waveform", "IU-RED", 0.2)),
          ("0.180", lambda: fig2_3("waveform", "Random", 0.15)), ("0.176", lambda: fig2_3("waveform", "S&T", 0.15)),
          ("0.142", lambda: fig2_3("waveform", "Random", 0.2))),
    quote("clustering.md", "On iris plain S&T is no better than the others (0.213 at 20%, the highest with IU-RED's 0.206)",
          ("0.213", lambda: fig2_3("iris", "S&T", 0.2)), ("0.206", lambda: fig2_3("iris", "IU-RED", 0.2)),
          ("0.213", lambda: rows("clustering_fig2_3.csv", data="iris", fraction=0.2)["error_mean"].max())),
    quote("clustering.md", "behind plain IU-RED at first (0.390 against 0.313 at 3%) and lowest from 10% on (0.102 at "
          "10%, 0.077 at 20%, against 0.129 and 0.097)",
          *[(q, (lambda m=m, f=f: fig2_3("waveform", m, f))) for q, m, f in (
              ("0.390", "IU-RED, interleave", 0.03), ("0.313", "IU-RED", 0.03), ("0.102", "IU-RED, interleave", 0.1),
              ("0.077", "IU-RED, interleave", 0.2), ("0.129", "IU-RED", 0.1), ("0.097", "IU-RED", 0.2))]),
    quote("clustering.md", "much sooner (0.171 and 0.107 against 0.469 and 0.454 at 5%)",
          *[(q, (lambda m=m: fig2_3("breast_cancer", m, 0.05))) for q, m in (
              ("0.171", "IU-RED, interleave"), ("0.107", "S&T, interleave"), ("0.469", "IU-RED"), ("0.454", "S&T"))]),
    quote("clustering.md", "(the difference, 0.0020, is about two standard errors)",
          ("0.0020", lambda: table2_1("uniform", "S&T_mean") - table2_1("uniform", "IU-RED_mean"))),
    quote("clustering.md", "on breast cancer, already within 0.011 of it",
          ("0.011", lambda: table2_1("breast_cancer", "error_before_mean"))),
    # -- docs/gp.md, Figure 4.3's results and Figure 4.4 (gp_fig4_3.csv, gp_fig4_4.csv, gp_splits.csv) --------
    quote("gp.md", "(the sparse region holds 803 of the 8,026 test predictions, between 9 for tryptophan and 137 for "
          "aspartate;",
          ("803", lambda: gp("GPC", "n_sparse")), ("8,026", lambda: gp("GPC", "n_sparse") + gp("GPC", "n_dense")),
          ("9", lambda: one("gp_fig4_3.csv", "n_sparse", residue="TRP", method="GPC")),
          ("9", lambda: gp_residues("GPC")["n_sparse"].min()),
          ("137", lambda: one("gp_fig4_3.csv", "n_sparse", residue="ASP", method="GPC")),
          ("137", lambda: gp_residues("GPC")["n_sparse"].max())),
    quote("gp.md", "The hyperbolic secant marginal is ahead by 0.6 points and the Laplace marginal by 1.0",
          ("0.6", lambda: gp("HPC-hypsecant")), ("1.0", lambda: gp("HPC-laplace"))),
    quote("gp.md", "(hyperbolic secant: ahead on 7 residues, behind on 4, level on 6; Laplace ahead on 7, behind on 6, "
          "level on 4), and a sparse region of 9 to 137 points moves by 1 to 11 points with a single prediction",
          *[(q, (lambda m=m, s=s: float((np.sign(gp_residues(m)["over_gpc_sparse"]) == s).sum()))) for q, m, s in (
              ("7", "HPC-hypsecant", 1), ("4", "HPC-hypsecant", -1), ("6", "HPC-hypsecant", 0),
              ("7", "HPC-laplace", 1), ("6", "HPC-laplace", -1), ("4", "HPC-laplace", 0))],
          ("9", lambda: gp_residues("GPC")["n_sparse"].min()), ("137", lambda: gp_residues("GPC")["n_sparse"].max()),
          ("1", lambda: 100 / gp_residues("GPC")["n_sparse"].max()),
          ("11", lambda: 100 / gp_residues("GPC")["n_sparse"].min())),
    quote("gp.md", "Every method is within 0.7 points of GPC on average; the largest per-residue loss of a "
          "heavy-tailed model is 2.1 points (Laplace, tyrosine)",
          ("0.7", lambda: max(abs(gp(m, "over_gpc_dense")) for m in ("HPC-laplace", "HPC-hypsecant", "sklearn-GPC"))),
          ("2.1", lambda: -gp_residues("HPC-laplace")["over_gpc_dense"].min()),
          ("2.1", lambda: -one("gp_fig4_3.csv", "over_gpc_dense", residue="TYR", method="HPC-laplace"))),
    quote("gp.md", "The Laplace marginal's lead of 1.0 to 1.3 points up to 20 % falls to 0.5 at 30 % and 0.2 at 50 %",
          ("1.0", lambda: min(gp_growing(q, "HPC-laplace") for q in (0.05, 0.1, 0.15, 0.2))),
          ("1.3", lambda: max(gp_growing(q, "HPC-laplace") for q in (0.05, 0.1, 0.15, 0.2))),
          ("0.5", lambda: gp_growing(0.3, "HPC-laplace")), ("0.2", lambda: gp_growing(0.5, "HPC-laplace"))),
    quote("gp.md", "hyperbolic secant's +0.6 at 10 % is level at 15 and 20 % and −0.1, −0.1 and −0.03 at 30, 40 and 50 %",
          ("+0.6", lambda: gp_growing(0.1, "HPC-hypsecant")), ("−0.1", lambda: gp_growing(0.3, "HPC-hypsecant")),
          ("−0.1", lambda: gp_growing(0.4, "HPC-hypsecant")), ("−0.03", lambda: gp_growing(0.5, "HPC-hypsecant"))),
    quote("gp.md", "chose its edge, 10, for both heavy-tailed models on all 17 residues, and gave +0.9 (Laplace) and "
          "+0.9 (hyperbolic secant) over GPC in sparse regions",
          ("10", lambda: rows("gp_fig4_3_first_grid.csv").query("residue != 'mean' and method.str.startswith('HPC')")[
              "alpha"].min()),
          ("10", lambda: rows("gp_fig4_3_first_grid.csv").query("residue != 'mean' and method.str.startswith('HPC')")[
              "alpha"].max()),
          ("17", lambda: float(len(gp_residues("GPC")))),
          ("+0.9", lambda: gp("HPC-laplace", file="gp_fig4_3_first_grid.csv")),
          ("+0.9", lambda: gp("HPC-hypsecant", file="gp_fig4_3_first_grid.csv"))),
    quote("gp.md", "both heavy-tailed models now choose 10 on all 17 residues",
          *[(q, (lambda m=m, r=r: r(gp_residues(m)["alpha"]))) for q in ("10",)
            for m in ("HPC-laplace", "HPC-hypsecant") for r in (min, max)],
          ("17", lambda: float(len(gp_residues("HPC-laplace"))))),
    quote("gp.md", "GPC chooses no penalty on 16 residues and 0.1 on one.",
          ("16", lambda: float((gp_residues("GPC")["alpha"] == 0).sum())),
          ("0.1", lambda: gp_residues("GPC")["alpha"].max())),
    quote("gp.md", "ours 47 on average", ("47", lambda: gp_residues("GPC")["n_sparse"].mean())),
    quote("gp.md", "A single split can show anything from −0.7 to +3.9",
          ("−0.7", lambda: min(gp_split(m, "sparse", "split_min") for m in ("HPC-laplace", "HPC-hypsecant"))),
          ("+3.9", lambda: max(gp_split(m, "sparse", "split_max") for m in ("HPC-laplace", "HPC-hypsecant")))),
    quote("gp.md", "secant +1.42 (0.76 to 2.13) at 15 %, +0.73 (0.25 to 1.22) at 30 % and +0.39 (0.02 to 0.78) at 50 %; "
          "for the Laplace marginal +1.19 (0.59 to 1.76), +0.51 (0.00 to 0.99) and +0.24 (−0.10 to 0.56).",
          *[(q, (lambda m=m, r=r, c=c: gp_split(m, f"sparse_{r}", c))) for q, m, r, c in (
              ("+1.42", "HPC-hypsecant", 0.15, "over_gpc"), ("0.76", "HPC-hypsecant", 0.15, "ci_low"),
              ("2.13", "HPC-hypsecant", 0.15, "ci_high"), ("+0.73", "HPC-hypsecant", 0.3, "over_gpc"),
              ("0.25", "HPC-hypsecant", 0.3, "ci_low"), ("1.22", "HPC-hypsecant", 0.3, "ci_high"),
              ("+0.39", "HPC-hypsecant", 0.5, "over_gpc"), ("0.02", "HPC-hypsecant", 0.5, "ci_low"),
              ("0.78", "HPC-hypsecant", 0.5, "ci_high"), ("+1.19", "HPC-laplace", 0.15, "over_gpc"),
              ("0.59", "HPC-laplace", 0.15, "ci_low"), ("1.76", "HPC-laplace", 0.15, "ci_high"),
              ("+0.51", "HPC-laplace", 0.3, "over_gpc"), ("0.00", "HPC-laplace", 0.3, "ci_low"),
              ("0.99", "HPC-laplace", 0.3, "ci_high"), ("+0.24", "HPC-laplace", 0.5, "over_gpc"),
              ("−0.10", "HPC-laplace", 0.5, "ci_low"), ("0.56", "HPC-laplace", 0.5, "ci_high"))]),
]

# -- docs/ranking.md, Figures 3.1–3.6 and 5.1 (ranking_*.csv) -----------------------------------------
def fig3(n: int, column: str, m: int, method: str, chain="sampling") -> float:
    frame = csv("ranking_fig3_1.csv" if n == 200 else "ranking_fig3_2.csv")
    part = frame[(frame["m"] == m) & (frame["method"] == method)]
    if chain is not None:
        part = part[part["chain"] == chain]
    assert len(part) == 1, f"Figure 3.1/3.2: {len(part)} rows for n={n}, m={m}, {method}, {chain}"
    return float(part[column].iloc[0])


def ergodic(n: int, m: int) -> float:
    """Runs in which unregularized RankCentrality's chain was ergodic (did not return uniform weights)."""
    return fig3(n, "runs", m, "RankCentrality") - fig3(n, "uniform_runs", m, "RankCentrality")


def largest_m(n: int) -> int:
    return 50000 if n == 200 else 5000


def panel_b(figure: str, m: int, sigma: float) -> float:
    return one(f"ranking_{figure}b.csv", "tau_b_mean", m=m, sigma=sigma)


def peak_sigma(figure: str, m: int) -> float:
    part = rows(f"ranking_{figure}b.csv", m=m)
    return float(part.loc[part["tau_b_mean"].idxmax(), "sigma"])


def chain_3_5(figure: str) -> str:
    return {"fig3_4": "similarity σ = 2^-5, Q̂ of (3.5)", "fig3_5": "similarity σ = 2^-4, Q̂ of (3.5)"}[figure]


def overtaken(figure: str) -> float:
    """The first m at which λ-regularized RankCentrality is ahead of similarity regularization on the chain of eq. 3.5."""
    frame = csv(f"ranking_{figure}a.csv")
    return float(min(m for m in frame["m"].unique() if tau(figure, m, LAMBDA) > tau(figure, m, chain_3_5(figure))))


def siamese_setting(hidden: str, alpha: float, column: str) -> float:
    frame = csv("ranking_siamese_tuning.csv")
    part = frame[(frame["hidden"].astype(str) == hidden) & np.isclose(frame["alpha"], alpha)]
    assert len(part) == 1
    return float(part[column].iloc[0])


def holds_always_from(method: str, nu: float) -> float:
    """The smallest c of Figure 5.1(a, b)'s grid from which the bound held in every run."""
    part = rows("ranking_fig5_1ab.csv", method=method, nu=nu).sort_values("c")
    short = part[part["probability"] < 1]
    return float(part[part["c"] > short["c"].max()]["c"].min())


def fig5_1c(method: str, position: int, column: str = "median") -> float:
    return one("ranking_fig5_1c.csv", column, method=method, position_from=position)


def bre_level() -> float:
    """BRE's median displacement along the ranking, its bins pooled (the flat part dominates)."""
    return float(rows("ranking_fig5_1c.csv", method="BRE")["median"].median())


QUOTES += [
    quote("ranking.md", "Its chain was ergodic in none of the 40 runs up to m = 1000 and in 4 of 40 at m = 2000 for "
          "n = 200 (39 of 40 at m = 5000), and in none up to m = 50 for n = 20 (4 of 40 at m = 100, 39 at m = 200).",
          ("40", lambda: fig3(200, "runs", 1000, "RankCentrality")),
          ("1000", lambda: float(max(m for m in (50, 100, 200, 500, 1000, 2000) if ergodic(200, m) == 0))),
          ("4", lambda: ergodic(200, 2000)), ("39", lambda: ergodic(200, 5000)),
          ("50", lambda: float(max(m for m in (5, 10, 20, 50, 100) if ergodic(20, m) == 0))),
          ("4", lambda: ergodic(20, 100)), ("39", lambda: ergodic(20, 200))),
    quote("ranking.md", "(tau 0.22 at m = 50 for n = 200, 0.20 at m = 5 for n = 20; regularized BTL 0.23 and 0.19)",
          ("0.22", lambda: fig3(200, "tau_b_mean", 50, "λ = 1/n")), ("0.20", lambda: fig3(20, "tau_b_mean", 5, "λ = 1/n")),
          ("0.23", lambda: fig3(200, "tau_b_mean", 50, BTL, None)), ("0.19", lambda: fig3(20, "tau_b_mean", 5, BTL, None))),
    quote("ranking.md", "the ℓ2 error of λ = 1/n stalls at 0.50 for n = 200 (0.49 for n = 20) while the unregularized "
          "error falls to 0.14 (0.10), with plateaus ordered by λ (0.38, 0.27, 0.18 for λ = 1/(2n), 1/(4n), 1/(8n) at "
          "m = 5·10⁴); the tau curves of all four λ lie on top of each other and, if anything, above the unregularized "
          "one (0.943 against 0.934 at m = 5·10⁴, n = 200).",
          ("0.50", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/n")),
          ("0.49", lambda: fig3(20, "l2_error_mean", 5000, "λ = 1/n")),
          ("0.14", lambda: fig3(200, "l2_error_mean", 50000, "RankCentrality")),
          ("0.10", lambda: fig3(20, "l2_error_mean", 5000, "RankCentrality")),
          ("0.38", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/(2n)")),
          ("0.27", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/(4n)")),
          ("0.18", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/(8n)")),
          ("0.943", lambda: fig3(200, "tau_b_mean", 50000, "λ = 1/n")),
          ("0.934", lambda: fig3(200, "tau_b_mean", 50000, "RankCentrality"))),
    quote("ranking.md", "the ℓ2 error of λ = 1/n is 0.150 against 0.104 unregularized for n = 20 (a gap of +0.046), and "
          "0.155 against 0.162 for n = 200 (−0.007)",
          ("0.150", lambda: fig3(20, "l2_error_mean", 5000, "λ = 1/n", "nos")),
          ("0.104", lambda: fig3(20, "l2_error_mean", 5000, "RankCentrality", "nos")),
          ("+0.046", lambda: fig3(20, "l2_error_mean", 5000, "λ = 1/n", "nos")
           - fig3(20, "l2_error_mean", 5000, "RankCentrality", "nos")),
          ("0.155", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/n", "nos")),
          ("0.162", lambda: fig3(200, "l2_error_mean", 50000, "RankCentrality", "nos")),
          ("−0.007", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/n", "nos")
           - fig3(200, "l2_error_mean", 50000, "RankCentrality", "nos"))),
    quote("ranking.md", "the ℓ2 error of λ = 1/n is 0.490 against 0.104 unregularized for n = 20 (a gap of 0.39) and "
          "0.505 against 0.137 for n = 200 (a gap of 0.37), and the plateaus of the four λ are 0.49/0.37/0.25/0.16 "
          "(n = 20) and 0.50/0.38/0.27/0.18 (n = 200).",
          ("0.490", lambda: fig3(20, "l2_error_mean", 5000, "λ = 1/n")),
          ("0.104", lambda: fig3(20, "l2_error_mean", 5000, "RankCentrality")),
          ("0.39", lambda: fig3(20, "l2_error_mean", 5000, "λ = 1/n") - fig3(20, "l2_error_mean", 5000, "RankCentrality")),
          ("0.505", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/n")),
          ("0.137", lambda: fig3(200, "l2_error_mean", 50000, "RankCentrality")),
          ("0.37", lambda: fig3(200, "l2_error_mean", 50000, "λ = 1/n")
           - fig3(200, "l2_error_mean", 50000, "RankCentrality")),
          *[(q, (lambda n=n, lam=lam: fig3(n, "l2_error_mean", largest_m(n), lam))) for q, n, lam in (
              ("0.49", 20, "λ = 1/n"), ("0.37", 20, "λ = 1/(2n)"), ("0.25", 20, "λ = 1/(4n)"), ("0.16", 20, "λ = 1/(8n)"),
              ("0.50", 200, "λ = 1/n"), ("0.38", 200, "λ = 1/(2n)"), ("0.27", 200, "λ = 1/(4n)"),
              ("0.18", 200, "λ = 1/(8n)"))]),
    quote("ranking.md", "(2.0 to 4.2 at m = 1000–2000 for n = 200, against 0.8 for uniform weights",
          ("2.0", lambda: min(fig3(200, "l2_error_mean", m, lam, "nos") for m in (1000, 2000)
                              for lam in ("λ = 1/n", "λ = 1/(2n)", "λ = 1/(4n)", "λ = 1/(8n)"))),
          ("4.2", lambda: max(fig3(200, "l2_error_mean", m, lam, "nos") for m in (1000, 2000)
                              for lam in ("λ = 1/n", "λ = 1/(2n)", "λ = 1/(4n)", "λ = 1/(8n)"))),
          ("0.8", lambda: fig3(200, "l2_error_mean", 50, "RankCentrality", "nos"))),
    quote("ranking.md", "(tau 0.80 at m = 100, 0.97 at m = 10⁴)",
          ("0.80", lambda: tau("fig3_4", 100, "RankSVM random features")),
          ("0.97", lambda: tau("fig3_4", 10000, "RankSVM random features"))),
    quote("ranking.md", "linear RankSVM cannot represent it (0.11)", ("0.11", lambda: tau("fig3_4", 10000, "RankSVM linear"))),
    quote("ranking.md", "catches up from m = 2000 on (0.94 against 0.95; 0.97 for both at m = 10⁴)",
          ("0.94", lambda: tau("fig3_4", 2000, "Siamese network")), ("0.95", lambda: tau("fig3_4", 2000, "RankSVM random features")),
          ("0.97", lambda: tau("fig3_4", 10000, "Siamese network")),
          ("0.97", lambda: tau("fig3_4", 10000, "RankSVM random features"))),
    quote("ranking.md", "Linear RankSVM reaches tau 0.78 at m = 10⁴, against 0.17–0.18 for every method that ignores or "
          "barely uses the features.",
          ("0.78", lambda: tau("fig3_6", 10000, "RankSVM linear")),
          ("0.17", lambda: min(tau("fig3_6", 10000, m) for m in (NOS3_6, "similarity σ = 2^-5, Q̂ of (3.5)", LAMBDA, BTL))),
          ("0.18", lambda: max(tau("fig3_6", 10000, m) for m in (NOS3_6, "similarity σ = 2^-5, Q̂ of (3.5)", LAMBDA, BTL)))),
    quote("ranking.md", "(0.75 against 0.12 at m = 100)",
          ("0.75", lambda: rows("ranking_fig3_4b.csv", m=100)["tau_b_mean"].max()),
          ("0.12", lambda: panel_b("fig3_4", 100, 0.0))),
    quote("ranking.md", "best (tau 0.28 against 0.17 at m = 1000)",
          ("0.28", lambda: tau("fig3_5", 1000, "RankSVM linear")), ("0.17", lambda: tau("fig3_5", 1000, NOS3_5))),
    quote("ranking.md", "up to m = 10⁵ (0.60 against 0.57); the gap narrows from 0.14 at m = 10⁴ to 0.03 at 10⁵",
          ("0.60", lambda: tau("fig3_5", 100000, NOS3_5)), ("0.57", lambda: tau("fig3_5", 100000, BTL)),
          ("0.14", lambda: tau("fig3_5", 10000, NOS3_5) - max(tau("fig3_5", 10000, BTL), tau("fig3_5", 10000, LAMBDA))),
          ("0.03", lambda: tau("fig3_5", 100000, NOS3_5) - max(tau("fig3_5", 100000, BTL), tau("fig3_5", 100000, LAMBDA)))),
    quote("ranking.md", "(0.195 against 0.168 at m = 10⁴, within one standard deviation)",
          ("0.195", lambda: panel_b("fig3_6", 10000, 1.0)), ("0.168", lambda: panel_b("fig3_6", 10000, 0.0)),
          ("0.195", lambda: rows("ranking_fig3_6b.csv", m=10000)["tau_b_mean"].max())),
    quote("ranking.md", "λ-regularized RankCentrality is still far from good (0.57)", ("0.57", lambda: tau("fig3_4", 10000, LAMBDA))),
    quote("ranking.md", "(tau 0.33 at σ = 1, about −0.8 beyond)",
          ("0.33", lambda: panel_b("fig3_4", 10000, 1.0)),
          *[("−0.8", (lambda s=s: panel_b("fig3_4", 10000, s))) for s in (2.0, 4.0, 8.0)]),
    quote("ranking.md", "tau is flat in m (0.55 in experiment 1, 0.07 in experiment 2)",
          ("0.55", lambda: rows("ranking_fig3_4a.csv", method=chain_3_5("fig3_4"))["tau_b_mean"].mean()),
          ("0.07", lambda: rows("ranking_fig3_5a.csv", method=chain_3_5("fig3_5"))["tau_b_mean"].mean())),
    quote("ranking.md", "overtaken by it at m = 10⁴ (experiment 1) or m = 3000 (experiment 2)",
          ("3000", lambda: overtaken("fig3_5"))),
    quote("ranking.md", "(mean tau 0.441), just ahead of the class defaults (16,), 10⁻⁴ (0.431) and (16,), 10⁻⁵ (0.426)",
          ("0.441", lambda: one("ranking_siamese_tuning.csv", "tau_b_mean", chosen=True)),
          ("0.431", lambda: siamese_setting("16", 1e-4, "tau_b_mean")),
          ("0.426", lambda: siamese_setting("16", 1e-5, "tau_b_mean"))),
    quote("ranking.md", "alpha = 10⁻² reaches tau 0.82 at m = 10⁴ in experiment 3 against 0.38 for the chosen setting, but "
          "falls to 0.01–0.07 in experiments 1 and 2",
          ("0.82", lambda: siamese_setting("16", 1e-2, "experiment3_m10000")),
          ("0.38", lambda: one("ranking_siamese_tuning.csv", "experiment3_m10000", chosen=True)),
          ("0.01", lambda: siamese_setting("16", 1e-2, "experiment1")),
          ("0.07", lambda: siamese_setting("16", 1e-2, "experiment2"))),
    quote("ranking.md", "reversed at alpha = 1 (tau −0.8)", ("−0.8", lambda: siamese_setting("16", 1.0, "experiment3_m10000"))),
    quote("ranking.md", "(0.60 against 0.50 at m = 100; level at m = 200, 0.60 against 0.59)",
          ("0.60", lambda: tau("fig3_4", 100, NOS3_4)), ("0.50", lambda: tau("fig3_4", 100, "Siamese network")),
          ("0.60", lambda: tau("fig3_4", 200, NOS3_4)), ("0.59", lambda: tau("fig3_4", 200, "Siamese network"))),
    quote("ranking.md", "curve flattens at 0.30–0.31 while similarity regularization, BTL and λ-regularization keep "
          "climbing (0.60, 0.57, 0.57 at m = 10⁵)",
          ("0.30", lambda: tau("fig3_5", 10000, "Siamese network")), ("0.31", lambda: tau("fig3_5", 100000, "Siamese network")),
          ("0.60", lambda: tau("fig3_5", 100000, NOS3_5)), ("0.57", lambda: tau("fig3_5", 100000, BTL)),
          ("0.57", lambda: tau("fig3_5", 100000, LAMBDA))),
    quote("ranking.md", "From m = 500 on in experiment 1 the network beats similarity regularization (0.80 against 0.69)",
          ("0.80", lambda: tau("fig3_4", 500, "Siamese network")), ("0.69", lambda: tau("fig3_4", 500, NOS3_4))),
    quote("ranking.md", "from m = 2000 (0.94 against 0.95; 0.97 both at m = 10⁴)",
          ("0.94", lambda: tau("fig3_4", 2000, "Siamese network")), ("0.95", lambda: tau("fig3_4", 2000, "RankSVM random features")),
          ("0.97", lambda: tau("fig3_4", 10000, "Siamese network"))),
    quote("ranking.md", "(0.27 against 0.17–0.18 at m = 10⁴)",
          ("0.27", lambda: tau("fig3_6", 10000, "Siamese network")), ("0.17", lambda: tau("fig3_6", 10000, LAMBDA)),
          ("0.18", lambda: tau("fig3_6", 10000, BTL))),
    quote("ranking.md", "(0.78 at m = 10⁴)", ("0.78", lambda: tau("fig3_6", 10000, "RankSVM linear"))),
    quote("ranking.md", "c = 1 means about 3,450 comparisons per run, c = 128 about 442,000",
          ("3,450", lambda: round(one("ranking_fig5_1ab.csv", "mean_comparisons", method="BRE", nu=0.1, c=1.0), -1)),  # "about": to tens
          ("442,000", lambda: round(one("ranking_fig5_1ab.csv", "mean_comparisons", method="BRE", nu=0.1, c=128.0), -3))),
    quote("ranking.md", "(all 96 points)",
          ("96", lambda: float((csv("ranking_fig5_1ab.csv")["probability"] >= csv("ranking_fig5_1ab.csv")["lower_bound"]).sum())),
          ("96", lambda: float(len(csv("ranking_fig5_1ab.csv"))))),
    quote("ranking.md", "while the bound itself holds in every run from c = 64",
          ("64", lambda: max(holds_always_from("BRE", nu) for nu in (0.1, 0.2)))),
    quote("ranking.md", "The median displacement of URE is 44 against 149 for the first 100 positions (standard deviation "
          "57 against 223), the two cross in the bin starting at position 2000 (289 against 283), and BRE stays better to "
          "the end (283 against 447 at position 5000).",
          ("44", lambda: fig5_1c("URE", 0)), ("149", lambda: fig5_1c("BRE", 0)),
          ("57", lambda: fig5_1c("URE", 0, "std")), ("223", lambda: fig5_1c("BRE", 0, "std")),
          ("2000", lambda: float(crossing_bin())), ("289", lambda: fig5_1c("URE", 2000)),
          ("283", lambda: fig5_1c("BRE", 2000)), ("283", lambda: fig5_1c("BRE", 5000)),
          ("447", lambda: fig5_1c("URE", 5000))),
    quote("ranking.md", "BRE's displacement is flat (about 282)", ("282", bre_level)),
    quote("ranking.md", "(observed 282 and 447)", ("282", bre_level), ("447", lambda: fig5_1c("URE", 5000))),
]

# -- docs/differences.md (differences_*.csv) ------------------------------------------------------------
def tuning(variation: str, column: str = "objective") -> float:
    return float(rows("differences_madelon_tuning.csv", variation=variation)[column].mean())


def report(column: str) -> pd.Series:
    return csv("differences_madelon_report.csv")[column]


def path_row(lam_rank: int, method: str = "SPARDA") -> pd.Series:
    """Draw 0's λ path, the lam_rank-th λ from the largest."""
    part = rows("differences_madelon.csv", method=method).sort_values("setting", ascending=False)
    return part.iloc[lam_rank]


def rules(method: str, d: int, column: str) -> pd.Series:
    part = rows("differences_power_rules.csv", method=method)
    return part[part["d"] == d][column]


def first_run(method: str) -> pd.DataFrame:
    return rows("differences_power.csv", method=method)


QUOTES += [
    quote("differences.md", "The warm start made no difference (1.341 without it)",
          ("1.341", lambda: tuning("warm_start=0")), ("1.341", lambda: tuning("defaults"))),
    quote("differences.md", "γ = 0.1 with η = 3, 0.4 % behind on the criterion",
          ("0.4", lambda: 100 * (1 - tuning("step_B=0.1, step_dual=3.0") / tuning("step_B=0.03, step_dual=3.0")))),
    quote("differences.md", "Every draw selects only relevant features (18 to 20 of them).",
          ("18", lambda: report("relevant").min()), ("20", lambda: report("relevant").max()),
          ("18", lambda: report("n_selected").min()), ("20", lambda: report("n_selected").max())),
    quote("differences.md", "`PDACV` chooses λ = 0.58 on this draw (19 features, all relevant)",
          ("0.58", lambda: path_row(0, "SPARDA (cross-validated λ)")["setting"]),
          ("19", lambda: path_row(0, "SPARDA (cross-validated λ)")["n_selected"]),
          ("19", lambda: path_row(0, "SPARDA (cross-validated λ)")["n_relevant"])),
    quote("differences.md", "B's top eigenvalue holds 1–6 % of its trace at every λ (1.7–3.2 % at the λ `PDACV` chose on "
          "the ten draws)",
          ("1", lambda: 100 * rows("differences_madelon.csv", method="SPARDA")["tightness"].min()),
          ("6", lambda: 100 * rows("differences_madelon.csv", method="SPARDA")["tightness"].max()),
          ("1.7", lambda: 100 * report("tightness").min()), ("3.2", lambda: 100 * report("tightness").max())),
    quote("differences.md", "(14 relevant with no false positive, 20 of 20 at 30 selected)",
          ("14", lambda: rows("differences_madelon.csv", method="top sparse PC").query("n_selected == n_relevant")[
              "n_relevant"].max()),
          ("20", lambda: one("differences_madelon.csv", "n_relevant", method="top sparse PC", setting=30.0)),
          ("20", lambda: 20.0),
          ("30", lambda: one("differences_madelon.csv", "n_selected", method="top sparse PC", setting=30.0))),
    quote("differences.md", "both variants got the same λ (0.051, 0.25, 0.010 and 0.13 at the four d)",
          *[(q, (lambda d=d, m=m: only(list(rules(m, d, "lam").unique())))) for q, d in (
              ("0.051", 3), ("0.25", 10), ("0.010", 30), ("0.13", 100))
            for m in ("SPARDA, support rules", "SPARDA, RELAX's support")]),
    quote("differences.md", "(median p 0.32–0.46 at d ≥ 30), while SPARDA rejects in every run up to d = 30 and in half of "
          "them at d = 100 (median p 0.06)",
          ("0.32", lambda: min(rules(m, d, "pvalue").median() for m in ("energy (hyppo)", "MMD (hyppo)") for d in (30, 100))),
          ("0.46", lambda: max(rules(m, d, "pvalue").median() for m in ("energy (hyppo)", "MMD (hyppo)") for d in (30, 100))),
          ("0.06", lambda: rules("SPARDA, support rules", 100, "pvalue").median())),
    quote("differences.md", "At d = 10 the λ keeps 2.7 features on average, of which 1.5 differing ones.",
          ("2.7", lambda: rules("SPARDA, support rules", 10, "n_selected").mean()),
          ("1.5", lambda: rules("SPARDA, support rules", 10, "differing_selected").mean())),
    quote("differences.md", "The support rules matter in one run of 40.",
          ("40", lambda: float(len(rules("SPARDA, support rules", 3, "pvalue")) * 4))),
    quote("differences.md", "rejects where RELAX's choice does not (1.0 against 0.9)",
          ("1.0", lambda: power("SPARDA, support rules", (10,))), ("0.9", lambda: power("SPARDA, RELAX's support", (10,)))),
    quote("differences.md", "SPARDA keeps 1.0–1.5 features on average at every d",
          ("1.0", lambda: first_run("SPARDA").groupby("d")["n_selected"].mean().min()),
          ("1.5", lambda: first_run("SPARDA").groupby("d")["n_selected"].mean().max())),
    quote("differences.md", "(0.9–1.2 of the 3 differing features among those it keeps)",
          ("0.9", lambda: first_run("SPARDA").groupby("d")["differing_selected"].mean().min()),
          ("1.2", lambda: first_run("SPARDA").groupby("d")["differing_selected"].mean().max())),
    quote("differences.md", "is not better at large d (0.50): there only 1.2 of its 3 features are differing ones on "
          "average (2.2 at d < 69)",
          ("0.50", lambda: (first_run("SPARDA k=3").query("d >= 69")["pvalue"] <= 0.05).mean()),
          ("1.2", lambda: first_run("SPARDA k=3").query("d >= 69")["differing_selected"].mean()),
          ("2.2", lambda: first_run("SPARDA k=3").query("d < 69")["differing_selected"].mean())),
]

# -- docs/crowd.md (crowd_*.csv) and docs/judgments.md's reading (judgments_experiments.csv) ---------------
def kept() -> pd.Series:
    return csv("crowd_table3_1_runs.csv").groupby("restart")["n_kept"].first()


def decided(experiment: str, baselines=("averages", "copies")) -> list:
    """The budgets at which Full's win rate has its 95% interval above one half against every baseline."""
    budgets = sorted(_judgments_frame().query("experiment == @experiment")["budget"].unique())
    return [b for b in budgets if all(versus(experiment, base, b, "low") > 0.5 for base in baselines)]


def budgets_from(experiment: str, low: int) -> list:
    budgets = sorted(_judgments_frame().query("experiment == @experiment")["budget"].unique())
    return [b for b in budgets if b >= low]


def k_against_m(total: int, k: int, algorithm: str, column: str = "test_mse") -> float:
    frame = _judgments_frame()
    part = frame[(frame["experiment"] == f"k against m, M = {total}") & (frame["k"] == k)
                 & (frame["algorithm"] == algorithm)]
    return float(part[column].mean())


def k_sem(total: int, k: int, algorithm: str, column: str = "test_mse") -> float:
    frame = _judgments_frame()
    part = frame[(frame["experiment"] == f"k against m, M = {total}") & (frame["k"] == k)
                 & (frame["algorithm"] == algorithm)]
    return float(part[column].sem())


K_POINTS = [(total, k) for total in (240, 480, 960) for k in (2, 3, 4, 6, 8)]

QUOTES += [
    quote("crowd.md", "Only the tasks with disagreement are kept: 514 on average, between 492 and 550",
          ("514", lambda: kept().mean()), ("492", lambda: kept().min()), ("550", lambda: kept().max())),
    quote("crowd.md", "60 gold labels", ("60", lambda: only(list(csv("crowd_table3_1_runs.csv")["n_gold"].unique())))),
    quote("crowd.md", "1,101 held-out tasks", ("1,101", lambda: only(list(csv("crowd_table3_1_runs.csv")["n_test"].unique())))),
    quote("crowd.md", "BBMC's K = 6, σ = 3 and α = 4, were chosen by `tune`",
          ("6", lambda: one("crowd_tuning.csv", "n_factors", stage="bbmc", chosen=True)),
          ("3", lambda: one("crowd_tuning.csv", "sigma", stage="bbmc", chosen=True)),
          ("4", lambda: one("crowd_tuning.csv", "alpha", stage="bbmc", chosen=True))),
    quote("crowd.md", "Restarts. 10, each a new data set", ("10", lambda: float(csv("crowd_table3_1_runs.csv")["restart"].nunique())),
          ("10", lambda: only(list(csv("crowd_table3_1.csv")["restarts"].unique())))),
    quote("crowd.md", "BBMC's error (0.055) is below GOLD's (0.079) and CONS's (0.092).",
          ("0.055", lambda: crowd("BBMC", "error_mean")), ("0.079", lambda: crowd("GOLD", "error_mean")),
          ("0.092", lambda: crowd("CONS", "error_mean"))),
    quote("crowd.md", "and its sd is 405", ("405", lambda: crowd("BBMC", "loglik_sd"))),
    quote("crowd.md", "GOLD's log likelihood (−227) is far better than the seed's −3716",
          ("−227", lambda: crowd("GOLD", "loglik_mean")), ("−3716", lambda: crowd("GOLD", "seed_loglik"))),
    quote("crowd.md", "with and without queries (0.092 and 0.080)",
          ("0.092", lambda: crowd("CONS", "error_mean")), ("0.080", lambda: crowd("CONS-ACT", "error_mean"))),
    quote("crowd.md", "It has the lowest error (0.012) and the highest log likelihood (−49.6). Next come RAND-ACT (0.023), "
          "DIS-ACT (0.024) and MCMC-ACT (0.038).",
          ("0.012", lambda: crowd("BBMC-ACT", "error_mean")), ("0.012", lambda: csv("crowd_table3_1.csv")["error_mean"].min()),
          ("−49.6", lambda: crowd("BBMC-ACT", "loglik_mean")), ("−49.6", lambda: csv("crowd_table3_1.csv")["loglik_mean"].max()),
          ("0.023", lambda: crowd("RAND-ACT", "error_mean")), ("0.024", lambda: crowd("DIS-ACT", "error_mean")),
          ("0.038", lambda: crowd("MCMC-ACT", "error_mean"))),
    quote("crowd.md", "(0.024 against 0.023; the seed has 0.039 against 0.029)",
          ("0.024", lambda: crowd("DIS-ACT", "error_mean")), ("0.023", lambda: crowd("RAND-ACT", "error_mean")),
          ("0.039", lambda: crowd("DIS-ACT", "seed_error")), ("0.029", lambda: crowd("RAND-ACT", "seed_error"))),
    quote("crowd.md", "MCMC-ACT 500 ± 37 s, 25 times as long",
          ("25", lambda: crowd("MCMC-ACT", "seconds_mean") / crowd("BBMC-ACT", "seconds_mean"))),
    quote("judgments.md", "below both baselines' at every budget but B = 2 (8.214 against Averages' 8.210)",
          ("2", lambda: only(digits_budgets(lambda b: judgment_mean("digits", "full", b) >= min(
              judgment_mean("digits", "averages", b), judgment_mean("digits", "copies", b))))),
          ("8.214", lambda: judgment_mean("digits", "full", 2)), ("8.210", lambda: judgment_mean("digits", "averages", 2))),
    quote("judgments.md", "Wilson interval above one half against both baselines at B = 3 and 6–40 (e.g. 94% [84%, 98%] at "
          "B = 32). At B = 1, 2 and 4 the comparison is undecided",
          ("3", lambda: decided("digits")[0]), ("6", lambda: decided("digits")[1]),
          ("40", lambda: decided("digits")[-1] if decided("digits")[1:] == budgets_from("digits", 6) else float("nan")),
          *[(q, (lambda base=base, c=c: 100 * versus("digits", base, 32, c))) for q, c in (
              ("94", "win_rate"), ("84", "low"), ("98", "high")) for base in ("averages", "copies")],
          *[(q, (lambda b=b: b if b not in decided("digits") else float("nan"))) for q, b in (("1", 1), ("2", 2), ("4", 4))]),
    quote("judgments.md", "at B = 1 Full wins 8, ties 35 and loses 7 of 50 splits against Copies and wins 56% [42%, 69%] "
          "against Averages; at B = 2 Full and Averages choose the same r in 42 of 50 splits; at B = 4 Full wins 60% "
          "[46%, 74%] of the splits it does not tie against Averages.",
          ("8", lambda: versus("digits", "copies", 1, "wins")), ("35", lambda: versus("digits", "copies", 1, "ties")),
          ("7", lambda: versus("digits", "copies", 1, "losses")),
          ("56", lambda: 100 * versus("digits", "averages", 1, "win_rate")),
          ("42", lambda: 100 * versus("digits", "averages", 1, "low")),
          ("69", lambda: 100 * versus("digits", "averages", 1, "high")),
          ("42", lambda: versus("digits", "averages", 2, "ties")),
          ("60", lambda: 100 * versus("digits", "averages", 4, "win_rate")),
          ("46", lambda: 100 * versus("digits", "averages", 4, "low")),
          ("74", lambda: 100 * versus("digits", "averages", 4, "high"))),
    quote("judgments.md", "the best plan at B = 40 brings the test error to 7.7",
          ("7.7", lambda: min(judgment_mean("digits", a, 40) for a in ("full", "scoring", "averages", "copies")))),
    quote("judgments.md", "Full's mean is the lowest of the four at all 12 budgets, with a win rate clearly above one half "
          "against both baselines at B = 4, 6 and 14–40; against Averages it is undecided at B = 2 (63% [48%, 76%]), 8 (62% "
          "[48%, 74%]) and 10 (60% [46%, 72%]), and against Copies at B = 1 and 3, where they choose the same r in many "
          "splits (43 and 18 of 50).",
          ("12", lambda: float(sum(judgment_mean("digits, pairs (variation)", "full", b) <= min(
              judgment_mean("digits, pairs (variation)", a, b) for a in ("scoring", "averages", "copies"))
              for b in sorted(_judgments_frame().query("experiment == 'digits, pairs (variation)'")["budget"].unique())))),
          ("4", lambda: decided("digits, pairs (variation)")[0]), ("6", lambda: decided("digits, pairs (variation)")[1]),
          ("14", lambda: decided("digits, pairs (variation)")[2]),
          ("40", lambda: decided("digits, pairs (variation)")[-1]
           if decided("digits, pairs (variation)")[2:] == budgets_from("digits, pairs (variation)", 14) else float("nan")),
          *[(q, (lambda b=b, c=c: 100 * versus("digits, pairs (variation)", "averages", b, c))) for q, b, c in (
              ("63", 2, "win_rate"), ("48", 2, "low"), ("76", 2, "high"), ("62", 8, "win_rate"), ("48", 8, "low"),
              ("74", 8, "high"), ("60", 10, "win_rate"), ("46", 10, "low"), ("72", 10, "high"))],
          ("43", lambda: versus("digits, pairs (variation)", "copies", 1, "ties")),
          ("18", lambda: versus("digits, pairs (variation)", "copies", 3, "ties"))),
    quote("judgments.md", "Full wins clearly against both baselines at B = 4 and from B = 8 on (win rates of at least 74% of "
          "the splits that are not ties, intervals above one half)",
          ("4", lambda: decided("simulated")[0]), ("8", lambda: decided("simulated")[1]),
          ("74", lambda: min(100 * versus("simulated", base, b, "win_rate") for base in ("averages", "copies")
                             for b in decided("simulated")))),
    quote("judgments.md", "Scoring's mean is below Full's at 11 of 12 budgets (7.674 against 7.792 at B = 40, about three "
          "standard errors)",
          ("11", lambda: float(len(digits_budgets(lambda b: judgment_mean("digits", "scoring", b)
                                                  < judgment_mean("digits", "full", b))))),
          ("12", lambda: float(len(digits_budgets(lambda b: True)))),
          ("7.674", lambda: judgment_mean("digits", "scoring", 40)), ("7.792", lambda: judgment_mean("digits", "full", 40))),
    quote("judgments.md", "Scoring's test error is below Full's at 13 of the 15 points (one of them by less than 0.001), by "
          "the most where the training set is smallest (M = 240: 9.012 against 9.308 at m = 30, 8.703 against 8.927 at "
          "m = 40)",
          ("13", lambda: float(sum(k_against_m(t, k, "scoring") < k_against_m(t, k, "full") for t, k in K_POINTS))),
          ("15", lambda: float(len(K_POINTS))),
          ("9.012", lambda: k_against_m(240, 8, "scoring")), ("9.308", lambda: k_against_m(240, 8, "full")),
          ("30", lambda: one("judgments_experiments.csv", "n_train", experiment="k against m, M = 240", k=8,
                             algorithm="full", split=0)),
          ("8.703", lambda: k_against_m(240, 6, "scoring")), ("8.927", lambda: k_against_m(240, 6, "full")),
          ("40", lambda: one("judgments_experiments.csv", "n_train", experiment="k against m, M = 240", k=6,
                             algorithm="full", split=0))),
    quote("judgments.md", "7.897 ± 0.036 and 7.899 ± 0.033 for Full",
          ("7.897", lambda: k_against_m(480, 2, "full")), ("0.036", lambda: k_sem(480, 2, "full")),
          ("7.899", lambda: k_against_m(480, 3, "full")), ("0.033", lambda: k_sem(480, 3, "full"))),
    quote("judgments.md", "(M = 240, Full: 7.305 at k = 2, 6.263 at k = 8)",
          ("7.305", lambda: k_against_m(240, 2, "full", "training_loss")),
          ("6.263", lambda: k_against_m(240, 8, "full", "training_loss"))),
]

# the numbers a guide writes in words or from a formula, not read from a CSV, stay out of QUOTES


@pytest.mark.parametrize("q", QUOTES, ids=lambda q: q.id)
def test_quoted_numbers_match_the_stored_results(q: Quote):
    text = re.sub(r"\s+", " ", q.text)
    assert text in page(q.page), f"{q.page} no longer says {text!r}: declare the quote again as the page now has it"
    written = NUMBER.findall(text)
    for number, value in q.numbers:
        assert number.lstrip("+").replace("−", "-") in [w.replace("−", "-") for w in written] or number.lstrip("+") in written, (
            f"{number!r} is not in the quoted text {text!r}")
        actual = float(value() if callable(value) else value)
        assert agrees(number.lstrip("+"), actual), (
            f"{q.page}: {text!r} quotes {number}, the stored results give {actual:.6g}")


# -- tables -----------------------------------------------------------------------------------------
def markdown_table(page_name: str, *anchors: str) -> list[list[str]]:
    """The first table after the anchors (found one after the other), as rows of cell texts, header first."""
    text = (DOCS / page_name).read_text()
    at = 0
    for anchor in anchors:
        found = text.find(anchor, at)
        assert found >= 0, f"{page_name}: {anchor!r} not found (after the previous anchors)"
        at = found + len(anchor)
    lines = text[at:].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):
            continue
        table.append([cell.strip().replace("**", "") for cell in line.strip().strip("|").split("|")])
    return table


@dataclass(frozen=True)
class Table:
    page: str
    anchors: tuple
    expected: Callable  # () -> {(row label, column header): exact text, or the numbers of the cell in order}
    label_columns: int = 1  # how many leading cells name the row (joined by " / ")

    @property
    def id(self) -> str:
        return f"{self.page}: {self.anchors[-1][:50]}"


def markers_cells(run: str, classifier: str) -> dict:
    """Mean error over the folds, and the mean number of genes used where it is not n, per method and n."""
    frame = csv(f"markers_{run}.csv")
    means = frame[frame["classifier"] == classifier].groupby(["method", "mode", "n_requested"])[
        ["error_rate", "n_used"]].mean()
    cells = {}
    for (method, mode, n), row in means.iterrows():
        used = () if abs(row["n_used"] - n) < 1e-9 else (row["n_used"],)
        cells[(MARKER_LABELS[(method, mode)], f"n={n}")] = (row["error_rate"], *used)
    return cells


def overlap_cells(run: str) -> dict:
    table = csv(f"markers_{run}_overlap.csv").set_index("method")
    return {(a, b): (float(table.loc[a, b]),) for a in table.index for b in table.columns}


def fig2_5_cells() -> dict:
    panels = {"(a) median": "a", "(b) repeats": "b", "(c) one answer": "c"}
    frame = csv("clustering_fig2_5.csv")
    cells = {}
    for label, panel in panels.items():
        for method in frame["method"].unique():
            name = "random" if method == "Random" else method
            for x in (0.15, 0.3, 0.5, 0.6, 0.75, 1, 1.5, 2):
                part = frame[(frame["panel"] == panel) & (frame["method"] == method) & np.isclose(frame["x"], x)]
                if len(part):
                    column = f"x = {x:g}"
                    cells[(f"{label} / {name}", column)] = (float(part["error_mean"].iloc[0]),)
                    cells[(f"{label} / {name}", f"{x:g}")] = (float(part["error_mean"].iloc[0]),)
    return cells


def crowd_cells() -> dict:
    frame = csv("crowd_table3_1.csv").set_index("method")
    names = {"Dawid–Skene (training tasks)": "DS", "GLAD (training tasks)": "GLAD"}
    cells = {}
    for method in frame.index:
        label = {v: k for k, v in names.items()}.get(method, method)
        row = frame.loc[method]
        if not np.isnan(row["loglik_mean"]):
            cells[(label, "log likelihood")] = (row["loglik_mean"], row["loglik_sd"])
            cells[(label, "seed: log likelihood")] = (row["seed_loglik"], row["seed_loglik_sd"])
            cells[(label, "seed: error")] = (row["seed_error"], row["seed_error_sd"])
        cells[(label, "error")] = (row["error_mean"], row["error_sd"])
    return cells


def siamese_table_cells() -> dict:
    columns = {"Siamese network": "Siamese network", "similarity (Q̂^NOS)": "NOS",
               "RankSVM random features": "RankSVM random features", "RankSVM linear": "RankSVM linear"}
    nos = {1: NOS3_4, 2: NOS3_5, 3: NOS3_6}
    figures = {1: "fig3_4", 2: "fig3_5", 3: "fig3_6"}
    ms = {"100": 100, "1000": 1000, "10⁴": 10000, "10⁵": 100000}
    cells = {}
    for experiment in (1, 2, 3):
        frame = csv(f"ranking_{figures[experiment]}a.csv")
        for m_text, m in ms.items():
            part = frame[frame["m"] == m].set_index("method")
            if not len(part):
                continue
            label = f"{experiment}, m = {m_text}"
            siamese = part.loc["Siamese network"]
            cells[(label, "Siamese network")] = (siamese["tau_b_mean"], siamese["tau_b_std"])
            for header, method in columns.items():
                if header != "Siamese network":
                    name = nos[experiment] if method == "NOS" else method
                    if np.isfinite(part.loc[name, "tau_b_mean"]):  # random features stop at m = 10⁴: "—"
                        cells[(label, header)] = (part.loc[name, "tau_b_mean"],)
            cells[(label, "λ-regularized / BTL")] = (part.loc[LAMBDA, "tau_b_mean"], part.loc[BTL, "tau_b_mean"])
    return cells


def power_cells() -> dict:
    names = {"SPARDA, with the support rules": "SPARDA, support rules",
             "SPARDA, without them (RELAX's support)": "SPARDA, RELAX's support",
             "energy test (hyppo)": "energy (hyppo)", "MMD test (hyppo)": "MMD (hyppo)"}
    cells = {}
    for label, method in names.items():
        for d in (3, 10, 30, 100):
            cells[(label, f"d = {d}")] = (power(method, (d,)),)
    kept = rows("differences_power_rules.csv", method="SPARDA, support rules")
    for d in (3, 10, 30, 100):
        cells[("features SPARDA keeps (mean)", f"d = {d}")] = (kept[kept["d"] == d]["n_selected"].mean(),)
    return cells


def objectives_table_problems() -> list:
    """The table of every objective at 20 markers, checked for every method a row lists."""
    table = markdown_table("markers-benchmark.md", "## Every objective, both modes (PBMC)", "at 20 requested markers")
    frame = csv("markers_objectives.csv")
    frame = frame[frame["n_requested"] == 20]
    problems = []
    for label, mode, used, forest, centroids in table[1:]:
        for method in (m.split(" (")[0].strip() for m in label.split(",")):
            part = frame[(frame["method"] == method) & (frame["mode"] == mode)]
            if not len(part):
                problems.append(f"{method} ({mode}): not in markers_objectives.csv")
                continue
            for number, value in ((used, part["n_used"].mean()),
                                  (forest, part[part["classifier"] == "random_forest"]["error_rate"].mean()),
                                  (centroids, part[part["classifier"] == "nearest_centroids"]["error_rate"].mean())):
                if not agrees(number, value):
                    problems.append(f"{method} ({mode}): the page has {number}, the stored results {value:.6g}")
    return problems


def test_every_objective_table_matches_the_stored_results():
    assert not objectives_table_problems()


def table2_2_cells() -> dict:
    panels = {"(a) median of three": "a", "(b) repeats by σ̂": "b", "(c) one answer": "c"}
    methods = {"random": "Random", "S&T": "S&T", "S&T, inter.": "S&T, interleave", "IU-RED": "IU-RED",
               "IU-RED, inter.": "IU-RED, interleave"}
    cells = {}
    for label, panel in panels.items():
        for header, method in methods.items():
            row = rows("clustering_table2_2.csv", panel=panel, method=method).iloc[0]
            later = () if bool(row["stays_below"]) else (row["cost_stays_usd"],)
            cells[(label, header)] = (row["cost_usd"], *later)
    return cells


def gp_shrinkage_cells() -> dict:
    """docs/gp.md's selective-shrinkage table: S over GPC's S per amplitude and b ("—": no matched GPC)."""
    frame = csv("gp_shrinkage.csv")
    columns = {"Laplace, same K": ("laplace", "S_over_gpc_same_K"), "Laplace, matched": ("laplace", "S_over_gpc_matched"),
               "hyp. secant, same K": ("hypsecant", "S_over_gpc_same_K"),
               "hyp. secant, matched": ("hypsecant", "S_over_gpc_matched")}
    cells = {}
    for (amplitude, b), part in frame[frame["marginal"] != "gaussian (GPC)"].groupby(["amplitude", "b"]):
        label = f"{amplitude:g} / {b:g}"
        cells[(label, "slope at 0")] = (float(part["slope_at_0"].iloc[0]),)
        for header, (marginal, column) in columns.items():
            value = float(part.loc[part["marginal"] == marginal, column].iloc[0])
            cells[(label, header)] = "—" if np.isnan(value) else (value,)
    return cells


def gp_splits_cells() -> dict:
    """docs/gp.md's table of the rotamer comparison over ten further splits, from gp_splits.csv."""
    frame = csv("gp_splits.csv")
    every = frame[frame["split"] == "all"]
    labels = {"HPC, hyperbolic secant": "HPC-hypsecant", "HPC, Laplace": "HPC-laplace"}
    cells = {}
    for label, method in labels.items():
        for region in ("sparse", "dense"):
            row = every[(every["method"] == method) & (every["region"] == region)].iloc[0]
            cells[(label, f"{region}, over GPC (95 % interval)")] = (row["over_gpc"], row["ci_low"], row["ci_high"])
        row = every[(every["method"] == method) & (every["region"] == "sparse")].iloc[0]
        cells[(label, "sparse, the ten splits' means")] = (row["split_min"], row["split_max"])
    return cells


TABLES = [
    Table("markers-benchmark.md", ("### scanpy's `pbmc68k_reduced`, `bulk_labels`", "random forest"),
          lambda: markers_cells("pbmc", "random_forest")),
    Table("markers-benchmark.md", ("### scanpy's `pbmc68k_reduced`, `bulk_labels`", "Nearest centroids:"),
          lambda: markers_cells("pbmc", "nearest_centroids")),
    Table("markers-benchmark.md", ("### scanpy's `pbmc68k_reduced`, `bulk_labels`", "Genes in common"),
          lambda: overlap_cells("pbmc")),
    Table("markers-benchmark.md", ("### Synthetic counts: `make_scrna_counts(5000, 1000)`", "Random forest:"),
          lambda: markers_cells("synthetic", "random_forest")),
    Table("markers-benchmark.md", ("### PBMC (`pbmc68k_reduced`, `bulk_labels`)", "Random forest:"),
          lambda: markers_cells("pbmc-anchors", "random_forest")),
    Table("markers-benchmark.md", ("### PBMC (`pbmc68k_reduced`, `bulk_labels`)", "Nearest centroids:"),
          lambda: markers_cells("pbmc-anchors", "nearest_centroids")),
    Table("markers-benchmark.md", ("### Synthetic counts (`make_scrna_counts(5000, 1000)`)", "Random forest:"),
          lambda: markers_cells("synthetic-anchors", "random_forest")),
    Table("markers-benchmark.md", ("### Synthetic counts (`make_scrna_counts(5000, 1000)`)", "Nearest centroids:"),
          lambda: markers_cells("synthetic-anchors", "nearest_centroids")),
    Table("clustering.md", ("### Figure 2.5 and Table 2.2: a simulated crowd", "Mean error at a few x:"),
          fig2_5_cells, label_columns=2),
    Table("clustering.md", ("### Figure 2.5 and Table 2.2: a simulated crowd", "| (b) repeats | random |"),
          fig2_5_cells, label_columns=2),
    Table("clustering.md", ("### Figure 2.5 and Table 2.2: a simulated crowd", "(`clustering_table2_2.csv`)."),
          table2_2_cells),
    Table("crowd.md", ("## Table 3.1 on a simulated crowd", "Mean ± sd over 10 restarts"), crowd_cells),
    Table("ranking.md", ("### The Siamese-network baseline (§3.5.3)", "What the curves show"), siamese_table_cells),
    Table("differences.md", ("![Power against the dimension, λ by PDACV on a separate draw]",), power_cells),
    Table("gp.md", ("### Over ten further splits",), gp_splits_cells),
    Table("gp.md", ("### Selective shrinkage in classification, measured",),
          gp_shrinkage_cells, label_columns=2),
]


def fig2_2_cells() -> dict:
    """docs/clustering.md's table of Figure 2.2: mean error per separation, method and fraction of the pairs."""
    cells = {}
    for _, row in csv("clustering_fig2_2.csv").iterrows():
        separation = row["data"].split()[-1]
        method = "random" if row["method"] == "Random" else row["method"]
        cells[(f"{separation} / {method}", f"{100 * row['fraction']:g}%")] = (row["error_mean"],)
    return cells


def table2_1_cells() -> dict:
    """docs/clustering.md's Table 2.1: mean ± standard error of one step's decrease (the seed's columns are its own)."""
    names = {"digits (for pendigits)": "digits", "breast cancer": "breast_cancer"}
    cells = {}
    for _, row in csv("clustering_table2_1.csv").iterrows():
        label = {v: k for k, v in names.items()}.get(row["data"], row["data"])
        for method in ("IU-RED", "S&T"):
            cells[(label, method)] = (row[f"{method}_mean"], row[f"{method}_se"])
    return cells


def gp_fig4_3_cells() -> dict:
    """docs/gp.md's Figure 4.3 results: rates and points over GPC averaged over the residues (the seed's are its own)."""
    labels = {"HPC, hyperbolic secant": "HPC-hypsecant", "HPC, Laplace": "HPC-laplace",
              "GPC (`marginal=\"gaussian\"`)": "GPC", "scikit-learn's GPC": "sklearn-GPC"}
    columns = {"sparse": "rate_sparse", "dense": "rate_dense", "sparse, over GPC": "over_gpc_sparse",
               "dense, over GPC": "over_gpc_dense"}
    return {(label, header): (gp(method, column),) for label, method in labels.items()
            for header, column in columns.items()}


TABLES += [
    Table("clustering.md", ("### Figure 2.2: two Gaussians", "Mean error at a few fractions:"), fig2_2_cells,
          label_columns=2),
    Table("clustering.md", ("### Table 2.1: one active step", "Mean ± standard error:"), table2_1_cells),
    Table("gp.md", ("### Results", "`experiments/results/gp_fig4_3.csv`):"), gp_fig4_3_cells),
]


def differences_tuning_cells() -> dict:
    """docs/differences.md's table of RELAX's constants on the tuning draws (means over draws 100–102)."""
    labels = {"γ = 0.03, η = 3": ("step_B=0.03, step_dual=3.0",), "γ = 0.1, η = 3 (the defaults now)":
              ("step_B=0.1, step_dual=3.0",), "γ = 0.1, η = 1": ("step_B=0.1",),
              "γ = 0.3, η = 1 (the earlier defaults)": ("defaults",), "fixed dual steps (the slides')": ("adaptive=False",),
              "no burn-in / one dual step per B step": ("burn_in=0", "dual_steps=1")}
    cells = {}
    for label, variations in labels.items():
        cells[(label, "mean objective")] = tuple(tuning(v) for v in variations)
        cells[(label, "features in RELAX's support")] = tuple(tuning(v, "relax_support") for v in variations)
    return cells


def differences_report_cells() -> dict:
    """docs/differences.md's ten-draw table: mean ± sd over draws 0–9, with and without the support rules."""
    frame = csv("differences_madelon_report.csv")
    columns = {"λ chosen": "lam", "features selected": "n_selected", "relevant (of 20)": "relevant",
               "false positives": "false_positives"}
    cells = {}
    for label, support_rules in (("with the support rules", True), ("without them", False)):
        part = frame[frame["support_rules"] == support_rules]
        for header, column in columns.items():
            cells[(label, header)] = (part[column].mean(), part[column].std())
    return cells


def differences_path_cells() -> dict:
    """docs/differences.md's λ path on draw 0; each column is headed by its λ (two decimals, two digits below 0.1)."""
    cells = {}
    with_rules = rows("differences_madelon.csv", method="SPARDA")
    for _, row in with_rules.iterrows():
        lam = row["setting"]
        header = f"{lam:.2f}" if lam >= 0.095 else f"{lam:.2g}"
        without = rows("differences_madelon.csv", method="SPARDA, RELAX's support", setting=float(lam)).iloc[0]
        cells[("features selected, with the rules", header)] = (row["n_selected"],)
        cells[("features selected, without them", header)] = (without["n_selected"],)
        cells[("of them relevant (both)", header)] = (
            row["n_relevant"] if row["n_relevant"] == without["n_relevant"] else float("nan"),)
        cells[("B's top eigenvalue / trace", header)] = (row["tightness"],)
    return cells


def differences_first_run_cells() -> dict:
    """docs/differences.md's first power run: share of runs with p ≤ 0.05, pooled over the rows' ranges of d."""
    frame = csv("differences_power.csv")
    columns = {"SPARDA": "SPARDA", "SPARDA n_features=3": "SPARDA k=3", "PDA": "PDA", "Wasserstein": "Wasserstein",
               "MMD": "MMD", "DiProPerm": "DiProPerm"}
    cells = {}
    for low, high in ((3, 9), (11, 27), (33, 57), (69, 100)):
        part = frame[(frame["d"] >= low) & (frame["d"] <= high)]
        for header, method in columns.items():
            cells[(f"d = {low}–{high}", header)] = ((part[part["method"] == method]["pvalue"] <= 0.05).mean(),)
    return cells


TABLES += [
    Table("differences.md", ("## How the fit works", "`experiments/results/differences_madelon_tuning.csv`:"),
          differences_tuning_cells),
    Table("differences.md", ("**Over ten reported draws**",), differences_report_cells),
    Table("differences.md", ("**The λ path on draw 0**",), differences_path_cells),
    Table("differences.md", ("**The first run, λ = 0.5 fixed from the data's scale**",), differences_first_run_cells),
]


@pytest.mark.parametrize("t", TABLES, ids=lambda t: t.id)
def test_tables_match_the_stored_results(t: Table):
    table = markdown_table(t.page, *t.anchors)
    header, body = table[0], table[1:]
    expected = t.expected()
    checked = 0
    for row in body:
        label = " / ".join(row[: t.label_columns])
        for column, cell in zip(header[t.label_columns :], row[t.label_columns :]):
            if (label, column) not in expected:
                continue
            wanted = expected[(label, column)]
            if isinstance(wanted, str):
                assert cell == wanted, f"{t.page}, {label}, {column}: the page has {cell!r}, the stored results {wanted!r}"
            else:
                written = NUMBER.findall(cell)
                assert len(written) >= len(wanted), f"{t.page}, {label}, {column}: {cell!r} lacks numbers"
                for number, value in zip(written, wanted):
                    assert agrees(number, float(value)), (
                        f"{t.page}, {label}, {column}: the page has {number}, the stored results {float(value):.6g}")
            checked += 1
    assert checked >= len(body), f"{t.page}: only {checked} cells of {len(body)} rows matched a stored value"


# -- generated sections: the text the script writes, rendered again from the stored file ------------
def test_judgments_section_is_what_the_stored_results_give():
    """docs/judgments.md's tables between the judgments markers, rendered again from judgments_experiments.csv."""
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from experiments import judgments

    frame = pd.read_csv(RESULTS / "judgments_experiments.csv", dtype={"repeats": str})
    text = (DOCS / "judgments.md").read_text()
    begin, end = judgments.SECTION
    section = text[text.index(begin) : text.index(end)]
    for experiment in ("simulated", "simulated, small sample", "digits", "digits, pairs (variation)"):
        assert judgments.budget_table(frame, experiment) in section, f"the {experiment!r} table differs from the CSV"
        assert judgments.ordering_line(frame, experiment) in section, f"the {experiment!r} summary differs from the CSV"
    assert judgments.k_table(frame) in section, "the k-against-m table differs from the CSV"
