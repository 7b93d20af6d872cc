"""Figures and the report of the marker benchmark (seed 000, §2.6).

- :func:`plot_error_curves`: error rate against the number of markers, one
  figure per classifier (the seed's Figures 2.2-2.5 with random forests,
  2.8-2.11 with nearest centroids): multiclass information methods on the
  left, binary ones on the right, the other methods on both.
- :func:`plot_runtimes`: seconds to select on all the cells (Figure 2.6).
- :func:`plot_interactions`: the histogram of I(x_i; x_j; y) (Figure 2.7).
- :func:`write_figures` and :func:`report_markdown`: all of them as PNG files
  and a markdown summary, written atomically.

Figures are drawn on :class:`matplotlib.figure.Figure` objects with the Agg
canvas, never through pyplot, so nothing opens a window or touches global
state.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .methods import INFORMATION_METHODS, method_label
from .results import BenchmarkResult, summarize

__all__ = ["plot_error_curves", "plot_runtimes", "plot_interactions", "write_figures", "error_table", "report_markdown"]

_CLASSIFIER_TITLES = {"random_forest": "random forest", "nearest_centroids": "nearest centroids"}


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


_BASELINE_COLORS = {
    "t-test": "#7f7f7f",
    "t-test_overestim_var": "#4d4d4d",
    "wilcoxon": "#8c564b",
    "logreg": "#17becf",
    "cosg": "#6a3d9a",
    "random_forest": "#bcbd22",
    "random": "#000000",
}


def _colors(keys):
    """One colour per method name: an objective has the same colour in both modes (panels)."""
    from matplotlib import colormaps

    palette = list(colormaps["tab10"].colors)
    palette = [c for i, c in enumerate(palette) if i not in (5, 7, 8, 9)] + list(colormaps["Dark2"].colors)
    colors, names = {}, list(dict.fromkeys(name for name, _ in keys if name not in _BASELINE_COLORS))
    for name, mode in keys:
        colors[(name, mode)] = _BASELINE_COLORS.get(name) or palette[names.index(name) % len(palette)]
    return colors


def plot_error_curves(table: pd.DataFrame, classifier: str, *, title: str | None = None):
    """Mean cross-validated error rate against the number of markers used.

    Parameters
    ----------
    table : pandas.DataFrame
        The tidy table of :func:`~paucity.markers.benchmark.run_benchmark`.
    classifier : {"random_forest", "nearest_centroids"}
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Left: multiclass information methods; right: binary information
        methods (when there are any); the other methods (scanpy's, random
        forest importance, random, your own) dashed on both. The x position
        is the mean number of markers used over the folds (Remark 1).

    Notes
    -----
    Seed 000, Figures 2.2-2.5 (random forest) and 2.8-2.11 (nearest centroids).

    Examples
    --------
    >>> import pandas as pd
    >>> from paucity.markers.benchmark.plots import plot_error_curves
    >>> table = pd.DataFrame({"method": ["mim", "mim", "random", "random"], "mode": ["multiclass"] * 4,
    ...     "n_requested": [5, 10, 5, 10], "n_used": [5, 10, 5, 10], "fold": [0] * 4,
    ...     "classifier": ["random_forest"] * 4, "error_rate": [0.3, 0.2, 0.6, 0.5], "selection_seconds": [0.1] * 4})
    >>> len(plot_error_curves(table, "random_forest").axes)
    1
    """
    summary = summarize(table[table["classifier"] == classifier])
    keys = list(dict.fromkeys(zip(summary["method"], summary["mode"])))
    colors = _colors(keys)
    info_multi = [k for k in keys if k[0] in INFORMATION_METHODS and k[1] == "multiclass"]
    info_binary = [k for k in keys if k[0] in INFORMATION_METHODS and k[1] == "binary"]
    others = [k for k in keys if k[0] not in INFORMATION_METHODS]
    panels = [("multiclass information methods", info_multi)]
    if info_binary:
        panels.append(("binary information methods", info_binary))
    fig = _figure(5.2 * len(panels) + 1.6, 4.2)
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (panel_title, own) in zip(axes, panels):
        for key in own + others:
            rows = summary[(summary["method"] == key[0]) & (summary["mode"] == key[1])].sort_values("n_requested")
            dashed = key in others
            ax.errorbar(
                rows["n_used"],
                rows["error_rate"],
                yerr=rows["error_sd"],
                label=method_label(*key),
                color=colors[key],
                marker="." if dashed else ("s" if key[1] == "binary" else "o"),
                markersize=4,
                linestyle="--" if dashed else "-",
                linewidth=1.2 if dashed else 1.8,
                capsize=2,
                elinewidth=0.6,
            )
        ax.set_xscale("log")
        ticks = sorted(set(summary["n_requested"].tolist()))
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel("markers used (mean over folds)")
        ax.set_title(panel_title, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("error rate (mean ± sd over folds)")
    axes[0].set_ylim(bottom=0)
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    fig.legend(handles, labels, loc="outside right center", fontsize=8, frameon=False)
    n_folds = table["fold"].nunique()
    fig.suptitle(title or f"{_CLASSIFIER_TITLES.get(classifier, classifier)}: error over {n_folds} fold(s)", fontsize=11)
    return fig


def plot_runtimes(runtimes: pd.DataFrame, *, title: str | None = None):
    """Seconds each method took to select its markers on all the cells.

    Parameters
    ----------
    runtimes : pandas.DataFrame
        :attr:`~paucity.markers.benchmark.BenchmarkResult.runtimes`.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Seed 000, Figure 2.6; times of the bivariate methods include their MIM
    prefilter, as the seed's do.

    Examples
    --------
    >>> import pandas as pd
    >>> from paucity.markers.benchmark.plots import plot_runtimes
    >>> times = pd.DataFrame({"method": ["mim", "cife"], "mode": ["multiclass", "binary"],
    ...                       "n_requested": [50, 50], "n_used": [50, 41], "selection_seconds": [0.01, 0.03]})
    >>> [label.get_text() for label in plot_runtimes(times).axes[0].get_yticklabels()]
    ['MIM', 'CIFE (B)']
    """
    labels = [method_label(m, mode) for m, mode in zip(runtimes["method"], runtimes["mode"])]
    seconds = runtimes["selection_seconds"].to_numpy()
    fig = _figure(6.0, 0.32 * len(labels) + 1.2)
    ax = fig.subplots()
    positions = np.arange(len(labels))
    ax.barh(positions, seconds, color="#4c72b0")
    ax.set_yticks(positions, labels, fontsize=8)
    ax.invert_yaxis()
    for y, value in zip(positions, seconds):
        ax.text(value, y, f" {value:.2f}", va="center", fontsize=7)
    ax.set_xlabel("seconds")
    ax.set_xlim(0, max(seconds.max() * 1.18, 1e-3) if len(seconds) else 1)
    n = int(runtimes["n_requested"].max()) if len(runtimes) else 0
    ax.set_title(title or f"time to select {n} markers on all the cells", fontsize=10)
    return fig


def plot_interactions(interactions, *, title: str | None = None):
    """Histogram of I(x_i; x_j; y) over the pairs of top features.

    Parameters
    ----------
    interactions : PairInteractions
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        The negative part (synergy, where Corollary 2.14's hypothesis fails)
        is drawn in another colour; the title gives its fraction.

    Notes
    -----
    Seed 000, Figure 2.7.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark import pair_interactions
    >>> from paucity.markers.benchmark.plots import plot_interactions
    >>> x1, x2 = np.tile([0, 0, 1, 1], 25), np.tile([0, 1, 0, 1], 25)
    >>> plot_interactions(pair_interactions(np.column_stack([x1, x2]), x1 ^ x2, n_bins=None)).axes[0].get_title()
    '1 pairs of the top 2 genes by I(x; y): 100.0% negative'
    """
    values = interactions.values
    fig = _figure(6.0, 3.6)
    ax = fig.subplots()
    if values.size:
        low, high = float(min(values.min(), 0.0)), float(max(values.max(), 0.0))
        bins = np.linspace(low, high if high > low else low + 1.0, 61)
        counts, edges = np.histogram(values, bins=bins)
        centers = 0.5 * (edges[:-1] + edges[1:])
        colors = np.where(centers < 0, "#c44e52", "#4c72b0")
        ax.bar(centers, counts, width=np.diff(edges), color=colors, align="center")
        ax.set_yscale("symlog", linthresh=10)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("I(x_i; x_j; y)  (bits)")
    ax.set_ylabel("pairs")
    n_top = interactions.features.shape[0]
    fraction = interactions.negative_fraction
    ax.set_title(
        title or f"{values.size} pairs of the top {n_top} genes by I(x; y): {100 * fraction:.1f}% negative",
        fontsize=10,
    )
    return fig


def write_figures(result: BenchmarkResult, out, *, dpi: int = 110, prefix: str = "") -> dict:
    """Draw every figure of a benchmark result and write them as PNG files into ``out``.

    Parameters
    ----------
    result : BenchmarkResult
    out : str or path-like
        An existing folder.
    dpi : int, default=110
    prefix : str, default=""
        Prepended to the file names.

    Returns
    -------
    dict
        Figure name -> path: ``errors_random_forest``,
        ``errors_nearest_centroids`` (each classifier run), and, when the
        result has them, ``runtimes`` and ``interactions``.

    Notes
    -----
    Seed 000, Figures 2.2-2.11. Written with :func:`paucity.io.write_figure`
    (atomically).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from paucity.datasets import make_scrna_counts
    >>> from paucity.markers.benchmark import run_benchmark
    >>> from paucity.markers.benchmark.plots import report_markdown, write_figures
    >>> data = make_scrna_counts(n_cells=150, n_genes=40, n_types=3, n_markers=12, random_state=0)
    >>> result = run_benchmark(data.X, data.labels, n_features=[2, 4], n_folds=3, methods=["mim", "random"],
    ...                        classifiers=["nearest_centroids"], n_top=10)
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> sorted(write_figures(result, folder))
    ['errors_nearest_centroids', 'interactions', 'runtimes']
    >>> report_markdown(result).splitlines()[0]
    '# Marker benchmark'
    """
    from ...io import write_figure

    out = Path(out)
    paths = {}
    figures = {}
    for classifier in result.table["classifier"].unique():
        figures[f"errors_{classifier}"] = plot_error_curves(result.table, classifier)
    if result.runtimes is not None:
        figures["runtimes"] = plot_runtimes(result.runtimes)
    if result.interactions is not None:
        figures["interactions"] = plot_interactions(result.interactions)
    for name, fig in figures.items():
        path = out / f"{prefix}{name}.png"
        write_figure(fig, path, dpi=dpi)
        paths[name] = path
    return paths


def _markdown_table(frame: pd.DataFrame, index_name: str | None = None) -> list[str]:
    columns = [index_name or frame.index.name or ""] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * len(frame.columns)]
    for label, *values in frame.itertuples(name=None):  # itertuples keeps each column's type
        lines.append("| " + " | ".join([str(label)] + [str(v) for v in values]) + " |")
    return lines


def error_table(table: pd.DataFrame, classifier: str) -> pd.DataFrame:
    """Mean error rate per method (rows) and number of markers requested (columns), as text cells.

    Each cell reads ``0.123`` or, when binary methods used another number of
    markers on average, ``0.123 (n=8.4)``.
    """
    summary = summarize(table[table["classifier"] == classifier])
    keys = list(dict.fromkeys(zip(summary["method"], summary["mode"])))
    ns = sorted(summary["n_requested"].unique().tolist())
    cells = {}
    for key in keys:
        rows = summary[(summary["method"] == key[0]) & (summary["mode"] == key[1])].set_index("n_requested")
        row = []
        for n in ns:
            if n not in rows.index:
                row.append("")
                continue
            used = rows.loc[n, "n_used"]
            text = f"{rows.loc[n, 'error_rate']:.3f}"
            if abs(used - n) > 1e-9:
                text += f" (n={used:.3g})"
            row.append(text)
        cells[method_label(*key)] = row
    return pd.DataFrame.from_dict(cells, orient="index", columns=[f"n={n}" for n in ns])


def report_markdown(result: BenchmarkResult, figures: dict | None = None, *, title: str = "Marker benchmark") -> str:
    """A markdown summary of a benchmark: error tables, figures, genes in common, run times, I(x_i; x_j; y).

    Parameters
    ----------
    result : BenchmarkResult
    figures : dict, optional
        Figure name -> path, as returned by :func:`write_figures`; linked by
        file name.
    title : str

    Returns
    -------
    str
    """
    figures = figures or {}
    table = result.table
    lines = [f"# {title}", ""]
    n_folds = table["fold"].nunique()
    lines.append(
        f"{len(table)} results: {len(set(zip(table['method'], table['mode'])))} methods x {len(result.n_features)} marker counts x "
        f"{n_folds} fold(s) of {result.folds.n_folds} x {table['classifier'].nunique()} classifier(s). "
        "Mean error rate over folds (markers actually used in brackets when they differ from n)."
    )
    for classifier in table["classifier"].unique():
        lines += ["", f"## {_CLASSIFIER_TITLES.get(classifier, classifier).capitalize()}", ""]
        lines += _markdown_table(error_table(table, classifier), "method")
        name = f"errors_{classifier}"
        if name in figures:
            lines += ["", f"![{name}]({Path(figures[name]).name})"]
    if result.overlap is not None:
        lines += ["", f"## Genes in common ({max(result.n_features)} markers, all cells)", ""]
        lines += _markdown_table(result.overlap, "")
    if result.runtimes is not None:
        lines += ["", "## Run times (all cells)", ""]
        times = result.runtimes.assign(method=[method_label(m, mode) for m, mode in zip(result.runtimes["method"], result.runtimes["mode"])])
        times = times.set_index("method")[["n_used", "selection_seconds"]].round({"selection_seconds": 3})
        lines += _markdown_table(times, "method")
        if "runtimes" in figures:
            lines += ["", f"![runtimes]({Path(figures['runtimes']).name})"]
    anchors = [m for m in result.methods if m.family == "anchor" and getattr(m.select, "versions", None)]
    for method in anchors:
        versions = ", ".join(f"{k} {v}" for k, v in method.select.versions.items())
        lines += ["", f"{method.label} ran in its own environment ({versions}); its seconds are those its process "
                  "measured around the normalization and the selection, without that process's start-up."]
    if result.interactions is not None:
        inter = result.interactions
        lines += [
            "",
            "## I(x_i; x_j; y) over pairs of top genes",
            "",
            f"{inter.values.size} pairs of the top {inter.features.shape[0]} genes by I(x; y): "
            f"{100 * inter.negative_fraction:.1f}% negative (CIFE's guarantee, Corollary 2.14, needs none); "
            f"median {np.median(inter.values) if inter.values.size else float('nan'):.4f} bits, "
            f"min {inter.values.min() if inter.values.size else float('nan'):.4f}, "
            f"max {inter.values.max() if inter.values.size else float('nan'):.4f}.",
        ]
        if "interactions" in figures:
            lines += ["", f"![interactions]({Path(figures['interactions']).name})"]
    return "\n".join(lines) + "\n"
