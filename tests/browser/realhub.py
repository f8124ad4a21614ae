"""The real JupyterHub of :mod:`tests.browser.test_real_hub`, and what its users bring to it.

- :func:`running_hub` starts ``python -m kit.hub`` (the hub, its proxy, the demo class,
  formgrader and ``kpca-check``) in a folder and stops its whole process group afterwards;
- :func:`log_in` signs a user in on the hub's login page, optionally going on to a page
  behind it (formgrader for the TA, without starting the TA's own server);
- :func:`where_probe` gives lines a student's answer cell may carry: they print what the
  kernel running them can reach (the kit's reference, a hub token, the course's gradebook);
- :func:`forging_cell` is the source of the cell a student runs to forge a check and to
  flood the check service from his own kernel.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

from tests.browser.harness import free_port

#: what a sandboxed grading kernel must print for :func:`where_probe`
SANDBOXED = "ran with: no kpca_ref; no hub token; no gradebook"


def where_probe(course: Path) -> str:
    """Lines for a student's answer cell: what the kernel that runs them can reach (the
    course's gradebook is looked for by its path: a sandbox shows the student's folder at
    its own path, so the folders above it are there, empty)."""
    return (
        "\nimport importlib.util as _probe_util\nimport os as _probe_os\n"
        'print("ran with: " + "; ".join([\n'
        '    "kpca_ref" if _probe_util.find_spec("kpca_ref") else "no kpca_ref",\n'
        '    "hub token" if "JUPYTERHUB_API_TOKEN" in _probe_os.environ else "no hub token",\n'
        f'    "gradebook" if _probe_os.path.exists({str(course / "gradebook.db")!r})'
        ' else "no gradebook"]))\n'
    )


@contextlib.contextmanager
def running_hub(folder: Path, *assignments: str, timeout: float = 300):
    """``{"url", "password", "dir", "log"}`` of a started ``python -m kit.hub``."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    hub = subprocess.Popen([sys.executable, "-m", "kit.hub", "--dir", str(folder), "--port",
                            str(port), *assignments], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    log, password = [], None
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and hub.poll() is None:
            line = hub.stdout.readline()
            log.append(line)
            found = re.search(r"password \(every user, this run only\): (\S+)", line)
            if found:
                password = found.group(1)
            if "JupyterHub is now running" in line:
                break
        assert password and hub.poll() is None, "the hub did not start:\n" + "".join(log[-40:])
        threading.Thread(target=lambda: [log.append(x) for x in hub.stdout], daemon=True).start()
        yield {"url": f"http://127.0.0.1:{port}/", "password": password, "dir": folder,
               "log": log}
    finally:
        os.killpg(hub.pid, signal.SIGTERM)
        try:
            hub.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)


def log_in(page, hub: dict, user: str, then: str = "") -> None:
    """Sign ``user`` in with the run's password. Without ``then`` the hub starts their own
    server and opens JupyterLab (waited for); with it (a path such as
    ``services/kernel_pca/formgrader/``) the browser goes on there instead."""
    page.context.set_default_timeout(60_000)
    page.goto(hub["url"] + "hub/login" + (f"?next={quote('/' + then)}" if then else ""))
    page.locator("#username_input").fill(user)
    page.locator("#password_input").fill(hub["password"])
    page.locator("#login_submit").click()
    if not then:
        page.locator(".jp-DirListing-content").wait_for(timeout=180_000)  # server started


#: marks the line of :func:`forging_cell`'s output that holds the replies
FORGED = "forged-and-flooded:"


def forging_cell(item: str, victim: str, answer, flood: int = 20) -> str:
    """A cell that, with its own hub token, first sends one check of ``answer`` (wire
    format) naming ``victim`` in every user field of the body, then ``flood`` checks of it
    at once from as many threads; it prints ``FORGED`` and the replies as JSON."""
    names = {"user": victim, "student": victim, "student_id": victim, "username": victim}
    return f'''import json, os, threading, urllib.error, urllib.request
from concurrent.futures import ThreadPoolExecutor

URL = os.environ["KPCA_CHECK_URL"].rstrip("/") + "/check"  # through the hub's proxy
TOKEN = os.environ["JUPYTERHUB_API_TOKEN"]  # my own
ANSWER = json.loads({json.dumps(json.dumps(answer))})

def send(body, start=None):
    if start is not None:
        start.wait()
    request = urllib.request.Request(URL, data=json.dumps(body).encode(), method="POST",
        headers={{"Authorization": "token " + TOKEN, "Content-Type": "application/json"}})
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())

forged = send({{"item": {item!r}, "answer": ANSWER, **{names!r}}})
start = threading.Barrier({flood})
with ThreadPoolExecutor({flood}) as pool:
    flooded = list(pool.map(lambda _: send({{"item": {item!r}, "answer": ANSWER}}, start),
                            range({flood})))
print({FORGED!r}, json.dumps({{"forged": forged, "flooded": flooded}}))
'''
