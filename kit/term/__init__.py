"""The term's calendar: when each problem set opens and is due, extensions, exemptions, lateness.

``python -m kit.term set|extend|exempt|show`` (:mod:`kit.term.__main__`) keeps it: due dates
and extensions where nbgrader keeps them (the gradebook's ``Assignment.duedate`` and
``SubmittedAssignment.extension``), the rest in ``term.json`` (:mod:`kit.term.calendar`).
:func:`due_for` is every stage's answer to "when is this student's hand-in due";
:mod:`kit.term.late` applies the late policy when a hand-in is graded.
"""

from __future__ import annotations

import datetime as dt

from kit.term.calendar import FILE, Calendar, CalendarError, load, save

__all__ = ["FILE", "Calendar", "CalendarError", "due_for", "load", "save"]


def due_for(course, student: str, ps: str) -> dt.datetime | None:
    """``student``'s own due date of ``ps`` (aware UTC, extension included).

    None: no due date (the course has no calendar, the problem set has no due date, or the
    student is exempt from it). ``course``: a :class:`kit.course.Course` or its folder.
    """
    return load(course).due_for(student, ps)
