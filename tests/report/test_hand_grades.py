"""A TA's hand grades and comment reach every output: nbgrader export, grades.csv, the class
report and the student's feedback page."""

from __future__ import annotations

import csv

from kit.handback.feedback import feedback_page
from tests.support.graded_class import HAND_COMMENT, PS

ADA_AUTO, ADA_HAND = 23.0, 3.5  # ps1's auto-graded maximum (a correct hand-in); 1.5 + 2 by hand
COMMENT_LINE = f"why_both_directions: {HAND_COMMENT}"


def _rows(path, key):
    with open(path, newline="", encoding="utf-8") as fh:
        return {r[key]: r for r in csv.DictReader(fh) if r["assignment"] == PS}


def test_nbgrader_export_has_the_hand_grades_and_comment(graded):
    rows = _rows(graded.export_csv, "student_id")
    ada, gus, ben = rows["ada"], rows["gus"], rows["ben"]
    assert float(ada["score"]) == ADA_AUTO + ADA_HAND  # the stock column counts hand grades
    assert (float(ada["auto_score"]), float(ada["manual_score"])) == (ADA_AUTO, ADA_HAND)
    assert ada["hand_graded"] == "yes" and ada["comments"] == COMMENT_LINE
    assert gus["hand_graded"] == "1 of 2" and float(gus["manual_score"]) == 1.0
    assert ben["hand_graded"] == "no" and ben["comments"] == "" and float(ben["manual_score"]) == 0


def test_grades_csv_splits_auto_and_manual_and_carries_the_comment(graded):
    rows = _rows(graded.course.root / "reports" / "grades.csv", "student")
    ada = rows["ada"]
    assert (float(ada["auto_score"]), float(ada["manual_score"]), float(ada["score"])) == (
        ADA_AUTO, ADA_HAND, ADA_AUTO + ADA_HAND)
    assert float(ada["auto_max"]) == ADA_AUTO and float(ada["manual_max"]) == 4.0
    assert float(ada["max_score"]) == ADA_AUTO + 4.0
    assert ada["hand_graded"] == "yes" and ada["comments"] == COMMENT_LINE
    gus = rows["gus"]
    assert gus["hand_graded"] == "1 of 2"
    assert float(gus["score"]) == float(gus["auto_score"]) + 1.0
    assert rows["zoe"]["status"] == "not submitted" and rows["zoe"]["hand_graded"] == ""
    assert rows["pat"]["status"].startswith("failed: ") and rows["pat"]["hand_graded"] == ""


def test_feedback_page_shows_the_comment_and_the_hand_score(graded):
    page = feedback_page(graded.course, PS, "ada").read_text(encoding="utf-8")
    assert HAND_COMMENT in page
    assert f"{ADA_AUTO + ADA_HAND:g} / 27" in page  # the page's total counts the hand grades
    assert HAND_COMMENT not in feedback_page(graded.course, PS, "ben").read_text(encoding="utf-8")


def test_class_report_shows_hand_grades_and_not_yet_graded(graded):
    page = (graded.course.root / "reports" / "class_report.html").read_text(encoding="utf-8")
    students = page.split("<section id=students>")[1]

    def row(student):
        return students.split(f"<td>{student}</td>")[1].split("</tr>")[0]

    assert f"{ADA_AUTO:g} + {ADA_HAND:g} = {ADA_AUTO + ADA_HAND:g}" in row("ada")
    assert "not yet graded" in row("gus") and "not yet graded" in row("ben")
    assert "not submitted" in row("zoe") and "could not be graded" in row("pat")
    points = page.split(f'<section id="{PS}">')[1].split("</table>")[0]
    assert "1 of 4 graded notebooks hand-graded" in points
