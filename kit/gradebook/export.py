"""Step 6 of the pipeline: the grade export, ``reports/grades.csv``.

One row per student and problem set: the auto-graded score, the hand-graded score of the
written answers (what a TA has graded in formgrader so far; ``hand_graded`` says whether all,
none or some of them are graded), the total, the maxima, the status of the submission
("graded", "not submitted" or "failed: <why>"), the TA's comments, then what lateness took
under the course calendar (:mod:`kit.term`), the score after it and why. Scores are read from
the gradebook when the CSV is written, so hand grades given after grading appear in it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat

from kit.course import Course
from kit.engines.job import Outcome
from kit.gradebook.hand_grades import Marks, read_marks
from kit.inert import inert
from kit.term.late import recorded_lateness

COLUMNS = ("student", "assignment", "status", "auto_score", "manual_score", "score", "max_score",
           "auto_max", "manual_max", "hand_graded", "comments",
           # the course calendar's (kit/term): points lateness took, the score after it, why
           "late_penalty", "score_after_late", "late")

#: Statuses of a submission whose points are in the gradebook.
GRADED = ("graded", "already graded")


def max_points(course: Course, assignment: str) -> tuple[float, float]:
    """(auto-graded, manually graded) maximum points of ``assignment``."""
    nb = nbformat.read(course.notebook("source", assignment), as_version=4)
    auto = manual = 0.0
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade"):
            if meta.get("solution"):
                manual += float(meta["points"])
            else:
                auto += float(meta["points"])
    return auto, manual


def current_marks(course: Course, outcomes: list[Outcome]) -> dict[tuple[str, str], Marks]:
    """``{(assignment, student): Marks}`` of every graded outcome, read from the gradebook now."""
    return read_marks(course.db_url, [(o.assignment, o.student) for o in outcomes if o.status in GRADED])


#: what a spreadsheet reads as the start of a formula (after any leading spaces)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def not_a_formula(value: str) -> str:
    """``value`` with a ``'`` in front when a spreadsheet would read it as a formula: it
    starts, after any spaces, with ``=``, ``+``, ``-``, ``@`` or a tab or line break.
    Line breaks inside it are kept (a comment's lines).

    >>> print(not_a_formula(" =1+1"), not_a_formula("ok: -1"))
    ' =1+1 ok: -1
    """
    value = str(value)
    return "'" + value if value.lstrip(" ")[:1] in FORMULA_START else value


def as_text(value: str) -> str:
    """A student-chosen string for a spreadsheet cell: inert (:func:`kit.inert.inert`), and
    with a ``'`` in front when it starts like a formula (:func:`not_a_formula`).

    >>> print(as_text("=HYPERLINK(1)"), as_text("ada_lee"))
    '=HYPERLINK(1) ada_lee
    """
    return not_a_formula(inert(value))


def rows(course: Course, outcomes: list[Outcome]) -> list[dict]:
    """The CSV rows of ``outcomes``, in the order given (student, then problem set)."""
    maxima = {a: max_points(course, a) for a in {o.assignment for o in outcomes}}
    marks = current_marks(course, outcomes)
    lateness = recorded_lateness(course, [(o.assignment, o.student) for o in outcomes
                                          if o.status in GRADED])
    out = []
    for o in outcomes:
        auto_max, manual_max = maxima[o.assignment]
        m = marks.get((o.assignment, o.student)) or Marks(auto=o.total)
        graded = o.status in GRADED
        status = "graded" if graded else o.status if o.status != "failed" else f"failed: {inert(o.message)}"
        out.append({  # every text cell: a student's id, a failure's reason, graders' comments
            "student": as_text(o.student), "assignment": as_text(o.assignment),
            "status": as_text(status), "auto_score": m.auto, "manual_score": m.manual,
            "score": m.total, "max_score": auto_max + manual_max, "auto_max": auto_max,
            "manual_max": manual_max, "hand_graded": m.hand_graded if graded else "",
            "comments": not_a_formula(m.comment_text()),
            **_late(lateness.get((o.assignment, o.student)), m.total if graded else None),
        })
    return out


def _late(found, score) -> dict:
    """The late columns of one row: blank when not graded, 0 and the score when on time."""
    if score is None:
        return {"late_penalty": "", "score_after_late": "", "late": ""}
    taken, why, _ = found or (0.0, "", False)
    return {"late_penalty": taken, "score_after_late": round(max(0.0, score - taken), 2),
            "late": as_text(why)}


def write_csv(course: Course, outcomes: list[Outcome], path: Path | None = None) -> Path:
    """Write the rows of :func:`rows` to ``path`` (default ``reports/grades.csv``); return it.
    :func:`kit.gradebook.parts.write_by_part` writes the per-part rows beside it."""
    path = path or course.root / "reports" / "grades.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows(course, outcomes))
    return path
