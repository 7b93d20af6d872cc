"""The run's one recorded integer seed: from an int, a Generator or None; negatives refused."""

import numpy as np
import pytest

from paucity._errors import ParameterError
from paucity.markers.benchmark.seeds import MAX_SEED, SEED_BOUND, check_seed, derived_seed


def test_an_int_is_the_seed_itself():
    assert check_seed(0) == 0
    assert check_seed(np.int64(12345)) == 12345
    assert type(check_seed(np.int32(3))) is int


def test_a_generator_is_drawn_from_once():
    rng = np.random.default_rng(5)
    seed = check_seed(rng)
    expected = np.random.default_rng(5)
    assert seed == int(expected.integers(SEED_BOUND))
    assert rng.integers(1000) == expected.integers(1000)  # exactly one draw was consumed
    assert 0 <= seed < SEED_BOUND


def test_none_draws_a_fresh_seed():
    seeds = {check_seed(None) for _ in range(5)}
    assert all(isinstance(s, int) and 0 <= s < SEED_BOUND for s in seeds)
    assert len(seeds) > 1


@pytest.mark.parametrize("bad", [-1, np.int64(-7)])
def test_negative_seed_is_refused_with_a_clear_message(bad):
    with pytest.raises(ParameterError, match=r"random_state must be an integer in \[0, 4294967295\].*got -\d+\. Pass a seed such as 0"):
        check_seed(bad)


@pytest.mark.parametrize("bad", [2**32, np.uint64(2**32), 2**64, 10**30])
def test_a_seed_numpy_cannot_take_is_refused_by_paucity(bad):
    # numpy's generators (and scikit-learn's StratifiedKFold) take seeds below 2**32 only
    with pytest.raises(ValueError):
        np.random.RandomState(bad)
    with pytest.raises(ParameterError, match=r"random_state must be an integer in \[0, 4294967295\].*numpy takes seeds below 2\*\*32"):
        check_seed(bad)


def test_the_largest_seed_is_kept():
    assert MAX_SEED == 2**32 - 1
    assert check_seed(MAX_SEED) == MAX_SEED
    assert check_seed(np.uint32(MAX_SEED)) == MAX_SEED


@pytest.mark.parametrize("bad", [True, 1.5, "0", [0]])
def test_other_types_are_refused(bad):
    with pytest.raises(ParameterError, match="random_state must be an integer in .* or a numpy Generator or None, got"):
        check_seed(bad)


def test_the_owner_is_named():
    with pytest.raises(ParameterError, match="^run_benchmark: random_state"):
        check_seed(-1, owner="run_benchmark")


def test_derived_seeds_are_31_bit_and_depend_on_every_key():
    seeds = {derived_seed(0, fold, purpose) for fold in range(5) for purpose in (0, 1)}
    assert len(seeds) == 10
    assert all(0 <= s < 2**31 for s in seeds)
    assert derived_seed(3, 1, 0) == derived_seed(3, 1, 0)
    # the definition: the first 32-bit word of numpy's SeedSequence of (seed, keys...), halved
    assert derived_seed(7, 2, 1) == int(np.random.SeedSequence([7, 2, 1]).generate_state(1)[0]) // 2
