"""The route on a real Jupyter server (``jupyter server`` with :mod:`kit.duepanel` enabled by
its config file): who may call it, what reaches the check service, and off the hub.

A stand-in check service on 127.0.0.1 records what it is asked. On a hub-like server (the
hub's token and ``KPCA_CHECK_URL`` in its environment) the route needs the server's own
login, forwards the name and the server's hub token only (a student's name in the query,
a forged user header and the browser's own credentials never reach the service), refuses
bad names with a line, and answers within its timeout when the service hangs. Off the hub
it says so and asks nothing.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kit.duepanel import SERVER_CONFIG
from kit.duepanel.install import HERE
from kit.duepanel.route import UNAVAILABLE, UPSTREAM_SECONDS
from tests.browser.harness import JupyterServer

PS, SLOW = "ps1_circle_lift", "ps_slow"
HUB_TOKEN = "server-hub-token-of-ada"


class CheckService:
    """Answers ``POST /services/kpca-check/due`` as the check service would; ``ps_slow``
    is never answered in time."""

    def __init__(self):
        asked = self.asked = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                asked.append((self.path, dict(self.headers), body))
                if body.get("problem_set") == SLOW:
                    time.sleep(UPSTREAM_SECONDS + 10)
                reply = json.dumps({"verdict": "due", "message": f"Your due date for "
                                    f"{body['problem_set']}: 2026-12-13 17:00 UTC. Late: no late "
                                    "hand-ins.", "due": None}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/services/kpca-check/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def service():
    found = CheckService()
    yield found
    found.server.shutdown()


def _server(tmp, env: dict) -> JupyterServer:
    config = tmp / "config_path" / "jupyter_server_config.d"
    config.mkdir(parents=True)
    (config / SERVER_CONFIG).write_bytes((HERE / SERVER_CONFIG).read_bytes())
    return JupyterServer(tmp, tmp / "work", env={
        "JUPYTER_CONFIG_PATH": str(tmp / "config_path"), "JUPYTERHUB_API_TOKEN": None,
        "KPCA_CHECK_URL": None, "KPCA_COURSE_ID": None, **env}).start()


@pytest.fixture(scope="module")
def on_hub(tmp_path_factory, service):
    server = _server(tmp_path_factory.mktemp("duehub"), {
        "JUPYTERHUB_API_TOKEN": HUB_TOKEN, "KPCA_CHECK_URL": service.url,
        "KPCA_COURSE_ID": "kernel_pca"})
    yield server
    server.stop()


def _get(server: JupyterServer, query: str, headers: dict | None = None,
         login: bool = True) -> tuple[int, dict]:
    request = urllib.request.Request(f"{server.url}/kpca/due?{query}", headers={
        **({"Authorization": f"token {server.token}"} if login else {}), **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as refused:
        body = refused.read()
        return refused.code, json.loads(body) if body.startswith(b"{") else {}


def test_only_the_servers_owner_may_ask(on_hub, service):
    before = len(service.asked)
    status, _ = _get(on_hub, f"ps={PS}", login=False)
    assert status == 403 and len(service.asked) == before


def test_the_service_gets_the_name_and_the_servers_hub_token_only(on_hub, service):
    status, reply = _get(on_hub, f"ps={PS}&student=bob&user=bob",
                         headers={"X-Forwarded-User": "bob", "Cookie": "jupyterhub-session=bob"})
    assert status == 200, reply
    assert reply == {"course": "kernel_pca", "due": {PS: {
        "state": "due", "shown": "Your due date: 2026-12-13 17:00 UTC. Late: no late hand-ins.",
        "due": None, "extended": False, "exempt": False}}}
    path, headers, body = service.asked[-1]
    assert (path, body) == ("/services/kpca-check/due", {"problem_set": PS})
    assert headers["Authorization"] == f"token {HUB_TOKEN}"
    assert "bob" not in json.dumps(headers) and on_hub.token not in json.dumps(headers)


@pytest.mark.parametrize(("query", "said"), [
    ("", "ValueError: name the problem sets: ?ps=<problem set>, got none"),
    ("&".join(f"ps=ps{i}" for i in range(17)), "ValueError: at most 16 problem sets at once"),
    ("ps=%3Cscript%3Ealert(1)%3C/script%3E", "got '<script>alert(1)</script>'"),
])
def test_bad_names_are_refused_with_a_line(on_hub, service, query, said):
    before = len(service.asked)
    status, reply = _get(on_hub, query)
    assert status == 400 and said in reply["message"], reply
    assert len(service.asked) == before


def test_a_hanging_service_gives_a_line_within_the_timeout(on_hub):
    started = time.monotonic()
    status, reply = _get(on_hub, f"ps={SLOW}")
    assert time.monotonic() - started < UPSTREAM_SECONDS + 3
    assert status == 200 and reply["due"][SLOW]["shown"] == UNAVAILABLE


def test_off_the_hub_the_route_asks_nothing(tmp_path, service):
    server = _server(tmp_path, {})
    try:
        before = len(service.asked)
        status, reply = _get(server, f"ps={PS}")
        assert (status, reply["off_hub"]) == (200, True) and "due" not in reply
        assert len(service.asked) == before
    finally:
        server.stop()
