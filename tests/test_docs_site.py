"""The documentation site builds offline with warnings as errors, and its API pages list every public name.

A build takes about a minute, so these run with the slow tests (``make test-slow``) and CI builds the site
with ``make docs`` after ``make test`` (``.ci/run``).
"""

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for needed in ("sphinx", "numpydoc", "myst_parser", "pydata_sphinx_theme"):
        if importlib.util.find_spec(needed) is None:
            pytest.skip(f'the documentation needs {needed}: pip install "paucity[docs]"')
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q", "-d", str(out / "doctrees"),
         str(ROOT / "docs"), str(out / "html")],
        capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, f"the documentation does not build cleanly:\n{done.stderr[-8000:]}"
    return out / "html"


def test_every_guide_is_a_page(site):
    for guide in sorted((ROOT / "docs").glob("*.md")):
        if guide.name != "index.md":
            assert (site / f"{guide.stem}.html").exists(), guide.name
    assert (site / "api" / "index.html").exists()


def test_every_public_name_is_on_its_api_page(site):
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        conf = importlib.import_module("conf")
    finally:
        sys.path.pop(0)
    for module_name in conf.SUBPACKAGES:
        page = (site / "api" / (module_name.removeprefix("paucity.").replace(".", "-") + ".html")).read_text()
        shown = set(re.findall(r'<span class="sig-name descname"><span class="pre">([^<]+)</span>', page))
        missing = [name for name in importlib.import_module(module_name).__all__ if name not in shown]
        assert not missing, f"{module_name}: {missing} are public but not on its API page"


def test_every_subpackage_has_an_api_page():
    import paucity

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        conf = importlib.import_module("conf")
    finally:
        sys.path.pop(0)
    public = {f"paucity.{p.name}" for p in Path(paucity.__file__).parent.iterdir()
              if p.is_dir() and not p.name.startswith("_") and (p / "__init__.py").exists()} - {"paucity.cli"}
    assert public <= set(conf.SUBPACKAGES), sorted(public - set(conf.SUBPACKAGES))
