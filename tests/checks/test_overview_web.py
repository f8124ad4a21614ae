"""The overview as the check service serves it: her own page, and nothing of anyone else's.

The service (:func:`kit.checks.service.make_app`, the hub's login through JupyterHub's own
``HubOAuth``) runs beside a fake hub API on the term of :mod:`tests.checks.overview_course`.
Attacks: another student named in the query, the path or a header the proxy might add; a
cookie not signed by the service, signed with another secret, or holding another token in
the clear; a staff, outsider or scope-less login; a name full of markup; a page too large.
Each must show nothing of another student (bob's late score, ada's feedback).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import threading
import time

import pytest
from tornado import ioloop
from tornado.web import create_signed_value

from tests.browser.harness import free_port
from tests.checks.conftest import fake_hub
from tests.checks.overview_course import PS, make_term

PREFIX = "/services/kpca-check/"
ACCESS = "access:services!service=kpca-check"
#: what only bob's page shows, and only ada's
BOB_ONLY, ADA_ONLY = "handed in 17 h late", "feedback on ps1_circle_lift"


@pytest.fixture(scope="module")
def served(released_ps1, tmp_path_factory):
    """The service with the hub's own OAuth login, against the fake hub of the checks'
    conftest (:func:`tests.checks.conftest.fake_hub`, its tokens)."""
    from jupyterhub.services.auth import HubOAuth

    from kit.checks.service import listen, make_app

    course = make_term(released_ps1, tmp_path_factory.mktemp("served") / "course")
    port, started, holder = free_port(), threading.Event(), {}
    saved = os.environ.get("KPCA_NOW")
    os.environ["KPCA_NOW"] = "2026-12-14 12:00 Europe/Berlin"

    def run(api):
        asyncio.set_event_loop(asyncio.new_event_loop())
        auth = HubOAuth(api_url=api, api_token="service-token", base_url=PREFIX,
                        oauth_client_id="service-kpca-check", hub_prefix="/hub/",
                        access_scopes={ACCESS}, cache_max_age=0)
        app = make_app(course.root, api, PREFIX, {"workers": 1, "warm_judges": False},
                       hub_auth=auth)
        listen(app, port)
        holder["loop"], holder["app"] = ioloop.IOLoop.current(), app
        started.set()
        holder["loop"].start()

    with fake_hub() as api:
        thread = threading.Thread(target=run, args=(api,), daemon=True)
        thread.start()
        assert started.wait(60)
        yield {"port": port, "course": course, "app": holder["app"]}
        holder["app"].kpca_state["judges"].close()
        holder["loop"].add_callback(holder["loop"].stop)
        thread.join(10)
    if saved is None:
        os.environ.pop("KPCA_NOW", None)
    else:
        os.environ["KPCA_NOW"] = saved


def get(served, path: str, token: str | None = None, **headers) -> tuple[int, dict, str]:
    """``(status, headers, body)`` of one GET (redirects not followed)."""
    if token:
        headers["Authorization"] = f"token {token}"
    conn = http.client.HTTPConnection("127.0.0.1", served["port"], timeout=30)
    with contextlib.closing(conn):
        conn.request("GET", PREFIX + path, headers=headers)
        reply = conn.getresponse()
        return reply.status, dict(reply.getheaders()), reply.read().decode("utf-8", "replace")


def test_her_own_page_and_no_script(served):
    status, headers, body = get(served, "overview/", "tok-ada")
    assert status == 200, body
    assert "Signed in as <strong>ada</strong>" in body and ADA_ONLY in body
    assert BOB_ONLY not in body and "<script" not in body.lower()
    assert "script-src" not in headers["Content-Security-Policy"]
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    status, _, body = get(served, "overview/", "tok-bob")
    assert "Signed in as <strong>bob</strong>" in body and BOB_ONLY in body and ADA_ONLY not in body


@pytest.mark.parametrize("path", [
    "overview/?student=bob&user=bob&name=bob", "overview/?token=tok-bob",
    "overview/?student=bob&student=ada"])
def test_a_query_names_nobody(served, path):
    status, _, body = get(served, path, "tok-ada")
    assert status == 200 and "Signed in as <strong>ada</strong>" in body
    assert BOB_ONLY not in body


@pytest.mark.parametrize("path", [
    "overview/bob", "overview/bob/", "overview/feedback/bob", "overview/feedback/ps1_circle_lift/bob",
    "overview/feedback/..%2Fbob%2Fps1_circle_lift", "overview/feedback/../../feedback/bob",
    "overview/solutions/ps1_circle_lift%2F..%2F..%2Fbob", "overview/feedback/%2e%2e"])
def test_a_path_names_nobody(served, path):
    status, _, body = get(served, path, "tok-ada")
    assert status in (400, 404), (status, body)
    assert "<h1>feedback" not in body and "<h1>solutions" not in body and BOB_ONLY not in body
    assert "bob" not in body  # the refusal does not even echo the name


@pytest.mark.parametrize("header", ["X-Forwarded-User", "X-JupyterHub-User", "Remote-User",
                                    "X-Remote-User", "X-Auth-Request-User"])
def test_a_header_is_no_login(served, header):
    status, headers, body = get(served, "overview/", **{header: "bob"})
    assert status == 302 and headers["Location"].startswith("/hub/api/oauth2/authorize?")
    assert "bob" not in body


def test_only_a_cookie_the_service_signed_logs_in(served):
    app, name = served["app"], "service-kpca-check"
    secret = app.settings["cookie_secret"]
    good = create_signed_value(secret, name, "tok-bob").decode()
    status, _, body = get(served, "overview/", Cookie=f"{name}={good}")
    assert status == 200 and BOB_ONLY in body  # the cookie path works ...
    for forged in ("tok-bob", create_signed_value(os.urandom(32), name, "tok-bob").decode(),
                   good[:-2] + ("00" if not good.endswith("00") else "11"),
                   create_signed_value(secret, name, "tok-nobody").decode()):
        status, _, body = get(served, "overview/", Cookie=f"{name}={forged}")
        assert status == 302 and BOB_ONLY not in body, forged  # ... a forged one is no login
    # a real cookie of ada beside a header naming bob: ada's page
    ada = create_signed_value(secret, name, "tok-ada").decode()
    status, _, body = get(served, "overview/", Cookie=f"{name}={ada}", **{"X-Forwarded-User": "bob"})
    assert "Signed in as <strong>ada</strong>" in body and BOB_ONLY not in body


# the instructor (staff, access to every service), a staff member in the students' group, a
# user of another course, ada's tokens without the service's access scope
@pytest.mark.parametrize("token", ["tok-kim", "tok-both", "tok-out", "tok-ada-read",
                                   "tok-ada-noscope"])
def test_staff_outsiders_and_scopeless_tokens_get_no_page(served, token):
    for path in ("overview/", f"overview/feedback/{PS}", f"overview/solutions/{PS}"):
        status, _, body = get(served, path, token)
        assert status == 403, (token, path, status)
        assert "Signed in" not in body and "feedback ada" not in body and "solutions" not in body.lower().split("<body>")[0]


def test_her_feedback_and_solutions_only(served):
    status, headers, body = get(served, f"overview/feedback/{PS}", "tok-ada")
    assert status == 200 and "feedback ada" in body
    assert headers["Content-Security-Policy"].startswith("sandbox")
    status, _, body = get(served, f"overview/feedback/{PS}", "tok-bob")  # none generated
    assert status == 404 and "ada" not in body
    status, _, body = get(served, f"overview/solutions/{PS}", "tok-bob")
    assert status == 200 and "solutions bob" in body
    status, _, body = get(served, f"overview/solutions/{PS}", "tok-dee")  # his due: 12-20
    assert status == 404 and "solutions dee" not in body
    status, _, body = get(served, "overview/feedback/ps9_unknown", "tok-ada")
    assert status == 404


def test_markup_in_a_login_name_is_text(served):
    status, _, body = get(served, "overview/", "tok-evil")
    assert status == 200
    assert "<img" not in body and "\x1b" not in body
    assert "&lt;img src=x onerror=alert(1)&gt;&quot;\\x1b]0;t\\x07" in body


def test_a_huge_feedback_page_is_refused_at_once(served):
    from kit.checks.overview_web import MAX_PAGE

    page = served["course"].root / "feedback" / "dee" / PS / f"{PS}.html"
    page.parent.mkdir(parents=True)
    with open(page, "wb") as fh:
        fh.truncate(MAX_PAGE + 1)  # sparse
    try:
        start = time.monotonic()
        status, _, body = get(served, f"overview/feedback/{PS}", "tok-dee")
        assert status == 404 and "cannot be shown" in body and time.monotonic() - start < 5
    finally:
        page.unlink()


def test_the_hub_login_comes_from_the_hubs_environment(monkeypatch):
    """Without the hub's token (the service run by hand) there is no login, and the page
    says so (503); with it, JupyterHub's OAuth for this service, needing its access scope."""
    from kit.checks.overview_web import hub_oauth

    for name in ("JUPYTERHUB_API_TOKEN", "JUPYTERHUB_CLIENT_ID", "JUPYTERHUB_OAUTH_ACCESS_SCOPES"):
        monkeypatch.delenv(name, raising=False)
    assert hub_oauth("http://127.0.0.1:1/hub/api", PREFIX, "kpca-check") is None
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "service-token")
    auth = hub_oauth("http://127.0.0.1:1/hub/api", PREFIX, "kpca-check")
    assert auth.oauth_client_id == "service-kpca-check" and auth.access_scopes == {ACCESS}
    assert auth.allow_token_in_url is False and auth.base_url == PREFIX
