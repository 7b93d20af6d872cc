"""I(x_i; x_j; y) over pairs of top features (seed 000, Figure 2.7)."""

import numpy as np
import pytest

from paucity.markers.benchmark import pair_interactions


def test_pair_interactions_negative_fraction_on_a_hand_made_case():
    # x1, x2: y = x1 XOR x2 (synergy, I = -1); x3 = x4 = y (redundancy, I(x3; x4; y) = +1)
    x1 = np.tile([0, 0, 1, 1], 50)
    x2 = np.tile([0, 1, 0, 1], 50)
    y = x1 ^ x2
    X = np.column_stack([x1, x2, y, y])
    result = pair_interactions(X, y, n_top=4, n_bins=None)
    values = {tuple(sorted((int(i), int(j)))): v for i, j, v in zip(result.first, result.second, result.values)}
    assert values[(0, 1)] == pytest.approx(-1.0)
    assert values[(2, 3)] == pytest.approx(1.0)
    assert values[(0, 2)] == pytest.approx(0.0)
    assert result.negative_fraction == pytest.approx(1 / 6)
    assert list(result.features[:2]) == [2, 3]  # ordered by I(x; y)
    frame = result.to_frame(["a", "b", "c", "d"])
    assert list(frame.columns) == ["feature_i", "feature_j", "gene_i", "gene_j", "interaction"]
    assert len(frame) == 6
