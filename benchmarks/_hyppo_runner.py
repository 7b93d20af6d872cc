"""Run hyppo's k-sample tests on arrays saved by the differences experiments.

hyppo is used as a black-box oracle: this script calls its public tests and
records their statistics, p-values and timings. None of its code is part of
paucity. ``experiments/differences_power_rules.py`` runs it in a subprocess
with the anchor's interpreter (``--anchor-python`` or the environment variable
``PAUCITY_ANCHOR_PYTHON``)::

    /path/to/hyppo-venv/bin/python benchmarks/_hyppo_runner.py data.npz out.npz --reps 200

For each data set ``k`` of the npz (``pooled_k`` of shape (n + m, d), ``n_k``
the size of the first sample, ``seed_k``) it runs ``hyppo.ksample.Energy()``
and ``hyppo.ksample.MMD()`` (Gaussian kernel, hyppo's default bandwidth) with
``test(x, y, reps, auto=False, random_state=seed_k)``: a permutation test of
``reps`` permutations, not the chi-square approximation. Writes
``energy_stat_k``, ``energy_pvalue_k``, ``mmd_stat_k``, ``mmd_pvalue_k``,
``seconds_k`` and the versions to the output npz.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from importlib.metadata import version

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("out")
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    from hyppo.ksample import MMD, Energy

    out = {"versions": json.dumps({"python": platform.python_version(), "hyppo": version("hyppo"),
                                   "numpy": np.__version__, "scipy": version("scipy")})}
    with np.load(args.data) as f:
        count = sum(1 for key in f.files if key.startswith("pooled_"))
        for k in range(count):
            pooled, n, seed = f[f"pooled_{k}"], int(f[f"n_{k}"]), int(f[f"seed_{k}"])
            x, y = pooled[:n], pooled[n:]
            start = time.perf_counter()
            for name, test in (("energy", Energy()), ("mmd", MMD())):
                stat, pvalue = test.test(x, y, reps=args.reps, workers=1, auto=False, random_state=seed)
                out[f"{name}_stat_{k}"] = np.float64(stat)
                out[f"{name}_pvalue_{k}"] = np.float64(pvalue)
            out[f"seconds_{k}"] = np.float64(time.perf_counter() - start)
    np.savez(args.out, **out)


if __name__ == "__main__":
    main()
