"""The term's calendar: when each problem set opens and is due, extensions, exemptions, lateness.

``python -m kit.term set|extend|exempt|show`` (:mod:`kit.term.__main__`) keeps it: due dates
and extensions where nbgrader keeps them (the gradebook's ``Assignment.duedate`` and
``SubmittedAssignment.extension``), the rest in ``term.json`` (:mod:`kit.term.calendar`).
:func:`due_for` is every stage's answer to "when is this student's hand-in due";
:mod:`kit.term.late` applies the late policy when a hand-in is graded; :mod:`kit.term.intake`
gives collect and the LMS import each student's due date, by which they take a hand-in;
:mod:`kit.term.practice` says when a student may practise on fresh numbers, and how much.
"""

from __future__ import annotations

import datetime as dt
import os

from kit.term.calendar import FILE, Calendar, CalendarError, load, save

__all__ = ["FILE", "NOW_VAR", "Calendar", "CalendarError", "checks_closed", "due_for", "load",
           "now", "save"]

#: Environment variable holding "now" for a simulated term (a time with its zone, e.g.
#: ``2026-12-11 09:00 Europe/Berlin``); unset: the clock's time.
NOW_VAR = "KPCA_NOW"


def due_for(course, student: str, ps: str) -> dt.datetime | None:
    """``student``'s own due date of ``ps`` (aware UTC, extension included).

    None: no due date (the course has no calendar, the problem set has no due date, or the
    student is exempt from it). ``course``: a :class:`kit.course.Course` or its folder.
    """
    return load(course).due_for(student, ps)


def now() -> dt.datetime:
    """The current time (aware UTC), or :data:`NOW_VAR`'s when set (a simulated term)."""
    from kit.term.times import parse_time

    text = os.environ.get(NOW_VAR, "").strip()
    return parse_time(text)[0] if text else dt.datetime.now(dt.timezone.utc)


def checks_closed(course, student: str, ps: str, when: dt.datetime | None = None) -> str:
    """Why ``student``'s instant checks of ``ps`` are closed at ``when`` (default :func:`now`):
    their own due date (extension included) has passed. ``""``: open (no due date, exempt,
    or before it). A calendar that cannot be read closes them (it says so)."""
    from kit.term.times import show_time

    try:
        cal = load(course)
    except CalendarError:
        return "checks are paused: the course calendar (term.json) cannot be read"
    due = cal.due_for(student, ps)
    if due is None or (when or now()) <= due:
        return ""
    return f"checks of {ps} closed at your due date, {show_time(due, cal.entry(ps).zone)}"
