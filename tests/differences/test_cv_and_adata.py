"""PDACV (λ or k by held-out divergence) and compare (two groups of an AnnData object)."""

import anndata
import numpy as np
import pandas as pd
import pytest

from paucity._errors import InputError, NotFittedError, ParameterError
from paucity.differences import PDA, PDACV, analyze, compare, lambda_grid, marginal_normalize


def two_feature_change(n=160, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(n, d))
    Y[:, 0] *= 3.0
    Y[:, 1] += 1.5
    return X, Y


def test_lambda_grid_starts_at_the_largest_off_diagonal_scatter():
    X, Y = two_feature_change()
    grid = lambda_grid(X, Y, n_lams=5, ratio=0.1)
    difference = X.mean(0) - Y.mean(0)
    scatter = np.cov(X, rowvar=False, bias=True) + np.cov(Y, rowvar=False, bias=True) + np.outer(difference, difference)
    off = np.abs(scatter - np.diag(np.diag(scatter))).max()
    assert grid[0] == pytest.approx(off)
    assert grid[-1] == pytest.approx(off * 0.1)
    assert np.all(np.diff(grid) < 0)


def test_cv_over_cardinalities_prefers_the_features_that_differ():
    X, Y = two_feature_change()
    model = PDACV(n_features=[1, 2, 8], random_state=0, n_splits=2).fit(X, Y)
    assert model.n_features_ in (1, 2)
    assert set(model.selected_.tolist()) <= {0, 1}
    assert model.lam_ is None
    results = model.cv_results_
    assert results.columns.tolist() == ["n_features", "n_selected", "heldout_divergence", "heldout_divergence_std"]
    best = results["n_features"].tolist().index(model.n_features_)
    assert results["heldout_divergence"].iloc[best] == results["heldout_divergence"].max()
    np.testing.assert_allclose(model.transform(X)[:, 0], X @ model.beta_)


def test_cv_over_the_default_lambda_grid_refits_on_all_samples():
    X, Y = two_feature_change(seed=3)
    model = PDACV(n_lams=4, random_state=0, max_iter=100).fit(X, Y)
    assert model.lam_ in model.cv_results_["lam"].tolist()
    reference = model.best_estimator_
    assert isinstance(reference, PDA) and reference.lam == model.lam_
    np.testing.assert_array_equal(model.beta_, reference.beta_)
    assert 0 in model.selected_.tolist()


def test_cv_errors():
    X, Y = two_feature_change()
    with pytest.raises(ParameterError, match="not both"):
        PDACV(lams=[0.1], n_features=[1]).fit(X, Y)
    with pytest.raises(ParameterError, match=r"n_features must be integers between 1 and the number of features of X \(8\)"):
        PDACV(n_features=[0, 3]).fit(X, Y)
    with pytest.raises(ParameterError, match="lams must be non-negative"):
        PDACV(lams=[-1.0]).fit(X, Y)
    with pytest.raises(ParameterError, match=r"PDACV: test_size must be a number in \(0, 1\)"):
        PDACV(n_features=[1], test_size=1.5).fit(X, Y)
    with pytest.raises(ParameterError, match="PDACV: random_state must be a non-negative integer seed"):
        PDACV(n_features=[1], random_state=-1).fit(X, Y)
    with pytest.raises(ParameterError, match="PDACV: n_lams must be an integer >= 1"):
        PDACV(n_lams=0).fit(X, Y)
    with pytest.raises(ParameterError, match="fewer than 2 samples"):
        PDACV(n_features=[1]).fit(X[:3], Y[:3])
    with pytest.raises(NotFittedError):
        PDACV().transform(X)


def test_cv_with_one_feature_has_nothing_to_choose():
    # every candidate selects the one feature (the direction is ±1): the error says so, as scikit-learn's checks ask
    X, Y = two_feature_change()
    with pytest.raises(InputError, match=r"X has 1 feature\(s\).*nothing to choose.*fit PDA instead"):
        PDACV(n_lams=2).fit(X[:, :1], Y[:, :1])


def test_marginal_normalize_centres_and_scales_each_column():
    rng = np.random.default_rng(0)
    X = rng.normal(3.0, 2.0, size=(50, 3))
    X[:, 2] = 7.0
    Z = marginal_normalize(X)
    np.testing.assert_allclose(Z.mean(0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.std(0), [1.0, 1.0, 0.0], atol=1e-12)


def cells(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(90, 5))
    X[45:, 3] *= 4.0
    obs = pd.DataFrame({"kind": ["a"] * 45 + ["b"] * 45, "other": ["x"] * 90}, index=[f"c{i}" for i in range(90)])
    var = pd.DataFrame(index=[f"gene{k}" for k in range(5)])
    return anndata.AnnData(X, obs=obs, var=var)


def uns_table(adata, key):
    return pd.DataFrame({name: values for name, values in adata.uns[key].items() if name != "params"})


def test_compare_writes_the_table_and_the_weights_into_adata():
    adata = cells()
    assert compare(adata, "kind", "a", "b", n_features=1, key_added="diff") is None
    stored = adata.uns["diff"]
    table = uns_table(adata, "diff")
    assert table.columns.tolist() == ["names", "indices", "weights", "ranks", "means_x", "means_y"]
    assert stored["names"].tolist() == ["gene3"] and stored["indices"].tolist() == [3]
    assert stored["ranks"].tolist() == [1] and stored["weights"].tolist() == [1.0]
    assert stored["means_x"][0] == pytest.approx(adata.X[:45, 3].mean())
    assert stored["means_y"][0] == pytest.approx(adata.X[45:, 3].mean())
    params = stored["params"]
    assert params["groups"] == ["a", "b"] and params["groupby"] == "kind" and params["n_features"] == 1
    assert params["method"] == "SPARDA" and params["cv"] is False and params["use_raw"] is False
    assert "lam" not in params and "layer" not in params and "pvalue" not in params
    assert adata.var["diff_weight"].tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    direct = PDA(sparsity="l1", n_features=1, random_state=0).fit(adata.X[:45], adata.X[45:])
    assert params["statistic"] == pytest.approx(direct.divergence_)
    assert analyze(adata.X[:45], adata.X[45:], n_features=1, random_state=0).to_frame()["weights"].tolist() == [1.0]


def test_compare_with_copy_leaves_the_input_untouched():
    adata = cells()
    new = compare(adata, "kind", "a", "b", n_features=1, copy=True)
    assert new is not adata and "paucity_differences" in new.uns and "paucity_differences_weight" in new.var
    assert "paucity_differences" not in adata.uns and "paucity_differences_weight" not in adata.var


def test_compare_results_survive_an_h5ad_round_trip(tmp_path):
    adata = cells()
    compare(adata, "kind", "a", "b", n_features=2, n_permutations=4, max_iter=60)
    adata.write_h5ad(tmp_path / "cells.h5ad")
    back = anndata.read_h5ad(tmp_path / "cells.h5ad")
    pd.testing.assert_frame_equal(uns_table(back, "paucity_differences"), uns_table(adata, "paucity_differences"),
                                  check_dtype=False, check_like=True)
    assert back.uns["paucity_differences"]["params"]["pvalue"] == adata.uns["paucity_differences"]["params"]["pvalue"]
    assert back.uns["paucity_differences"]["params"]["n_permutations"] == 4


def test_compare_k_is_the_deprecated_name_of_n_features():
    adata = cells()
    with pytest.warns(FutureWarning, match=r"compare\(k=...\) is deprecated.*use n_features="):
        compare(adata, "kind", "a", "b", k=1, key_added="old")
    compare(adata, "kind", "a", "b", n_features=1, key_added="new")
    assert adata.uns["old"]["names"].tolist() == adata.uns["new"]["names"].tolist() == ["gene3"]


def test_compare_reads_layers_raw_and_normalizes_marginally():
    adata = cells()
    adata.layers["doubled"] = adata.X * 2.0
    compare(adata, "kind", "a", "b", layer="doubled", n_features=1)
    assert adata.uns["paucity_differences"]["names"].tolist() == ["gene3"]
    assert adata.uns["paucity_differences"]["params"]["layer"] == "doubled"
    # within each group every gene has mean 0 and variance 1: a pure scale change disappears
    compare(adata, "kind", "a", "b", marginal_normalize=True, random_state=0)
    assert adata.uns["paucity_differences"]["params"]["marginal_normalize"] is True
    assert adata.uns["paucity_differences"]["params"]["statistic"] < 0.5
    assert len(adata.uns["paucity_differences"]["names"]) >= 1
    raw = cells()
    raw.raw = raw.copy()
    raw.X = np.zeros_like(raw.X) + np.arange(5)
    compare(raw, "kind", "a", "b", n_features=1)  # use_raw=None reads .raw
    assert raw.uns["paucity_differences"]["names"].tolist() == ["gene3"]
    assert raw.uns["paucity_differences"]["params"]["use_raw"] is True
    assert raw.var["paucity_differences_weight"].tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]


def test_compare_weights_of_raw_genes_are_matched_by_name():
    adata = cells()
    adata.raw = adata.copy()
    adata = adata[:, ["gene4", "gene3", "gene0"]].copy()  # fewer genes in .X than in .raw, another order
    compare(adata, "kind", "a", "b", n_features=1)
    assert adata.var["paucity_differences_weight"].tolist() == [0.0, 1.0, 0.0]


def test_compare_errors():
    adata = cells()
    with pytest.raises(InputError, match="'missing' is not a column of adata.obs"):
        compare(adata, "missing", "a", "b")
    with pytest.raises(InputError, match="group 'c' has no cells"):
        compare(adata, "kind", "a", "c")
    with pytest.raises(ParameterError, match="group1 and group2 are both 'a'; name two different groups"):
        compare(adata, "kind", "a", "a")
    with pytest.raises(ParameterError, match="lam and cv are exclusive"):
        compare(adata, "kind", "a", "b", lam=0.1, cv=True)
    with pytest.raises(ParameterError, match="layer 'nope'"):
        compare(adata, "kind", "a", "b", layer="nope")
    with pytest.raises(ParameterError, match="compare: copy must be True or False"):
        compare(adata, "kind", "a", "b", copy="yes")
    adata.obs.loc["c0", "kind"] = "lonely"
    with pytest.raises(InputError, match="group 'lonely' has 1 cell"):
        compare(adata, "kind", "lonely", "b")
    assert "paucity_differences" not in adata.uns


def test_tolerance_prefers_the_sparsest_candidate_close_to_the_best():
    X, Y = two_feature_change(seed=1)
    strict = PDACV(n_features=[1, 2, 8], random_state=0).fit(X, Y)
    loose = PDACV(n_features=[1, 2, 8], random_state=0, tolerance=0.9).fit(X, Y)
    results = loose.cv_results_
    close = results[results["heldout_divergence"] >= 0.1 * results["heldout_divergence"].max()]
    assert loose.n_features_ == close.sort_values("n_selected")["n_features"].iloc[0]
    assert strict.n_features_ == results["n_features"].iloc[int(results["heldout_divergence"].argmax())]
    with pytest.raises(ParameterError, match="tolerance"):
        PDACV(n_features=[1], tolerance=1.0).fit(X, Y)


def test_ks_and_k_are_the_deprecated_names_of_n_features_and_n_features_():
    X, Y = two_feature_change()
    with pytest.warns(FutureWarning, match=r"PDACV\(ks=...\) is deprecated.*use n_features="):
        old = PDACV(ks=[1, 2], random_state=0, max_iter=60).fit(X, Y)
    new = PDACV(n_features=[1, 2], random_state=0, max_iter=60).fit(X, Y)
    np.testing.assert_array_equal(old.beta_, new.beta_)
    with pytest.warns(FutureWarning, match=r"PDACV.k_ is deprecated.*use n_features_"):
        assert old.k_ == new.n_features_


def test_cv_fits_one_matrix_and_two_valued_labels():
    X, Y = two_feature_change()
    pooled, labels = np.vstack([X, Y]), np.repeat(["x", "y"], [len(X), len(Y)])
    by_labels = PDACV(n_features=[1, 2], random_state=0, max_iter=60).fit(pooled, labels)
    by_samples = PDACV(n_features=[1, 2], random_state=0, max_iter=60).fit(X, Y)
    np.testing.assert_array_equal(by_labels.beta_, by_samples.beta_)
    assert by_labels.classes_.tolist() == ["x", "y"]
    assert by_labels.selected_names_.tolist() == [f"x{j}" for j in by_labels.selected_]


def test_pdacv_passes_support_rules_to_every_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)); Y = rng.normal(size=(60, 4)); Y[:, 1] += 1.0
    model = PDACV(n_features=[1, 2], support_rules=False, random_state=0, max_iter=30).fit(X, Y)
    assert model.best_estimator_.get_params()["support_rules"] is False
    assert PDACV().get_params()["support_rules"] is True
