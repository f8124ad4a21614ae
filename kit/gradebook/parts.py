"""Per-part grades: ``reports/grades_by_part.csv``, one row per graded cell of each hand-in.

``grades.csv`` keeps one row per student and problem set; this long-format companion says
where the points came from. Columns (:data:`COLUMNS`): the student, the problem set, the part
(the heading the cell sits under, without its points), the cell's grade id, ``auto`` or
``manual``, the points it earned and could earn, and for a written answer whether a TA has
graded it yet (an ungraded one has no points). When lateness took points, the hand-in gets one
more row, part ``late penalty``, with the points taken as a negative number: a hand-in's
rows add up to its ``score_after_late`` in ``grades.csv``.

Both the kit's export (:func:`write_by_part`, beside ``grades.csv``) and ``nbgrader export``
(:class:`kit.gradebook.export_plugin.HandGradesCsvExport`, beside its file) write it, from the
gradebook as it is when they run, so hand grades given after grading appear. Cells renamed
since an earlier term (:data:`kpca_ref.variants.RENAMED`) appear under their current id.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import nbformat

from kit.gradebook.export import as_text, not_a_formula
from kit.gradebook.hand_grades import manual_cell_names
from kpca_ref.variants import current_name

COLUMNS = ("student", "assignment", "part", "grade_id", "kind", "points", "max_points", "graded")
LATE_PART = "late penalty"
_POINTS = re.compile(r"\s*\(\s*[\d.]+\s+points?\s*\)\s*$")


def part_titles(source_notebook: Path) -> dict[str, str]:
    """``{grade_id: heading}`` of the graded cells of an instructor's notebook: the last
    heading above each (a plain markdown cell's, not a written answer's), points removed."""
    if not Path(source_notebook).is_file():
        return {}
    nb = nbformat.read(source_notebook, as_version=4)
    title, found = "", {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "markdown" and not meta.get("solution"):
            heads = [ln.lstrip("#").strip() for ln in cell.source.splitlines() if ln.startswith("#")]
            heads = [h for h in heads if h]
            if heads:
                title = _POINTS.sub("", heads[-1])
        if meta.get("grade"):
            found[meta["grade_id"]] = title
    return found


def submission_rows(submission, titles: dict[str, str]) -> list[dict]:
    """The rows of one gradebook ``SubmittedAssignment`` (its notebooks' graded cells, then
    the late penalty if any), in the notebooks' cell order."""
    out, taken = [], 0.0
    student, assignment = as_text(submission.student.id), as_text(submission.assignment.name)
    for notebook in submission.notebooks:
        manual = manual_cell_names(notebook.notebook)
        order = {cell.name: i for i, cell in enumerate(notebook.notebook.grade_cells)}
        for grade in sorted(notebook.grades, key=lambda g: order.get(g.name, len(order))):
            gid = current_name(grade.name)
            kind = "manual" if grade.name in manual else "auto"
            graded = kind == "auto" or grade.manual_score is not None
            out.append({"student": student, "assignment": assignment,
                        "part": not_a_formula(titles.get(gid, titles.get(grade.name, ""))),
                        "grade_id": as_text(gid), "kind": kind,
                        "points": round(float(grade.score), 2) if graded else "",
                        "max_points": float(grade.max_score),
                        "graded": "yes" if graded else "no"})
        taken += notebook.late_submission_penalty or 0.0
    if taken > 0:
        out.append({"student": student, "assignment": assignment, "part": LATE_PART,
                    "grade_id": "", "kind": "late", "points": -round(taken, 2), "max_points": "",
                    "graded": "yes"})
    return out


def gradebook_rows(gradebook, pairs, source_of) -> list[dict]:
    """Rows of the ``(assignment, student)`` pairs the gradebook holds; ``source_of(ps)``:
    the path of ``ps``'s instructor notebook (for the part titles)."""
    from nbgrader.api import MissingEntry

    titles: dict[str, dict[str, str]] = {}
    out = []
    for assignment, student in pairs:
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:
            continue
        if assignment not in titles:
            titles[assignment] = part_titles(source_of(assignment))
        out.extend(submission_rows(submission, titles[assignment]))
    return out


def write_rows(rows: list[dict], path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_by_part(course, outcomes, path: Path | None = None) -> Path:
    """Write ``reports/grades_by_part.csv`` (or ``path``) for the graded ``outcomes``."""
    from nbgrader.api import Gradebook

    from kit.gradebook.export import GRADED

    pairs = [(o.assignment, o.student) for o in outcomes if o.status in GRADED]
    with Gradebook(course.db_url) as gb:
        rows = gradebook_rows(gb, pairs, lambda ps: course.notebook("source", ps))
    return write_rows(rows, path or course.root / "reports" / "grades_by_part.csv")
