"""The annotation page's ASGI application: one pair at a time for annotators, a view for the coordinator."""

from __future__ import annotations

import json

from .._errors import ParameterError
from ..clustering.settings import settings_for
from .access import COORDINATOR_NEEDS_TOKEN, Access, notice_page, role_of
from ..clustering.annotation import AnnotationSession
from ..clustering.session.rules import check_annotator
from .json_api import json_app, read_body, required
from .markers import STATIC

__all__ = ["annotate_app", "EXPORTS", "CHANGEABLE"]

#: The tables the coordinator downloads, each as CSV or JSON.
EXPORTS = ("answers", "clusters", "payments", "disagreements")
#: The settings the coordinator's page may change (``POST /api/settings``).
CHANGEABLE = tuple(s.name for s in settings_for("change"))


def annotate_app(session: AnnotationSession, *, token: str | None = None, local_only: bool = False,
                 open_when_uninvited: bool | None = None) -> Starlette:
    """The annotation page, the coordinator's view and their JSON API, as an ASGI application.

    Parameters
    ----------
    session : AnnotationSession
    token : str, optional
        The coordinator's token: the coordinator's view and its API need it
        on every address, this machine's included (a shared machine's users
        all reach 127.0.0.1); without one they are closed. Annotators come in
        with their own (:meth:`~paucity.clustering.ClusteringSession.invite`).
    local_only : bool, default=False
        Answer only requests addressed to 127.0.0.1, localhost or ::1 by name (DNS rebinding).
    open_when_uninvited : bool, optional
        Let annotators' requests without a token in while no annotator is
        invited: the page on this machine only, each annotator saying their
        own name (the coordinator's routes still need the coordinator's
        token). By default, when ``local_only`` is set or no token is given.

    Returns
    -------
    starlette.applications.Starlette

    Notes
    -----
    Routes (``docs/web.md``): ``/`` the annotators' page, ``/coordinator``,
    ``GET /api/me``, ``POST /api/next``, ``POST /api/answer``, ``POST /api/skip``,
    ``POST /api/release``; the coordinator's ``GET /api/progress``,
    ``GET /api/export/{answers,clusters,payments,disagreements}.{csv,json}``,
    ``GET /api/disagreements``, ``POST /api/adjudicate``, ``POST /api/settings``,
    ``POST /api/annotators/invite`` and ``POST /api/annotators/{action}``; and
    ``/media/<file>`` (only the images the items table names). Bad requests
    get 400 with ``{"error": "..."}`` (409 for a request key another request
    used); an annotator on the coordinator's routes gets 403, a request
    without the coordinator's token 401 (a page in the browser says how to
    get in). An annotator's identity comes from their token: a request naming
    someone else is refused.
    """
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Route

    from .. import io

    if open_when_uninvited is None:
        open_when_uninvited = local_only or token is None
    access = Access(token, annotator=session.identify,
                    is_open=lambda: open_when_uninvited and not session.invited)

    def coordinator_only(request: Request) -> None:
        kind = role_of(request).kind
        if kind == "annotator":
            raise HTTPException(403, "this is the coordinator's; an annotator's link opens the annotation page only.")
        if kind != "coordinator":  # an open page lets annotators in by name, never the coordinator
            raise HTTPException(401, COORDINATOR_NEEDS_TOKEN)

    def annotator_of(request: Request, named) -> str:
        """Who answers: the token's annotator (a request naming someone else is refused), or the name given."""
        role = role_of(request)
        if role.kind == "annotator":
            if named is not None and named != role.name:
                raise HTTPException(403, f"this link is {role.name!r}'s; it cannot answer as {str(named)[:40]!r}.")
            return role.name
        if role.kind == "coordinator":
            raise HTTPException(403, "the coordinator's link answers nothing; open an annotator's link.")
        if named is None:
            raise ParameterError("the request needs the field 'annotator' (your name), e.g. {\"annotator\": \"alice\"}.")
        return check_annotator(named)

    async def run(function, *args):
        return await run_in_threadpool(function, *args)

    async def page(request: Request):
        return FileResponse(STATIC / "annotate.html", media_type="text/html")

    async def coordinator(request: Request):
        if role_of(request).kind != "coordinator":
            status, text = (403, "This is the coordinator's page; your link opens the annotation page.") \
                if role_of(request).kind == "annotator" else (401, COORDINATOR_NEEDS_TOKEN)
            return notice_page("The coordinator's page", text, status=status)
        return FileResponse(STATIC / "coordinator.html", media_type="text/html")

    async def me(request: Request):
        role = role_of(request)
        if role.kind == "coordinator":
            return JSONResponse({"annotator": None, "role": "coordinator", "open": False})
        named = request.query_params.get("annotator")
        if role.kind == "open" and named is None:
            return JSONResponse({"annotator": None, "role": "open", "open": True})
        answer = await run(session.me, annotator_of(request, named))
        return JSONResponse({**answer, "role": role.kind, "open": role.kind == "open"})

    async def next_pair(request: Request):
        body = await read_body(request, "annotator")
        return JSONResponse(await run(session.next_pair, annotator_of(request, body.get("annotator"))))

    async def answer(request: Request):
        body = await read_body(request, "annotator", "i", "j", "value", "key")
        who = annotator_of(request, body.get("annotator"))
        fields = [required(body, name) for name in ("i", "j", "value")]
        return JSONResponse(await run(session.answer, who, *fields, body.get("key")))

    async def skip(request: Request):
        body = await read_body(request, "annotator", "i", "j", "key")
        who = annotator_of(request, body.get("annotator"))
        fields = [required(body, name) for name in ("i", "j")]
        return JSONResponse(await run(session.skip, who, *fields, body.get("key")))

    async def release(request: Request):
        body = await read_body(request, "annotator")
        await run(session.release, annotator_of(request, body.get("annotator")))
        return JSONResponse({"released": True})

    async def progress(request: Request):
        coordinator_only(request)
        return JSONResponse(await run(session.progress))

    async def export(request: Request):
        coordinator_only(request)
        what, kind = request.path_params["what"], request.path_params["kind"]
        if what not in EXPORTS or kind not in ("csv", "json"):
            raise HTTPException(404, f"no such export: {what}.{kind} ({', '.join(EXPORTS)}, as csv or json).")
        table = await run(session.export, what)
        disposition = {"content-disposition": f'attachment; filename="{what}.{kind}"'}
        if kind == "csv":
            return Response(io.csv_text(table, index=False), media_type="text/csv", headers=disposition)
        records = json.loads(table.to_json(orient="records"))
        return JSONResponse(records, headers=disposition)

    async def invite(request: Request):
        coordinator_only(request)
        body = await read_body(request, "names")
        tokens = await run(session.invite, required(body, "names"))
        return JSONResponse({"links": {name: None if value is None else _link(request, value)
                                       for name, value in tokens.items()}})

    async def manage(request: Request):
        coordinator_only(request)
        body = await read_body(request, "annotator")
        result = await run(session.manage, request.path_params["action"], required(body, "annotator"))
        return JSONResponse({"done": True, "link": _link(request, result) if isinstance(result, str) else None})

    async def disagreements(request: Request):
        coordinator_only(request)
        query = request.query_params
        try:
            least = int(query.get("min_annotators", "2"))
        except ValueError:
            raise ParameterError(f"min_annotators must be a whole number, got {query.get('min_annotators')!r}.") from None
        return JSONResponse(await run(lambda: session.disagreements(sort=query.get("sort", "spread"),
                                                                     min_annotators=least)))

    async def adjudicate(request: Request):
        coordinator_only(request)
        body = await read_body(request, "i", "j", "value")
        fields = [required(body, name) for name in ("i", "j", "value")]
        return JSONResponse({"done": True, **(await run(session.adjudicate, *fields))})

    async def settings(request: Request):
        coordinator_only(request)
        body = await read_body(request, *CHANGEABLE)
        return JSONResponse({"settings": await run(session.change, body)})

    async def media(request: Request):
        path = session.media_path(request.path_params["name"])
        if path is None or not path.is_file():
            raise HTTPException(404, "no such image: only the images named in the items table are served.")
        return FileResponse(path, headers={"cache-control": "private, max-age=3600"})

    routes = [
        Route("/", page),
        Route("/coordinator", coordinator),
        Route("/api/me", me),
        Route("/api/next", next_pair, methods=["POST"]),
        Route("/api/answer", answer, methods=["POST"]),
        Route("/api/skip", skip, methods=["POST"]),
        Route("/api/release", release, methods=["POST"]),
        Route("/api/progress", progress),
        Route("/api/disagreements", disagreements),
        Route("/api/adjudicate", adjudicate, methods=["POST"]),
        Route("/api/settings", settings, methods=["POST"]),
        Route("/api/export/{what}.{kind}", export),
        Route("/api/annotators/invite", invite, methods=["POST"]),
        Route("/api/annotators/{action}", manage, methods=["POST"]),
        Route("/media/{name:path}", media),
    ]
    return json_app(routes, static=STATIC, access=access, local_only=local_only, session=session)


def _link(request, token: str) -> str:
    """An annotator's personal link on this server."""
    return f"{str(request.base_url).rstrip('/')}/?token={token}"
