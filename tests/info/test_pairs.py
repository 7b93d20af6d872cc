import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity.info import BinnedMatrix, candidate_interactions
from paucity.info import counts
from paucity.info.counts import PairCounter


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.booleans(), st.sampled_from([0, 1 << 20]))
def test_pair_counts_equal_full_counts_to_the_bit(seed, with_labels, row_order_bytes):
    # 0: every table is filled slab by slab; 1 MiB: these small ones in the rows' own order
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(counts, "ROW_ORDER_TABLE_BYTES", row_order_bytes)
        check_pair_counts(seed, with_labels)


def check_pair_counts(seed, with_labels):
    rng = np.random.default_rng(seed)
    n, m, n_classes = int(rng.integers(2, 120)), int(rng.integers(1, 8)), int(rng.integers(1, 5))
    X = (rng.integers(0, 5, (n, m)) * (rng.random((n, m)) < rng.random())).astype(np.uint8)
    X[0, 0] = 1  # at least two bins
    y = rng.integers(0, n_classes, n)
    binned = BinnedMatrix.from_binned(X)
    columns = np.arange(m)
    counter = PairCounter(binned, y if with_labels else None, n_classes)
    for feature in range(m):
        pair, pair_with_labels = counter.entropies(feature, columns)
        expected = {}
        s = binned.column(feature)
        candidate_interactions(binned, [s, y], [binned.n_bins, n_classes], columns, names=[feature, "y"], cache=expected)
        np.testing.assert_array_equal(pair, expected[frozenset({feature})])
        if with_labels:
            np.testing.assert_array_equal(pair_with_labels, expected[frozenset({feature, "y"})])


def test_slabs_too_large_for_16_bit_counters():
    # 70,000 rows share one (bin of s, label) slab: the counters must widen, not wrap
    rng = np.random.default_rng(0)
    n = 70_000
    X = np.column_stack([np.ones(n), rng.integers(0, 4, n), rng.integers(0, 2, n)]).astype(np.uint8)
    binned = BinnedMatrix.from_binned(X)
    columns = np.arange(3)
    pair, _ = PairCounter(binned).entropies(0, columns)
    expected = {}
    candidate_interactions(binned, [binned.column(0)], [binned.n_bins], columns, names=[0], cache=expected)
    np.testing.assert_array_equal(pair, expected[frozenset({0})])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_a_folded_counter_counts_as_one_built_on_the_folded_labels(seed):
    """One group against the rest, from the all-groups counts: the same reference and entropies, to the bit."""
    rng = np.random.default_rng(seed)
    n, m, n_classes = int(rng.integers(2, 150)), int(rng.integers(1, 8)), int(rng.integers(2, 6))
    X = (rng.integers(0, 5, (n, m)) * (rng.random((n, m)) < rng.random())).astype(np.uint8)
    X[0, 0] = 1
    y = rng.integers(0, n_classes, n)
    binned = BinnedMatrix.from_binned(X)
    groups = (np.arange(n_classes) == rng.integers(0, n_classes)).astype(np.int64)
    if rng.random() < 0.3:
        groups = rng.integers(0, 3, n_classes)  # any coarser coding
        groups[groups == groups.max()] = np.unique(groups).size - 1
        groups = np.unique(groups, return_inverse=True)[1]
    whole = PairCounter(binned, y, n_classes)
    folded = whole.folded(groups)
    direct = PairCounter(binned, groups[y], int(groups.max()) + 1)
    np.testing.assert_array_equal(folded.reference, direct.reference)
    columns = np.arange(m)
    for feature in range(m):
        mine = folded.entropies_of(*folded.fold(*whole.tables(feature)), columns)
        theirs = direct.entropies(feature, columns)
        np.testing.assert_array_equal(mine[0], theirs[0])
        np.testing.assert_array_equal(mine[1], theirs[1])
