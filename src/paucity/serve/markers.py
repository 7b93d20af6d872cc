"""The marker explorer's ASGI application: the page and the JSON API beneath it (Starlette)."""

from __future__ import annotations

import json
import numbers
from pathlib import Path

from .._errors import ParameterError
from .._validation import Interval, check_parameter
from .access import Access
from ..markers.explorer import MarkerExplorer, SelectionConflict
from .json_api import json_app, read_body, required
from .plots import MAX_POINTS, box_svg, embedding_svg, history_svg, stratified_sample

__all__ = ["markers_app", "MAX_CANDIDATES", "STATIC"]

#: The folder of the pages' HTML, script and style files.
STATIC = Path(__file__).parent / "static"
#: The most candidates one request may ask for.
MAX_CANDIDATES = 500


def markers_app(explorer: MarkerExplorer, *, token: str | None = None, local_only: bool = False) -> Starlette:
    """The marker explorer page and its JSON API, as an ASGI application.

    Parameters
    ----------
    explorer : MarkerExplorer
        The state the page shows and changes.
    token : str, optional
        When given, every request must carry it (see
        :class:`paucity.serve.access.AccessGuard`); ``paucity serve`` sets one
        whenever the server listens beyond the loopback interface.
    local_only : bool, default=False
        Answer only requests addressed to 127.0.0.1, localhost or ::1 by name
        (``paucity serve`` sets it on the loopback interface): a defence
        against DNS rebinding.

    Returns
    -------
    starlette.applications.Starlette

    Notes
    -----
    The routes are listed in ``docs/web.md``. Bad requests get a JSON
    ``{"error": "..."}`` with status 400 (404 for a path that does not
    exist, 401 without the token) and leave the state as it was.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd
    >>> import warnings
    >>> with warnings.catch_warnings():      # Starlette 1.x prefers httpx2 for its test client
    ...     warnings.simplefilter("ignore")
    ...     from starlette.testclient import TestClient
    >>> from paucity.serve import MarkerExplorer, markers_app
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.choice(["B", "T"], size=200)
    >>> X = rng.poisson(1.0, size=(200, 3)).astype(np.float32)
    >>> X[:, 1] += 4 * (groups == "T")
    >>> adata = anndata.AnnData(X, obs=pd.DataFrame({"cell_type": groups}, index=[f"c{i}" for i in range(200)]),
    ...                         var=pd.DataFrame(index=["CD3E", "CD3D", "LYZ"]))
    >>> client = TestClient(markers_app(MarkerExplorer(adata, "cell_type")))
    >>> client.post("/api/add", json={"gene": "CD3D"}).json()["state"]["selection"][0]["gene"]
    'CD3D'
    >>> client.post("/api/add", json={"gene": "CD99"}).status_code
    400
    """
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Route


    async def run(function, *args):
        return await run_in_threadpool(function, *args)

    def state_response(result=None) -> JSONResponse:
        return JSONResponse({"result": result, "state": explorer.state()})

    async def page(request: Request):
        return FileResponse(STATIC / "markers.html", media_type="text/html")

    async def state(request: Request):
        n = request.query_params.get("n", "20")
        if not n.isdigit():
            raise ParameterError(f"n must be a whole number of candidates from 1 to {MAX_CANDIDATES}, got {n!r}.")
        n = check_parameter(int(n), "n", [Interval(numbers.Integral, 1, MAX_CANDIDATES)])
        return JSONResponse(await run(explorer.state, n))

    async def genes(request: Request):
        query = request.query_params.get("q", "")
        return JSONResponse({"genes": await run(explorer.find, query, 20)})

    async def add(request: Request):
        body = await read_body(request, "gene")
        score = await run(explorer.add, required(body, "gene"))
        return await run(state_response, {"score": score})

    async def remove(request: Request):
        body = await read_body(request, "gene")
        await run(explorer.remove, required(body, "gene"))
        return await run(state_response)

    async def reorder(request: Request):
        body = await read_body(request, "genes")
        await run(explorer.reorder, required(body, "genes"))
        return await run(state_response)

    async def undo(request: Request):
        await read_body(request)
        await run(explorer.undo)
        return await run(state_response)

    async def objective(request: Request):
        body = await read_body(request, "method", "target")
        await run(explorer.set_objective, required(body, "method"), body.get("target"))
        return await run(state_response)

    async def take(request: Request):
        body = await read_body(request, "k")
        k = required(body, "k")
        if not isinstance(k, int) or isinstance(k, bool):
            raise ParameterError(f"k must be a whole number of genes to add (e.g. 3), got {json.dumps(k)[:40]}.")
        taken = await run(explorer.take, k)
        return await run(state_response, {"taken": taken})

    async def export_csv(request: Request):
        from .. import io

        table = await run(explorer.to_frame)
        return Response(
            io.csv_text(table, index=False),  # a gene named =HYPERLINK(...) is not run by a spreadsheet
            media_type="text/csv",
            headers={"content-disposition": 'attachment; filename="markers.csv"'},
        )

    async def export_h5ad(request: Request):
        body = await read_body(request, "key", "overwrite")
        overwrite = body.get("overwrite", False)
        if not isinstance(overwrite, bool):
            raise ParameterError(f"overwrite must be true or false, got {json.dumps(overwrite)[:40]}.")
        try:
            saved = await run(lambda: explorer.export_h5ad(body.get("key"), overwrite=overwrite))
        except SelectionConflict as conflict:  # the page asks: overwrite, or save under the suggested key
            return JSONResponse(
                {"error": str(conflict), "key": conflict.key, "suggested_key": conflict.suggested_key},
                status_code=409,
            )
        return JSONResponse({"result": saved, "state": await run(explorer.state)})

    async def cross_validation(request: Request):
        answer = await run(explorer.cross_validated_error)
        return JSONResponse({**answer, "classifier": "nearest centroid"})

    async def explain(request: Request):
        return JSONResponse(await run(explorer.explain, gene_of(request)))

    async def version(request: Request):
        return JSONResponse({"version": explorer.version})

    def gene_of(request: Request) -> str:
        gene = request.query_params.get("gene")
        if gene is None:
            raise ParameterError("the request needs the query parameter gene, e.g. ?gene=LYZ.")
        return gene

    def svg(text: str) -> Response:
        return Response(text, media_type="image/svg+xml", headers={"cache-control": "no-store"})

    async def box(request: Request):
        gene = gene_of(request)
        values = await run(explorer.expression, gene)
        return svg(box_svg(values, explorer.codes, explorer.groups, gene))

    drawn = {}  # the cells the embedding draws: the same for every gene, chosen once

    def embedding_picture(gene: str) -> str:
        values = explorer.expression(gene)
        found = explorer.embedding()
        if found is None:
            raise HTTPException(404, "adata.obsm has no X_umap, X_tsne or X_pca to draw the cells on.")
        key, coordinates = found
        if "cells" not in drawn:  # every group keeps its share of the points: a rare group's cells are all drawn
            drawn["cells"] = stratified_sample(explorer.codes, MAX_POINTS)
        return embedding_svg(coordinates, values, gene, key, codes=explorer.codes, sample=drawn["cells"])

    async def embedding(request: Request):
        return svg(await run(embedding_picture, gene_of(request)))

    async def history(request: Request):
        return svg(history_svg(await run(explorer.history)))

    routes = [
        Route("/", page),
        Route("/api/state", state),
        Route("/api/genes", genes),
        Route("/api/add", add, methods=["POST"]),
        Route("/api/remove", remove, methods=["POST"]),
        Route("/api/reorder", reorder, methods=["POST"]),
        Route("/api/undo", undo, methods=["POST"]),
        Route("/api/objective", objective, methods=["POST"]),
        Route("/api/take", take, methods=["POST"]),
        Route("/api/export.csv", export_csv),
        Route("/api/export/h5ad", export_h5ad, methods=["POST"]),
        Route("/api/cv", cross_validation),
        Route("/api/explain", explain),
        Route("/api/version", version),
        Route("/api/plot/box.svg", box),
        Route("/api/plot/embedding.svg", embedding),
        Route("/api/plot/history.svg", history),
    ]
    return json_app(routes, static=STATIC, access=Access(token), local_only=local_only, explorer=explorer)
