"""A body over the service's limit gets a 413 JSON reply, from ``python -m kit.checks.service``
as the hub runs it and through the hub's proxy (Debian's configurable-http-proxy, as
``make hub`` runs it), and the student's ``check()`` prints it as one clear line.

The service used to close the connection on a body over 128 KB: the proxy then answered
with the hub's 503 page, and ``check()`` said the service could not be reached.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import sympy as sp

from tests.browser.harness import free_port
from tests.checks.conftest import fake_hub
from tests.checks.test_service import run_numbers_cell
from tests.checks.test_service_stop import _cold, _start

SIZES = [40_000, 200_000, 2_000_000, 20_000_000]


def _post(url: str, size: int) -> tuple[int | str, bytes]:
    body = b'{"item": "ps0_ball_ratio", "answer": {"Z": "' + b"1" * size + b'"}}'
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Authorization": "token tok-ada", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, ConnectionError) as exc:
        return type(exc).__name__, b""


def _proxy(target: str) -> tuple[subprocess.Popen, str]:
    """configurable-http-proxy on 127.0.0.1 sending everything to ``target``."""
    port = free_port()
    proxy = subprocess.Popen(
        ["configurable-http-proxy", "--ip", "127.0.0.1", "--port", str(port), "--api-ip",
         "127.0.0.1", "--api-port", str(free_port()), "--default-target", target],
        env={**os.environ, "NODE_PATH": os.environ.get("NODE_PATH", "/usr/share/nodejs")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proxy, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    proxy.kill()
    raise AssertionError("configurable-http-proxy did not start")


@pytest.mark.skipif(shutil.which("configurable-http-proxy") is None,
                    reason="configurable-http-proxy is not installed (make venv installs it)")
def test_a_large_body_gets_a_413_directly_through_the_proxy_and_in_check(tmp_path,
                                                                         monkeypatch, capsys):
    _cold(tmp_path)
    with fake_hub() as api_url:
        service, _, url = _start(tmp_path, api_url)
        proxy = None
        try:
            proxy, front = _proxy(url.split("/services/")[0])
            through = front + "/services/kpca-check/"
            for base in (url, through):
                for size in SIZES:
                    status, reply = _post(base + "check", size)
                    assert status == 413, (base, size, status, reply[:200])
                    said = json.loads(reply)
                    assert said["verdict"] == "refused" and not said["counted"]
                    assert "too large to check" in said["message"]
            # what a student sees: one line, from the service, through the proxy
            scope = run_numbers_cell(monkeypatch, {"JUPYTERHUB_USER": "ada",
                                                   "JUPYTERHUB_API_TOKEN": "tok-ada",
                                                   "KPCA_CHECK_URL": through})
            capsys.readouterr()
            huge = sp.Matrix(120, 120, lambda i, j: sp.Integer(10) ** 30 + i * j)
            scope["check"]("ps1_lift_point", huge)
            out = capsys.readouterr().out.strip().splitlines()
            assert len(out) == 1 and out[0].startswith("check ps1_lift_point: this answer is "
                                                       "too large to check"), out
            assert "no check used" in out[0]
        finally:
            if proxy is not None:
                os.killpg(proxy.pid, signal.SIGTERM)
                proxy.wait(10)
            os.killpg(service.pid, signal.SIGTERM)
            service.wait(10)
