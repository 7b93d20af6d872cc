"""``paucity multiselect``: which crowd-judged attributes to buy for a new object, and how many judgments of each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .._errors import InputError, ParameterError
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
        "not listed cost 1. Default: every judgment costs 1.",
    ),
    algorithm: str = typer.Option(
        "full",
        "--algorithm",
        help="full or scoring (greedy on the estimated Full or Scoring objective), or the baselines averages "
        "(greedy least squares on the means of each attribute's training judgments) and copies (on the "
        "individual judgments); the baselines give an attribute at most the judgments every training object has.",
    ),
    ridge: float = typer.Option(
        0.0,
        "--ridge",
        help="Added to the diagonal of the estimated covariance of the Full objective (>= 0): limits over-fitting "
        "on few training objects.",
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
    from rich.console import Console

    console = Console()
    with one_line_errors():
        if not out.parent.exists():
            raise ParameterError(f"the folder of --out ({out.parent}) does not exist; create it first.")
        result = _plan(
            judgments, labels, costs, budget=budget, algorithm=algorithm, ridge=ridge, drop_incomplete=drop_incomplete,
            columns={"object": object_column, "attribute": attribute_column, "value": value_column},
        )
        from .. import io

        io.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", out)
    _summary(console, result, out)


# -- reading the inputs ----------------------------------------------------------------------------
def _two_columns(path: Path, key: str, what: str, flag: str):
    """A Series from a two-column table: the ``key`` column (else the first) as index, the other as values."""
    import pandas as pd

    from .. import io

    frame = io.read_frame(path)
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


def _read_judgments(path: Path, columns: dict):
    from ..judgments import Judgments

    return Judgments.read(path, object=columns["object"], attribute=columns["attribute"], value=columns["value"])


# -- choosing the repeats ----------------------------------------------------------------------------
def _plan(judgments_path: Path, labels_path: Path, costs_path: Path | None, *, budget, algorithm, ridge,
          drop_incomplete, columns) -> dict:
    import numpy as np

    from ..judgments import ALGORITHMS, MultiSelectRegressor

    algorithm_key = algorithm.lower()
    if algorithm_key not in ALGORITHMS:
        raise ParameterError(f"unknown --algorithm {algorithm!r}; expected one of {', '.join(ALGORITHMS)}.")
    judgments = _read_judgments(judgments_path, columns)
    y = _two_columns(labels_path, columns["object"], "object and label", "--labels")
    cost_table = _two_columns(costs_path, columns["attribute"], "attribute and cost", "--costs") if costs_path else None
    model = MultiSelectRegressor(
        budget=budget, algorithm=algorithm_key, costs=cost_table, ridge=ridge, min_judgments=MIN_JUDGMENTS,
        drop_incomplete=drop_incomplete, progress=True,
    )
    try:
        model.fit(judgments, y)
    except InputError as error:  # the library names its parameter; the command has a flag for it
        message = str(error)
        if "drop_incomplete=True" not in message:
            raise
        raise InputError(message.replace("pass drop_incomplete=True", "pass --drop-incomplete")) from None

    attributes = model.attributes_
    repeats = model.repeats_
    chosen = repeats[repeats > 0]
    estimated = {"coef": _weights(model.coef_, chosen.index), "intercept": _number(model.intercept_)}
    needed = model.judgments_needed()
    missing = int(needed["more"].sum())
    if len(needed) == 0:
        training = judgments.subset(objects=model.training_counts_.index, attributes=attributes)
        model.refit(training, y)
        coefficients = {
            "available": True,
            "source": "least squares on the means of the first r[a] judgments of each training object",
            "coef": _weights(model.coef_, chosen.index),
            "intercept": _number(model.intercept_),
            "message": None,
        }
    else:
        coefficients = {
            "available": False,
            "source": None,
            "coef": None,
            "intercept": None,
            "message": (
                f"not available yet: {missing} more judgment(s) are needed so every training object has r[a] "
                "judgments of each chosen attribute (see judgments_needed); collect them and run again."
            ),
        }
    costs_used = model.costs_
    listed = [] if cost_table is None else list(cost_table.index)
    unlisted = [str(a) for a in attributes if cost_table is not None and a not in set(listed)]
    unknown = [str(a) for a in listed if a not in set(judgments.attributes)]
    dropped = model.dropped_
    counts = model.training_counts_
    return {
        "question": "Which attributes should be judged for a new object, and how many times each, within the budget?",
        "inputs": {
            "judgments": judgments_path.name,
            "labels": labels_path.name,
            "costs": costs_path.name if costs_path else None,
            "columns": dict(columns),
        },
        "n_objects": int(counts.shape[0]),
        "n_attributes": int(counts.shape[1]),
        "n_judgments": int(counts.to_numpy().sum()),
        "settings": {
            "algorithm": algorithm_key,
            "budget": _number(budget),
            "ridge": _number(ridge),
            "min_judgments": MIN_JUDGMENTS,
            "drop_incomplete": bool(drop_incomplete),
            "costs": {str(a): _number(c) for a, c in costs_used.items()},
            "costs_unlisted": unlisted,
            "costs_unknown": unknown,
        },
        "repeats": {str(a): int(r) for a, r in chosen.items()},
        "repeats_all": {str(a): int(r) for a, r in repeats.items()},
        "spent": _number(float(budget) - model.unspent_),
        "unspent": _number(model.unspent_),
        "note": repeats.attrs.get("note"),
        "objective": _number(model.objective_),
        "projected_loss": _number(model.projected_loss()),
        "projected_loss_without_judgments": _number(model.projected_loss(np.zeros(len(attributes), dtype=np.int64))),
        "path": [
            {
                "step": int(row.step),
                "attribute": str(row.attribute),
                "cost": _number(row.cost),
                "spent": _number(row.spent),
                "objective": _number(row.objective),
                "projected_loss": _number(row.projected_loss),
            }
            for row in model.path_.itertuples(index=False)
        ],
        "judgments_needed": {
            "total": missing,
            "n_objects": int(needed["object"].nunique()),
            "rows": [
                {"object": str(row.object), "attribute": str(row.attribute), "have": int(row.have), "more": int(row.more)}
                for row in needed.itertuples(index=False)
            ],
        },
        "coefficients": coefficients,
        "estimated_coefficients": {
            "note": "estimated from the training judgments' moments before the judgments are collected; "
            "least squares on the collected means replaces them",
            **estimated,
        },
        "dropped": None
        if not drop_incomplete
        else {
            "objects": [str(name) for name in dropped.objects],
            "attributes": [str(name) for name in dropped.attributes],
            "n_judgments": int(dropped.n_judgments),
        },
    }


def _weights(coef, chosen) -> dict:
    return {str(a): _number(coef[a]) for a in chosen}


def _number(value):
    """A JSON-safe float: None for NaN or infinity."""
    import math

    value = float(value)
    return value if math.isfinite(value) else None


# -- the human summary ---------------------------------------------------------------------------
def _summary(console, result: dict, out: Path) -> None:
    from rich.markup import escape
    from rich.table import Table

    settings = result["settings"]
    coefficients = result["coefficients"]
    fitted = coefficients["available"]
    weights = coefficients["coef"] if fitted else result["estimated_coefficients"]["coef"]
    view = Table(title=f"Judgments to buy per new object ({settings['algorithm']}, budget {settings['budget']:g})")
    for column in ("attribute", "judgments", "spent", "coefficient" if fitted else "coefficient (estimated)"):
        view.add_column(column, justify="left" if column == "attribute" else "right")
    for attribute, repeats in result["repeats"].items():
        weight = weights.get(attribute)
        shown = "-" if weight is None else f"{weight:+.4g}"
        view.add_row(escape(attribute), str(repeats), f"{settings['costs'][attribute] * repeats:g}", shown)
    console.print(view)
    spending = f"Spent {result['spent']:g} of {settings['budget']:g}"
    console.print(spending + (f"; {result['note']}" if result["note"] else f" ({result['unspent']:g} unspent)."))
    console.print(
        f"Projected squared loss on new objects: {result['projected_loss']:.4g} "
        f"(label variance, the loss with no judgments: {result['projected_loss_without_judgments']:.4g})."
    )
    needed = result["judgments_needed"]
    if fitted:
        console.print(
            f"Every training object has enough judgments: least-squares intercept {coefficients['intercept']:.4g}."
        )
    else:
        console.print(
            f"Still needed: {needed['total']} more judgment(s) on {needed['n_objects']} training object(s) "
            "(listed in the JSON); the least-squares coefficients come once they are collected."
        )
    if result["dropped"] is not None and (result["dropped"]["objects"] or result["dropped"]["attributes"]):
        dropped = result["dropped"]
        console.print(
            f"--drop-incomplete dropped {len(dropped['objects'])} object(s) and {len(dropped['attributes'])} "
            f"attribute(s) ({dropped['n_judgments']} judgment(s)) with fewer than {settings['min_judgments']} judgments."
        )
    if settings["costs_unlisted"]:
        console.print(f"Not in --costs, so costing 1: {escape(', '.join(settings['costs_unlisted']))}.")
    if settings["costs_unknown"]:
        console.print(f"In --costs but never judged (ignored): {escape(', '.join(settings['costs_unknown']))}.")
    console.print(f"Plan written to {out}")
