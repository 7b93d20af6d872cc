"""``paucity serve``: the pages where a person, not a script, makes the decision."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ._command import PaucityCommand, one_line_errors
from ._options import quiet

__all__ = ["serve"]

serve = typer.Typer(
    help="Serve a page in the browser: the marker explorer (paucity serve markers).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_HOST_HELP = (
    "Address to listen on. The default, 127.0.0.1, is this machine only; any other (e.g. 0.0.0.0 for a lab "
    "network) needs the random access token printed with the URL on every request."
)


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
    host: str = typer.Option("127.0.0.1", "--host", help=_HOST_HELP),
    port: int = typer.Option(0, "--port", help="Port to listen on; 0 picks a free one."),
) -> None:
    """Explore marker genes in the browser: watch the greedy search, overrule it, export the selection.

    The page shows the current selection, the genes the search would add next with their scores, and per gene
    its expression by group, the cells of the embedding in obsm coloured by it, and the score history. Export
    writes the selection to adata.uns["paucity_markers"] in the .h5ad (the previous file is kept as
    <file>.h5ad.bak) or downloads it as CSV. The JSON API beneath the page is described in docs/web.md.

    \b
    Examples:
      paucity serve markers pbmc.h5ad --groupby cell_type
      paucity serve markers pbmc.h5ad --groupby cell_type --host 0.0.0.0 --port 8050
    """
    with one_line_errors():
        from .. import io
        from .._errors import ParameterError
        from ..web import MarkerExplorer
        from ..web.access import is_loopback, new_token
        from ..web.markers import markers_app
        from ..web.server import bind, serve as run, url_of

        if not str(input).lower().endswith(".h5ad"):
            raise ParameterError(f"{input} is not an .h5ad file; the explorer reads and writes back an .h5ad.")
        sock = bind(host, port)  # a busy port fails before the data is read
        try:
            adata = io.read(input)
            explorer = MarkerExplorer(
                adata, groupby, layer=layer, use_raw=use_raw, method=method, n_bins=n_bins, prefilter=prefilter, path=input
            )
            token = None if is_loopback(host) else new_token()
            app = markers_app(explorer, token=token)
        except BaseException:
            sock.close()
            raise
    typer.echo(f"paucity marker explorer: {url_of(sock, host, token)}")
    if token is not None and not quiet():
        typer.echo("Every request needs the token above (open the URL as printed, or send the X-Paucity-Token header).")
    if not quiet():
        typer.echo("Ctrl-C stops the server.")
    run(app, sock)


serve.command("markers", cls=PaucityCommand)(serve_markers)
