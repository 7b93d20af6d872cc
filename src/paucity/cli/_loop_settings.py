"""The options of the active loop's settings, derived from their one declaration (:class:`~paucity.clustering.SessionSettings`).

:func:`loop_settings` gives a command one option per setting — its spelling
(``--batch-size``), its help and how its text is read (``iu-red`` is
``iu_red``; a budget is an integer or a fraction) all come from the
declaration — and hands the command a ``settings`` dict of the library's
values. ``paucity cluster-active`` takes the estimator's settings with their
defaults; ``paucity cluster-session start`` and ``paucity serve annotate``
take a session's, each left out unless given (the session's default when it
starts, no check when it resumes). A setting added to the declaration is an
option of these commands with no change here.
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import Optional

import typer

from .._errors import NoSessionError, ParameterError
from ..clustering.settings import Setting, settings_for

__all__ = ["loop_settings", "ITEMS", "ITEM_COLUMN", "open_or_explain"]

_FIXED = "Fixed when the session starts; a value that differs from the session's is refused."
_CHANGED = {"budget": "(paucity cluster-session extend raises it.)"}
_CHANGEABLE = "The coordinator may change it later (paucity cluster-session change, or the coordinator's page)."

ITEMS: Optional[Path] = typer.Option(
    None,
    "--items",
    help="The items table (a header row): the names in its first column, or --item-column. Needed to start a "
    "session; on a session started already it must name the same items, or be left out.",
    show_default=False,
)
ITEM_COLUMN: Optional[str] = typer.Option(None, "--item-column", help="The column of --items holding the names.")


def _shown_default(s: Setting, scope: str) -> str:
    if s.default_help is not None:
        return s.default_help
    value = s.default_for(scope)
    return f"{value:g}" if isinstance(value, float) else str(value)


#: What ``--quota none`` stands for: the setting removed (no limit).
NONE = "none"


def _option(s: Setting, scope: str):
    """The typer option of one setting: as a session takes it (left out unless given), as a change to a session
    (left out: unchanged), or as the estimator does."""
    if scope == "change":
        decls = [f"{s.option}/--no-{s.option[2:]}"] if s.kind is bool else [s.option]
        removable = " ('none' removes it)" if None in s.constraints else ""
        return typer.Option(None, *decls, help=f"{s.help_for('session')} Left out: unchanged{removable}.",
                            show_default=False)
    session = scope == "session"
    decls = [f"{s.option}/--no-{s.option[2:]}"] if s.kind is bool and session else [s.option]
    if session:
        fixed = _FIXED if s.fixed else _CHANGED.get(s.name, _CHANGEABLE)
        text = f"{s.help_for(scope)} Default: {_shown_default(s, scope)}. {fixed}"
        return typer.Option(None, *decls, help=text, show_default=False)
    default = s.default_for(scope)
    shown = default if s.parse is None or default is None else _shown_default(s, scope)
    text = s.help if default is not None else f"{s.help} Default: {_shown_default(s, scope)}."
    return typer.Option(shown, *decls, help=text, show_default=default is not None)


def _annotation(s: Setting, scope: str):
    if scope == "change" and None in s.constraints:
        return Optional[str]  # a number, or 'none'
    kind = s.kind if s.parse is None else str  # a parsed setting is typed as text
    return Optional[kind] if scope == "session" or s.default_for(scope) is None else kind


def _read(s: Setting, text, scope: str):
    """An option's value as the library's: parsed where the setting says how; on a change, 'none' is None and a
    number typed as text is read as the setting's kind."""
    if scope == "change" and isinstance(text, str) and None in s.constraints and s.parse is None:
        if text.strip().lower() == NONE:
            return None
        try:
            return s.kind(text)
        except ValueError:
            raise ParameterError(f"{s.option} must be a number or 'none', got {text!r}.") from None
    return s.read(text)


def loop_settings(scope: str):
    """Give a command an option per setting of ``scope`` (``"session"``, ``"change"`` or ``"estimator"``); the
    command receives
    them as its ``settings`` parameter, ``{name: value}`` in the library's words, a session's setting left out
    when not given.

    Examples
    --------
    >>> @loop_settings("session")
    ... def start(database: str, settings: dict):
    ...     return settings
    >>> start(database="s.db", strategy="shamir-tishby", budget="0.2", batch_size=None, repeats=None,
    ...       interleave=None, n_clusters=None, random_state=None, price=None, lease_seconds=None, cut=None)
    {'strategy': 'shamir_tishby', 'budget': 0.2}
    """
    declared = settings_for(scope)

    def decorate(command):
        signature = inspect.signature(command, eval_str=True)
        kept = [p for p in signature.parameters.values() if p.name != "settings"]
        added = [inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=_option(s, scope),
                                   annotation=_annotation(s, scope)) for s in declared]

        @functools.wraps(command)
        def run(**values):
            from ._command import one_line_errors

            given = {s.name: values.pop(s.name, None) for s in declared}
            with one_line_errors(spelling={s.name: s.option for s in declared}):
                settings = {s.name: _read(s, given[s.name], scope) for s in declared if given[s.name] is not None}
                if settings.get("interleave") and settings.get("strategy") == "random":
                    from ..clustering._checks import check_interleave

                    check_interleave("random", True, owner=command.__name__)
            return command(**values, settings=settings)

        run.__signature__ = signature.replace(parameters=[*kept, *added])
        return run

    return decorate


def open_or_explain(database: str, **settings):
    """``ClusteringSession.open``; on a database with no session, say that --items starts one."""
    from ..clustering import ClusteringSession

    try:
        return ClusteringSession.open(database, **settings)
    except NoSessionError:
        raise ParameterError(
            f"{database} holds no session yet; give --items (the names of the items to cluster) to start one."
        ) from None
