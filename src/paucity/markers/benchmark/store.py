"""The resumable on-disk store of a benchmark run: its parameters, and one JSON file per (fold, method, n).

Layout of an ``out`` folder::

    params.json                  the run's parameters and a fingerprint of its data
    folds.csv                    the split (see Folds.save)
    results/fold{k}/{key}-n{n}.json    one cross-validation result
    results/all/{key}-n{n}.json        one selection on all the cells

Every file is written atomically (:mod:`paucity.io`), so an interrupted run
leaves only whole results, which a rerun with the same parameters reads back;
a folder holding a run with other parameters is refused.

``params.json`` records the numbers of features under ``"n_features"``;
folders written before that name was decided record them under
``"n_markers"``, which is read as ``"n_features"`` (the run resumes, and its
``params.json`` is rewritten with the new key).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..._errors import ParameterError
from .results import TABLE_COLUMNS

__all__ = [
    "PARAMS_VERSION",
    "check_params",
    "fingerprint",
    "folds_digest",
    "load_unit",
    "read_params",
    "save_unit",
    "stored_table",
    "unit_path",
    "unit_rows",
    "write_params",
]

PARAMS_VERSION = 1
"""Version of the ``params.json`` layout; a change refuses folders of older runs."""

RENAMED_KEYS = {"n_markers": "n_features"}
"""Keys of ``params.json`` renamed since layout version 1 (old: new); the old ones are read as the new."""


def fingerprint(X, labels_codes, classes, feature_names, samples) -> dict:
    """Shape, digests of labels and names, and total count of the data: what tells two data sets apart."""

    def digest(*arrays) -> str:
        h = hashlib.sha256()
        for arr in arrays:
            h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()[:16]

    return {
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "labels": digest(labels_codes, np.asarray([str(c) for c in classes]).astype("U")),
        "feature_names": digest(np.asarray(feature_names).astype("U")),
        "samples": digest(np.asarray(samples).astype("U")),
        "total": float(f"{float(X.sum()):.9g}"),
    }


def folds_digest(fold_of: np.ndarray) -> str:
    """A short digest of a split, recorded among the parameters."""
    return hashlib.sha256(fold_of.tobytes()).hexdigest()[:16]


def read_params(path: Path) -> dict:
    """The parameters of a ``params.json``, old key names (:data:`RENAMED_KEYS`) read as the new ones.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "params.json"
    >>> _ = path.write_text(json.dumps({"version": 1, "n_markers": [5, 10]}))
    >>> read_params(path)
    {'version': 1, 'n_features': [5, 10]}
    """
    previous = json.loads(path.read_text())
    if not isinstance(previous, dict):
        raise ValueError("it does not hold a JSON object")
    for old, new in RENAMED_KEYS.items():
        if old in previous and new not in previous:
            previous[new] = previous.pop(old)
    return previous


def check_params(out: Path, params: dict) -> None:
    """Refuse an ``out`` folder holding a run with other parameters (naming what differs), or results without parameters."""
    path = out / "params.json"
    if not path.exists():
        if (out / "results").exists():
            raise ParameterError(
                f"{out} holds benchmark results but no params.json, so they cannot be checked against this run; "
                "give an empty or new folder for the results."
            )
        return
    try:
        previous = read_params(path)
    except (OSError, ValueError) as exc:
        raise ParameterError(f"{path} cannot be read ({exc}); give an empty or new folder for the results.") from None
    if previous == params:
        return
    keys = sorted(set(previous) | set(params))
    changed = [key for key in keys if previous.get(key) != params.get(key)]
    from ..._spelling import spelled

    described = "; ".join(f"{spelled(key)}: {_short(previous.get(key))} there, {_short(params.get(key))} now"
                          for key in changed)
    raise ParameterError(
        f"{out} holds a benchmark run with different parameters ({described}); refusing to mix their results. "
        "Resume with the same parameters, or give a new folder for the results."
    )


def _short(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def write_params(out: Path, params: dict) -> None:
    """Create ``out`` and write ``params.json`` into it, atomically."""
    from ...io import write_text

    out.mkdir(parents=True, exist_ok=True)
    write_text(json.dumps(params, indent=2, sort_keys=True) + "\n", out / "params.json")


def unit_path(out: Path, fold, key: str, n: int) -> Path:
    """The file of one result: fold ``fold`` (or ``"all"`` for all the cells), method ``key``, ``n`` markers."""
    folder = "all" if fold == "all" else f"fold{fold}"
    return out / "results" / folder / f"{key}-n{n}.json"


def load_unit(path: Path | None) -> dict | None:
    """A stored result, or None when there is none (or it cannot be read: it is then recomputed and rewritten)."""
    if path is None or not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def save_unit(path: Path | None, unit: dict) -> None:
    """Write one result atomically (nothing when the run keeps no folder)."""
    from ...io import write_text

    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(json.dumps(unit) + "\n", path)


def unit_rows(unit: dict, method, n: int, fold: int, classifiers) -> list[tuple]:
    """The rows of the tidy table one cross-validation result gives, one per classifier it holds."""
    return [
        (method.name, method.mode, n, unit["n_used"], fold, classifier, unit["errors"][classifier], unit["selection_seconds"])
        for classifier in classifiers
        if classifier in unit["errors"]
    ]


def stored_table(out: Path, methods, n_features, n_folds: int, classifiers, table: pd.DataFrame) -> pd.DataFrame:
    """Every finished result in ``out`` (other jobs' folds too) as the tidy table; ``table`` when there is none."""
    rows = []
    for fold in range(n_folds):
        for method in methods:
            for n in n_features:
                unit = load_unit(unit_path(out, fold, method.key, n))
                if unit is not None:
                    rows += unit_rows(unit, method, n, fold, classifiers)
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS)) if rows else table
