"""The class report and the grades CSV show students' text as text, never as markup or formula.

:func:`write_hostile_report` makes ``class_report.html`` (``kit/report/page.py``) for a class
whose every text field carries the plain-field payloads of :mod:`tests.html.xss_payloads`:
student ids (some with a feedback page, so their link is built from the id), failure
reasons, mistake codes, instant-check items and their mistakes, part titles and grade ids,
and the other ids a kernel typed. Nothing in the page may be active, and every id is shown.
Chromium opens the same page (``tests/browser/test_feedback_fields_browser.py``).

The CSV (``kit/gradebook/export.py``) gets the same ids and reasons, and formulas.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from unittest import mock
from urllib.parse import unquote

from bs4 import BeautifulSoup

from kit.course import Course
from kit.engines.job import Outcome
from kit.gradebook.hand_grades import Marks
from kit.report.data import Part, ProblemSet
from tests.html.test_sanitize import live_markers
from tests.html.xss_payloads import FIELDS

PS = "ps1_circle_lift"
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")
#: student ids: every field payload; those without a "/" get a feedback page (a link)
STUDENTS = {f"s_{name}": text for name, text in FIELDS.items()}
FORMULAS = ("=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-1+1", "@SUM(A1)", " =1+1",
            "\t=1+1", "=cmd|' /C calc'!A0")


def _problem_set() -> ProblemSet:
    ids = list(STUDENTS.values())
    ps = ProblemSet(PS, 20.0, 4.0)
    ps.graded = {s: Marks(auto=10.0, manual=2.0, manual_cells=1, manual_graded=1,
                          comments={"written": s}) for s in ids[:6]}
    ps.failed = {ids[6]: "could not be graded: " + FIELDS["tag"], ids[7]: FIELDS["title_break"]}
    ps.missing = ids[8:]
    ps.parts = [Part(text, text, 2.0, 0.5, 0.5) for text in FIELDS.values()]
    ps.mistakes = [(text, 3) for text in FIELDS.values()]
    ps.checks = {FIELDS["tag"]: {"students": FIELDS["close_attr"], "right": FIELDS["dq_attr"],
                                 "attempts_before_right": None,
                                 "mistakes": [(text, 1) for text in FIELDS.values()]}}
    return ps


def write_hostile_report(folder: Path) -> Path:
    """``class_report.html`` of the hostile class, in ``folder`` (feedback pages beside it)."""
    from kit.report import page

    course = Course(folder, database=f"sqlite:///{folder / 'gradebook.db'}")  # an empty gradebook
    for student in STUDENTS.values():
        if "/" not in student:
            feedback = folder / "feedback" / student / PS / f"{PS}.html"
            feedback.parent.mkdir(parents=True, exist_ok=True)
            feedback.write_text("<p>feedback</p>", encoding="utf-8")
    outcomes = [Outcome(s, PS, "graded") for s in STUDENTS.values()]
    wrong = [(s, PS, text) for s, text in zip(STUDENTS.values(), FIELDS.values())]
    with mock.patch.object(page, "summarise", return_value=[_problem_set()]), \
            mock.patch.object(page, "wrong_ids", return_value=wrong), \
            mock.patch.object(page, "problem_set_png", return_value=PNG):
        return page.write_report(course, outcomes, folder / "reports")


def test_nothing_in_the_class_report_can_run(tmp_path):
    report = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    assert live_markers(report) == set()
    soup = BeautifulSoup(report, "html.parser")
    text = soup.get_text()
    for student in STUDENTS.values():  # every id, reason and code is shown as typed
        assert student in text, student
    assert [t.get_text() for t in soup.find_all("title")] == ["Class report"]
    links = [a["href"] for a in soup.select("section#students a")]
    graded = list(STUDENTS.values())[:6]  # graded students have a link to their page
    assert len(links) == sum("/" not in s for s in graded) > 0
    assert all(h.startswith("../feedback/") for h in links), links
    for href in links:  # each link opens the student's own page
        assert (tmp_path / "reports" / unquote(href)).resolve().is_file(), href


def test_the_grades_csv_holds_no_formula_and_no_control_character(tmp_path):
    import csv

    from kit.gradebook import export

    outcomes = [Outcome(s, PS, "graded") for s in (*FORMULAS, *STUDENTS.values())]
    outcomes += [Outcome(f, PS, "failed", message=f) for f in FORMULAS]
    marks = {(PS, o.student): Marks(auto=1.0, comments={"=cell": o.student}) for o in outcomes}
    with mock.patch.object(export, "max_points", return_value=(20.0, 4.0)), \
            mock.patch.object(export, "current_marks", return_value=marks):
        path = export.write_csv(SimpleNamespace(), outcomes, tmp_path / "grades.csv")
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(outcomes)
    cells = [v for row in rows for v in row.values()]
    assert [v for v in cells if v.lstrip(" ")[:1] in ("=", "+", "-", "@", "\t", "\r")] == []
    students = [r["student"] for r in rows]
    assert students[:len(FORMULAS)] == ["'" + f if f[0] != "\t" else "\\x09=1+1" for f in FORMULAS]
    assert {export.as_text(s) for s in STUDENTS.values()} <= set(students)
    assert all(r["comments"].startswith("'=cell: ") for r in rows)


def test_the_nbgrader_export_holds_no_formula():
    """``nbgrader export`` (kit/gradebook/export_plugin.py): ids, names, e-mails, comments."""
    from kit.gradebook.export_plugin import HandGradesCsvExport

    student = SimpleNamespace(id="=1+1", last_name="@SUM(A1)", first_name=" -2",
                              email="+x@example.org")
    assignment = SimpleNamespace(name=PS, duedate=None, max_score=24.0)
    gradebook = mock.Mock()
    gradebook.find_submission.side_effect = __import__("nbgrader.api").api.MissingEntry
    row = HandGradesCsvExport._row(gradebook, assignment, student)
    assert row["student_id"] == "'=1+1" and row["last_name"] == "'@SUM(A1)"
    assert row["first_name"] == "' -2" and row["email"] == "'+x@example.org"
    gradebook.find_submission.assert_called_once_with(PS, "=1+1")  # looked up by its real id
