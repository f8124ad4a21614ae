"""The Assignments panel's due dates (:mod:`kit.duepanel`) in JupyterLab, in headless chromium.

ps1_circle_lift is released to a temporary exchange; ada's JupyterLab runs as on the hub
(its own hub token and ``KPCA_CHECK_URL`` in its environment), before a stand-in check
service that answers her due date, slowly, with a reason full of markup (a service that
never answers: ``tests/duepanel/test_route_server.py``). Without a hub (no token, no
service) the same panel shows nothing more. The real hub's own test (``test_real_hub.py``) shows two students their own
dates through the real check service.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.browser import lab
from tests.browser.hub import COURSE_ID, PS, make_hub

STUDENT = "ada"
REASON = '<img src=x onerror="window.__pwned=1"><b>travel</b>'
LINE = f"2026-12-13 17:00 Europe/Berlin (an extension of 2 days: {REASON}). Late: 0.1 per day."


class CheckService:
    """A stand-in check service: ``POST /due`` answers ps1's due date; asked are the names."""

    def __init__(self, hang: float = 0.0):
        asked = self.asked = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                asked.append((self.headers["Authorization"], body))
                time.sleep(hang)
                reply = json.dumps({"verdict": "due", "message": f"Your due date for "
                                    f"{body['problem_set']}: {LINE}", "extended": True}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def hub(tmp_path_factory, released_ps1):
    return make_hub(tmp_path_factory.mktemp("duepanel"), (STUDENT,), released_ps1)


def _open_panel(page, server) -> None:
    lab.open_lab(page, server)
    lab.open_assignments(page)
    assert lab.assignment_rows(page, "released", 1).first.locator(
        ".item_course").inner_text().strip() == COURSE_ID


def test_her_panel_shows_her_due_date_as_text_when_it_comes(hub, jupyter_server_for, page):
    """A slow check service (4 s) holds nothing: the rows and their buttons come as
    nbgrader draws them, the line when the answer does."""
    service = CheckService(hang=4)
    server = jupyter_server_for(hub.homes[STUDENT], app="lab", env={
        **hub.student_env(STUDENT), "JUPYTERHUB_API_TOKEN": "ada-server-token",
        "KPCA_CHECK_URL": service.url, "KPCA_COURSE_ID": COURSE_ID})
    try:
        _open_panel(page, server)
        line = page.locator("#released_assignments_list > .list_item > .kpca-due")
        assert line.count() == 0  # not yet: the service is still answering
        assert page.locator("#released_assignments_list .item_status button").is_enabled()
        line.wait_for(timeout=lab.SLOW_MS)
        assert line.inner_text() == f"Your due date: {LINE}"
        assert page.evaluate("window.__pwned") is None
        assert page.locator("#released_assignments_list img, #released_assignments_list b") \
            .count() == 0
        assert service.asked == [("token ada-server-token", {"problem_set": PS})]
        page.locator("#refresh_assignments_list").click()  # refreshed at once: asked once
        lab.assignment_rows(page, "released", 1)
        line.wait_for()
        page.wait_for_timeout(1000)
        assert line.count() == 1 and len(service.asked) == 1
    finally:
        server.stop()
        service.server.shutdown()


def test_off_the_hub_the_panel_shows_nothing_more(hub, jupyter_server_for, page):
    server = jupyter_server_for(hub.homes[STUDENT], app="lab", env={
        **hub.student_env(STUDENT), "JUPYTERHUB_API_TOKEN": None, "KPCA_CHECK_URL": None})
    try:
        with page.expect_response(lambda r: "/kpca/due?" in r.url) as asked:
            _open_panel(page, server)
        assert asked.value.json()["off_hub"] is True
        page.wait_for_timeout(1500)
        assert page.locator(".kpca-due").count() == 0
        assert [e for e in page.kpca_log.console_errors if "kpca" in e.lower()] == []
    finally:
        server.stop()
