"""Instant checks close at each student's own due date (the calendar's, extension included).

The check service (against the fake hub of ``tests/checks/conftest.py``) in a course whose
calendar made ps1 due at 2026-12-10 16:00 UTC, bob having two more days and cy exempt; the
clock is the simulated term's (``KPCA_NOW``). After the due date ada's check is refused with
the reason and nothing recorded; bob's and cy's still reach the judge; before it, ada's does.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from kit.term import NOW_VAR, save
from kit.term.calendar import Calendar, Entry, Extension
from kit.term.times import Policy
from kpca_probe.wire import encode
from kpca_ref import variants
from tests.checks.conftest import start_service
from tests.support import aio

ITEM = "ps1_lift_point"
DUE = dt.datetime(2026, 12, 10, 16, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    cal = Calendar.empty()
    cal.entries["ps1_circle_lift"] = Entry(None, DUE, "Europe/Berlin", Policy())
    cal.extensions["ps1_circle_lift"] = {"bob": Extension("ill", days=2)}
    cal.exemptions["ps1_circle_lift"] = {"cy": "joined late"}
    save(course, cal)
    service, stop = start_service(course, {"per_minute": 60, "judge_seconds": 30.0})
    yield service
    stop()


def answer(student: str) -> dict:
    return {"item": ITEM, "answer": encode(variants.answer(ITEM, student)[0])}


def recorded(service, student: str) -> int:
    with sqlite3.connect(service.db) as db:
        return db.execute("SELECT count(*) FROM kpca_check_attempts WHERE student = ?",
                          [student]).fetchone()[0]


def test_checks_close_at_the_students_own_due_date(service, monkeypatch):
    monkeypatch.setenv(NOW_VAR, "2026-12-11 09:00 UTC")  # after the due date, within bob's
    status, reply = service.post(answer("ada"), token="tok-ada")
    assert (status, reply["verdict"]) == (403, "refused")
    assert "closed at your due date, 2026-12-10 17:00 Europe/Berlin" in reply["message"]
    assert recorded(service, "ada") == 0
    for student in ("bob", "cy"):
        status, reply = service.post(answer(student), token=f"tok-{student}")
        assert (status, reply["verdict"]) == (200, "right"), reply
    monkeypatch.setenv(NOW_VAR, "2026-12-10 15:59 UTC")  # before it
    status, reply = service.post(answer("ada"), token="tok-ada")
    assert (status, reply["verdict"]) == (200, "right"), reply


def _notebook_due(service, monkeypatch, token: str | None, ps: str = "ps1_circle_lift", **env):
    """What the numbers cell's ``due_date()`` prints and returns, run as on the hub."""
    import contextlib
    import io
    import os

    from kpca_ref.variants.cell_due import DUE_CALL, DUE_PART

    monkeypatch.setenv("KPCA_CHECK_URL", service.url)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    if token is None:
        monkeypatch.delenv("JUPYTERHUB_API_TOKEN", raising=False)
    else:
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", token)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    scope, out = {"_os": os, "_PS": ps}, io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(DUE_PART + "\n" + DUE_CALL, scope)  # noqa: S102 - the numbers cell's part
    assert (scope["_DUE_LINE"] or "") == out.getvalue().strip()
    return out.getvalue().strip()


def test_the_notebook_shows_each_student_s_own_due_date(service, monkeypatch):
    monkeypatch.setenv(NOW_VAR, "2026-12-09 12:00 UTC")
    assert _notebook_due(service, monkeypatch, "tok-ada") == (
        "Your due date for ps1_circle_lift: 2026-12-10 17:00 Europe/Berlin. Late: no penalty.")
    assert _notebook_due(service, monkeypatch, "tok-bob").startswith(
        "Your due date for ps1_circle_lift: 2026-12-12 17:00 Europe/Berlin (an extension of 2 "
        "days: ill).")
    assert _notebook_due(service, monkeypatch, "tok-cy") == (
        "You are exempt from ps1_circle_lift's due date (joined late).")
    assert _notebook_due(service, monkeypatch, "tok-ada", "ps2_feature_maps") == (
        "ps2_feature_maps has no due date yet.")
    monkeypatch.setenv(NOW_VAR, "2026-12-11 16:00 UTC")
    assert "; it passed 1 day ago." in _notebook_due(service, monkeypatch, "tok-ada")
    # graded or validated, off the hub: nothing printed, nothing asked
    assert _notebook_due(service, monkeypatch, "tok-ada", NBGRADER_EXECUTION="autograde") == ""
    assert _notebook_due(service, monkeypatch, None) == ""
    # staff, a stranger, a service that cannot be reached: a line saying so, no date
    assert "not shown" in _notebook_due(service, monkeypatch, "tok-tom")
    assert "not shown (this hub token is not valid" in _notebook_due(service, monkeypatch, "tok-x")
    unreachable = type(service)("http://127.0.0.1:9/nothing/", service.course, service.db)
    assert "cannot say right now" in _notebook_due(unreachable, monkeypatch, "tok-ada")


def test_the_due_date_request_reads_one_name_and_answers_clean_json(service, monkeypatch):
    from kit.term import load

    status, reply = service.exchange(b'{"problem_set": "ps9_nothing"}', "tok-ada", "due")
    assert status == 404 and b"no such problem set" in reply
    for body in (b"not json", b'{"problem_set": 7}', b"[]", b"{" * 10_000,
                 json_body := b'{"problem_set": "' + b"x" * 100_000 + b'"}'):
        status, reply = service.exchange(body, "tok-ada", "due")
        assert status in (400, 404, 413), (status, reply[:200])
    assert len(json_body) > 4096
    assert service.exchange(b"{}", None, "due")[0] == 401
    # a reason written with markup and terminal escapes reaches the notebook as plain text
    cal = load(service.course)
    before = (service.course / "term.json").read_text()
    cal.extensions["ps1_circle_lift"]["bob"] = Extension("<script>alert(1)</script>\x1b[2J\u202e", days=2)
    save(service.course, cal)
    try:
        status, reply = service.exchange(b'{"problem_set": "ps1_circle_lift"}', "tok-bob", "due")
    finally:
        (service.course / "term.json").write_text(before)
    assert status == 200 and b"<" not in reply and b"\\u001b" not in reply and b"\x1b" not in reply
    assert b"\\u202e" not in reply and "alert(1)" in reply.decode()


def test_the_numbers_cell_prints_the_due_date_under_the_numbers(service, monkeypatch, capsys):
    """The whole numbers cell, as the notebook holds it, run as on the hub for bob."""
    from kpca_ref.variants.cell import numbers_cell

    monkeypatch.setenv(NOW_VAR, "2026-12-09 12:00 UTC")
    for name, value in {"JUPYTERHUB_USER": "bob", "JUPYTERHUB_API_TOKEN": "tok-bob",
                        "KPCA_CHECK_URL": service.url}.items():
        monkeypatch.setenv(name, value)
    for name in ("KPCA_STUDENT_ID", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(name, raising=False)
    exec(numbers_cell("ps1_circle_lift"), {"STUDENT_ID": ""})  # noqa: S102 - the numbers cell
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "Your numbers (variant for 'bob'):"
    assert out[-1].startswith("Your due date for ps1_circle_lift: 2026-12-12 17:00 Europe/Berlin "
                              "(an extension of 2 days: ill).")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # graded: the numbers only
    exec(numbers_cell("ps1_circle_lift"), {"STUDENT_ID": ""})  # noqa: S102 - the numbers cell
    assert "due date" not in capsys.readouterr().out


def test_the_due_date_is_the_token_s_own_and_a_flood_of_requests_floods_only_itself(
        service, monkeypatch):
    """A body naming another student is not read (the token says who asks); a student who
    asks for her due date over and over is refused after the minute's limit, and neither
    her graded checks nor a classmate's due date wait for it."""
    import json

    monkeypatch.setenv(NOW_VAR, "2026-12-09 12:00 UTC")
    forged = json.dumps({"problem_set": "ps1_circle_lift", "student": "bob", "user": "bob",
                         "name": "bob", "student_id": "bob"}).encode()
    status, reply = service.exchange(forged, "tok-ada", "due")
    assert status == 200 and b"2026-12-10 17:00" in reply and b"extension" not in reply
    body = b'{"problem_set": "ps1_circle_lift"}'
    statuses = [service.exchange(body, "tok-dee", "due")[0] for _ in range(61)]
    assert statuses[:60] == [200] * 60 and statuses[60] == 429  # 60 a minute here
    assert b"too many requests in a minute" in service.exchange(body, "tok-dee", "due")[1]
    status, reply = service.post(answer("dee"), token="tok-dee")
    assert (status, reply["verdict"]) == (200, "right"), reply
    assert service.exchange(body, "tok-ada", "due")[0] == 200


def test_a_flood_of_made_up_tokens_pushes_out_no_student_s_login(monkeypatch):
    """Every request with a token the service has not seen asks the hub; a student's kernel
    can send ten thousand made-up ones (here the memory holds 200, to keep the test short).
    They fill the refused tokens' memory only: the class's own logins are still known
    without the hub (here: once it is gone); they were all forgotten."""
    import asyncio

    from kit.checks import access
    from tests.checks.conftest import fake_hub

    monkeypatch.setattr(access, "MAX_KEPT", 200)

    async def flood(ids, n):
        for start in range(0, n, 500):
            found = await asyncio.gather(*(ids.user(f"made-up-{i}")
                                           for i in range(start, min(n, start + 500))))
            assert not any(found)

    with fake_hub() as api_url:
        ids = access.Identities(api_url)
        assert aio.run(ids.user("tok-ada")).name == "ada"
        aio.run(flood(ids, access.MAX_KEPT + 1))
    assert aio.run(ids.user("tok-ada")).name == "ada"  # no hub to ask: still held
