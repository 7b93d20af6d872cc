"""``paucity crowd``: pool a biased crowd with the researcher's gold labels, from files.

Reads a long table of labels (task, labeler, label), optionally the
researcher's gold labels apart, and a table of task features; calls
:func:`paucity.crowd.pool` once and writes its predictions (and, with
``--suggest``, the next pairs to ask).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._errors import InputError, ParameterError
from .._columns import check_columns
from ._command import one_line_errors
from ._options import quiet

__all__ = ["crowd"]

_SHOWN = 5  # labelers and pairs printed in the summary


def crowd(
    labels: Path = typer.Argument(
        ..., help="A long table of labels (.csv/.tsv/.txt/.parquet): one row per task, labeler and label, two label "
        "values in all.", show_default=False,
    ),
    features: Path = typer.Option(
        ..., "--features", help="A table of task features: a task id column and numeric columns, one row per task "
        "(every labelled task, and any others to predict).", show_default=False,
    ),
    researcher: str = typer.Option(
        ..., "--researcher", help="The researcher's labeler id: her labels are the gold ones the model learns to "
        "predict (in the labels table, or in --gold).", show_default=False,
    ),
    task_column: str = typer.Option("task", "--task-column", help="Task id column of the labels (and of --gold)."),
    labeler_column: str = typer.Option("labeler", "--labeler-column", help="Labeler id column of the labels."),
    label_column: str = typer.Option("label", "--label-column", help="Label column of the labels (and of --gold)."),
    features_task_column: Optional[str] = typer.Option(
        None, "--features-task-column", help="Task id column of --features (default: --task-column when the table "
        "has it, else its first column).", show_default=False,
    ),
    gold: Optional[Path] = typer.Option(
        None, "--gold", help="The researcher's gold labels in a table of their own (--task-column and --label-column); "
        "they are kept under --researcher, which no crowd labeler may be called.", show_default=False,
    ),
    positive: Optional[str] = typer.Option(
        None, "--positive", help="The label value that stands for +1 (default: the larger of the two).", show_default=False,
    ),
    n_factors: int = typer.Option(4, "--n-factors", help="K, the number of latent factors (columns of Z)."),
    alpha: float = typer.Option(1.0, "--alpha", help="The IBP's concentration (not a penalty): each factor's prior "
                                "share of labelers is Beta(alpha/K, 1)."),
    sigma: float = typer.Option(1.0, "--sigma", help="Prior standard deviation of the factors' weights."),
    n_burnin: str = typer.Option("auto", "--n-burnin", help="Gibbs sweeps discarded at the start of each chain, or "
                                 "auto: the first half of those run."),
    n_samples: str = typer.Option("auto", "--n-samples", help="Gibbs sweeps kept per chain (every --thin-th), or "
                                  "auto: until the chains agree (R-hat at most 1.05, effective sample size at least "
                                  "100 per chain), at most --max-sweeps."),
    max_sweeps: int = typer.Option(22000, "--max-sweeps", help="The most sweeps per chain when --n-samples is auto."),
    thin: int = typer.Option(1, "--thin", help="Keep every thin-th sweep."),
    n_chains: int = typer.Option(2, "--n-chains", help="Independent chains, run at once on the cores (R-hat needs "
                                 "more than one to mean much)."),
    n_jobs: Optional[int] = typer.Option(None, "--n-jobs", help="Chains run at once (default: one per idle core); "
                                         "the draws do not depend on it.", show_default=False),
    random_state: Optional[int] = typer.Option(None, "--random-state", help="Seed of the chains."),
    suggest: int = typer.Option(0, "--suggest", help="Also write the N (task, labeler) pairs to ask next (§3.5)."),
    ask: Optional[str] = typer.Option(
        None, "--ask", help="Whom --suggest may ask: researcher or crowd (default: researcher).", show_default=False,
    ),
    suggest_out: Optional[Path] = typer.Option(
        None, "--suggest-out", help="Where --suggest writes task, labeler, utility (CSV). Default: beside --out, "
        "predictions.suggest.csv for predictions.csv.", show_default=False,
    ),
    out: Path = typer.Option(
        Path("predictions.csv"), "--out", "-o", help="Where to write task, probability, label, gold (CSV)."
    ),
) -> None:
    """Predict the researcher's labels from a biased crowd (BBMC), and suggest whom to ask next.

    The crowd's labelers and the researcher share latent factors; the researcher's model borrows from the
    labelers who think like her. Written to --out: one row per task of --features, with the probability that
    the researcher says the positive label, her more probable label, and her own label where she gave one.
    With --suggest N, the N pairs whose label would move her model most are written to --suggest-out.
    Progress is shown over the Gibbs sweeps. Nothing is written when the command fails.

    \b
    Examples:
      paucity crowd labels.csv --task-column task --labeler-column worker --label-column label \\
          --features tasks.csv --researcher R --out predictions.csv
      paucity crowd labels.csv --gold gold.csv --researcher me --features tasks.csv --suggest 10 --out predictions.csv
    """
    from .. import io
    from ..crowd import LabelMatrix, pool

    with one_line_errors(spelling={"n_suggest": "--suggest"}):
        out = io.check_output_path(out, option="--out")
        if suggest_out is not None and not suggest:
            raise ParameterError("--suggest-out names where --suggest writes; give --suggest N too, or leave it out.")
        if ask is not None and not suggest:
            raise ParameterError("--ask says whom --suggest may ask; give --suggest N too, or leave it out.")
        if suggest:
            suggest_out = io.check_output_path(suggest_out if suggest_out is not None else _beside(out),
                                               option="--suggest-out")
            if suggest_out.resolve() == out.resolve():
                raise ParameterError(f"--suggest-out and --out are both {out}; give two different files.")
        table = io.read_frame(labels, text_columns=[task_column, labeler_column, label_column])
        check_columns(table, {"task": task_column, "labeler": labeler_column, "label": label_column},
                      what=str(labels))
        gold_table = None
        if gold is not None:
            gold_table = io.read_frame(gold, text_columns=[task_column, label_column])
            check_columns(gold_table, {"task": task_column, "label": label_column}, what=str(gold))
            if gold_table[[task_column, label_column]].isna().any(axis=None):
                raise InputError(f"{gold} has rows with a missing task or label; drop or fill them.")
            if gold_table[task_column].duplicated().any():
                repeated = gold_table[task_column][gold_table[task_column].duplicated()].iloc[0]
                raise InputError(f"{gold} gives task {repeated!r} more than one gold label; keep one per task.")
        matrix = LabelMatrix.from_frame(
            table, task=task_column, labeler=labeler_column, label=label_column, positive=positive,
            gold=gold_table, researcher=researcher if gold is not None else None,
        )
        if gold is None and researcher not in set(matrix.labeler_ids):
            raise InputError(
                f"--researcher {researcher!r} labelled nothing in {labels} (column {labeler_column!r}); name her "
                "labeler id there, or give her gold labels with --gold."
            )
        X = _features(features, features_task_column, task_column)
        absent = matrix.task_ids[~matrix.task_ids.isin(X.index)]
        if len(absent):
            shown = ", ".join(map(repr, list(absent[:3])))
            raise InputError(f"{len(absent)} labelled task(s) are missing from the features in {features} ({shown}); "
                             "add their rows or drop their labels.")
        result = pool(
            matrix, X, researcher=researcher, n_suggest=suggest, ask=ask or "researcher", n_factors=n_factors,
            alpha=alpha, sigma=sigma, n_burnin=_sweeps(n_burnin, "--n-burnin"),
            n_samples=_sweeps(n_samples, "--n-samples"), thin=thin, n_chains=n_chains, max_sweeps=max_sweeps,
            n_jobs=n_jobs, random_state=random_state, progress=not quiet(),
        )
        io.write_csv(result.to_frame(), out, index=False)
        if suggest:
            io.write_csv(result.suggestions, suggest_out, index=False)
    if not quiet():
        share = ", ".join(f"{labeler} {value:.2f}" for labeler, value in result.agreement.iloc[:_SHOWN].items())
        typer.echo(
            f"BBMC on {result.n_tasks} labelled tasks, {result.n_labelers - 1} crowd labelers and "
            f"{int(result.predictions['gold'].notna().sum())} gold labels by {researcher}: predictions for "
            f"{len(result.predictions)} tasks written to {out} (R-hat {result.rhat:.3f})."
        )
        typer.echo(f"the chains {result.stop_reason}" if result.stop_reason.startswith(("converged", "ran"))
                   else f"warning: the chains {result.stop_reason}; their answers may not be the posterior's.")
        typer.echo(f"labelers sharing most of {researcher}'s factors: {share}")
        if suggest:
            pairs = ", ".join(f"({task}, {labeler})" for task, labeler in
                              result.suggestions[["task", "labeler"]].itertuples(index=False))
            typer.echo(f"next to ask, written to {suggest_out}: {pairs}")


def _sweeps(value: str, option: str):
    """A number of sweeps, or "auto"."""
    text = value.strip().lower()
    if text == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise ParameterError(f"{option} is a number of sweeps or auto, got {value!r}.") from None


def _beside(out: Path) -> Path:
    return out.with_name(f"{out.stem}.suggest{out.suffix or '.csv'}")


def _features(path: Path, features_task_column: Optional[str], task_column: str):
    import numpy as np

    from .. import io

    if features_task_column is None:  # the header alone says which column holds the ids
        columns = io.read_header(path)
        features_task_column = task_column if task_column in columns else columns[0]
    frame = io.read_frame(path, index_column=features_task_column, numeric_columns=True,
                          spelling={"index_column": "--features-task-column"})
    if frame.shape[1] == 0:
        raise InputError(f"{path} has no feature columns beside the task id {features_task_column!r}.")
    bad = frame.index[~np.isfinite(frame.to_numpy(dtype=float)).all(axis=1)]
    if len(bad):
        shown = ", ".join(map(repr, list(bad[:3])))
        raise InputError(f"{path} has missing or infinite features for {len(bad)} task(s) ({shown}); "
                         "impute them or drop those rows.")
    return frame
