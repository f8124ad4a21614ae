"""A hub course (``c.WriteCases.numbers_from_login``) grades on the login, as the hub showed.

On the course's JupyterHub the numbers cell ignores a typed ``STUDENT_ID`` (with a warning),
so a student who typed someone else's id worked on their own numbers all week. Grading that
course must do the same, or their code-computed exact answers would be drawn for the typed id
and lose every exact point. An id forced in by code (``os.environ``) still draws other
numbers, and is caught as before.
"""

from __future__ import annotations

from kit.autograde import grade_class
from kit.course import copy_course
from kit.release import release
from tests.support.nbgrading import (
    auto_points,
    exact_points,
    judge_lines,
    lay_submission,
    pin_secret,
    read_source,
    type_student_id,
)

PS = "ps1_circle_lift"
FORCED = 'import os\nos.environ["KPCA_STUDENT_ID"] = "ada"\nSTUDENT_ID = ""'


def _force_ada(nb) -> None:
    cell = next(c for c in nb.cells if c.cell_type == "code" and 'STUDENT_ID = ""' in c.source)
    cell.source = FORCED


def test_a_hub_course_grades_a_typed_id_on_the_login_and_still_catches_a_forced_one(tmp_path):
    course = copy_course(tmp_path / "course", [PS])
    with open(course.root / "nbgrader_config.py", "a") as config:
        config.write("\nc.WriteCases.numbers_from_login = True\n")
    pin_secret(course)
    assert not release(course, [PS])
    lay_submission(course, PS, "bob", {}, edit=lambda nb: type_student_id(nb, "ada"))
    lay_submission(course, PS, "cy", {}, edit=_force_ada)
    outcomes = {o.student: o.scores for o in grade_class(course, [PS], progress=False)}
    points, exact = auto_points(read_source(PS)), exact_points(PS)
    assert exact, "ps1 has exact items"
    assert {g: round(outcomes["bob"][g], 2) for g in points} == points  # typed 'ada' ignored
    lost = {g for g in points if round(outcomes["cy"][g], 2) < points[g]}
    assert lost == set(exact), lost  # only the exact items, each to 0
    lines = judge_lines(course, PS, "cy")
    assert any("[diagnosis: wrong_student_id]" in line and "'ada'" in line
               for line in lines.values()), lines
    assert not any("wrong_student_id" in line for line in judge_lines(course, PS, "bob").values())
