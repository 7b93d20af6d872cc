"""``paucity rank``, ``paucity rank-evaluate`` and ``paucity rank-suggest``: ranking items from a file of comparisons.

``rank`` reads the comparisons (and item features), calls
:func:`paucity.ranking.rank` once and writes its
:meth:`~paucity.ranking.RankResult.to_frame`; ``rank-evaluate`` reads scores
and held-out comparisons, calls :func:`paucity.ranking.evaluate` once and
prints (and writes) its :meth:`~paucity.ranking.RankingEvaluation.to_frame`;
``rank-suggest`` fits BTL to the comparisons and writes the pairs
:func:`paucity.ranking.suggest_pairs` picks to compare next.
Which options apply to which method is decided by the library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._compile import Stopwatch
from .._errors import ParameterError
from .._columns import check_columns
from ._command import one_line_errors
from ._options import quiet

#: The roles of the comparison table's columns (:meth:`Comparisons.from_frame`) whose option is not named after
#: them (the others, ``--i-column`` for ``i``, are the command's own column options).
COMPARISON_COLUMNS = {"weights": "--weight-column"}

__all__ = ["rank", "rank_evaluate", "rank_suggest"]

_COMPARISONS_HELP = "A .csv/.tsv/.txt/.parquet table with one comparison per row."


def rank(
    comparisons: Path = typer.Argument(..., help=_COMPARISONS_HELP),
    i_column: str = typer.Option(..., "--i-column", help="Column of the first item of each comparison."),
    j_column: str = typer.Option(..., "--j-column", help="Column of the second item."),
    winner_column: Optional[str] = typer.Option(
        None, "--winner-column", help="Column holding the winner's label (one of the two)."
    ),
    y_column: Optional[str] = typer.Option(
        None, "--y-column", help="Column of 0/1 outcomes, 1 when the --j-column item won (instead of --winner-column)."
    ),
    weight_column: Optional[str] = typer.Option(None, "--weight-column", help="Column of weights or counts per comparison."),
    tie_column: Optional[str] = typer.Option(
        None, "--tie-column", "--tie",
        help="Column of booleans or 0/1 marking draws (a draw's winner or y cell is ignored and may be empty); "
        "a --y-column may also hold 0.5 for a draw. Draws need --method btl --ties.",
    ),
    method: str = typer.Option("rank_centrality", "--method", help="rank_centrality, btl, bre, ure or rank_svm."),
    ties: Optional[str] = typer.Option(
        None, "--ties", help="btl: the model of draws, davidson or rao-kupper (its tie parameter is estimated)."
    ),
    transition: Optional[str] = typer.Option(None, "--transition", help="rank_centrality: nos, ra or sampling (default nos)."),
    regularization: Optional[str] = typer.Option(
        None,
        "--regularization",
        help="rank_centrality: none, uniform or similarity (default: similarity with --features, uniform with --lam, "
        "none otherwise).",
    ),
    lam: Optional[float] = typer.Option(
        None, "--lam", help="rank_centrality: λ, the weight of the uniform jump in the regularized chain (default 1/n)."
    ),
    alpha: Optional[float] = typer.Option(
        None, "--alpha", help="btl: weight of the penalty (alpha/2)·||v||² on the log-likelihood (default 0, the exact MLE); rank_svm: of (alpha/2)·||w||² on the hinge loss (default 1)."
    ),
    features: Optional[Path] = typer.Option(
        None, "--features", help="rank_centrality (similarity regularization) and rank_svm: a table of item features, an item column and numeric columns."
    ),
    item_column: Optional[str] = typer.Option(None, "--item-column", help="Item column of --features (default: its first column)."),
    kernel: Optional[str] = typer.Option(None, "--kernel", help="Similarity kernel: gaussian or agreement (default gaussian)."),
    sigma: Optional[float] = typer.Option(None, "--sigma", help="Width of the gaussian kernel (default 1)."),
    tau: Optional[float] = typer.Option(None, "--tau", help="Tightness of the agreement kernel."),
    random_state: Optional[int] = typer.Option(None, "--random-state", help="bre, ure: seed for tie-breaking; rank_svm: its randomness."),
    out: Path = typer.Option(Path("scores.csv"), "--out", "-o", help="Where to write item, rank, score and log_score (CSV)."),
) -> None:
    """Rank items from pairwise comparisons and write their scores, best first.

    The table written has one row per item, best first: item, rank (1 is best), score (on the method's own
    scale) and log_score (on BTL's centred log scale, the same for every method). An option that does not
    apply to the chosen method is an error. Nothing is written when the command fails.

    \b
    Examples:
      paucity rank games.csv --i-column home --j-column away --winner-column winner --lam 0.01 --out scores.csv
      paucity rank games.csv --i-column home --j-column away --y-column y --method btl --alpha 1 --out scores.csv
      paucity rank games.csv --i-column home --j-column away --winner-column winner --tie-column draw --method btl --ties davidson
    """
    from .. import io
    from ..ranking import rank as rank_items

    with one_line_errors(spelling=COMPARISON_COLUMNS):
        out = io.check_output_path(out, option="--out")
        if item_column is not None and features is None:
            raise ParameterError("--item-column names the item column of --features; give --features too, or leave it out.")
        data = _comparisons(comparisons, i_column, j_column, winner_column, y_column, weight_column, tie_column)
        if data.has_ties and ties is None:
            raise ParameterError(
                f"{comparisons} holds draws, which only --method btl --ties davidson (or rao-kupper) can fit; "
                "add those options, or drop the draws."
            )
        item_features = _features(features, item_column) if features is not None else None
        params = {
            name: value
            for name, value in (
                ("transition", transition), ("lam", lam), ("alpha", alpha), ("kernel", kernel), ("sigma", sigma),
                ("tau", tau), ("random_state", random_state), ("ties", ties),
            )
            if value is not None
        }
        if regularization is not None:
            params["regularization"] = None if regularization.lower() == "none" else regularization
        clock = Stopwatch()  # compile time left out: the algorithm's seconds
        result = rank_items(data, method, features=item_features, **params)
        seconds = clock.seconds
        io.write_csv(result.to_frame().reset_index(), out, index=False)
    if not quiet():
        head = ", ".join(str(label) for label in result.ranking[:5])
        typer.echo(
            f"{result.n_items} items ranked by {result.method} in {seconds:.2f} s (best: {head}); scores written to {out}"
        )


def rank_evaluate(
    scores: Path = typer.Argument(..., help="Scores written by `paucity rank` (columns item, score)."),
    held_out: Path = typer.Argument(..., help=_COMPARISONS_HELP + " Held-out comparisons to check the scores against."),
    i_column: str = typer.Option(..., "--i-column", help="Column of the first item of each held-out comparison."),
    j_column: str = typer.Option(..., "--j-column", help="Column of the second item."),
    winner_column: Optional[str] = typer.Option(None, "--winner-column", help="Column holding the winner's label."),
    y_column: Optional[str] = typer.Option(None, "--y-column", help="Column of 0/1 outcomes, 1 when the --j-column item won."),
    weight_column: Optional[str] = typer.Option(None, "--weight-column", help="Column of weights per comparison."),
    item_column: str = typer.Option("item", "--item-column", help="Item column of the scores (and of --truth)."),
    score_column: str = typer.Option("score", "--score-column", help="Score column of the scores file (higher is better)."),
    truth: Optional[Path] = typer.Option(None, "--truth", help="A table of true scores (item column and --truth-column) for rank metrics."),
    truth_column: str = typer.Option("score", "--truth-column", help="Column of true scores in --truth (higher is better)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Also write the metrics here (CSV: metric, value)."),
) -> None:
    """Check scores against held-out comparisons (and true scores when known).

    Prints the held-out error (the weighted fraction of held-out comparisons won by the lower-scored item,
    ties counting one half) and, with --truth, Kendall's tau-b, the Kendall tau distance, Spearman's footrule
    and the largest displacement.

    \b
    Example:
      paucity rank-evaluate scores.csv held_out.csv --i-column home --j-column away --winner-column winner --truth truth.csv
    """
    from .. import io
    from ..ranking import evaluate

    with one_line_errors(spelling={**COMPARISON_COLUMNS, "truth": "--truth-column"}):  # (--truth is the file)
        if out is not None:
            out = io.check_output_path(out, option="--out")
        estimated = _score_series(scores, item_column, score_column, "score")
        held = _comparisons(held_out, i_column, j_column, winner_column, y_column, weight_column)
        true_scores = _score_series(truth, item_column, truth_column, "truth") if truth is not None else None
        result = evaluate(estimated, held, true_scores=true_scores)
        if out is not None:
            io.write_csv(result.to_frame(), out, index=False)
    if out is None or not quiet():
        for name, value in result.to_dict().items():
            typer.echo(f"{name:>22}  {value:.6g}")


def rank_suggest(
    comparisons: Path = typer.Argument(..., help=_COMPARISONS_HELP),
    i_column: str = typer.Option(..., "--i-column", help="Column of the first item of each comparison."),
    j_column: str = typer.Option(..., "--j-column", help="Column of the second item."),
    winner_column: Optional[str] = typer.Option(None, "--winner-column", help="Column holding the winner's label."),
    y_column: Optional[str] = typer.Option(None, "--y-column", help="Column of 0/1 outcomes, 1 when the --j-column item won."),
    weight_column: Optional[str] = typer.Option(None, "--weight-column", help="Column of weights or counts per comparison."),
    n_pairs: int = typer.Option(20, "--n-pairs", "--n", help="How many pairs to suggest."),
    strategy: str = typer.Option(
        "information", "--strategy", help="information (expected information gain), uncertainty (likeliest rank swaps) or random."
    ),
    alpha: float = typer.Option(
        1.0, "--alpha", help="Weight of BTL's penalty (alpha/2)·||v||², so that every item gets a score (default 1)."
    ),
    candidates: Optional[Path] = typer.Option(
        None, "--candidates", help="A table of the pairs that may be asked: its first two columns, item labels."
    ),
    random_state: Optional[int] = typer.Option(None, "--random-state", help="Seed of --strategy random."),
    out: Path = typer.Option(Path("next_pairs.csv"), "--out", "-o", help="Where to write i, j, score and probability (CSV)."),
) -> None:
    """Suggest the pairs to compare next: those a BTL fit of the comparisons expects to learn most from.

    Fits BTL(alpha) to the comparisons, scores candidate pairs under its Laplace posterior and writes the
    chosen pairs in the order picked: i, j, score and probability (that j is preferred to i). Candidates
    default to every pair (up to 300 items) or each item with its 10 neighbours on each side in the fitted
    ranking. Nothing is written when the command fails.

    \b
    Example:
      paucity rank-suggest games.csv --i-column home --j-column away --winner-column winner --n 20 --out next_pairs.csv
    """
    from .. import io
    from ..ranking import BTL, suggest_pairs

    with one_line_errors(spelling={**COMPARISON_COLUMNS, "n": "--n-pairs"}):
        out = io.check_output_path(out, option="--out")
        data = _comparisons(comparisons, i_column, j_column, winner_column, y_column, weight_column)
        allowed = None
        if candidates is not None:
            frame = io.read_frame(candidates, text_columns=[0, 1])  # the first two columns, whatever their names
            if frame.shape[1] < 2:
                raise ParameterError(f"--candidates {candidates} needs two columns (the two items of each pair).")
            allowed = _matching_labels(frame.iloc[:, :2], data.items)
        clock = Stopwatch()
        model = BTL(alpha=alpha).fit(data)
        table = suggest_pairs(model, n_pairs, strategy=strategy, candidates=allowed, random_state=random_state)
        seconds = clock.seconds
        io.write_csv(table, out, index=False)
    if not quiet():
        typer.echo(f"{len(table)} pairs suggested among {data.n_items} items in {seconds:.2f} s; written to {out}")


def _matching_labels(frame, items):
    """Candidate labels read as text, given the items' own labels when those are not text (numbers in a CSV)."""
    import pandas as pd

    if pd.api.types.is_object_dtype(items.dtype) or pd.api.types.is_string_dtype(items.dtype):
        return frame
    as_text = {str(label): label for label in items}
    return frame.apply(lambda column: column.map(lambda label: as_text.get(str(label), label)))


# -- reading the tables ---------------------------------------------------------------------------
def _comparisons(path: Path, i_column: str, j_column: str, winner_column, y_column, weight_column, tie_column=None):
    from .. import io
    from ..ranking import Comparisons

    if (winner_column is None) == (y_column is None):
        raise ParameterError(
            "give exactly one of --winner-column (the winner's label) or --y-column (1 when the --j-column item won)."
        )
    labels = [c for c in (i_column, j_column, winner_column) if c is not None]
    frame = io.read_frame(path, text_columns=labels)
    check_columns(frame, {"i": i_column, "j": j_column, "winner": winner_column, "y": y_column,
                          "weights": weight_column, "tie": tie_column}, what=str(path))
    return Comparisons.from_frame(
        frame, i=i_column, j=j_column, winner=winner_column, y=y_column, weights=weight_column, tie=tie_column
    )


def _features(path: Path, item_column: Optional[str]):
    from .. import io

    frame = io.read_frame(path, text_columns=[item_column if item_column is not None else 0])  # default: the first
    if item_column is None:
        item_column = frame.columns[0]
    check_columns(frame, {"item": item_column}, what=str(path))
    return frame.set_index(item_column)


def _score_series(path: Path, item_column: str, score_column: str, role: str):
    import pandas as pd

    from .. import io

    frame = io.read_frame(path, text_columns=[item_column])
    check_columns(frame, {"item": item_column, role: score_column}, what=str(path))
    return pd.Series(frame[score_column].to_numpy(), index=pd.Index(frame[item_column]), name=score_column)
