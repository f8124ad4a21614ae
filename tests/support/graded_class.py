"""A small graded ps1 class with one hand grade, made once per test session.

Shared by the report tests (``tests/report/``) and the class report's browser test: five
students hand ps1 in (a correct one, a blank one, two with a named mistake, a corrupt file),
a sixth does not. Grading goes through ``kit.autograde.grade_class`` with feedback pages and
its progress written to a plain (non-terminal) stream; then a TA hand-grades ada's two
written answers (one with a comment) and one of gus's through nbgrader's Gradebook API, as
formgrader does, and ada's feedback page, ``reports/grades.csv``, the class report and
``nbgrader export`` are made again.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PS = "ps1_circle_lift"
ROSTER_NAMES = ("ada", "ben", "gus", "hana", "pat")
MISSING = "zoe"
#: the hand grades a TA gives: {student: {written answer: (points, comment)}}
HAND_COMMENT = "Right idea; say which sign the second direction takes."
HAND_GRADES = {"ada": {"why_both_directions": (1.5, HAND_COMMENT), "five_points": (2.0, "")},
               "gus": {"five_points": (1.0, "")}}


@dataclass
class GradedClass:
    course: object
    outcomes: list
    progress: str  # what grade_class printed on a non-terminal stream
    export_csv: Path  # what `nbgrader export` wrote


def roster():
    from tests.demo_class import corrupt_file

    return {"ada": {PS: "solution"}, "ben": {PS: "blank"}, "gus": {PS: "not_centred"},
            "hana": {PS: "lift_column_order"}, "pat": {PS: corrupt_file}}


def hand_grade(course, grades: dict) -> None:
    """Save ``{student: {cell: (points, comment)}}`` in the gradebook, as formgrader does."""
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        for student, cells in grades.items():
            for cell, (points, comment) in cells.items():
                gb.find_grade(cell, PS, PS, student).manual_score = points
                if comment:
                    gb.find_comment(cell, PS, PS, student).manual_comment = comment
        gb.db.commit()


def nbgrader_export(course, dest: Path) -> Path:
    """Run ``nbgrader export`` in the course directory (it reads ``nbgrader_config.py``)."""
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run([sys.executable, "-m", "nbgrader", "export", f"--to={dest}"],
                          cwd=course.root, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return dest


_MADE: dict = {}


def graded_class(tmp_path_factory) -> GradedClass:
    """The session's :class:`GradedClass` (graded on first use)."""
    if "class" in _MADE:
        return _MADE["class"]
    from kit.autograde import grade_class
    from kit.course import copy_course
    from kit.gradebook.export import write_csv
    from kit.gradebook.parts import write_by_part
    from kit.handback.feedback import write_feedback
    from kit.intake.submitted import lay_class
    from kit.release import release
    from kit.report.page import write_report

    course = copy_course(tmp_path_factory.mktemp("graded_class"), [PS])
    assert not release(course, [PS])
    lay_class(course, roster())
    stream = io.StringIO()
    outcomes = grade_class(course, [PS], students=[*ROSTER_NAMES, MISSING], workers=2,
                           feedback=True, stream=stream)
    hand_grade(course, HAND_GRADES)
    assert not write_feedback(course, PS, "ada")
    write_csv(course, outcomes)
    write_by_part(course, outcomes)
    write_report(course, outcomes)
    export = nbgrader_export(course, course.root / "nbgrader_export.csv")
    _MADE["class"] = GradedClass(course, outcomes, stream.getvalue(), export)
    return _MADE["class"]
