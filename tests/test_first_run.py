"""The first run: kernels of a read-only install are cached in the user's cache folder, and a run says it compiles."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import paucity

PACKAGE = Path(paucity.__file__).resolve().parent

#: Bins a sparse and a dense matrix, then prints how many kernels compiled and where paucity was imported from.
SCRIPT = r"""
import numpy as np, scipy.sparse as sp
import paucity
from paucity import _compile
from paucity.info import discretize

with _compile.watch():
    rng = np.random.default_rng(0)
    X = sp.random(200, 30, density=0.2, format="csc", random_state=0, dtype=np.float64)
    binned = discretize(X, n_bins=4)
    print("compiled", _compile._state["count"], "binned", int(binned.nnz))
print("from", paucity.__file__)
"""


def _read_only_runner(site: Path):
    """How to run a command with ``site`` read-only: a read-only bind mount when root (root ignores modes)."""
    if os.geteuid() != 0:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        return lambda command: command
    if shutil.which("unshare") is None:
        pytest.skip("root cannot be kept from writing a folder here: no unshare for a read-only bind mount")
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind {site} {site} && "
                            f"mount -o remount,bind,ro {site} && ! touch {site}/probe 2>/dev/null"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"a read-only bind mount is not permitted here: {probe.stderr.strip()[:200]}")

    def wrap(command):
        quoted = " ".join(f"'{part}'" for part in command)
        return ["unshare", "-m", "sh", "-c",
                f"mount --bind {site} {site} && mount -o remount,bind,ro {site} && exec {quoted}"]

    return wrap


def test_a_read_only_install_caches_its_kernels_in_the_users_cache_folder(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "paucity", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    wrap = _read_only_runner(site)
    cache = tmp_path / "cache"
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(cache), HOME=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    before = sorted(str(p.relative_to(site)) for p in site.rglob("*"))

    runs = [subprocess.run(wrap([sys.executable, "-c", SCRIPT]), capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=600) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
        assert f"from {site / 'paucity'}" in run.stdout  # the read-only copy, not the development tree
    first, second = (dict(zip(r.stdout.split()[0:4:2], r.stdout.split()[1:4:2])) for r in runs)
    assert int(first["compiled"]) > 0 and first["binned"] == second["binned"]
    assert int(second["compiled"]) == 0  # every kernel loaded from the cache the first run wrote
    assert sorted(str(p.relative_to(site)) for p in site.rglob("*")) == before  # nothing written into the install
    cached = list((cache / "numba").rglob("*.nbi"))
    assert cached and any("discretize" in p.name or "_kernels" in p.name for p in cached)


def test_a_command_that_compiles_says_so_once(monkeypatch):
    """The notice comes at the first compilation only, and not at all with --quiet."""
    from paucity import _compile
    from paucity.cli import _command

    from paucity.cli import _options

    said = []
    monkeypatch.setattr(_options, "quiet", lambda: False)
    import numba

    @numba.njit
    def twice(x):
        return 2 * x

    @numba.njit
    def thrice(x):
        return 3 * x

    with monkeypatch.context() as patch:
        patch.setitem(_compile._state, "count", 0)
        patch.setattr(sys, "stderr", type("Sink", (), {"write": lambda self, text: said.append(text),
                                                         "flush": lambda self: None})())
        with _command.compile_notice():
            clock = _compile.Stopwatch()
            assert twice(2) == 4 and thrice(2) == 6 and twice(3.0) == 6.0
            assert clock.compile_seconds > 0
            assert clock.seconds < clock.compile_seconds + 60
    text = "".join(said)
    assert text.count(_command.COMPILING) == 1, text


def test_quiet_says_nothing(monkeypatch):
    from paucity import _compile
    from paucity.cli import _command, _options

    import numba

    @numba.njit
    def four_times(x):
        return 4 * x

    said = []
    monkeypatch.setattr(_options, "quiet", lambda: True)
    monkeypatch.setitem(_compile._state, "count", 0)
    monkeypatch.setattr(sys, "stderr", type("Sink", (), {"write": lambda self, text: said.append(text),
                                                           "flush": lambda self: None})())
    with _command.compile_notice():
        assert four_times(1) == 4
    assert _command.COMPILING not in "".join(said)
