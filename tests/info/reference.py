"""Slow, obvious NumPy twins of the paucity.info kernels."""

from __future__ import annotations

from itertools import combinations

import numpy as np


def discretize_column(column: np.ndarray, n_bins: int) -> np.ndarray:
    """Seed 000 Algorithm 2 written out with numpy.quantile on float64 values."""
    values = np.asarray(column, dtype=np.float64)
    remaining = values
    edges = []
    for level in range(n_bins):
        if remaining.size == 0:
            break
        left = n_bins - level
        edge = remaining.max() if left <= 1 else np.quantile(remaining, 1.0 / left)
        edges.append(edge)
        remaining = remaining[remaining > edge]
    edges = np.array(edges)
    return np.array([int(np.flatnonzero(edges >= v)[0]) for v in values], dtype=np.uint8)


def discretize(X: np.ndarray, n_bins: int) -> np.ndarray:
    return np.column_stack([discretize_column(X[:, j], n_bins) for j in range(X.shape[1])])


def joint_entropy(*columns) -> float:
    """H of the joint variable, in bits, with -sum p log2 p."""
    stacked = np.column_stack([np.asarray(c) for c in columns])
    _, counts = np.unique(stacked, axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def interaction(*columns) -> float:
    """Proposition 2.1, by brute force over subsets."""
    total = 0.0
    for size in range(1, len(columns) + 1):
        for subset in combinations(columns, size):
            total += (-1) ** (size + 1) * joint_entropy(*subset)
    return total
