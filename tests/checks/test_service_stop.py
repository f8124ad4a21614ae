"""``python -m kit.checks.service`` stops when the hub stops it, and leaves no process behind.

The hub stops a service with SIGINT, then SIGTERM, then SIGKILL. A service that answered
a stop signal only at its next request was killed by the hub, and its judging processes
(and multiprocessing's resource tracker) lived on, three per hub run. Here the service runs
idle, as on a hub nobody uses: it must be gone within seconds of SIGINT or SIGTERM, with
every process it started (its judges' fork server, multiprocessing's resource tracker);
killed outright, those must leave on their own, and so must a judgement under way.
"""

from __future__ import annotations

import json
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


def _cold(course, *lines: str) -> None:
    """A course whose judges import the grader but draw no key first (a quicker start)."""
    (course / "nbgrader_config.py").write_text("\n".join([
        "c = get_config()", "c.CourseDirectory.course_id = 'kernel_pca'",
        "c.KpcaCheck.warm_judges = False", *lines]) + "\n")


def _start(course, api_url: str = "http://127.0.0.1:9/hub/api"
           ) -> tuple[subprocess.Popen, list[psutil.Process], str]:
    """The service for ``course``, answering, its judges warm: (process, the processes it
    started, its URL)."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)}
    service = subprocess.Popen(
        [sys.executable, "-m", "kit.checks.service", "--port", str(port), "--course", str(course),
         "--api-url", api_url], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    url = f"http://127.0.0.1:{port}/services/kpca-check/"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and service.poll() is None:
        try:
            with urllib.request.urlopen(url + "health", timeout=2) as reply:
                if json.loads(reply.read())["judges_ready"]:
                    children = psutil.Process(service.pid).children(recursive=True)
                    assert len(children) >= 3, children  # fork server, resource tracker, judges
                    return service, children, url
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
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
    _cold(tmp_path)
    service, children, _ = _start(tmp_path)
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
    _cold(tmp_path)
    service, children, _ = _start(tmp_path)
    try:
        service.kill()  # as the hub does when a service does not stop in time
        service.wait(10)
        assert _left(children, 10) == []
    finally:
        for p in children:
            if p.is_running():
                p.kill()


def test_a_judgement_under_way_ends_with_a_killed_service(tmp_path):
    """Killed outright while judging an answer that would take minutes, the service leaves
    no judge behind: the fork server leaves with it, and the judging processes (the busy
    one included) with that."""
    from tests.checks.conftest import fake_hub
    from tests.checks.test_service_abuse import SLOW

    _cold(tmp_path, "c.KpcaCheck.judge_seconds = 60.0")
    with fake_hub() as api_url:
        service, children, url = _start(tmp_path, api_url)
        try:
            body = json.dumps({"item": "ps0_ball_ratio", "answer": SLOW}).encode()
            request = urllib.request.Request(url + "check", data=body, method="POST", headers={
                "Authorization": "token tok-ada", "Content-Type": "application/json"})
            with pytest.raises((urllib.error.URLError, ConnectionError, TimeoutError)):
                urllib.request.urlopen(request, timeout=3)  # judging: no answer for minutes
            judging = psutil.Process(service.pid).children(recursive=True)
            assert {p.pid for p in children} <= {p.pid for p in judging}  # none replaced
            service.kill()
            service.wait(10)
            assert _left(judging, 10) == []
        finally:
            if service.poll() is None:
                os.killpg(service.pid, signal.SIGKILL)
