"""``paucity serve``: the pages where a person, not a script, makes the decision."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .._errors import ParameterError
from ._command import PaucityCommand, PaucityGroup, one_line_errors
from ._options import quiet
from ._loop_settings import ITEM_COLUMN, ITEMS, loop_settings, open_or_explain

__all__ = ["serve"]

serve = typer.Typer(
    cls=PaucityGroup,
    help="Serve a page in the browser: the marker explorer (paucity serve markers) or the annotation page of a "
    "clustering session (paucity serve annotate).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_HOST_HELP = (
    "Address to listen on. The default, 127.0.0.1, is this machine only (every user of a shared machine reaches "
    "it); any other, e.g. 0.0.0.0, a lab network. Every address needs the random access token printed with the URL."
)


def _require_web() -> None:
    """Refuse at once, before reading any data, when the web extra is not installed."""
    from .._extras import require

    require("starlette", "paucity serve")
    require("uvicorn", "paucity serve")


def serve_markers(
    input: Path = typer.Argument(..., help="An .h5ad file; the exported selection is written back into it.", show_default=False),
    groupby: str = typer.Option(..., "--groupby", help="Column of obs holding the cell groups.", show_default=False),
    layer: Optional[str] = typer.Option(None, "--layer", help="Read expression from this layer of the .h5ad."),
    use_raw: Optional[bool] = typer.Option(
        None, "--use-raw/--no-use-raw", help="Read adata.raw (default: when present and no --layer).", show_default=False
    ),
    method: str = typer.Option("cife", "--method", help="The first objective: cife, jmi, mim, mrmr, mifs, entropy, entropy2."),
    n_bins: int = typer.Option(5, "--n-bins", help="Bins of the recursive-quantile discretization (2 to 255)."),
    prefilter: int = typer.Option(5000, "--prefilter", help="Bivariate objectives score this many top-relevance genes."),
    key: str = typer.Option(
        "paucity_markers", "--key",
        help="The key of adata.uns the selection is taken up from when the file holds one, and saved under.",
    ),
    host: str = typer.Option("127.0.0.1", "--host", help=_HOST_HELP),
    port: int = typer.Option(0, "--port", help="Port to listen on; 0 picks a free one."),
) -> None:
    """Explore marker genes in the browser: watch the greedy search, overrule it, export the selection.

    The page shows the current selection, the genes the search would add next with their scores, and per gene
    its expression by group, the cells of the embedding in obsm coloured by it, and the score history. A file
    that holds a selection under --key (saved from this page, or by paucity markers / paucity.markers.select)
    opens with it. Save writes the selection to adata.uns[KEY] in the .h5ad (the previous file is kept as
    <file>.h5ad.bak), and asks before it replaces a different selection saved there; the page also downloads
    it as CSV. The JSON API beneath the page is described in docs/web.md.

    \b
    Examples:
      paucity serve markers pbmc.h5ad --groupby cell_type
      paucity serve markers pbmc.h5ad --groupby cell_type --host 0.0.0.0 --port 8050
    """
    with one_line_errors(spelling=True):
        _require_web()
        from .. import io
        from .._errors import ParameterError
        from ..markers.explorer import MarkerExplorer
        from ..serve.access import is_loopback, new_token
        from ..serve.markers import markers_app
        from ..serve.server import bind, serve as run, url_of

        if not str(input).lower().endswith(".h5ad"):
            raise ParameterError(f"{input} is not an .h5ad file; the explorer reads and writes back an .h5ad.")
        sock = bind(host, port)  # a busy port fails before the data is read
        adata = None
        try:
            adata = io.read(input, backed=True)  # the expression is copied into the explorer's columns once
            explorer = MarkerExplorer(
                adata, groupby, layer=layer, use_raw=use_raw, method=method, n_bins=n_bins, prefilter=prefilter,
                path=input, key_added=key,
            )
            token = new_token()  # on this machine too: a shared machine's users all reach 127.0.0.1
            app = markers_app(explorer, token=token, local_only=is_loopback(host))
        except BaseException:
            sock.close()
            raise
        finally:
            if adata is not None and adata.isbacked:
                adata.file.close()  # a save replaces the file: an open handle would keep the old one's blocks
    typer.echo(f"paucity marker explorer: {url_of(sock, host, token)}")
    restored = explorer.restored
    if restored is not None and not quiet():
        if restored["restored"]:
            typer.echo(f"Took up the {restored['n_genes']} gene(s) saved under uns[{key!r}]"
                       + (f" ({restored['reason']})." if restored["reason"] else "."))
        else:
            typer.echo(f"The selection saved under uns[{key!r}] was not taken up: {restored['reason']}.")
    if not quiet():
        typer.echo("Every request needs the token above, on this machine too (open the URL as printed, or send the "
                   "X-Paucity-Token header).")
    if not quiet():
        typer.echo("Ctrl-C stops the server.")
    run(app, sock)


serve.command("markers", cls=PaucityCommand)(serve_markers)


@loop_settings("session")
def serve_annotate(
    database: str = typer.Argument(
        ...,
        help="The session's database: an SQLite file (created when missing), or a PostgreSQL URL "
        "(postgresql://user@host/name, with pip install 'paucity\\[postgres]').",
        show_default=False,
    ),
    items: Optional[Path] = ITEMS,
    item_column: Optional[str] = ITEM_COLUMN,
    media: Optional[Path] = typer.Option(
        None, "--media", help="The folder of the images; only the images the items table names are served.", show_default=False
    ),
    invite: Optional[list[str]] = typer.Option(
        None,
        "--invite",
        help="Give these annotators personal links (repeat the option, or list several names after it); each link "
        "is printed once. Once anyone is invited, every annotator needs a link. The coordinator invites more, "
        "pauses and revokes from the coordinator's page.",
        show_default=False,
    ),
    instructions: Optional[Path] = typer.Option(
        None, "--instructions", help="What annotators read first and on demand: a Markdown or text file.",
        show_default=False,
    ),
    examples: Optional[Path] = typer.Option(
        None, "--examples", help="Example pairs shown with the instructions: a table with columns i, j, answer (0 to "
        "9) and optionally note.", show_default=False,
    ),
    gold: Optional[Path] = typer.Option(
        None, "--gold", help="Gold pairs, whose answer is known: a table with columns i, j and answer (0 to 9) or "
        "value (0 to 1). Mixed into each annotator's queue; their answers measure accuracy and never enter the "
        "clustering.", show_default=False,
    ),
    gold_rate: float = typer.Option(0.1, "--gold-rate", help="The share of gold pairs in each annotator's queue."),
    host: str = typer.Option("127.0.0.1", "--host", help=_HOST_HELP),
    port: int = typer.Option(0, "--port", help="Port to listen on; 0 picks a free one."),
    settings: dict = None,
) -> None:
    """Collect similarity answers from people in the browser, for a clustering session.

    Annotators open their link, read the instructions, and answer one pair at a time with the keys 0 (not
    similar at all) to 9 (the same), or skip with s. Each answer is stored in the session's database, with
    the annotator and the time, before the next pair is shown; a pair goes to one annotator at a time. The
    session's active learner (IU-RED by default) chooses the pairs. The coordinator's view, at /coordinator,
    shows the answers so far, their cost at --price each, each annotator's accuracy on gold pairs and agreement
    with the others, and the current clusters; it invites, pauses and revokes annotators and exports the
    answers. On this machine (127.0.0.1) with nobody invited, the annotation page is open to every user of this
    machine and annotators type their name; the coordinator's view always needs the coordinator's link.
    The server can be stopped at any time and started again with the same command: the session goes on, and
    `paucity cluster-session` commands may work on the same session meanwhile.

    \b
    Examples:
      paucity serve annotate photos.db --items items.csv --media photos/ --budget 300 --price 0.05
      paucity serve annotate photos.db --host 0.0.0.0 --port 8051 --invite alice bob --gold gold.csv
    """
    with one_line_errors(spelling=True):
        _require_web()
        from .. import io
        from ..clustering import AnnotationSession
        from ..serve.access import is_loopback, new_token
        from ..serve.annotate import annotate_app
        from ..serve.server import bind, serve as run, url_of

        given = settings
        if item_column is not None and items is None:
            from .._errors import ParameterError

            raise ParameterError("--item-column names the item column of --items; give --items too, or leave it out.")
        names = _names(invite) if invite else []  # checked before anything is started
        text = None if instructions is None else _read_text(instructions, "--instructions")
        from ..clustering.tables import ExamplePairs, GoldPairs

        example_table = None if examples is None else ExamplePairs.from_frame(
            io.read_frame(examples, text_columns=["i", "j", "note"]), what=str(examples))
        gold_table = None if gold is None else GoldPairs.from_frame(io.read_frame(gold, text_columns=["i", "j"]),
                                                                   what=str(gold))
        table = None
        if items is None:  # a session that does not exist: say so before listening
            open_or_explain(database, **given).close()
        else:
            table = io.read_frame(items, text_columns=[item_column if item_column else 0, "text", "image"])
        sock = bind(host, port)
        try:
            session = AnnotationSession(database, table, item_column=item_column, media=media, instructions=text,
                                        examples=example_table, gold=gold_table, gold_rate=gold_rate, **given)
            links = session.invite(names) if names else {}
            token = new_token()
            local = is_loopback(host)
            app = annotate_app(session, token=token, local_only=local, open_when_uninvited=local)
        except BaseException:
            sock.close()
            raise
    base = url_of(sock, host)
    if local and not session.invited:
        typer.echo(f"paucity annotation page: {base} (open to every user of this machine: annotators type their "
                   "name; invite them for personal links)")
    else:
        typer.echo(f"paucity annotation page: {base} (each annotator opens their own link)")
    typer.echo(f"coordinator: {base}coordinator?token={token}")
    for name, value in links.items():
        if value is None:
            typer.echo(f"  {name}: invited before; their link still works (a new one from the coordinator's page)")
        else:
            typer.echo(f"  {name}: {base}?token={value}")
    if not quiet():
        typer.echo("Keep the links to yourself: each one lets its holder in. Ctrl-C stops the server; starting it "
                   "again with the same database goes on with the session.")
    run(app, sock)


def _names(values: list[str]) -> list[str]:
    """--invite alice --invite bob, --invite alice bob, or --invite alice,bob: each name checked by the session's
    one rule (a name may hold spaces; an empty one, or one with a newline, is refused), a name given twice once.

    Examples
    --------
    >>> _names(["alice,bob", "Mary Ann", "alice"])
    ['alice', 'bob', 'Mary Ann']
    """
    from ..clustering.session.rules import check_annotator

    names = []
    for value in values:
        for name in value.split(","):
            if not name.strip():
                raise ParameterError(f"--invite {value!r} names nobody; give each annotator's name (1 to 100 "
                                     "characters), several separated by commas or given one after another.")
            names.append(check_annotator(name))
    return list(dict.fromkeys(names))


def _read_text(path: Path, option: str) -> str:
    from .._errors import ReaderError
    from ..io.formats import existing_file

    if path.is_dir():
        raise ParameterError(f"{option} {path} is a folder; {option} reads a Markdown or text file.")
    try:
        return existing_file(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ReaderError(f"{path} is not UTF-8 text; {option} reads a Markdown or text file.") from None


serve.command("annotate", cls=PaucityCommand)(serve_annotate)
