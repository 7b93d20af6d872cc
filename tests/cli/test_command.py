"""What every command shares: one-line errors and warnings, old spellings, --out checks, Ctrl-C, --version, --quiet."""

import warnings

import pytest
import typer
from typer.testing import CliRunner

from paucity import __version__
from paucity.cli import app
from paucity.cli._command import PaucityCommand
from paucity.cli._options import DEPRECATED_OPTIONS

runner = CliRunner()


def _games(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text("home,away,winner\na,b,a\nb,c,b\nc,a,c\na,c,a\n")
    return path


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"paucity {__version__}"


def test_old_spellings_are_rewritten_with_a_warning(tmp_path):
    assert DEPRECATED_OPTIONS["rank"]["--i-col"] == "--i-column"
    out = tmp_path / "s.csv"
    result = runner.invoke(
        app, ["rank", str(_games(tmp_path)), "--i-col", "home", "--j-col=away", "--winner-column", "winner", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "warning: --i-col is deprecated and will be removed; use --i-column." in result.stderr
    assert "warning: --j-col is deprecated" in result.stderr
    assert out.exists()


def test_usage_errors_are_one_line():
    result = runner.invoke(app, ["rank", "--no-such-option"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and lines[0].endswith("(see paucity rank --help)")


def test_out_with_a_trailing_separator_is_a_folder_and_nothing_is_written(tmp_path):
    games = _games(tmp_path)
    for args in (["--out", "somedir/"], ["-o", "somedir/"], ["--out=somedir/"]):
        result = runner.invoke(app, ["rank", str(games), "--i-column", "home", "--j-column", "away",
                                     "--winner-column", "winner", *args])
        assert result.exit_code == 2 and "--out somedir/ is a folder" in result.stderr, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv"]


def test_quiet_prints_no_summary(tmp_path):
    out = tmp_path / "s.csv"
    result = runner.invoke(app, ["--quiet", "rank", str(_games(tmp_path)), "--i-column", "home", "--j-column", "away",
                                 "--winner-column", "winner", "-o", str(out)])
    assert result.exit_code == 0 and result.stdout == "" and out.exists()


def _probe_app(body):
    probe = typer.Typer(add_completion=False)

    @probe.callback()
    def _group():
        pass

    probe.command("probe", cls=PaucityCommand)(body)
    return probe


def test_ctrl_c_prints_interrupted_and_exits_130():
    def body():
        raise KeyboardInterrupt

    result = runner.invoke(_probe_app(body), ["probe"])
    assert result.exit_code == 130 and result.stderr.strip() == "interrupted"


def test_warnings_are_one_line_when_they_happen():
    def body():
        warnings.warn("3 features are constant\nsecond line is kept in the message", UserWarning)
        print("after")

    result = runner.invoke(_probe_app(body), ["probe"])
    assert result.exit_code == 0
    assert result.stderr.startswith("warning: 3 features are constant")
    assert "UserWarning" not in result.stderr and "after" in result.stdout


def test_a_warning_met_twice_in_one_run_is_said_once():
    def body():
        for step in range(3):  # the same oddity met by three steps of one run, as the demo's two fits meet it
            warnings.warn("7 features are constant and are ignored", UserWarning)
            warnings.warn(f"step {step} is odd", UserWarning)

    result = runner.invoke(_probe_app(body), ["probe"])
    assert result.exit_code == 0
    assert result.stderr.count("warning: 7 features are constant") == 1
    assert [f"step {k} is odd" in result.stderr for k in range(3)] == [True] * 3


def test_a_column_option_names_its_role_in_library_messages():
    import pandas as pd

    from paucity._validation import check_columns
    from paucity.cli._command import column_roles, one_line_errors

    def body(i_column: str = typer.Option(..., "--i-column"), weight_column: str = typer.Option("w", "--weight-column")):
        with one_line_errors(spelling=True):
            check_columns(pd.DataFrame({"a": [1]}), {"i": "a", "weight": None, "j": "b"} if i_column == "a"
                          else {"i": i_column})

    result = runner.invoke(_probe_app(body), ["probe", "--i-column", "x"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: the table has no column 'x' (the i column, --i-column); its columns are 'a'."
    result = runner.invoke(_probe_app(body), ["probe", "--i-column", "a"])  # a role with no option of its own
    assert result.stderr.strip() == "error: the table has no column 'b' (the j column, j=); its columns are 'a'."
    assert column_roles({"i_column": "--i-column", "column": "--column", "truth": "--truth"}) == {"i": "--i-column"}


def _help_pages():
    from paucity.cli import app

    import typer.main

    root = typer.main.get_command(app)
    pages = [[]]
    for name, command in root.commands.items():
        pages.append([name])
        for sub in getattr(command, "commands", {}):
            pages.append([name, sub])
    return pages


@pytest.mark.parametrize("words", _help_pages(), ids=lambda words: " ".join(words) or "paucity")
def test_help_shows_no_type_on_flags_and_wraps_paragraphs(words):
    """`--help` of every command: no "<bool>" beside a flag, and no line of a paragraph cut at the source's width."""
    from typer.testing import CliRunner

    from paucity.cli import app

    result = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "120", "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    text = [line.strip() for line in result.output.split("╭")[0].splitlines()]  # the description, above the tables
    # a paragraph re-wrapped at 120 columns leaves no short line followed by a line that goes on the sentence
    short = [a for a, b in zip(text, text[1:]) if 0 < len(a) < 60 and b and b[0].islower() and not a.endswith(":")
             and not a.startswith(("paucity ", "-", "*"))]
    assert not short, short[:3]


def test_ctrl_c_while_the_command_line_starts_is_interrupted_with_130():
    """Ctrl-C while `paucity` still imports its commands (the first fraction of a second): no traceback."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "class Stop:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'paucity.cli.application':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Stop())\n"
        "sys.argv = ['paucity', '--version']\n"
        "from paucity.cli import main\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 130, result.stderr
    assert result.stderr == "interrupted\n"
