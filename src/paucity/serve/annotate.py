"""The annotation page's ASGI application: one pair at a time for annotators, a view for the coordinator."""

from __future__ import annotations

from .._errors import ParameterError
from .annotation import AnnotationSession
from .json_api import json_app, read_body, required
from .markers import STATIC

__all__ = ["annotate_app"]


def annotate_app(session: AnnotationSession, *, token: str | None = None, local_only: bool = False) -> Starlette:
    """The annotation page, the coordinator's view and their JSON API, as an ASGI application.

    Parameters
    ----------
    session : AnnotationSession
    token : str, optional
        When given, every request must carry it (see :class:`paucity.serve.access.TokenGuard`).
    local_only : bool, default=False
        Answer only requests addressed to 127.0.0.1, localhost or ::1 by name (DNS rebinding).

    Returns
    -------
    starlette.applications.Starlette

    Notes
    -----
    Routes (``docs/web.md``): ``/`` the annotators' page, ``/coordinator``,
    ``GET /api/next?annotator=...``, ``POST /api/answer``, ``POST /api/skip``,
    ``POST /api/release``, ``GET /api/progress`` and ``/media/<file>`` (only the images the items
    table names). Bad requests get 400 with ``{"error": "..."}``.
    """
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Route


    async def page(request: Request):
        return FileResponse(STATIC / "annotate.html", media_type="text/html")

    async def coordinator(request: Request):
        return FileResponse(STATIC / "coordinator.html", media_type="text/html")

    async def next_pair(request: Request):
        annotator = request.query_params.get("annotator")
        if annotator is None:
            raise ParameterError("the request needs the query parameter annotator, e.g. ?annotator=alice.")
        return JSONResponse(await run_in_threadpool(session.next_pair, annotator))

    async def answer(request: Request):
        body = await read_body(request, "annotator", "i", "j", "value")
        fields = [required(body, name) for name in ("annotator", "i", "j", "value")]
        return JSONResponse(await run_in_threadpool(session.answer, *fields))

    async def skip(request: Request):
        body = await read_body(request, "annotator", "i", "j")
        fields = [required(body, name) for name in ("annotator", "i", "j")]
        return JSONResponse(await run_in_threadpool(session.skip, *fields))

    async def release(request: Request):
        body = await read_body(request, "annotator")
        await run_in_threadpool(session.release, required(body, "annotator"))
        return JSONResponse({"released": True})

    async def progress(request: Request):
        return JSONResponse(await run_in_threadpool(session.progress))

    async def media(request: Request):
        path = session.media_path(request.path_params["name"])
        if path is None or not path.is_file():
            raise HTTPException(404, "no such image: only the images named in the items table are served.")
        return FileResponse(path, headers={"cache-control": "private, max-age=3600"})

    routes = [
        Route("/", page),
        Route("/coordinator", coordinator),
        Route("/api/next", next_pair),
        Route("/api/answer", answer, methods=["POST"]),
        Route("/api/skip", skip, methods=["POST"]),
        Route("/api/release", release, methods=["POST"]),
        Route("/api/progress", progress),
        Route("/media/{name:path}", media),
    ]
    return json_app(routes, static=STATIC, token=token, local_only=local_only, session=session)
