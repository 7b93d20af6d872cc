"""How a parameter is named in a message: its Python name, or the option a command line spells it with.

A library message names the parameter as the Python caller wrote it (``n_factors=0``); a command that
calls the library sets :func:`option_spelling` for the call, and the same message then names the option
as its user typed it (``--n-factors 0``). :func:`paucity._validation.check_parameter` and
:func:`paucity._validation.check_memory` use it; a hand-written message uses :func:`spelled` and
:func:`given`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar

__all__ = ["option_spelling", "spelled", "spelled_hint", "given", "spells", "named", "owner_prefix"]

_SPELLING: ContextVar[Mapping[str, str]] = ContextVar("paucity_option_spelling", default={})


@contextlib.contextmanager
def option_spelling(spelling: Mapping[str, str]) -> Iterator[None]:
    """Within the block, messages name these parameters by these spellings ({python name: option}).

    Examples
    --------
    >>> with option_spelling({"n_factors": "--n-factors"}):
    ...     spelled("n_factors"), given("n_factors", 0), given("thin", 3)
    ('--n-factors', '--n-factors 0', 'thin=3')
    >>> spelled("n_factors")
    'n_factors'
    """
    token = _SPELLING.set({**_SPELLING.get(), **spelling})
    try:
        yield
    finally:
        _SPELLING.reset(token)


def spells(name: str | None = None) -> bool:
    """Whether a command line spells this parameter its own way just now (without a name: any parameter)."""
    return name in _SPELLING.get() if name is not None else bool(_SPELLING.get())


def spelled(name: str) -> str:
    """The parameter's name as the caller spells it: the option on a command line, else the Python name."""
    return _SPELLING.get().get(name, name)


def named(name: str) -> str:
    """The parameter as a message names it before a value: ``name=`` in Python, ``--option`` on a command line.

    Examples
    --------
    >>> named("tie")
    'tie='
    >>> with option_spelling({"tie": "--tie-column"}):
    ...     named("tie")
    '--tie-column'
    """
    option = _SPELLING.get().get(name)
    return f"{name}=" if option is None else option


def spelled_hint(name: str, hint: str) -> str:
    """A static hint about one parameter, written in Python words (``"sigma is the prior ..."``), as the caller
    reads it: on a command line the parameter's name that opens the hint becomes the option (``--sigma is the
    prior ...``). Only the opening name is rewritten: further on the same word may mean the thing itself (``Pass
    a kernel from ...``).

    Examples
    --------
    >>> spelled_hint("sigma", "sigma is the prior standard deviation.")
    'sigma is the prior standard deviation.'
    >>> with option_spelling({"sigma": "--sigma", "b": "--b"}):
    ...     spelled_hint("sigma", "sigma is the prior standard deviation."), spelled_hint("b", "bias is not b.")
    ('--sigma is the prior standard deviation.', 'bias is not b.')
    """
    option = _SPELLING.get().get(name)
    if option is None or not hint.startswith(name):
        return hint
    rest = hint[len(name):]
    if rest[:1].isalnum() or rest[:1] in ("_", "=", "("):  # a longer word, an assignment or a call
        return hint
    return option + rest


def owner_prefix(owner: str) -> str:
    """``"owner: "`` before a library message, or nothing on a command line, whose user never met the owner."""
    return "" if spells() else f"{owner}: "


def given(name: str, value) -> str:
    """The parameter with its value as the caller wrote it: ``name=value`` in Python, ``--option value`` on a
    command line (strings quoted in both; ``no --option`` for None)."""
    shown = value.item() if hasattr(value, "item") and not isinstance(value, (str, bytes)) else value
    option = _SPELLING.get().get(name)
    if option is None:
        return f"{name}={shown!r}"
    if shown is None:  # an option left out
        return f"no {option}"
    return f"{option} {shown!r}"
