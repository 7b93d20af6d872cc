"""Discretization and information measures on sparse data.

Functions
---------
discretize
    Recursive-quantile binning per feature (seed 000, Algorithm 2).
entropy, joint_entropy, mutual_info, conditional_mutual_info, interaction_info
    Empirical information measures in bits (seed 000, section 2.2 and
    Proposition 2.1).
"""

from .counts import BinnedMatrix, candidate_interactions
from .discretize import discretize
from .measures import conditional_mutual_info, entropy, interaction_info, joint_entropy, mutual_info

__all__ = [
    "discretize",
    "entropy",
    "joint_entropy",
    "mutual_info",
    "conditional_mutual_info",
    "interaction_info",
    "BinnedMatrix",
    "candidate_interactions",
]
