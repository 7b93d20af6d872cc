"""``paucity rank`` and ``paucity rank-evaluate``: ranking items from a file of comparisons."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from .._errors import InputError, ParameterError
from ._command import one_line_errors

_COMPARISONS_HELP = "A .csv/.tsv/.txt/.parquet table with one comparison per row."


def _comparisons(path: Path, i_col: str, j_col: str, winner_col, y_col, weight_col, features=None):
    from .. import io
    from ..ranking import Comparisons

    if (winner_col is None) == (y_col is None):
        raise ParameterError("give exactly one of --winner-col (the winner's label) or --y-col (1 when the --j-col item won).")
    frame = io.read_frame(path)
    return Comparisons.from_dataframe(
        frame, i=i_col, j=j_col, winner=winner_col, y=y_col, weights=weight_col, features=features
    )


def _features(path: Path, item_col: Optional[str]):
    import pandas as pd

    from .. import io

    frame = io.read_frame(path)
    column = item_col or frame.columns[0]
    if column not in frame.columns:
        raise InputError(f"--item-col {column!r} is not a column of {path}; its columns are {', '.join(map(str, frame.columns))}.")
    if frame[column].duplicated().any():
        raise InputError(f"{path} has two rows for item {frame[column][frame[column].duplicated()].iloc[0]!r}.")
    features = frame.set_index(column)
    non_numeric = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if non_numeric:
        raise InputError(f"feature column {non_numeric[0]!r} of {path} is not numeric; encode it as numbers first.")
    return features


def rank(
    comparisons: Path = typer.Argument(..., help=_COMPARISONS_HELP),
    i_col: str = typer.Option(..., "--i-col", help="Column of the first item of each comparison."),
    j_col: str = typer.Option(..., "--j-col", help="Column of the second item."),
    winner_col: Optional[str] = typer.Option(None, "--winner-col", help="Column holding the winner's label (one of the two)."),
    y_col: Optional[str] = typer.Option(None, "--y-col", help="Column of 0/1 outcomes, 1 when the --j-col item won (instead of --winner-col)."),
    weight_col: Optional[str] = typer.Option(None, "--weight-col", help="Column of weights or counts per comparison."),
    method: str = typer.Option("rank_centrality", "--method", help="rank_centrality, btl, bre, ure or rank_svm."),
    transition: Optional[str] = typer.Option(None, "--transition", help="rank_centrality: nos, ra or sampling (default nos)."),
    regularization: Optional[str] = typer.Option(
        None, "--regularization", help="rank_centrality: none, uniform or similarity (default: uniform when --lam is given, similarity with --features)."
    ),
    lam: Optional[float] = typer.Option(None, "--lam", help="rank_centrality: λ of the regularization (default 1/n)."),
    alpha: Optional[float] = typer.Option(None, "--alpha", help="btl: L2 penalty on the log-scores (default 0, the exact MLE)."),
    features: Optional[Path] = typer.Option(None, "--features", help="Table of item features: an item column and numeric columns."),
    item_col: Optional[str] = typer.Option(None, "--item-col", help="Item column of --features (default: its first column)."),
    kernel: Optional[str] = typer.Option(None, "--kernel", help="Similarity kernel: gaussian or agreement (default gaussian)."),
    sigma: Optional[float] = typer.Option(None, "--sigma", help="Width of the gaussian kernel (default 1)."),
    tau: Optional[float] = typer.Option(None, "--tau", help="Tightness of the agreement kernel."),
    random_state: Optional[int] = typer.Option(None, "--random-state", help="Seed for tie-breaking (bre, ure) and rank_svm."),
    out: Path = typer.Option(Path("scores.csv"), "--out", "-o", help="Where to write item, rank and score (CSV)."),
) -> None:
    """Rank items from pairwise comparisons and write their scores, best first."""
    from rich.console import Console

    from .. import io
    from ..ranking import rank as rank_items

    console = Console(stderr=True)
    with one_line_errors():
        if not out.parent.exists():
            raise ParameterError(f"the folder of --out ({out.parent}) does not exist; create it first.")
        method_key = method.lower()
        item_features = _features(features, item_col) if features is not None else None
        data = _comparisons(comparisons, i_col, j_col, winner_col, y_col, weight_col, item_features)
        params = {}
        if method_key == "rank_centrality":
            if regularization is not None:
                params["regularization"] = None if regularization.lower() == "none" else regularization
            elif item_features is not None:
                params["regularization"] = "similarity"
            elif lam is not None:
                params["regularization"] = "uniform"
            for name, value in (("transition", transition), ("lam", lam), ("kernel", kernel), ("sigma", sigma), ("tau", tau)):
                if value is not None:
                    params[name] = value
        else:
            given = {"--transition": transition, "--regularization": regularization, "--lam": lam, "--kernel": kernel, "--sigma": sigma, "--tau": tau}
            stray = [flag for flag, value in given.items() if value is not None]
            if stray:
                raise ParameterError(f"{stray[0]} applies to --method rank_centrality only, not {method!r}.")
        if alpha is not None:
            if method_key != "btl":
                raise ParameterError(f"--alpha applies to --method btl only, not {method!r}.")
            params["alpha"] = alpha
        if random_state is not None:
            if method_key not in ("bre", "ure", "rank_svm"):
                raise ParameterError(f"--random-state applies to bre, ure and rank_svm, not {method!r}.")
            params["random_state"] = random_state
        start = time.perf_counter()
        with console.status(f"ranking {data.n_items:,} items from {data.n_comparisons:,} comparisons ({method_key})"):
            table = rank_items(data, method_key, **params)
        seconds = time.perf_counter() - start
        io.write_csv(table.reset_index(), out, index=False)
    head = ", ".join(str(label) for label in table.index[:5])
    typer.echo(f"{len(table)} items ranked by {method_key} in {seconds:.2f} s (best: {head}); scores written to {out}")


def rank_evaluate(
    scores: Path = typer.Argument(..., help="Scores written by `paucity rank` (columns item, score)."),
    held_out: Path = typer.Argument(..., help=_COMPARISONS_HELP + " Held-out comparisons to check the scores against."),
    i_col: str = typer.Option(..., "--i-col", help="Column of the first item of each held-out comparison."),
    j_col: str = typer.Option(..., "--j-col", help="Column of the second item."),
    winner_col: Optional[str] = typer.Option(None, "--winner-col", help="Column holding the winner's label."),
    y_col: Optional[str] = typer.Option(None, "--y-col", help="Column of 0/1 outcomes, 1 when the --j-col item won."),
    weight_col: Optional[str] = typer.Option(None, "--weight-col", help="Column of weights per comparison."),
    item_col: str = typer.Option("item", "--item-col", help="Item column of the scores (and of --truth)."),
    score_col: str = typer.Option("score", "--score-col", help="Score column of the scores file (higher is better)."),
    truth: Optional[Path] = typer.Option(None, "--truth", help="A table of true scores (item column and --truth-col) for rank metrics."),
    truth_col: str = typer.Option("score", "--truth-col", help="Column of true scores in --truth (higher is better)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Also write the metrics here (CSV: metric, value)."),
) -> None:
    """Check scores against held-out comparisons (and true scores when known)."""
    import pandas as pd

    from .. import io
    from ..ranking import metrics

    with one_line_errors():
        if out is not None and not out.parent.exists():
            raise ParameterError(f"the folder of --out ({out.parent}) does not exist; create it first.")
        estimated = _score_series(scores, item_col, score_col)
        held = _comparisons(held_out, i_col, j_col, winner_col, y_col, weight_col)
        rows = [("held_out_comparisons", float(held.n_comparisons)), ("held_out_error", metrics.held_out_error(estimated, held))]
        if truth is not None:
            true_scores = _score_series(truth, item_col, truth_col)
            missing = true_scores.index.difference(estimated.index)
            if len(missing):
                raise InputError(f"item {missing[0]!r} has a true score in {truth} but no score in {scores}.")
            estimated_common = estimated.loc[true_scores.index]
            rows += [
                ("kendall_tau_b", metrics.kendall_tau_b(estimated_common, true_scores)),
                ("kendall_tau_distance", float(metrics.kendall_tau_distance(estimated_common, true_scores))),
                ("spearman_footrule", float(metrics.spearman_footrule(estimated_common, true_scores))),
                ("max_displacement", float(metrics.max_displacement(estimated_common, true_scores))),
            ]
        table = pd.DataFrame(rows, columns=["metric", "value"])
        if out is not None:
            io.write_csv(table, out, index=False)
    for name, value in rows:
        typer.echo(f"{name:>22}  {value:.6g}")


def _score_series(path: Path, item_col: str, score_col: str):
    import pandas as pd

    from .. import io

    frame = io.read_frame(path)
    for option, column in (("--item-col", item_col), ("--score-col or --truth-col", score_col)):
        if column not in frame.columns:
            raise InputError(f"{path} has no column {column!r} ({option}); its columns are {', '.join(map(str, frame.columns))}.")
    if frame[item_col].duplicated().any():
        raise InputError(f"{path} has two rows for item {frame[item_col][frame[item_col].duplicated()].iloc[0]!r}.")
    values = pd.to_numeric(frame[score_col], errors="coerce")
    if values.isna().any():
        row = int(values.isna().to_numpy().nonzero()[0][0])
        raise InputError(f"{path} row {row}: score {frame[score_col].iloc[row]!r} is not a number.")
    return pd.Series(values.to_numpy(dtype=float), index=pd.Index(frame[item_col]), name=score_col)
