"""The calendar at intake: which of a student's hand-ins is taken, by their own due date.

:mod:`kit.intake.choose` holds the rule (the latest hand-in received by the student's due
date and grace, else the latest; the others recorded as not taken); the intake knows no
calendar, so the course gives it the due dates from here:

* ``nbgrader collect`` (and formgrader's *Collect*): :class:`TermCollect`, named as
  ``c.ExchangeFactory.collect`` in ``nbgrader_config.py``;
* ``python -m kit.collect --zip``: :func:`due_of`, passed to
  :func:`kit.intake.collect.import_zip`.

The due date is the student's own (extension included, :func:`kit.term.due_for`); an
exempt student, a problem set without a due date or a course without ``term.json`` has
none, and the latest hand-in is taken. A calendar that cannot be read stops the collect
with its error rather than taking hand-ins by a guess.
"""

from __future__ import annotations

import datetime as dt

from kit.intake.steps import SafeCollect
from kit.term.calendar import Calendar, CalendarError, load

__all__ = ["TermCollect", "due_of"]


def _due(cal: Calendar, student: str, ps: str) -> tuple[dt.datetime, float] | None:
    due = cal.due_for(student, ps)
    return None if due is None else (due, cal.entry(ps).late.grace)


def due_of(course, ps: str):
    """``due(student)``: ``(their own due date of ps, the grace in seconds)``, or None (no
    due date for them). Reads the calendar once; :class:`CalendarError` if it cannot."""
    cal = load(course)
    return lambda student: _due(cal, student, ps)


class TermCollect(SafeCollect):
    """``nbgrader collect`` (:class:`kit.intake.steps.SafeCollect`) taking each student's
    hand-in by their own due date from the course's calendar."""

    def due(self, student: str) -> tuple[dt.datetime, float] | None:
        if getattr(self, "_calendar", None) is None:
            try:
                self._calendar = load(self.coursedir.root)
            except CalendarError as exc:
                self.fail(f"collect stopped: {exc}")
        return _due(self._calendar, student, self.coursedir.assignment_id)
