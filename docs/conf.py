"""Sphinx configuration of paucity's documentation site: the guides (Markdown, through MyST) and an API page per
subpackage, generated from each subpackage's ``__all__`` and its numpydoc docstrings.

``make docs`` builds it offline into ``docs/_build/html`` with warnings as errors, so a broken reference, a
malformed docstring or a public name without a docstring fails the build.
"""

from __future__ import annotations

import importlib
import inspect
from importlib.metadata import version as _version
from pathlib import Path

HERE = Path(__file__).resolve().parent

project = "paucity"
author = "The paucity developers"
copyright = "2026, the paucity developers"
release = _version("paucity")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "README.md"]
suppress_warnings = ["myst.header"]  # the guides open with a level-1 title and may skip to level 3 in a list
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# The API pages: one per subpackage, every name of its __all__.
SUBPACKAGES = {
    "paucity.info": "Discretization and information measures",
    "paucity.markers": "Marker selection",
    "paucity.markers.benchmark": "The marker selection benchmark",
    "paucity.ranking": "Ranking from comparisons",
    "paucity.differences": "Principal differences analysis",
    "paucity.judgments": "Feature multi-selection",
    "paucity.clustering": "Active spectral clustering",
    "paucity.crowd": "Pooling biased labelers",
    "paucity.gp": "Heavy-tailed process classification",
    "paucity.datasets": "Data sets",
    "paucity.io": "Reading and writing files",
    "paucity.serve": "The pages in the browser",
}

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc sections say the types, in words
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# A public name without a docstring, or a docstring numpydoc cannot parse, fails the build.
numpydoc_validation_checks = {"GL08"}
numpydoc_validation_exclude = {r"\.__init__$", r"\.__call__$", r"\.__repr__$", r"\.__len__$", r"\.__iter__$",
                               r"\.__getitem__$", r"\.__enter__$", r"\.__exit__$", r"\.__eq__$", r"\.__hash__$"}

html_theme = "pydata_sphinx_theme"
html_title = f"paucity {release}"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": True, "show_prev_next": False, "footer_start": ["copyright"],
                      "footer_end": []}
html_show_sourcelink = False


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "autoclass"
    if callable(obj):
        return "autofunction"
    return "autodata"


def api_page(module_name: str, title: str) -> str:
    """The reStructuredText of one subpackage's API page: its docstring, then every public name."""
    module = importlib.import_module(module_name)
    lines = [f"{module_name}", "=" * len(module_name), "", f"*{title}.*", "",
             f".. automodule:: {module_name}", "   :no-members:", "", "Public names", "-" * 12, ""]
    for name in module.__all__:
        obj = getattr(module, name)
        kind = _kind(obj)
        target = f"{module_name}.{name}"
        lines.append(f".. {kind}:: {target}")
        home = getattr(obj, "__module__", module_name) or module_name
        if kind != "autodata" and not home.startswith(module_name):  # re-exported: documented where it lives
            lines.append("   :no-index:")
        if kind == "autoclass":
            lines.append("   :members:")
            lines.append("   :undoc-members:")  # so that a public method without a docstring fails the build
        if kind == "autodata":
            lines.append("   :no-value:")
        lines.append("")
    return "\n".join(lines)


def write_api_pages(app) -> None:
    """docs/api/<subpackage>.rst and the index of them, rewritten at every build from ``__all__``."""
    folder = HERE / "api"
    folder.mkdir(exist_ok=True)
    names = []
    for module_name, title in SUBPACKAGES.items():
        page = module_name.removeprefix("paucity.").replace(".", "-")
        text = api_page(module_name, title)
        path = folder / f"{page}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        names.append(page)
    index = "API reference\n=============\n\nEvery public name of every subpackage, from its docstring.\n\n" \
            ".. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {name}\n" for name in names)
    if not (folder / "index.rst").exists() or (folder / "index.rst").read_text() != index:
        (folder / "index.rst").write_text(index)


def skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's metadata-routing setters (``set_fit_request``, ...), which scikit-learn documents."""
    if (name.startswith("set_") and name.endswith("_request")) or name == "get_metadata_routing":
        return True
    return skip


def escape_bars(app, what, name, obj, options, lines):
    """Docstrings write absolute values as ``|x|``, which reStructuredText reads as a substitution: escape them.

    Bars inside double-backquoted literals, in math, and of tables and line blocks are left alone.
    """
    math_indent = None  # the indentation of a ``.. math::`` directive whose block we are in
    for k, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if math_indent is not None and stripped and indent <= math_indent:
            math_indent = None
        if stripped.startswith(".. math::"):
            math_indent = indent
            continue
        table = stripped.startswith(("| ", "+-", "+=")) or (stripped.startswith("|") and stripped.endswith("|"))
        if math_indent is not None or "|" not in line or table or ":math:" in line:
            continue
        parts = line.split("``")
        lines[k] = "``".join(part if i % 2 else part.replace("|", "\\|") for i, part in enumerate(parts))


def setup(app):
    app.connect("builder-inited", write_api_pages)
    app.connect("autodoc-skip-member", skip_member)
    app.connect("autodoc-process-docstring", escape_bars, priority=600)  # after numpydoc has made it reST
