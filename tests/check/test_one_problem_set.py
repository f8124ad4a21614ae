"""``make check``'s end-to-end step: one problem set graded through the whole pipeline.

The solution, the blank release and every submission of ``tests/submissions/<ps>.py`` are
laid into a fresh course and graded by ``kit.autograde``'s grading (sandboxed kernels, the
judge, feedback pages), as ``make test`` grades every problem set in
``tests/notebooks/test_notebooks.py``. ``make test`` leaves this folder out, so nothing is
graded twice for the same assertion; ``KPCA_CHECK_PS`` names the problem set (default
``ps1_circle_lift``, the quickest).
"""

from __future__ import annotations

import os

from kit.autograde import grade_class
from kit.course import copy_course
from kit.intake.submitted import build_submission, lay
from kit.release import release
from tests.support.nbgrading import auto_points, pin_secret, read_source, variants

PS = os.environ.get("KPCA_CHECK_PS", "ps1_circle_lift")


def test_one_problem_set_earns_what_each_hand_in_should(tmp_path):
    course = copy_course(tmp_path / "course", [PS])
    pin_secret(course)
    assert not release(course, [PS])
    points = auto_points(read_source(PS))
    expected = {"solution": points, "blank": dict.fromkeys(points, 0.0)}
    lay(course, PS, "solution", build_submission(course, PS, {}))
    lay(course, PS, "blank", course.notebook("release", PS))
    for name, variant in variants(PS).items():
        if not isinstance(variant.get("cells"), dict):
            continue
        lay(course, PS, name, build_submission(course, PS, variant["cells"]))
        expected[name] = {g: p - variant["lost"].get(g, 0.0) for g, p in points.items()}
    outcomes = grade_class(course, [PS], progress=False, feedback=True)
    got = {o.student: {g: round(s, 2) for g, s in (o.scores or {}).items() if g in points}
           for o in outcomes}  # the written answers wait for a TA
    wrong = {name: (got.get(name), {g: round(p, 2) for g, p in want.items()})
             for name, want in expected.items()
             if got.get(name) != {g: round(p, 2) for g, p in want.items()}}
    assert not wrong, f"(got, expected) per hand-in: {wrong}"
    assert all(course.root.joinpath("feedback", o.student, PS, f"{PS}.html").exists()
               for o in outcomes if o.student != "blank")
