"""A throwaway PostgreSQL server for the tests and benchmarks: started on loopback, removed after.

``initdb`` into a temporary directory, ``pg_ctl`` on a free port, the Unix socket in that same
directory, nothing installed as a service and nothing left behind. The binaries come from the
distribution's packages (``/usr/lib/postgresql/<major>/bin``, not on ``PATH``; or
``$MJLEDGER_PG_BINDIR``). ``initdb`` and ``pg_ctl`` refuse to run as root, so as root they run as
the ``postgres`` user (``runuser``), who then owns the directory.

The server has two roles: the ``postgres`` superuser, trusted on the socket only (the tests'
administration), and ``mjledger``, which logs in over TCP on 127.0.0.1 with a password, as a
backend would, so the tests see real authentication (and can check that the password never
shows in an error).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

USER = "mjledger"
PASSWORD = "pw-" + uuid.uuid4().hex  # a fresh secret per run, so a leak is unmistakable
SUPERUSER = "postgres"


class NoPostgresError(RuntimeError):
    """PostgreSQL's server binaries are not installed here."""


def bindir() -> Path:
    """The directory of ``initdb``/``pg_ctl``: ``$MJLEDGER_PG_BINDIR``, else the newest
    ``/usr/lib/postgresql/*/bin``, else ``PATH``."""
    given = os.environ.get("MJLEDGER_PG_BINDIR")
    if given:
        if not (Path(given) / "initdb").exists():
            raise NoPostgresError(f"PostgreSQL is not installed (no initdb in {given})")
        return Path(given)
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1].parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise NoPostgresError(
        "PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on PATH; "
        "apt-get install -y postgresql)"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Cluster:
    """One PostgreSQL server in a temporary directory (``with Cluster() as pg: ...``)."""

    def __init__(self, *, fsync: bool = False, max_connections: int = 200) -> None:
        self.bin = bindir()
        self.root = Path(tempfile.mkdtemp(prefix="mjledger-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.host = "127.0.0.1"
        self.fsync = fsync
        self.max_connections = max_connections
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, user=SUPERUSER, group=SUPERUSER)

    # --- the server -------------------------------------------------------------------------

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", SUPERUSER, "--", *command]
        return subprocess.run(
            command, check=check, capture_output=True, text=True, cwd=self.root, timeout=120
        )

    def init(self) -> None:
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )

    def start(self) -> None:
        options = " ".join(
            [
                f"-p {self.port}",
                f"-c listen_addresses={self.host}",
                f"-c unix_socket_directories={self.root}",
                f"-c max_connections={self.max_connections}",
                "-c shared_buffers=32MB",
                f"-c fsync={'on' if self.fsync else 'off'}",
                f"-c full_page_writes={'on' if self.fsync else 'off'}",
                f"-c synchronous_commit={'on' if self.fsync else 'off'}",
                "-c log_min_messages=warning",
            ]
        )
        result = self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
            check=False,
        )
        if result.returncode != 0:
            log = (self.root / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"pg_ctl start failed: {result.stderr.strip()}\n{log}")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop()
        self.start()

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Cluster:
        try:
            self.init()
            self.start()
            self.admin(
                f"CREATE ROLE {USER} LOGIN CREATEDB PASSWORD '{PASSWORD}'",
            )
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    # --- connections ------------------------------------------------------------------------

    def admin_conninfo(self, dbname: str = "postgres") -> dict[str, Any]:
        """The superuser over the socket in the cluster's directory (trusted, no password)."""
        return {"host": str(self.root), "port": self.port, "user": SUPERUSER, "dbname": dbname}

    def admin(self, *statements: str, dbname: str = "postgres") -> list[tuple[Any, ...]]:
        """Run statements as the superuser (autocommit); the last one's rows."""
        import psycopg

        rows: list[tuple[Any, ...]] = []
        with psycopg.connect(**self.admin_conninfo(dbname), autocommit=True) as conn:
            for statement in statements:
                cur = conn.execute(statement.encode())
                rows = cur.fetchall() if cur.description else []
        return rows

    def create_database(self, name: str | None = None) -> str:
        name = name or "t_" + uuid.uuid4().hex[:12]
        self.admin(f'CREATE DATABASE "{name}" OWNER {USER}')
        return name

    def url(self, dbname: str, **options: object) -> str:
        """The store URL a backend would be given: the password-authenticated TCP role."""
        query = "&".join(f"{k}={v}" for k, v in options.items())
        return f"postgresql://{USER}:{PASSWORD}@{self.host}:{self.port}/{dbname}" + (
            f"?{query}" if query else ""
        )

    def connections(self, dbname: str) -> int:
        """Client connections open to ``dbname`` now, from ``pg_stat_activity``."""
        (row,) = self.admin(
            "SELECT count(*) FROM pg_stat_activity "
            f"WHERE datname = '{dbname}' AND backend_type = 'client backend'"
        )
        return int(row[0])

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            result = self._run("pg_isready", "-h", self.host, "-p", str(self.port), check=False)
            if result.returncode == 0 or time.monotonic() > deadline:
                return
            time.sleep(0.1)


@contextlib.contextmanager
def cluster(**kwargs: Any) -> Iterator[Cluster]:
    with Cluster(**kwargs) as pg:
        yield pg
