"""Where similarities come from: the oracle protocol, a complete matrix (with simulated noise), a function.

An oracle answers a batch of pairs at once, so that a costly backend (a crowd
platform, a cluster of alignment jobs) can work on them in parallel.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from .._errors import InputError, ParameterError
from .._validation import CALLABLE, RANDOM_STATE, Interval, check_parameter, check_random_state
from ._checks import check_n_items, check_pairs, check_similarities, check_values

__all__ = ["SimilarityOracle", "MatrixOracle", "FunctionOracle", "BetaNoise"]


@runtime_checkable
class SimilarityOracle(Protocol):
    """Anything that measures similarities of pairs of items.

    ``query(pairs)`` takes an (m, 2) integer array of item indices (i < j in
    each row) and returns m similarities in [0, 1], in the same order. An
    oracle may also have an ``n_items`` attribute (the number of items), so
    that :meth:`ActiveSpectralClustering.fit
    <paucity.clustering.ActiveSpectralClustering.fit>` needs no ``n_items``.
    Asking the same pair twice is a repeat measurement: a noisy oracle may
    answer differently.

    Examples
    --------
    >>> import numpy as np
    >>> class Distances:
    ...     n_items = 3
    ...     def query(self, pairs):
    ...         return np.exp(-np.abs(np.diff(pairs, axis=1).ravel()))
    >>> isinstance(Distances(), SimilarityOracle)
    True
    """

    def query(self, pairs: np.ndarray) -> np.ndarray:  # pragma: no cover - a protocol
        """The similarity in [0, 1] of each pair (an (m, 2) array of item indices): m values."""
        ...


class BetaNoise:
    """Noisy answers for simulations: Beta noise around the true similarity, and adversarial answers.

    Each answer to a pair of true similarity w is drawn from
    Beta(1 + κ·w, 1 + κ·(1 − w)), κ = ``concentration``: a law on [0, 1] whose
    mode is w, for every w in [0, 1] (0 and 1 included). Its mean is
    (1 + κw)/(2 + κ), pulled towards 1/2, and its variance shrinks like 1/κ;
    κ = 0 answers uniformly at random, κ → ∞ answers w. With probability
    ``adversarial`` an answer comes instead from an adversarial worker, who
    answers 1 − w exactly (seed 003, Figure 2.6: one worker asserting two
    photos of the same room were definitely not). Repeats of a pair are
    independent draws.

    Parameters
    ----------
    concentration : float, default=10.0
        κ ≥ 0. For w = 0.5 the standard deviation of an answer is
        1/(2√(κ + 3)): 0.14 at κ = 10, 0.05 at κ = 97.
    adversarial : float, default=0.0
        The probability, in [0, 1], that an answer is adversarial.

    Examples
    --------
    >>> import numpy as np
    >>> noise = BetaNoise(concentration=50.0)
    >>> answers = noise.sample(np.full(20000, 0.8), np.random.default_rng(0))
    >>> round(float(np.median(answers)), 2), round(float(answers.std()), 2)
    (0.79, 0.06)
    >>> BetaNoise(concentration=1e9, adversarial=1.0).sample(np.array([0.2]), np.random.default_rng(0))
    array([0.8])
    """

    def __init__(self, concentration: float = 10.0, adversarial: float = 0.0):
        self.concentration = float(
            check_parameter(concentration, "concentration", [Interval(numbers.Real, 0, None)], owner="BetaNoise",
                            hint="Larger values mean less noise; 10 is a noisy crowd, 100 a careful one.")
        )
        self.adversarial = float(
            check_parameter(adversarial, "adversarial", [Interval(numbers.Real, 0, 1)], owner="BetaNoise",
                            hint="It is the probability that an answer is 1 − w.")
        )

    def sample(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Noisy answers for the true similarities ``values`` (one each)."""
        values = np.asarray(values, dtype=np.float64)
        answers = rng.beta(1.0 + self.concentration * values, 1.0 + self.concentration * (1.0 - values))
        if self.adversarial > 0:
            adversarial = rng.random(values.shape) < self.adversarial
            answers = np.where(adversarial, 1.0 - values, answers)
        return answers

    def __repr__(self) -> str:
        return f"BetaNoise(concentration={self.concentration:g}, adversarial={self.adversarial:g})"


class MatrixOracle:
    """Answers from a complete matrix of similarities, optionally noisy: the oracle of simulations.

    Parameters
    ----------
    W : array-like of shape (n, n)
        The true similarities: square, symmetric, in [0, 1], no NaN, n ≥ 3.
        The diagonal is not used.
    noise : BetaNoise or None, default=None
        How answers scatter around the truth (:class:`BetaNoise`, or any
        object with ``sample(values, rng)``); None answers the truth.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the noise.

    Attributes
    ----------
    n_items : int
    n_answered : int
        Similarities answered so far (repeats included).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1, .9, .2], [.9, 1, .1], [.2, .1, 1]])
    >>> MatrixOracle(W).query([[0, 1], [2, 1]])
    array([0.9, 0.1])
    >>> noisy = MatrixOracle(W, noise=BetaNoise(concentration=20), random_state=0)
    >>> answers = noisy.query(np.tile([0, 1], (1000, 1)))  # the same pair asked 1000 times
    >>> round(float(np.median(answers)), 1), noisy.n_answered
    (0.9, 1000)
    """

    def __init__(self, W, noise=None, random_state=None):
        self.W = check_similarities(W, name="W", complete=True, sparse=False)
        if noise is not None and not callable(getattr(noise, "sample", None)):
            raise ParameterError(
                f"MatrixOracle: noise must be None, a BetaNoise or an object with sample(values, rng), got {noise!r}. "
                "For noisy answers pass noise=BetaNoise(concentration=10)."
            )
        self.noise = noise
        check_parameter(random_state, "random_state", [RANDOM_STATE], owner="MatrixOracle")
        self.random_state = random_state
        self._rng = check_random_state(random_state)
        self.n_items = self.W.shape[0]
        self.n_answered = 0

    def query(self, pairs) -> np.ndarray:
        """The similarities of ``pairs`` (an (m, 2) array of item indices), noisy if a noise model was given."""
        pairs = check_pairs(pairs, self.n_items)
        values = self.W[pairs[:, 0], pairs[:, 1]]
        if self.noise is not None:
            values = np.clip(self.noise.sample(values, self._rng), 0.0, 1.0)
        self.n_answered += len(pairs)
        return values

    def __repr__(self) -> str:
        noise = "" if self.noise is None else f", noise={self.noise!r}"
        return f"MatrixOracle(<{self.n_items} items>{noise})"


class FunctionOracle:
    """Answers computed by a Python function of two items (an alignment, an assay, a model).

    Parameters
    ----------
    fn : callable
        ``fn(a, b) -> float`` in [0, 1], called once per pair and answer.
    items : sequence, optional
        The objects the function compares (sequences, file names...): ``fn``
        receives ``items[i]`` and ``items[j]``. Without it ``fn`` receives the
        integer indices i and j.
    n_items : int, optional
        The number of items, when ``items`` is not given.

    Attributes
    ----------
    n_items : int or None
    n_answered : int

    Examples
    --------
    >>> import numpy as np
    >>> words = ["cat", "cart", "dog", "dot"]
    >>> def overlap(a, b):
    ...     return len(set(a) & set(b)) / len(set(a) | set(b))
    >>> FunctionOracle(overlap, items=words).query([[0, 1], [2, 3], [0, 2]])
    array([0.75, 0.5 , 0.  ])
    """

    def __init__(self, fn: Callable, items: Sequence | None = None, n_items: int | None = None):
        self.fn = check_parameter(fn, "fn", [CALLABLE], owner="FunctionOracle",
                                  hint="Pass a function of two items that returns their similarity in [0, 1].")
        self.items = items
        if items is not None:
            if isinstance(items, (str, bytes)) or not hasattr(items, "__len__") or not hasattr(items, "__getitem__"):
                raise InputError(f"FunctionOracle: items must be a sequence of the objects compared, got {items!r}.")
            if n_items is not None and n_items != len(items):
                raise InputError(f"FunctionOracle: n_items is {n_items} but items has {len(items)} entries.")
            n_items = len(items)
        self.n_items = None if n_items is None else check_n_items(n_items)
        self.n_answered = 0

    def query(self, pairs) -> np.ndarray:
        """``fn`` of each pair, checked to be a similarity in [0, 1]."""
        limit = self.n_items if self.n_items is not None else np.iinfo(np.int64).max
        pairs = check_pairs(pairs, limit)
        if self.items is None:
            values = [self.fn(int(i), int(j)) for i, j in pairs]
        else:
            values = [self.fn(self.items[i], self.items[j]) for i, j in pairs]
        answers = check_values(values, len(pairs), source="FunctionOracle's fn")
        self.n_answered += len(pairs)
        return answers

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", type(self.fn).__name__)
        return f"FunctionOracle({name})"
