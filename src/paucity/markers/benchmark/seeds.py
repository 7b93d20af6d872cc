"""The seeds of a benchmark run: one integer, recorded, from which every random stream is derived.

A run's folds, random forests and random baseline all draw from streams
derived from a single non-negative integer. That integer is what
``params.json`` records, so that a resumed run uses the same streams and a
run with another seed is told apart from it.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..._validation import Instance, Interval, check_parameter, check_random_state

__all__ = ["MAX_SEED", "SEED_BOUND", "check_seed", "derived_seed"]

MAX_SEED = 2**32 - 1
"""The largest integer seed: numpy's (and scikit-learn's) seeds lie in ``0 .. 2**32 - 1``."""

SEED_BOUND = 2**31
"""Seeds drawn from a Generator (or from fresh entropy) lie in ``0 .. SEED_BOUND - 1``."""


def check_seed(random_state, *, owner: str | None = None) -> int:
    """The integer seed of a run, from an int, a :class:`numpy.random.Generator` or None.

    Parameters
    ----------
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None
        An int in ``0 .. 2**32 - 1`` (the seeds numpy's generators take) is
        the seed itself. A Generator (or RandomState) is drawn from once,
        here, for an integer below :data:`SEED_BOUND`; None draws that
        integer from fresh operating-system entropy.
    owner : str, optional
        The function the parameter belongs to, named in the message.

    Returns
    -------
    int
        The seed to record; a run given this int reproduces one given the
        Generator.

    Raises
    ------
    ParameterError
        For a negative int, an int of 2**32 or more, a bool, or anything
        else.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.markers.benchmark.seeds import check_seed
    >>> check_seed(7)
    7
    >>> check_seed(np.random.default_rng(0)) == check_seed(np.random.default_rng(0))
    True
    >>> from paucity._errors import ParameterError
    >>> try:
    ...     check_seed(2**32)          # numpy's generators take seeds below 2**32
    ... except ParameterError as error:
    ...     print(str(error).split(" or ")[0])
    random_state must be an integer in [0, 4294967295]
    """
    random_state = check_parameter(
        random_state,
        "random_state",
        [Interval(numbers.Integral, 0, MAX_SEED), Instance(np.random.Generator, np.random.RandomState, description="a numpy Generator"), None],
        owner=owner,
        hint="Pass a seed such as 0 (numpy takes seeds below 2**32; the seed is recorded so that a run can be resumed).",
    )
    if isinstance(random_state, numbers.Integral):  # the constraint held: which kind of value it is
        return int(random_state)
    return int(check_random_state(random_state).integers(SEED_BOUND))


def derived_seed(random_state: int, *keys: int) -> int:
    """A 31-bit seed for one stream of the run (fold, purpose), from the run's seed.

    Examples
    --------
    >>> from paucity.markers.benchmark.seeds import derived_seed
    >>> derived_seed(0, 1, 0) == derived_seed(0, 1, 0) != derived_seed(0, 2, 0)
    True
    """
    return int(np.random.SeedSequence([random_state, *keys]).generate_state(1)[0] >> 1)
