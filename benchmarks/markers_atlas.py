"""Atlas-scale marker selection: 1,000,000 cells x 5,000 genes from disk, on Dask.

Run with paucity's development Python from the repository root::

    python benchmarks/markers_atlas.py                 # 1,000,000 x 5,000, 50 CIFE markers
    python benchmarks/markers_atlas.py --cells 200000  # a smaller run

The counts come from :func:`paucity.datasets.make_scrna_counts` (seed 0,
12% non-zero), generated once in a separate process and written to an
``.h5ad`` file under ``benchmarks/_data/`` (git-ignored). The measured
process opens it lazily with ``anndata.experimental.read_elem_lazy`` (blocks
of rows, CSR), starts a two-worker ``LocalCluster`` on loopback and fits
``InfoSelector("cife", n_features=50)`` on the Dask array. Peak memory is the
largest sum of resident memory over this process and its workers, sampled
every 0.2 s. The result goes to ``docs/benchmarks.md`` between
``<!-- atlas:begin -->`` and ``<!-- atlas:end -->``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markers import DATA_DIR, machine, our_versions, versions_line, write_section  # noqa: E402

SECTION = ("<!-- atlas:begin -->", "<!-- atlas:end -->")


def atlas_path(n_cells: int, n_genes: int) -> Path:
    return DATA_DIR / f"atlas_{n_cells}x{n_genes}.h5ad"


def generate(n_cells: int, n_genes: int) -> None:
    """Write the synthetic atlas (run in its own process: it holds the whole matrix once)."""
    import anndata
    import pandas as pd

    from paucity.datasets import make_scrna_counts

    data = make_scrna_counts(n_cells=n_cells, n_genes=n_genes, random_state=0)
    adata = anndata.AnnData(
        data.X,
        obs=pd.DataFrame({"cell_type": pd.Categorical([f"type{t}" for t in data.labels])}, index=[str(i) for i in range(n_cells)]),
        var=pd.DataFrame(index=[f"gene{j}" for j in range(n_genes)]),
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Atlas-scale CIFE on Dask from an .h5ad on disk.")
    parser.add_argument("--cells", type=int, default=1_000_000)
    parser.add_argument("--genes", type=int, default=5_000)
    parser.add_argument("--chunk", type=int, default=50_000, help="rows per Dask block")
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--memory-limit", default="3GiB", help="per worker")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate_only:
        generate(args.cells, args.genes)
        return
    path = atlas_path(args.cells, args.genes)
    if not path.exists():
        print(f"generating {args.cells:,} x {args.genes:,} into {path.name} ...", flush=True)
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--generate-only", "--cells", str(args.cells), "--genes", str(args.genes)], check=True)
        print(f"   generated in {time.perf_counter() - start:.0f} s", flush=True)
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
