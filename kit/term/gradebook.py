"""The calendar in nbgrader's gradebook, and who and what it may name.

:func:`sync` writes a problem set's due date to ``Assignment.duedate`` (naive UTC, as nbgrader
keeps it) and each existing submission's extension to ``SubmittedAssignment.extension`` (its
own due date minus the problem set's), so nbgrader's ``total_seconds_late``, formgrader and
``nbgrader export`` agree with the calendar. A student without a hand-in has no submission
row: their extension waits in ``term.json`` and is written when their hand-in is graded.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from kit.course import ASSIGNMENTS
from kit.term.calendar import Calendar

__all__ = ["check_ps", "graded", "known_students", "naive", "sync", "sync_submission"]


def naive(when: dt.datetime | None) -> dt.datetime | None:
    """An aware time as the gradebook holds times: naive UTC."""
    return None if when is None else when.astimezone(dt.timezone.utc).replace(tzinfo=None)


def check_ps(ps: str) -> str:
    """``ps`` if it is a problem set of the course, else ValueError naming it."""
    if ps not in ASSIGNMENTS:
        raise ValueError(f"unknown problem set {ps!r}: the course has {', '.join(ASSIGNMENTS)}")
    return ps


def known_students(course, gb, roster: Path | None = None) -> set[str]:
    """Students the course knows: the gradebook's, those with a hand-in in ``submitted/``,
    and a roster CSV's (``student_id`` or ``id`` column) when given."""
    from nbgrader.api import Student

    ids = {s for (s,) in gb.db.query(Student.id).all()}
    submitted = Path(course.root) / "submitted"
    if submitted.is_dir():
        ids |= {p.name for p in submitted.iterdir() if p.is_dir()}
    if roster is not None:
        from kit.roster import read_roster

        ids |= set(read_roster(Path(roster)))
    return ids


def graded(gb, student: str, ps: str) -> bool:
    """Whether ``student``'s hand-in of ``ps`` has been graded (grading makes its submission)."""
    from nbgrader.api import Assignment, SubmittedAssignment

    return gb.db.query(SubmittedAssignment).join(Assignment).filter(
        Assignment.name == ps, SubmittedAssignment.student_id == student).count() > 0


def sync_submission(cal: Calendar, submission) -> None:
    """Set ``submission.extension`` (an nbgrader ``SubmittedAssignment``) from the calendar."""
    ps, student = submission.assignment.name, submission.student_id
    entry, own = cal.entry(ps), cal.due_for(student, ps)
    extension = None
    if entry is not None and entry.due is not None and own is not None and own != entry.due:
        extension = own - entry.due
    if submission.extension != extension:
        submission.extension = extension


def sync(gb, cal: Calendar, ps: str) -> None:
    """Write ``ps``'s due date and its submissions' extensions to the gradebook; commit."""
    from nbgrader.api import Assignment, MissingEntry

    entry = cal.entry(ps)
    due = naive(entry.due) if entry else None
    try:
        assignment = gb.find_assignment(ps)
    except MissingEntry:
        if due is None:
            return
        assignment = gb.add_assignment(ps)
    assert isinstance(assignment, Assignment)
    if assignment.duedate != due:
        assignment.duedate = due
    for submission in assignment.submissions:
        sync_submission(cal, submission)
    gb.db.commit()
