"""Step 3 of the pipeline: what students hand in, laid out as ``submitted/<student>/<ps>/``.

A submission is built the way a student makes one: start from the released notebook,
fill in every answer cell (with the instructor's solution unless the student wrote
something else), and save it under the student's folder.
"""

from __future__ import annotations

import copy
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path

import nbformat

from kit.course import Course

_MARKER = re.compile(r"^[ \t]*#{3} (BEGIN|END) SOLUTION[ \t]*\n?", re.MULTILINE)
_MD_MARKER = re.compile(r"^[ \t]*=== (BEGIN|END) MARK SCHEME ===[ \t]*\n?", re.MULTILINE)


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def solution_text(source: str) -> str:
    """The instructor's solution as a student would type it (no solution markers)."""
    return _MARKER.sub("", source)


def build_submission(course: Course, assignment: str, cells: dict[str, str] | None = None):
    """The released notebook of ``assignment`` with its answer cells filled in.

    Answer cells named in ``cells`` (by ``grade_id``) get that source; every other answer
    cell gets the instructor's solution from ``source/``.
    """
    cells = dict(cells or {})
    source = nbformat.read(course.notebook("source", assignment), as_version=4)
    solutions = {_meta(c)["grade_id"]: c.source for c in source.cells if _meta(c).get("solution")}
    nb = copy.deepcopy(nbformat.read(course.notebook("release", assignment), as_version=4))
    for cell in nb.cells:
        gid = _meta(cell).get("grade_id")
        if not _meta(cell).get("solution"):
            continue
        cell.source = cells.pop(gid) if gid in cells else solution_text(solutions[gid])
    if cells:
        raise KeyError(f"{assignment} has no answer cells {sorted(cells)}")
    return nb


def lay(course: Course, assignment: str, student: str, notebook) -> Path:
    """Write one submission (a NotebookNode, or a path copied as it is) for ``student``,
    received now (:func:`kit.intake.received.record_received`)."""
    from kit.intake.received import record_received

    dest = course.notebook("submitted", assignment, student)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(notebook, (str, Path)):
        shutil.copyfile(notebook, dest)
    else:
        nbformat.write(notebook, dest)
    record_received(course, student, assignment, datetime.now(timezone.utc),
                    "laid in submitted/ by the demo")
    return dest


def lay_class(course: Course, roster=None) -> list[str]:
    """Lay every student of ``roster`` (default: the demo class) into ``submitted/``.

    A roster maps student -> {problem set: what they hand in}, where what they hand in is
    ``"solution"`` (the instructor's answers), ``"blank"`` (the release untouched), the name
    of a submission in ``tests/submissions/<ps>.py``, or a callable ``(course, ps) -> path or
    notebook`` for the odd cases (a corrupt file, the wrong problem set).
    """
    if roster is None:
        from tests.demo_class import ROSTER as roster
    from tests.support.nbgrading import variants

    for student, work in roster.items():
        for assignment, what in work.items():
            if callable(what):
                nb = what(course, assignment)
            elif what == "blank":
                nb = course.notebook("release", assignment)
            elif what == "solution":
                nb = build_submission(course, assignment)
            else:
                nb = build_submission(course, assignment, variants(assignment)[what]["cells"])
            lay(course, assignment, student, nb)
    return sorted(roster)
