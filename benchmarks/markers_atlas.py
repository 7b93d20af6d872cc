"""Atlas-scale marker selection: 1,000,000 cells x 5,000 genes from disk, on Dask.

Run with paucity's development Python from the repository root::

    python benchmarks/markers_atlas.py                 # 1,000,000 x 5,000, 50 CIFE markers
    python benchmarks/markers_atlas.py --cells 200000  # a smaller run
    python benchmarks/markers_atlas.py --anchors --cosg-python /path/to/cosg-venv/bin/python

The counts come from :func:`paucity.datasets.make_scrna_counts` (seed 0,
12% non-zero), generated once in a separate process and written to an
``.h5ad`` file under ``benchmarks/_data/`` (git-ignored). The measured
process opens it lazily with ``anndata.experimental.read_elem_lazy`` (blocks
of rows, CSR), starts a two-worker ``LocalCluster`` on loopback and fits
``InfoSelector("cife", n_features=50)`` on the Dask array. Peak memory is the
largest sum of resident memory over this process and its workers, sampled
every 0.2 s. The result goes to ``docs/benchmarks.md`` between
``<!-- atlas:begin -->`` and ``<!-- atlas:end -->``.

``--anchors`` times, on the same file and in memory, what a scanpy user would
run instead beside paucity's objectives: each method selects 50 markers on all
the cells in a process of its own (which loads the file, untimed), stopped
after ``--time-limit`` seconds (default 1,800); its peak resident memory is
read with ``os.wait4``. paucity's objectives and scanpy's ``rank_genes_groups``
run through the benchmark's registry
(:func:`paucity.markers.benchmark.resolve_methods`, timed as
``paucity markers-benchmark`` times them: binning and selection; normalized copy
and ranking), COSG through its runner in its own environment (``--cosg-python``
or ``PAUCITY_COSG_PYTHON``), reading the ``.h5ad`` itself. No
cross-validation at this size: a random forest per (fold, method, n) on 800,000
cells would take days on two cores; ``benchmarks/markers.py --anchors`` gives the
cross-validated errors up to 50,000 cells. The result goes between
``<!-- atlas-anchors:begin -->`` and ``<!-- atlas-anchors:end -->``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markers import DATA_DIR, fmt_seconds, machine, our_versions, versions_line, write_section  # noqa: E402

SECTION = ("<!-- atlas:begin -->", "<!-- atlas:end -->")
ANCHORS_SECTION = ("<!-- atlas-anchors:begin -->", "<!-- atlas-anchors:end -->")
ANCHORS_COMPARED = (
    "mim", "jmi", "cife", "mim-binary", "jmi-binary", "cife-binary",
    "t-test", "t-test_overestim_var", "wilcoxon", "logreg", "cosg",
)
TIME_LIMIT = 1800


def atlas_path(n_cells: int, n_genes: int) -> Path:
    return DATA_DIR / f"atlas_{n_cells}x{n_genes}.h5ad"


def generate(n_cells: int, n_genes: int) -> None:
    """Write the synthetic atlas (run in its own process: it holds the whole matrix once)."""
    import anndata
    import pandas as pd

    from paucity.datasets import make_scrna_counts

    data = make_scrna_counts(n_cells=n_cells, n_genes=n_genes, random_state=0)
    marker_of = np.full(n_genes, -1, dtype=np.int64)  # the cell type a planted marker gene marks, -1 for the others
    for t, genes in enumerate(data.marker_genes):
        marker_of[genes] = t
    adata = anndata.AnnData(
        data.X,
        obs=pd.DataFrame({"cell_type": pd.Categorical([f"type{t}" for t in data.labels])}, index=[str(i) for i in range(n_cells)]),
        var=pd.DataFrame({"marker_of": marker_of}, index=[f"gene{j}" for j in range(n_genes)]),
    )
    path = atlas_path(n_cells, n_genes)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.h5ad")
    adata.write_h5ad(partial)
    partial.replace(path)


class PeakMemory:
    """Largest total resident memory of this process and its children, sampled in a thread."""

    def __init__(self, interval: float = 0.2):
        import psutil

        self._process = psutil.Process()
        self._interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _total(self) -> int:
        total = 0
        for process in [self._process, *self._process.children(recursive=True)]:
            try:
                total += process.memory_info().rss
            except Exception:  # a process that ended between listing and reading
                pass
        return total

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._total())
            time.sleep(self._interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._total())


def run(n_cells: int, n_genes: int, chunk: int, n_features: int, memory_limit: str) -> dict:
    import anndata
    import h5py
    from anndata.experimental import read_elem_lazy
    from distributed import Client, LocalCluster

    from paucity.markers import InfoSelector

    path = atlas_path(n_cells, n_genes)
    with PeakMemory() as memory:
        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
            memory_limit=memory_limit,
        ) as cluster, Client(cluster):
            with h5py.File(path, "r") as f:
                X = read_elem_lazy(f["X"], chunks=(chunk, n_genes))
                obs = anndata.io.read_elem(f["obs"])
                labels = obs["cell_type"].to_numpy()
                start = time.perf_counter()
                selector = InfoSelector(method="cife", n_features=n_features, progress=True).fit(X, labels)
                seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "peak_gib": memory.peak / 2**30,
        "selected": [int(i) for i in selector.selected_],
        "chunks": len(X.chunks[0]),
    }


def anchor_child(method_name: str, n_cells: int, n_genes: int, n_features: int) -> None:
    """Run in a process of its own: load the atlas in memory, then one method's timed selection; print JSON."""
    import anndata

    from paucity.markers.benchmark import resolve_methods
    from paucity.markers.benchmark.methods import timed_selection

    start = time.perf_counter()
    adata = anndata.read_h5ad(atlas_path(n_cells, n_genes))
    codes = adata.obs["cell_type"].cat.codes.to_numpy().astype(np.int64)
    load_seconds = time.perf_counter() - start
    (method,) = resolve_methods([method_name])
    selected, seconds = timed_selection(method, adata.X, codes, n_features, 0, repeats=1)
    print(json.dumps({"seconds": seconds, "load_seconds": load_seconds, "selected": selected.tolist()}))


def watched(command: list, limit: float, env=None) -> tuple[int | None, str, float, float]:
    """Run ``command``, killed after ``limit`` seconds: (exit code or None when killed, stdout, wall seconds, peak GiB)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as output:
        child = subprocess.Popen(command, stdout=output, stderr=subprocess.PIPE, text=True, env=env)
        killed = threading.Event()

        def stop():
            killed.set()
            child.kill()

        timer = threading.Timer(limit, stop)
        timer.start()
        errors = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read()
    if child.returncode != 0 and not killed.is_set():
        print(f"   failed (exit {child.returncode}): {errors.strip().splitlines()[-1] if errors.strip() else ''}", flush=True)
    return (None if killed.is_set() else child.returncode), text, time.perf_counter() - start, usage.ru_maxrss / 2**20


def run_anchors(n_cells: int, n_genes: int, n_features: int, methods, cosg_python: str | None, limit: float) -> list[dict]:
    """Every method in a process of its own on the atlas: seconds, peak memory, the markers chosen."""
    import anndata
    import h5py

    from paucity.markers.benchmark.anchors import COSG_RUNNER, anchor_versions
    from paucity.markers.benchmark.methods import method_label, resolve_methods
    from paucity.markers.greedy import merge_per_class

    path = atlas_path(n_cells, n_genes)
    with h5py.File(path, "r") as f:
        var = anndata.io.read_elem(f["var"])
        n_types = len(anndata.io.read_elem(f["obs"])["cell_type"].cat.categories)
    markers = set(np.flatnonzero(var["marker_of"].to_numpy() >= 0).tolist()) if "marker_of" in var else None
    if markers is None:
        print(f"   {path.name} has no var['marker_of'] (written by an older version of this script): the planted "
              "markers are not counted; delete it to have it written again with them", flush=True)
    rows = []
    for name in methods:
        # a misspelt name fails here, before minutes of loading
        label = method_label("cosg", "binary") if name == "cosg" else resolve_methods([name])[0].label
        print(f"   {label} ...", flush=True)
        row = {"method": label, "seconds": None, "peak_gib": None, "hits": None, "versions": None}
        if name == "cosg":
            if not cosg_python:
                print("   COSG skipped: no --cosg-python (or PAUCITY_COSG_PYTHON)", flush=True)
                row["note"] = "not run"
                rows.append(row)
                continue
            row["versions"] = anchor_versions(cosg_python)
            per_class = math.ceil(n_features / n_types)
            with tempfile.TemporaryDirectory() as folder:
                out = Path(folder) / "cosg.json"
                env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
                code, _, wall, peak = watched(
                    [cosg_python, str(COSG_RUNNER), str(path), str(out), "--n-genes", str(per_class), "--groupby", "cell_type"],
                    limit, env,
                )
                payload = json.loads(out.read_text()) if code == 0 else None
            if payload is not None:
                selected = merge_per_class([r[:per_class] for r in payload["rankings"]], per_class).tolist()
                row.update(seconds=payload["seconds"], selected=selected)
        else:
            code, text, wall, peak = watched(
                [sys.executable, __file__, "--anchor-child", name, "--cells", str(n_cells), "--genes", str(n_genes),
                 "--n-features", str(n_features)], limit,
            )
            if code == 0:
                payload = json.loads(text.strip().splitlines()[-1])
                row.update(seconds=payload["seconds"], selected=payload["selected"])
        row["peak_gib"] = peak
        if code is None:
            row["note"] = f"stopped after {limit:.0f} s"
        elif code != 0:
            row["note"] = f"failed (exit {code})"
        if row.get("selected") is not None and markers is not None:
            row["hits"] = f"{len(markers.intersection(row['selected']))}/{len(row['selected'])}"
        print(f"   {label}: {row['seconds'] if row['seconds'] is None else round(row['seconds'], 2)} s, "
              f"peak {peak:.2f} GiB, true markers {row['hits']} {row.get('note', '')}", flush=True)
        rows.append(row)
    return rows


def anchors_body(args, rows: list[dict]) -> str:
    dense_gib = args.cells * args.genes * 8 / 2**30
    m = machine()
    cosg = next((r["versions"] for r in rows if r["versions"]), None)
    lines = [
        f"## Atlas scale beside scanpy's rankings and COSG: {args.cells:,} cells in memory",
        "",
        f"The `.h5ad` of the section above (`make_scrna_counts({args.cells}, {args.genes}, random_state=0)`), read "
        f"whole into memory by a process of its own for each method (not timed), which selects {args.n_features} "
        "markers on all the cells, as `paucity markers-benchmark` times a selection: paucity's objectives (5 "
        "recursive-quantile bins, the bivariate ones among the 5,000 genes of highest MIM score) the binning and the "
        "selection; scanpy's `rank_genes_groups` and COSG (its defaults, `mu=1`) `normalize_total` and `log1p` of a "
        f"copy, then the ranking, the top ⌈{args.n_features}/10⌉ of each cell type merged. COSG runs in a virtual "
        "environment of its own and reads the file itself. Each method runs once, after an untimed warm-up on a "
        f"few cells, and is stopped after {args.time_limit:,.0f} s. Peak memory is the process's whole peak "
        "resident size (`os.wait4`), the matrix in memory included. *True markers*: chosen genes that are planted "
        "marker genes.",
        "",
        "| method | seconds | peak memory (GiB) | true markers |",
        "| --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        seconds = fmt_seconds(row["seconds"]) if row["seconds"] is not None else row.get("note", "—")
        peak = f"{row['peak_gib']:.1f}" if row["peak_gib"] is not None else "—"
        lines.append(f"| {row['method']} | {seconds} | {peak} | {row['hits'] or '—'} |")
    lines += [
        "",
        f"No cross-validated error at this size: a random forest per fold, method and number of markers on "
        f"{int(args.cells * 0.8):,} training cells takes days on this machine; `benchmarks/markers.py --anchors` "
        "has them up to 50,000 cells. The Dask path of the section above needs no copy of the matrix in memory; "
        f"a dense float64 copy would take {dense_gib:.0f} GiB.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} memory, {m['os']}.  ",
        f"paucity side: {versions_line(our_versions())}.  ",
    ]
    if cosg:
        lines.append(f"COSG side: {versions_line(cosg)}.")
    lines += [
        "",
        "Command: `python benchmarks/markers_atlas.py --anchors"
        + ("" if args.cells == 1_000_000 else f" --cells {args.cells}")
        + ("" if args.genes == 5_000 else f" --genes {args.genes}")
        + " --cosg-python $PAUCITY_COSG_PYTHON`.",
    ]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Atlas-scale CIFE on Dask from an .h5ad on disk.")
    parser.add_argument("--cells", type=int, default=1_000_000)
    parser.add_argument("--genes", type=int, default=5_000)
    parser.add_argument("--chunk", type=int, default=50_000, help="rows per Dask block")
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--memory-limit", default="3GiB", help="per worker")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--anchors", action="store_true",
                        help="time scanpy's rankings, COSG and paucity's objectives in memory on the same file")
    parser.add_argument("--methods", default=",".join(ANCHORS_COMPARED), help="with --anchors: comma-separated methods")
    parser.add_argument("--cosg-python", default=os.environ.get("PAUCITY_COSG_PYTHON"),
                        help="with --anchors: the Python of a virtual environment with cosg installed "
                        "(default: $PAUCITY_COSG_PYTHON; without it COSG is not run)")
    parser.add_argument("--time-limit", type=float, default=TIME_LIMIT, help="with --anchors: seconds per method")
    parser.add_argument("--no-write", action="store_true", help="print only; do not update docs/benchmarks.md")
    parser.add_argument("--anchor-child", metavar="METHOD", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate_only:
        generate(args.cells, args.genes)
        return
    if args.anchor_child:
        anchor_child(args.anchor_child, args.cells, args.genes, args.n_features)
        return
    path = atlas_path(args.cells, args.genes)
    if not path.exists():
        print(f"generating {args.cells:,} x {args.genes:,} into {path.name} ...", flush=True)
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--generate-only", "--cells", str(args.cells), "--genes", str(args.genes)], check=True)
        print(f"   generated in {time.perf_counter() - start:.0f} s", flush=True)
    if args.anchors:
        methods = [m.strip() for m in args.methods.split(",") if m.strip()]
        print(f"{len(methods)} methods, {args.n_features} markers each, on {args.cells:,} x {args.genes:,} in memory ...", flush=True)
        rows = run_anchors(args.cells, args.genes, args.n_features, methods, args.cosg_python, args.time_limit)
        body = anchors_body(args, rows)
        print("\n" + body)
        if not args.no_write:
            write_section(ANCHORS_SECTION, body)
            print("wrote the atlas-anchors section of docs/benchmarks.md")
        return
    print("selecting 50 CIFE markers on Dask ...", flush=True)
    result = run(args.cells, args.genes, args.chunk, args.n_features, args.memory_limit)
    print(f"   {result['seconds']:.0f} s, peak {result['peak_gib']:.2f} GiB", flush=True)
    dense_gib = args.cells * args.genes * 8 / 2**30
    size_gib = path.stat().st_size / 2**30
    m = machine()
    body = "\n".join(
        [
            f"## Atlas scale: {args.cells:,} cells on Dask, from disk",
            "",
            f"`make_scrna_counts({args.cells}, {args.genes}, random_state=0)` (12% non-zero) written to an `.h5ad` "
            f"({size_gib:.1f} GiB on disk), opened lazily with `anndata.experimental.read_elem_lazy` in blocks of "
            f"{args.chunk:,} rows ({result['chunks']} blocks), and `InfoSelector('cife', n_features={args.n_features})"
            ".fit(X, labels)` on a two-worker `LocalCluster` (one thread each, "
            f"{args.memory_limit} per worker). Time from `fit` to its return, both binning passes over the file "
            "included; memory is the peak of the summed resident memory of the driver and both workers.",
            "",
            "| cells × genes | CIFE markers | seconds | peak memory (GiB) |",
            "| --- | ---: | ---: | ---: |",
            f"| {args.cells:,} × {args.genes:,} | {args.n_features} | {result['seconds']:.0f} | {result['peak_gib']:.2f} |",
            "",
            f"PicturedRocks cannot run this: its binning starts from a dense copy of the matrix, "
            f"{dense_gib:.0f} GiB in float64 for {args.cells:,} × {args.genes:,}, more than this machine's whole "
            f"memory ({m['memory']}). "
            "The Dask path's selections equal the in-memory ones exactly (tests on a two-worker cluster).",
            "",
            f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory']} memory, {m['os']}.  ",
            f"Versions: {versions_line(our_versions())}.",
            "",
            "Command: `python benchmarks/markers_atlas.py"
            + ("" if args.cells == 1_000_000 else f" --cells {args.cells}")
            + "`.",
        ]
    )
    write_section(SECTION, body)
    print("wrote the atlas section of docs/benchmarks.md")


if __name__ == "__main__":
    main()
