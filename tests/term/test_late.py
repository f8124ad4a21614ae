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
    return {"files": files, "grades": {g: None if g in solutions else 1.0 for g in grades},
            "comments": {s: None for s in solutions}}  # written answers wait for a TA


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
    assert lines["late"] == [(  # the points are the gradebook's (none here: GradesOf's 0)
        "Late: received 2026-12-11 19:00 Europe/Berlin, due 2026-12-10 17:00 Europe/Berlin: "
        "1 day 2 h late: 2 × 0.1 per day = 0.2 of the score")]
    assert lines["grace"] == [(
        "Late: received 2026-12-10 17:10 Europe/Berlin, due 2026-12-10 17:00 Europe/Berlin: "
        "10 min late, within the grace of 15 min: nothing taken")]
    assert lines["ontime"] == lines["exempt"] == []


def test_grades_csv_and_class_report_show_what_lateness_took(course):
    import csv

    from kit.engines.job import Outcome
    from kit.gradebook.export import COLUMNS, write_csv
    from kit.report.page import write_report

    root = ["--course", str(course.root)]
    hostile = "<img src=x onerror=alert(1)> =1+1"
    assert term([*root, "extend", "ontime", PS, "--days", "1", "--reason", hostile]) == 0
    for student in CASES:
        record(course, PS, student, result(course, student))
    outcomes = [Outcome(s, PS, "graded") for s in CASES] + [Outcome("absent", PS, "not submitted")]
    path = write_csv(course, outcomes)
    with path.open(newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
        fh.seek(0)
        rows = {r["student"]: r for r in csv.DictReader(fh)}
    assert header[:11] == ["student", "assignment", "status", "auto_score", "manual_score", "score",
                           "max_score", "auto_max", "manual_max", "hand_graded", "comments"]
    assert header[11:] == ["late_penalty", "score_after_late", "late"] and tuple(header) == COLUMNS
    stored = penalties(course)
    for student in CASES:
        row, (taken, score, _) = rows[student], stored[student]
        assert float(row["late_penalty"]) == pytest.approx(taken or 0.0)
        assert float(row["score_after_late"]) == pytest.approx(round(score - (taken or 0.0), 2))
        assert float(row["score"]) == pytest.approx(score)  # the column keeps its meaning
    assert float(rows["late"]["late_penalty"]) == pytest.approx(0.2 * float(rows["late"]["score"]))
    assert "2 × 0.1 per day" in rows["late"]["late"] and "within the grace" in rows["grace"]["late"]
    assert rows["exempt"]["late"] == "exempt: excused"
    assert rows["absent"]["late_penalty"] == rows["absent"]["late"] == ""

    from bs4 import BeautifulSoup

    page = write_report(course, outcomes, course.root / "reports").read_text(encoding="utf-8")
    section = BeautifulSoup(page, "html.parser").select_one("section#late")
    late = [li.get_text() for li in section.select("ul.late li")]
    assert [x.split(" / ")[0] for x in late] == ["forged", "grace", "late"]
    assert any("points taken" in x and "2 × 0.1 per day" in x for x in late)
    granted = [li.get_text() for li in section.select("ul.extensions li")]
    assert "extended / ps1_circle_lift: extension to 2026-12-12 17:00 Europe/Berlin (ill)" in granted
    assert "exempt / ps1_circle_lift: exempt (excused)" in granted
    assert f"ontime / ps1_circle_lift: extension to 2026-12-11 17:00 Europe/Berlin ({hostile})" in granted
    assert not section.select("img") and "&lt;img" in str(section)


def test_a_new_policy_or_an_exemption_reaches_graded_hand_ins_only_with_regrade(course, capsys):
    for student in CASES:
        record(course, PS, student, result(course, student))
    before = penalties(course)
    root = ["--course", str(course.root), "set", PS, "--late", "none"]
    assert term(root) == 2 and "graded hand-ins: add --regrade" in capsys.readouterr().err
    assert penalties(course) == before
    assert term([*root, "--regrade"]) == 0
    after = penalties(course)
    assert after["late"][0] == after["late"][1] > 0  # no late hand-ins: all of it
    assert after["grace"][0] == after["grace"][1]  # the new policy has no grace
    assert after["ontime"][0] is None and after["extended"][0] is None and after["exempt"][0] is None
    exempt = ["--course", str(course.root), "exempt", "late", PS, "--reason", "excused"]
    assert term(exempt) == 2 and penalties(course)["late"][0] > 0
    assert term([*exempt, "--regrade"]) == 0 and penalties(course)["late"][0] is None


def test_a_cluster_worker_grades_under_the_same_calendar(course):
    """The course bundle a Dask worker grades with carries the calendar (its own autograde
    and feedback page then apply it); the client records the same penalty in bulk (above)."""
    from kit.engines.dask_worker import course_bundle

    bundle = course_bundle(course, [PS])
    assert bundle["term.json"] == (course.root / "term.json").read_bytes()
    (course.root / "term.json").unlink()
    assert "term.json" not in course_bundle(course, [PS])
