"""The access token of a server reachable from other machines: one random token per run, checked on every request."""

from __future__ import annotations

import ipaddress
import json
import secrets

__all__ = ["TokenGuard", "new_token", "is_loopback", "TOKEN_HEADER", "TOKEN_COOKIE", "TOKEN_QUERY"]

#: The request header that may carry the token (scripts).
TOKEN_HEADER = "x-paucity-token"
#: The cookie the server sets when a page is opened with ``?token=...`` (images and styles then need nothing more).
TOKEN_COOKIE = "paucity_token"
#: The query parameter that may carry the token (the printed URL).
TOKEN_QUERY = "token"


def new_token() -> str:
    """A fresh random token (128 bits, URL-safe).

    Examples
    --------
    >>> from paucity.serve.access import new_token
    >>> len(new_token()) >= 22 and new_token() != new_token()
    True
    """
    return secrets.token_urlsafe(16)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (127.0.0.0/8, ::1 or ``localhost``).

    Examples
    --------
    >>> from paucity.serve.access import is_loopback
    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class TokenGuard:
    """ASGI middleware that refuses, with 401, every request that does not carry ``token``.

    The token may come as the ``X-Paucity-Token`` header, the ``token``
    query parameter or the ``paucity_token`` cookie; a request that brings it
    in the query parameter gets the cookie back (HttpOnly, SameSite=Strict),
    so the page's images and scripts load without it. With ``token=None``
    every request passes.
    """

    def __init__(self, app, token: str | None):
        self.app = app
        self.token = token

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or self.token is None:
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request

        request = Request(scope)
        from_query = request.query_params.get(TOKEN_QUERY)
        given = request.headers.get(TOKEN_HEADER) or from_query or request.cookies.get(TOKEN_COOKIE)
        if not given or not secrets.compare_digest(given.encode(), self.token.encode()):
            body = json.dumps(
                {
                    "error": "this server needs its access token: open the URL it printed (with ?token=...), "
                    "or send the token in the X-Paucity-Token header."
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        if from_query is None:
            await self.app(scope, receive, send)
            return
        cookie = f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
