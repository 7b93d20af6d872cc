"""The doctests print numbers that any machine reproduces.

Floating-point summation order differs between machines (CPU features, BLAS
builds, numba's vectorization), so a doctest that prints a float to all of
its 16-17 digits tests the machine, not the code. Every example prints
rounded values: at most 6 significant digits per number.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import paucity

# a number with a decimal point or an exponent, not part of a name or a longer token
# (an integer ending a sentence, "got 1000000000.", is not a float)
_FLOAT = re.compile(r"(?<![\w.])[-+]?(\d+\.\d+|\d+\.(?!\s|$)|\.\d+|\d+(?=[eE]))([eE][-+]?\d+)?(?![\w.])")
MAX_SIGNIFICANT = 6


def significant_digits(token: str) -> int:
    """Significant digits of a printed number: '0.0012300' has 5, '6.499999999999999' has 16."""
    mantissa = re.split(r"[eE]", token.lstrip("+-"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits) if digits else 1


def too_precise(text: str) -> list[str]:
    return [match.group(0) for match in _FLOAT.finditer(text) if significant_digits(match.group(0)) > MAX_SIGNIFICANT]


def test_the_check_catches_unrounded_floats():
    assert too_precise("6.499999999999999") == ["6.499999999999999"]
    assert too_precise("array([0.33333333, 1.5])") == ["0.33333333"]
    assert too_precise("0.666667 and 1e-05 and 12.5 and 0.0012300") == []
    assert too_precise("x1.2345678 gene_0.1234567") == []  # parts of names are not numbers
    assert too_precise("got 1000000000.") == [] and too_precise("[1234567., 2.]") == ["1234567."]


def _modules():
    names = []
    for info in pkgutil.walk_packages(paucity.__path__, prefix="paucity."):
        names.append(info.name)
    return sorted(names)


def _examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra that is not installed
            continue
        for test in finder.find(module):
            for example in test.examples:
                yield f"{test.name} (line {example.lineno})", example.want


def test_no_doctest_prints_a_float_with_more_than_six_significant_digits():
    offenders = [f"{where}: {', '.join(numbers)}" for where, want in _examples() if (numbers := too_precise(want))]
    assert not offenders, "round these doctest outputs to at most 6 significant digits:\n" + "\n".join(offenders)
