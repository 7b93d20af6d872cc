"""How a command runs and fails: one line on stderr, a non-zero exit, nothing written.

Every ``paucity`` command is a :class:`PaucityCommand`:

- a usage error (a missing or malformed option) is one line on stderr and
  exit code 2;
- an old spelling of a renamed option (:data:`~paucity.cli._options.DEPRECATED_OPTIONS`)
  is rewritten to the new one, with a warning on stderr;
- Ctrl-C prints ``interrupted`` and exits with 130;
- the first run that compiles paucity's kernels says so once on stderr
  (``compiling kernels, first run only``);
- warnings (paucity's oddities, deprecations) are one ``warning: ...`` line
  on stderr each, shown as they happen.

Inside a command, :func:`one_line_errors` turns paucity's errors into the
same one-line form with exit code 2.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Mapping
from contextvars import ContextVar

import typer
from typer.core import TyperCommand, TyperGroup

from .._errors import PaucityError
from .._extras import extra_of, missing_message
from ._options import DEPRECATED_OPTIONS, FOLDER_OUTPUTS, MULTI_VALUE_OPTIONS

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


#: The running command's options: {Python parameter name: its spelling on the command line}.
_OPTIONS: ContextVar[dict] = ContextVar("paucity_command_options", default={})


@contextlib.contextmanager
def one_line_errors(spelling: Mapping[str, str] | bool = False):
    """Turn paucity's errors (and unreadable paths) into a one-line message and exit code 2.

    With ``spelling``, the library's messages name its parameters as the command line spells them
    (``--n-factors 0``, not ``n_factors=0``; :mod:`paucity._spelling`): ``True`` for the command's own
    options (a library parameter of the same name as a command parameter), or a mapping of further
    ``{library parameter: option}`` on top of them. A column option also spells its column's role: a
    command parameter ``i_column`` spelled ``--i-column`` names the role ``i`` of a container's
    ``from_frame`` (``i=``) as ``--i-column``, unless the command has a parameter of that name itself.
    """
    from .._spelling import option_spelling

    names = {} if spelling is False else {**column_roles(_OPTIONS.get()), **_OPTIONS.get(),
                                          **({} if spelling is True else dict(spelling))}
    try:
        with option_spelling(names):
            yield
    except (PaucityError, OSError, ImportError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, ModuleNotFoundError) and exc.name and extra_of(exc.name):
            message = missing_message(exc.name, _command_name())  # names the extra that brings it
        print(f"error: {message}", file=sys.stderr)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None


def column_roles(options: Mapping[str, str]) -> dict[str, str]:
    """The role each column option names: ``{"i_column": "--i-column"}`` -> ``{"i": "--i-column"}``.

    Examples
    --------
    >>> column_roles({"i_column": "--i-column", "out": "--out", "weight_column": "--weight-column"})
    {'i': '--i-column', 'weight': '--weight-column'}
    """
    return {name.removesuffix("_column"): option for name, option in options.items()
            if name.endswith("_column") and name != "_column" and option.endswith("-column")}


def _command_name() -> str:
    """``paucity <command>`` as typed (its words before the first option or file), for messages."""
    words = ["paucity"]
    for arg in sys.argv[1:3]:
        if arg.startswith("-") or "." in arg or "/" in arg:
            break
        words.append(arg)
    return " ".join(words)


def rewrite_deprecated(args: list[str], renamed: dict[str, str]) -> list[str]:
    """Replace old option spellings (keys of ``renamed``) by the new ones, warning on stderr for each.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     rewrite_deprecated(["in.csv", "--seed=3", "--k", "5"], {"--seed": "--random-state", "--k": "--n-features"})
    ['in.csv', '--random-state=3', '--n-features', '5']
    >>> print(err.getvalue(), end="")
    warning: --seed is deprecated and will be removed; use --random-state.
    warning: --k is deprecated and will be removed; use --n-features.
    """
    if not renamed:
        return args
    out = []
    for arg in args:
        if arg == "--":
            out.extend(args[len(out):])
            break
        name, equals, value = arg.partition("=")
        if name in renamed:
            new = renamed[name]
            print(f"warning: {name} is deprecated and will be removed; use {new}.", file=sys.stderr)
            arg = new + equals + value
        out.append(arg)
    return out


def spread_values(args: list[str], options: set[str]) -> list[str]:
    """``--invite alice bob --host x`` -> ``--invite alice --invite bob --host x``: the values after one of
    ``options`` up to the next option, each with the flag.

    Examples
    --------
    >>> spread_values(["db", "--invite", "alice", "bob", "--port", "0"], {"--invite"})
    ['db', '--invite', 'alice', '--invite', 'bob', '--port', '0']
    """
    if not options:
        return args
    out: list[str] = []
    flag = None
    for arg in args:
        if arg == "--":
            flag = None
        elif arg.startswith("-"):
            name = arg.split("=", 1)[0]
            flag = name if name in options else None
            out.append(arg)
            continue
        if flag is not None and out and out[-1] != flag:
            out.append(flag)
        out.append(arg)
    return out


def _refuse_folder_output(args: list[str]) -> None:
    """``--out somedir/`` names a folder: refuse it here, since a path option drops the trailing separator."""
    for position, arg in enumerate(args):
        if arg == "--":
            return
        name, equals, value = arg.partition("=")
        if name in ("--out", "-o"):
            value = value if equals else (args[position + 1] if position + 1 < len(args) else "")
            if value.endswith(("/", os.sep)):
                raise _USAGE_ERROR(f"--out {value} is a folder; give a file path such as {value}result")


def reflow(text: str | None) -> str | None:
    r"""A docstring's paragraphs as single lines, so that ``--help`` wraps them at the terminal's width, not at the
    source's (``\b`` paragraphs, such as examples, keep their lines).

    Examples
    --------
    >>> reflow("Rank items.\n\n    The table has one row\n    per item.\n\n    \b\n    Examples:\n      paucity rank a.csv")
    'Rank items.\n\nThe table has one row per item.\n\n\x08\nExamples:\n  paucity rank a.csv'
    """
    if not text:
        return text
    import inspect

    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


class PaucityCommand(TyperCommand):
    """A command with one-line usage errors, deprecated spellings rewritten, a clean Ctrl-C, and a help page
    whose paragraphs wrap at the terminal's width and whose on/off flags show no type."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)
        for param in self.params:
            if getattr(param, "is_flag", False):  # --transpose, --use-raw/--no-use-raw: no "<bool>" beside them
                param.display_type_rich = _no_type

    def get_help_option(self, ctx):
        return _untyped(super().get_help_option(ctx))

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        with one_line_usage(_command_path(ctx, self.name)):
            args = rewrite_deprecated(list(args), DEPRECATED_OPTIONS.get(self.name or "", {}))
            args = spread_values(args, MULTI_VALUE_OPTIONS.get(self.name or "", set()))
            if self.name not in FOLDER_OUTPUTS:
                _refuse_folder_output(args)
            return super().parse_args(ctx, args)

    def invoke(self, ctx):
        options = {param.name: next((o for o in param.opts if o.startswith("--")), param.opts[0])
                   for param in self.params if param.name and param.opts and param.opts[0].startswith("-")}
        token = _OPTIONS.set(options)
        try:
            with one_line_usage(_command_path(ctx, self.name)), warnings_in_one_line(), compile_notice():  # values are converted here
                return super().invoke(ctx)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            raise typer.Exit(code=EXIT_INTERRUPTED) from None
        finally:
            _OPTIONS.reset(token)


#: Said on stderr when a command's first run compiles paucity's kernels (later runs load them from the cache).
COMPILING = "compiling kernels, first run only"


@contextlib.contextmanager
def compile_notice():
    """Say once on stderr when kernels compile, so that a slow first run is not read as a slow algorithm."""
    from .._compile import watch
    from ._options import quiet

    def announce():
        if not quiet():
            print(f"{COMPILING} (later runs load them from the cache)...", file=sys.stderr, flush=True)

    with watch(announce):
        yield


@contextlib.contextmanager
def warnings_in_one_line():
    """Show each warning as ``warning: <message>`` on stderr when it is raised, as errors are shown; a message
    said already by this command (the same oddity met by two steps of one run) is not repeated."""
    said = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if text not in said:
            said.add(text)
            print(f"warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


class PaucityGroup(TyperGroup):
    """A group of commands (``paucity``, ``paucity serve``, ...) whose help wraps and whose flags show no type."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)
        for param in self.params:
            if getattr(param, "is_flag", False):
                param.display_type_rich = _no_type

    def get_help_option(self, ctx):
        return _untyped(super().get_help_option(ctx))


def _no_type(ctx) -> None:
    return None


def _untyped(option):
    if option is not None:
        option.display_type_rich = _no_type
    return option


# typer raises click's UsageError, or its own copy of click's where it ships one
_USAGE_ERROR = next(kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "UsageError")


def _command_path(ctx, name: str | None) -> str | None:
    """The command as typed after ``paucity``: ``serve annotate``, not ``annotate`` (whose help is elsewhere)."""
    names = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name or ctx.command.name or "")
        ctx = ctx.parent
    return " ".join(reversed(names)) or name


@contextlib.contextmanager
def one_line_usage(command: str | None):
    try:
        yield
    except _USAGE_ERROR as error:
        message = " ".join(error.format_message().split())
        print(f"error: {message} (see paucity {command} --help)", file=sys.stderr)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None
