"""The error and warning classes of paucity, in one place.

Every error that bad input can raise is a subclass of :class:`PaucityError`
and of the built-in class a Python user expects (``ValueError`` or
``TypeError``), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

from sklearn.exceptions import NotFittedError as _SklearnNotFittedError

__all__ = [
    "PaucityError",
    "InputError",
    "InputTypeError",
    "ShapeMismatchError",
    "NotFittedError",
    "ParameterError",
    "ReaderError",
    "PaucityWarning",
]


class PaucityError(Exception):
    """Base class of every error raised by paucity on purpose."""


class InputError(PaucityError, ValueError):
    """The data has a value that cannot be used (NaN, negative counts, one class...)."""


class InputTypeError(PaucityError, TypeError):
    """The data is of a type paucity cannot read (a string matrix, an object array...)."""


class ShapeMismatchError(InputError):
    """Two inputs that must agree in length or shape do not."""


class ParameterError(PaucityError, ValueError):
    """A parameter is out of range or names something that does not exist."""


class ReaderError(PaucityError, ValueError):
    """A file could not be read as the format it claims to be."""


class NotFittedError(PaucityError, _SklearnNotFittedError):
    """An estimator was used before ``fit``.

    A subclass of scikit-learn's ``NotFittedError`` (itself a ``ValueError``
    and an ``AttributeError``), so ``except sklearn.exceptions.NotFittedError``
    and ``except paucity.NotFittedError`` both catch it.
    """


class PaucityWarning(UserWarning):
    """A recoverable oddity in the input, reported and worked around."""
