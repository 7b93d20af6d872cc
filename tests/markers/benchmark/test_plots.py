"""The figures and report of the benchmark; the old module name still works, with a FutureWarning."""

import importlib

import pytest

from paucity.markers.benchmark import plots, run_benchmark


@pytest.mark.slow  # 8 to 37 s: run by make test-slow, to keep make test near ten minutes
def test_figures_and_report(tiny, fast, tmp_path):
    result = run_benchmark(tiny.X, tiny.labels, methods=["mim", "cife-binary", "random"],
                           **dict(fast, classifiers=["random_forest", "nearest_centroids"], full_data=True, n_top=10))
    figures = plots.write_figures(result, tmp_path, prefix="tiny-")
    assert sorted(figures) == ["errors_nearest_centroids", "errors_random_forest", "interactions", "runtimes"]
    assert all(path.is_file() and path.name.startswith("tiny-") for path in figures.values())
    assert len(plots.plot_error_curves(result.table, "random_forest").axes) == 2  # multiclass and binary panels
    report = plots.report_markdown(result, figures, title="tiny")
    assert report.startswith("# tiny\n")
    assert "![errors_random_forest](tiny-errors_random_forest.png)" in report
    errors = plots.error_table(result.table, "nearest_centroids")
    assert list(errors.columns) == ["n=2", "n=4"]
    assert list(errors.index) == ["MIM", "CIFE (B)", "Random"]


def test_old_module_name_warns_and_gives_the_same_functions():
    old = importlib.import_module("paucity.markers.benchmark_plots")
    for name in old.__all__:
        with pytest.warns(FutureWarning, match=f"benchmark_plots.{name} moved to paucity.markers.benchmark.plots"):
            assert getattr(old, name) is getattr(plots, name)
    with pytest.warns(FutureWarning):
        from paucity.markers.benchmark_plots import write_figures  # noqa: F401
    with pytest.raises(AttributeError):
        old.plot_everything  # noqa: B018
