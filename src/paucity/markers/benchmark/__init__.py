"""The cross-validation benchmark of marker selection methods (seed 000, §2.6.2).

The protocol, with no leakage between folds:

1. split the cells into k stratified folds (seeded; the split can be saved
   and reloaded, see :class:`Folds`);
2. for each fold, on the *other* folds only: select n markers with each
   method, then train a random forest and a nearest-centroid classifier on
   those markers, and predict the cells of the fold;
3. report the error rate of every (method, n, fold, classifier) in a tidy
   table, with the number of markers actually used (binary methods merge
   ⌈n/c⌉ per class and may give fewer, Remark 1) and the selection time.

:func:`run_benchmark` runs it on arrays, :func:`run_benchmark_adata` on an
AnnData; with ``out=`` every (fold, method, n) result is a file written
atomically, so an interrupted run resumes where it stopped and the folds can be
split across jobs. Besides the cross-validation, each method also selects
``max(n_features)`` genes on all the cells (the seed's Tables 2.2-2.5 of genes
in common and its Figure 2.6 of run times), and :func:`pair_interactions`
gives the histogram of I(x_i; x_j; y) over pairs of top features (Figure 2.7).

One module per idea:

- :mod:`~paucity.markers.benchmark.folds`: :class:`Folds`, :func:`make_folds`;
- :mod:`~paucity.markers.benchmark.seeds`: the run's one recorded integer seed;
- :mod:`~paucity.markers.benchmark.methods`: :class:`BenchmarkMethod`, the
  registry (:func:`resolve_methods`) and the scanpy, random-forest and random
  baselines;
- :mod:`~paucity.markers.benchmark.anchors`: COSG, run by the Python of its own
  environment (``cosg_python=``, ``PAUCITY_COSG_PYTHON``);
- :mod:`~paucity.markers.benchmark.classifiers`: :func:`classification_error`;
- :mod:`~paucity.markers.benchmark.interactions`: :func:`pair_interactions`;
- :mod:`~paucity.markers.benchmark.store`: the resumable result folder;
- :mod:`~paucity.markers.benchmark.run`: :func:`run_benchmark`, the loop;
- :mod:`~paucity.markers.benchmark.adata`: :func:`run_benchmark_adata`;
- :mod:`~paucity.markers.benchmark.results`: :class:`BenchmarkResult`,
  :func:`summarize`, :func:`overlap_table`;
- :mod:`~paucity.markers.benchmark.plots`: the figures and the markdown report.
"""

from ..greedy import merge_per_class
from .adata import run_benchmark_adata
from .classifiers import CLASSIFIERS, classification_error
from .folds import Folds, make_folds
from .interactions import PairInteractions, pair_interactions
from .methods import (
    ANCHOR_METHODS,
    AVAILABLE_METHODS,
    DEFAULT_METHODS,
    INFORMATION_METHODS,
    SCANPY_METHODS,
    BenchmarkMethod,
    TimedSelection,
    method_label,
    resolve_methods,
)
from .results import TABLE_COLUMNS, BenchmarkResult, overlap_table, summarize
from .run import DEFAULT_N_FEATURES, run_benchmark

__all__ = [
    "ANCHOR_METHODS",
    "AVAILABLE_METHODS",
    "BenchmarkMethod",
    "BenchmarkResult",
    "CLASSIFIERS",
    "DEFAULT_METHODS",
    "DEFAULT_N_FEATURES",
    "Folds",
    "PairInteractions",
    "TimedSelection",
    "classification_error",
    "make_folds",
    "merge_per_class",
    "method_label",
    "overlap_table",
    "pair_interactions",
    "resolve_methods",
    "run_benchmark",
    "run_benchmark_adata",
    "summarize",
]
