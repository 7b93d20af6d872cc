"""Who may use a page: the coordinator's token, each annotator's own token, or an open page on this machine.

Every address needs a token, this machine's (127.0.0.1) included: on a shared
machine, a cluster's login node say, every user reaches 127.0.0.1. The marker
explorer has one, printed with its URL. The annotation page has two kinds:
the coordinator's (printed with the coordinator's URL, new each run), which
every coordinator route needs, and one per annotator (their personal link: a
token whose SHA-256 hash is kept in the session's database, so that revoking
it takes effect at once). On the loopback interface, with no annotator
invited, the annotators' routes are open to whoever uses this machine, each
typing a name; the coordinator's are not. A browser that opens a page without
its token, or with a revoked link, gets a page that says so and whom to ask.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable
from dataclasses import dataclass

from .._tokens import new_token, same_token

__all__ = ["Access", "Role", "AccessGuard", "role_of", "new_token", "is_loopback", "notice_page", "TOKEN_HEADER",
           "TOKEN_COOKIE", "TOKEN_QUERY", "ROLE_KEY", "COORDINATOR_NEEDS_TOKEN", "REVOKED", "NEEDS_TOKEN"]

#: The request header that may carry the token (scripts).
TOKEN_HEADER = "x-paucity-token"
#: The cookie the server sets when a page is opened with ``?token=...`` (images and styles then need nothing more).
TOKEN_COOKIE = "paucity_token"
#: The query parameter that may carry the token (the printed URL).
TOKEN_QUERY = "token"
#: Where the request's :class:`Role` is kept in the ASGI scope's state.
ROLE_KEY = "paucity_role"
#: What a request without the coordinator's token is told on a coordinator's route.
COORDINATOR_NEEDS_TOKEN = ("the coordinator's page and its data need the coordinator's token, on this machine too: "
                           "open the coordinator's link printed when the server started (.../coordinator?token=...).")
#: What an annotator whose link was revoked is told.
REVOKED = ("this link was revoked by the coordinator of this session; ask the coordinator, who sent you the link, "
           "for a new one.")
#: What a request without a token is told where one is needed.
NEEDS_TOKEN = ("this server needs an access token: open the link you were given (with ?token=...), or send the token "
               "in the X-Paucity-Token header.")


def notice_page(title: str, text: str, *, status: int):
    """A small HTML page that says why a page cannot be shown (a browser's request without its token, or with a
    revoked link); ``text`` is shown as text. It loads nothing (its reader may not be let in to the style)."""
    import html

    from starlette.responses import HTMLResponse

    title, text = html.escape(title, quote=False), html.escape(text[:1].upper() + text[1:], quote=False)
    body = ('<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>{title}</title></head><body><main>'
            f'<h1>{title}</h1><p id="notice">{text}</p></main></body></html>')
    return HTMLResponse(body, status_code=status)


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


@dataclass(frozen=True)
class Role:
    """Who a request comes from: ``kind`` is ``"coordinator"``, ``"annotator"`` (``name``, ``state``: active or
    paused) or ``"open"`` (an open server: anyone on this machine, who says their own name)."""

    kind: str
    name: str | None = None
    state: str | None = None


class Access:
    """Which token gives which role.

    Parameters
    ----------
    coordinator_token : str, optional
        The coordinator's token (the marker explorer's only token).
    annotator : callable, optional
        ``annotator(token)`` gives ``(name, state)`` for an annotator's token, None for any other.
    is_open : callable, optional
        ``is_open()`` says whether requests without a token are let in (an open server); by default, when
        there is no coordinator token.

    Examples
    --------
    >>> access = Access("c0ord", annotator=lambda t: ("ann", "active") if t == "ann-t" else None,
    ...                 is_open=lambda: False)
    >>> access.role("c0ord").kind, access.role("ann-t").name, access.role("guess"), access.role(None)
    ('coordinator', 'ann', None, None)
    """

    def __init__(self, coordinator_token: str | None = None, *, annotator: Callable | None = None,
                 is_open: Callable[[], bool] | None = None):
        self.coordinator_token = coordinator_token
        self._annotator = annotator
        self._is_open = is_open if is_open is not None else (lambda: coordinator_token is None)

    def role(self, token: str | None) -> Role | None:
        """The role of a request that carries ``token`` (None: none), or None when it may not come in.

        A revoked annotator's token gives a role of state ``"revoked"``, which the guard refuses."""
        if token:
            if self.coordinator_token is not None and same_token(token, self.coordinator_token):
                return Role("coordinator")
            if self._annotator is not None:
                found = self._annotator(token)
                if found is not None:
                    return Role("annotator", found[0], found[1])
        if self._is_open():
            return Role("open")
        return None


class AccessGuard:
    """ASGI middleware: each request's :class:`Role` in ``scope["state"][ROLE_KEY]``, or 401.

    The token may come as the ``X-Paucity-Token`` header, the ``token`` query parameter or the
    ``paucity_token`` cookie; a request that brings it in the query parameter gets the cookie back (HttpOnly,
    SameSite=Strict), so the page's images and scripts load without it. A revoked annotator's token is refused
    with a message saying so.
    """

    def __init__(self, app, access: Access):
        self.app = app
        self.access = access

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.concurrency import run_in_threadpool
        from starlette.requests import Request

        request = Request(scope)
        from_query = request.query_params.get(TOKEN_QUERY)
        given = request.headers.get(TOKEN_HEADER) or from_query or request.cookies.get(TOKEN_COOKIE)
        role = await run_in_threadpool(self.access.role, given)  # an annotator's token is looked up in the database
        if role is None or role.state == "revoked":
            revoked = role is not None
            message = REVOKED if revoked else NEEDS_TOKEN
            if request.method == "GET" and "text/html" in request.headers.get("accept", ""):  # a person's browser
                title = "This link was revoked" if revoked else "This page needs its link"
                if not revoked and request.url.path.rstrip("/").endswith("/coordinator"):
                    title, message = "The coordinator's page", COORDINATOR_NEEDS_TOKEN
                await notice_page(title, message, status=403 if revoked else 401)(scope, receive, send)
                return
            body = json.dumps({"error": message}).encode()
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})[ROLE_KEY] = role
        if from_query is None or role.kind == "open":
            await self.app(scope, receive, send)
            return
        cookie = f"{TOKEN_COOKIE}={from_query}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def role_of(request) -> Role:
    """The :class:`Role` the guard gave ``request``."""
    return request.scope.get("state", {}).get(ROLE_KEY) or Role("open")
