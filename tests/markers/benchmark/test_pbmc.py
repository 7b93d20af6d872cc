"""The seed's experiment on PBMC (seed 000, §2.6): every information method beats random markers.

``experiments/markers.py pbmc`` is the full run behind the figures of ``docs/markers-benchmark.md``.
"""

import anndata
import pytest

from paucity.markers.benchmark import plots, run_benchmark_adata


@pytest.mark.slow
def test_pbmc_benchmark_information_methods_beat_random_markers(tmp_path):
    sc = pytest.importorskip("scanpy")
    pbmc = sc.datasets.pbmc68k_reduced()
    adata = anndata.AnnData(pbmc.raw.X.expm1(), obs=pbmc.obs[["bulk_labels"]], var=pbmc.raw.var[[]])
    out = tmp_path / "pbmc"
    result = run_benchmark_adata(adata, "bulk_labels", n_markers=[5, 10, 20, 50], n_folds=5, out=out)
    figures = plots.write_figures(result, out)
    (out / "summary.md").write_text(plots.report_markdown(result, figures))
    for name in ("results.csv", "overlap.csv", "runtimes.csv", "interactions.csv"):
        assert (out / name).is_file()
    assert set(figures) == {"errors_random_forest", "errors_nearest_centroids", "runtimes", "interactions"}
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
