"""A package's face whose names load on first use (one helper for every lazy ``__getattr__``).

``import paucity.crowd`` must not pay for numba, scikit-learn or AnnData before a name that needs them is
used; each package lists where its names live and lets :func:`lazy_names` make its module
``__getattr__`` and ``__dir__``. A name that moved keeps working from its old place for a while, with a
``FutureWarning`` at the user's line.
"""

from __future__ import annotations

import sys
from importlib import import_module

TYPE_CHECKING = False  # typing's flag without importing typing (nor collections): this module starts the command line
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["lazy_names"]


def lazy_names(module: str, homes: Mapping[str, str | None], *,
               moved: Mapping[str, str] | None = None) -> tuple[Callable[[str], object], Callable[[], list]]:
    """The ``__getattr__`` and ``__dir__`` of a module whose names are loaded when first used.

    Parameters
    ----------
    module : str
        The module's ``__name__``.
    homes : mapping of str to str or None
        Each name and the module it lives in: relative to ``module``'s package (``".labels"``, ``"labels"``
        for a package's own submodule) or absolute (``"paucity.judgments.objective"``); None when the name is
        itself a submodule (``paucity.ranking.metrics``). A name is loaded once, then kept in the module.
    moved : mapping of str to str, optional
        Names kept at their old place for a while: each with the rest of its ``FutureWarning``, after the
        name (e.g. ``"is deprecated and will be removed; import it from paucity.judgments."``); they warn on
        every use and are not kept.

    Examples
    --------
    >>> __getattr__, __dir__ = lazy_names("paucity.crowd", {"LabelMatrix": "labels"})
    >>> __getattr__("LabelMatrix").__name__
    'LabelMatrix'
    >>> __getattr__("Missing")
    Traceback (most recent call last):
    ...
    AttributeError: module 'paucity.crowd' has no attribute 'Missing'
    """
    moved = dict(moved or {})

    def _home(name: str):
        home = homes[name]
        package = module if _is_package(module) else module.rpartition(".")[0]
        if home is None:
            return import_module(f"{package}.{name}")
        if not home.startswith(("paucity", ".")):
            home = "." + home
        return getattr(import_module(home, package), name)

    def __getattr__(name: str):
        if name not in homes:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = _home(name)
        if name in moved:
            from ._errors import warn

            warn(f"{module}.{name} {moved[name]}", FutureWarning)
        else:
            vars(sys.modules[module])[name] = value  # loaded once
        return value

    def __dir__():
        return sorted((set(vars(sys.modules[module])) | set(homes)) - set(moved))

    return __getattr__, __dir__


def _is_package(module: str) -> bool:
    return hasattr(sys.modules.get(module), "__path__")
