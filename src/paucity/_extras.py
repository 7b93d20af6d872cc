"""Optional dependencies: which extra of paucity brings each, and one message when one is missing.

Every optional import of paucity goes through :func:`require`, and the command line turns any
``ModuleNotFoundError`` of an optional package into the same message (:func:`missing_message`), so that
a missing package always names the ``pip install "paucity[extra]"`` that brings it.
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["EXTRAS", "MissingDependencyError", "require", "missing_message", "extra_of"]

#: The extra of paucity that installs each optional package (by its import name).
EXTRAS = {
    "starlette": "web",
    "uvicorn": "web",
    "pyarrow": "parquet",
    "crowdkit": "crowdkit",
    "psycopg": "postgres",
    "dask": "dask",
    "distributed": "dask",
    "scanpy": "scanpy",
    "igraph": "scanpy",
    "leidenalg": "scanpy",
    "biotite": "structure",
}
#: What to pip install for each import name, when it differs.
_DISTRIBUTIONS = {"crowdkit": "crowd-kit", "psycopg": "psycopg[binary]", "igraph": "python-igraph"}


class MissingDependencyError(ImportError):
    """An optional package is not installed; the message names the extra of paucity that brings it."""


def extra_of(module: str) -> str | None:
    """The extra that installs ``module`` (its top-level package), or None when paucity has none for it."""
    return EXTRAS.get(module.split(".")[0])


def missing_message(module: str, what: str | None = None) -> str:
    """One line: what needs the package, and the pip command that installs it.

    Examples
    --------
    >>> missing_message("starlette", "paucity serve")
    'paucity serve needs starlette, which is not installed: pip install "paucity[web]"'
    >>> missing_message("crowdkit.aggregation")
    'this needs crowd-kit, which is not installed: pip install "paucity[crowdkit]"'
    """
    top = module.split(".")[0]
    package = _DISTRIBUTIONS.get(top, top)
    extra = extra_of(top)
    how = f'pip install "paucity[{extra}]"' if extra else f"pip install {package}"
    return f"{what or 'this'} needs {package}, which is not installed: {how}"


def require(module: str, what: str):
    """Import ``module``, or raise :class:`MissingDependencyError` naming the extra that installs it.

    Examples
    --------
    >>> require("json", "reading JSON").__name__
    'json'
    >>> require("no_such_package_here", "the example")
    Traceback (most recent call last):
    ...
    paucity._extras.MissingDependencyError: the example needs no_such_package_here, which is not installed: pip install no_such_package_here
    """
    try:
        return import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or module.split(".")[0] != exc.name.split(".")[0]:
            raise  # the package is there and broken: its own error says more
        raise MissingDependencyError(missing_message(module, what)) from None
