"""Every Python block of the README and the guides runs when pasted alone into a fresh interpreter.

A block that continues the one before it says so on its first line (``# continues the block above``); it is
run after the blocks it continues, in the same interpreter, as a reader who pasted them in order would. Every
other block runs in an interpreter of its own, in an empty folder. One test per block: a chain of blocks runs
once (its result is shared by the tests of its blocks, across pytest-xdist's workers), and the test of a block
fails with the traceback of that block, or says which earlier block of its chain stopped it.
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

#: Runs the blocks given on stdin (JSON) in one namespace; after each, a line saying it ran.
RUNNER = r"""
import json, sys, traceback
blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for k, (name, source) in blocks:
    try:
        exec(compile(source, name, "exec"), namespace)
    except BaseException:
        sys.stdout.flush()
        print(traceback.format_exc(), file=sys.stderr)
        print("\x00failed", k, flush=True)
        sys.exit(1)
    print("\x00ran", k, flush=True)
"""


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


def _run(page: Path, chain: list[int], folder: Path) -> dict:
    sources = blocks(page)
    payload = json.dumps([(k, (f"{page.name} block {k}", sources[k])) for k in chain])
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore::DeprecationWarning")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-c", RUNNER], input=payload, capture_output=True, text=True,
                          cwd=folder, env=env, timeout=600)
    ran = [int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("\x00ran")]
    failed = [int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("\x00failed")]
    return {"ran": ran, "failed": failed[0] if failed else None, "returncode": done.returncode,
            "stderr": done.stderr[-6000:]}


@pytest.fixture(scope="session")
def chain_results(tmp_path_factory):
    """Runs each chain once, whichever worker asks first; the others read its result from the shared folder."""
    shared = tmp_path_factory.getbasetemp().parent / "doc-blocks"
    shared.mkdir(exist_ok=True)

    def result(page: Path, chain: list[int]) -> dict:
        text = "\n".join(blocks(page)[k] for k in chain)
        key = hashlib.sha256(f"{page.name}:{chain}:{text}".encode()).hexdigest()[:16]
        stored = shared / f"{key}.json"
        with open(shared / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not stored.exists():
                stored.write_text(json.dumps(_run(page, chain, shared / key)))
            return json.loads(stored.read_text())

    return result


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
