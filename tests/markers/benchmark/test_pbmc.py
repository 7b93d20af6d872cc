"""The seed's experiment on PBMC (seed 000, §2.6), as ``experiments/markers.py pbmc`` runs it."""

import pytest


@pytest.mark.slow
def test_pbmc_benchmark_information_methods_beat_random_markers(tmp_path):
    pytest.importorskip("scanpy")
    from experiments import markers  # the repository root is on pytest's path (pyproject.toml)

    result = markers.run("pbmc", tmp_path, record=False, progress=False)
    out = tmp_path / "pbmc"
    for name in ("results.csv", "overlap.csv", "runtimes.csv", "interactions.csv", "summary.md",
                 "errors_random_forest.png", "errors_nearest_centroids.png", "runtimes.png", "interactions.png"):
        assert (out / name).is_file(), name
    table = result.table
    assert len(table) == 12 * 4 * 5 * 2
    assert table["error_rate"].between(0, 1).all()
    means = table.groupby(["method", "mode"])["error_rate"].mean()
    random = means[("random", "multiclass")]
    for method in ("mim", "jmi", "cife"):
        for mode in ("multiclass", "binary"):
            assert means[(method, mode)] < random, (method, mode)
    # paired by fold, n and classifier: the information methods win most comparisons with random genes
    wide = table.pivot_table(index=["n_requested", "fold", "classifier"], columns=["method", "mode"], values="error_rate")
    assert (wide[("jmi", "multiclass")] < wide[("random", "multiclass")]).mean() > 0.8
    assert 0.0 < result.interactions.negative_fraction < 1.0
    # the page's numbers: mean error over 5 folds, random forest, n = 5
    forest = table[(table["classifier"] == "random_forest") & (table["n_requested"] == 5)]
    by_method = forest.groupby(["method", "mode"])["error_rate"].mean()
    assert round(by_method[("mim", "multiclass")], 3) == 0.373
    assert round(by_method[("random", "multiclass")], 3) == 0.611
    assert round(100 * result.interactions.negative_fraction, 1) == 38.5
