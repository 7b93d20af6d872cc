"""``paucity differences``: do two samples differ, and in which features? (principal differences analysis).

The command reads the two samples, calls :func:`paucity.differences.analyze`
once, writes its :meth:`~paucity.differences.DifferencesResult.to_dict` (with
where the samples came from) and prints a summary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

import typer

from .._errors import InputError, ParameterError, ShapeMismatchError
from .._progress import progress_bar
from .._columns import check_columns
from ._command import one_line_errors
from ._options import quiet

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
    index_column: Optional[str] = typer.Option(
        None,
        "--index-column",
        help="Tables: a column of sample ids, dropped before the comparison (pandas writes its index as a column "
        "with an empty header, read as 'Unnamed: 0'). Without it every column must be a numeric feature.",
    ),
    marginal_normalize: bool = typer.Option(
        False,
        "--marginal-normalize",
        help="Centre and scale every feature within each sample first: no feature then differs in mean or "
        "variance, and what remains are differences in shape and in the relationships between features.",
    ),
    standardize: bool = typer.Option(
        False,
        "--standardize",
        help="Divide every feature by its standard deviation over both samples first, so that no feature "
        "dominates by its units alone (advised for measurements in different units).",
    ),
    lam: Optional[float] = typer.Option(
        None, "--lam", help="SPARDA with this l1 penalty lam*||B||_1 on the relaxation (on the scale of the data's squared differences)."
    ),
    n_features: Optional[int] = typer.Option(
        None, "--n-features", "-n", help="SPARDA keeping this many features (those with the largest relaxation weights)."
    ),
    cv: bool = typer.Option(
        False, "--cv", help="SPARDA with the penalty chosen by the divergence on held-out halves of X and Y (PDACV)."
    ),
    n_permutations: int = typer.Option(
        0,
        "--n-permutations",
        help="B > 0 runs the permutation test of 'do X and Y differ?' with B random splits (e.g. 200; at most "
        "1,000,000), the whole fit repeated on each, for p = (b + 1)/(B + 1). With --cv the test refits SPARDA "
        "with the chosen penalty on each split; the penalty is not chosen again. 0: no test.",
    ),
    divergence: str = typer.Option("wasserstein", "--divergence", help="wasserstein (squared 2-Wasserstein) or mann_whitney (|AUC - 1/2|)."),
    random_state: int = typer.Option(0, "--random-state", help="Seed of the restarts, the held-out halves and the permutations."),
    n_jobs: Optional[int] = typer.Option(None, "--n-jobs", help="Processes for the permutations (-1: every core)."),
    max_iter: int = typer.Option(500, "--max-iter", help="Iterations of the relaxation (fewer: faster, coarser)."),
    n_restarts: int = typer.Option(4, "--n-restarts", help="Random restarts of the tightening besides the relaxation's direction."),
    show: int = typer.Option(10, "--show", help="Features shown in the summary (the JSON holds them all)."),
    out: Path = typer.Option(Path("differences.json"), "--out", "-o", help="Where to write the result (JSON)."),
) -> None:
    """Do two samples differ, and in which features? Principal differences analysis (PDA, SPARDA).

    Finds the unit direction in which the two samples, projected on it, differ most (by the divergence D),
    writes the direction, the selected features and D to --out, and prints the top features. Without --lam,
    --n-features or --cv every feature may carry weight (PDA); with one of them the direction is sparse
    (SPARDA). With --n-permutations B it also answers 'do X and Y differ at all?' with a permutation p-value.
    The JSON holds n, m, d, the method, the divergence D, the p-value and the permutations' statistics, every
    feature with non-zero weight (index, weight, rank, mean in X and in Y), the relaxation's tightness and,
    with --cv, the penalties tried. Nothing is written when the command fails.

    \b
    Examples:
      paucity differences healthy.csv treated.csv --n-features 10 --n-permutations 200 --out result.json
      paucity differences cells.h5ad --groupby bulk_labels --groups "CD14+ Monocyte" Dendritic --cv --out result.json
    """
    with one_line_errors(spelling=True):
        if show < 0:
            raise ParameterError(f"--show must be 0 or more, got {show}.")
        # the library also takes n_jobs="dask" and max_iter="auto", which these integer options cannot give
        if n_jobs is not None and not (n_jobs >= 1 or n_jobs == -1):
            raise ParameterError(f"--n-jobs must be a positive integer or -1 (every core), got {n_jobs}.")
        if max_iter < 1:
            raise ParameterError(f"--max-iter must be an integer >= 1, got {max_iter}.")
        if groups is not None and any(value.startswith("--") for value in groups):
            raise ParameterError(f"--groups takes two values (--groups A B), got {' '.join(groups)!r}.")
        # a bar from the first second: importing the numerical stack, then reading and densifying a large
        # .h5ad, take a while before the fit's own bar
        with progress_bar(None, f"reading {', '.join(path.name for path in inputs)}", not quiet()):
            from .. import io
            from ..differences import analyze

            out = io.check_output_path(out, option="--out")
            samples = _load(inputs, groupby, groups, layer, use_raw, index_column)
        result = analyze(
            samples.X,
            samples.Y,
            n_features=n_features,
            lam=lam,
            cv=cv,
            n_permutations=n_permutations,
            marginal_normalize=marginal_normalize,
            standardize=standardize,
            divergence=divergence,
            max_iter=max_iter,
            n_restarts=n_restarts,
            groups=samples.labels,
            random_state=random_state,
            n_jobs=n_jobs,
            progress=not quiet(),
        )
        report = {"inputs": samples.inputs, **result.to_dict()}
        io.write_text(json.dumps(report, indent=2, allow_nan=False) + "\n", out)
    if not quiet():
        _summary(report, show, out)


# -- reading the two samples ----------------------------------------------------------------------
@dataclass(frozen=True)
class _Samples:
    """The two samples as DataFrames (features by name), their names, and where they came from."""

    X: Any
    Y: Any
    inputs: dict
    labels: tuple


def _load(inputs, groupby, groups, layer, use_raw, index_column) -> _Samples:
    h5ad = [path for path in inputs if path.name.lower().endswith(".h5ad")]
    if h5ad:
        if len(inputs) != 1:
            raise ParameterError(
                f"give one .h5ad file (with --groupby and --groups) or two tables, not {len(inputs)} files with an .h5ad among them."
            )
        if index_column is not None:
            raise ParameterError("--index-column applies to tables, not to an .h5ad file.")
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
    X = _read_table(x_path, index_column)
    Y = _read_table(y_path, index_column)
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
    return _Samples(X, Y[list(X.columns)], {"x": x_path.name, "y": y_path.name}, (x_path.name, y_path.name))


def _read_table(path: Path, index_column: Optional[str]):
    import pandas as pd

    from .. import io

    if index_column is not None:  # the column check every command shares, on the header alone
        check_columns(pd.DataFrame(columns=io.read_header(path)), {"index": index_column}, what=str(path))
    frame = io.read_frame(path, index_column=index_column, numeric_columns=True, finite=True,
                          spelling={"index_column": "--index-column"})
    if frame.shape[1] == 0:
        raise InputError(f"{path} has no feature columns; check the separator (',' for .csv, tab for .tsv).")
    for position, name in enumerate(frame.columns):
        if str(name).startswith("Unnamed: "):
            raise InputError(
                f"column {position + 1} of {path} has an empty name in the header row; name every feature "
                f"(if it holds sample ids, pass --index-column {str(name)!r})."
            )
    if len(frame) < 2:
        raise InputError(f"{path} has {len(frame)} row(s); comparing two distributions needs at least 2 samples in each file.")
    return pd.DataFrame(frame.to_numpy(), columns=pd.Index([str(name) for name in frame.columns]))


def _read_groups(path: Path, groupby: str, groups, layer, use_raw) -> _Samples:
    from .. import io
    from ..differences.adata import two_groups

    first, second = groups
    adata = io.read(path)
    X, Y, resolved_raw = two_groups(adata, groupby, first, second, layer=layer, use_raw=use_raw)
    inputs = {"file": path.name, "groupby": groupby, "groups": [first, second], "layer": layer, "use_raw": resolved_raw}
    return _Samples(X, Y, inputs, (first, second))


# -- the human summary ---------------------------------------------------------------------------
def _summary(report: dict, show: int, out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    x_label, y_label = report["groups"]
    if report["method"] == "SPARDA":
        if report["n_features"] is not None:
            how = f"SPARDA, n_features = {report['n_features']}"
        else:
            how = f"SPARDA, λ = {report['lam']:.4g}" + (" (chosen on held-out halves)" if report["cv"] else "")
    else:
        how = "PDA, every feature may carry weight"
    if show > 0 and report["selected"]:
        view = Table(title=f"Features on which {x_label} and {y_label} differ most")
        for column in ("rank", "feature", "weight", f"mean in {x_label}", f"mean in {y_label}"):
            view.add_column(column, justify="left" if column == "feature" else "right")
        for item in report["selected"][:show]:
            view.add_row(
                str(item["rank"]), item["feature"], f"{item['weight']:+.4f}", f"{item['mean_x']:.4g}", f"{item['mean_y']:.4g}"
            )
        console.print(view)
    more = report["n_selected"] - min(show, report["n_selected"])
    console.print(
        f"{how}: {report['n_selected']} of {report['d']} features carry weight"
        + (f" ({more} more in the JSON)." if more > 0 else ".")
    )
    statistic = f"D(β̂ᵀX, β̂ᵀY) = {report['statistic']:.4g} ({report['divergence']})"
    test = report["permutation_test"]
    if test is not None:
        console.print(
            f"{report['question']} p = {test['pvalue']:.3g} by permutation test: {statistic}; "
            f"{test['n_at_least_as_large']} of {test['n_permutations']} random splits scored as high "
            f"(the smallest possible p is {1 / (test['n_permutations'] + 1):.3g})."
        )
    else:
        console.print(f"{report['question']} Not tested: {statistic}; add --n-permutations 200 for a p-value.")
    console.print(f"Result written to {out}")
