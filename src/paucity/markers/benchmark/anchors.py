"""Marker selections by anchors that run in a Python environment of their own: COSG.

An anchor is the tool a user would pick instead of paucity. COSG (Dai et al.
2022, ``pip install cosg``), cosine-similarity marker genes, is what a scanpy
user reaches for when ``rank_genes_groups`` is too slow. It is never a
dependency of paucity: it is installed in a virtual environment of its own,
and the benchmark runs it there, in a subprocess, through the script
``_cosg_runner.py`` next to this module (which imports nothing from paucity).

The method ``"cosg"`` of :func:`~paucity.markers.benchmark.resolve_methods`
(made by :func:`~paucity.markers.benchmark.methods.cosg_method` from
:func:`cosg_select`) exists only when that environment's interpreter is given,
as ``cosg_python=`` or in the environment variable :data:`COSG_PYTHON_VARIABLE`;
it is checked (COSG must import) before any work. Each call writes the
training cells to a temporary ``.npz``, runs the script, and reads back one
ranking per class, which is merged ⌈n/c⌉ per class like scanpy's rankings
(Remark 1 of seed 000, §2.6). The seconds recorded are those the script
measures around its own normalization and COSG call, not the interpreter's
start-up or the transfer of the cells.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..._errors import InputError, ParameterError
from ..greedy import merge_per_class

__all__ = [
    "COSG_PYTHON_VARIABLE",
    "COSG_RUNNER",
    "AnchorRun",
    "AnchorSelect",
    "TimedSelection",
    "anchor_versions",
    "check_anchor_python",
    "cosg_select",
    "read_anchor_output",
    "run_anchor",
]

COSG_PYTHON_VARIABLE = "PAUCITY_COSG_PYTHON"
"""The environment variable naming the Python of COSG's environment when ``cosg_python`` is not given."""
COSG_RUNNER = Path(__file__).with_name("_cosg_runner.py")
"""The script COSG's Python runs (it imports nothing from paucity)."""
COSG_INSTALL = "python3 -m venv cosg-env && cosg-env/bin/pip install cosg"
_STDERR_TAIL = 2000


@dataclass(frozen=True)
class TimedSelection:
    """What a method that times its own work returns: the column indices and the seconds it measured.

    A method run in another process (an anchor such as COSG) returns this, so
    that the benchmark records the seconds of the selection itself rather
    than the start-up of that process and the transfer of the cells.
    """

    indices: np.ndarray
    seconds: float


@dataclass(frozen=True)
class AnchorRun:
    """What one run of an anchor gives back.

    Attributes
    ----------
    rankings : tuple of numpy.ndarray
        One array of column indices per class (class codes 0..c-1), best first.
    seconds : float
        The seconds the anchor's process measured around its normalization
        and selection (best of its repeats).
    versions : dict
        The versions of the anchor's Python and packages.
    """

    rankings: tuple
    seconds: float
    versions: dict


def check_anchor_python(python, *, method: str = "cosg", variable: str = COSG_PYTHON_VARIABLE) -> str:
    """The interpreter of an anchor's environment: ``python``, else the environment variable; checked to exist.

    Raises
    ------
    ParameterError
        When neither is given (the message says how to give one), or the
        path is not an executable file.

    Examples
    --------
    >>> from paucity.markers.benchmark.anchors import check_anchor_python
    >>> from paucity._errors import ParameterError
    >>> try:
    ...     check_anchor_python(None, variable="PAUCITY_NO_SUCH_VARIABLE")
    ... except ParameterError as error:
    ...     print(str(error).split(":")[0])
    method 'cosg' runs COSG in a Python environment of its own, but none was given
    """
    if python is None or str(python).strip() == "":
        python = os.environ.get(variable, "").strip() or None
    if python is None:
        raise ParameterError(
            f"method {method!r} runs COSG in a Python environment of its own, but none was given: "
            f"pass that environment's python as cosg_python= (--cosg-python on the command line) or in the "
            f"environment variable {variable} (e.g. after `{COSG_INSTALL}`: cosg-env/bin/python), "
            f"or leave {method} out of the methods."
        )
    path = Path(python).expanduser()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise ParameterError(
            f"the python given for {method!r} ({python}) is not an executable file; give the python of a virtual "
            f"environment with cosg installed (e.g. cosg-env/bin/python after `{COSG_INSTALL}`)."
        )
    return str(path)


def _environment() -> dict:
    """This process's environment without the variables that would make the anchor's Python import our packages."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}


def _run(python: str, arguments: list, method: str, timeout) -> None:
    try:
        completed = subprocess.run(
            [python, *map(str, arguments)], capture_output=True, text=True, env=_environment(), timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise ParameterError(f"{method} did not finish within {timeout} s in {python}; give it more time or less data.") from None
    except OSError as error:
        raise ParameterError(f"the python given for {method!r} ({python}) cannot be run: {error}.") from None
    if completed.returncode != 0:
        tail = [line for line in completed.stderr.strip().splitlines() if line.strip()]
        last = tail[-1].strip() if tail else f"exit code {completed.returncode}"
        raise ParameterError(
            f"{method} failed in {python}: {last[:_STDERR_TAIL]} (check that `{python} -c 'import {method}'` works; "
            f"install it with `{COSG_INSTALL}`)."
        )


def anchor_versions(python: str, *, runner=COSG_RUNNER, method: str = "cosg", timeout: float | None = 300) -> dict:
    """Run the runner's ``--versions``: proves that the anchor imports, and returns its versions."""
    with tempfile.TemporaryDirectory(prefix="paucity-anchor-") as folder:
        out = Path(folder) / "versions.json"
        _run(python, [runner, "--versions", out], method, timeout)
        try:
            payload = json.loads(out.read_text())
        except (OSError, ValueError):
            raise ParameterError(f"{method}'s runner in {python} wrote no readable versions to {out.name}.") from None
    versions = payload.get("versions") if isinstance(payload, dict) else None
    if not isinstance(versions, dict):
        raise ParameterError(f"{method}'s runner in {python} wrote no versions (got {str(payload)[:80]!r}).")
    return {str(k): str(v) for k, v in versions.items()}


def read_anchor_output(payload, n_columns: int, n_classes: int, *, method: str = "cosg") -> AnchorRun:
    """Check and convert what the runner wrote: one ranking of column indices per class.

    Parameters
    ----------
    payload : dict
        The runner's JSON: ``rankings`` (a list of ``n_classes`` lists of
        integer column indices, best first), ``seconds``, ``versions``.
    n_columns, n_classes : int
        The columns of the matrix the anchor was given, and its classes.

    Returns
    -------
    AnchorRun

    Raises
    ------
    InputError
        When a ranking is missing, names a column outside ``0..n_columns-1``
        or is not made of whole numbers, when a class's list repeats a
        column, or when ``seconds`` is not a non-negative number.

    Examples
    --------
    >>> from paucity.markers.benchmark.anchors import read_anchor_output
    >>> run = read_anchor_output({"rankings": [[4, 1], [0, 4]], "seconds": 0.5, "versions": {"cosg": "1.2.0"}}, 5, 2)
    >>> [r.tolist() for r in run.rankings], run.seconds
    ([[4, 1], [0, 4]], 0.5)
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("rankings"), list):
        raise InputError(f"{method} returned no rankings (expected a JSON object with a list 'rankings').")
    rankings = payload["rankings"]
    if len(rankings) != n_classes:
        raise InputError(f"{method} returned {len(rankings)} rankings for {n_classes} classes; expected one per class.")
    checked = []
    for code, ranking in enumerate(rankings):
        values = np.asarray(ranking)
        if values.ndim != 1 or (values.size and values.dtype.kind not in "iu"):
            raise InputError(f"{method}'s ranking of class {code} is not a list of column indices: {str(ranking)[:80]}.")
        values = values.astype(np.int64)
        if values.size and (values.min() < 0 or values.max() >= n_columns):
            raise InputError(
                f"{method}'s ranking of class {code} names column {int(values.max() if values.max() >= n_columns else values.min())}"
                f" but the data has columns 0..{n_columns - 1}."
            )
        if np.unique(values).size != values.size:
            raise InputError(f"{method}'s ranking of class {code} lists the same column twice.")
        checked.append(values)
    seconds = payload.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds >= 0:
        raise InputError(f"{method} reported {seconds!r} seconds; expected a non-negative number.")
    versions = payload.get("versions") if isinstance(payload.get("versions"), dict) else {}
    return AnchorRun(rankings=tuple(checked), seconds=float(seconds), versions={str(k): str(v) for k, v in versions.items()})


def _write_cells(path: Path, X, codes) -> None:
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        np.savez(path, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.asarray(X.shape), labels=codes)
    else:
        np.savez(path, X=np.asarray(X), labels=codes)


def run_anchor(python: str, X, codes, n_genes: int, *, runner=COSG_RUNNER, method: str = "cosg",
               repeats: int = 1, timeout: float | None = None) -> AnchorRun:
    """Run the anchor on the cells ``X`` with class codes ``codes`` (0..c-1): its ``n_genes`` best per class.

    Memory: writes ``X`` to a temporary ``.npz`` (its size on disk), which the
    anchor's process reads whole.
    """
    codes = np.asarray(codes, dtype=np.int64)
    n_classes = int(codes.max()) + 1
    with tempfile.TemporaryDirectory(prefix="paucity-anchor-") as folder:
        cells, out = Path(folder) / "cells.npz", Path(folder) / "rankings.json"
        _write_cells(cells, X, codes)
        _run(python, [runner, cells, out, "--n-genes", int(n_genes), "--repeats", int(repeats)], method, timeout)
        try:
            payload = json.loads(out.read_text())
        except (OSError, ValueError):
            raise InputError(f"{method}'s runner in {python} wrote no readable rankings.") from None
    return read_anchor_output(payload, X.shape[1], n_classes, method=method)


class AnchorSelect:
    """The ``select`` of an anchor method: run the anchor, merge its per-class rankings, report its seconds.

    Attributes
    ----------
    python : str
    runner : pathlib.Path
    versions : dict
        The anchor's versions, read when the method is made.
    """

    def __init__(self, python: str, runner, versions: dict, method: str = "cosg"):
        self.python, self.runner, self.versions, self.method = python, Path(runner), dict(versions), method

    def __call__(self, X, y, n_features, random_state=None):
        """``n_features`` markers: the top ⌈n/c⌉ of each class's ranking, merged (Remark 1)."""
        n_classes = int(np.max(y)) + 1
        per_class = math.ceil(n_features / n_classes)
        run = run_anchor(self.python, X, y, per_class, runner=self.runner, method=self.method)
        return TimedSelection(merge_per_class([r[:per_class] for r in run.rankings], per_class), run.seconds)

    def __repr__(self) -> str:
        return f"AnchorSelect({self.method!r}, python={self.python!r})"


def cosg_select(python=None, *, runner=None) -> AnchorSelect:
    """The ``select`` of the benchmark method ``"cosg"``: COSG run by ``python`` (else ``$PAUCITY_COSG_PYTHON``).

    Parameters
    ----------
    python : str or path-like, optional
        The interpreter of a virtual environment with ``cosg`` installed
        (``python3 -m venv cosg-env && cosg-env/bin/pip install cosg``).
    runner : path-like, optional
        The script that interpreter runs (default :data:`COSG_RUNNER`);
        replaceable, e.g. by a stand-in in tests.

    Returns
    -------
    AnchorSelect
        Checked now: its ``versions`` hold COSG's.

    Raises
    ------
    ParameterError
        When no interpreter is given, it is not executable, or it cannot
        import COSG.

    Notes
    -----
    COSG scores each gene's cosine similarity to the indicator of each group
    on log-normalized data, penalized by its similarity to the other groups
    (``mu=1``; Dai, Pan & Liu 2022, Briefings in Bioinformatics). The runner
    applies the benchmark's normalization for scanpy's methods
    (``normalize_total`` to the median count, then ``log1p``) and COSG's
    defaults otherwise.
    """
    python = check_anchor_python(python)
    runner = COSG_RUNNER if runner is None else runner
    return AnchorSelect(python, runner, anchor_versions(python, runner=runner))
