import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paucity._errors import InputError, ShapeMismatchError
from paucity.info import conditional_mutual_info, entropy, interaction_info, joint_entropy, mutual_info

from . import reference

small = st.lists(st.integers(0, 3), min_size=1, max_size=40)


def test_hand_values():
    assert entropy([0, 1, 2, 3]) == 2.0
    assert entropy(["a", "a", "b", "b"]) == 1.0
    # noisy opposite of a fair coin (seed 000, section 2.2.1): about 0.92 bits
    u = np.array([0] * 50 + [1] * 50)
    v = 1 - u
    v[:1] = u[:1]
    v[50:51] = u[50:51]
    assert 0.8 < mutual_info(u, v) < 0.9
    assert mutual_info([0, 0, 1, 1], [0, 1, 0, 1]) == 0.0


def test_xor_synergy():
    x1, x2 = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    y = x1 ^ x2
    assert interaction_info(x1, x2, y) == pytest.approx(-1.0)
    assert conditional_mutual_info(x1, y, x2) == pytest.approx(1.0)
    assert mutual_info(np.column_stack([x1, x2]), y) == pytest.approx(1.0)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_properties(data):
    n = data.draw(st.integers(1, 40))
    draw = lambda: np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))  # noqa: E731
    x, y, z = draw(), draw(), draw()
    assert entropy(x) == pytest.approx(reference.joint_entropy(x), abs=1e-9)
    assert joint_entropy(x, y) == pytest.approx(reference.joint_entropy(x, y), abs=1e-9)
    assert mutual_info(x, y) == pytest.approx(mutual_info(y, x), abs=1e-12)
    assert mutual_info(x, y) >= -1e-9
    assert mutual_info(x, x) == pytest.approx(entropy(x), abs=1e-9)
    assert conditional_mutual_info(x, y, z) >= -1e-9
    # I(x;y;z) = I(x;y) - I(x;y|z)
    assert interaction_info(x, y, z) == pytest.approx(mutual_info(x, y) - conditional_mutual_info(x, y, z), abs=1e-9)
    assert interaction_info(x, y, z) == pytest.approx(reference.interaction(x, y, z), abs=1e-9)


def test_errors():
    with pytest.raises(ShapeMismatchError, match="3 samples but variable 0 has 2"):
        mutual_info([0, 1], [0, 1, 1])
    with pytest.raises(InputError, match="missing"):
        entropy([0.0, np.nan])
    with pytest.raises(InputError, match="empty"):
        entropy([])
    with pytest.raises(InputError, match="at least one variable"):
        interaction_info()
