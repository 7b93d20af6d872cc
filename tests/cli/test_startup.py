"""The start of the ``paucity`` script: what it imports before its Ctrl-C guard, and Ctrl-C inside it."""

from __future__ import annotations

import subprocess
import sys

#: Modules that the script must not import before its guard is set (each costs milliseconds to tens of them).
HEAVY = ("importlib.metadata", "email", "zipfile", "typing", "typer", "click", "rich", "numpy", "pandas")


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_script_imports_nothing_heavy_before_its_guard():
    # what the installed script runs before main(): ``from paucity.cli import main``
    result = _python(
        "import sys\n"
        "before = set(sys.modules)\n"
        "from paucity.cli import main\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    assert result.returncode == 0, result.stderr
    loaded = result.stdout.split()
    assert {"paucity", "paucity.cli"} <= set(loaded)
    heavy = [name for name in loaded if name.split(".")[0] in HEAVY or name in HEAVY]
    assert not heavy, heavy
    assert not [name for name in loaded if name.startswith("paucity.") and name not in ("paucity.cli", "paucity._lazy")]


def test_the_version_is_read_on_first_use():
    result = _python(
        "import sys, paucity\n"
        "assert 'importlib.metadata' not in sys.modules\n"
        "assert '__version__' in dir(paucity) and '__version__' in paucity.__all__\n"
        "from paucity import __version__\n"
        "assert __version__ == paucity.__version__ and __version__\n"
        "from importlib.metadata import version\n"
        "assert __version__ == version('paucity')\n"
    )
    assert result.returncode == 0, result.stderr


def _interrupt_when_imported(module: str) -> str:
    return (
        "import sys\n"
        "class Stop:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {module!r}:\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Stop())\n"
    )


def test_ctrl_c_while_the_version_is_read_is_inside_the_guard():
    """Reading the version (importlib.metadata, tens of milliseconds) happens once the guard is set."""
    code = _interrupt_when_imported("paucity._version") + (
        "sys.argv = ['paucity', '--version']\n"
        "from paucity.cli import main\n"
        "main()\n"
    )
    result = _python(code)
    assert result.returncode == 130, result.stderr
    assert result.stderr == "interrupted\n"


def test_a_library_user_gets_keyboard_interrupt_not_an_exit():
    """Only the script turns Ctrl-C into ``interrupted`` and 130; ``import paucity`` lets it through as it is."""
    code = _interrupt_when_imported("paucity._version") + (
        "import paucity\n"
        "try:\n"
        "    paucity.__version__\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt')\n"
    )
    result = _python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "KeyboardInterrupt\n"


def test_help_reads_no_package_metadata():
    """``paucity --help`` does not read the version (importlib.metadata and email, tens of milliseconds): only
    ``--version`` does."""
    code = (
        "import sys\n"
        "sys.argv = ['paucity', '--help']\n"
        "from paucity.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('importlib.metadata' in sys.modules, file=sys.stderr)\n"
    )
    result = _python(code)
    assert result.returncode == 0, result.stderr
    assert "Usage: paucity" in result.stdout
    assert result.stderr.strip().splitlines()[-1] == "False"
    version = _python("import sys\nsys.argv = ['paucity', '--version']\nfrom paucity.cli import main\nmain()\n")
    assert version.returncode == 0 and version.stdout.startswith("paucity ")
