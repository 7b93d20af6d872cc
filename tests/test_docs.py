"""Every Python block of the README and the guides runs when pasted alone into a fresh interpreter.

A block that continues the one before it says so on its first line (``# continues the block above``); it is
run after the blocks it continues, in the same interpreter, as a reader who pasted them in order would. Every
other block runs in an interpreter of its own, in an empty folder, with an empty namespace. One test per
block: a chain of blocks runs once (its result is shared by the tests of its blocks, across pytest-xdist's
workers), and the test of a block fails with the traceback of that block, or says which earlier block of its
chain stopped it.

Each chain's interpreter is a fork of one that has imported the libraries the guides use (numpy, pandas,
scipy, scikit-learn, anndata, numba, matplotlib, paucity's capabilities): importing them took 1 to 4 s of
every chain, most of this file's time. The fork binds no name: a block that forgets an import fails as it
would pasted alone, since its namespace is empty.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md"] + sorted(p for p in DOCS.glob("*.md") if "```python" in p.read_text())
CONTINUES = re.compile(r"\A\s*# continues\b")


def blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)


def chain_of(page: Path, k: int) -> list[int]:
    """The block k and the blocks it continues, first to last."""
    sources = blocks(page)
    start = k
    while start > 0 and CONTINUES.match(sources[start]):
        start -= 1
    end = k
    while end + 1 < len(sources) and CONTINUES.match(sources[end + 1]):
        end += 1
    return list(range(start, end + 1))


CASES = [(page, k) for page in PAGES for k in range(len(blocks(page)))]


#: Imports the libraries the guides use, then, for each request on stdin (JSON: a folder and the blocks of a
#: chain), forks; the child runs the blocks one after another in one empty namespace, in the folder, writing
#: its output to two files there (after each block a line saying it ran, or the traceback and a line saying it
#: failed), and the parent answers with the child's exit status. Python's own start and these imports are paid
#: once per worker.
ZYGOTE = r"""
import importlib, json, os, signal, sys, traceback
for module in ("numpy", "pandas", "scipy.sparse", "scipy.stats", "scipy.optimize", "sklearn.base",
               "sklearn.gaussian_process", "anndata", "numba", "matplotlib.pyplot", "scanpy"):
    try:
        importlib.import_module(module)
    except ImportError:
        pass
import paucity
for package in paucity.__all__[:-1]:
    face = importlib.import_module("paucity." + package)
    for name in getattr(face, "__all__", []):
        try:
            getattr(face, name)
        except Exception:
            pass
print("ready", flush=True)
for line in sys.stdin:
    request = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.chdir(request["folder"])
            for fd, name in ((1, ".block-stdout"), (2, ".block-stderr")):
                os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            sys.stdin = open(os.devnull)
            signal.alarm(600)
            namespace = {"__name__": "__main__"}
            for k, (name, source) in request["blocks"]:
                try:
                    exec(compile(source, name, "exec"), namespace)
                except BaseException:
                    sys.stdout.flush()
                    print(traceback.format_exc(), file=sys.stderr)
                    print("\x00failed", k, flush=True)
                    code = 1
                    break
                print("\x00ran", k, flush=True)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), flush=True)
"""


class _Forks:
    """One ZYGOTE process per pytest worker, started on first use."""

    def __init__(self):
        self.process = None

    def run(self, folder: Path, payload: list) -> int:
        if self.process is None:
            env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore::DeprecationWarning")
            self.process = subprocess.Popen([sys.executable, "-c", ZYGOTE], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True, env=env, cwd=folder)
            assert self.process.stdout.readline().strip() == "ready", "the interpreter the blocks fork from failed"
        self.process.stdin.write(json.dumps({"folder": str(folder), "blocks": payload}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the interpreter the blocks fork from stopped"
        return json.loads(answer)["returncode"]

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


def _run(page: Path, chain: list[int], folder: Path, forks: _Forks) -> dict:
    sources = blocks(page)
    payload = [(k, (f"{page.name} block {k}", sources[k])) for k in chain]
    folder.mkdir(parents=True, exist_ok=True)
    returncode = forks.run(folder, payload)
    stdout = (folder / ".block-stdout").read_text(errors="replace")
    stderr = (folder / ".block-stderr").read_text(errors="replace")
    ran = [int(line.split()[1]) for line in stdout.splitlines() if line.startswith("\x00ran")]
    failed = [int(line.split()[1]) for line in stdout.splitlines() if line.startswith("\x00failed")]
    return {"ran": ran, "failed": failed[0] if failed else None, "returncode": returncode,
            "stderr": stderr[-6000:]}


@pytest.fixture(scope="session")
def chain_results(tmp_path_factory):
    """Runs each chain once, whichever worker asks first; the others read its result from the shared folder."""
    shared = tmp_path_factory.getbasetemp().parent / "doc-blocks"
    shared.mkdir(exist_ok=True)
    forks = _Forks()

    def result(page: Path, chain: list[int]) -> dict:
        text = "\n".join(blocks(page)[k] for k in chain)
        key = hashlib.sha256(f"{page.name}:{chain}:{text}".encode()).hexdigest()[:16]
        stored = shared / f"{key}.json"
        with open(shared / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not stored.exists():
                stored.write_text(json.dumps(_run(page, chain, shared / key, forks)))
            return json.loads(stored.read_text())

    yield result
    forks.close()


def test_a_continuing_block_has_one_to_continue():
    for page in PAGES:
        sources = blocks(page)
        assert not (sources and CONTINUES.match(sources[0])), f"{page.name}: its first block cannot continue another"


@pytest.mark.parametrize("page, k", CASES, ids=[f"{page.name}-{k}" for page, k in CASES])
def test_block_runs_alone(page, k, chain_results):
    """The block, pasted alone (or after the blocks it says it continues) into a fresh interpreter, runs."""
    chain = chain_of(page, k)
    text = "\n".join(blocks(page)[j] for j in chain)
    if re.search(r"^\s*(import scanpy|from scanpy)", text, flags=re.M) and importlib.util.find_spec("scanpy") is None:
        pytest.skip('needs scanpy: pip install "paucity[scanpy]"')
    result = chain_results(page, chain)
    if k in result["ran"]:
        return
    if result["failed"] is not None and result["failed"] < k:
        pytest.fail(f"{page.name} block {k} continues block {result['failed']}, which failed:\n{result['stderr']}")
    pytest.fail(f"{page.name} block {k} failed (exit {result['returncode']}):\n{result['stderr']}")
