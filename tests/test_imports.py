"""Importing a capability costs only what it needs: no anndata or dask until a function asks for them."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import paucity

CAPABILITIES = ["paucity", "paucity.info", "paucity.markers", "paucity.ranking", "paucity.differences",
                "paucity.judgments", "paucity.clustering", "paucity.crowd", "paucity.datasets", "paucity.io",
                "paucity.serve", "paucity.gp"]


def _runs_in_a_fresh_interpreter(code: str) -> None:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_import_loads_neither_anndata_nor_dask():
    """The capabilities imported one after another in one fresh interpreter, checked after each import: modules are
    only ever added, so the first capability after which a library is loaded is the one that loads it."""
    code = (
        "import sys, importlib\n"
        f"for module in {CAPABILITIES!r}:\n"
        "    importlib.import_module(module)\n"
        "    loaded = [m for m in ('anndata', 'dask', 'distributed', 'scanpy') if m in sys.modules]\n"
        "    assert not loaded, (module, loaded)\n"
    )
    _runs_in_a_fresh_interpreter(code)


def test_a_clustering_session_and_the_command_line_load_no_scikit_learn():
    """A session's command reads a database and writes a table: scikit-learn's second of imports is not its cost
    (NotFittedError, whose base class is scikit-learn's, is made on first use)."""
    code = (
        "import sys\n"
        "import paucity.clustering.session, paucity.cli.application, paucity._validation\n"
        "assert 'sklearn' not in sys.modules, sorted(m for m in sys.modules if m.startswith('sklearn'))[:3]\n"
        "from paucity._errors import NotFittedError\n"
        "import sklearn.exceptions\n"
        "assert issubclass(NotFittedError, sklearn.exceptions.NotFittedError)\n"
    )
    _runs_in_a_fresh_interpreter(code)


def test_finding_markers_in_a_file_loads_no_scikit_learn(tmp_path):
    """``paucity markers`` runs the estimator's checks and search (SelectorCore) without scikit-learn, whose import
    was a fifth of the command's time; ``InfoSelector``, loaded on first use, is still scikit-learn's estimator and
    finds the same genes."""
    code = (
        "import sys\n"
        "import anndata, numpy as np, pandas as pd\n"
        "from paucity.cli import main\n"
        "rng = np.random.default_rng(0)\n"
        "groups = rng.choice(['B', 'T'], size=200)\n"
        "X = rng.poisson(1.0, size=(200, 5)).astype(np.float32)\n"
        "X[:, 3] += 4 * (groups == 'T')\n"
        f"path, out = {str(tmp_path / 'cells.h5ad')!r}, {str(tmp_path / 'markers.csv')!r}\n"
        "anndata.AnnData(X, obs=pd.DataFrame({'kind': groups}, index=[f'c{i}' for i in range(200)])).write_h5ad(path)\n"
        "sys.argv = ['paucity', 'markers', path, '--groupby', 'kind', '-n', '2', '--out', out]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as stop:\n"
        "    assert not stop.code, stop.code\n"
        "assert 'sklearn' not in sys.modules, sorted(m for m in sys.modules if m.startswith('sklearn'))[:3]\n"
        "from paucity.markers import InfoSelector\n"
        "from sklearn.base import BaseEstimator\n"
        "assert issubclass(InfoSelector, BaseEstimator)\n"
        "chosen = InfoSelector(n_features=2).fit(X, groups).selected_.tolist()\n"
        "assert pd.read_csv(out)['feature_index'].tolist() == chosen, (pd.read_csv(out), chosen)\n"
    )
    _runs_in_a_fresh_interpreter(code)


# --- the import graph of the package, read from the source -----------------------------------------------

ROOT = Path(paucity.__file__).parent
MODULES = {
    ".".join(path.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__"): path
    for path in ROOT.rglob("*.py")
}


def _targets(current: str, node: ast.ImportFrom) -> tuple[str, set[str]]:
    """The module a ``from ... import`` reads from, and the paucity modules it loads."""
    package = current if MODULES[current].name == "__init__.py" else current.rsplit(".", 1)[0]
    if node.level:
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - (node.level - 1)])
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    if not source.startswith("paucity"):
        return source, set()
    return source, {f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source for a in node.names}


def _imports(name: str):
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.ImportFrom):
            yield node, *_targets(name, node)
        elif isinstance(node, ast.Import):
            yield node, "", {a.name for a in node.names if a.name in MODULES}


def _graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (anywhere in it), an import of a package read as its __init__'s imports."""
    raw = {name: set().union(*(loaded for _, _, loaded in _imports(name))) - {name} for name in MODULES}
    plain = {name for name in MODULES if MODULES[name].name != "__init__.py"}

    def expand(targets, seen=()):
        out = set()
        for target in targets:
            if target in plain:
                out.add(target)
            elif target not in seen:
                out |= expand(raw[target], seen + (target,))
        return out

    return {name: expand(raw[name]) - {name} for name in plain}


def test_the_import_graph_has_no_cycle():
    graph = _graph()
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for imported in sorted(graph[module]):
            if state.get(imported) == "open":
                pytest.fail("import cycle: " + " -> ".join(path[path.index(imported):] + [imported]))
            if imported not in state:
                visit(imported, path + [imported])
        state[module] = "done"

    assert len(graph) > 50
    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_no_private_name_is_imported_from_another_module():
    """A helper two modules share is public (no underscore) in the module that owns it; private modules are fine."""
    offenders = []
    for name in MODULES:
        for node, source, _ in _imports(name):
            if not isinstance(node, ast.ImportFrom) or not source.startswith("paucity"):
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and f"{source}.{alias.name}" not in MODULES:
                    offenders.append(f"{name} imports {alias.name} from {source}")
    assert not offenders, offenders


def test_validation_depends_on_no_capability():
    capabilities = {"info", "markers", "ranking", "differences", "judgments", "datasets", "cli", "io"}
    imported = _graph()["paucity._validation"]
    assert not {module for module in imported if module.split(".")[1] in capabilities}, imported


#: A namedtuple's public methods, named with an underscore so that they never clash with a field.
NAMEDTUPLE = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


def _private_reaches(module: str) -> list[str]:
    """``obj._name`` in ``module`` where ``_name`` is private to another module: not an attribute of ``self`` or
    ``cls``, and named nowhere in the module itself (its own classes and functions may share their privates)."""
    tree = ast.parse(MODULES[module].read_text())
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls", "sys"):
                continue
            if node.attr not in own and node.attr not in NAMEDTUPLE:
                found.append(f"{module}:{node.lineno} reads {ast.unparse(node.value)}.{node.attr}")
    return found


def test_the_human_loop_reaches_into_no_other_modules_private_names():
    """The clustering session, its estimator, its pages and its commands talk through public names only: the
    estimator through the LoopBackend protocol, the session through its rooms' public methods, the store's rooms
    through the store's public statements."""
    rooms = ("paucity.clustering", "paucity.serve", "paucity.cli", "paucity.io")
    offenders = [found for name in sorted(MODULES) if name.startswith(rooms) for found in _private_reaches(name)]
    assert not offenders, offenders


def test_a_reach_into_a_private_name_is_seen(tmp_path, monkeypatch):
    path = tmp_path / "reach.py"
    path.write_text("def f(session):\n    return session._loop\n")
    monkeypatch.setitem(MODULES, "paucity.reach", path)
    assert _private_reaches("paucity.reach") == ["paucity.reach:2 reads session._loop"]
