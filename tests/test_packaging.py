"""The package a lab installs: its licence, metadata, one version, ``python -m paucity``, what the sdist carries."""

import email
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sdist and the wheel, built from this tree without network (setuptools and build from the dev extra)."""
    pytest.importorskip("build", reason="building needs the dev extra's build package")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (sdist,), (wheel,) = out.glob("*.tar.gz"), out.glob("*.whl")
    return sdist, wheel


def test_the_wheel_carries_the_licence_and_the_metadata(built):
    _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(info))
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
        licence = archive.read(next(n for n in names if n.endswith("licenses/LICENSE"))).decode()
    assert licence == (ROOT / "LICENSE").read_text() and licence.startswith("BSD 3-Clause License")
    assert metadata["License-Expression"] == "BSD-3-Clause"
    assert metadata["Version"] == PROJECT["version"]
    assert metadata["Requires-Python"] == ">=3.11"
    classifiers = metadata.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert any(c.startswith("Topic :: Scientific/Engineering") for c in classifiers)
    assert metadata["Author"] or metadata["Author-email"]
    # the page files and bundled data ship with the code
    assert {"paucity/serve/static/markers.js", "paucity/serve/static/annotate.html", "paucity/py.typed"} <= set(names)
    assert any(n.startswith("paucity/datasets/data/") for n in names)
    # nothing compiled here travels: no bytecode, no numba cache of this machine
    assert not [n for n in names if n.endswith((".pyc", ".nbi", ".nbc")) or "__pycache__" in n]


def test_the_sdist_carries_the_licence_and_no_part_of_the_test_suite(built):
    sdist, _ = built
    with tarfile.open(sdist) as archive:
        names = [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml"} <= set(names)
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "experiments/", "docs/"))]
    assert not [n for n in names if Path(n).name.startswith("test_") or Path(n).name == "conftest.py"]
    assert not [n for n in names if n.endswith((".pyc", ".nbi", ".nbc")) or "__pycache__" in n]


def test_all_installs_every_extra():
    extras = PROJECT["optional-dependencies"]
    bundled = extras["all"][0].removeprefix("paucity[").removesuffix("]").split(",")
    assert sorted(bundled) == sorted(name for name in extras if name != "all")


def test_one_version_and_python_dash_m():
    from importlib.metadata import version

    import paucity

    assert paucity.__version__ == version("paucity") == PROJECT["version"]
    assert "__version__ =" not in (ROOT / "src" / "paucity" / "cli" / "__init__.py").read_text()
    done = subprocess.run([sys.executable, "-m", "paucity", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"paucity {PROJECT['version']}"
    done = subprocess.run([sys.executable, "-m", "paucity", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "markers" in done.stdout
