"""The real JupyterHub of :mod:`tests.browser.test_real_hub`, and what its users bring to it.

- :func:`running_hub` starts ``python -m kit.hub`` (the hub, its proxy, the demo class,
  formgrader and ``kpca-check``) in a folder, and stops it as an admin does, telling what
  it left running;
- :func:`log_in` signs a user in on the hub's login page, optionally going on to a page
  behind it (formgrader for the TA, without starting the TA's own server);
- :func:`where_probe` gives lines a student's answer cell may carry: they print what the
  kernel running them can reach (the kit's reference, a hub token, the course's gradebook);
- :func:`forging_cell` is the source of the cell a student runs to forge a check and to
  flood the check service from his own kernel;
- :func:`attempts`, :func:`stream_text` and :func:`judged_lines` read the course's attempts
  table and a notebook's outputs.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import psutil  # (dask.distributed's dependency)

from tests.browser.harness import free_port
from tests.support.nbgrading import nb_meta

#: how long JupyterHub may take to stop its services and the users' servers: it gives a
#: Jupyter server 30 s to leave after SIGINT (Spawner.interrupt_timeout) before SIGTERM
STOP_SECONDS = 120

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
    """``{"url", "password", "dir", "log", "stop"}`` of a started ``python -m kit.hub``.

    ``stop()`` stops it as an admin does (SIGTERM to ``kit.hub``, which stops JupyterHub as
    Ctrl-C does), waits for it and returns ``(ran, left)``: every process it had started
    (services, users' servers and kernels, judging processes) and those still running, as
    lines; the context's exit calls it when a test has not, and kills whatever is left.
    """
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    hub = subprocess.Popen([sys.executable, "-m", "kit.hub", "--dir", str(folder), "--port",
                            str(port), *assignments], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    log, password, ran = [], None, []

    def stop(seconds: float = STOP_SECONDS) -> tuple[list[str], list[str]]:
        if hub.poll() is None:
            ran[:] = [(p, describe(p)) for p in psutil.Process(hub.pid).children(recursive=True)]
            _stop(seconds)
        return [line for _, line in ran], [line for p, line in ran if _alive(p)]

    def _stop(seconds: float) -> None:
        hub.terminate()
        try:
            hub.wait(seconds)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(p) for p, _ in ran) and time.monotonic() < deadline:
            time.sleep(0.2)

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
               "log": log, "stop": stop}
    finally:
        stop()
        for process, _ in ran:
            with contextlib.suppress(psutil.Error):
                process.kill()


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def describe(process: psutil.Process) -> str:
    """A process as a line: its pid and command."""
    try:
        return f"{process.pid}: {' '.join(process.cmdline())[:200]}"
    except psutil.Error:
        return f"{process.pid}: (gone)"


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


def press_in_panel(page, hub: dict, user: str, listed: str, button: str) -> None:
    """Sign ``user`` in, open the Assignments panel and press ``button`` of the problem set
    in its ``listed`` list (``released``, ``fetched``, ``submitted``)."""
    from tests.browser import lab

    log_in(page, hub, user)
    lab.open_assignments(page)
    rows = lab.assignment_rows(page, listed, 1)
    rows.first.locator(".item_status button", has_text=button).click()


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


def attempts(hub: dict, student: str | None = None) -> list[tuple]:
    """``(student, item, slot, verdict)`` of the hub course's check attempts, in order."""
    query, args = "SELECT student, item, slot, verdict FROM kpca_check_attempts", []
    if student:
        query, args = query + " WHERE student = ?", [student]
    with sqlite3.connect(hub["dir"] / "course" / "gradebook.db") as db:
        return db.execute(query + " ORDER BY id", args).fetchall()


def stream_text(nb, grade_id: str) -> str:
    """The stream output of the cell ``grade_id`` of ``nb``."""
    cell = next(c for c in nb.cells if nb_meta(c).get("grade_id") == grade_id)
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream")


def judged_lines(nb) -> list[str]:
    """The judge's lines (✓/✗) under the graded cells of an autograded notebook."""
    return [line for c in nb.cells if nb_meta(c).get("grade")
            for line in stream_text(nb, nb_meta(c)["grade_id"]).splitlines()
            if line.startswith(("✓", "✗"))]
