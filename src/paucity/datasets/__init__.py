"""Bundled data loaders and synthetic generators.

Functions
---------
make_scrna_counts
    Sparse negative-binomial count matrices with known cell types and marker genes.
pbmc68k_reduced
    scanpy's bundled 700-cell PBMC data set (needs ``paucity[scanpy]``).
btl_scores, btl_comparisons
    Bradley–Terry–Luce log-weights and comparisons of uniformly drawn pairs.
sample_pairs
    Uniform pairs of distinct items, with or without replacement.
flip_comparisons
    Every pair measured with a given rate, each outcome flipped with probability 1 - p.
feature_experiment
    The three synthetic feature experiments of the RankSVM comparison.
simulate_crowd
    Crowd judgments of real-valued and binary subjective features, with labels and the exact loss ℓ(r).
grouped_feature_crowd
    Noisy features made of groups of adjacent columns, each judgment one of the group's values.
"""

from .bundled import pbmc68k_reduced
from .judgments import (
    GroupedFeatureCrowd,
    SimulatedCrowd,
    grouped_feature_crowd,
    simulate_crowd,
)
from .ranking import (
    FeatureExperiment,
    btl_comparisons,
    btl_scores,
    feature_experiment,
    flip_comparisons,
    sample_pairs,
)
from .synthetic import SyntheticCounts, make_scrna_counts

__all__ = [
    "FeatureExperiment",
    "GroupedFeatureCrowd",
    "SimulatedCrowd",
    "SyntheticCounts",
    "btl_comparisons",
    "btl_scores",
    "feature_experiment",
    "flip_comparisons",
    "grouped_feature_crowd",
    "make_scrna_counts",
    "pbmc68k_reduced",
    "sample_pairs",
    "simulate_crowd",
]
