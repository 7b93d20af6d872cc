"""The modules of paucity.ranking import without cycles, and without anndata or Dask."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import paucity.ranking

PACKAGE = Path(paucity.ranking.__file__).parent


def _imported_siblings(path: Path) -> set[str]:
    """Modules of paucity.ranking that a module imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from . import x / from .x import y
                if node.module is None:
                    found.update(alias.name for alias in node.names)
                else:
                    found.add(node.module.split(".")[0])
            elif node.level == 0 and node.module and node.module.startswith("paucity.ranking."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("paucity.ranking."):
                    found.add(alias.name.split(".")[2])
    return found


def _graph() -> dict[str, set[str]]:
    modules = {path.stem: path for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    return {name: _imported_siblings(path) & set(modules) for name, path in modules.items()}


def test_the_import_graph_of_ranking_has_no_cycle():
    graph = _graph()
    assert {"base", "metrics", "centrality", "btl", "counting"} <= set(graph)
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                cycle = path[path.index(imported):] + [imported]
                pytest.fail("import cycle in paucity.ranking: " + " -> ".join(cycle))
            if imported not in state:
                visit(imported, path + [imported])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_metrics_does_not_import_the_estimators():
    assert "base" not in _graph()["metrics"]


def _run(code: str) -> str:
    """Run code in a fresh interpreter and return what it printed: the heavy packages it loaded."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code) + LOADED], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


LOADED = """
import sys
print(sorted({name.split(".")[0] for name in sys.modules} & {"anndata", "dask", "distributed"}))
"""


def test_ranking_in_memory_imports_neither_anndata_nor_dask():
    # importing a capability that needs neither must not import anndata or Dask (only Dask input loads Dask)
    loaded = _run(
        """
        import pandas as pd
        import paucity.ranking
        from paucity.ranking import BRE, BTL, Comparisons, RankCentrality, evaluate, rank
        from paucity.ranking import metrics

        games = pd.DataFrame({"i": ["a", "b", "c", "a"], "j": ["b", "c", "a", "c"], "won": ["a", "c", "c", "a"]})
        c = Comparisons.from_dataframe(games, i="i", j="j", winner="won")
        RankCentrality(regularization="uniform").fit(c)
        BTL(alpha=1.0).fit(c)
        BRE(random_state=0).fit(c)
        result = rank(c, "rank_centrality", lam=0.1)
        evaluate(result.scores, c)
        metrics.kendall_tau_b([1, 2, 3], [1, 3, 2])
        """
    )
    assert loaded == "[]"


def test_reading_a_comparison_table_imports_neither_anndata_nor_dask(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text("i,j,won\na,b,a\nb,c,c\nc,a,c\na,c,a\n")
    loaded = _run(
        f"""
        from paucity import io
        from paucity.ranking import Comparisons, RankCentrality

        frame = io.read_frame({str(path)!r})
        c = Comparisons.from_dataframe(frame, i="i", j="j", winner="won")
        RankCentrality(regularization="uniform").fit(c)
        """
    )
    assert loaded == "[]"
