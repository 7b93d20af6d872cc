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
rotamers, rotamer_table
    Backbone angles (Phi, Psi) and chi1 rotamer classes of real protein structures (cached table; builder).
dihedral, rotamer_class, ramachandran_density, sparse_mask
    Dihedral angles, chi1 rotamer bins, and dense and sparse regions of the Ramachandran plot.
torus_classes
    Three classes on the torus with dense clusters and isolated points.
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
from .ramachandran import (
    dihedral,
    ramachandran_density,
    rotamer_class,
    rotamer_table,
    rotamers,
    sparse_mask,
)
from .synthetic import SyntheticCounts, make_scrna_counts
from .torus import TorusClasses, torus_classes

__all__ = [
    "FeatureExperiment",
    "GroupedFeatureCrowd",
    "SimulatedCrowd",
    "SyntheticCounts",
    "TorusClasses",
    "btl_comparisons",
    "btl_scores",
    "dihedral",
    "feature_experiment",
    "flip_comparisons",
    "grouped_feature_crowd",
    "make_scrna_counts",
    "pbmc68k_reduced",
    "ramachandran_density",
    "rotamer_class",
    "rotamer_table",
    "rotamers",
    "sample_pairs",
    "simulate_crowd",
    "sparse_mask",
    "torus_classes",
]
