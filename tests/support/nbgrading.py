"""Build submissions from the source notebooks and grade them in a throw-away course."""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path

import nbformat

from kit.autograde import grade_class
from kit.course import REPO_ROOT, copy_course
from kit.submitted import build_submission, lay


def nb_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def read_source(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(REPO_ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4)


def read_release(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(REPO_ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)


def auto_points(nb) -> dict[str, float]:
    """``{grade_id: points}`` of the auto-graded test cells."""
    return {
        nb_meta(c)["grade_id"]: float(nb_meta(c)["points"])
        for c in nb.cells
        if nb_meta(c).get("grade") and not nb_meta(c).get("solution")
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


@cache
def graded(assignment: str, tmp_root: str) -> dict[str, dict[str, float]]:
    """Grade the reference solution, the blank release and every variant of ``assignment``.

    Returns ``{student: {grade_id: score}}``; students are ``solution``, ``blank`` and the
    variant names. Cached per assignment so each notebook is graded once per test session.
    """
    course = copy_course(Path(tmp_root) / assignment, [assignment])
    api = course.api()
    result = api.generate_assignment(assignment, force=True)
    assert result["success"], result.get("error") or result.get("log")
    students = {
        "solution": course.notebook("source", assignment),  # the instructor's notebook as is
        "blank": course.notebook("release", assignment),
    }
    for name, variant in variants(assignment).items():
        students[name] = build_submission(course, assignment, variant["cells"])
    for student, nb in students.items():
        lay(course, assignment, student, nb)
    outcomes = grade_class(course, [assignment], list(students), progress=False)
    failed = [f"{o.student}: {o.message}" for o in outcomes if o.status != "graded"]
    assert not failed, failed
    return {o.student: o.scores for o in outcomes}


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
