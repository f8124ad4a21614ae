"""When a student's worked solution may go out: their own due date, the class's last one.

Two times per student and problem set, both from the course calendar (:mod:`kit.term`):

* ``answers_at``: the student's own due date (extension included) once no hand-in of theirs
  can still count: the late policy's grace, or, when the policy takes every point after some
  days (``none``, or a penalty per step reaching 100%), that moment. From then on the exact
  answers worked on their own numbers may go out: nobody else has those numbers.
* ``code_at``: the same moment for the student whose due date is the class's last (every
  extension of the problem set in the calendar). Code solutions and written answers are the
  same for every student, so by default they wait for it; ``code_now`` gives each student
  theirs at ``answers_at``.

An exempt student has no due date of their own, so a hand-in of theirs counts (without a
penalty) whenever it comes: they get nothing, and while anyone is exempt the code waits too
(``answers_at`` / ``code_at`` None), unless the instructor accepts that (``late_open``: their
answers at the problem set's due date, the code with the class). Likewise a late policy under
which a hand-in counts however late (``off``, or a penalty capped below 100%) would let a
student hand in again after reading the solution, so the release is refused unless the
instructor accepts that (``late_open``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from kit.inert import inert
from kit.term import Calendar
from kit.term.times import Policy, late_window, show_time

__all__ = ["Schedule", "SolutionRefused", "decide", "late_window", "schedule"]

#: the two forms of a worked solution
FULL, ANSWERS = "full", "answers"
_EXEMPT_DUE = ": the problem set's due date"


class SolutionRefused(ValueError):
    """A worked solution may not go out (yet); the message names the student and the time."""


@dataclass(frozen=True)
class Schedule:
    """``answers_at`` / ``code_at`` (aware UTC; None: not while a hand-in without end can
    come, an exemption's) and what each is, in words."""

    student: str
    ps: str
    due: dt.datetime
    answers_at: dt.datetime | None
    code_at: dt.datetime | None
    zone: str
    why_due: str
    exempt: str = ""  # the classmate (or the student) whose exemption holds the release back

    def shown(self, when: dt.datetime) -> str:
        return show_time(when, self.zone)


def _closes(due: dt.datetime, policy: Policy, late_open: bool, ps: str) -> dt.datetime:
    window = late_window(policy)
    if window is None:
        if not late_open:
            raise SolutionRefused(
                f"{ps}'s late policy ({policy.text!r}) lets a hand-in count however late it comes: "
                "a student could hand in again after reading the solution. Close late work first "
                f"(python -m kit.term set {ps} --late \"<grace>; none\", or a cap of 100%), or "
                "pass --late-open to release anyway")
        window = dt.timedelta(seconds=policy.grace)
    return due + window


def schedule(cal: Calendar, ps: str, student: str, code_now: bool = False,
             late_open: bool = False) -> Schedule:
    """``student``'s :class:`Schedule` for ``ps``; :class:`SolutionRefused` when ``ps`` has
    no due date (then no time is safe) or its late policy never closes."""
    entry = cal.entry(ps)
    if entry is None or entry.due is None:
        raise SolutionRefused(f"{ps} has no due date, so no solution can be released safely: "
                              f"set it first (python -m kit.term set {ps} --due ...)")
    own = cal.due_for(student, ps)
    if own is None:  # exempt
        own, why = entry.due, f"exempt ({inert(cal.exemption(student, ps))}){_EXEMPT_DUE}"
    else:
        why = "extension included" if cal.extension(student, ps) else "the class's due date"
    last = max([entry.due] + [ext.due(entry.due) for ext in cal.extensions.get(ps, {}).values()])
    answers_at = _closes(own, entry.late, late_open, ps)
    code_at = answers_at if code_now else max(answers_at, _closes(last, entry.late, late_open, ps))
    # an exempt student's hand-in counts whenever it comes: their own answers, or the code
    # that is the same for everyone, would let them hand it in (unless the instructor accepts)
    exempt = "" if late_open else min(cal.exemptions.get(ps, {}), key=str, default="")
    if exempt and cal.exemption(student, ps) is not None:
        return Schedule(student, ps, own, None, None, entry.zone, why, student)
    if exempt and not code_now:
        code_at = None
    return Schedule(student, ps, own, answers_at, code_at, entry.zone, why, exempt)


def decide(sched: Schedule, now: dt.datetime) -> str:
    """:data:`FULL` or :data:`ANSWERS` at ``now``; :class:`SolutionRefused` until ``answers_at``
    has passed (a hand-in received at that very moment still counts); for ever when the
    student is exempt (``answers_at`` None)."""
    if sched.answers_at is None:
        raise SolutionRefused(
            f"{inert(sched.student)}: no solution of {sched.ps}: {sched.why_due.removesuffix(_EXEMPT_DUE)}, "
            "so a hand-in of theirs counts whenever it comes; pass --late-open to release "
            "at the problem set's due date")
    if now <= sched.answers_at:
        after = "" if sched.answers_at == sched.due else (
            f"; hand-ins count until {sched.shown(sched.answers_at)} under the late policy")
        raise SolutionRefused(
            f"{inert(sched.student)}: no solution of {sched.ps} before their due date, "
            f"{sched.shown(sched.due)} ({sched.why_due}){after}")
    return FULL if sched.code_at is not None and now > sched.code_at else ANSWERS
