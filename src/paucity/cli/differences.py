"""``paucity differences``: do two samples differ, and in which features? (principal differences analysis)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

import typer

from .._errors import InputError, ParameterError, ShapeMismatchError
from ._command import one_line_errors

__all__ = ["differences"]


def differences(
    inputs: List[Path] = typer.Argument(
        ...,
        help="Two tables X and Y (.csv/.tsv/.txt/.parquet: one row per sample, one column per feature, a header "
        "row of feature names; the columns are matched by name), or one .h5ad file with --groupby and --groups.",
        show_default=False,
        metavar="FILES",
    ),
    groupby: Optional[str] = typer.Option(None, "--groupby", help=".h5ad: the column of obs holding the groups."),
    groups: Optional[Tuple[str, str]] = typer.Option(
        None, "--groups", help=".h5ad: the two groups to compare, X then Y (--groups A B).", show_default=False
    ),
    layer: Optional[str] = typer.Option(None, "--layer", help=".h5ad: read expression from this layer."),
    use_raw: Optional[bool] = typer.Option(
        None, "--use-raw/--no-use-raw", help=".h5ad: read adata.raw (default: when present and no --layer).", show_default=False
    ),
    index_col: Optional[str] = typer.Option(
        None,
        "--index-col",
        help="Tables: a column of sample ids, dropped before the comparison (pandas writes its index as a column "
        "with an empty header, read as 'Unnamed: 0'). Without it every column must be a numeric feature.",
    ),
    marginal_normalize: bool = typer.Option(
        False,
        "--marginal-normalize",
        help="Centre and scale every feature within each sample first: no feature then differs in mean or "
        "variance, and what remains are differences in shape and in the relationships between features.",
    ),
    lam: Optional[float] = typer.Option(None, "--lam", help="SPARDA with this l1 penalty (on the scale of the data's squared differences)."),
    k: Optional[int] = typer.Option(None, "--k", help="SPARDA on the k features with the largest relaxation weights (at most k carry weight)."),
    cv: bool = typer.Option(
        False, "--cv", help="SPARDA with the penalty chosen by the divergence on held-out halves of X and Y (PDACV)."
    ),
    permutations: int = typer.Option(
        0,
        "--permutations",
        help="B > 0 runs the permutation test of 'do X and Y differ?' with B random splits (e.g. 200), the whole "
        "fit repeated on each, for p = (b + 1)/(B + 1). With --cv the test refits SPARDA with the chosen penalty "
        "on each split; the penalty is not chosen again. 0: no test.",
    ),
    divergence: str = typer.Option("wasserstein", "--divergence", help="wasserstein (squared 2-Wasserstein) or mann_whitney (|AUC - 1/2|)."),
    random_state: int = typer.Option(0, "--random-state", help="Seed of the restarts, the held-out halves and the permutations."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "--n-jobs", help="Processes for the permutations (-1: every core)."),
    max_iter: int = typer.Option(500, "--max-iter", help="Iterations of the relaxation (fewer: faster, coarser)."),
    n_restarts: int = typer.Option(4, "--n-restarts", help="Random restarts of the tightening besides the relaxation's direction."),
    show: int = typer.Option(10, "--show", help="Features shown in the summary (the JSON holds them all)."),
    out: Path = typer.Option(Path("differences.json"), "--out", "-o", help="Where to write the result (JSON)."),
) -> None:
    """Do two samples differ, and in which features? Principal differences analysis (PDA, SPARDA).

    Finds the unit direction in which the two samples, projected on it, differ most (by the divergence D),
    writes the direction, the selected features and D to --out, and prints the top features. Without --lam,
    --k or --cv every feature may carry weight (PDA); with one of them the direction is sparse (SPARDA).
    With --permutations B it also answers 'do X and Y differ at all?' with a permutation p-value. The JSON
    holds n, m, d, the method, the divergence D, the p-value and the permutations' statistics, every feature
    with non-zero weight (weight, rank, mean in X and in Y), the relaxation's tightness and, with --cv, the
    penalties tried. Nothing is written when the command fails.

    \b
    Examples:
      paucity differences healthy.csv treated.csv --k 10 --permutations 200 --out result.json
      paucity differences cells.h5ad --groupby bulk_labels --groups "CD14+ Monocyte" Dendritic --cv --out result.json
    """
    from rich.console import Console

    console = Console()
    with one_line_errors():
        if not out.parent.exists():
            raise ParameterError(f"the folder of --out ({out.parent}) does not exist; create it first.")
        given = [flag for flag, value in (("--lam", lam), ("--k", k), ("--cv", cv or None)) if value is not None]
        if len(given) > 1:
            raise ParameterError(f"{' and '.join(given)} are exclusive: give at most one of --lam, --k and --cv.")
        if permutations < 0:
            raise ParameterError(f"--permutations must be 0 (no test) or a positive number of permutations, got {permutations}.")
        if jobs is not None and permutations == 0:
            raise ParameterError("--jobs runs the permutations in parallel; it needs --permutations B.")
        if show < 0:
            raise ParameterError(f"--show must be 0 or more, got {show}.")
        if groups is not None and any(value.startswith("--") for value in groups):
            raise ParameterError(f"--groups takes two values (--groups A B), got {' '.join(groups)!r}.")
        samples = _load(inputs, groupby, groups, layer, use_raw, index_col)
        result = _analyse(
            samples, lam=lam, k=k, cv=cv, marginal_normalize=marginal_normalize, divergence=divergence,
            random_state=random_state, max_iter=max_iter, n_restarts=n_restarts,
            permutations=permutations, jobs=jobs,
        )
        from .. import io

        io.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", out)
    _summary(console, result, samples, show, out)


# -- reading the two samples ----------------------------------------------------------------------
@dataclass(frozen=True)
class _Samples:
    """The two samples as DataFrames (features by name), and what the output says about where they came from."""

    X: Any
    Y: Any
    inputs: dict
    x_label: str
    y_label: str


def _load(inputs, groupby, groups, layer, use_raw, index_col) -> _Samples:
    h5ad = [path for path in inputs if path.name.lower().endswith(".h5ad")]
    if h5ad:
        if len(inputs) != 1:
            raise ParameterError(
                f"give one .h5ad file (with --groupby and --groups) or two tables, not {len(inputs)} files with an .h5ad among them."
            )
        if index_col is not None:
            raise ParameterError("--index-col applies to tables, not to an .h5ad file.")
        if groupby is None or groups is None:
            raise ParameterError("an .h5ad file needs --groupby COLUMN and --groups A B to say which cells are X and which Y.")
        return _read_groups(inputs[0], groupby, groups, layer, use_raw)
    if len(inputs) != 2:
        raise ParameterError(
            f"give two tables (X and Y) or one .h5ad file, got {len(inputs)} file(s): {', '.join(str(p) for p in inputs)}."
        )
    for flag, value in (("--groupby", groupby), ("--groups", groups), ("--layer", layer), ("--use-raw/--no-use-raw", use_raw)):
        if value is not None:
            raise ParameterError(f"{flag} applies to an .h5ad file, not to two tables.")
    x_path, y_path = inputs
    X = _read_table(x_path, index_col)
    Y = _read_table(y_path, index_col)
    only_x = [c for c in X.columns if c not in set(Y.columns)]
    only_y = [c for c in Y.columns if c not in set(X.columns)]
    if only_x or only_y:
        parts = [
            f"only in {path.name}: {', '.join(map(repr, names[:5]))}{' ...' if len(names) > 5 else ''}"
            for path, names in ((x_path, only_x), (y_path, only_y))
            if names
        ]
        raise ShapeMismatchError(
            f"{x_path.name} and {y_path.name} must hold the same features (columns matched by name), but "
            + "; ".join(parts)
            + ". Keep the shared columns in both."
        )
    if x_path.resolve() == y_path.resolve():
        raise ParameterError(f"X and Y are the same file ({x_path}); give two different samples.")
    return _Samples(X, Y[list(X.columns)], {"x": x_path.name, "y": y_path.name}, x_path.name, y_path.name)


def _read_table(path: Path, index_col: Optional[str]):
    import numpy as np
    import pandas as pd

    from .. import io

    frame = io.read_frame(path)
    if index_col is not None:
        if index_col not in frame.columns:
            shown = ", ".join(map(repr, list(frame.columns)[:10]))
            raise InputError(f"--index-col {index_col!r} is not a column of {path}; its columns are {shown}.")
        frame = frame.set_index(index_col)
    if frame.shape[1] == 0:
        raise InputError(f"{path} has no feature columns; check the separator (',' for .csv, tab for .tsv).")
    for position, name in enumerate(frame.columns):
        if str(name).startswith("Unnamed: "):
            raise InputError(
                f"column {position + 1} of {path} has an empty name in the header row; name every feature "
                f"(if it holds sample ids, pass --index-col {str(name)!r})."
            )
    for name in frame.columns:
        column = frame[name]
        if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            text = column[column.notna()].astype(str)
            bad = text[pd.to_numeric(text, errors="coerce").isna()]
            example = f" (e.g. {bad.iloc[0]!r})" if len(bad) else ""
            raise InputError(
                f"column {str(name)!r} of {path} is not numeric{example}; every column must be a numeric feature "
                f"(drop it, or pass --index-col {str(name)!r} if it holds sample ids)."
            )
    if len(frame) < 2:
        raise InputError(f"{path} has {len(frame)} row(s); comparing two distributions needs at least 2 samples in each file.")
    values = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise InputError(
            f"{path} has {int(bad.sum())} missing, NaN or infinite value(s), the first in data row {row + 1}, "
            f"column {str(frame.columns[column])!r}; drop or impute them."
        )
    return pd.DataFrame(values, columns=pd.Index([str(name) for name in frame.columns]))


def _read_groups(path: Path, groupby: str, groups, layer, use_raw) -> _Samples:
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

    from .. import io
    from .._anndata import expression_matrix, group_labels

    first, second = groups
    if first == second:
        raise ParameterError(f"--groups names {first!r} twice; name two different groups.")
    adata = io.read(path)
    labels = np.asarray(group_labels(adata, groupby).astype(str))
    matrix, var_names = expression_matrix(adata, layer, use_raw)
    frames = []
    for group in groups:
        rows = np.flatnonzero(labels == group)
        if rows.size == 0:
            shown = ", ".join(map(repr, pd.unique(labels)[:20]))
            raise InputError(f"group {group!r} has no cells in obs[{groupby!r}] of {path.name} (groups there: {shown}).")
        if rows.size < 2:
            raise InputError(
                f"group {group!r} has 1 cell in obs[{groupby!r}] of {path.name}; comparing two distributions needs "
                "at least 2 cells in each group."
            )
        block = matrix[rows]
        block = block.toarray() if sp.issparse(block) else np.asarray(block)
        frames.append(pd.DataFrame(np.asarray(block, dtype=np.float64), columns=pd.Index(var_names).astype(str)))
    inputs = {
        "file": path.name,
        "groupby": groupby,
        "groups": [first, second],
        "layer": layer,
        "use_raw": bool(use_raw) if use_raw is not None else (adata.raw is not None and layer is None),
    }
    return _Samples(frames[0], frames[1], inputs, repr(first), repr(second))


# -- fitting and testing ---------------------------------------------------------------------------
def _normalized_divergence(X, Y, *, estimator) -> float:
    """The statistic of the test with --marginal-normalize: each sample normalized on its own, then the fit."""
    from sklearn.base import clone

    from ..differences import marginal_normalize

    return clone(estimator).fit(marginal_normalize(X), marginal_normalize(Y)).divergence_


def _analyse(samples, *, lam, k, cv, marginal_normalize, divergence, random_state, max_iter, n_restarts, permutations, jobs) -> dict:
    import pandas as pd

    from ..differences import PDA, PDACV, permutation_test
    from ..differences import marginal_normalize as normalize

    X, Y = samples.X, samples.Y
    if marginal_normalize:
        fit_x = pd.DataFrame(normalize(X), columns=X.columns)
        fit_y = pd.DataFrame(normalize(Y), columns=Y.columns)
    else:
        fit_x, fit_y = X, Y
    common = {"divergence": divergence, "max_iter": max_iter, "n_restarts": n_restarts, "random_state": random_state}
    if cv:
        model = PDACV(progress=True, **common)
    elif lam is not None:
        model = PDA(sparsity="l1", lam=lam, progress=True, **common)
    elif k is not None:
        model = PDA(sparsity="l1", k=k, progress=True, **common)
    else:
        model = PDA(progress=True, **common)
    model.fit(fit_x, fit_y)
    chosen_lam = model.lam_ if cv else lam

    test = None
    if permutations > 0:
        if cv:
            estimator = PDA(sparsity="l1", lam=chosen_lam, **common)
        else:
            estimator = PDA(**{**model.get_params(), "progress": False})
        statistic = functools.partial(_normalized_divergence, estimator=estimator) if marginal_normalize else estimator
        outcome = permutation_test(
            X, Y, statistic, n_permutations=permutations, random_state=random_state, n_jobs=jobs, progress=True
        )
        test = {
            "statistic": _number(outcome.statistic),
            "pvalue": _number(outcome.pvalue),
            "n_permutations": int(outcome.n_permutations),
            "n_at_least_as_large": round(outcome.pvalue * (outcome.n_permutations + 1)) - 1,
            "null_distribution": [_number(value) for value in outcome.null_distribution],
            "refitted": _describe(estimator) + (" on marginally normalized samples" if marginal_normalize else ""),
            "note": "the whole fit is repeated on every random split of the pooled rows"
            + ("; the cross-validated penalty is kept fixed, not chosen again" if cv else ""),
        }

    weights = model.weights()
    means_x, means_y = X.mean(axis=0), Y.mean(axis=0)
    selected = [
        {
            "feature": str(row.feature),
            "weight": _number(row.weight),
            "rank": int(row.rank),
            "mean_x": _number(means_x[str(row.feature)]),
            "mean_y": _number(means_y[str(row.feature)]),
        }
        for row in weights.itertuples(index=False)
    ]
    relaxation = model.relaxation_
    result = {
        "question": f"Do {samples.x_label} and {samples.y_label} differ?",
        "inputs": samples.inputs,
        "n": int(X.shape[0]),
        "m": int(Y.shape[0]),
        "d": int(X.shape[1]),
        "method": "SPARDA" if (cv or lam is not None or k is not None) else "PDA",
        "divergence": str(divergence).lower(),
        "lam": _number(chosen_lam) if chosen_lam is not None else None,
        "k": int(k) if k is not None else None,
        "cv": None,
        "marginal_normalize": bool(marginal_normalize),
        "random_state": int(random_state),
        "statistic": _number(model.divergence_),
        "pvalue": test["pvalue"] if test else None,
        "n_permutations": test["n_permutations"] if test else None,
        "permutation_test": test,
        "n_selected": len(selected),
        "selected": selected,
        "beta": {item["feature"]: item["weight"] for item in selected},
        "relaxation": None
        if relaxation is None
        else {
            "tightness": _number(relaxation.tightness),
            "n_iter": int(relaxation.n_iter),
            "objective": _number(relaxation.objective),
        },
        "settings": {"max_iter": int(max_iter), "n_restarts": int(n_restarts)},
    }
    if cv:
        table = model.cv_results_
        result["cv"] = {
            "chosen_lam": _number(model.lam_),
            "criterion": "mean divergence on held-out halves (PDACV)",
            "results": [{key: _number(value) for key, value in row.items()} for row in table.to_dict("records")],
        }
    return result


def _number(value):
    """A JSON-safe float: None for NaN or infinity."""
    import math

    value = float(value)
    return value if math.isfinite(value) else None


def _describe(estimator) -> str:
    params = estimator.get_params()
    shown = [f"sparsity={params['sparsity']!r}"] if params["sparsity"] else []
    if params["sparsity"] and params["k"] is not None:
        shown.append(f"k={params['k']}")
    elif params["sparsity"]:
        shown.append(f"lam={params['lam']:.6g}")
    shown.append(f"divergence={params['divergence']!r}")
    return f"PDA({', '.join(shown)})"


# -- the human summary ---------------------------------------------------------------------------
def _summary(console, result: dict, samples, show: int, out: Path) -> None:
    from rich.table import Table

    x_label, y_label = samples.x_label, samples.y_label
    if result["method"] == "SPARDA":
        how = f"SPARDA, k = {result['k']}" if result["k"] is not None else f"SPARDA, λ = {result['lam']:.4g}"
        if result["cv"] is not None:
            how += " (chosen on held-out halves)"
    else:
        how = "PDA, every feature may carry weight"
    if show > 0 and result["selected"]:
        view = Table(title=f"Features on which {x_label} and {y_label} differ most")
        for column in ("rank", "feature", "weight", f"mean in {x_label}", f"mean in {y_label}"):
            view.add_column(column, justify="left" if column == "feature" else "right")
        for item in result["selected"][:show]:
            view.add_row(
                str(item["rank"]), item["feature"], f"{item['weight']:+.4f}", f"{item['mean_x']:.4g}", f"{item['mean_y']:.4g}"
            )
        console.print(view)
    more = result["n_selected"] - min(show, result["n_selected"])
    console.print(
        f"{how}: {result['n_selected']} of {result['d']} features carry weight"
        + (f" ({more} more in the JSON)." if more > 0 else ".")
    )
    statistic = f"D(β̂ᵀX, β̂ᵀY) = {result['statistic']:.4g} ({result['divergence']})"
    if result["permutation_test"] is not None:
        test = result["permutation_test"]
        console.print(
            f"{result['question']} p = {test['pvalue']:.3g} by permutation test: {statistic}; "
            f"{test['n_at_least_as_large']} of {test['n_permutations']} random splits scored as high "
            f"(the smallest possible p is {1 / (test['n_permutations'] + 1):.3g})."
        )
    else:
        console.print(f"{result['question']} Not tested: {statistic}; add --permutations 200 for a p-value.")
    console.print(f"Result written to {out}")
