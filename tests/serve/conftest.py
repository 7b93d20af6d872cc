"""Fixtures of the web tests: a small AnnData with planted markers, and an explorer on it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import warnings

import pytest

pytest.importorskip("starlette", reason="the web pages need starlette: pip install paucity[web]")

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 under its TestClient; httpx works the same here
    warnings.simplefilter("ignore")
    import starlette.testclient  # noqa: F401

from tests.markers._cells import GENES, adata, explorer, h5ad_path, small_adata  # noqa: F401  (the web tests' cells)


class Served:
    """``paucity serve ...`` in a child process, its URL read from the first line that has one."""

    def __init__(self, *args):
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from paucity.cli import main; main()", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )
        self.lines = []
        self.url = None
        self._changed = threading.Condition()

        def read():
            for line in self.process.stdout:
                with self._changed:
                    self.lines.append(line)
                    found = re.search(r"(http://\S+)", line)
                    if found and self.url is None:
                        self.url = found.group(1)
                    self._changed.notify_all()
            with self._changed:
                self.lines.append(None)  # the process ended
                self._changed.notify_all()

        threading.Thread(target=read, daemon=True).start()
        with self._changed:
            self._changed.wait_for(lambda: self.url is not None or None in self.lines, timeout=60)
        if self.url is None:
            self.stop()
            pytest.fail("the server printed no URL: " + "".join(line for line in self.lines if line))

    def wait_for_line(self, start: str, timeout: float = 30) -> str:
        """The first line the server printed that starts with ``start`` (waiting for it)."""
        def found():
            return next((line for line in self.lines if line and line.startswith(start)), None)

        with self._changed:
            self._changed.wait_for(lambda: found() is not None or None in self.lines, timeout=timeout)
            return found()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)

    def kill(self):
        """As a crash would: no chance to clean up."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)


def _chromium() -> str | None:
    return os.environ.get("PAUCITY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by Playwright (skipped, with the reason, when either is missing)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright: pip install playwright")
    executable = _chromium()
    if executable is None:
        pytest.skip("browser tests need Debian's chromium (apt-get install chromium, or `make test` as root)")
    with sync_api.sync_playwright() as playwright:
        args = ["--font-render-hinting=none", "--force-color-profile=srgb", "--hide-scrollbars", "--disable-gpu"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # chromium's sandbox refuses to run as root
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=args)
        except Exception as exc:  # a chromium that cannot start here (missing libraries, no /dev/shm...)
            pytest.skip(f"chromium at {executable} did not start: {str(exc).splitlines()[0]}")
        yield launched
        launched.close()
