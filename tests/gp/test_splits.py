"""The repeated-split rotamer comparison (experiments/gp_splits.py): its fixed weights and its summary."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

gs = pytest.importorskip("experiments.gp_splits")
RESULTS = Path(gs.gp.RESULTS)


def test_the_fixed_weights_are_those_the_reported_split_chose_for_most_residues():
    chosen = pd.read_csv(RESULTS / "gp_fig4_3.csv")
    chosen = chosen[chosen["residue"] != "mean"]
    for method, alpha in gs.FIXED_ALPHA.items():
        weights = chosen.loc[chosen["method"] == method, "alpha"]
        assert (weights == alpha).sum() >= 16, method   # 17 of 17 for HPC, 16 of 17 for GPC


def test_rates_by_region_are_shares_of_correct_predictions():
    rng = np.random.default_rng(0)
    reference = rng.random(1000)
    rows = []
    for residue in ("ARG", "VAL"):
        for method in ("GPC", "HPC-laplace"):
            density = np.array([0.001, 0.002, 0.5, 0.6, 0.7])      # two sparse, three dense
            predicted = np.array([1, 0, 1, 1, 0]) if method == "GPC" else np.array([1, 1, 1, 1, 1])
            rows.append(pd.DataFrame({"residue": residue, "method": method, "fold": 0, "rotamer": 1,
                                      "predicted": predicted, "density": density}))
    table = gs.per_residue(pd.concat(rows, ignore_index=True), reference).set_index(["residue", "method"])
    assert table.loc[("ARG", "GPC"), "sparse"] == 50.0
    assert table.loc[("ARG", "GPC"), "dense"] == pytest.approx(200 / 3)
    assert table.loc[("VAL", "HPC-laplace"), "sparse"] == 100.0
