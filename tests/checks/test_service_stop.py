"""``python -m kit.checks.service`` stops when the hub stops it, and leaves no process behind.

The hub stops a service with SIGINT, then SIGTERM, then SIGKILL. A service that answered
a stop signal only at its next request was killed by the hub, and its judging processes
(and multiprocessing's resource tracker) lived on, three per hub run. Here the service runs
idle, as on a hub nobody uses: it must be gone within seconds of SIGINT or SIGTERM, with
every process it started; killed outright, its judging processes must leave on their own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import psutil  # (dask.distributed's dependency)
import pytest

from kit.course import REPO_ROOT
from tests.browser.harness import free_port


def _start(course) -> tuple[subprocess.Popen, list[psutil.Process]]:
    """The service for an empty course, answering, with its judging processes started."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)}
    service = subprocess.Popen(
        [sys.executable, "-m", "kit.checks.service", "--port", str(port), "--course", str(course),
         "--api-url", "http://127.0.0.1:9/hub/api"], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    children: list[psutil.Process] = []
    while time.monotonic() < deadline and service.poll() is None:
        try:
            with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/services/kpca-check/health", timeout=2):
                children = psutil.Process(service.pid).children(recursive=True)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if len(children) >= 3:  # two judging processes and the resource tracker
            return service, children
        time.sleep(0.3)
    service.kill()
    raise AssertionError(f"the service did not start: {service.stderr.read()[-2000:]}")


def _left(processes, seconds: float) -> list[str]:
    """Those of ``processes`` still running after ``seconds`` (reaped zombies excepted)."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [p for p in processes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        if not alive or time.monotonic() > deadline:
            return [" ".join(p.cmdline()[-3:]) for p in alive]
        time.sleep(0.2)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_ends_an_idle_service_and_its_judges(tmp_path, sig):
    service, children = _start(tmp_path)
    try:
        time.sleep(0.5)  # idle: the loop waits for a request
        service.send_signal(sig)
        try:
            service.wait(10)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the idle service still runs 10 s after {sig.name}")
        assert _left(children, 5) == []
    finally:
        if service.poll() is None:
            os.killpg(service.pid, signal.SIGKILL)
        for p in children:
            if p.is_running():
                p.kill()


def test_judges_of_a_killed_service_leave_on_their_own(tmp_path):
    service, children = _start(tmp_path)
    try:
        service.kill()  # as the hub does when a service does not stop in time
        service.wait(10)
        assert _left(children, 10) == []
    finally:
        for p in children:
            if p.is_running():
                p.kill()
