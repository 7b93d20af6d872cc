"""The objectives of greedy information-theoretic selection (seed 000, Table 2.1, §2.4).

Every objective scores a candidate x given the selected set S as

    J(x) = base(x) + sum over degrees d >= 1 of  weight_d(sum_d, |S|)

where ``base`` is I(x; y) (supervised) or H(x) (unsupervised) and ``sum_d`` is
the sum, over the subsets X of S with |X| = d, of an interaction term
T_X(x): I_{d+2}(X; x; y) when the objective conditions on the labels
("relevant redundancy"), I_{d+1}(X; x) when it does not. Only the terms that
involve a newly added feature are ever computed (Algorithm 5).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

from .._errors import ParameterError
from .._spelling import given, spelled
from .._validation import Interval, Options, check_parameter

__all__ = ["Objective", "make_objective", "METHODS", "SUPERVISED", "UNSUPERVISED"]

SUPERVISED = ("mim", "mifs", "mrmr", "jmi", "cife", "degree")
UNSUPERVISED = ("entropy", "entropy2")
METHODS = SUPERVISED + UNSUPERVISED


@dataclass(frozen=True)
class Objective:
    """A greedy objective.

    Attributes
    ----------
    name : str
    supervised : bool
        Whether the base term is I(x; y) (True) or H(x) (False).
    max_degree : int
        Largest subset size d of S whose terms enter the score (0 for univariate).
    with_labels : bool
        Whether the interaction terms include y.
    combine : callable
        ``combine(d, sum_d, n_selected) -> contribution`` to the score.
    """

    name: str
    supervised: bool
    max_degree: int
    with_labels: bool
    combine: Callable


def _subtract(d, total, k):
    return -total


def _subtract_mean(d, total, k):
    return -(total / k)


def _alternating(d, total, k):
    return total if d % 2 == 0 else -total


def make_objective(method: str, *, beta: float | None = None, degree: int | None = None) -> Objective:
    """The objective named ``method``.

    Parameters
    ----------
    method : {"mim", "mifs", "mrmr", "jmi", "cife", "degree", "entropy", "entropy2"}
    beta : float, optional
        MIFS redundancy weight (seed 000, Table 2.1); 1.0 when not given.
        Only for ``method="mifs"``.
    degree : int, optional
        K of J_degK (seed 000, §2.4.1): 1 is MIM, 2 is CIFE; 2 when not
        given. Only for ``method="degree"``.

    Raises
    ------
    paucity._errors.ParameterError
        For an unknown method, a value out of range, or ``beta``/``degree``
        given to a method that does not use it (it would be ignored).

    Notes
    -----
    - mim: ``I(x; y)``.
    - mifs: ``I(x; y) - beta * sum_{s in S} I(x; s)``.
    - mrmr: ``I(x; y) - (1/|S|) sum_{s in S} I(x; s)``.
    - jmi: ``I(x; y) - (1/|S|) sum_{s in S} I(x; s; y)``.
    - cife: ``I(x; y) - sum_{s in S} I(x; s; y)``.
    - degree K: ``sum_{k=0}^{K-1} sum_{X in S, |X|=k} (-1)^k I_{k+2}(X; x; y)``.
    - entropy: ``H(x)`` (unsupervised, degree 1).
    - entropy2: ``H(x) - sum_{s in S} I(x; s)`` (Corollary 2.4's H~2 increment).

    Examples
    --------
    >>> from paucity.markers import make_objective
    >>> make_objective("degree", degree=3).name
    'degree3'
    >>> make_objective("cife", degree=3)
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: degree=3 applies only to method='degree' (the K of J_degK), but method is 'cife'; drop degree or use method='degree'.
    """
    method = check_parameter(method, "method", [Options(*METHODS)])
    beta = check_parameter(beta, "beta", [Interval(numbers.Real, 0, None), None])
    degree = check_parameter(degree, "degree", [Interval(numbers.Integral, 1, None), None])
    for name, value, owner, meaning in (
        ("beta", beta, "mifs", "the MIFS redundancy weight"),
        ("degree", degree, "degree", "the K of J_degK"),
    ):
        if value is not None and method != owner:
            raise ParameterError(
                f"{given(name, value)} applies only to {given('method', owner)} ({meaning}), but {spelled('method')} is "
                f"{method!r}; drop {spelled(name)} or use {given('method', owner)}."
            )
    if method == "mim":
        return Objective("mim", True, 0, True, _subtract)
    if method == "mifs":
        beta = 1.0 if beta is None else float(beta)
        return Objective("mifs", True, 1, False, lambda d, total, k: -(beta * total))
    if method == "mrmr":
        return Objective("mrmr", True, 1, False, _subtract_mean)
    if method == "jmi":
        return Objective("jmi", True, 1, True, _subtract_mean)
    if method == "cife":
        return Objective("cife", True, 1, True, _subtract)
    if method == "degree":
        degree = 2 if degree is None else int(degree)
        return Objective(f"degree{degree}", True, degree - 1, True, _alternating)
    if method == "entropy":
        return Objective("entropy", False, 0, False, _subtract)
    return Objective("entropy2", False, 1, False, _subtract)
