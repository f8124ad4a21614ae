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
