"""Ctrl-C stops a server at once: ``interrupted`` on stderr and exit code 130, even with a request in flight."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import httpx
import pytest

from .conftest import Served

# a hang guard, not a timing: before the fix a blocked request held the process for ever
STOPS_WITHIN = 15


def _interrupt(served: Served) -> str:
    served.process.send_signal(signal.SIGINT)
    try:
        served.process.wait(timeout=STOPS_WITHIN)
    except subprocess.TimeoutExpired:
        served.process.kill()
        pytest.fail("the server did not stop on Ctrl-C")
    with served._changed:
        served._changed.wait_for(lambda: None in served.lines, timeout=STOPS_WITHIN)
    return "".join(line for line in served.lines if line)


def test_ctrl_c_on_serve_markers_says_interrupted_and_exits_130(h5ad_path):
    served = Served("serve", "markers", str(h5ad_path), "--groupby", "cell_type")
    assert httpx.get(served.url.replace("?", "api/state?"), timeout=30).status_code == 200
    output = _interrupt(served)
    assert served.process.returncode == 130, output
    assert output.splitlines()[-1] == "interrupted"


def test_ctrl_c_on_serve_annotate_says_interrupted_and_exits_130(tmp_path):
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "".join(f"photo{k}\n" for k in range(6)))
    served = Served("serve", "annotate", str(tmp_path / "photos.db"), "--items", str(items), "--budget", "5")
    token = served.wait_for_line("coordinator: ").strip().rsplit("token=", 1)[1]
    assert httpx.get(served.url + "api/progress", headers={"x-paucity-token": token}, timeout=30).status_code == 200
    output = _interrupt(served)
    assert served.process.returncode == 130, output
    assert output.splitlines()[-1] == "interrupted"


_BLOCKED = textwrap.dedent(
    """
    import sys, threading
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from paucity.serve.server import bind, serve, url_of

    never = threading.Event()

    def compute():
        print("computing", flush=True)
        never.wait()

    async def blocked(request):
        await run_in_threadpool(compute)  # a computation that outlives the server
        return PlainTextResponse("done")

    sock = bind("127.0.0.1", 0)
    print(url_of(sock, "127.0.0.1"), flush=True)
    try:
        serve(Starlette(routes=[Route("/", blocked)]), sock)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
    """
)


def _get(url: str) -> None:
    try:
        httpx.get(url, timeout=STOPS_WITHIN * 2)
    except httpx.HTTPError:
        pass  # the server stopped without answering: expected


def _interrupt_script(script: str, before, failure: str) -> None:
    """Run ``script`` (a server that prints its URL, then says ``interrupted`` and exits 130 on Ctrl-C), call
    ``before(process, url)``, send Ctrl-C, and check that it stops so within the guard."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    try:
        before(process, process.stdout.readline().strip())
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=STOPS_WITHIN)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(failure)
    assert process.returncode == 130 and err.strip().splitlines()[-1] == "interrupted"


def test_ctrl_c_does_not_wait_for_a_request_still_computing():
    def computing(process, url):
        threading.Thread(target=_get, args=(url,), daemon=True).start()
        assert process.stdout.readline().strip() == "computing"

    _interrupt_script(_BLOCKED, computing, "the server waited for the request still computing")


def test_kill_stops_the_server_and_ends_as_the_signal_does(tmp_path):
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "".join(f"photo{k}\n" for k in range(6)))
    served = Served("serve", "annotate", str(tmp_path / "photos.db"), "--items", str(items), "--budget", "5")
    served.process.terminate()
    assert served.process.wait(timeout=STOPS_WITHIN) == -signal.SIGTERM


_IGNORING = textwrap.dedent(
    """
    import signal, sys
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from paucity.serve.server import bind, serve, url_of

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a process started with SIGINT ignored has it
    sock = bind("127.0.0.1", 0)
    print(url_of(sock, "127.0.0.1"), flush=True)
    try:
        serve(Starlette(routes=[Route("/", lambda request: PlainTextResponse("up"))]), sock)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr, flush=True)
        sys.exit(130)
    """
)


def test_ctrl_c_stops_a_server_started_with_ctrl_c_ignored():
    # a background job of a script, or the child of a process that ignores SIGINT, starts with it ignored, and
    # Python then installs no KeyboardInterrupt handler: the server installs it for as long as it serves
    def answering(process, url):
        assert httpx.get(url, timeout=STOPS_WITHIN * 2).text == "up"

    _interrupt_script(_IGNORING, answering, "the server ignored Ctrl-C")
