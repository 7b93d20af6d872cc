"""The user guide's Python blocks run, in order, as one script per page."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.glob("*.md") if "```python" in p.read_text())


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_python_blocks_run(page, tmp_path, monkeypatch):
    """Each guide runs whole (up to 10 s for differences.md: real SPARDA fits on cells), as a reader would."""
    pytest.importorskip("scanpy")
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)


#: Guides whose every block runs when pasted alone (the rest run in order, as one script).
ALONE = ("markers.md",)
ALONE_BLOCKS = [(name, k) for name in ALONE
                for k in range(len(re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), flags=re.S)))]


@pytest.mark.parametrize("name, k", ALONE_BLOCKS, ids=[f"{name}-{k}" for name, k in ALONE_BLOCKS])
def test_each_block_runs_alone(name, k, tmp_path, monkeypatch):
    """A block pasted on its own, into a fresh interpreter's namespace, runs (scanpy's plots on Agg)."""
    pytest.importorskip("scanpy")
    monkeypatch.chdir(tmp_path)
    block = re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), flags=re.S)[k]
    exec(compile(block, f"{name} block {k}", "exec"), {"__name__": "__main__"})
