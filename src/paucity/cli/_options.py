"""Settings shared by every command: ``--quiet``, and the old spellings of renamed options.

The spelling of each option is the library parameter's name with ``_``
written ``-`` (``--n-features``, ``--random-state``, ``--n-jobs``), and a
table column is named by ``--<what>-column``; ``docs/conventions.md`` lists
them. An option renamed to follow that rule keeps its old spelling here for a
while: :class:`~paucity.cli._command.PaucityCommand` rewrites it and prints a
deprecation warning.
"""

from __future__ import annotations

__all__ = ["DEPRECATED_OPTIONS", "FOLDER_OUTPUTS", "MULTI_VALUE_OPTIONS", "quiet", "set_quiet"]

#: Old spellings still accepted, per command: {command: {old: new}}.
DEPRECATED_OPTIONS: dict[str, dict[str, str]] = {
    "differences": {
        "--k": "--n-features",
        "--permutations": "--n-permutations",
        "--jobs": "--n-jobs",
        "--index-col": "--index-column",
    },
    "markers-benchmark": {
        "--n-markers": "--n-features",
        "--folds": "--n-folds",
        "--seed": "--random-state",
    },
    "rank": {
        "--i-col": "--i-column",
        "--j-col": "--j-column",
        "--winner-col": "--winner-column",
        "--y-col": "--y-column",
        "--weight-col": "--weight-column",
        "--item-col": "--item-column",
    },
    "rank-evaluate": {
        "--i-col": "--i-column",
        "--j-col": "--j-column",
        "--winner-col": "--winner-column",
        "--y-col": "--y-column",
        "--weight-col": "--weight-column",
        "--item-col": "--item-column",
        "--score-col": "--score-column",
        "--truth-col": "--truth-column",
    },
}

#: Options that take several values after one flag, up to the next option (``--invite alice bob``), per command.
MULTI_VALUE_OPTIONS: dict[str, set[str]] = {"annotate": {"--invite"}}

#: Commands whose --out is a folder (every other command writes one file).
FOLDER_OUTPUTS = {"demo", "markers-benchmark"}

_settings = {"quiet": False}


def quiet() -> bool:
    """True when ``paucity --quiet`` was given: no progress bars and no summaries."""
    return _settings["quiet"]


def set_quiet(value: bool) -> None:
    """Set by the ``--quiet`` option of the ``paucity`` group."""
    _settings["quiet"] = bool(value)
