"""The demo's term (``kit.demo_term``), checked on the session's demo run: the calendar it
sets, the late hand-in and its penalty, the extension, the solutions handed out at the
simulated clock and refused before a student's own due date, and the overview page."""

from __future__ import annotations

import csv
import datetime as dt

from kit.demo_term import EXTENSION, LATE_HAND_IN, OVERVIEW_FOR, SOLUTIONS, WEEKS
from kit.intake.received import received_time
from kit.term import load


def _rows(course):
    with (course.root / "reports" / "grades.csv").open() as fh:
        return {(r["student"], r["assignment"]): r for r in csv.DictReader(fh)}


def test_the_calendar_is_the_instructors_command_s(demo_run):
    course, _ = demo_run
    cal = load(course)
    assert set(cal.entries) == set(WEEKS)
    student, ps, days, reason = EXTENSION
    assert cal.extension(student, ps).reason == reason
    own, class_due = cal.due_for(student, ps), cal.entry(ps).due
    assert (own - class_due).total_seconds() == days * 86400


def test_only_the_late_hand_in_loses_marks_and_the_csv_says_why(demo_run):
    course, _ = demo_run
    rows = _rows(course)
    late_student, late_ps, _ = LATE_HAND_IN
    late = rows[late_student, late_ps]
    assert float(late["score"]) > 0, "the late hand-in must have something to lose"
    assert float(late["late_penalty"]) > 0 and late["late"], late
    assert float(late["score_after_late"]) == round(float(late["score"]) - float(late["late_penalty"]), 2)
    on_time = [r for key, r in rows.items() if key[1] in WEEKS and key != (late_student, late_ps)
               and r["status"] == "graded"]
    assert on_time, "the calendar's problem sets have graded hand-ins"
    for r in on_time:  # kim's ps2 came after the class's due date, inside her extension
        assert float(r["late_penalty"] or 0) == 0, r
        assert float(r["score_after_late"]) == float(r["score"]), r
    student, ps, _, _ = EXTENSION
    cal = load(course)
    arrived = received_time(course, student, ps)
    arrived = arrived if arrived.tzinfo else arrived.replace(tzinfo=dt.timezone.utc)
    assert cal.entry(ps).due < arrived < cal.due_for(student, ps), "late for the class, not for her"


def test_solutions_wait_for_each_students_own_due_date(demo_run):
    course, _ = demo_run
    ps, (past, extended) = SOLUTIONS
    assert extended == EXTENSION[0] and ps == EXTENSION[1]
    mine = course.root / "solutions" / past / ps
    assert any(mine.glob("*.ipynb")) and any(mine.glob("*.html")), sorted(mine.glob("*"))
    assert not (course.root / "solutions" / extended).exists()


def test_the_overview_is_written_for_one_student(demo_run):
    course, _ = demo_run
    page = (course.root / "reports" / "overview" / f"{OVERVIEW_FOR}.html").read_text(encoding="utf-8")
    assert OVERVIEW_FOR in page
    assert "late" in page.lower()
    assert "<script" not in page.lower()


def test_a_fresh_demo_forgets_only_a_gradebook_of_the_demo_class(tmp_path, monkeypatch):
    """An earlier run's gradebook may hold graded cells the release has changed since (nbgrader
    then refuses to release): the demo removes it, but never one holding anyone else."""
    from nbgrader.api import Gradebook

    from kit.course import DB_URL_VAR, Course
    from kit.demo import _forget_demo_gradebook

    monkeypatch.delenv(DB_URL_VAR, raising=False)
    for students, kept in ((["ada_reference", "jun_loops"], False), (["ada_reference", "zoe"], True)):
        course = Course(tmp_path / str(kept))
        course.root.mkdir()
        with Gradebook(course.db_url) as gb:
            for s in students:
                gb.add_student(s)
        _forget_demo_gradebook(course)
        assert (course.root / "gradebook.db").exists() == kept, students


def test_the_per_part_grades_carry_the_late_penalty_and_add_up(demo_run):
    course, _ = demo_run
    with (course.root / "reports" / "grades_by_part.csv").open() as fh:
        parts = list(csv.DictReader(fh))
    late_student, late_ps, _ = LATE_HAND_IN
    late_rows = [r for r in parts if r["kind"] == "late"]
    assert [(r["student"], r["assignment"]) for r in late_rows] == [(late_student, late_ps)]
    assert float(late_rows[0]["points"]) == -float(_rows(course)[late_student, late_ps]["late_penalty"])
    sums: dict = {}
    for r in parts:
        if r["points"]:
            sums[r["student"], r["assignment"]] = sums.get((r["student"], r["assignment"]), 0) + float(r["points"])
    for key, row in _rows(course).items():
        if row["status"] == "graded":
            assert round(sums.get(key, 0), 2) == float(row["score_after_late"]), (key, row)
