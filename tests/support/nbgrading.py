"""Build submissions from the source notebooks and grade them in a throw-away course."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import nbformat

from kit.autograde import grade_class
from kit.course import ASSIGNMENTS, REPO_ROOT, copy_course
from kit.intake.submitted import build_submission, lay, solution_text

#: The grading secret of the courses that grade the hand-ins and the demo class. It is
#: fixed so that a run repeats: each student's hidden inputs hang on it, and a failure
#: must not come and go with a random one. Every hand-in must score the same under any
#: secret; tests/grading/test_fair_draws.py checks that over many salts.
TEST_SECRET = "6b7063612d746573742d7365637265742d6f662d7468652d68616e642d696e73"


def pin_secret(course) -> None:
    """Give ``course`` the fixed :data:`TEST_SECRET` (readable by its owner only)."""
    path = course.root / ".grading_secret"
    path.write_text(TEST_SECRET + "\n", encoding="ascii")
    path.chmod(0o600)


def nb_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def read_source(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(REPO_ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)


def solution_of(assignment: str, grade_id: str) -> str:
    """The instructor's answer cell ``grade_id`` as a student would type it."""
    return next(solution_text(c.source) for c in read_source(assignment).cells
                if nb_meta(c).get("grade_id") == grade_id)


def lay_submission(course, assignment: str, student: str, cells: dict, edit=None) -> None:
    """Hand in the release with ``cells`` filled (the solution elsewhere), then ``edit``."""
    nb = build_submission(course, assignment, cells)
    if edit is not None:
        edit(nb)
    lay(course, assignment, student, nb)


def type_student_id(nb, student_id: str) -> None:
    """The student types ``student_id`` into the notebook's identity cell."""
    cell = next(c for c in nb.cells if c.cell_type == "code" and 'STUDENT_ID = ""' in c.source)
    cell.source = cell.source.replace('STUDENT_ID = ""', f'STUDENT_ID = "{student_id}"')


def read_release(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(REPO_ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)


def auto_points(nb) -> dict[str, float]:
    """``{grade_id: points}`` of the auto-graded test cells."""
    return {
        nb_meta(c)["grade_id"]: float(nb_meta(c)["points"])
        for c in nb.cells
        if nb_meta(c).get("grade") and not nb_meta(c).get("solution")
    }


def exact_points(assignment: str) -> dict[str, float]:
    """``{grade_id: points}`` of the test cells that grade exact answers only."""
    return {
        nb_meta(c)["grade_id"]: float(nb_meta(c)["points"])
        for c in read_source(assignment).cells
        if nb_meta(c).get("grade") and not nb_meta(c).get("solution")
        and "grade_exact(" in c.source and "_grading.grade(" not in c.source
    }


def manual_points(nb) -> dict[str, float]:
    """``{grade_id: points}`` of the manually graded answer cells."""
    return {
        nb_meta(c)["grade_id"]: float(nb_meta(c)["points"])
        for c in nb.cells
        if nb_meta(c).get("grade") and nb_meta(c).get("solution")
    }


def variants(assignment: str) -> dict:
    """The submissions of ``tests/submissions/<assignment>.py``."""
    return importlib.import_module(f"tests.submissions.{assignment}").VARIANTS


def judge_lines(course, assignment: str, student: str) -> dict[str, str]:
    """``{grade_id: text}``: what each test cell of a graded notebook printed."""
    path = course.notebook("autograded", assignment, student)
    if not path.exists():
        return {}
    nb = nbformat.read(path, as_version=4)
    return {nb_meta(c)["grade_id"]: "".join(o.get("text", "") for o in c.get("outputs", [])
                                            if o.get("output_type") == "stream")
            for c in nb.cells if nb_meta(c).get("grade") and c.cell_type == "code"}


LINES: dict[str, dict[str, dict[str, str]]] = {}


def graded_submissions(demo_run, tmp_root: Path) -> dict[str, dict[str, dict[str, float]]]:
    """Scores of the solution, the blank release and every submission of every problem set.

    Returns ``{assignment: {name: {grade_id: score}}}`` where name is ``solution``,
    ``blank`` or a submission of ``tests/submissions/<ps>.py``. What the demo class already
    handed in (``demo_run``: the demo course and its outcomes, from grading
    ``tests/demo_class.py``'s roster, where each student hands in named submissions) is
    taken from there; the rest is laid into one throw-away course, one student per name,
    and graded in one run. The test cells' printed lines go to :data:`LINES` (same keys).
    """
    from tests.demo_class import ROSTER

    demo_course, demo_outcomes = demo_run
    by = {(o.student, o.assignment): o for o in demo_outcomes}
    scores: dict[str, dict[str, dict[str, float]]] = {a: {} for a in ASSIGNMENTS}
    for student, work in ROSTER.items():
        for assignment, what in work.items():
            outcome = by.get((student, assignment))
            if (isinstance(what, str) and outcome is not None and outcome.status == "graded"
                    and what not in scores[assignment]):
                scores[assignment][what] = outcome.scores
                LINES.setdefault(assignment, {})[what] = judge_lines(
                    demo_course, assignment, student)
    course = copy_course(Path(tmp_root), ASSIGNMENTS)
    pin_secret(course)
    api = course.api()
    todo: dict[str, list[str]] = {}
    for assignment in ASSIGNMENTS:
        result = api.generate_assignment(assignment, force=True)
        assert result["success"], result.get("error") or result.get("log")
        wanted = {"solution": {}, "blank": None, **{n: v["cells"] for n, v in variants(assignment).items()}}
        for name, cells in wanted.items():
            if name in scores[assignment]:
                continue
            nb = (course.notebook("release", assignment) if cells is None
                  else build_submission(course, assignment, cells))
            lay(course, assignment, name, nb)
            todo.setdefault(assignment, []).append(name)
    students = sorted({s for names in todo.values() for s in names})
    outcomes = grade_class(course, list(todo), students, progress=False)
    failed = [f"{o.student}/{o.assignment}: {o.message}" for o in outcomes if o.status == "failed"]
    assert not failed, failed
    for o in outcomes:
        if o.student in todo.get(o.assignment, ()):
            assert o.status == "graded", (o.student, o.assignment, o.status)
            scores[o.assignment][o.student] = o.scores
            LINES.setdefault(o.assignment, {})[o.student] = judge_lines(
                course, o.assignment, o.student)
    return scores


_HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.DOTALL)


def hidden_test_lines(assignment: str) -> set[str]:
    """The hidden tests' lines of ``assignment`` long enough to be told apart in a page."""
    return {
        line.strip()
        for cell in read_source(assignment).cells
        for block in _HIDDEN.findall(cell.source)
        for line in block.splitlines()
        if len(line.strip()) > 12
    }
