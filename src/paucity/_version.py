"""paucity's version, read from the installed package's metadata when first asked for.

Reading it imports :mod:`importlib.metadata` (email, zipfile, pathlib: about ten times what ``import paucity``
costs otherwise), so ``paucity.__version__`` loads this module on first use instead of ``import paucity``
paying for it: the ``paucity`` command line starts through ``import paucity`` before its Ctrl-C guard is set.
"""

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:  # written once, in pyproject.toml
    __version__ = version("paucity")
except PackageNotFoundError:  # the source tree, not installed
    __version__ = "0+unknown"
