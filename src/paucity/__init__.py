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

from importlib.metadata import PackageNotFoundError, version

from ._lazy import lazy_names

try:  # written once, in pyproject.toml; read from the installed package's metadata
    __version__ = version("paucity")
except PackageNotFoundError:  # the source tree, not installed
    __version__ = "0+unknown"
__all__ = ["info", "markers", "ranking", "differences", "judgments", "clustering", "crowd", "gp", "datasets", "io", "__version__"]

__getattr__, __dir__ = lazy_names(__name__, {name: None for name in __all__[:-1]})
