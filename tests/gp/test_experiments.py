"""The rotamer experiment of seed 003, §4.6 (Figures 4.3 and 4.4), from ``experiments/gp.py``.

The fast tests check the protocol's bookkeeping on hand-made predictions (the seed's rule for the
penalty weight: best on the other residues; regions from the density quantile); the slow test runs
the script end to end at its quick size.
"""

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(scope="module")
def gx():
    from experiments import gp  # the repository root is on pytest's path (pyproject.toml)

    return gp


def _predictions(rates: dict) -> pd.DataFrame:
    """Ten test points per (residue, method, alpha, fold) with the given share predicted right."""
    rows = []
    for (residue, method, alpha), rate in rates.items():
        for fold in range(2):
            n_right = int(round(10 * rate))
            for i in range(10):
                rows.append({"residue": residue, "fold": fold, "method": method, "alpha": alpha, "row": fold * 10 + i,
                             "rotamer": 0, "predicted": 0 if i < n_right else 1, "density": float(i + 1)})
    return pd.DataFrame(rows)


def test_alpha_is_chosen_on_the_other_residues(gx):
    rates = {("A", "GPC", 0.0): 0.9, ("A", "GPC", 1.0): 0.1,   # A alone would pick 0
             ("B", "GPC", 0.0): 0.2, ("B", "GPC", 1.0): 0.6,
             ("C", "GPC", 0.0): 0.3, ("C", "GPC", 1.0): 0.5,
             ("A", "sklearn-GPC", np.nan): 0.5, ("B", "sklearn-GPC", np.nan): 0.5,
             ("C", "sklearn-GPC", np.nan): 0.5}
    chosen = gx.choose_alphas(_predictions(rates)).set_index(["residue", "method"])["alpha"]
    # A: on B and C, alpha 1 wins (0.55 against 0.25). B: on A and C, 0 wins (0.6 against 0.3).
    # C: on A and B, 0 gives 0.55, 1 gives 0.35.
    assert chosen[("A", "GPC")] == 1.0 and chosen[("B", "GPC")] == 0.0 and chosen[("C", "GPC")] == 0.0
    assert np.isnan(chosen[("A", "sklearn-GPC")])


def test_ties_go_to_the_smaller_alpha(gx):
    rates = {(r, "GPC", a): 0.5 for r in ("A", "B") for a in (0.1, 1.0, 10.0)}
    assert (gx.choose_alphas(_predictions(rates))["alpha"] == 0.1).all()


def test_regions_and_growth(gx):
    rates = {(r, m, a): rate for r in ("A", "B") for m, a, rate in
             (("GPC", 0.0, 0.5), ("HPC-laplace", 0.0, 0.8), ("HPC-hypsecant", 0.0, 0.8),
              ("sklearn-GPC", np.nan, 0.3))}
    predictions = _predictions(rates)
    # Densities 1..10 in every block; reference 1..10: quantile 0.3 puts densities below 3.7 in the sparse region.
    fig43, fig44 = gx.summarize(predictions, np.arange(1.0, 11.0), quantile=0.3, growth=(0.3, 0.95))
    mean = fig43[fig43["residue"] == "mean"].set_index("method")
    # The right predictions are the lowest densities (i < n_right), so the sparse points (1, 2, 3) are all right.
    assert mean.loc["HPC-laplace", "rate_sparse"] == 100 and mean.loc["GPC", "rate_sparse"] == 100
    # Dense: densities 4..10 (7 points per fold); HPC right on 4..8 (5 of 7), GPC on 4, 5 (2 of 7).
    assert mean.loc["HPC-laplace", "rate_dense"] == pytest.approx(500 / 7)
    assert mean.loc["HPC-laplace", "over_gpc_dense"] == pytest.approx(300 / 7)
    assert mean.loc["GPC", "n_sparse"] == 2 * 2 * 3  # residues x folds x points
    grown = fig44[fig44["quantile"] == 0.95].set_index("method")["rate_sparse"]
    assert grown["GPC"] == pytest.approx(100 * 5 / 9) and grown["sklearn-GPC"] == pytest.approx(100 * 3 / 9)


def test_folds_and_training_draws_are_fixed_and_disjoint(gx):
    folds = gx.folds_of("ARG", 491, 10, 0)
    assert np.array_equal(folds, gx.folds_of("ARG", 491, 10, 0))
    assert np.bincount(folds).min() == 49 and np.bincount(folds).max() == 50
    pool = np.flatnonzero(folds != 3)
    train = gx.training_rows("ARG", 3, pool, 100, 0)
    assert train.size == 100 and np.all(folds[train] != 3) and np.unique(train).size == 100
    assert np.array_equal(train, gx.training_rows("ARG", 3, pool, 100, 0))


@pytest.mark.slow
def test_quick_run_end_to_end(gx, tmp_path):
    assert gx.main(["fig4_3", "--quick", "--n-jobs", "1", "--results-dir", str(tmp_path), "--no-figures"]) == 0
    predictions = pd.read_csv(tmp_path / gx.PREDICTIONS)
    fits = pd.read_csv(tmp_path / gx.FITS)
    fig43 = pd.read_csv(tmp_path / "gp_fig4_3.csv")
    fig44 = pd.read_csv(tmp_path / "gp_fig4_4.csv")
    assert set(fits["method"]) == set(gx.METHODS)
    assert set(fits["residue"]) == set(gx.QUICK["residues"]) and set(fits["fold"]) == set(range(gx.QUICK["folds"]))
    assert (fits["n_train"] <= gx.QUICK["n_train"]).all() and (fits["seconds"] >= 0).all()
    # Every test point once per residue, method and alpha: the folds partition each residue's rows.
    hpc = predictions[(predictions["method"] == "GPC") & (predictions["alpha"] == 0.0)]
    assert not hpc.duplicated(["residue", "row"]).any()
    assert hpc.groupby("residue").size().to_dict() == {"ARG": 491, "SER": 659, "VAL": 706}
    assert predictions["p_predicted"].between(0, 1).all()
    mean = fig43[fig43["residue"] == "mean"].set_index("method")
    assert set(mean.index) == set(gx.METHODS)
    assert mean[["rate_sparse", "rate_dense"]].stack().between(20, 100).all()  # better than chance (one third)
    assert sorted(fig44["quantile"].unique()) == sorted(gx.GROWTH_QUANTILES)


def test_figure_4_1_and_4_2_are_drawn(gx, tmp_path):
    assert gx.run_fig4_1(figures=tmp_path).stat().st_size > 10_000
    assert gx.run_fig4_2(figures=tmp_path, grid_points=41).stat().st_size > 10_000
    assert gx.FIG4_2_QUANTILES[0] == gx.SPARSE_QUANTILE  # the darkest shade is Figure 4.3's sparse region


def test_a_fold_with_two_rotamers_fits_the_gaussian_classifier_without_n_samples(gx):
    # a rotamer dropped from a fold leaves two classes, which the Gaussian marginal predicts exactly
    rng = np.random.default_rng(0)
    X = rng.uniform(-np.pi, np.pi, size=(12, 2))
    y = np.repeat([0, 2], 6)
    proba, info = gx._fit_predict("GPC", 0.0, X, y, X[:3], n_samples=200, seed=0)
    assert proba.shape == (3, 3) and np.all(proba[:, 1] == 0.0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
