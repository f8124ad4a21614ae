"""The student's loop on a real JupyterHub (``make hub``): login, own numbers, instant checks.

One hub (:mod:`kit.hub`: JupyterHub, Debian's configurable-http-proxy, the demo class, the
``kpca-check`` service) for ps1 on 127.0.0.1. ada logs in with the run's password, fetches
ps1 from the Assignments panel and runs it: the numbers cell shows her numbers without her
typing an id. Her earlier work is laid in the fetched file before she opens it, with a
check of ``u`` that makes the lecture's sign mistake; she sees the mistake named and her
checks left fall, then types the right ``u`` in the browser and sees it checked right. A
request with bob's name in its body and ada's token is judged on ada's key; the attempts
table holds what she did.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

import nbformat
import pytest
from playwright.sync_api import TimeoutError

from kit.checks.policy import default_limit
from kit.course import Course
from kit.intake.submitted import build_submission
from kpca_ref import variants
from kpca_ref.grading.answers import mistaken_values
from tests.browser import lab
from tests.browser.harness import free_port

PS, STUDENT, ITEM = "ps1_circle_lift", "ada", "ps1_circle_u"
CELL = "circle_u_answer"


def _matrix(value) -> str:
    return "Matrix([" + ", ".join(str(v) for v in value) + "])"


@pytest.fixture(scope="module")
def real_hub(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hub")
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    hub = subprocess.Popen([sys.executable, "-m", "kit.hub", "--dir", str(folder), "--port",
                            str(port), PS], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=env, start_new_session=True)
    log, password = [], None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and hub.poll() is None:
        line = hub.stdout.readline()
        log.append(line)
        found = re.search(r"password \(every user, this run only\): (\S+)", line)
        if found:
            password = found.group(1)
        if "JupyterHub is now running" in line:
            break
    assert password and hub.poll() is None, "the hub did not start:\n" + "".join(log[-40:])
    import threading

    threading.Thread(target=lambda: [log.append(x) for x in hub.stdout], daemon=True).start()
    yield {"url": f"http://127.0.0.1:{port}/", "password": password, "dir": folder, "log": log}
    os.killpg(hub.pid, signal.SIGTERM)
    try:
        hub.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(hub.pid, signal.SIGKILL)


def test_a_student_sees_her_numbers_and_checks_an_exact_answer(real_hub, page):
    page.context.set_default_timeout(60_000)
    page.goto(real_hub["url"] + "hub/login")
    page.locator("#username_input").fill(STUDENT)
    page.locator("#password_input").fill(real_hub["password"])
    page.locator("#login_submit").click()
    page.locator(".jp-DirListing-content").wait_for(timeout=180_000)  # her server started

    lab.open_assignments(page)
    released = lab.assignment_rows(page, "released", 1)
    released.first.locator(".item_status button").click()  # Fetch
    lab.assignment_rows(page, "fetched", 1)
    path = real_hub["dir"] / "home" / STUDENT / PS / f"{PS}.ipynb"
    assert path.exists()

    course = Course(real_hub["dir"] / "course")
    code, hint, wrong = next(m for m in mistaken_values(ITEM, STUDENT))
    right = variants.answer(ITEM, STUDENT)[0]
    nbformat.write(build_submission(course, PS, {
        CELL: f'u_circle = {_matrix(wrong)}\ncheck("{ITEM}", u_circle)'}), path)

    page.locator(f'#fetched_assignments_list a:text("{PS}")').first.click()
    page.locator(f"#nbgrader-kernel_pca-{PS}.collapse.in").wait_for()
    page.locator(f"#nbgrader-kernel_pca-{PS} .list_item a", has_text=PS).first.click()
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(timeout=lab.SLOW_MS)
    choose = page.locator(".jp-Dialog .jp-Dialog-button", has_text="Select")
    try:  # JupyterLab may ask which kernel to start (its python3, as the notebook says)
        choose.wait_for(timeout=15_000)
        choose.click()
    except TimeoutError:
        pass
    page.locator('#jp-menu-panel div.lm-MenuBar-itemLabel:text("Run")').click()
    page.locator(".lm-Menu-item .lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    # the visible checks after her wrong u fail, and Run All stops there: wait for the check
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.jp-OutputArea-output')]"
        ".some(o => o.textContent.includes(t))", arg=f"check {ITEM}: ", timeout=lab.SLOW_MS)

    shown = page.locator(".jp-OutputArea-output", has_text="Your numbers (variant for").first \
        .text_content()  # the numbers cell's source is hidden: its output is what she sees
    assert f"Your numbers (variant for '{STUDENT}')" in shown  # from her login, nothing typed
    n = variants.numbers(PS, STUDENT)
    assert f"N.a = {n.a}" in shown and f"N.r = {n.r}" in shown

    limit = default_limit(ITEM, 3)
    cell = lab.cell_with(page, f'check("{ITEM}", u_circle)')
    cell.scroll_into_view_if_needed()
    said = cell.locator(".jp-OutputArea-output").first.text_content()  # (rendered or not)
    assert said.startswith(f"check {ITEM}: not right: ") and hint in said, said
    assert f"{limit - 1} check" in said

    lab.replace_cell_source(page, cell, f'u_circle = {_matrix(right)}\ncheck("{ITEM}", u_circle)')
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.jp-OutputArea-output')]"
        ".some(o => o.textContent.includes(t))", arg=f"check {ITEM}: right", timeout=60_000)
    said = cell.locator(".jp-OutputArea-output").first.text_content()
    assert f"{limit - 2} check" in said and str(list(right)) not in said

    with sqlite3.connect(real_hub["dir"] / "course" / "gradebook.db") as db:
        found = db.execute("SELECT student, slot, verdict, code FROM kpca_check_attempts "
                           "WHERE item = ? ORDER BY id", [ITEM]).fetchall()
    assert found == [(STUDENT, 1, "mistake", code), (STUDENT, 2, "right", None)]


def test_a_forged_user_name_earns_nothing(real_hub):
    url = real_hub["url"] + "services/kpca-check/check"
    body = json.dumps({"item": ITEM, "user": "bob", "student": "bob", "answer": {
        "M": [6, 1], "d": [{"Z": str(v)} for v in variants.answer(ITEM, "bob")[0]]}}).encode()
    for headers, status in (({}, 401), ({"Authorization": "token not-a-hub-token"}, 403)):
        request = urllib.request.Request(url, data=body, method="POST", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == status
        assert "check" in json.loads(refused.value.read())["message"] or status == 403
