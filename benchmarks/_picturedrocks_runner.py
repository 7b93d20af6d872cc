"""Time PicturedRocks on one data set; run by the anchor's own Python.

PicturedRocks (GPL) is used as a black-box oracle: this script calls its
public functions and records timings and selections. None of its code is part
of paucity. ``benchmarks/markers.py`` runs this script in a subprocess with the
interpreter given by ``--anchor-python`` (or ``PAUCITY_ANCHOR_PYTHON``)::

    /path/to/picturedrocks-venv/bin/python benchmarks/_picturedrocks_runner.py \
        benchmarks/_data/scrna_20000x2000_seed0.npz out.json --n-features 50

The input npz holds a CSR matrix (``data``, ``indices``, ``indptr``,
``shape``) and integer ``labels``. The run:

1. warms PicturedRocks's numba JIT on a tiny random matrix of the data's
   dtype (discretization, information set, every method), so compilation is
   not timed;
2. times the discretization as a user must run it: ``X.toarray()``
   (PicturedRocks densifies), ``quantile_discretize(X, n_bins)``, conversion
   to CSC and ``SparseInformationSet(Xd, labels)``;
3. for each method, times building the selector and ``autoselect(1)``
   ``n_features`` times;
4. writes a JSON with the timings (seconds), the selected indices in order and
   the versions used.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from importlib.metadata import version

import numpy as np
import scipy.sparse as sp

METHODS = {"mim": "MIM", "jmi": "JMI", "cife": "CIFE"}


def load(path):
    with np.load(path) as f:
        X = sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(int(s) for s in f["shape"]))
        labels = np.asarray(f["labels"], dtype=np.int64)
    return X, labels


def select(cls, infoset, n_features):
    fs = cls(infoset)
    for _ in range(n_features):
        fs.autoselect(1)
    return [int(i) for i in fs.S]


def warm(iterative, SparseInformationSet, quantile_discretize, methods, n_bins, dtype):
    rng = np.random.default_rng(0)
    X = rng.poisson(0.3, size=(200, 30)).astype(dtype)
    y = rng.integers(0, 3, size=200).astype(np.int64)
    Xd = quantile_discretize(X, n_bins)
    infoset = SparseInformationSet(sp.csc_matrix(Xd), y)
    for name in methods:
        select(getattr(iterative, METHODS[name]), infoset, 3)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="npz with CSR data/indices/indptr/shape and labels")
    parser.add_argument("output", help="JSON file to write")
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--n-bins", type=int, default=5)
    parser.add_argument("--methods", default="mim,jmi,cife", help="comma-separated, among mim, jmi, cife")
    args = parser.parse_args(argv)
    methods = [m.strip().lower() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown method(s) {unknown}; expected among {sorted(METHODS)}")

    from picturedrocks.markers.mutualinformation import iterative
    from picturedrocks.markers.mutualinformation.infoset import SparseInformationSet, quantile_discretize

    X, labels = load(args.data)

    t0 = time.perf_counter()
    warm(iterative, SparseInformationSet, quantile_discretize, methods, args.n_bins, X.dtype)
    warm_seconds = time.perf_counter() - t0

    t0 = time.perf_counter()
    dense = X.toarray()
    t1 = time.perf_counter()
    Xd = quantile_discretize(dense, args.n_bins)
    t2 = time.perf_counter()
    del dense
    Xd_csc = sp.csc_matrix(Xd)
    del Xd
    infoset = SparseInformationSet(Xd_csc, labels)
    t3 = time.perf_counter()
    timings = {
        "densify": t1 - t0,
        "quantile_discretize": t2 - t1,
        "to_csc_and_infoset": t3 - t2,
        "discretize": t3 - t0,
    }

    selections = {}
    select_seconds = {}
    for name in methods:
        t0 = time.perf_counter()
        selections[name] = select(getattr(iterative, METHODS[name]), infoset, args.n_features)
        select_seconds[name] = time.perf_counter() - t0

    result = {
        "shape": list(X.shape),
        "nnz": int(X.nnz),
        "n_bins": args.n_bins,
        "n_features": args.n_features,
        "warm_seconds": warm_seconds,
        "discretize_seconds": timings,
        "select_seconds": select_seconds,
        "selected": selections,
        "versions": {
            "python": platform.python_version(),
            "picturedrocks": version("picturedrocks"),
            "numpy": np.__version__,
            "scipy": version("scipy"),
            "numba": version("numba"),
        },
    }
    with open(args.output, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
