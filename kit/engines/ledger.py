"""What ``kit.autograde`` graded: ``autograded/.kit-graded.json``, so a rerun skips it.

Each finished submission is recorded with its hand-in's modification time and size; a new
hand-in changes them and is graded again (``--force`` grades everything again).
"""

from __future__ import annotations

import json
import os

from kit.course import Course

#: Record of what kit.autograde graded, in ``autograded/``: ``{"<ps>/<student>": stamp}``.
LEDGER = ".kit-graded.json"


def _stamp(course: Course, assignment: str, student: str) -> list[int]:
    """Modification time and size of the hand-in: a new hand-in changes them."""
    stat = course.notebook("submitted", assignment, student).stat()
    return [stat.st_mtime_ns, stat.st_size]


def read_ledger(course: Course) -> dict:
    """What :func:`grade_class` recorded as graded (empty when nothing or unreadable)."""
    try:
        ledger = json.loads((course.root / "autograded" / LEDGER).read_text())
    except (OSError, ValueError):
        return {}
    return ledger if isinstance(ledger, dict) else {}


def _record(course: Course, ledger: dict, assignment: str, student: str) -> None:
    try:
        ledger[f"{assignment}/{student}"] = _stamp(course, assignment, student)
    except OSError:
        return
    path = course.root / "autograded" / LEDGER
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(ledger, indent=0, sort_keys=True))
    os.replace(tmp, path)


def already_graded(course: Course, assignment: str, student: str, ledger=None) -> bool:
    """Whether kit.autograde graded this very hand-in and its graded notebook is still there.

    nbgrader writes a notebook into ``autograded/`` before it runs it, so the notebook alone
    proves nothing: a run records each submission it finished in :data:`LEDGER`, with the
    hand-in's time and size.
    """
    ledger = read_ledger(course) if ledger is None else ledger
    try:
        stamp = _stamp(course, assignment, student)
    except OSError:
        return False
    return (ledger.get(f"{assignment}/{student}") == stamp
            and course.notebook("autograded", assignment, student).exists())
