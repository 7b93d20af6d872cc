"""What every JSON API of the pages shares: reading a request's body, and errors as one-line JSON."""

from __future__ import annotations

import json

from .._errors import ParameterError, PaucityError

__all__ = ["read_body", "required", "error_handlers", "guard", "json_app", "LOCAL_HOSTS", "MAX_BODY_BYTES"]

#: The largest request body accepted.
MAX_BODY_BYTES = 64 * 1024


async def read_body(request, *fields: str) -> dict:
    """The request's JSON object, with no field other than ``fields`` (each optional); ``{}`` for an empty body.

    The request must say ``Content-Type: application/json``, even with an
    empty body: a browser sends that type across sites only after asking the
    server (which says no), so another web site open in the same browser
    cannot post to a page served on this machine.
    """
    from starlette.exceptions import HTTPException

    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(415, f"send the request body as JSON with Content-Type: application/json (got {kind or 'none'!r}).")
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise ParameterError(f"the request body has {len(raw)} bytes, more than the {MAX_BODY_BYTES} accepted.")
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ParameterError(f"the request body is not valid JSON ({message}); send a JSON object.") from None
    if not isinstance(body, dict):
        raise ParameterError(f"the request body must be a JSON object (with {', '.join(fields) or 'no fields'}), got {type(body).__name__}.")
    unknown = sorted(set(body) - set(fields))
    if unknown:
        allowed = ", ".join(fields) or "none"
        shown = ", ".join(repr(name[:40]) for name in unknown[:5])
        raise ParameterError(f"unknown field(s) {shown} in the request (allowed: {allowed}).")
    return body


def required(body: dict, field: str):
    """``body[field]``, or a 400 saying the field is needed."""
    if field not in body:
        raise ParameterError(f"the request needs the field {field!r}.")
    return body[field]


#: The host names a server on the loopback interface answers to with ``local_only``.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def guard(app, *, token: str | None, local_only: bool) -> None:
    """Add the access checks to ``app``: the token on every request, and with ``local_only`` the Host header.

    ``local_only`` answers only requests addressed to this machine by name (a
    defence against DNS rebinding: a web page whose own host name was made to
    resolve to 127.0.0.1 still sends its own name, and is refused with 400).
    """
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from .access import TokenGuard

    app.add_middleware(TokenGuard, token=token)
    if local_only:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(LOCAL_HOSTS))


def error_handlers() -> dict:
    """Starlette exception handlers: paucity's errors as 400, HTTP errors (404, 405) as JSON ``{"error": ...}``."""
    from starlette.exceptions import HTTPException
    from starlette.responses import JSONResponse

    async def paucity_error(request, exc: Exception):
        return JSONResponse({"error": str(exc).splitlines()[0]}, status_code=400)

    async def http_error(request, exc: HTTPException):
        detail = exc.detail
        if exc.status_code == 404 and detail in (None, "Not Found"):
            detail = f"no such page: {request.url.path}"
        return JSONResponse({"error": str(detail)}, status_code=exc.status_code)

    return {PaucityError: paucity_error, HTTPException: http_error}


def json_app(routes, *, static, token: str | None, local_only: bool, **state):
    """The Starlette app of a page: ``routes``, the files of ``static`` under ``/static``, paucity's JSON
    errors (:func:`error_handlers`), the access checks (:func:`guard`), and ``state`` set on ``app.state``."""
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    routes = [*routes, Mount("/static", StaticFiles(directory=static), name="static")]
    app = Starlette(routes=routes, exception_handlers=error_handlers())
    for name, value in state.items():
        setattr(app.state, name, value)
    guard(app, token=token, local_only=local_only)
    return app
