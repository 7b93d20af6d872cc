"""A throw-away PostgreSQL server for the tests: Debian's ``postgresql``, a cluster in a temporary folder.

``make test`` installs Debian's ``postgresql`` when it is missing and apt can be used as root; where it cannot,
the tests that need a server skip and say why. The cluster is made by ``initdb`` in a temporary folder, listens on
a free loopback port (and a socket in that folder), trusts local connections, and is stopped and removed when the
test session ends. As root, the server runs as the ``postgres`` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PostgresServer", "why_not"]

USER = "paucity"


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    return candidates[0] if candidates else None


def why_not() -> str | None:
    """Why a server cannot be started here, or None when it can."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the PostgreSQL tests need the driver psycopg: pip install 'paucity[postgres]'"
    if _binary("initdb") is None or _binary("pg_ctl") is None:
        return ("the PostgreSQL tests need Debian's postgresql (apt-get install postgresql, or `make test` as root, "
                "which installs it)")
    if os.geteuid() == 0 and _account() is None:
        return "as root, the PostgreSQL tests need an account to run the server as (postgres or nobody)"
    return None


def _account():
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    """A PostgreSQL cluster of its own; :meth:`new_database` gives a fresh, empty database's URL."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="paucity-postgres-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._names = itertools.count()
        account = _account() if os.geteuid() == 0 else None
        self._as = {} if account is None else {"user": account.pw_uid, "group": account.pw_gid}
        if account is not None:
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self._run(_binary("initdb"), "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync",
                  "--locale=C")
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "server.log"), "-o", options, "-w",
                  "-t", "60", "start")

    def _run(self, *args):
        result = subprocess.run(args, capture_output=True, text=True, cwd=self.folder, **self._as)
        if result.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {result.stderr.strip() or result.stdout.strip()}")

    def url(self, name: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"

    def new_database(self) -> str:
        """A new empty database on the server: its URL."""
        import psycopg

        name = f"paucity_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={USER} dbname=postgres", autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run(_binary("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
