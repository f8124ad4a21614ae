"""Practice on fresh numbers: when a student may draw them, and how much they may check.

A problem set's practice policy lives in the calendar (``term.json``, set with
``python -m kit.term set <ps> --practice "..."``). Its clauses, separated by ``;``:

``after`` (the default)
    practice opens at the student's own due date (extension included); never for an exempt
    student, whose hand-in counts whenever it comes;
``early``
    it opens with the problem set (its opening, when the calendar names one);
``off``
    no practice;
``<n> checks``
    checks per exact item and practice draw (default :data:`CHECKS`);
``<m> draws``
    practice draws per student and problem set: ``practice(1)`` ... ``practice(m)``
    (default :data:`DRAWS`).

Practice never counts towards a grade: its checks are kept apart from the graded ones
(:mod:`kit.checks.practice`), and its numbers are never a key anyone is still working on.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

__all__ = ["CHECKS", "DRAWS", "MAX_CHECKS", "MAX_DRAWS", "Practice", "parse_practice",
           "practice_closed", "still_working"]

#: checks per item and draw, and draws per problem set, unless the calendar says otherwise
CHECKS, DRAWS = 5, 20
#: the most the calendar may allow (a bound on what one student can ask of the judges)
MAX_CHECKS, MAX_DRAWS = 100, 1000
_COUNT = re.compile(r"^(\d{1,6})\s+(checks?|draws?)$")


@dataclass(frozen=True)
class Practice:
    """A problem set's practice policy: ``when`` is ``after``, ``early`` or ``off``."""

    when: str = "after"
    checks: int = CHECKS
    draws: int = DRAWS

    @property
    def text(self) -> str:
        """The policy in the calendar's words (what :func:`parse_practice` reads back)."""
        if self.when == "off":
            return "off"
        return f"{self.when}; {self.checks} checks; {self.draws} draws"

    def describe(self) -> str:
        """The policy in plain words."""
        if self.when == "off":
            return "no practice"
        start = "from the opening" if self.when == "early" else "after each student's due date"
        return f"{start}, {self.draws} draws of {self.checks} checks per item"


def parse_practice(text) -> Practice:
    """The practice policy ``text`` (``"early; 5 checks; 20 draws"``, ``"off"``, ...).

    Raises ValueError naming the clause it cannot read.

    >>> parse_practice("early; 3 checks").text
    'early; 3 checks; 20 draws'
    """
    if not isinstance(text, str):
        raise ValueError(  # noqa: TRY004 - every calendar error is a ValueError
            f"a practice policy is text such as 'after; 5 checks', got {text!r}")
    found: dict = {}
    for clause in (c.strip().lower() for c in text.split(";")):
        if not clause:
            continue
        match = _COUNT.match(clause)
        if clause in ("after", "early", "off"):
            key, value = "when", clause
        elif match:
            key, value = match.group(2).rstrip("s") + "s", int(match.group(1))
            top = MAX_CHECKS if key == "checks" else MAX_DRAWS
            if not 1 <= value <= top:
                raise ValueError(f"practice: {clause!r} is not between 1 and {top} {key}")
        else:
            raise ValueError(f"practice: cannot read {clause[:60]!r}: write 'after' or 'early' "
                             "or 'off', '<n> checks', '<m> draws', separated by ';'")
        if key in found:
            raise ValueError(f"practice: {key} given twice in {text[:80]!r}")
        found[key] = value
    return Practice(**found)


def practice_closed(cal, student: str, ps: str, when: dt.datetime) -> str:
    """Why ``student`` may not practise ``ps`` at ``when`` (``cal``: the course's
    :class:`~kit.term.calendar.Calendar`); ``""``: they may."""
    from kit.term.times import show_time

    entry = cal.entry(ps)
    policy = entry.practice if entry is not None else Practice()
    if policy.when == "off":
        return f"practice of {ps} is off (your instructor's choice)"
    if policy.when == "early":
        if entry is not None and entry.opens is not None and when < entry.opens:
            return f"practice of {ps} opens with it, {show_time(entry.opens, entry.zone)}"
        return ""
    if cal.exemption(student, ps) is not None:  # her hand-in counts whenever it comes
        return (f"practice of {ps} opens at your due date, and you are exempt from it: a "
                "hand-in of yours still counts, so practice stays closed")
    due = cal.due_for(student, ps)
    if due is None:
        return (f"practice of {ps} opens at your due date, and {ps} has none in the course "
                "calendar yet")
    if when <= due:
        return f"practice of {ps} opens at your due date, {show_time(due, entry.zone)}"
    return ""


def still_working(cal, ps: str, name: str, when: dt.datetime, received) -> bool:
    """Whether a hand-in ``name`` makes from ``when`` on could still earn points: before
    their own due date (extension included), for ever without one (none set, exempt), and
    after it while the late policy still gives points, unless the intake took a hand-in of
    theirs received in time (``received``: the time it took one, or None), which a later one
    never displaces."""
    due = cal.due_for(name, ps)
    if due is None or when <= due:
        return True
    from kit.term.times import late_window

    late = cal.entry(ps).late
    window = late_window(late)
    if window is not None and when > due + window:
        return False
    return received is None or received > due + dt.timedelta(seconds=late.grace)
