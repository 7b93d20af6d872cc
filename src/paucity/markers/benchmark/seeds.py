"""The seeds of a benchmark run: one integer, recorded, from which every random stream is derived.

A run's folds, random forests and random baseline all draw from streams
derived from a single non-negative integer. That integer is what
``params.json`` records, so that a resumed run uses the same streams and a
run with another seed is told apart from it.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..._errors import ParameterError
from ..._validation import check_random_state

__all__ = ["SEED_BOUND", "check_seed", "derived_seed"]

SEED_BOUND = 2**31
"""Seeds drawn from a Generator (or from fresh entropy) lie in ``0 .. SEED_BOUND - 1``."""


def check_seed(random_state) -> int:
    """The integer seed of a run, from an int, a :class:`numpy.random.Generator` or None.

    Parameters
    ----------
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None
        A non-negative int is the seed itself. A Generator (or RandomState)
        is drawn from once, here, for an integer below :data:`SEED_BOUND`;
        None draws that integer from fresh operating-system entropy.

    Returns
    -------
    int
        The seed to record; a run given this int reproduces one given the
        Generator.

    Raises
    ------
    ParameterError
        For a negative int, a bool, or anything else.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark.seeds import check_seed
    >>> check_seed(7)
    7
    >>> check_seed(np.random.default_rng(0)) == check_seed(np.random.default_rng(0))
    True
    """
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ParameterError(
                f"random_state must be a non-negative integer, a numpy Generator or None, got {int(random_state)}; "
                "pass a seed such as 0 (it is recorded so that a run can be resumed)."
            )
        return int(random_state)
    if random_state is None or isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return int(check_random_state(random_state).integers(SEED_BOUND))
    raise ParameterError(
        "random_state must be a non-negative integer, a numpy Generator or None (it is recorded so that a run "
        f"can be resumed), got {random_state!r}."
    )


def derived_seed(random_state: int, *keys: int) -> int:
    """A 31-bit seed for one stream of the run (fold, purpose), from the run's seed.

    Examples
    --------
    >>> from paucity.markers.benchmark.seeds import derived_seed
    >>> derived_seed(0, 1, 0) == derived_seed(0, 1, 0) != derived_seed(0, 2, 0)
    True
    """
    return int(np.random.SeedSequence([random_state, *keys]).generate_state(1)[0] >> 1)
