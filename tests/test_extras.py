"""A missing optional package names the extra of paucity that installs it, in Python and on the command line."""

import subprocess
import sys

import pandas as pd
import pytest

from paucity._extras import EXTRAS, MissingDependencyError, missing_message, require


def run_without(modules, code):
    """``code`` in a fresh interpreter where ``modules`` cannot be imported (as if not installed)."""
    blocked = "; ".join(f"sys.modules[{m!r}] = None" for m in modules)
    return subprocess.run([sys.executable, "-c", f"import sys; {blocked}\n{code}"], capture_output=True, text=True)


def test_every_extra_named_exists():
    import tomllib
    from pathlib import Path

    extras = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS.values()) <= set(extras)


def test_require_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "starlette", None)
    with pytest.raises(MissingDependencyError, match=r'the page needs starlette, which is not installed: '
                                                     r'pip install "paucity\[web\]"'):
        require("starlette", "the page")
    assert missing_message("crowdkit") == 'this needs crowd-kit, which is not installed: pip install "paucity[crowdkit]"'
    assert require("json", "x").__name__ == "json"


def test_the_command_line_names_the_web_extra(tmp_path):
    path = tmp_path / "cells.h5ad"
    path.write_bytes(b"")
    done = run_without(["starlette"], "from paucity.cli import main; sys.argv = ['paucity', 'serve', 'markers', "
                                      f"{str(path)!r}, '--groupby', 'g']; main()")
    assert done.returncode == 2
    assert done.stderr.strip() == 'error: paucity serve needs starlette, which is not installed: pip install "paucity[web]"'


def test_python_names_the_web_extra():
    done = run_without(["starlette"], "import paucity.serve as s\ntry:\n    s.markers_app(None)\n"
                                      "except ImportError as e:\n    print(type(e).__name__, e)")
    assert done.stdout.strip() == ('MissingDependencyError the marker explorer page needs starlette, which is not '
                                   'installed: pip install "paucity[web]"')


def test_parquet_names_its_extra(tmp_path):
    path = tmp_path / "games.parquet"
    pd.DataFrame({"winner": ["a"], "loser": ["b"]}).to_parquet(path)
    done = run_without(["pyarrow", "fastparquet"], f"import paucity.io as io\ntry:\n    io.read_frame({str(path)!r})\n"
                                                   "except ImportError as e:\n    print(e)")
    assert done.stdout.strip() == 'reading games.parquet needs pyarrow, which is not installed: pip install "paucity[parquet]"'
    done = run_without(["pyarrow", "fastparquet"], "from paucity.cli import main; sys.argv = ['paucity', 'rank', "
                                                   f"{str(path)!r}, '--i-column', 'winner', '--j-column', 'loser', '--winner-column', 'winner', "
                                                   f"'--out', {str(tmp_path / 'r.csv')!r}]; main()")
    assert done.returncode == 2 and 'pip install "paucity[parquet]"' in done.stderr, done.stderr
    assert not (tmp_path / "r.csv").exists()


def test_an_unexpected_missing_module_on_the_command_line_is_named_with_its_extra(tmp_path):
    """A ModuleNotFoundError of an optional package deep inside a command still names its extra."""
    done = run_without(["dask"], "from paucity.cli._command import one_line_errors\nimport typer\n"
                                 "try:\n    with one_line_errors():\n        import dask\nexcept typer.Exit as e:\n"
                                 "    print('exit', e.exit_code)")
    assert done.stdout.strip() == "exit 2"
    assert 'needs dask, which is not installed: pip install "paucity[dask]"' in done.stderr


def test_postgres_names_its_extra(tmp_path):
    done = run_without(["psycopg", "psycopg2"], "from paucity.clustering import MeasurementStore\ntry:\n"
                                                "    MeasurementStore('postgresql://u@localhost/x')\n"
                                                "except Exception as e:\n    print(e)")
    assert "paucity[postgres]" in done.stdout, done.stdout + done.stderr
