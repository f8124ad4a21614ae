"""A throwaway PostgreSQL 15 server for the tests, on 127.0.0.1 and a free port.

Debian's binaries (``/usr/lib/postgresql/15/bin``, or ``KPCA_PG_BIN``) run as an unprivileged
user (``nobody`` when the tests run as root: initdb refuses root) in a temporary folder that
user owns; :func:`server` yields a :class:`Server` and stops it (and removes the folder) at
the end.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PG_BIN = Path(os.environ.get("KPCA_PG_BIN", "/usr/lib/postgresql/15/bin"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running server: ``url(db)`` is the SQLAlchemy URL of one of its databases."""

    port: int
    data: Path
    proc: subprocess.Popen
    as_user: list

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}?connect_timeout=5"

    def createdb(self, name: str) -> str:
        """Make an empty database ``name`` and return its URL."""
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                             dbname="postgres", connect_timeout=5, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # fast shutdown: clients disconnected
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def available() -> str:
    """Empty string when a server can be started here, else why not."""
    return "" if (PG_BIN / "postgres").exists() else f"no PostgreSQL binaries in {PG_BIN}"


@contextlib.contextmanager
def server():
    """Start a server, yield its :class:`Server`, stop it and remove its files."""
    if why := available():
        raise RuntimeError(why)
    folder = Path(tempfile.mkdtemp(prefix="kpca-pg-"))
    as_user = []
    if os.geteuid() == 0:
        shutil.chown(folder, "nobody")
        as_user = ["runuser", "-u", "nobody", "--"]
    data = folder / "data"
    subprocess.run(as_user + [str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres",
                              "--auth=trust", "-E", "UTF8", "--no-sync"],
                   check=True, capture_output=True, cwd=folder)
    port = _free_port()
    with open(folder / "log", "wb") as log:
        proc = subprocess.Popen(
            as_user + [str(PG_BIN / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p",
                       str(port), "-k", str(folder), "-c", "fsync=off", "-c", "max_connections=200"],
            stdout=subprocess.DEVNULL, stderr=log, cwd=folder, start_new_session=True)
    srv = Server(port, data, proc, as_user)
    try:
        deadline = time.monotonic() + 30
        while subprocess.run([str(PG_BIN / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
                             check=False, capture_output=True).returncode != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not start: "
                                   + (folder / "log").read_text(errors="replace")[-2000:])
            time.sleep(0.2)
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(folder, ignore_errors=True)
