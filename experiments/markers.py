"""Reproductions of the runs of the marker benchmark page (``docs/markers-benchmark.md``; seed 000, §2.6).

Run with paucity's development Python from the repository root::

    python experiments/markers.py all            # the three runs of the seed's comparison
    python experiments/markers.py pbmc           # one run
    python experiments/markers.py all --quick    # 2 folds, 2 numbers of features, the synthetic data 10x smaller
    python experiments/markers.py anchors --cosg-python /path/to/cosg-venv/bin/python
                                                 # the two runs beside scanpy's t-test and COSG
    python experiments/markers.py anchors --record-only
                                                 # experiments/results/ again from the runs' folders

Runs (each through :func:`paucity.markers.benchmark.run_benchmark_adata`,
the function behind ``paucity markers-benchmark``, with its defaults: 5
stratified folds, random_state 0, both classifiers, 5 bins, the MIM prefilter of
5,000 genes, the top 100 genes for I(x_i; x_j; y)):

``pbmc``
    scanpy's ``pbmc68k_reduced`` (700 cells, 765 genes, 10 ``bulk_labels``);
    its ``.raw`` holds log-normalized values, which ``expm1`` turns back into
    normalized counts. The default methods, n = 5, 10, 20, 50.
``synthetic``
    ``make_scrna_counts(5000, 1000, random_state=0)`` (10 cell types, 300
    marker genes). The default methods, n = 5, 10, 20, 50, 100.
``objectives``
    The PBMC data with every paucity objective in both modes, the
    unsupervised ones and the random floor, n = 10, 20, 50.
``pbmc-anchors``, ``synthetic-anchors`` (``anchors`` runs both)
    The runs ``pbmc`` and ``synthetic`` with scanpy's plain t-test (its
    default method) and COSG beside the default methods. COSG runs in its own
    environment, given by ``--cosg-python`` or ``PAUCITY_COSG_PYTHON``
    (required). The folds and seeds are those of ``pbmc`` and ``synthetic``,
    so the rows of the methods they share are the same numbers.

Each run's folder (``--out``, default ``experiments/_runs/markers/``, not
kept in the repository) receives what the command line writes
(``results.csv``, ``overlap.csv``, ``runtimes.csv``, ``interactions.csv``,
``summary.md``, the figures, one JSON file per result); a rerun resumes from
it. Unless ``--quick``, what the page quotes is also written to
``experiments/results/``:

- ``markers_NAME.csv``: the tidy table (a row per method, n, fold and
  classifier: ``error_rate``, ``n_used``, ``selection_seconds``);
- ``markers_NAME_overlap.csv``: genes in common between the selections on all
  the cells (Tables 2.2–2.5);
- ``markers_NAME_runtimes.csv``: seconds of those selections (Figure 2.6);
- ``markers_NAME_interactions.csv``: I(x_i; x_j; y) over the pairs of the top
  genes, summarized (pairs, fraction negative, median, minimum, maximum;
  Figure 2.7);
- ``markers_NAME_true_markers.csv`` (synthetic data only): how many of each
  method's genes selected on all the cells are true marker genes;

and the figures of ``pbmc``, ``synthetic`` and their ``-anchors`` runs to
``docs/figures/markers-benchmark-{pbmc68k,synthetic}[-anchors]-*.png``.
Run times depend on the machine (and on what else it runs); the error rates
do not.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"
RESULTS = ROOT / "experiments" / "results"
RUNS_FOLDER = ROOT / "experiments" / "_runs" / "markers"
RANDOM_STATE = 0
ALL_OBJECTIVES = (
    "mim", "mifs", "mrmr", "jmi", "cife", "degree",
    "mim-binary", "mifs-binary", "mrmr-binary", "jmi-binary", "cife-binary", "degree-binary",
    "entropy", "entropy2", "random",
)
WITH_ANCHORS = (
    "mim", "jmi", "cife", "mim-binary", "jmi-binary", "cife-binary", "mrmr",
    "t-test", "t-test_overestim_var", "wilcoxon", "logreg", "cosg", "random_forest", "random",
)
"""The default methods with scanpy's plain t-test and COSG beside scanpy's other rankings."""


def pbmc68k():
    """scanpy's ``pbmc68k_reduced`` as counts: ``expm1`` of its log-normalized ``.raw``, with ``bulk_labels``."""
    import anndata

    from paucity.datasets import pbmc68k_reduced

    pbmc = pbmc68k_reduced()
    return anndata.AnnData(pbmc.raw.X.expm1(), obs=pbmc.obs[["bulk_labels"]], var=pbmc.raw.var[[]])


def synthetic(quick: bool = False):
    """``make_scrna_counts(5000, 1000, random_state=0)`` as an AnnData (500 x 1000 with ``--quick``)."""
    from paucity.datasets import make_scrna_counts

    return make_scrna_counts(500 if quick else 5000, 1000, random_state=RANDOM_STATE).to_anndata()


RUNS = {
    # name: (data, groupby, n_features, methods (None: the defaults), figure tag in docs/figures)
    "pbmc": (lambda quick: pbmc68k(), "bulk_labels", (5, 10, 20, 50), None, "pbmc68k"),
    "synthetic": (synthetic, "cell_type", (5, 10, 20, 50, 100), None, "synthetic"),
    "objectives": (lambda quick: pbmc68k(), "bulk_labels", (10, 20, 50), ALL_OBJECTIVES, None),
    "pbmc-anchors": (lambda quick: pbmc68k(), "bulk_labels", (5, 10, 20, 50), WITH_ANCHORS, "pbmc68k-anchors"),
    "synthetic-anchors": (synthetic, "cell_type", (5, 10, 20, 50, 100), WITH_ANCHORS, "synthetic-anchors"),
}
GROUPS = {
    "all": ("pbmc", "synthetic", "objectives"),
    "anchors": ("pbmc-anchors", "synthetic-anchors"),
}


def recorded_tables(result, marker_of=None) -> dict:
    """The tables of one run that the page quotes, by file-name suffix (see the module's docstring).

    ``marker_of`` (the synthetic data's ``var["marker_of"]``, by gene name) adds the true-marker counts.
    """
    import numpy as np
    import pandas as pd

    tables = {"": result.table}
    if result.overlap is not None:
        tables["_overlap"] = result.overlap.rename_axis("method").reset_index()
    if result.runtimes is not None:
        tables["_runtimes"] = result.runtimes
    if result.interactions is not None:
        values = result.interactions.values
        tables["_interactions"] = pd.DataFrame([{
            "pairs": values.size,
            "negative_fraction": result.interactions.negative_fraction,
            "median": float(np.median(values)),
            "minimum": float(values.min()),
            "maximum": float(values.max()),
        }])
    if marker_of is not None and result.selections is not None:
        selections = result.selections.assign(true_marker=result.selections["gene"].map(marker_of).fillna("") != "")
        tables["_true_markers"] = (selections.groupby(["method", "mode"], sort=False)
                                   .agg(selected=("gene", "size"), true_markers=("true_marker", "sum"))
                                   .reset_index())
    return tables


def record_from_folder(name: str, out: Path) -> dict:
    """Write the files of ``experiments/results/`` for a finished run from its folder, without running anything.

    For a run whose folder holds every file the benchmark writes (``results.csv``,
    ``overlap.csv``, ``runtimes.csv``, ``interactions.csv``, ``selections.csv``)
    but that cannot be resumed here (the anchors runs need COSG's environment).
    """
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from paucity import io
    from paucity.markers.benchmark.interactions import NEGATIVE_TOLERANCE

    folder = out / name
    values = pd.read_csv(folder / "interactions.csv")["interaction"].to_numpy()
    result = SimpleNamespace(
        table=pd.read_csv(folder / "results.csv"),
        overlap=pd.read_csv(folder / "overlap.csv", index_col=0),
        runtimes=pd.read_csv(folder / "runtimes.csv"),
        selections=pd.read_csv(folder / "selections.csv"),
        interactions=SimpleNamespace(values=values, negative_fraction=float(np.mean(values < -NEGATIVE_TOLERANCE))),
    )
    adata = RUNS[name][0](False)
    marker_of = adata.var.get("marker_of")
    tables = recorded_tables(result, marker_of)
    for suffix, table in tables.items():
        path = RESULTS / f"markers_{name}{suffix}.csv"
        if suffix or not path.exists():  # the tidy table the run wrote stays as it is (the folder's rows are reordered)
            io.write_csv(table, path, index=False)
    return tables


def run(name: str, out: Path, *, quick: bool = False, n_jobs: int | None = None, record: bool = True, progress: bool = True,
        cosg_python=None):
    """One run of the page: the benchmark, its figures and summary in ``out/name``; returns the result.

    With ``record`` (and not ``quick``), the tidy table also goes to
    ``experiments/results/markers_NAME.csv`` and the figures to ``docs/figures``.
    """
    from paucity import io
    from paucity.markers.benchmark import DEFAULT_METHODS, run_benchmark_adata
    from paucity.markers.benchmark.plots import report_markdown, write_figures

    make_data, groupby, n_features, methods, tag = RUNS[name]
    folder = out / (f"{name}-quick" if quick else name)
    adata = make_data(quick)
    result = run_benchmark_adata(
        adata,
        groupby,
        n_features=n_features[:2] if quick else n_features,
        n_folds=2 if quick else 5,
        methods=DEFAULT_METHODS if methods is None else methods,
        random_state=RANDOM_STATE,
        out=folder,
        n_jobs=n_jobs,
        progress=progress,
        cosg_python=cosg_python,
    )
    figures = write_figures(result, folder)
    io.write_text(report_markdown(result, figures, title=f"Marker benchmark: {name}"), folder / "summary.md")
    if record and not quick:
        marker_of = adata.var.get("marker_of")  # the synthetic data knows its markers
        for suffix, table in recorded_tables(result, marker_of).items():
            io.write_csv(table, RESULTS / f"markers_{name}{suffix}.csv", index=False)
        for figure, path in figures.items() if tag is not None else ():
            shutil.copyfile(path, FIGURES / f"markers-benchmark-{tag}-{figure.replace('_', '-')}.png")
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", default=["all"], choices=[*RUNS, *GROUPS],
                        help="which runs (default all: pbmc, synthetic, objectives; anchors: the two runs with COSG)")
    parser.add_argument("--out", type=Path, default=RUNS_FOLDER, help="folder of the run folders (a rerun resumes)")
    parser.add_argument("--quick", action="store_true", help="2 folds, 2 numbers of features, 500 synthetic cells")
    parser.add_argument("--record-only", action="store_true",
                        help="write experiments/results/ from the runs' folders without running (e.g. the anchors "
                        "runs where COSG's environment is not at hand)")
    parser.add_argument("--n-jobs", type=int, default=None, help="threads (the results do not depend on it)")
    parser.add_argument("--cosg-python", default=None,
                        help="the Python of a virtual environment with cosg installed, for the anchors runs "
                        "(default: $PAUCITY_COSG_PYTHON)")
    args = parser.parse_args(argv)
    names = list(dict.fromkeys(name for run_name in args.runs for name in GROUPS.get(run_name, (run_name,))))
    from paucity.markers.benchmark.plots import error_table

    if args.record_only:
        for name in names:
            record_from_folder(name, args.out)
            print(f"wrote experiments/results/markers_{name}*.csv from {args.out / name}")
        return
    for name in names:
        result = run(name, args.out, quick=args.quick, n_jobs=args.n_jobs, cosg_python=args.cosg_python)
        for classifier in result.table["classifier"].unique():
            print(f"\n{name}, {classifier.replace('_', ' ')}: mean error over {result.table['fold'].nunique()} folds")
            print(error_table(result.table, classifier).to_string())
        if result.interactions is not None:
            print(f"I(x_i; x_j; y) < 0 for {100 * result.interactions.negative_fraction:.1f}% of "
                  f"{result.interactions.values.size} pairs")


if __name__ == "__main__":
    main()
