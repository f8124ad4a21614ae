"""The class report's instant-check table: who checked, attempts before right, mistakes."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update

from kit.checks.store import ATTEMPTS, Store, summary
from kit.course import copy_course
from kit.report.data import ProblemSet, instant_checks
from kit.report.page import _checks_table


def record(store: Store, student: str, verdicts: list[tuple[str, str | None]], item="ps1_circle_u"):
    for verdict, code in verdicts:
        row, _ = store.reserve(student, item, "ps1_circle_lift", 10)
        store.finish(row, verdict, code)
    store.note(student, item, "ps1_circle_lift", "form")  # not counted, not in the table


def test_summary_counts_students_attempts_before_right_and_mistakes_before_hand_in(tmp_path):
    url = f"sqlite:///{tmp_path / 'checks.db'}"
    store = Store(url)
    record(store, "ada", [("mistake", "u_sign"), ("wrong", None), ("right", None)])
    record(store, "bob", [("right", None)])
    record(store, "cy", [("mistake", "u_sign"), ("mistake", "u_radius")])
    late = dt.datetime(2030, 1, 1)
    with store.engine.begin() as conn:  # cy's second mistake came after the hand-in
        conn.execute(update(ATTEMPTS).where(ATTEMPTS.c.student == "cy",
                                            ATTEMPTS.c.code == "u_radius").values(at=late))
    found = summary(url, {("cy", "ps1_circle_lift"): dt.datetime(2029, 1, 1)})["ps1_circle_u"]
    assert found == {"students": 3, "right": 2, "attempts_before_right": 1.0,
                     "mistakes": [("u_sign", 2)]}
    html = _checks_table(ProblemSet("ps1_circle_lift", 10, 0, checks={"ps1_circle_u": found}))
    assert "<code>ps1_circle_u</code>" in html and "<code>u_sign</code> (2)" in html
    assert summary(f"sqlite:///{tmp_path / 'none.db'}") == {}


def test_a_course_without_checks_reports_none(tmp_path):
    course = copy_course(tmp_path / "course", ["ps1_circle_lift"])
    assert instant_checks(course) == {}
    assert "no instant checks" in _checks_table(ProblemSet("ps1_circle_lift", 10, 0))
