"""What every JSON API of the pages shares: reading a request's body, and errors as one-line JSON."""

from __future__ import annotations

import json

from .._errors import ParameterError, PaucityError

__all__ = ["read_body", "required", "error_handlers", "MAX_BODY_BYTES"]

#: The largest request body accepted.
MAX_BODY_BYTES = 64 * 1024


async def read_body(request, *fields: str) -> dict:
    """The request's JSON object, with no field other than ``fields`` (each optional); ``{}`` for an empty body."""
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
