"""paucity: learning when data is scarce, noisy or costly to collect.

Subpackages
-----------
info
    Discretization and information measures on sparse data.
markers
    Information-theoretic marker (feature) selection.
ranking
    Ranking items from pairwise comparisons.
differences
    Principal differences analysis and its sparse form (SPARDA), with permutation tests.
judgments
    Feature multi-selection: which crowd-judged attributes to buy, and how many judgments of each.
clustering
    Active spectral clustering when similarities are costly and noisy to measure.
crowd
    Pooling biased labelers: Bayesian bias mitigation (BBMC) and its baselines.
gp
    Heavy-tailed process classification: Gaussian processes through a copula, for sparse regions.
datasets
    Bundled data loaders and the synthetic generators of the seeds.
io
    Readers for h5ad, csv/tsv, 10x mtx folders and parquet; atomic writers.
"""

# Nothing here is imported before it is used: the ``paucity`` script imports this package before its Ctrl-C
# guard (paucity.cli.main) is set, so this body is part of the start-up that a Ctrl-C cannot be answered in.
from ._lazy import lazy_names

__all__ = ["info", "markers", "ranking", "differences", "judgments", "clustering", "crowd", "gp", "datasets", "io", "__version__"]

# __version__ is read from the installed package's metadata (written once, in pyproject.toml) on first use
__getattr__, __dir__ = lazy_names(__name__, {**{name: None for name in __all__[:-1]}, "__version__": "_version"})
