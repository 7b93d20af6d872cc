"""Bundled data loaders and synthetic generators.

Functions
---------
make_scrna_counts
    Sparse negative-binomial count matrices with known cell types and marker genes.
pbmc68k_reduced
    scanpy's bundled 700-cell PBMC data set (needs ``paucity[scanpy]``).
"""

from .bundled import pbmc68k_reduced
from .synthetic import SyntheticCounts, make_scrna_counts

__all__ = ["SyntheticCounts", "make_scrna_counts", "pbmc68k_reduced"]
