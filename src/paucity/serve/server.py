"""Running an ASGI application with uvicorn: in the foreground (``paucity serve``) or in a thread."""

from __future__ import annotations

import signal
import socket
import threading

from .._errors import ParameterError
from .._extras import require
from .._spelling import spelled

__all__ = ["bind", "url_of", "BackgroundServer"]


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0: a free one), or a one-line error.

    Examples
    --------
    >>> from paucity.serve.server import bind
    >>> sock = bind("127.0.0.1", 0)
    >>> sock.getsockname()[1] > 0
    True
    >>> sock.close()
    """
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ParameterError(
            f"{spelled('port')} must be a whole number from 0 to 65535 (0: any free port), got {port!r}."
        )
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ParameterError(f"host {host!r} cannot be resolved ({exc.strerror}); give an address such as 127.0.0.1.") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: without it, a response written in two parts waits for the client's
    # delayed acknowledgement, 40 ms on Linux, on every request (asyncio sets it only on sockets it creates)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ParameterError(
            f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port (0 picks a free one)."
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, host: str, token: str | None = None) -> str:
    """The address to open in a browser for a server listening on ``sock`` (the machine's name for 0.0.0.0)."""
    port = sock.getsockname()[1]
    if host in ("0.0.0.0", "::"):  # every interface: the machine's name is what others can open
        host = socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def _server(app, sock: socket.socket, log_level: str):
    uvicorn = require("uvicorn", "paucity serve")

    config = uvicorn.Config(
        app, log_level=log_level, access_log=False, lifespan="off", timeout_graceful_shutdown=STOP_WITHIN
    )
    return uvicorn.Server(config)


#: Seconds a server given Ctrl-C waits for the requests in flight before it stops anyway.
STOP_WITHIN = 1.0


def serve(app, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Serve ``app`` on ``sock`` until interrupted: Ctrl-C raises :class:`KeyboardInterrupt` here within about
    :data:`STOP_WITHIN` seconds, so that the command says ``interrupted`` and exits with 130.

    The server runs in a daemon thread while this thread waits for Ctrl-C with Python's own handler: uvicorn
    then installs no signal handler of its own (whose re-raised signal an event loop may swallow, exiting 0),
    and the worker threads that answer requests are daemon threads too (a thread inherits it), so a
    computation still running in one does not hold the process after the interrupt. SIGTERM (``kill``) stops the
    server the same way, then ends the process as the signal does.
    """
    server = _server(app, sock, log_level)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="paucity-server", daemon=True)
    terminated = []

    def on_terminate(signum, frame):  # `kill`: stop as gently as Ctrl-C does, then end as the signal would
        terminated.append(signum)
        server.should_exit = True

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, on_terminate) if main else None
    # Ctrl-C raises KeyboardInterrupt here even when this process was started with SIGINT ignored (as a
    # background job of a script is, or a child of a process that ignores it): Python installs its handler
    # only where the signal was at its default, and the server would then never stop on Ctrl-C
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        server.should_exit = True  # stop accepting, let the requests in flight finish within STOP_WITHIN
        thread.join(STOP_WITHIN + 0.5)
        raise
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
            signal.signal(signal.SIGINT, interrupt if interrupt is not None else signal.SIG_DFL)
    if terminated:
        signal.raise_signal(signal.SIGTERM)


class BackgroundServer:
    """``app`` served on a free loopback port from a thread, for tests and notebooks.

    Use as a context manager; ``url`` is the address once it is up.

    Examples
    --------
    >>> import httpx
    >>> from starlette.applications import Starlette
    >>> from starlette.responses import PlainTextResponse
    >>> from starlette.routing import Route
    >>> from paucity.serve.server import BackgroundServer
    >>> app = Starlette(routes=[Route("/", lambda request: PlainTextResponse("up"))])
    >>> with BackgroundServer(app) as server:
    ...     httpx.get(server.url).text
    'up'
    """

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0):
        self._sock = bind(host, port)
        self._host = host
        self._uvicorn = _server(app, self._sock, "error")
        self._thread = threading.Thread(target=self._uvicorn.run, kwargs={"sockets": [self._sock]}, daemon=True)

    @property
    def url(self) -> str:
        return url_of(self._sock, self._host)

    def __enter__(self) -> "BackgroundServer":
        self._thread.start()
        started = threading.Event()
        while not self._uvicorn.started and self._thread.is_alive():
            started.wait(0.01)  # until uvicorn has installed the socket
        if not self._uvicorn.started:
            raise RuntimeError("the server thread stopped before it started listening.")
        return self

    def __exit__(self, *exc) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
