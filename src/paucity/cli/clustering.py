"""``paucity cluster-active`` and ``paucity cluster-session``: active spectral clustering from files.

``cluster-active`` reads a complete similarity matrix, calls
:func:`paucity.clustering.simulate` once and writes the labels and the error
curve. ``cluster-session`` runs the human loop in a database, one subcommand
per verb of :class:`paucity.clustering.ClusteringSession`: ``start`` (a new
session, and its first pairs), ``ask`` (the pairs for one annotator),
``answer`` (their answers, and the clustering), ``withdraw`` (asks that will
never be answered), ``status``, ``extend`` (a larger budget) and ``change``
(the rules a coordinator may change: a quota, the automatic pause). The old
spelling, ``paucity cluster-session DB --items/--answers/--withdraw ...``, is
rewritten to the subcommands with a warning.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from .._errors import ParameterError
from ..clustering.settings import setting
from ._command import PaucityCommand, PaucityGroup, one_line_usage, one_line_errors
from ._options import quiet
from ._loop_settings import ITEM_COLUMN, ITEMS, loop_settings, open_or_explain

__all__ = ["cluster_active", "cluster_session"]

_SHOWN_PAIRS = 20  # pairs printed before "... and N more"


@loop_settings("estimator")
def cluster_active(
    similarities: Path = typer.Argument(
        ...,
        help="A complete similarity matrix (.csv/.tsv/.txt/.parquet), values in [0, 1]: square, with the item names "
        "in the first column and the header, or long, one row per pair with columns i, j and value.",
        show_default=False,
    ),
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
    settings: dict = None,
) -> None:
    """Simulate active spectral clustering on a complete similarity matrix, with its error curve.

    The matrix answers the queries (noisily with --concentration); the loop measures --budget similarities
    chosen by --strategy and clusters the items. Written to --out: one row per item with its label, its
    reference label (the clustering of the complete matrix) and embedding (v2 of the final estimate: its sign
    is the cluster, its size how far the item sits from the boundary). Written to --history: n_queries,
    fraction (of the pairs), n_components and error (the fraction of items misclustered against the
    reference) after every eigen-update. --random-state also seeds the noise of --concentration, and
    --repeats above 1 is useful with it. Nothing is written when the command fails.

    \b
    Examples:
      paucity cluster-active similarities.csv --budget 0.2 --strategy iu-red --random-state 0 --out labels.csv
      paucity cluster-active pairs.csv --budget 2000 --repeats 3 --concentration 10 --batch-size 20 --out labels.csv
    """
    from .. import io
    from ..clustering import read_similarities, simulate

    with one_line_errors(spelling=True):
        reads = {"the SIMILARITIES file": similarities}
        out = io.check_output_path(out, option="--out", inputs=reads)
        history = io.check_output_path(history if history is not None else _beside(out), option="--history",
                                       inputs=reads)
        if history.resolve() == out.resolve():
            raise ParameterError(f"--history and --out are both {out}; give two different files.")
        matrix = read_similarities(similarities, i_column=i_column, j_column=j_column, value_column=value_column)
        result = simulate(
            matrix,
            concentration=concentration,
            adversarial=0.0 if adversarial is None else adversarial,
            progress=not quiet(),
            **settings,
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



def _beside(out: Path) -> Path:
    """labels.csv -> labels.history.csv (labels.tsv.gz -> labels.history.tsv.gz; labels -> labels.history.csv)."""
    name = out.name
    for ending in (".csv.gz", ".tsv.gz", ".txt.gz", ".csv", ".tsv", ".txt"):
        if name.lower().endswith(ending):
            return out.with_name(name[: -len(ending)] + ".history" + name[-len(ending):])
    return out.with_name(name + ".history.csv")


# -- cluster-session: one subcommand per verb ----------------------------------------------------------------------
class _SessionGroup(PaucityGroup):
    """The ``cluster-session`` subcommands, which also take the old spelling (the database first) with a warning."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        with one_line_usage("cluster-session"):
            args = list(args)
            if args and not args[0].startswith("-") and args[0] not in self.commands:
                args = _from_old_spelling(args)
            return super().parse_args(ctx, args)


cluster_session = typer.Typer(
    cls=_SessionGroup,
    help="The human loop of active clustering in a database: start a session, ask pairs for an annotator, record "
    "answers, withdraw asks, see where it stands. Any number of people and processes may work on one session at "
    "once (an SQLite file, or a PostgreSQL URL for a team).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_DATABASE = typer.Argument(
    ...,
    help="The session's database: an SQLite file, or a PostgreSQL URL (postgresql://user@host/name, with "
    "pip install 'paucity\\[postgres]').",
    show_default=False,
)
_ANNOTATOR = typer.Option(
    None,
    "--annotator",
    help="Who the pairs go to (default: the name of the --out file). Asking again for the same annotator gives the "
    "pairs they hold, then new ones; another annotator gets other pairs.",
    show_default=False,
)
_ASKS_OUT = typer.Option(
    Path("asks.csv"), "--out", "-o", help="Where to write the pairs to ask: i, j and an empty value column."
)


@cluster_session.command("start", cls=PaucityCommand)
@loop_settings("session")
def session_start(
    database: str = _DATABASE,
    items: Optional[Path] = ITEMS,
    item_column: Optional[str] = ITEM_COLUMN,
    annotator: Optional[str] = _ANNOTATOR,
    n: Optional[int] = typer.Option(
        None, "-n", "--n-pairs", help="Pairs for this annotator (default: --batch-size).", show_default=False
    ),
    out: Path = _ASKS_OUT,
    settings: dict = None,
) -> None:
    """Start a session over the items of --items, and write its first pairs to ask.

    The database keeps the items, the settings (fixed from now on), every answer and the pairs asked, so later
    commands need only the database. On a database that holds a session already, the items and settings
    given must be the session's: the command then asks, as ask does (two people starting one session at once
    both get it, started once, and pairs of their own). Nothing is written when the command fails.

    \b
    Examples:
      paucity cluster-session start photos.db --items items.csv --budget 300 --batch-size 20 --random-state 0
      paucity cluster-session start postgresql://lab@db/photos --items items.csv --budget 0.1 --out alice.csv
    """
    from .. import io
    from ..clustering import ClusteringSession, read_items
    from ..clustering.session.rules import check_annotator

    with one_line_errors(spelling=True):
        out = io.check_output_path(out, option="--out", inputs={"--items": items})
        if item_column is not None and items is None:
            raise ParameterError("--item-column names the item column of --items; give --items too, or leave it out.")
        who = check_annotator(_annotator(annotator, out))  # every input checked before the database is touched
        _check_n(n)
        if items is not None:
            names = read_items(items, item_column=item_column)
            session = ClusteringSession.create(database, names, exist_ok=True, **settings)
        else:
            session = open_or_explain(database, **settings)
        with session:
            result = session.ask(n, annotator=who)
            io.write_csv(result.to_frame(), out, index=False)
    if not quiet():
        if session.created:
            typer.echo(
                f"{database}: started a session over {result.n_items} items ({_spelled(result.settings.strategy)}, "
                f"budget {result.budget} measurements)"
            )
        _report_asks(result, database, out)


@cluster_session.command("ask", cls=PaucityCommand)
def session_ask(
    database: str = _DATABASE,
    annotator: Optional[str] = _ANNOTATOR,
    n: Optional[int] = typer.Option(
        None, "-n", "--n-pairs", help="Pairs for this annotator (default: the session's batch size).",
        show_default=False,
    ),
    out: Path = _ASKS_OUT,
) -> None:
    """Write the pairs for one annotator to answer: those they hold, then waiting ones, then new ones.

    Asking again for the same annotator before they answer writes the same pairs (a command killed before the
    file was written loses nothing). New pairs are chosen by one eigen-update while fewer than the session's
    batch size wait for an answer; when every waiting pair is with someone else, the list is empty and the
    command says so (ask again once answers come in). When the budget is spent the list is empty too.

    \b
    Examples:
      paucity cluster-session ask photos.db --out asks.csv
      paucity cluster-session ask photos.db --annotator bob -n 10 --out bob.csv
    """
    from .. import io
    from ..clustering import ClusteringSession

    with one_line_errors(spelling=True):
        out = io.check_output_path(out, option="--out")
        with ClusteringSession.open(database) as session:
            result = session.ask(n, annotator=_annotator(annotator, out))
            io.write_csv(result.to_frame(), out, index=False)
    if not quiet():
        _report_asks(result, database, out)


@cluster_session.command("answer", cls=PaucityCommand)
def session_answer(
    database: str = _DATABASE,
    answers: Path = typer.Argument(
        ...,
        help="The answers: a table with the two items and the similarity in [0, 1] (the asks file with its value "
        "column filled); rows with an empty (or NA) value are skipped.",
        show_default=False,
    ),
    i_column: Optional[str] = typer.Option(None, "--i-column", help="The first item's column (default i)."),
    j_column: Optional[str] = typer.Option(None, "--j-column", help="The second item's column (default j)."),
    value_column: Optional[str] = typer.Option(None, "--value-column", help="The similarity's column (default value)."),
    annotator: Optional[str] = typer.Option(
        None, "--annotator", help="Who answered: each pair must be one they hold (or one nobody holds that they "
        "neither answered nor skipped). Default: each answer is credited to the annotator who held its pair.",
        show_default=False,
    ),
    out: Path = typer.Option(
        Path("clusters.csv"), "--out", "-o", help="Where to write the clustering: item, label, embedding."
    ),
) -> None:
    """Record answers, and write the clustering of every answer so far.

    Each answer must be to a pair that waits for one; an answer recorded already (same pair, same value) is
    skipped, so a file may be read again, or again after more of it is filled in. An answer belongs to the
    annotator who held its pair (or to --annotator), never to the file's name. The answers of one command
    are recorded in one transaction: all or none.

    \b
    Examples:
      paucity cluster-session answer photos.db answers.csv --out clusters.csv
    """
    from .. import io
    from ..clustering import ClusteringSession, read_answers

    with one_line_errors(spelling=True):
        out = io.check_output_path(out, option="--out", inputs={"the ANSWERS file": answers})
        table = read_answers(answers, i_column=i_column or "i", j_column=j_column or "j",
                             value_column=value_column or "value")
        with ClusteringSession.open(database) as session:
            result = session.record(table, annotator=annotator)
        io.write_csv(result.to_frame(), out, index=False)
    if not quiet():
        _report_answers(result, database, answers, out)


@cluster_session.command("withdraw", cls=PaucityCommand)
def session_withdraw(
    database: str = _DATABASE,
    pairs: Optional[Path] = typer.Argument(
        None,
        help="The asks to withdraw: a table with the two items of each (columns i, j, or as --i-column and "
        "--j-column say; an asks file is one). Each must wait for an answer, or nothing is withdrawn.",
        show_default=False,
    ),
    every: bool = typer.Option(False, "--all", help="Withdraw every ask that waits for an answer.", show_default=False),
    annotator: Optional[str] = typer.Option(
        None, "--annotator", help="Withdraw every ask this annotator holds (they left).", show_default=False
    ),
    i_column: Optional[str] = typer.Option(None, "--i-column", help="The first item's column (default i)."),
    j_column: Optional[str] = typer.Option(None, "--j-column", help="The second item's column (default j)."),
) -> None:
    """Withdraw asks that will never be answered: the pairs of a file, an annotator's, or --all.

    Withdrawn pairs no longer wait for an answer nor count against the budget, an answer to one is refused,
    and asking again may send them out again. Only the database is written.

    \b
    Examples:
      paucity cluster-session withdraw photos.db unanswered.csv
      paucity cluster-session withdraw photos.db --annotator bob
      paucity cluster-session withdraw photos.db --all
    """
    from ..clustering import ClusteringSession, read_pairs

    with one_line_errors(spelling=True):
        chosen = [name for name, given in (("PAIRS", pairs is not None), ("--all", every),
                                             ("--annotator", annotator is not None)) if given]
        if len(chosen) != 1:
            raise ParameterError(
                "say which asks to withdraw: a PAIRS file, --all or --annotator NAME" if not chosen
                else f"{' and '.join(chosen)} were both given; give one of a PAIRS file, --all or --annotator NAME."
            )
        if pairs is None and (i_column is not None or j_column is not None):
            option = "--i-column" if i_column is not None else "--j-column"
            raise ParameterError(f"{option} names a column of the PAIRS file, and {chosen[0]} reads no file; leave it out.")
        table = None if pairs is None else read_pairs(pairs, i_column=i_column or "i", j_column=j_column or "j")
        with ClusteringSession.open(database) as session:
            result = session.withdraw(table, annotator=annotator)
    if not quiet():
        _report_withdrawal(result, database)


@cluster_session.command("status", cls=PaucityCommand)
def session_status(
    database: str = _DATABASE,
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Also write the clustering so far: item, label, embedding (.csv, or .json).",
        show_default=False,
    ),
    answers: Optional[Path] = typer.Option(
        None, "--answers", help="Also write every answer, gold answers marked: i, j, value, annotator, time (ISO "
        "8601, UTC), gold, gold_value, excluded, adjudicated (.csv, or .json).", show_default=False,
    ),
    payments: Optional[Path] = typer.Option(
        None, "--payments", help="Also write what to pay each annotator: answers counted, gold, excluded, paid, "
        "cost at the session's price, last seen (ISO 8601, UTC) and time on task in seconds (.csv, or .json).",
        show_default=False,
    ),
) -> None:
    """Say where a session stands: answers, pairs waiting and with whom, budget left, cost, clusters so far.

    \b
    Examples:
      paucity cluster-session status photos.db
      paucity cluster-session status photos.db --out clusters.csv --answers answers.json
      paucity cluster-session status photos.db --payments pay.csv
    """
    from .. import io
    from ..clustering import ClusteringSession

    with one_line_errors(spelling=True):
        from ..clustering.session.review import iso_times

        targets = [(path, option) for path, option in ((out, "--out"), (answers, "--answers"), (payments, "--payments"))
                   if path is not None]
        for path, option in targets:
            io.check_output_path(path, option=option, suffixes=(".csv", ".json"))
        for k, (path, option) in enumerate(targets):
            for other, other_option in targets[k + 1:]:
                if path.resolve() == other.resolve():
                    raise ParameterError(f"{option} and {other_option} are both {path}; give two different files.")
        with ClusteringSession.open(database) as session:
            status = session.status()
            table = iso_times(session.export()) if answers is not None else None
            pay = iso_times(session.payments(), ("last_seen",)) if payments is not None else None
            n_gold = len(session.gold_answers())
        if out is not None:
            _write_table(status.to_frame(), out)
        if answers is not None:
            _write_table(table, answers)
        if payments is not None:
            _write_table(pay, payments)
    if quiet():
        return
    settings = status.settings
    typer.echo(
        f"{database}: {status.n_items} items, {_spelled(settings.strategy)}, batches of {settings.batch_size}"
        f"{'' if settings.cut == 'sign' else f', {settings.cut} cut'}; "
        f"{status.n_measured} of {status.budget} measurements made, {status.n_pending} pairs wait for an answer "
        f"({status.n_out} with an annotator now), {status.budget_left} left to ask"
    )
    if settings.price:
        typer.echo(f"cost: {status.cost:g} ({status.n_measured} answers at {settings.price:g})")
    if n_gold:
        typer.echo(f"gold answers: {n_gold} (not measurements)")
    for row in status.annotators.itertuples():
        name = row.annotator if row.annotator else "(no name)"
        typer.echo(f"  {name}\t{row.n_answers} answers\t{row.n_holding} waiting")
    sizes = ", ".join(f"{label}: {count} items" for label, count in status.clusters.cluster_sizes().items())
    written = [str(path) for path in (out, answers, payments) if path is not None]
    typer.echo(f"clusters so far: {sizes}" + (f"; written to {' and '.join(written)}" if written else ""))


def _write_table(table, path: Path) -> None:
    """A table as CSV (formula cells neutralized), or as JSON records for a .json path."""
    from .. import io

    if path.suffix.lower() == ".json":
        io.write_text(table.to_json(orient="records", indent=1), path)
    else:
        io.write_csv(table, path, index=False)


@cluster_session.command("extend", cls=PaucityCommand)
def session_extend(
    database: str = _DATABASE,
    budget: str = typer.Option(..., "--budget", help=setting("budget").help + " Larger than the session's.",
                               show_default=False),
) -> None:
    """Raise a session's budget (a finished session continues); the only setting that changes after the start.

    \b
    Examples:
      paucity cluster-session extend photos.db --budget 400
    """
    from ..clustering import ClusteringSession

    with one_line_errors(spelling=True):
        with ClusteringSession.open(database) as session:
            before = session.budget
            wanted = setting("budget").read(budget)
            if setting("budget").same(wanted, session.settings.budget) or wanted == before:
                raise ParameterError(f"--budget {budget} is the session's budget already ({before} measurements); "
                                     "give a larger one.")
            session.extend(wanted)
    if not quiet():
        typer.echo(f"{database}: the budget is {session.budget} measurements (was {before})")


@cluster_session.command("change", cls=PaucityCommand)
@loop_settings("change")
def session_change(database: str = _DATABASE, settings: dict = None) -> None:
    """Change the rules a coordinator may change after a session starts: the quota of answers per annotator,
    the automatic pause on gold accuracy, feedback on gold answers (and the budget, only raised).

    Every process of the session (the annotation page included) follows the change with its next request.

    \b
    Examples:
      paucity cluster-session change photos.db --quota 200 --pause-below 0.7 --pause-after 5
      paucity cluster-session change photos.db --quota none --no-gold-feedback
    """
    from ..clustering import ClusteringSession

    with one_line_errors(spelling=True):
        if not settings:
            raise ParameterError("say what to change: --quota, --pause-below, --pause-after, --gold-feedback or "
                                 "--budget (see paucity cluster-session change --help).")
        with ClusteringSession.open(database) as session:
            session.change(**settings)
            now = session.settings
    if not quiet():
        shown = ", ".join(f"{name} {getattr(now, name)!r}" for name in settings)
        typer.echo(f"{database}: {shown}")


def _check_n(n) -> None:
    if n is not None and n < 1:
        raise ParameterError(f"-n must be an integer >= 1 (the pairs for this annotator), got {n}.")


def _annotator(annotator: str | None, out: Path) -> str:
    """--annotator, or the name of the --out file."""
    return annotator if annotator is not None else out.name


# -- the old spelling ------------------------------------------------------------------------------------------------
_VALUED = {"--items", "--item-column", "--answers", "--withdraw", "--i-column", "--j-column", "--value-column",
           "--batch-size", "--budget", "--strategy", "--repeats", "--n-clusters", "--random-state", "--out", "-o"}
_SETTINGS = {"--strategy", "--budget", "--repeats", "--n-clusters", "--random-state", "--interleave",
             "--no-interleave"}


def _from_old_spelling(args: list[str]) -> list[str]:
    """``cluster-session DB --answers F ...`` -> ``cluster-session answer DB F ...`` (and so on), with a warning."""
    database, rest = args[0], args[1:]
    options: list[tuple[str, str | None]] = []
    k = 0
    while k < len(rest):
        name, equals, value = rest[k].partition("=")
        if name in _VALUED and not equals:
            value = rest[k + 1] if k + 1 < len(rest) else ""
            k += 1
        options.append((name, value if (equals or name in _VALUED) else None))
        k += 1
    names = [name for name, _ in options]

    def passed(skip=(), renamed=None):
        out = []
        for name, value in options:
            if name in skip:
                continue
            name = (renamed or {}).get(name, name)
            out += [name] if value is None else [name, value]
        return out

    if "--withdraw" in names or "--withdraw-all" in names:
        file = [value for name, value in options if name == "--withdraw"]
        new = ["withdraw", database, *file[:1], *passed(skip={"--withdraw"}, renamed={"--withdraw-all": "--all"})]
        old = "--withdraw FILE / --withdraw-all"
    elif "--answers" in names:
        file = [value for name, value in options if name == "--answers"]
        new = ["answer", database, *file[:1], *passed(skip={"--answers"})]
        old = "--answers FILE"
    elif "--items" in names or _SETTINGS & set(names):
        new = ["start", database, *passed()]
        old = "--items FILE"
    else:
        new = ["ask", database, *passed(renamed={"--batch-size": "-n"})]
        old = "without --answers"
    print(f"warning: paucity cluster-session DB {old} is the old spelling and will be removed; use paucity "
          f"cluster-session {new[0]} {database} ...", file=sys.stderr)
    return new


# -- what is printed -------------------------------------------------------------------------------------------------
def _spelled(strategy: str) -> str:
    return strategy.replace("_", "-")


def _report_asks(result, database: str, out: Path) -> None:
    if result.spent:
        typer.echo(
            f"{database}: the budget of {result.budget} measurements is spent ({result.n_measured} answers); no pairs "
            f"to ask (paucity cluster-session extend raises it). Empty list written to {out}"
        )
        return
    waiting = len(result.pairs)
    if waiting == 0:
        typer.echo(
            f"{database}: no pair for {result.annotator}: the {result.n_elsewhere} pairs that wait for an answer are "
            f"with other annotators (at most {result.settings.batch_size} wait at once, and the budget counts them); "
            f"ask again once answers come in, or withdraw asks that will not be answered. Empty list written to {out}"
        )
        return
    typer.echo(
        f"{database}: {result.n_measured} of {result.budget} measurements made; {waiting} pairs to ask for "
        f"{result.annotator} ({result.n_new} new, {waiting - result.n_new} asked before), written to {out}"
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
