"""The check service on 127.0.0.1 beside a fake hub API that knows a class's tokens.

``check_service`` (module scope) starts both in one background event loop: the fake hub
answers ``/hub/api/user`` as JupyterHub does (name, groups, the token's scopes) for
:data:`TOKENS` and :data:`OTHERS` (403 for any other token) and counts how often it was
asked; the service judges against a temporary course directory (course id ``kernel_pca``)
whose ``nbgrader_config.py`` closes ps6 and whose attempts go to a sqlite file there.
:func:`start_service` starts another, with other settings, for one test.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tornado import ioloop, web

from kit.checks.service import listen, make_app
from tests.browser.harness import free_port

#: token -> hub user name: students' server tokens (the students' group, access to the service)
TOKENS = {"tok-ada": "ada", "tok-bob": "bob", "tok-cy": "cy", "tok-dee": "dee",
          "tok-eve": "eve", "tok-fay": "fay", "tok-gus": "gus", "tok-hal": "hal",
          "tok-ivy": "ivy", "tok-jo": "jo", "tok-kai": "kai", "tok-lu": "lu"}
STUDENTS, STAFF = "nbgrader-kernel_pca", "formgrade-kernel_pca"
#: what a student's server token may do (Spawner.server_token_scopes, kit/hub_config.py)
SERVER_SCOPES = ["access:servers!server={}/", "users:activity!user={}",
                 "access:services!service=kpca-check"]
#: a login name no page may print as it is
EVIL_NAME = '<img src=x onerror=alert(1)>"\x1b]0;t\x07'
#: other tokens: token -> (user, groups, scopes); "{}" in a scope is the user's name
OTHERS = {
    # the TA's own token (everything he holds: formgrader, not the check service)
    "tok-tom": ("ta_tom", [STAFF], ["access:services!service=kernel_pca", "read:users!user={}"]),
    # the instructor, an admin: access to every service
    "tok-kim": ("prof_kim", [STAFF], ["access:services", "admin:users", "admin:servers"]),
    # a student's token made without scopes (the hub still names its owner)
    "tok-ada-noscope": ("ada", [STUDENTS], []),
    # a student's token with a read scope only
    "tok-ada-read": ("ada", [STUDENTS], ["read:users:name!user={}"]),
    # a hub user of another course, given access to the service
    "tok-out": ("outsider", ["nbgrader-other_course"], SERVER_SCOPES),
    # a staff member who is also in the students' group
    "tok-both": ("lee", [STUDENTS, STAFF], SERVER_SCOPES),
    # a student whose hub name is markup and terminal control sequences
    "tok-evil": (EVIL_NAME, [STUDENTS], SERVER_SCOPES),
}


def hub_model(token: str) -> dict | None:
    """``/hub/api/user``'s answer for ``token`` (None: the hub does not know it)."""
    if token in TOKENS:
        name, groups, scopes = TOKENS[token], [STUDENTS], SERVER_SCOPES
    elif token in OTHERS:
        name, groups, scopes = OTHERS[token]
    else:
        return None
    return {"kind": "user", "name": name, "admin": False, "groups": groups,
            "scopes": [s.format(name) for s in scopes], "token_id": "a1", "session_id": None}


class FakeHubUser(web.RequestHandler):
    def initialize(self, asked):
        self.asked = asked

    def get(self):
        self.asked.append(1)
        scheme, _, token = self.request.headers.get("Authorization", "").partition(" ")
        model = hub_model(token) if scheme == "token" else None
        if model is None:
            raise web.HTTPError(403)
        self.finish(model)


#: the hub's groups as the service's own token reads them (``/hub/api/groups/<name>``):
#: empty unless a test fills it (then the hub answers for :data:`SERVICE_TOKEN` only)
GROUPS: dict[str, list[str]] = {}
SERVICE_TOKEN = "tok-service"


class FakeHubGroup(web.RequestHandler):
    def get(self, name):
        if self.request.headers.get("Authorization") != f"token {SERVICE_TOKEN}" or name not in GROUPS:
            raise web.HTTPError(404 if name not in GROUPS else 403)
        self.finish({"kind": "group", "name": name, "users": GROUPS[name]})


@dataclass
class Service:
    url: str
    course: Path
    db: Path
    hub_asked: list = field(default_factory=list)

    def post(self, body, token: str | None = "tok-ada", raw: bytes | None = None):
        """``(status, reply)`` of one check (the reply must be JSON)."""
        status, reply = self.exchange(raw if raw is not None else json.dumps(body).encode(),
                                      token)
        return status, json.loads(reply)

    def exchange(self, data: bytes, token: str | None = "tok-ada", path: str = "check",
                 method: str = "POST") -> tuple[int, bytes]:
        """``(status, the reply's bytes)`` of one request."""
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"token {token}"
        request = urllib.request.Request(self.url + path, data=data, headers=headers,
                                         method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()


@contextlib.contextmanager
def fake_hub():
    """The fake hub alone, in a background event loop: yields its API URL."""
    port, holder, started = free_port(), {}, threading.Event()

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        web.Application([(r"/hub/api/user", FakeHubUser, {"asked": []}),
                         (r"/hub/api/groups/([^/]+)", FakeHubGroup)]).listen(port, "127.0.0.1")
        holder["loop"] = ioloop.IOLoop.current()
        started.set()
        holder["loop"].start()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(30)
    try:
        yield f"http://127.0.0.1:{port}/hub/api"
    finally:
        holder["loop"].add_callback(holder["loop"].stop)
        thread.join(10)


def start_service(course: Path, overrides: dict, asked: list | None = None):
    """``(Service, stop)``: the service for ``course`` (settings ``overrides``) and a fake
    hub, in one background event loop; ``stop()`` stops both and the service's judges."""
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'kernel_pca'\n"
        "c.KpcaCheck.closed = ['ps6_kernel_regression']\n")
    db = course / "checks.db"
    hub_port, port = free_port(), free_port()
    service = Service(f"http://127.0.0.1:{port}/services/kpca-check/", course, db)
    if asked is not None:
        service.hub_asked = asked
    started, holder = threading.Event(), {}

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        hub = web.Application([(r"/hub/api/user", FakeHubUser, {"asked": service.hub_asked}),
                               (r"/hub/api/groups/([^/]+)", FakeHubGroup)])
        hub.listen(hub_port, "127.0.0.1")
        app = make_app(course, f"http://127.0.0.1:{hub_port}/hub/api",
                       overrides={"db_url": f"sqlite:///{db}", **overrides})
        listen(app, port)
        holder["loop"], holder["app"] = ioloop.IOLoop.current(), app
        started.set()
        holder["loop"].start()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(60), "the check service did not start"
    service.app = holder["app"]
    # as on the hub, where it starts long before the first check: its judges are warm
    assert service.app.kpca_state["judges"].ready.wait(180), "the judges did not start"

    def stop():
        holder["app"].kpca_state["judges"].close()
        holder["loop"].add_callback(holder["loop"].stop)
        thread.join(10)

    return service, stop


@pytest.fixture(scope="module")
def check_service(tmp_path_factory):
    service, stop = start_service(tmp_path_factory.mktemp("course"), {
        "per_minute": 60, "judge_seconds": 30.0})  # a loaded machine
    yield service
    stop()
