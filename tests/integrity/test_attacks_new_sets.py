"""Attacks on the exact answers of ps0 and ps6, graded through the real pipeline.

Every submission of :mod:`tests.integrity.attacks_new_sets` is graded by ``kit.autograde`` in
a throw-away course holding both problem sets; each must get exactly the score its entry
states, and the correct hand-in graded with them keeps full marks.
"""

from __future__ import annotations

import nbformat
import pytest

from kit.autograde import grade_class
from kit.course import copy_course
from kit.release import release
from tests.integrity.attacks_new_sets import PS0, PS6, catalogue
from tests.support.nbgrading import auto_points, lay_submission, read_source

SETS = (PS0, PS6)
CATALOGUE = {ps: catalogue(ps) for ps in SETS}
CASES = [(ps, student) for ps in SETS for student in CATALOGUE[ps]]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("attacks-new-sets"), list(SETS))
    assert not release(course, list(SETS))
    for ps, entries in CATALOGUE.items():
        for student, entry in entries.items():
            lay_submission(course, ps, student, entry["cells"], entry.get("edit"))
    students = sorted({s for entries in CATALOGUE.values() for s in entries})
    outcomes = grade_class(course, list(SETS), students=students, workers=2, progress=False)
    return course, {(o.assignment, o.student): o for o in outcomes}


@pytest.mark.parametrize(("ps", "student"), CASES, ids=[f"{p[:3]}-{s}" for p, s in CASES])
def test_attack_gets_its_true_score(graded, ps, student):
    _, outcomes = graded
    entry = CATALOGUE[ps][student]
    outcome = outcomes[(ps, student)]
    assert outcome.status == "graded", outcome.message
    points = auto_points(read_source(ps))
    got = {gid: round(outcome.scores.get(gid, 0.0), 2) for gid in points}
    want = {gid: round(p - entry["lost"].get(gid, 0.0), 2) for gid, p in points.items()}
    assert got == want


def test_imports_of_the_reference_are_named_in_the_feedback(graded):
    course, _ = graded
    for ps in SETS:
        for student in ("import_reference", "reference_in_exact_cell"):
            text = course.notebook("autograded", ps, student).read_text()
            assert "[diagnosis: forbidden_import]" in text, (ps, student)


def test_someone_else_s_numbers_are_answered_wrong_not_forgiven(graded):
    """The judge grades the exact answers of the submission's own id, whatever the notebook's
    numbers cell printed: the typed id shows in the cell's output, the answers miss."""
    course, _ = graded
    for ps in SETS:
        nb = nbformat.read(course.notebook("autograded", ps, "typed_classmate_id"), as_version=4)
        printed = "".join(out.get("text", "") for c in nb.cells for out in c.get("outputs", []))
        assert "variant for 'classmate_" in printed
