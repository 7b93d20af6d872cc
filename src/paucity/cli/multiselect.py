"""``paucity multiselect``: which crowd-judged attributes to buy for a new object, and how many judgments of each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .._errors import InputError
from .._columns import check_columns
from ._command import one_line_errors

__all__ = ["multiselect"]

MIN_JUDGMENTS = 2  # training needs two judgments of every attribute on every object (the internal variance)


def multiselect(
    judgments: Path = typer.Argument(
        ...,
        help="Judgments of labelled training objects (.csv/.tsv/.txt/.parquet) in long format: one row per "
        "judgment, with an object, an attribute and a numeric value column (0/1 for binary attributes). Every "
        "object needs at least 2 judgments of every attribute (or --drop-incomplete).",
        show_default=False,
        metavar="JUDGMENTS",
    ),
    labels: Path = typer.Option(
        ...,
        "--labels",
        help="A table of two columns, object and label (header row; the object column is the one named like "
        "--object-column, else the first): a numeric label for every judged object.",
        show_default=False,
    ),
    budget: float = typer.Option(
        ...,
        "--budget",
        help="What may be spent per new object: the sum over attributes of cost x judgments (with unit costs, "
        "the number of judgments).",
        show_default=False,
    ),
    costs: Optional[Path] = typer.Option(
        None,
        "--costs",
        help="A table of two columns, attribute and cost (header row; the attribute column is the one named like "
        "--attribute-column, else the first): the positive cost of one judgment of each attribute. Attributes "
        "not listed cost 1; naming one that JUDGMENTS does not have is an error. Default: every judgment costs 1.",
    ),
    algorithm: str = typer.Option(
        "full",
        "--algorithm",
        help="full or scoring (greedy on the estimated Full or Scoring objective), or the baselines averages "
        "(greedy least squares on the means of each attribute's training judgments) and copies (on the "
        "individual judgments); the baselines give an attribute at most the judgments every training object has.",
    ),
    ridge: Optional[float] = typer.Option(
        None,
        "--ridge",
        help="For --algorithm full only: a multiple of the identity (>= 0) added to the matrix M_r of the Full "
        "objective before it is solved; limits over-fitting on few training objects. Default 0.",
        show_default=False,
    ),
    drop_incomplete: bool = typer.Option(
        False,
        "--drop-incomplete",
        help="Drop the attributes and objects with fewer than 2 judgments (reported under 'dropped') instead of "
        "failing.",
    ),
    object_column: str = typer.Option(
        "object", "--object-column", help="Column of object names in JUDGMENTS (and in --labels when it has one of that name)."
    ),
    attribute_column: str = typer.Option(
        "attribute",
        "--attribute-column",
        help="Column of attribute names in JUDGMENTS (and in --costs when it has one of that name).",
    ),
    value_column: str = typer.Option("value", "--value-column", help="Column of the judgments' numeric values in JUDGMENTS."),
    out: Path = typer.Option(
        ...,
        "--out",
        "-o",
        help="Where to write the plan (JSON); its folder must exist. Nothing is written when the command fails.",
        show_default=False,
    ),
) -> None:
    """Which attributes should be judged for a new object, and how many times each, within a budget? (feature multi-selection)

    From labelled training objects judged at least twice per attribute, chooses the repeat vector r (judgments
    of each attribute to buy per new object, costing at most --budget), estimates the squared loss of the best
    linear predictor on the means of r(a) judgments before any is bought, and lists the judgments still to
    collect so every training object has r(a) of each chosen attribute. When every training object already has
    them, it also fits the regression (least squares on those means). The JSON holds the settings and costs,
    the repeat vector (chosen attributes, and all of them), the budget spent and unspent, the projected loss
    (and, for reference, the label variance: the loss with no judgments), the greedy path, the judgments
    still needed, the coefficients (or why they are not available yet, with those estimated before
    collection), and what --drop-incomplete dropped.

    \b
    Examples:
      paucity multiselect judgments.csv --labels labels.csv --budget 20 --out plan.json
      paucity multiselect judgments.tsv --labels labels.tsv --budget 20 --costs costs.csv --algorithm scoring --out plan.json
    """
    from .. import io
    from ..judgments import Judgments, plan
    from ._options import quiet

    with one_line_errors(spelling=True):
        io.check_output_path(out, option="--out")
        columns = {"object": object_column, "attribute": attribute_column, "value": value_column}
        table = io.read_frame(judgments, text_columns=[object_column, attribute_column])
        check_columns(table, columns, what=str(judgments))
        training = Judgments.from_frame(table, **columns)
        label_table = _two_columns(labels, object_column, "object and label", "--labels")
        cost_table = _two_columns(costs, attribute_column, "attribute and cost", "--costs") if costs else None
        result = plan(
            training, label_table, budget, costs=cost_table, algorithm=algorithm, ridge=ridge,
            min_judgments=MIN_JUDGMENTS, drop_incomplete=drop_incomplete, progress=not quiet(),
        )
        report = {
            "inputs": {
                "judgments": judgments.name,
                "labels": labels.name,
                "costs": costs.name if costs else None,
                "columns": columns,
            },
            **result.to_dict(),
        }
        io.write_text(json.dumps(report, indent=2, allow_nan=False) + "\n", out)
    if not quiet():
        _summary(result, out)


# -- reading the inputs ----------------------------------------------------------------------------
def _two_columns(path: Path, key: str, what: str, flag: str):
    """A Series from a two-column table: the ``key`` column (else the first), read as text, as index; the other as values."""
    import pandas as pd

    from .. import io

    # the key column, else the first, read as text: the header alone says which
    frame = io.read_frame(path, text_columns=[key if key in io.read_header(path) else 0])
    if frame.shape[1] != 2:
        shown = ", ".join(repr(str(name)) for name in list(frame.columns)[:10])
        raise InputError(
            f"{flag} {path} must have two columns, {what}; it has {frame.shape[1]} ({shown}). Check the separator "
            "(',' for .csv, tab for .tsv) and keep only those two."
        )
    name = key if key in frame.columns else frame.columns[0]
    other = next(column for column in frame.columns if column != name)
    names = frame[name]
    if names.isna().any():
        row = int(names.isna().to_numpy().argmax())
        raise InputError(f"column {str(name)!r} of {path} has a missing name in data row {row + 1}; drop or fill it.")
    return pd.Series(frame[other].to_numpy(), index=pd.Index(names, name=str(name)), name=str(other))


# -- the human summary ---------------------------------------------------------------------------
def _summary(result, out: Path) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    fitted = result.coefficients is not None
    weights = result.coefficients if fitted else result.estimated_coefficients
    view = Table(title=f"Judgments to buy per new object ({result.algorithm}, budget {result.budget:g})")
    for column in ("attribute", "judgments", "spent", "coefficient" if fitted else "coefficient (estimated)"):
        view.add_column(column, justify="left" if column == "attribute" else "right")
    for attribute, repeats in result.chosen.items():
        view.add_row(escape(str(attribute)), str(repeats), f"{result.costs[attribute] * repeats:g}",
                     f"{weights[attribute]:+.4g}")
    console.print(view)
    spending = f"Spent {result.spent:g} of {result.budget:g}"
    console.print(spending + (f"; {result.note}" if result.note else f" ({result.unspent:g} unspent)."))
    console.print(
        f"Projected squared loss on new objects (Full estimate): {result.projected_loss:.4g} "
        f"(label variance, the loss with no judgments: {result.projected_loss_without_judgments:.4g})."
    )
    if result.algorithm == "scoring":
        console.print(
            f"Scoring objective (the variance Scoring's own estimate, which assumes uncorrelated attributes, says "
            f"the plan explains): {result.objective:.4g}."
        )
    needed = result.judgments_needed
    if fitted:
        console.print(f"Every training object has enough judgments: least-squares intercept {result.intercept:.4g}.")
    else:
        console.print(
            f"Still needed: {int(needed['more'].sum())} more judgment(s) on {needed['object'].nunique()} training "
            "object(s) (listed in the JSON); the least-squares coefficients come once they are collected."
        )
    dropped = result.dropped
    if dropped is not None and (dropped.objects or dropped.attributes):
        console.print(
            f"--drop-incomplete dropped {len(dropped.objects)} object(s) and {len(dropped.attributes)} "
            f"attribute(s) ({dropped.n_judgments} judgment(s)) with fewer than {result.min_judgments} judgments."
        )
    if result.costs_unlisted:
        console.print(f"Not in --costs, so costing 1: {escape(', '.join(result.costs_unlisted))}.")
    if result.costs_unknown:
        console.print(f"In --costs but never judged (ignored): {escape(', '.join(result.costs_unknown))}.")
    console.print(f"Plan written to {out}")
