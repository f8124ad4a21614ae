"""Pieces of the browser tests: a Jupyter server, a local hit counter, a watched page.

Used through the fixtures of ``tests/browser/conftest.py``; kept here so other browser tests
can build on them:

- :class:`JupyterServer` runs ``jupyter server`` (or ``jupyter lab``) for a course directory
  on 127.0.0.1 with a random token and a free port, with its own runtime and config folders;
- :class:`HitListener` is an HTTP server on 127.0.0.1 that records every request it gets
  (a payload that makes a request to it has run);
- :func:`watch_page` makes a Playwright page record dialogs (and dismiss them), console
  errors and requests, and refuse every request that leaves this machine.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

CHROMIUM = os.environ.get("KPCA_CHROMIUM", "/usr/bin/chromium")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class JupyterServer:
    """``jupyter server`` (``app="server"``) or ``jupyter lab`` serving ``root``.

    Parameters
    ----------
    root : Path
        The server's root directory (an nbgrader course directory for formgrader).
    workdir : Path
        Where the server's log, runtime and config folders go.
    app : {"server", "lab"}
        ``lab`` also serves JupyterLab's pages; ``server`` starts faster.
    env : dict, optional
        Extra environment variables (for example ``KPCA_EXCHANGE``); a variable given as
        ``None`` is removed from the server's environment (and so from its kernels').
    """

    def __init__(self, root: Path, workdir: Path, app: str = "server", env: dict | None = None):
        self.root, self.workdir, self.app = Path(root).resolve(), Path(workdir), app
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.log_path = self.workdir / f"jupyter-{self.port}.log"
        self.extra_env = dict(env or {})
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def page_url(self, path: str) -> str:
        """Address of ``path`` on the server, carrying the token (it logs the browser in)."""
        sep = "&" if "?" in path else "?"
        return f"{self.url}/{path.lstrip('/')}{sep}token={self.token}"

    def start(self, timeout: float = 60.0) -> JupyterServer:
        bin_dir = str(Path(sys.executable).parent)
        env = {
            **os.environ,
            "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
            "JUPYTER_RUNTIME_DIR": str(self.workdir / "runtime"),
            "JUPYTER_CONFIG_DIR": str(self.workdir / "config"),  # no user config
            "JUPYTER_NO_CONFIG": "",
            **self.extra_env,
        }
        env = {k: v for k, v in env.items() if v is not None}
        module = "jupyterlab" if self.app == "lab" else "jupyter_server"
        argv = [
            sys.executable, "-m", module, "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
        ]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("w")
        self.process = subprocess.Popen(argv, cwd=self.root, env=env, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter {self.app} exited with {self.process.returncode}; "
                                   f"its log ({self.log_path}):\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.page_url("api/status"), timeout=2):
                    return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"jupyter {self.app} did not answer on {self.url} within "
                           f"{timeout:.0f} s; its log ({self.log_path}):\n{self.log_tail()}")

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""

    def stop(self) -> None:
        """Stop the server and everything it started (its kernels are in its session)."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


class HitListener:
    """An HTTP server on 127.0.0.1 that answers 204 and records each request's path."""

    def __init__(self):
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def _record(self):
                hits.append(self.path)
                self.send_response(204)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()

            do_GET = do_POST = do_OPTIONS = _record

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class PageLog:
    """What a watched page did: dialogs opened, console errors, requests made and refused."""

    dialogs: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def watch_page(page) -> PageLog:
    """Record what ``page`` does; dismiss its dialogs; refuse requests off this machine.

    Requests to anything but 127.0.0.1/localhost (a CDN's MathJax, for instance) are aborted
    and listed in ``refused``: the tests never reach outside the machine, and a page does not
    wait for an address it cannot reach.
    """
    log = PageLog()

    def on_dialog(dialog):
        log.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def route(route_):
        url = route_.request.url
        host = urlsplit(url).hostname or ""
        if url.startswith(("data:", "blob:", "file:", "about:")) or host in LOOPBACK + ("::1",):
            route_.continue_()
        else:
            log.refused.append(url)
            route_.abort()

    page.on("dialog", on_dialog)
    page.on("console", lambda m: log.console_errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: log.requests.append(r.url))
    page.route("**/*", route)
    return log
