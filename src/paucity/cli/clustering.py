"""``paucity cluster-active`` and ``paucity cluster-session``: active spectral clustering from files.

``cluster-active`` reads a complete similarity matrix, calls
:func:`paucity.clustering.simulate` once and writes the labels and the error
curve; ``cluster-session`` runs the human loop in a database through
:func:`paucity.clustering.next_pairs` (the pairs to ask),
:func:`paucity.clustering.record_answers` (the answers, and the clustering)
and :func:`paucity.clustering.withdraw_asks` (asks that will never be answered).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._errors import ParameterError
from ._command import one_line_errors
from ._options import quiet

__all__ = ["cluster_active", "cluster_session"]

#: --strategy on the command line -> the library's name.
STRATEGIES = {"iu-red": "iu_red", "shamir-tishby": "shamir_tishby", "random": "random"}
_SHOWN_PAIRS = 20  # pairs printed before "... and N more"

_STRATEGY_HELP = "iu-red (the seed's IU-RED, Algorithm 1), shamir-tishby (S&T, Algorithm 2) or random."
_BUDGET_HELP = (
    "Measurements to make: an integer (e.g. 300), or a fraction of the n(n-1)/2 pairs (times --repeats) written "
    "with a decimal point (e.g. 0.2; 1.0 is every pair)."
)
_REPEATS_HELP = "The most measurements of one pair; above 1, uncertain pairs that matter are measured again (§2.5)."
_BATCH_HELP = "Pairs chosen per eigen-update (the best ones)."
_INTERLEAVE_HELP = "Alternate the strategy's pairs with random ones (the seed's interleave variants)."
_N_CLUSTERS_HELP = "Number of clusters; more than 2 by recursive bisection of the largest cluster."


def cluster_active(
    similarities: Path = typer.Argument(
        ...,
        help="A complete similarity matrix (.csv/.tsv/.txt/.parquet), values in [0, 1]: square, with the item names "
        "in the first column and the header, or long, one row per pair with columns i, j and value.",
        show_default=False,
    ),
    budget: str = typer.Option("0.1", "--budget", help=_BUDGET_HELP),
    strategy: str = typer.Option("iu-red", "--strategy", help=_STRATEGY_HELP),
    repeats: int = typer.Option(1, "--repeats", help=_REPEATS_HELP + " Useful with --concentration."),
    batch_size: int = typer.Option(1, "--batch-size", help=_BATCH_HELP + " 1 is the seed's algorithm exactly."),
    interleave: bool = typer.Option(False, "--interleave", help=_INTERLEAVE_HELP),
    n_clusters: int = typer.Option(2, "--n-clusters", help=_N_CLUSTERS_HELP),
    concentration: Optional[float] = typer.Option(
        None,
        "--concentration",
        help="Simulate a noisy crowd: answers drawn from Beta noise of this concentration around the true "
        "similarity (10 is a noisy crowd, 100 a careful one). Default: the true similarities.",
        show_default=False,
    ),
    adversarial: Optional[float] = typer.Option(
        None,
        "--adversarial",
        help="With --concentration: the probability that an answer is 1 - w (an adversarial worker). Default 0.",
        show_default=False,
    ),
    random_state: Optional[int] = typer.Option(None, "--random-state", help="Seed of the random choices and the noise."),
    i_column: Optional[str] = typer.Option(None, "--i-column", help="Long table: the first item's column (default i)."),
    j_column: Optional[str] = typer.Option(None, "--j-column", help="Long table: the second item's column (default j)."),
    value_column: Optional[str] = typer.Option(
        None, "--value-column", help="Long table: the similarity's column (default value)."
    ),
    history: Optional[Path] = typer.Option(
        None, "--history", help="Where to write the error curve (CSV). Default: beside --out, labels.history.csv for labels.csv."
    ),
    out: Path = typer.Option(
        Path("labels.csv"), "--out", "-o", help="Where to write item, label, reference and embedding (CSV)."
    ),
) -> None:
    """Simulate active spectral clustering on a complete similarity matrix, with its error curve.

    The matrix answers the queries (noisily with --concentration); the loop measures --budget similarities
    chosen by --strategy and clusters the items. Written to --out: one row per item with its label, its
    reference label (the clustering of the complete matrix) and embedding (v2 of the final estimate: its sign
    is the cluster, its size how far the item sits from the boundary). Written to --history: n_queries,
    fraction (of the pairs), n_components and error (the fraction of items misclustered against the
    reference) after every eigen-update. Nothing is written when the command fails.

    \b
    Examples:
      paucity cluster-active similarities.csv --budget 0.2 --strategy iu-red --random-state 0 --out labels.csv
      paucity cluster-active pairs.csv --budget 2000 --repeats 3 --concentration 10 --batch-size 20 --out labels.csv
    """
    from .. import io
    from ..clustering import read_similarities, simulate

    with one_line_errors():
        out = io.check_output_path(out, option="--out")
        history = io.check_output_path(history if history is not None else _beside(out), option="--history")
        if history.resolve() == out.resolve():
            raise ParameterError(f"--history and --out are both {out}; give two different files.")
        matrix = read_similarities(similarities, i_column=i_column, j_column=j_column, value_column=value_column)
        result = simulate(
            matrix,
            strategy=_strategy(strategy),
            budget=_budget(budget),
            repeats=repeats,
            batch_size=batch_size,
            interleave=interleave,
            n_clusters=n_clusters,
            concentration=concentration,
            adversarial=0.0 if adversarial is None else adversarial,
            random_state=random_state,
            progress=not quiet(),
        )
        io.write_csv(result.to_frame(), out, index=False)
        io.write_csv(result.history, history, index=False)
    if not quiet():
        summary = result.to_dict()
        typer.echo(
            f"{_spelled(result.strategy)} on {summary['n_items']} items: {result.n_queries} of {result.n_pairs} pairs "
            f"measured ({summary['fraction']:.1%}), error {result.error:.3f} against the complete matrix; labels "
            f"written to {out}, error curve to {history}"
        )


def cluster_session(
    database: str = typer.Argument(
        ...,
        help="The session's database: a file (SQLite, created when missing) or an SQLAlchemy URL "
        "(postgresql://user@host/name).",
        show_default=False,
    ),
    items: Optional[Path] = typer.Option(
        None,
        "--items",
        help="Starting a session: a table with a header row naming the items (first column, or --item-column).",
        show_default=False,
    ),
    item_column: Optional[str] = typer.Option(None, "--item-column", help="The column of --items holding the names."),
    answers: Optional[Path] = typer.Option(
        None,
        "--answers",
        help="Record answers: a table with the two items and the similarity in [0, 1] (the asks file with its value "
        "column filled); rows with an empty value are skipped.",
        show_default=False,
    ),
    withdraw: Optional[Path] = typer.Option(
        None,
        "--withdraw",
        help="Withdraw asks that will never be answered: a table with the two items of each (columns i, j, or as "
        "--i-column and --j-column say; an asks file is one). Each must wait for an answer, or nothing is withdrawn.",
        show_default=False,
    ),
    withdraw_all: bool = typer.Option(
        False, "--withdraw-all", help="Withdraw every ask that waits for an answer.", show_default=False
    ),
    i_column: Optional[str] = typer.Option(
        None, "--i-column", help="--answers or --withdraw: the first item's column (default i)."
    ),
    j_column: Optional[str] = typer.Option(
        None, "--j-column", help="--answers or --withdraw: the second item's column (default j)."
    ),
    value_column: Optional[str] = typer.Option(
        None, "--value-column", help="--answers: the similarity's column (default value)."
    ),
    batch_size: Optional[int] = typer.Option(
        None,
        "--batch-size",
        help="Asking: the pairs out at once; pairs asked and not answered are written again, and new ones make up "
        "the rest (default 20).",
        show_default=False,
    ),
    budget: Optional[str] = typer.Option(
        None, "--budget", help=_BUDGET_HELP + " Default 0.1 when a session starts; a larger one continues a session.",
        show_default=False,
    ),
    strategy: Optional[str] = typer.Option(
        None, "--strategy", help=_STRATEGY_HELP + " Default iu-red; fixed when the session starts.", show_default=False
    ),
    repeats: Optional[int] = typer.Option(
        None, "--repeats", help=_REPEATS_HELP + " Default 1; fixed when the session starts.", show_default=False
    ),
    interleave: Optional[bool] = typer.Option(
        None, "--interleave/--no-interleave", help=_INTERLEAVE_HELP + " Fixed when the session starts.",
        show_default=False,
    ),
    n_clusters: Optional[int] = typer.Option(
        None, "--n-clusters", help=_N_CLUSTERS_HELP + " Default 2; fixed when the session starts.", show_default=False
    ),
    random_state: Optional[int] = typer.Option(
        None, "--random-state", help="Seed of the random choices; fixed when the session starts.", show_default=False
    ),
    out: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        help="Asking: where to write the pairs to ask (i, j, and an empty value column; default asks.csv). With "
        "--answers: where to write the clustering (item, label, embedding; default clusters.csv).",
        show_default=False,
    ),
) -> None:
    """The human loop: write the next pairs to ask, and record the answers when they come.

    Without --answers, starts a session (with --items) or resumes one, and writes the pairs that wait for an
    answer: those asked before and not answered, then new ones chosen by the strategy, up to --batch-size.
    Asking again before any answer gives the same pairs. With --answers, records the answers (each must answer
    a pair that was asked; an answer recorded already is skipped, so a file may be read again) and writes the
    clustering of every answer so far. With --withdraw (a table of pairs) or --withdraw-all, takes back asks
    that will never be answered (an annotator left, a pair sent by mistake): they no longer wait for an answer
    nor count against the budget, and asking again may choose them again; only the database is written. The
    database keeps the items, the settings, every answer and the pairs asked: a command killed at any point is
    run again as it was. Nothing is written when the command fails.

    \b
    Examples:
      paucity cluster-session photos.db --items items.csv --budget 300 --batch-size 20 --out asks.csv
      paucity cluster-session photos.db --answers answers.csv --out clusters.csv
      paucity cluster-session photos.db --withdraw unanswered.csv
      paucity cluster-session photos.db --out asks.csv
    """
    from .. import io
    from ..clustering import next_pairs, read_answers, read_items, read_pairs, record_answers, withdraw_asks

    with one_line_errors():
        if withdraw is not None or withdraw_all:
            _refuse_when_withdrawing(
                withdraw_all, withdraw=withdraw, answers=answers, items=items, item_column=item_column, batch_size=batch_size,
                budget=budget, strategy=strategy, repeats=repeats, interleave=interleave, n_clusters=n_clusters,
                random_state=random_state, value_column=value_column, out=out,
                **({"i_column": i_column, "j_column": j_column} if withdraw_all else {}),
            )
            table = None if withdraw_all else read_pairs(withdraw, i_column=i_column or "i", j_column=j_column or "j")
            result = withdraw_asks(database, table)
        elif answers is not None:
            _refuse_when_recording(items=items, item_column=item_column, batch_size=batch_size, budget=budget,
                                   strategy=strategy, repeats=repeats, interleave=interleave, n_clusters=n_clusters,
                                   random_state=random_state)
            out = io.check_output_path(out if out is not None else Path("clusters.csv"), option="--out")
            table = read_answers(answers, i_column=i_column or "i", j_column=j_column or "j",
                                 value_column=value_column or "value")
            result = record_answers(database, table, source=answers.name)
            io.write_csv(result.to_frame(), out, index=False)
        else:
            for option, value in (("--i-column", i_column), ("--j-column", j_column), ("--value-column", value_column)):
                if value is not None:
                    where = "--answers" if option == "--value-column" else "--answers or --withdraw"
                    raise ParameterError(f"{option} names a column of {where}; give {where} too, or leave it out.")
            if item_column is not None and items is None:
                raise ParameterError("--item-column names the item column of --items; give --items too, or leave it out.")
            out = io.check_output_path(out if out is not None else Path("asks.csv"), option="--out")
            names = read_items(items, item_column=item_column) if items is not None else None
            result = next_pairs(
                database, names, strategy=None if strategy is None else _strategy(strategy),
                budget=None if budget is None else _budget(budget), repeats=repeats, batch_size=batch_size,
                interleave=interleave, n_clusters=n_clusters, random_state=random_state,
            )
            io.write_csv(result.to_frame(), out, index=False)
    if quiet():
        return
    if withdraw is not None or withdraw_all:
        _report_withdrawal(result, database)
    elif answers is not None:
        _report_answers(result, database, answers, out)
    else:
        _report_asks(result, database, out)


# -- options -------------------------------------------------------------------------------------------------------
def _strategy(text: str) -> str:
    key = text.strip().lower().replace("_", "-")
    if key not in STRATEGIES:
        raise ParameterError(f"--strategy must be iu-red, shamir-tishby or random, got {text!r}.")
    return STRATEGIES[key]


def _spelled(strategy: str) -> str:
    return strategy.replace("_", "-")


def _budget(text: str):
    """An integer budget (measurements), or a fraction written with a decimal point."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ParameterError(
            f"--budget must be a number of measurements (e.g. 300) or a fraction of the pairs (e.g. 0.2), got {text!r}."
        ) from None


def _beside(out: Path) -> Path:
    """labels.csv -> labels.history.csv (labels.tsv.gz -> labels.history.tsv.gz; labels -> labels.history.csv)."""
    name = out.name
    for ending in (".csv.gz", ".tsv.gz", ".txt.gz", ".csv", ".tsv", ".txt"):
        if name.lower().endswith(ending):
            return out.with_name(name[: -len(ending)] + ".history" + name[-len(ending):])
    return out.with_name(name + ".history.csv")


def _refuse_when_recording(**options) -> None:
    """Options of asking (or of starting a session) do not apply to --answers."""
    for name, value in options.items():
        if value is not None:
            option = "--" + name.replace("_", "-")
            raise ParameterError(
                f"{option} applies when asking for pairs (without --answers); record the answers first, then run "
                f"paucity cluster-session with {option} and without --answers."
            )


def _refuse_when_withdrawing(withdraw_all: bool, **options) -> None:
    """Withdrawing writes only the database: the options of asking, recording and --out do not apply."""
    chosen = "--withdraw-all" if withdraw_all else "--withdraw"
    if options.pop("withdraw") is not None and withdraw_all:
        raise ParameterError("--withdraw and --withdraw-all were both given; give --withdraw FILE for some asks, or "
                             "--withdraw-all for every one.")
    for name, value in options.items():
        if value is not None:
            option = "--" + name.replace("_", "-")
            if name in ("i_column", "j_column"):
                raise ParameterError(f"{option} names a column of --withdraw or --answers, and {chosen} reads no file; "
                                     "leave it out.")
            if name == "out":
                raise ParameterError(f"--out names a file to write, and {chosen} writes only to the database; leave it "
                                     "out, and ask again with --out to write the pairs that wait for an answer.")
            raise ParameterError(
                f"{option} does not apply to {chosen}; withdraw in a call of its own, then run paucity cluster-session "
                f"with {option} and without {chosen}."
            )


# -- what is printed -----------------------------------------------------------------------------------------------
def _report_asks(result, database: str, out: Path) -> None:
    settings = result.settings
    if result.created:
        typer.echo(
            f"{database}: started a session over {result.n_items} items ({_spelled(settings['strategy'])}, budget "
            f"{result.budget} measurements)"
        )
    if result.spent:
        typer.echo(
            f"{database}: the budget of {result.budget} measurements is spent ({result.n_measured} answers); no pairs "
            f"to ask (give a larger --budget to continue). Empty list written to {out}"
        )
        return
    waiting = len(result.pairs)
    typer.echo(
        f"{database}: {result.n_measured} of {result.budget} measurements made; {waiting} pairs to ask "
        f"({result.n_new} new, {waiting - result.n_new} asked before), written to {out}"
    )
    for i, j in zip(result.pairs["i"].iloc[:_SHOWN_PAIRS], result.pairs["j"].iloc[:_SHOWN_PAIRS]):
        typer.echo(f"  {i}\t{j}")
    if waiting > _SHOWN_PAIRS:
        typer.echo(f"  ... and {waiting - _SHOWN_PAIRS} more in {out}")


def _report_answers(result, database: str, answers: Path, out: Path) -> None:
    skipped = []
    if result.n_unanswered:
        skipped.append(f"{result.n_unanswered} rows without a value skipped")
    if result.n_read_before:
        skipped.append(f"{result.n_read_before} recorded before")
    detail = f" ({'; '.join(skipped)})" if skipped else ""
    sizes = ", ".join(f"{label}: {count} items" for label, count in result.cluster_sizes().items())
    typer.echo(
        f"{database}: {result.n_recorded} answers recorded from {answers.name}{detail}; {result.n_measured} of "
        f"{result.budget} measurements made, {result.n_pending} pairs wait for an answer"
    )
    typer.echo(f"clusters ({sizes}) written to {out}")


def _report_withdrawal(result, database: str) -> None:
    typer.echo(
        f"{database}: {result.n_withdrawn} ask{'' if result.n_withdrawn == 1 else 's'} withdrawn; "
        f"{result.n_pending} pairs wait for an answer, "
        f"{result.n_measured} of {result.budget} measurements made (ask again to send pairs out in their place)"
    )
    pairs = result.withdrawn
    for i, j in zip(pairs["i"].iloc[:_SHOWN_PAIRS], pairs["j"].iloc[:_SHOWN_PAIRS]):
        typer.echo(f"  {i}\t{j}")
    if len(pairs) > _SHOWN_PAIRS:
        typer.echo(f"  ... and {len(pairs) - _SHOWN_PAIRS} more")
