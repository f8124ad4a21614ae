"""Step 6 of the pipeline: the grade export, ``reports/grades.csv``.

One row per student and problem set: the auto-graded score, the manually graded score
(0 until a TA grades the written answers in formgrader), the total, the maximum, and the
status of the submission ("graded", "not submitted" or "failed: <why>").
"""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat

from kit.autograde import Outcome
from kit.course import Course

COLUMNS = ("student", "assignment", "status", "auto_score", "manual_score", "score", "max_score")


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


def rows(course: Course, outcomes: list[Outcome]) -> list[dict]:
    """The CSV rows of ``outcomes``, in student then problem-set order."""
    maxima = {a: max_points(course, a) for a in {o.assignment for o in outcomes}}
    out = []
    for o in outcomes:
        auto_max, manual_max = maxima[o.assignment]
        manual_ids = _manual_ids(course, o.assignment)
        manual = round(sum(v for k, v in o.scores.items() if k in manual_ids), 2)
        auto = round(o.total - manual, 2)
        status = o.status if o.status != "failed" else f"failed: {o.message}"
        out.append({
            "student": o.student, "assignment": o.assignment, "status": status,
            "auto_score": auto, "manual_score": manual, "score": round(auto + manual, 2),
            "max_score": auto_max + manual_max,
        })
    return out


def _manual_ids(course: Course, assignment: str) -> set[str]:
    nb = nbformat.read(course.notebook("source", assignment), as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
        and c.metadata["nbgrader"].get("solution")
    }


def write_csv(course: Course, outcomes: list[Outcome], path: Path | None = None) -> Path:
    path = path or course.root / "reports" / "grades.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows(course, outcomes))
    return path
