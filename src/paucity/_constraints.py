"""What a parameter may be, and the one check of a parameter against it: :func:`check_parameter`.

The constraints (:class:`Interval`, :class:`Options`, :class:`Instance`, and the named kinds ``BOOLEAN``,
``RANDOM_STATE``, ``N_JOBS``, ``CALLABLE``) are scikit-learn's ``_parameter_constraints`` idea raising paucity's
errors. This module imports neither numpy nor pandas, so that a command line can declare and check its options
(and build its ``--help``) without their import time; :mod:`paucity._validation` re-exports every name.
"""

from __future__ import annotations

import math
import numbers
import sys

from ._errors import ParameterError

__all__ = ["Interval", "Iterations", "MAX_ITERATIONS", "Options", "Instance", "BOOLEAN", "RANDOM_STATE", "N_JOBS",
           "CALLABLE", "describe_constraints", "check_parameter", "is_named_kind"]


def _numpy_bool(value) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.bool_)


class Interval:
    """Numbers of one kind (``numbers.Integral`` or ``numbers.Real``) between two bounds.

    ``left``/``right`` may be None (unbounded); ``closed`` is ``"both"``,
    ``"left"``, ``"right"`` or ``"neither"``. Reals must be finite. Booleans
    are never numbers here.

    Examples
    --------
    >>> Interval(numbers.Integral, 1, None).describe()
    'an integer >= 1'
    >>> Interval(numbers.Real, 0, 1, closed="left").describe()
    'a number in [0, 1)'
    """

    def __init__(self, kind, left, right, *, closed: str = "both"):
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be both, left, right or neither, got {closed!r}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False
        if isinstance(value, numbers.Real) and not math.isfinite(float(value)):
            return False
        left_ok = self.left is None or (value >= self.left if self.closed in ("both", "left") else value > self.left)
        right_ok = self.right is None or (value <= self.right if self.closed in ("both", "right") else value < self.right)
        return bool(left_ok and right_ok)

    def describe(self) -> str:
        noun = "an integer" if self.kind is numbers.Integral else "a number"
        if self.left is not None and self.right is not None:
            lo = "[" if self.closed in ("both", "left") else "("
            hi = "]" if self.closed in ("both", "right") else ")"
            return f"{noun} in {lo}{self.left}, {self.right}{hi}"
        if self.left is not None:
            return f"{noun} {'>=' if self.closed in ('both', 'left') else '>'} {self.left}"
        if self.right is not None:
            return f"{noun} {'<=' if self.closed in ('both', 'right') else '<'} {self.right}"
        return f"{'a finite number' if noun == 'a number' else noun}"


#: The most iterations (sweeps, draws, rounds) a count may ask for: 10^8 of even the cheapest step (a Gibbs sweep
#: over a few labels, some microseconds) already take hours, and a larger count is a typo more often than a plan.
MAX_ITERATIONS = 100_000_000


class Iterations(Interval):
    """A count of iterations that must each run (no early stop): an integer from ``left`` to
    :data:`MAX_ITERATIONS`, since more could not finish.

    Examples
    --------
    >>> check_parameter(10**9, "n_burnin", [Iterations(0)], owner="BBMC")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: BBMC: n_burnin must be an integer in [0, 100000000] (more iterations could not finish in hours), got 1000000000.
    """

    def __init__(self, left: int = 1):
        super().__init__(numbers.Integral, left, MAX_ITERATIONS)

    def describe(self) -> str:
        return f"{super().describe()} (more iterations could not finish in hours)"



class Options:
    """One of a few strings, compared in lower case.

    Examples
    --------
    >>> Options("cife", "jmi").describe()
    "one of 'cife', 'jmi'"
    """

    def __init__(self, *choices: str):
        self.choices = tuple(choices)

    def accepts(self, value) -> bool:
        return isinstance(value, str) and value.lower() in self.choices

    def describe(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.choices)


class Instance:
    """An instance of one of the given classes (a Divergence, a DataFrame...)."""

    def __init__(self, *types, description: str | None = None):
        self.types, self.description = types, description

    def accepts(self, value) -> bool:
        return isinstance(value, self.types) and not (isinstance(value, bool) and bool not in self.types)

    def describe(self) -> str:
        return self.description or "an instance of " + " or ".join(t.__name__ for t in self.types)


class _Named:
    """A named kind of value; ``command_line`` describes it as a command line's user can give it (no Python
    objects, no None: an option is left out instead), where that differs."""

    def __init__(self, description, test, command_line: str | None = None):
        self.description, self.test, self.command_line = description, test, command_line

    def accepts(self, value) -> bool:
        return self.test(value)

    def describe(self, command_line: bool = False) -> str:
        return self.command_line if command_line and self.command_line else self.description


def _is_random_state(value) -> bool:
    np = sys.modules.get("numpy")  # a value of numpy's types exists only once numpy is imported
    if value is None or (np is not None and isinstance(value, (np.random.Generator, np.random.RandomState))):
        return True
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0


#: True or False (numpy booleans too).
BOOLEAN = _Named("True or False", lambda value: isinstance(value, bool) or _numpy_bool(value))
#: A seed for :func:`check_random_state`.
RANDOM_STATE = _Named("a non-negative integer seed, a numpy Generator or None", _is_random_state,
                      command_line="a non-negative integer")
#: A thread count for :func:`paucity._parallel.kernel_threads`.
N_JOBS = _Named(
    "a positive integer, -1 (every core) or None",
    lambda value: value is None
    or (isinstance(value, numbers.Integral) and not isinstance(value, bool) and (value >= 1 or value == -1)),
    command_line="a positive integer or -1 (every core)",
)
#: A callable (a function or an object with ``__call__``).
CALLABLE = _Named("a callable", callable)


def _accepts(constraint, value) -> bool:
    if constraint is None:
        return value is None
    return constraint.accepts(value)


def _describe(constraint, command_line: bool = False) -> str:
    if constraint is None:
        return "None"
    return constraint.describe(command_line=True) if command_line and isinstance(constraint, _Named) \
        else constraint.describe()


def _typed(constraint) -> bool:
    """Whether a value typed on a command line can meet the constraint: a number, a string or a named kind; not
    None (the option left out) nor a Python object (an instance or a class of one)."""
    if isinstance(constraint, Instance):
        return any(issubclass(kind, (str, numbers.Number)) for kind in constraint.types)
    return isinstance(constraint, (Interval, Options, _Named))


def describe_constraints(constraints, *, command_line: bool = False) -> str:
    """What a parameter must be, from its constraints: all of them in Python; on a command line only those a
    typed value can meet (an option left out stands for None), each in the command line's words.

    Examples
    --------
    >>> describe_constraints([Interval(numbers.Integral, 1, None), None])
    'an integer >= 1 or None'
    >>> describe_constraints([Interval(numbers.Integral, 1, None), None], command_line=True)
    'an integer >= 1'
    >>> describe_constraints([RANDOM_STATE], command_line=True)
    'a non-negative integer'
    """
    if command_line:
        constraints = [c for c in constraints if _typed(c)] or list(constraints)
    return " or ".join(_describe(c, command_line) for c in constraints)


def check_parameter(value, name: str, constraints, *, owner: str | None = None, hint: str | None = None):
    """Check one value against a list of constraints (any one may hold); return it.

    Strings accepted by :class:`Options` come back in lower case.

    Parameters
    ----------
    value
        The value given.
    name : str
        The parameter's name, used in the message.
    constraints : list
        :class:`Interval`, :class:`Options`, :class:`Instance`, ``BOOLEAN``,
        ``RANDOM_STATE``, ``N_JOBS``, ``CALLABLE`` or ``None`` (the value None).
    owner : str, optional
        The estimator or function the parameter belongs to, named in the message.
    hint : str, optional
        How to fix it, appended to the message (what the parameter means, a
        typical value).

    Examples
    --------
    >>> check_parameter("CIFE", "method", [Options("cife", "jmi")])
    'cife'
    >>> check_parameter(0, "n_features", [Interval(numbers.Integral, 1, None), None], owner="PDA")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: PDA: n_features must be an integer >= 1 or None, got 0.
    """
    if not isinstance(constraints, (list, tuple)):
        constraints = [constraints]
    for constraint in constraints:
        if _accepts(constraint, value):
            if isinstance(constraint, Options):
                return value.lower()
            return value
    from ._spelling import spelled, spelled_hint, spells

    command_line = spells(name)
    prefix = f"{owner}: " if owner and not command_line else ""  # a command line's user never met the owner
    suffix = f" {spelled_hint(name, hint)}" if hint else ""
    np = sys.modules.get("numpy")
    shown = value.item() if np is not None and isinstance(value, np.generic) else value  # 5, not np.int64(5)
    raise ParameterError(
        f"{prefix}{spelled(name)} must be {describe_constraints(constraints, command_line=command_line)}, got {shown!r}.{suffix}"
    )


def is_named_kind(constraint) -> bool:
    """Whether ``constraint`` is one of the named kinds (``BOOLEAN``, ``RANDOM_STATE``, ...)."""
    return isinstance(constraint, _Named)
