"""``nbgrader export`` with the hand grades: stock columns plus the auto/manual split and comments.

Stock nbgrader's CSV export has each submission's total (hand grades included) but neither
which part of it was graded by hand nor the TA's comments. :class:`HandGradesCsvExport`
(``c.ExportApp.plugin_class`` in ``nbgrader_config.py``) writes the stock columns first
(ids, names and e-mails never as a spreadsheet formula: :func:`kit.gradebook.export.as_text`),
then ``auto_score``, ``manual_score``, ``hand_graded`` and ``comments``
(see :mod:`kit.gradebook.hand_grades`); beside it, ``<name>_by_part.csv`` holds the points of
each graded cell (:mod:`kit.gradebook.parts`).
"""

from __future__ import annotations

import csv

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins.export import CsvExportPlugin

from kit.gradebook.export import as_text, not_a_formula
from kit.gradebook.hand_grades import Marks, marks_of

STOCK = ("assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
         "raw_score", "late_submission_penalty", "score", "max_score")
EXTRA = ("auto_score", "manual_score", "hand_graded", "comments")


class HandGradesCsvExport(CsvExportPlugin):
    """nbgrader's CSV export plus the columns :data:`EXTRA`."""

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "grades.csv"
        students = {str(s) for s in self.student}
        assignments = {str(a) for a in self.assignment}
        self.log.info("Exporting grades (with hand grades and comments) to %s", dest)
        with open(dest, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=STOCK + EXTRA, lineterminator="\n")
            writer.writeheader()
            for assignment in gradebook.assignments:
                if assignments and assignment.name not in assignments:
                    continue
                for student in gradebook.students:
                    if students and student.id not in students:
                        continue
                    writer.writerow(self._row(gradebook, assignment, student))
        self._by_part(gradebook, dest, assignments, students)

    def _by_part(self, gradebook: Gradebook, dest: str, assignments, students) -> None:
        """The per-part rows (:mod:`kit.gradebook.parts`) beside ``dest``: ``<name>_by_part.csv``."""
        from pathlib import Path

        from kit.gradebook.parts import gradebook_rows, write_rows

        coursedir = getattr(self.parent, "coursedir", None)
        root = Path(getattr(coursedir, "root", None) or ".")
        pairs = [(a.name, s.id) for a in gradebook.assignments
                 if not assignments or a.name in assignments
                 for s in gradebook.students if not students or s.id in students]
        rows = gradebook_rows(gradebook, pairs, lambda ps: root / "source" / ps / f"{ps}.ipynb")
        path = Path(dest)
        write_rows(rows, path.with_name(f"{path.stem}_by_part.csv"))
        self.log.info("Exporting the grades of each part to %s", path.with_name(f"{path.stem}_by_part.csv"))

    @staticmethod
    def _row(gradebook: Gradebook, assignment, student) -> dict:
        # ids, names and e-mails come from students (the hub, the LMS): never a formula
        text = {k: None if v is None else as_text(v) for k, v in (
            ("student_id", student.id), ("last_name", student.last_name),
            ("first_name", student.first_name), ("email", student.email))}
        row = {"assignment": assignment.name, "duedate": assignment.duedate, **text,
               "max_score": assignment.max_score}
        try:
            submission = gradebook.find_submission(assignment.name, student.id)
        except MissingEntry:
            row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0, score=0.0)
            marks, graded = Marks(), ""
        else:
            penalty = submission.late_submission_penalty
            row.update(timestamp=submission.timestamp, raw_score=submission.score,
                       late_submission_penalty=penalty, score=max(0.0, submission.score - penalty))
            marks = Marks()
            for notebook in submission.notebooks:
                one = marks_of(notebook)
                marks.auto += one.auto
                marks.manual += one.manual
                marks.manual_cells += one.manual_cells
                marks.manual_graded += one.manual_graded
                marks.comments.update(one.comments)
            graded = marks.hand_graded
        row.update(auto_score=round(marks.auto, 2), manual_score=round(marks.manual, 2),
                   hand_graded=graded, comments=not_a_formula(marks.comment_text()))
        return {k: "" if v is None else v for k, v in row.items()}
