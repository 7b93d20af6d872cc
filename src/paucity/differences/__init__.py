"""Principal differences analysis (seed 004: Mueller & Jaakkola, PDA and SPARDA).

Given unpaired samples X (n × d) and Y (m × d) of the same features, find the
direction β in which the projected distributions βᵀX and βᵀY differ most.

- :mod:`paucity.differences.divergences`: divergences between two 1-D samples
  and their subgradients along a projection: :func:`wasserstein_1d`,
  :func:`wasserstein_gradient`, and the :class:`Divergence` interface with
  :class:`Wasserstein` and :class:`MannWhitney`.
- :mod:`paucity.differences.projections`: the building blocks of RELAX —
  projections onto the simplex and onto unit-trace PSD matrices, soft
  thresholding, all n·m pair costs and the weighted scatter, by matrix products.
- :mod:`paucity.differences.relax`: :func:`relax`, the dualized semidefinite
  relaxation of SPARDA by projected subgradients.
- :mod:`paucity.differences.tighten`: :func:`tighten`, projected subgradient
  ascent on the original objective, restricted to a support.

- :mod:`paucity.differences.pda`: :class:`PDA`, the estimator (PDA, and
  SPARDA with ``sparsity="l1"``).
- :mod:`paucity.differences.cv`: :class:`PDACV`, λ (or the number of
  features) chosen by the projected divergence on held-out samples.
- :mod:`paucity.differences.permutation`: :func:`permutation_test`, the
  two-sample test that refits the whole statistic on every permutation.
- :mod:`paucity.differences.analysis`: :func:`analyze`, the whole analysis
  (method, marginal normalization, fit, test) in one call, and its
  :class:`DifferencesResult`.
- :mod:`paucity.differences.adata`: :func:`compare`, two groups of an AnnData
  object, results in ``adata.uns`` and ``adata.var``.
- :mod:`paucity.differences.stored`: :class:`StoredDifferences`, the one
  writer and reader of what ``compare`` stores, and :func:`get`, the table of
  genes of a stored result.
"""

from .divergences import (
    Divergence,
    MannWhitney,
    Wasserstein,
    Wasserstein1DResult,
    wasserstein_1d,
    wasserstein_gradient,
)
from .projections import pair_costs, project_simplex, project_unit_trace_psd, soft_threshold, weighted_scatter
from .adata import compare
from .analysis import DifferencesResult, analyze, marginal_normalize
from .cv import PDACV, lambda_grid
from .pda import PDA
from .permutation import PermutationTestResult, permutation_test
from .relax import RelaxResult, relax
from .stored import StoredDifferences, get
from .tighten import TightenResult, tighten

__all__ = [
    "PDA",
    "PDACV",
    "lambda_grid",
    "analyze",
    "DifferencesResult",
    "compare",
    "get",
    "StoredDifferences",
    "marginal_normalize",
    "permutation_test",
    "PermutationTestResult",
    "Divergence",
    "MannWhitney",
    "Wasserstein",
    "Wasserstein1DResult",
    "wasserstein_1d",
    "wasserstein_gradient",
    "project_simplex",
    "project_unit_trace_psd",
    "soft_threshold",
    "pair_costs",
    "weighted_scatter",
    "relax",
    "RelaxResult",
    "tighten",
    "TightenResult",
]
