"""Seed 000, chapter 2: Examples 1-4 and 6, built from random bits.

Each example draws enough samples that the empirical information matches the
stated values within 0.02 bits, then checks the stated values and choices.
"""

import numpy as np
import pytest

from paucity.info import BinnedMatrix, interaction_info, mutual_info
from paucity.markers import InfoSelector, Stepwise, make_objective

N = 2**15
TOL = 0.02


def bits(n_bits: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 2, N) for _ in range(n_bits + 1)]  # b[1..n_bits]; b[0] unused


def number(*bs) -> np.ndarray:
    """The binary concatenation b_i b_j ... as an integer."""
    out = np.zeros(N, dtype=np.int64)
    for b in bs:
        out = 2 * out + b
    return out


def search(method, columns, y, **kwargs):
    X = np.column_stack(columns).astype(np.uint8)
    labels = np.unique(y, return_inverse=True)[1].astype(np.int64)
    return Stepwise(BinnedMatrix.from_binned(X), make_objective(method, **kwargs), labels=labels)


def test_example_1_diminishing_penalty():
    b = bits(11, seed=1)
    x1, x2, x3, x4 = number(*b[1:6]), number(*b[6:11]), b[11], number(b[1], b[2], b[3])
    y = number(*b[1:12])
    for method in ("mrmr", "jmi"):
        s = search(method, [x1, x2, x3, x4], y)
        first_two = {s.step()[0], s.step()[0]}
        assert first_two == {0, 1}
        scores = s.scores()
        assert scores[2] == pytest.approx(1.0, abs=TOL)  # J(x3) = 1
        assert scores[3] == pytest.approx(1.5, abs=TOL)  # J(x4) = 3 - 3/2
        assert s.step()[0] == 3  # x4, which adds nothing
    s = search("cife", [x1, x2, x3, x4], y)
    s.step(), s.step()
    assert s.step()[0] == 2  # CIFE takes x3


def test_example_2_irrelevant_redundancy():
    b = bits(5, seed=2)
    x1, x2, x3 = number(b[1], b[2], b[3]), number(b[1], b[2], b[4]), b[5]
    y = number(b[3], b[4])
    assert mutual_info(x2, y) == pytest.approx(1.0, abs=TOL)
    assert mutual_info(x1, x2) == pytest.approx(2.0, abs=TOL)
    choices = {}
    for method in ("cife", "mrmr"):
        s = search(method, [x1, x2, x3], y)
        s.add(0)  # without loss of generality, x1 first
        choices[method] = s.step()[0]
    assert choices == {"cife": 1, "mrmr": 2}  # CIFE picks x2, mRMR picks x3


def test_example_3_synergy():
    b = bits(2, seed=3)
    x1, x2 = b[1], b[2]
    y = x1 ^ x2
    assert mutual_info(x1, y) == pytest.approx(0.0, abs=TOL)
    assert mutual_info(x2, y) == pytest.approx(0.0, abs=TOL)
    assert mutual_info(np.column_stack([x1, x2]), y) == pytest.approx(1.0, abs=TOL)
    assert interaction_info(x1, x2, y) == pytest.approx(-1.0, abs=TOL)
    s = search("cife", [x1, x2], y)
    s.add(0)
    assert s.scores()[1] == pytest.approx(1.0, abs=TOL)  # CIFE credits the synergy


def test_example_4_shared_redundancy():
    b = bits(5, seed=4)
    x1, x2, x3, x4 = number(b[1], b[4]), number(b[2], b[4]), number(b[3], b[4]), b[5]
    y = number(b[1], b[2], b[3], b[4])
    assert mutual_info(np.column_stack([x1, x2, x3]), y) == pytest.approx(4.0, abs=TOL)
    assert mutual_info(np.column_stack([x1, x2, x4]), y) == pytest.approx(3.0, abs=TOL)
    cife = search("cife", [x1, x2, x3, x4], y)
    cife.add(0), cife.add(1)
    # CIFE penalizes x3 twice for b4: its gain 2 - 1 - 1 = 0 looks no better than x4's
    assert cife.scores()[2] == pytest.approx(0.0, abs=TOL)
    assert cife.scores()[3] == pytest.approx(0.0, abs=TOL)
    # the degree-3 term I(x1; x2; x3; y) = 1 gives it back: J_deg3(x3) = 1 = its true gain
    degree3 = search("degree", [x1, x2, x3, x4], y, degree=3)
    degree3.add(0), degree3.add(1)
    assert interaction_info(x1, x2, x3, y) == pytest.approx(1.0, abs=TOL)
    assert degree3.scores()[2] == pytest.approx(1.0, abs=TOL)
    assert degree3.step()[0] == 2


def test_example_6_multiclass_versus_binary():
    b = bits(2, seed=6)
    y = number(b[1], b[2])
    indicators = [(y == i).astype(np.int64) for i in range(4)]
    X = np.column_stack(indicators + [b[1], b[2]]).astype(np.uint8)
    for i in range(4):
        assert mutual_info(indicators[i], y) == pytest.approx(0.811, abs=TOL)
        assert mutual_info(b[1], indicators[i]) == pytest.approx(0.311, abs=TOL)
    assert mutual_info(b[1], y) == pytest.approx(1.0, abs=TOL)
    multiclass = InfoSelector(method="mim", n_features=2, n_bins=None).fit(X, y)
    assert set(multiclass.selected_.tolist()) == {4, 5}
    binary = InfoSelector(method="mim", n_features=4, mode="binary", n_bins=None).fit(X, y)
    assert set(binary.selected_.tolist()) == {0, 1, 2, 3}
    assert {int(k): v.tolist() for k, v in binary.selected_per_class_.items()} == {0: [0], 1: [1], 2: [2], 3: [3]}
