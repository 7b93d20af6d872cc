"""The error and warning classes of paucity, in one place.

Every error that bad input can raise is a subclass of :class:`PaucityError`
and of the built-in class a Python user expects (``ValueError`` or
``TypeError``), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "PaucityError",
    "InputError",
    "InputTypeError",
    "ShapeMismatchError",
    "NotFittedError",
    "ParameterError",
    "ReaderError",
    "LongRowError",
    "SessionExistsError",
    "NoSessionError",
    "PairNotWaitingError",
    "AnsweredAlreadyError",
    "PairNotHeldError",
    "AnnotatorStoppedError",
    "KeyReusedError",
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


class LongRowError(ReaderError):
    """A row of a delimited table has more fields than its header.

    Attributes
    ----------
    path : str
        The table.
    row : int
        The first such data row, counted from 1 (the first row under the header).
    width : int or None
        The fields of that row (None when the parser did not say).
    header_width : int
        The fields of the header.
    """

    def __init__(self, message: str, *, path=None, row: int | None = None, width: int | None = None,
                 header_width: int | None = None):
        super().__init__(message)  # (keywords have defaults so that the error pickles, as across processes)
        self.path, self.row, self.width, self.header_width = path, row, width, header_width


# -- the human loop: a clustering session and its annotators -------------------------------------------------------
class SessionExistsError(InputError):
    """The database holds a session already (``ClusteringSession.create`` without ``exist_ok``)."""


class NoSessionError(InputError):
    """The database holds no session (it is new, empty, or holds measurements without items and settings)."""


class PairNotWaitingError(InputError, ParameterError):
    """An answer, a skip or a withdrawal names a pair that does not wait for an answer (never asked, withdrawn,
    or answered already)."""


class AnsweredAlreadyError(PairNotWaitingError):
    """An answer names a pair that was answered already and does not wait for another."""


class PairNotHeldError(ParameterError):
    """An annotator answers or skips a pair that was not shown to them (or went to someone else after its lease)."""


class KeyReusedError(ParameterError):
    """A request's idempotency key was used before by another request (another pair, value or annotator).

    The same request sent again with its key is answered as the first was; a
    different one with the same key is refused (a page answers it with 409),
    never taken for a repeat with nothing stored.
    """


class AnnotatorStoppedError(ParameterError):
    """A paused or revoked annotator asks for pairs or answers.

    Attributes
    ----------
    annotator : str
    state : str
        ``"paused"`` or ``"revoked"``.
    """

    def __init__(self, message: str, *, annotator: str | None = None, state: str | None = None):
        super().__init__(message)
        self.annotator, self.state = annotator, state


def _not_fitted_error() -> type:
    from sklearn.exceptions import NotFittedError as _SklearnNotFittedError

    class NotFittedError(PaucityError, _SklearnNotFittedError):
        """An estimator was used before ``fit``.

        A subclass of scikit-learn's ``NotFittedError`` (itself a ``ValueError``
        and an ``AttributeError``), so ``except sklearn.exceptions.NotFittedError``
        and ``except paucity.NotFittedError`` both catch it.
        """

    NotFittedError.__module__, NotFittedError.__qualname__ = __name__, "NotFittedError"
    return NotFittedError


def __getattr__(name: str):
    # NotFittedError is made on first use: its scikit-learn base class costs a second of imports, which a
    # command line that only reads a file and draws a progress bar should not pay before its first output
    if name == "NotFittedError":
        cls = globals()["NotFittedError"] = _not_fitted_error()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class PaucityWarning(UserWarning):
    """A recoverable oddity in the input, reported and worked around."""


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the first line outside paucity (and outside the
    scikit-learn or joblib machinery that called into it): the user's own line, not paucity's insides.

    Counted from the caller of :func:`warn` (``warnings.warn`` inside :func:`warn` is level 1, :func:`warn`'s
    caller level 2, and so on).
    """
    import sys
    from pathlib import Path

    inside = (str(Path(__file__).resolve().parent),)
    level, frame = 1, sys._getframe(1)  # the frame of warn()
    while frame is not None:
        filename = frame.f_code.co_filename
        module = frame.f_globals.get("__name__", "")
        if not (filename.startswith(inside) or module.split(".")[0] in ("sklearn", "joblib", "paucity")):
            return level
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str, category: type[Warning] = PaucityWarning) -> None:
    """Warn at the user's line (:func:`user_stacklevel`): every warning of paucity goes through here.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("something odd")
    >>> caught[0].filename == __file__ or caught[0].filename.endswith((".py", ">"))
    True
    """
    import warnings

    warnings.warn(message, category, stacklevel=user_stacklevel())
