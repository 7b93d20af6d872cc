"""What every page's application shares: security headers, bounded bodies, access, and errors as one-line JSON.

- Every response carries a Content-Security-Policy that lets the page load
  only its own scripts, styles and images and refuses to be framed
  (``frame-ancestors 'none'``, and ``X-Frame-Options: DENY`` for older
  browsers), ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy:
  no-referrer`` (a link with a token in it is never sent on).
- A request body larger than :data:`MAX_BODY_BYTES` is refused with 413 from
  its ``Content-Length``, or as soon as its streamed bytes pass the limit:
  never read whole.
- State changes only by POST, with a JSON body (a browser sends that type
  across sites only after asking the server, which says no).
"""

from __future__ import annotations

import json

from .._errors import KeyReusedError, ParameterError, PaucityError

__all__ = ["read_body", "required", "error_handlers", "json_app", "SecurityHeaders", "BodyLimit", "LOCAL_HOSTS",
           "MAX_BODY_BYTES", "SECURITY_HEADERS"]

#: The largest request body accepted.
MAX_BODY_BYTES = 64 * 1024
#: The headers every response carries.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


class BodyTooLarge(Exception):
    """A request body over the limit (answered with 413)."""


async def read_body(request, *fields: str) -> dict:
    """The request's JSON object, with no field other than ``fields`` (each optional); ``{}`` for an empty body.

    The request must say ``Content-Type: application/json``, even with an
    empty body: a browser sends that type across sites only after asking the
    server (which says no), so another web site open in the same browser
    cannot post to a page served on this machine. The body is read in
    pieces and refused (413) past :data:`MAX_BODY_BYTES`.
    """
    from starlette.exceptions import HTTPException

    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(415, f"send the request body as JSON with Content-Type: application/json (got {kind or 'none'!r}).")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise HTTPException(413, f"the request body is larger than the {MAX_BODY_BYTES} bytes accepted.")
        chunks.append(chunk)
    raw = b"".join(chunks)
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


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every response (errors and refusals included)."""

    def __init__(self, app):
        self.app = app
        self.headers = [(name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message):
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in self.headers if name not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """ASGI middleware refusing, with 413, a body whose ``Content-Length`` is over the limit, before reading it;
    a body without one (chunked) is cut off by :func:`read_body` as it streams."""

    def __init__(self, app, limit: int = MAX_BODY_BYTES):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            length = dict(scope.get("headers", [])).get(b"content-length")
            too_large = False
            if length is not None:
                try:
                    too_large = int(length) > self.limit
                except ValueError:
                    too_large = True
            if too_large:
                body = json.dumps({"error": f"the request body is larger than the {self.limit} bytes accepted."})
                data = body.encode()
                await send({"type": "http.response.start", "status": 413,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(data)).encode()), (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": data})
                return
        await self.app(scope, receive, send)


def error_handlers() -> dict:
    """Starlette exception handlers: paucity's errors as 400 (409 for a request key used by another request), HTTP
    errors (404, 405) as JSON ``{"error": ...}``."""
    from starlette.exceptions import HTTPException
    from starlette.responses import JSONResponse

    async def paucity_error(request, exc: Exception):
        status = 409 if isinstance(exc, KeyReusedError) else 400  # a key reused: the request conflicts with another
        return JSONResponse({"error": str(exc).splitlines()[0]}, status_code=status)

    async def http_error(request, exc: HTTPException):
        detail = exc.detail
        if exc.status_code == 404 and detail in (None, "Not Found"):
            detail = f"no such page: {request.url.path}"
        if exc.status_code == 405 and detail in (None, "Method Not Allowed"):
            detail = f"{request.method} is not allowed on {request.url.path}"
        return JSONResponse({"error": str(detail)}, status_code=exc.status_code, headers=exc.headers)

    return {PaucityError: paucity_error, HTTPException: http_error}


def json_app(routes, *, static, access, local_only: bool, **state):
    """The Starlette app of a page: ``routes``, the files of ``static`` under ``/static``, paucity's JSON errors
    (:func:`error_handlers`), who may come in (:class:`~paucity.serve.access.AccessGuard` with ``access``), the
    Host check with ``local_only`` (a defence against DNS rebinding: a web page whose own host name was made to
    resolve to 127.0.0.1 still sends its own name, and is refused with 400), bounded bodies and the security
    headers; ``state`` is set on ``app.state``."""
    from starlette.applications import Starlette
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    from .access import AccessGuard

    routes = [*routes, Mount("/static", StaticFiles(directory=static), name="static")]
    app = Starlette(routes=routes, exception_handlers=error_handlers())
    for name, value in state.items():
        setattr(app.state, name, value)
    app.add_middleware(AccessGuard, access=access)
    if local_only:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(LOCAL_HOSTS))
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders)  # the last added runs first: every response carries the headers
    return app
