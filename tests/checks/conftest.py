"""The check service on 127.0.0.1 beside a fake hub API that knows three tokens.

``check_service`` (module scope) starts both in one background event loop: the fake hub
answers ``/hub/api/user`` for :data:`TOKENS` (403 for any other token) and counts how often
it was asked; the service judges against a temporary course directory whose
``nbgrader_config.py`` closes ps6 and whose attempts go to a sqlite file there.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tornado import ioloop, web

from kit.checks.service import make_app
from tests.browser.harness import free_port

#: token -> hub user name
TOKENS = {"tok-ada": "ada", "tok-bob": "bob", "tok-cy": "cy", "tok-dee": "dee",
          "tok-eve": "eve", "tok-fay": "fay"}


class FakeHubUser(web.RequestHandler):
    def initialize(self, asked):
        self.asked = asked

    def get(self):
        self.asked.append(1)
        scheme, _, token = self.request.headers.get("Authorization", "").partition(" ")
        if scheme != "token" or token not in TOKENS:
            raise web.HTTPError(403)
        self.finish({"kind": "user", "name": TOKENS[token]})


@dataclass
class Service:
    url: str
    course: Path
    db: Path
    hub_asked: list = field(default_factory=list)

    def post(self, body, token: str | None = "tok-ada", raw: bytes | None = None):
        """``(status, reply)`` of one check."""
        data = raw if raw is not None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"token {token}"
        request = urllib.request.Request(self.url + "check", data=data, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def check_service(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.KpcaCheck.closed = ['ps6_kernel_regression']\n")
    db = course / "checks.db"
    hub_port, port = free_port(), free_port()
    service = Service(f"http://127.0.0.1:{port}/services/kpca-check/", course, db)
    started, holder = threading.Event(), {}

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        hub = web.Application([(r"/hub/api/user", FakeHubUser, {"asked": service.hub_asked})])
        hub.listen(hub_port, "127.0.0.1")
        app = make_app(course, f"http://127.0.0.1:{hub_port}/hub/api",
                       overrides={"db_url": f"sqlite:///{db}", "per_minute": 60,
                                  "judge_seconds": 30.0})  # a loaded machine
        app.listen(port, "127.0.0.1", max_body_size=1 << 20)
        holder["loop"], holder["app"] = ioloop.IOLoop.current(), app
        started.set()
        holder["loop"].start()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(60), "the check service did not start"
    service.app = holder["app"]
    yield service
    holder["app"].kpca_state["judges"].close()
    holder["loop"].add_callback(holder["loop"].stop)
    thread.join(10)
