"""The late policy reaches the gradebook on every grading path, from times the student cannot write.

One released course, one calendar (due 2026-12-10 16:00 UTC, "grace 15m; 10% per day; cap
50%"), and six hand-ins received at known times: late by 26 h (2 days begun: 20%), on time,
inside the grace, late but on time with an extension, very late but exempt, and late with a
``timestamp.txt`` inside the hand-in claiming it came early. Each path must write the same
``SubmittedNotebook.late_submission_penalty``: the kit's recording through nbgrader's ORM,
the kit's bulk recording (the cluster's), and nbgrader's own autograde steps
(``SyncCalendar`` then ``AssignLatePenalties`` with the calendar's plugin, as
``nbgrader_config.py`` configures them).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from nbgrader.api import Gradebook

from kit.engines.recording import record, record_batch
from kit.intake.received import record_received
from kit.term.__main__ import main as term

PS = "ps1_circle_lift"
T = dt.datetime
#: student: (time the course received the hand-in, naive UTC; share of the score taken or None)
CASES = {
    "late": (T(2026, 12, 11, 18, 0), 0.2),
    "ontime": (T(2026, 12, 10, 15, 0), None),
    "grace": (T(2026, 12, 10, 16, 10), 0.0),
    "extended": (T(2026, 12, 12, 10, 0), None),
    "exempt": (T(2026, 12, 30, 10, 0), None),
    "forged": (T(2026, 12, 11, 18, 0), 0.2),
}


@pytest.fixture
def course(released_ps1, tmp_path):
    course = released_ps1(tmp_path / "course")
    for student, (when, _) in CASES.items():
        folder = course.root / "submitted" / student / PS
        folder.mkdir(parents=True)
        (folder / f"{PS}.ipynb").write_text("{}")
        if student == "forged":  # what the student wrote: early, and unreadable junk too
            (folder / "timestamp.txt").write_text("2026-12-01 09:00:00.000000 UTC")
        record_received(course, student, PS, when, "test intake")
    root = ["--course", str(course.root)]
    assert term([*root, "set", PS, "--opens", "2026-12-03 09:00 UTC", "--due",
                 "2026-12-10 17:00 Europe/Berlin", "--late", "grace 15m; 10% per day; cap 50%"]) == 0
    assert term([*root, "extend", "extended", PS, "--days", "2", "--reason", "ill"]) == 0
    assert term([*root, "exempt", "exempt", PS, "--reason", "excused"]) == 0
    return course


def result(course, student: str) -> dict:
    with Gradebook(course.db_url) as gb:
        nb = gb.find_notebook(PS, PS)
        grades = sorted(c.name for c in nb.grade_cells)
        solutions = sorted(c.name for c in nb.solution_cells)
    files = {"timestamp.txt": b"2026-12-01 09:00:00.000000 UTC"} if student == "forged" else {}
    return {"files": files, "grades": {g: 1.0 for g in grades}, "comments": {s: None for s in solutions}}


def penalties(course) -> dict:
    with Gradebook(course.db_url) as gb:
        out = {}
        for sub in gb.assignment_submissions(PS):
            (nb,) = sub.notebooks
            out[sub.student_id] = (nb.late_submission_penalty, nb.score, sub.timestamp)
        return out


def expected(course) -> dict:
    got = penalties(course)
    return {s: (None if share is None else pytest.approx(share * got[s][1]), got[s][1], when)
            for s, (when, share) in CASES.items()}


def check(course) -> None:
    got = penalties(course)
    assert got == expected(course)
    assert got["late"][0] > 0 and got["late"][1] > 0  # a real score, really reduced


def test_recording_one_at_a_time_applies_the_calendar(course):
    for student in CASES:
        record(course, PS, student, result(course, student))
    check(course)


def test_bulk_recording_applies_the_calendar(course):
    with Gradebook(course.db_url) as gb:
        record_batch(course, [(PS, s, result(course, s)) for s in CASES], gb)
    check(course)
    with Gradebook(course.db_url) as gb:  # an extension granted before the hand-in reached it
        assert gb.find_submission(PS, "extended").extension == dt.timedelta(days=2)
        assert gb.find_submission(PS, "late").extension is None


def test_nbgraders_autograde_steps_apply_the_calendar_through_its_plugin(course):
    from nbgrader.preprocessors import AssignLatePenalties

    from kit.term.late import SyncCalendar

    config = course.config()
    steps = [cls(config=config) for cls in (SyncCalendar, AssignLatePenalties)]
    assert type(steps[1].plugin_class(parent=steps[1])).__name__ == "TermLatePenalty"
    for student in CASES:
        record(course, PS, student, result(course, student))
    with Gradebook(course.db_url) as gb:  # as plain `nbgrader autograde` leaves them first
        for student in CASES:
            sub = gb.find_submission(PS, student)
            sub.timestamp, sub.extension = T(2026, 12, 1, 9, 0), None  # timestamp.txt's word
            sub.notebooks[0].late_submission_penalty = None
        gb.db.commit()
    for student in CASES:
        resources = {"nbgrader": {"notebook": PS, "assignment": PS, "student": student,
                                  "db_url": course.db_url},
                     "metadata": {"path": str(course.root / "autograded" / student / PS)}}
        for step in steps:
            step.preprocess(__import__("nbformat").v4.new_notebook(), resources)
    check(course)


def test_no_calendar_no_penalty(course):
    (course.root / "term.json").unlink()
    for student in ("late", "forged"):
        record(course, PS, student, result(course, student))
    assert {s: p[0] for s, p in penalties(course).items()} == {"late": None, "forged": None}


def test_regrade_recomputes_a_graded_hand_ins_penalty(course, capsys):
    record(course, PS, "late", result(course, "late"))
    assert penalties(course)["late"][0] > 0
    root = ["--course", str(course.root)]
    assert term([*root, "extend", "late", PS, "--days", "1", "--reason", "x"]) == 2
    assert penalties(course)["late"][0] > 0
    assert term([*root, "extend", "late", PS, "--days", "2", "--reason", "x", "--regrade"]) == 0
    assert penalties(course)["late"][0] is None
    assert "late / ps1_circle_lift: late penalty 0" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore:Your element with mimetype", "ignore:No lexer found")
def test_the_feedback_page_says_what_lateness_took_and_why(course):
    from bs4 import BeautifulSoup

    from tests.html.hostile_feedback import course_exporter, hostile_notebook

    exporter = course_exporter()  # the course's feedback steps, LateLine among them
    lines = {}
    for student in ("late", "grace", "ontime", "exempt"):
        resources = {"nbgrader": {"notebook": PS, "assignment": PS, "student": student},
                     "metadata": {"path": str(course.root / "autograded" / student / PS)}}
        page = exporter.from_notebook_node(hostile_notebook(), resources=resources)[0]
        lines[student] = [li.get_text() for li in BeautifulSoup(page, "html.parser")
                          .select("li.late-penalty")]
    (late,) = lines["late"]
    assert late.startswith(
        "Late: received 2026-12-11 19:00 Europe/Berlin, due 2026-12-10 17:00 Europe/Berlin: "
        "1 day 2 h late: 2 × 0.1 per day = 0.2 of the score; ")
    taken, score = map(float, re.fullmatch(r".*; (\S+) of (\S+) points taken", late).groups())
    assert score > 0 and taken == pytest.approx(0.2 * score)
    assert lines["grace"] == [(
        "Late: received 2026-12-10 17:10 Europe/Berlin, due 2026-12-10 17:00 Europe/Berlin: "
        "10 min late, within the grace of 15 min: nothing taken")]
    assert lines["ontime"] == lines["exempt"] == []
