"""The naming table of docs/conventions.md holds: one spelling per concept in code, CLI and docs."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import typer.main

from paucity.cli import app
from paucity.cli._options import DEPRECATED_OPTIONS

ROOT = Path(__file__).resolve().parents[1]

# spellings replaced by the naming table (old -> new); the CLI accepts them only through DEPRECATED_OPTIONS
OLD_CLI_SPELLINGS = re.compile(r"^--(seed|jobs|k|permutations|folds|n-markers|[a-z-]+-col)$")
# Python keywords kept as deprecated aliases that warn (checked below to warn)
DEPRECATED_KEYWORDS = {("paucity.differences", "PDA"): "k", ("paucity.differences", "compare"): "k"}
OLD_PYTHON_NAMES = {"k", "seed", "jobs", "n_jobs_", "n_markers"}
CAPABILITIES = [
    "paucity.info", "paucity.markers", "paucity.ranking", "paucity.differences", "paucity.judgments",
    "paucity.clustering", "paucity.crowd", "paucity.gp", "paucity.serve",
]


def _commands():
    """Every command by its name on the command line, subcommands included ("serve markers")."""
    found = {}

    def walk(group, prefix):
        for name, command in group.commands.items():
            found[prefix + name] = command
            if hasattr(command, "commands"):
                walk(command, prefix + name + " ")

    walk(typer.main.get_command(app), "")
    return found


def _options(command) -> set[str]:
    names = set()
    for param in command.params:
        names.update(name for name in getattr(param, "opts", []) + getattr(param, "secondary_opts", []) if name.startswith("--"))
    return names


@pytest.mark.parametrize("name", sorted(_commands()))
def test_no_command_declares_an_old_spelling(name):
    declared = _options(_commands()[name])
    old = sorted(option for option in declared if OLD_CLI_SPELLINGS.match(option))
    assert not old, f"paucity {name} declares {old}; use the naming table's spelling and list the old one in DEPRECATED_OPTIONS"


def test_every_deprecated_spelling_leads_to_a_declared_option():
    commands = _commands()
    for command, renamed in DEPRECATED_OPTIONS.items():
        assert command in commands, command
        declared = _options(commands[command])
        for old, new in renamed.items():
            assert old not in declared, (command, old)
            assert new in declared, (command, old, new)


def test_every_command_writing_a_file_calls_it_out():
    for name, command in _commands().items():
        declared = _options(command)
        writes = {option for option in declared if option in ("--output", "--out-file", "--output-file", "--dest")}
        assert not writes, (name, writes)


def _public_callables():
    for module_name in CAPABILITIES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield module_name, name, obj


def test_public_signatures_use_the_table_names():
    offenders = []
    for module_name, name, obj in _public_callables():
        try:
            parameters = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        for parameter in parameters:
            if parameter in OLD_PYTHON_NAMES and DEPRECATED_KEYWORDS.get((module_name, name)) != parameter:
                offenders.append(f"{module_name}.{name}({parameter}=...)")
    assert not offenders, offenders


def test_deprecated_keywords_warn():
    import numpy as np

    from paucity.differences import PDA

    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(30, 4)), rng.normal(size=(30, 4)) + [2, 0, 0, 0]
    with pytest.warns(FutureWarning, match="n_features"):
        PDA(sparsity="l1", k=1, max_iter=20, n_restarts=0).fit(X, Y)


def _documents():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", _documents(), ids=lambda path: path.name)
def test_documents_use_the_table_spellings(path):
    if path.name in ("conventions.md", "changes.md"):  # they list the old spellings on purpose
        return
    text = path.read_text()
    old = sorted(set(re.findall(r"(?<![\w-])--(?:seed|jobs|k|permutations|folds|n-markers|[a-z]+(?:-[a-z]+)*-col)(?![\w-])", text)))
    assert not old, f"{path.name} still writes {old}"
