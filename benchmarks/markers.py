"""Marker selection benchmark: paucity beside PicturedRocks on synthetic counts.

Run with paucity's development Python from the repository root::

    python benchmarks/markers.py                                  # default sizes
    python benchmarks/markers.py --sizes 20000x2000,50000x5000 \
        --anchor-python /path/to/picturedrocks-venv/bin/python
    python benchmarks/markers.py --memory                         # peak RSS, 200,000 x 5,000
    python benchmarks/markers.py --anchors \
        --cosg-python /path/to/cosg-venv/bin/python                # beside scanpy's rankings and COSG

For every size the data come from :func:`paucity.datasets.make_scrna_counts`
with a fixed seed and are saved under ``benchmarks/_data/`` (git-ignored) so
that the anchor reads exactly the same matrix. paucity is warmed on a tiny fit
(numba compilation is not timed), then ``paucity.info.discretize`` and
``InfoSelector(method, n_bins=None).fit`` are timed in this process;
PicturedRocks runs in a subprocess (``benchmarks/_picturedrocks_runner.py``)
with the anchor's own interpreter, given by ``--anchor-python`` or the
environment variable ``PAUCITY_ANCHOR_PYTHON`` (skipped with a message when
neither is set). The results are printed and written to ``docs/benchmarks.md``
between ``<!-- markers:begin -->`` and ``<!-- markers:end -->`` (or, for
``--memory``, ``<!-- memory:begin -->`` and ``<!-- memory:end -->``); the rest
of that file is kept.

``--anchors`` compares paucity's objectives with what a scanpy user would pick
instead, at the same sizes: scanpy's ``rank_genes_groups`` (t-test, t-test with
overestimated variance, Wilcoxon, logistic regression) and COSG, through the
cross-validation protocol of ``paucity markers-benchmark``
(:func:`paucity.markers.benchmark.run_benchmark`): the classification error of
each method's markers on held-out cells, and the seconds each takes to select
the largest number of markers on all the cells. COSG runs in its own
environment, given by ``--cosg-python`` or ``PAUCITY_COSG_PYTHON`` (required in
this mode). Every (fold, method, n) result is kept under
``benchmarks/_data/markers-anchors/`` (``--runs``), so an interrupted run
resumes. The tables go between ``<!-- markers-anchors:begin -->`` and
``<!-- markers-anchors:end -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "benchmarks" / "_data"
RUNNER = ROOT / "benchmarks" / "_picturedrocks_runner.py"
REPORT = ROOT / "docs" / "benchmarks.md"
SEED = 0
N_BINS = 5
PREFILTER = 5000
DEFAULT_SIZES = "20000x2000,50000x5000"
MEMORY_SIZE = "200000x5000"
METHODS = ("mim", "jmi", "cife")
REPEATS = 3  # paucity's timings are the best of this many runs (the anchor runs once: minutes per run)
MARKERS_SECTION = ("<!-- markers:begin -->", "<!-- markers:end -->")
MEMORY_SECTION = ("<!-- memory:begin -->", "<!-- memory:end -->")
ANCHORS_SECTION = ("<!-- markers-anchors:begin -->", "<!-- markers-anchors:end -->")
ANCHORS_RUNS = DATA_DIR / "markers-anchors"
ANCHORS_COMPARED = (
    "mim", "jmi", "cife", "mim-binary", "jmi-binary", "cife-binary", "mrmr",
    "t-test", "t-test_overestim_var", "wilcoxon", "logreg", "cosg", "random",
)
"""The guide's comparison without random-forest importance (minutes per fold at these sizes), with scanpy's plain
t-test (its default method) and COSG."""
ANCHORS_N_FEATURES = "10,20,50"
ANCHORS_N_FOLDS = 3
REPORT_HEADER = """# Benchmarks

Side-by-side runs of paucity against the anchors users would otherwise use.
Every figure on this page is written by a script under `benchmarks/`; rerun
it to refresh its section. Timings are wall-clock seconds of single runs after
JIT warm-up, so they depend on the machine listed with each table.
"""


# ---------------------------------------------------------------- helpers

#: How the page names each classifier.
_CLASSIFIER_WORDS = {"nearest_centroids": "a nearest-centroid classifier", "random_forest": "a random forest"}


def parse_size(text: str) -> tuple[int, int]:
    try:
        cells, genes = text.lower().split("x")
        return int(cells), int(genes)
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r} is not of the form CELLSxGENES, e.g. 20000x2000") from None


def parse_sizes(text: str) -> list[tuple[int, int]]:
    return [parse_size(part.strip()) for part in text.split(",") if part.strip()]


def parse_methods(text: str) -> list[str]:
    methods = [m.strip().lower() for m in text.split(",") if m.strip()]
    bad = [m for m in methods if m not in METHODS]
    if bad or not methods:
        raise argparse.ArgumentTypeError(f"unknown method(s) {bad}; choose among {', '.join(METHODS)}")
    return methods


def data_path(n_cells: int, n_genes: int) -> Path:
    return DATA_DIR / f"scrna_{n_cells}x{n_genes}_seed{SEED}.npz"


def make_data(n_cells: int, n_genes: int):
    """Generate the synthetic counts and save them for the anchor; return (X, labels, seconds)."""
    from paucity.datasets import make_scrna_counts

    t0 = time.perf_counter()
    data = make_scrna_counts(n_cells=n_cells, n_genes=n_genes, random_state=SEED)
    seconds = time.perf_counter() - t0
    # Always rewritten, so the anchor never reads a file made by an older generator.
    path = data_path(n_cells, n_genes)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".partial.npz")
    X = data.X
    np.savez(tmp, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.asarray(X.shape), labels=data.labels)
    os.replace(tmp, path)
    return X, data.labels, seconds


def load_data(path: Path):
    with np.load(path) as f:
        X = sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(int(s) for s in f["shape"]))
        labels = np.asarray(f["labels"], dtype=np.int64)
    return X, labels


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "unknown"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = f"{int(line.split()[1]) / 2**20:.1f} GiB"
                    break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {"cpu": cpu, "cores": cores, "memory": memory, "os": f"{platform.system()} {platform.release()}"}


def our_versions() -> dict:
    import numba

    return {
        "python": platform.python_version(),
        "paucity": package_version("paucity"),
        "numpy": np.__version__,
        "scipy": package_version("scipy"),
        "numba": package_version("numba"),
        "scanpy": package_version("scanpy"),
        "numba threads": str(numba.get_num_threads()),
    }


def write_section(markers: tuple[str, str], body: str, path: Path = REPORT) -> None:
    """Replace the text between the two markers of path (atomically), keeping the rest."""
    begin, end = markers
    block = f"{begin}\n{body.rstrip()}\n{end}"
    text = path.read_text() if path.exists() else REPORT_HEADER
    if begin in text and end in text and text.index(begin) < text.index(end):
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".benchmarks.", delete=False) as tmp:
        tmp.write(text)
    os.replace(tmp.name, path)


def fmt_seconds(value) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def versions_line(versions: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in versions.items())


# ---------------------------------------------------------------- paucity side


def warm_paucity(methods) -> None:
    from paucity.datasets import make_scrna_counts
    from paucity.info import discretize
    from paucity.markers import InfoSelector

    tiny = make_scrna_counts(n_cells=300, n_genes=60, n_types=3, n_markers=9, random_state=1)
    Xd = discretize(tiny.X, n_bins=N_BINS)
    for method in methods:
        InfoSelector(method=method, n_features=5, n_bins=None, prefilter=PREFILTER).fit(Xd, tiny.labels)


def time_paucity(X, labels, methods, n_features: int, repeats: int = REPEATS) -> dict:
    """Best of ``repeats`` runs of the discretization and of each method's selection."""
    from paucity.info import discretize
    from paucity.markers import InfoSelector

    discretize_seconds = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        Xd = discretize(X, n_bins=N_BINS)
        discretize_seconds = min(discretize_seconds, time.perf_counter() - t0)
    select_seconds, selected = {}, {}
    for method in methods:
        select_seconds[method] = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            selector = InfoSelector(method=method, n_features=n_features, n_bins=None, prefilter=PREFILTER)
            selector.fit(Xd, labels)
            select_seconds[method] = min(select_seconds[method], time.perf_counter() - t0)
        selected[method] = [int(i) for i in selector.selected_]
    return {"discretize": discretize_seconds, "select": select_seconds, "selected": selected}


def time_scanpy_ttest(X, labels) -> float | None:
    """Seconds of scanpy's t-test ranking on the same cells (log1p of counts per 10,000; not timed)."""
    try:
        import anndata
        import pandas as pd
        import scanpy as sc
    except ImportError:
        return None
    adata = anndata.AnnData(X.copy(), obs=pd.DataFrame({"cell_type": pd.Categorical(labels.astype(str))}))
    sc.pp.normalize_total(adata, target_sum=1e4)
    sc.pp.log1p(adata)
    t0 = time.perf_counter()
    sc.tl.rank_genes_groups(adata, "cell_type", method="t-test")
    return time.perf_counter() - t0


# ---------------------------------------------------------------- anchor side


def run_anchor(anchor_python: str, path: Path, methods, n_features: int) -> dict | None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "anchor.json"
        command = [
            anchor_python,
            str(RUNNER),
            str(path),
            str(out),
            "--n-features",
            str(n_features),
            "--n-bins",
            str(N_BINS),
            "--methods",
            ",".join(methods),
        ]
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        completed = subprocess.run(command, capture_output=True, text=True, env=env)
        if completed.returncode != 0:
            print(f"anchor run failed (exit {completed.returncode}):\n{completed.stderr[-3000:]}", file=sys.stderr)
            return None
        return json.loads(out.read_text())


# ---------------------------------------------------------------- the two benchmarks


def benchmark_sizes(sizes, methods, n_features: int, anchor_python: str | None) -> str:
    print("warming paucity (and scanpy) ...", flush=True)
    warm_paucity(methods)
    from paucity.datasets import make_scrna_counts

    tiny = make_scrna_counts(n_cells=300, n_genes=60, n_types=3, n_markers=9, random_state=1)
    time_scanpy_ttest(tiny.X, tiny.labels)
    rows = []
    anchor_versions = None
    notes = []
    ttests = []
    for n_cells, n_genes in sizes:
        print(f"\n== {n_cells} x {n_genes}: generating (seed {SEED}) ...", flush=True)
        X, labels, gen_seconds = make_data(n_cells, n_genes)
        density = X.nnz / (n_cells * n_genes)
        print(f"   generated in {gen_seconds:.2f} s, {X.nnz} non-zeros ({density:.1%})", flush=True)
        ours = time_paucity(X, labels, methods, n_features)
        print(f"   paucity discretize {ours['discretize']:.2f} s; select " + ", ".join(
            f"{m} {s:.2f} s" for m, s in ours["select"].items()), flush=True)
        ttest = time_scanpy_ttest(X, labels)
        if ttest is not None:
            print(f"   scanpy rank_genes_groups t-test {ttest:.2f} s", flush=True)
            ttests.append((f"{n_cells:,} × {n_genes:,}", ttest, {m: ours["discretize"] + ours["select"][m] for m in methods}))
        anchor = None
        if anchor_python:
            print("   running PicturedRocks ...", flush=True)
            anchor = run_anchor(anchor_python, data_path(n_cells, n_genes), methods, n_features)
            if anchor is not None:
                anchor_versions = anchor["versions"]
                print(f"   PicturedRocks discretize {anchor['discretize_seconds']['discretize']:.2f} s; select "
                      + ", ".join(f"{m} {s:.2f} s" for m, s in anchor["select_seconds"].items()), flush=True)
            else:
                notes.append(f"PicturedRocks failed on {n_cells:,} × {n_genes:,}.")
        for method in methods:
            ours_total = ours["discretize"] + ours["select"][method]
            row = {
                "size": f"{n_cells:,} × {n_genes:,}",
                "method": method,
                "discretize": ours["discretize"],
                "select": ours["select"][method],
                "total": ours_total,
                "anchor_discretize": None,
                "anchor_select": None,
                "anchor_total": None,
                "ratio": None,
                "same_rank_20": None,
                "shared": None,
            }
            if anchor is not None:
                a_disc = anchor["discretize_seconds"]["discretize"]
                a_sel = anchor["select_seconds"][method]
                mine, theirs = ours["selected"][method], anchor["selected"][method]
                k = min(20, len(mine), len(theirs))
                row.update(
                    anchor_discretize=a_disc,
                    anchor_select=a_sel,
                    anchor_total=a_disc + a_sel,
                    ratio=(a_disc + a_sel) / ours_total,
                    same_rank_20=sum(mine[i] == theirs[i] for i in range(k)),
                    shared=len(set(mine) & set(theirs)),
                )
            rows.append(row)

    header = (
        "| size (cells × genes) | method | paucity discretize (s) | paucity select (s) | paucity end-to-end (s) "
        "| PicturedRocks discretize (s) | PicturedRocks select (s) | PicturedRocks end-to-end (s) "
        f"| speed-up (anchor / paucity) | same rank, first 20 | shared of {n_features} |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    lines = [header]
    for r in rows:
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.1f}×"
        same = "—" if r["same_rank_20"] is None else f"{r['same_rank_20']}/20"
        shared = "—" if r["shared"] is None else str(r["shared"])
        lines.append(
            f"| {r['size']} | {r['method']} | {fmt_seconds(r['discretize'])} | {fmt_seconds(r['select'])} "
            f"| {fmt_seconds(r['total'])} | {fmt_seconds(r['anchor_discretize'])} | {fmt_seconds(r['anchor_select'])} "
            f"| {fmt_seconds(r['anchor_total'])} | {ratio} | {same} | {shared} |"
        )
    table = "\n".join(lines)
    if ttests:
        table += (
            "\n\nFor scale, scanpy's differential-expression ranking of the same cells "
            "(`sc.tl.rank_genes_groups(adata, 'cell_type', method='t-test')` after `normalize_total` and `log1p`, "
            "which are not timed), beside paucity end to end. These are warm calls: scanpy's first call in a "
            "process also compiles its kernels and takes several times longer.\n\n"
            "| size (cells × genes) | scanpy t-test (s) | "
            + " | ".join(f"paucity {m} end-to-end (s)" for m in methods)
            + " |\n| --- | ---: |"
            + " ---: |" * len(methods)
        )
        for size, seconds, totals in ttests:
            table += f"\n| {size} | {fmt_seconds(seconds)} | " + " | ".join(fmt_seconds(totals[m]) for m in methods) + " |"
    print("\n" + table)

    m = machine()
    body = [
        "## Marker selection: paucity vs PicturedRocks",
        "",
        f"Synthetic negative-binomial counts from `paucity.datasets.make_scrna_counts(n_cells, n_genes, "
        f"random_state={SEED})` (10 cell types, 300 marker genes, 12% non-zero). "
        f"{n_features} features per method, {N_BINS} recursive-quantile bins, `prefilter={PREFILTER}`. "
        "paucity: `paucity.info.discretize(X, n_bins=5)` on the sparse matrix, then "
        "`InfoSelector(method, n_bins=None).fit(Xd, y)`; the discretization is shared by the three methods "
        "and counted in each end-to-end time. PicturedRocks 1.0.2: `X.toarray()`, `quantile_discretize`, "
        "`SparseInformationSet` (its discretize column), then the selector and `autoselect(1)` "
        f"{n_features} times. Both JIT-warmed on a tiny matrix first. paucity's times are the best of "
        f"{REPEATS} runs (a run takes seconds, so one stray background task can double it); PicturedRocks "
        "runs once (minutes per run).",
        "",
        table,
        "",
        "*same rank, first 20*: positions among the first 20 where both chose the same gene; "
        f"*shared of {n_features}*: genes in both selections. Differences come from the discretizations "
        "(compare `tests/fixtures/`) and from ties between equal scores.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} memory, {m['os']}.  ",
        f"paucity side: {versions_line(our_versions())}.  ",
    ]
    if anchor_versions:
        body.append(f"PicturedRocks side: {versions_line(anchor_versions)}.")
    else:
        body.append("PicturedRocks was not run (no anchor interpreter given).")
    body.append("")
    body.append(f"Command: `python benchmarks/markers.py --sizes {','.join(f'{c}x{g}' for c, g in sizes)} "
                "--anchor-python $PAUCITY_ANCHOR_PYTHON`.")
    body.extend(notes)
    return "\n".join(body)


def anchor_versions_lines(result) -> list[str]:
    """The versions of the anchors' own environments (COSG), from the resolved methods."""
    lines = []
    for method in result.methods:
        versions = getattr(method.select, "versions", None)
        if method.family == "anchor" and versions:
            lines.append(f"{method.label} side: {versions_line(versions)}.  ")
    return lines


def benchmark_anchors(sizes, cosg_python: str, n_features, n_folds: int, classifiers, runs: Path, n_jobs=None) -> str:
    """Cross-validated error and selection seconds of paucity's objectives, scanpy's rankings and COSG, per size."""
    from paucity.markers.benchmark import run_benchmark
    from paucity.markers.benchmark.methods import method_label
    from paucity.markers.benchmark.plots import _markdown_table, error_table

    sizes_text = [f"{c:,} × {g:,}" for c, g in sizes]
    times, errors, result = {}, [], None
    for (n_cells, n_genes), size in zip(sizes, sizes_text):
        print(f"\n== {size}: generating (seed {SEED}) ...", flush=True)
        from paucity.datasets import make_scrna_counts

        data = make_scrna_counts(n_cells=n_cells, n_genes=n_genes, random_state=SEED)
        X, labels, markers = data.X, data.labels, set(np.concatenate(data.marker_genes).tolist())
        out = runs / f"{n_cells}x{n_genes}_seed{SEED}"
        print(f"   {n_folds} folds, n = {', '.join(map(str, n_features))}; results kept in {out}", flush=True)
        t0 = time.perf_counter()
        result = run_benchmark(
            X, labels, n_features=n_features, n_folds=n_folds, methods=list(ANCHORS_COMPARED),
            classifiers=classifiers, random_state=SEED, out=out, n_jobs=n_jobs, progress=True, cosg_python=cosg_python,
        )
        print(f"   {time.perf_counter() - t0:.0f} s (results read back from {out} are not recomputed)", flush=True)
        picks = result.selections
        for method, mode, seconds in result.runtimes[["method", "mode", "selection_seconds"]].itertuples(index=False):
            chosen = picks.loc[(picks["method"] == method) & (picks["mode"] == mode), "feature_index"].tolist()
            hits = f"{len(markers.intersection(chosen))}/{len(chosen)}"
            times.setdefault(method_label(method, mode), {})[size] = (seconds, hits)
        for classifier in classifiers:
            table = error_table(result.table, classifier)
            errors.append((size, classifier, table))
            print(f"\n{size}, {classifier.replace('_', ' ')}:\n{table.to_string()}", flush=True)

    time_lines = ["| method | " + " | ".join(f"{size}: seconds | true markers" for size in sizes_text) + " |",
                  "| --- |" + " ---: | ---: |" * len(sizes)]
    for label, row in times.items():
        cells = [(fmt_seconds(row[size][0]), row[size][1]) if size in row else ("—", "—") for size in sizes_text]
        time_lines.append(f"| {label} | " + " | ".join(f"{a} | {b}" for a, b in cells) + " |")
    print("\n" + "\n".join(time_lines))
    m = machine()
    ns = ", ".join(map(str, n_features))
    body = [
        "## Marker selection beside scanpy's rankings and COSG",
        "",
        f"The synthetic counts above (`make_scrna_counts(n_cells, n_genes, random_state={SEED})`: 10 cell types, "
        "30 marker genes each), through the cross-validation protocol of `paucity markers-benchmark` (seed 000, "
        f"§2.6.2; `docs/markers-benchmark.md`): {n_folds} stratified folds; on the training folds only, each method "
        f"selects n = {ns} markers (one-vs-rest methods take ⌈n/10⌉ per cell type and merge the lists, so they may "
        f"use fewer); {' and '.join(_CLASSIFIER_WORDS.get(c, c) for c in classifiers)} trained on those cells and "
        "markers predict the held-out fold. paucity's objectives: 5 recursive-quantile bins, the bivariate ones "
        "choosing among the 5,000 genes of highest MIM score. scanpy's `rank_genes_groups` (t-test, t-test with "
        "overestimated variance, Wilcoxon, logistic regression) and COSG (`cosg.cosg`, its defaults: `mu=1`, genes "
        "expressed in under 10% of a type ranked last) see `normalize_total` and `log1p` of a copy of the training "
        "cells. COSG runs in a virtual environment of its own, in a subprocess that reads the training cells from "
        "a file; its seconds are measured inside that process. Random-forest importance, part of the guide's "
        "comparison, is left out: at these sizes it takes minutes per fold.",
        "",
        f"Seconds to select {max(n_features)} markers on all the cells, as the protocol times them (after an untimed "
        "warm-up; the best of up to 3 runs within 2 s): for paucity the binning and the selection, for scanpy and "
        "COSG the normalized copy and the ranking; and how many of the markers chosen are planted marker genes "
        "(of the genes used: one-vs-rest methods may use fewer after merging).",
        "",
        *time_lines,
        "",
        "Mean error over the folds (markers actually used, when not n, in brackets):",
    ]
    for size, classifier, table in errors:
        body += ["", f"**{size}, {classifier.replace('_', ' ')}**", "", *_markdown_table(table, "method")]
    body += [
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} memory, {m['os']}.  ",
        f"paucity side: {versions_line(our_versions())}.  ",
        *(anchor_versions_lines(result) if result is not None else []),
        "",
        f"Command: `python benchmarks/markers.py --anchors --sizes {','.join(f'{c}x{g}' for c, g in sizes)} "
        f"--n-folds {n_folds} --cv-n-features {','.join(map(str, n_features))} --classifiers {','.join(classifiers)} "
        "--cosg-python $PAUCITY_COSG_PYTHON`.",
    ]
    return "\n".join(body)


def memory_child(path: str, n_features: int) -> None:
    """Run in a child process: load, discretize, CIFE; print timings and RSS at each stage as JSON."""
    from paucity.info import discretize
    from paucity.markers import InfoSelector

    def rss_gib() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux

    report = {}
    t0 = time.perf_counter()
    X, labels = load_data(Path(path))
    report["load_seconds"] = time.perf_counter() - t0
    report["peak_after_load_gib"] = rss_gib()
    report["input_gib"] = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**30
    t0 = time.perf_counter()
    Xd = discretize(X, n_bins=N_BINS)
    report["discretize_seconds"] = time.perf_counter() - t0
    report["discretized_gib"] = (Xd.data.nbytes + Xd.indices.nbytes + Xd.indptr.nbytes) / 2**30
    del X
    report["peak_after_discretize_gib"] = rss_gib()
    t0 = time.perf_counter()
    selector = InfoSelector(method="cife", n_features=n_features, n_bins=None, prefilter=PREFILTER).fit(Xd, labels)
    report["select_seconds"] = time.perf_counter() - t0
    report["peak_after_select_gib"] = rss_gib()
    report["n_selected"] = int(len(selector.selected_))
    print(json.dumps(report))


def benchmark_memory(size: tuple[int, int], n_features: int) -> str:
    n_cells, n_genes = size
    print(f"== memory: {n_cells} x {n_genes}: generating (seed {SEED}) ...", flush=True)
    # Generated in a process of its own: a child forked from a process that held
    # the matrix would inherit that process's resident size in its ru_maxrss.
    generated = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--memory-generate", f"{n_cells}x{n_genes}"],
        stdout=subprocess.PIPE, text=True, check=True,
    )
    gen = json.loads(generated.stdout.strip().splitlines()[-1])
    gen_seconds, nnz = gen["seconds"], gen["nnz"]
    print(f"   generated in {gen_seconds:.1f} s; running CIFE {n_features} in a child process ...", flush=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--memory-child", str(data_path(n_cells, n_genes)),
               "--n-features", str(n_features)]
    t0 = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if child.returncode != 0:
        raise SystemExit(f"the memory child failed with exit code {child.returncode}")
    report = json.loads(output.strip().splitlines()[-1])
    peak_gib = usage.ru_maxrss / 2**20  # ru_maxrss is in kB on Linux
    m = machine()
    table = "\n".join(
        [
            "| stage | seconds | peak RSS so far (GiB) |",
            "| --- | ---: | ---: |",
            f"| load CSR counts from npz | {report['load_seconds']:.1f} | {report['peak_after_load_gib']:.2f} |",
            f"| `discretize(X, n_bins=5)` | {report['discretize_seconds']:.1f} "
            f"| {report['peak_after_discretize_gib']:.2f} |",
            f"| `InfoSelector('cife', n_features={n_features}, n_bins=None).fit` | {report['select_seconds']:.1f} "
            f"| {report['peak_after_select_gib']:.2f} |",
            f"| whole child process (`getrusage` of the child) | {wall:.1f} | **{peak_gib:.2f}** |",
        ]
    )
    print("\n" + table)
    body = "\n".join(
        [
            "## Memory: CIFE on 200,000 cells",
            "",
            f"`make_scrna_counts({n_cells}, {n_genes}, random_state={SEED})`: {nnz:,} non-zeros "
            f"({nnz / (n_cells * n_genes):.1%}); the CSR input takes {report['input_gib']:.2f} GiB "
            f"(float32 values, int32 indices) and the discretized CSC matrix {report['discretized_gib']:.2f} GiB. "
            f"A child process loads it, discretizes it and selects {n_features} CIFE features; its peak resident "
            "memory is read with `os.wait4` (`ru_maxrss`). A dense float64 copy of this matrix alone would take "
            f"{n_cells * n_genes * 8 / 2**30:.1f} GiB.",
            "",
            table,
            "",
            f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} memory, {m['os']}.  ",
            f"Versions: {versions_line(our_versions())}.",
            "",
            "Command: `python benchmarks/markers.py --memory`.",
        ]
    )
    return body


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Marker selection benchmark: paucity beside PicturedRocks.")
    parser.add_argument("--sizes", type=parse_sizes, default=None,
                        help=f"comma-separated CELLSxGENES (default {DEFAULT_SIZES}; "
                        "with --memory, sizes run only when given)")
    parser.add_argument("--anchor-python", default=os.environ.get("PAUCITY_ANCHOR_PYTHON"),
                        help="Python of a virtual environment with PicturedRocks 1.0.2 "
                        "(default: $PAUCITY_ANCHOR_PYTHON; without it the anchor is skipped)")
    parser.add_argument("--methods", type=parse_methods, default=list(METHODS), help="comma-separated among mim,jmi,cife")
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--memory", action="store_true", help=f"measure peak RSS of CIFE on {MEMORY_SIZE}")
    parser.add_argument("--memory-size", type=parse_size, default=parse_size(MEMORY_SIZE), help=argparse.SUPPRESS)
    parser.add_argument("--memory-child", metavar="NPZ", help=argparse.SUPPRESS)
    parser.add_argument("--memory-generate", type=parse_size, metavar="SIZE", help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true", help=f"print only; do not update {REPORT.relative_to(ROOT)}")
    parser.add_argument("--anchors", action="store_true",
                        help="cross-validated error and selection seconds beside scanpy's rankings and COSG")
    parser.add_argument("--cosg-python", default=os.environ.get("PAUCITY_COSG_PYTHON"),
                        help="with --anchors: the Python of a virtual environment with cosg installed "
                        "(default: $PAUCITY_COSG_PYTHON)")
    parser.add_argument("--n-folds", type=int, default=ANCHORS_N_FOLDS,
                        help=f"with --anchors: cross-validation folds (default {ANCHORS_N_FOLDS})")
    parser.add_argument("--cv-n-features", default=ANCHORS_N_FEATURES,
                        help=f"with --anchors: comma-separated numbers of markers (default {ANCHORS_N_FEATURES})")
    parser.add_argument("--classifiers", default="nearest_centroids,random_forest",
                        help="with --anchors: nearest_centroids, random_forest or both")
    parser.add_argument("--runs", type=Path, default=ANCHORS_RUNS,
                        help="with --anchors: the folder of the resumable runs, one per size")
    parser.add_argument("--n-jobs", type=int, default=None, help="with --anchors: threads (default: the idle cores)")
    args = parser.parse_args(argv)

    if args.memory_child:
        memory_child(args.memory_child, args.n_features)
        return
    if args.memory_generate:
        X, _, seconds = make_data(*args.memory_generate)
        print(json.dumps({"seconds": seconds, "nnz": int(X.nnz)}))
        return

    sizes = args.sizes
    if sizes is None and not args.memory:
        sizes = parse_sizes(DEFAULT_SIZES)
    if args.anchors:
        if not args.cosg_python:
            raise SystemExit("--anchors needs COSG's Python: give --cosg-python or set PAUCITY_COSG_PYTHON "
                             "(python3 -m venv cosg-env && cosg-env/bin/pip install cosg).")
        n_features = [int(n) for n in args.cv_n_features.split(",") if n.strip()]
        classifiers = [c.strip() for c in args.classifiers.split(",") if c.strip()]
        body = benchmark_anchors(sizes, args.cosg_python, n_features, args.n_folds, classifiers, args.runs, args.n_jobs)
        if not args.no_write:
            write_section(ANCHORS_SECTION, body)
            print(f"\nwrote the markers-anchors section of {REPORT.relative_to(ROOT)}")
        return
    if sizes:
        anchor_python = args.anchor_python
        if not anchor_python:
            print("No anchor interpreter (--anchor-python or PAUCITY_ANCHOR_PYTHON): PicturedRocks is skipped.")
        elif not Path(anchor_python).exists():
            print(f"Anchor interpreter {anchor_python} does not exist: PicturedRocks is skipped.")
            anchor_python = None
        body = benchmark_sizes(sizes, args.methods, args.n_features, anchor_python)
        if not args.no_write:
            write_section(MARKERS_SECTION, body)
            print(f"\nwrote the markers section of {REPORT.relative_to(ROOT)}")
    if args.memory:
        body = benchmark_memory(args.memory_size, args.n_features)
        if not args.no_write:
            write_section(MEMORY_SECTION, body)
            print(f"\nwrote the memory section of {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
