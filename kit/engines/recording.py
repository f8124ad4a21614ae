"""Recording a worker's result in the course: its files, then its grades in the gradebook.

The cluster client (:mod:`kit.engines.dask_client`) writes each graded notebook's autograded folder and
feedback page (:func:`write_files`) and records its grades: a batch of results that arrived
together in one transaction (:func:`record_batch`, through :mod:`kit.engines.gradebook_bulk`), or one
result through nbgrader's ORM (:func:`record`), as nbgrader's own ``SaveAutoGrades`` would.
Each submission's timestamp is the time the kit received the hand-in
(:func:`kit.intake.received.received_time`), never the hand-in's ``timestamp.txt``, and its
late penalty the course calendar's (:func:`kit.term.late.apply`); a new
student is added only if absent, so two processes recording one at once both succeed.
"""

from __future__ import annotations

import contextlib
import os
import shutil

from kit.course import Course, quiet_gradebook
from kit.intake.received import received_time
from kit.term.late import apply as late_penalties


class RecordingError(RuntimeError):
    """The gradebook could not take a result; the message names the database and the hand-in."""


def write_files(course: Course, assignment: str, student: str, result: dict) -> None:
    """A worker's autograded folder and feedback page, into the course."""
    dest = course.root / "autograded" / student / assignment
    shutil.rmtree(dest, ignore_errors=True)
    for name, data in result["files"].items():
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.chmod(path, result.get("modes", {}).get(name, 0o644))
    page = course.root / "feedback" / student / assignment / f"{assignment}.html"
    if result.get("feedback") is not None:
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_bytes(result["feedback"])


def record_batch(course: Course, batch: list[tuple[str, str, dict]], gb) -> None:
    """Write each result's files, then record all their grades in one transaction
    (:func:`kit.engines.gradebook_bulk.record_many`): what arrived together is recorded together."""
    from sqlalchemy.exc import DBAPIError

    from kit.course import shown
    from kit.engines.gradebook_bulk import record_many

    quiet_gradebook()
    for assignment, student, result in batch:
        write_files(course, assignment, student, result)
    try:
        record_many(gb, batch, {(a, s): received_time(course, s, a) for a, s, _ in batch})
        late_penalties(gb, course, [(a, s) for a, s, _ in batch])  # the calendar's (kit/term)
    except Exception as exc:
        what = ("lost the gradebook database" if isinstance(exc, DBAPIError)
                else "could not record in the gradebook")
        who = ", ".join(f"{s} / {a}" for a, s, _ in batch)
        raise RecordingError(f"{what} {shown(course.db_url)} while recording {who}: "
                           f"{str(exc).strip().splitlines()[0]}") from exc


def record(course: Course, assignment: str, student: str, result: dict, gb=None) -> None:
    """Write a worker's result: the autograded folder, the feedback page and the gradebook.

    ``gb``: an open ``nbgrader.api.Gradebook`` of the course, kept over a run (opening one
    costs more statements than recording a notebook); without it one is opened and closed.
    """
    from nbgrader.api import Gradebook

    from kit.course import shown

    quiet_gradebook()
    write_files(course, assignment, student, result)
    own = gb is None
    try:
        if own:
            gb = Gradebook(course.db_url)
        _record_grades(gb, assignment, student, result, received_time(course, student, assignment))
        late_penalties(gb, course, [(assignment, student)])  # the calendar's (kit/term)
    except Exception as exc:
        if gb is not None:
            with contextlib.suppress(Exception):
                gb.db.rollback()
        from sqlalchemy.exc import DBAPIError

        what = ("lost the gradebook database" if isinstance(exc, DBAPIError)
                else "could not record in the gradebook")  # e.g. a cell it does not know
        raise RecordingError(f"{what} {shown(course.db_url)} while recording {student} / "
                           f"{assignment}: {str(exc).strip().splitlines()[0]}") from exc
    finally:
        if own and gb is not None:
            gb.close()


def _record_grades(gb, assignment: str, student: str, result: dict, received) -> None:
    """As nbgrader's SaveAutoGrades does, in one commit; a TA's manual scores are kept.
    ``received``: the hand-in's time (naive UTC), the submission's timestamp."""
    from kit.engines.gradebook_bulk import ensure_students

    ensure_students(gb.db, [student])  # not find-then-add: a concurrent grader may add it too
    gb.db.commit()
    gb.update_or_create_submission(assignment, student, timestamp=received)
    notebook = gb.find_submission_notebook(assignment, assignment, student)
    grades = {g.name: g for g in notebook.grades}  # two queries, not two per cell
    comments = {c.name: c for c in notebook.comments}
    for name, auto in result["grades"].items():
        grades[name].auto_score = auto
        grades[name].needs_manual_grade = grades[name].manual_score is not None or auto is None
    for name, text in result["comments"].items():
        comments[name].auto_comment = text
    gb.db.commit()
