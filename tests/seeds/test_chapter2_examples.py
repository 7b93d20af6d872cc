"""Seed 000, chapter 2: Examples 1-9, built from random bits.

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


def h2(p: float) -> float:
    """Binary entropy in bits."""
    return 0.0 if p in (0.0, 1.0) else float(-p * np.log2(p) - (1 - p) * np.log2(1 - p))


def noise(p: float, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(p) trials, the c_i of Examples 7 and 9."""
    return (rng.random(N) < p).astype(np.int64)


def test_example_5_greedy_is_shortsighted():
    """Even the ideal objective J_cmi(x) = I(S + x; y) picks x3 first and misses {x1, x2}.

    With three features, J_deg3 is the full expansion of I(x; y | S) for |S| <= 2,
    so its greedy search is the J_cmi search of the example.
    """
    b = bits(2, seed=5)
    eps = 0.3  # any 0 < eps < 1/2; P(b3 = 0) = 0.8
    b3 = (np.random.default_rng(50).random(N) >= 0.5 + eps).astype(np.int64)
    x1, x2, x3 = b[1], b[2], b[1] ^ b[2] ^ b3
    y = b[1] ^ b[2]
    h_b3 = h2(0.5 + eps)
    assert mutual_info(x1, y) == pytest.approx(0.0, abs=TOL)
    assert mutual_info(x2, y) == pytest.approx(0.0, abs=TOL)
    assert mutual_info(x3, y) == pytest.approx(1 - h_b3, abs=TOL)  # 1 - H(b3) = 0.278
    assert mutual_info(np.column_stack([x1, x2]), y) == pytest.approx(1.0, abs=TOL)  # the optimum
    greedy = search("degree", [x1, x2, x3], y, degree=3)
    assert greedy.step()[0] == 2  # x3 first, always
    greedy.step()
    chosen = [[x1, x2, x3][i] for i in greedy.selected]
    # whichever comes second, the greedy pair holds only 1 - H(b3) of the optimal 1 bit
    assert mutual_info(np.column_stack(chosen), y) == pytest.approx(1 - h_b3, abs=TOL)
    # not submodular (§2.5.2): x2 adds nothing to the empty set but 1 bit to {x1}
    assert mutual_info(np.column_stack([x1, x2]), y) - mutual_info(x1, y) == pytest.approx(1.0, abs=TOL)


@pytest.mark.parametrize(("p", "binary_picks"), [(0.05, {0, 1, 2, 3}), (0.25, {4, 5})])
def test_example_7_noisy_indicators(p, binary_picks):
    """x_i = c_i XOR 1{i = y}: a binary method keeps the indicators for small p, x4 and x5 for large p.

    Per class i, I(x_i; ybar_i) = h(1/4 + p/2) - h(p) against I(x4; ybar_i) = 0.311;
    they cross at p = 0.144, so p = 0.05 and p = 0.25 fall on either side.
    """
    b = bits(2, seed=7)
    rng = np.random.default_rng(70)
    y = number(b[1], b[2])
    noisy = [(y == i).astype(np.int64) ^ noise(p, rng) for i in range(4)]
    X = np.column_stack(noisy + [b[1], b[2]]).astype(np.uint8)
    for i in range(4):
        ybar = (y == i).astype(np.int64)
        assert mutual_info(noisy[i], ybar) == pytest.approx(h2(0.25 + p / 2) - h2(p), abs=TOL)
        assert mutual_info(b[1], ybar) == pytest.approx(0.311, abs=TOL)
    binary = InfoSelector(method="mim", n_features=4, mode="binary", n_bins=None).fit(X, y)
    per_class = {int(k): v.tolist() for k, v in binary.selected_per_class_.items()}
    if p < 0.144:  # each class keeps its own noisy indicator
        assert per_class == {0: [0], 1: [1], 2: [2], 3: [3]}
    else:  # each class takes x4 or x5 (they tie at 0.311 bits for every class)
        assert all(picks[0] in binary_picks for picks in per_class.values())
    assert set(binary.selected_.tolist()) <= binary_picks
    # y is a function of x4 x5, but not of the noisy x0..x3 (p > 0)
    assert mutual_info(np.column_stack([b[1], b[2]]), y) == pytest.approx(2.0, abs=TOL)
    assert mutual_info(np.column_stack(noisy), y) < 2.0 - 0.1


def test_example_8_multiclass_scores_versus_binary_scores():
    """MIM scores x3..x7 above x8, x9; binary MIM ties x8 with x4 (class 100) and x5 (class 101).

    x_i = t0 t1 t2 t_i is read as the binary concatenation of the indicators (as in
    Examples 1-4): it tells classes 0, 1, 2 and i apart and lumps the rest, so
    I(x_i; y) = 2 bits, while x8 = t4 t5 and x9 = t6 t7 carry 1.061 bits. The tie holds
    class by class: for class 100, x8 and x4 both determine t4 (H(t4) = 0.544 bits),
    while x5 does not (0.138 bits); for class 101, x8 ties with x5. With noise on
    every indicator bit of x3..x7 (the construction the example ends on; the seed
    does not say which bits, here all four, p = 0.05 each, which leaves
    I(x_i; y) near 1.37 bits), binary MIM picks x8 for classes 100 and 101 and x9
    for 110 and 111, while multiclass MIM still ranks x8 and x9 last.
    """
    b = bits(3, seed=8)
    y = number(b[1], b[2], b[3])
    t = [(y == i).astype(np.int64) for i in range(8)]
    x = {i: number(t[0], t[1], t[2], t[i]) for i in range(3, 8)}
    x[8], x[9] = number(t[4], t[5]), number(t[6], t[7])
    for i in range(3, 8):
        assert mutual_info(x[i], y) == pytest.approx(2.0, abs=TOL)
    assert mutual_info(x[8], y) == pytest.approx(1.061, abs=TOL)
    assert mutual_info(x[9], y) == pytest.approx(1.061, abs=TOL)
    for cls, same in ((4, (8, 4)), (5, (8, 5)), (6, (9, 6)), (7, (9, 7))):
        for i in same:
            assert mutual_info(x[i], t[cls]) == pytest.approx(h2(1 / 8), abs=TOL)
    assert mutual_info(x[5], t[4]) == pytest.approx(h2(1 / 8) - h2(1 / 4) / 2, abs=TOL)

    rng = np.random.default_rng(80)
    noisy = {i: number(*(t[j] ^ noise(0.05, rng) for j in (0, 1, 2, i))) for i in range(3, 8)}
    X = np.column_stack([noisy[i] for i in range(3, 8)] + [x[8], x[9]]).astype(np.uint8)  # columns: x3..x9
    multiclass = InfoSelector(method="mim", n_features=5, n_bins=None).fit(X, y)
    assert set(multiclass.selected_.tolist()) == {0, 1, 2, 3, 4}  # x3..x7, never x8 or x9
    binary = InfoSelector(method="mim", n_features=7, mode="binary", n_bins=None).fit(X, y)
    per_class = {int(k): v.tolist() for k, v in binary.selected_per_class_.items()}
    assert [per_class[c][0] for c in (4, 5, 6, 7)] == [5, 5, 6, 6]  # x8, x8, x9, x9
    assert {5, 6} <= set(binary.selected_.tolist())  # one feature per class, merged: x8 and x9 among them


def test_example_9_cife_overpenalizes_shared_information():
    """After x1, CIFE's penalty I(x2; x1; y) cancels all of x2's relevance.

    Read as binary concatenations (as in Examples 1-4 and 8), x1 = t0 t1 t2 and
    x2 = t0 t1 t3 each determine y (2 bits), so I(x2; x1; y) = 2 bits and CIFE scores
    x2 at 2 - 2 = 0 after x1: no higher than the noisy x4 = t3 XOR c3, which is
    individually far less informative. The example's conclusion (multiclass CIFE
    picks x4 over x2, binary CIFE does not) cannot be tested as stated: with x1
    chosen no candidate adds information, so x2, x3 and x4 all score 0 (up to
    estimation noise) in both modes and the choice among them is a tie. The test
    checks the property the example rests on: the size of the penalty.
    """
    b = bits(2, seed=9)
    rng = np.random.default_rng(90)
    y = number(b[1], b[2])
    t = [(y == i).astype(np.int64) for i in range(4)]
    p = 0.1
    x1, x2 = number(t[0], t[1], t[2]), number(t[0], t[1], t[3])
    x3, x4 = t[2] ^ noise(p, rng), t[3] ^ noise(p, rng)
    assert mutual_info(x1, y) == pytest.approx(2.0, abs=TOL)
    assert mutual_info(x2, y) == pytest.approx(2.0, abs=TOL)
    assert interaction_info(x2, x1, y) == pytest.approx(2.0, abs=TOL)  # "significant"
    assert mutual_info(x4, y) == pytest.approx(h2(0.25 + p / 2) - h2(p), abs=TOL)
    cife = search("cife", [x1, x2, x3, x4], y)
    assert cife.scores()[0] == pytest.approx(2.0, abs=TOL)
    cife.add(0)
    scores = cife.scores()
    assert scores[1] == pytest.approx(0.0, abs=TOL)  # x2: 2 - 2
    assert scores[3] == pytest.approx(0.0, abs=TOL)  # x4: I(x4; y) - I(x4; x1; y) = 0
    assert scores[1] <= scores[3] + TOL  # the penalty leaves x2 no better than x4
    for c in range(4):  # binary CIFE, class c against the rest: the same tie after x1
        binary = search("cife", [x1, x2, x3, x4], t[c])
        binary.add(0)
        assert binary.scores()[[1, 2, 3]] == pytest.approx([0.0, 0.0, 0.0], abs=TOL)
