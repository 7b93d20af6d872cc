"""Deprecated: the benchmark's figures moved to :mod:`paucity.markers.benchmark.plots`.

Every name here still works and warns (``FutureWarning``); import from
``paucity.markers.benchmark.plots`` instead. This module will be removed in
a later release.
"""

from __future__ import annotations

import warnings

__all__ = ["plot_error_curves", "plot_runtimes", "plot_interactions", "write_figures", "error_table", "report_markdown"]


def __getattr__(name: str):
    if name in __all__:
        from .benchmark import plots

        warnings.warn(
            f"paucity.markers.benchmark_plots.{name} moved to paucity.markers.benchmark.plots.{name}; "
            "import it from there (the old module will be removed in a later release).",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(plots, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
