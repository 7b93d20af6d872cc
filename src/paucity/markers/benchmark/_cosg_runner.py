"""Run COSG on one training set and write its per-group gene rankings; run by COSG's own Python.

COSG (``pip install cosg``) is an anchor: the marker selection a scanpy user
would pick for speed. It is installed in a virtual environment of its own and
used as a black box: this script calls its public function and records what
it returns. It imports nothing from paucity (that environment need not have
paucity), and none of COSG's code is part of paucity.
:mod:`paucity.markers.benchmark.anchors` runs it in a subprocess with the
interpreter given as ``cosg_python=`` (``--cosg-python``, or the environment
variable ``PAUCITY_COSG_PYTHON``)::

    /path/to/cosg-env/bin/python _cosg_runner.py --versions out.json
    /path/to/cosg-env/bin/python _cosg_runner.py train.npz out.json --n-genes 5
    /path/to/cosg-env/bin/python _cosg_runner.py atlas.h5ad out.json --n-genes 5 --groupby cell_type

The input is either an ``.npz`` holding the counts (a CSR matrix as ``data``,
``indices``, ``indptr``, ``shape``, or a dense ``X``) and integer ``labels``
0..c-1, or an ``.h5ad`` with counts in ``X`` and the labels in
``obs[--groupby]``. The run:

1. builds an AnnData whose genes are named by their column index;
2. warms COSG (and scanpy's normalization) on a few cells of each group,
   untimed, so that first-call costs are not charged;
3. times what the benchmark times for scanpy's rankings: a float32 copy,
   ``scanpy.pp.normalize_total`` (to the median count), ``scanpy.pp.log1p``
   and ``cosg.cosg(adata, groupby=..., n_genes_user=K)`` with COSG's defaults
   (``mu=1``, genes expressed in under 10% of a group left to the bottom of
   its list); the best of ``--repeats`` runs, stopping once ``--budget``
   seconds have been spent;
4. writes a JSON object: ``rankings`` (one list of column indices per group,
   best first, in the order of ``classes``), ``classes``, ``seconds`` (the
   timed step), ``cosg_seconds`` (COSG's call alone), ``repeats`` and
   ``versions``.

``--versions OUT`` only imports COSG and writes the versions, which is how a
run checks the interpreter before any work.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings


def versions() -> dict:
    from importlib.metadata import version

    import cosg  # noqa: F401  (proves that it imports)

    found = {"python": platform.python_version()}
    for name in ("cosg", "scanpy", "anndata", "numpy", "scipy"):
        found[name] = version(name)
    return found


def load(path: str, groupby: str | None):
    """(X, codes, class names) from an npz of counts and codes, or an h5ad and a column of its obs."""
    import numpy as np

    if path.endswith(".h5ad"):
        import anndata

        if not groupby:
            raise SystemExit("an .h5ad input needs --groupby, the column of obs holding the labels")
        adata = anndata.read_h5ad(path)
        labels = adata.obs[groupby].astype("category")
        return adata.X, labels.cat.codes.to_numpy().astype(np.int64), [str(c) for c in labels.cat.categories]
    import scipy.sparse as sp

    with np.load(path) as f:
        if "X" in f.files:
            X = np.asarray(f["X"])
        else:
            X = sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(int(s) for s in f["shape"]))
        codes = np.asarray(f["labels"], dtype=np.int64)
    return X, codes, [str(t) for t in range(int(codes.max()) + 1)]


def rank(X, codes, n_classes: int, n_genes: int):
    """COSG's per-group rankings (column indices) after the benchmark's normalization; (rankings, seconds of cosg)."""
    import anndata
    import numpy as np
    import pandas as pd
    import scanpy as sc

    import cosg

    adata = anndata.AnnData(X.astype(np.float32, copy=True))
    adata.var_names = [str(j) for j in range(X.shape[1])]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Some cells have zero counts")
        sc.pp.normalize_total(adata)
    sc.pp.log1p(adata)
    groups = [f"class{t}" for t in range(n_classes)]
    adata.obs["group"] = pd.Categorical.from_codes(codes, categories=groups)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cosg.cosg(adata, groupby="group", n_genes_user=min(n_genes, X.shape[1]), key_added="cosg")
    seconds = time.perf_counter() - start
    names = adata.uns["cosg"]["names"]
    return [[int(name) for name in names[group]] for group in groups], seconds


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", help="an .npz (CSR counts or dense X, and labels) or an .h5ad")
    parser.add_argument("output", nargs="?", help="the JSON file to write")
    parser.add_argument("--n-genes", type=int, default=50, help="genes COSG ranks per group")
    parser.add_argument("--groupby", default=None, help="the column of obs with the labels (.h5ad input)")
    parser.add_argument("--repeats", type=int, default=1, help="time the best of this many runs")
    parser.add_argument("--budget", type=float, default=2.0, help="stop repeating once this many seconds were spent")
    parser.add_argument("--versions", metavar="OUTPUT", help="write the versions only (checks that COSG imports)")
    args = parser.parse_args(argv)
    if args.versions:
        write(args.versions, {"versions": versions()})
        return
    if not args.data or not args.output:
        parser.error("give the input data and the output file (or --versions OUTPUT)")

    import numpy as np

    X, codes, classes = load(args.data, args.groupby)
    n_classes = len(classes)
    # untimed warm-up on up to 15 cells of each group
    few = np.concatenate([np.flatnonzero(codes == t)[:15] for t in range(n_classes)])
    rank(X[few], codes[few], n_classes, 2)

    best = best_cosg = float("inf")
    spent, repeats, rankings = 0.0, 0, None
    while repeats < max(1, args.repeats) and (repeats == 0 or spent < args.budget):
        start = time.perf_counter()
        rankings, cosg_seconds = rank(X, codes, n_classes, args.n_genes)
        elapsed = time.perf_counter() - start
        best, best_cosg = min(best, elapsed), min(best_cosg, cosg_seconds)
        spent, repeats = spent + elapsed, repeats + 1
    write(args.output, {
        "rankings": rankings,
        "classes": classes,
        "n_genes": args.n_genes,
        "shape": [int(s) for s in X.shape],
        "seconds": best,
        "cosg_seconds": best_cosg,
        "repeats": repeats,
        "versions": versions(),
    })


def write(path: str, payload: dict) -> None:
    """Write the JSON atomically: a reader never sees half a file."""
    partial = f"{path}.partial"
    with open(partial, "w") as f:
        json.dump(payload, f)
    os.replace(partial, path)


if __name__ == "__main__":
    sys.exit(main())
