"""Deprecated: the benchmark's figures moved to :mod:`paucity.markers.benchmark.plots`.

Every name here still works and warns (``FutureWarning``); import from
``paucity.markers.benchmark.plots`` instead. This module will be removed in
a later release.
"""

from __future__ import annotations

from .._lazy import lazy_names

__all__ = ["plot_error_curves", "plot_runtimes", "plot_interactions", "write_figures", "error_table", "report_markdown"]  # noqa: F822

__getattr__, __dir__ = lazy_names(
    __name__, dict.fromkeys(__all__, "paucity.markers.benchmark.plots"),
    moved={name: f"moved to paucity.markers.benchmark.plots.{name}; import it from there (the old module will be "
                 "removed in a later release)." for name in __all__},
)
