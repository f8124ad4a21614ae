"""Which of a student's hand-ins of one problem set is taken, and the record of the others.

A student may hand in several times: the exchange's ``inbound/`` keeps every ``nbgrader
submit``, and an LMS export may hold several files of one student. Each hand-in's time is
one the student cannot write (:mod:`kit.intake.received`: the exchange's inode change time,
the LMS's zip entry time). The rule (:func:`choose`):

* with a due date for the student (their own, extension included, given by the course's
  calendar above the intake, :mod:`kit.term.intake`): the latest hand-in received by the due
  date and its grace; when none is, the latest hand-in (it is late, and graded so);
* without one (no calendar, no due date for the problem set, an exempt student): the latest.

Two hand-ins received at the very same time (an LMS zip keeps times to two seconds) cannot
be told apart: when the rule would take one of them, none is taken and the TA is told.

Every hand-in not taken is recorded beside the one taken (``passed_over`` in
``received/<student>/<ps>.json``: its time, the name it came under, how long after the due
date it came), and :func:`passed_over` reads it back; its files are not copied.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from kit.inert import inert

__all__ = ["Candidate", "Choice", "choose", "describe", "passed_over", "record_of"]


@dataclass(frozen=True)
class Candidate:
    """One hand-in: ``key`` (its name in the exchange or the zip, the student's text in part)
    and ``time`` (aware UTC), when the course received it."""

    key: str
    time: dt.datetime


@dataclass(frozen=True)
class Choice:
    """The hand-in taken (None: two tie at the time the rule takes), the others, and why."""

    taken: Candidate | None
    others: tuple[Candidate, ...]
    due: dt.datetime | None
    grace: float
    tied: tuple[Candidate, ...] = ()

    @property
    def on_time(self) -> bool:
        return self.taken is not None and (self.due is None or self.taken.time <= self.deadline)

    @property
    def deadline(self) -> dt.datetime | None:
        return None if self.due is None else self.due + dt.timedelta(seconds=self.grace)

    def late_seconds(self, candidate: Candidate) -> float:
        """How long after the due date ``candidate`` came (0: on time or no due date)."""
        return 0.0 if self.due is None else max(0.0, (candidate.time - self.due).total_seconds())


def choose(candidates, due: dt.datetime | None = None, grace: float = 0.0) -> Choice:
    """Apply the rule to ``candidates`` (:class:`Candidate`), given the student's own ``due``
    date (aware; None: none) and the policy's ``grace`` in seconds."""
    pool = sorted(candidates, key=lambda c: c.time)
    if not pool:
        raise ValueError("no hand-in to choose from: got none")
    deadline = None if due is None else due + dt.timedelta(seconds=max(0.0, grace))
    on_time = [c for c in pool if deadline is None or c.time <= deadline]
    latest = (on_time or pool)[-1]
    tied = tuple(c for c in pool if c.time == latest.time)
    taken = latest if len(tied) == 1 else None
    others = tuple(c for c in pool if c is not taken)
    return Choice(taken, others, due, max(0.0, grace), tied if taken is None else ())


#: at most this many hand-ins not taken are recorded (the latest), and this many printed:
#: a student who hands in ten thousand times floods neither the record nor the TA's screen
RECORDED, SHOWN = 50, 10


def record_of(choice: Choice) -> list[dict]:
    """The ``passed_over`` list of a record: the hand-ins not taken, oldest first (the
    latest :data:`RECORDED` of them)."""
    return [{"time": c.time.astimezone(dt.timezone.utc).isoformat(), "name": c.key[:300],
             "late_seconds": round(choice.late_seconds(c), 3)}
            for c in choice.others[-RECORDED:]]


def describe(student: str, choice: Choice, shown=lambda t: f"{t:%Y-%m-%d %H:%M:%S} UTC") -> list[str]:
    """The lines a TA reads about ``student``'s hand-ins when there was more than one, or
    when the one taken is late; names made inert (they are the student's text in part)."""
    who, lines = inert(student), []
    if choice.taken is None:
        names = ", ".join(inert(c.key, limit=120) for c in choice.tied[:SHOWN])
        return [(f"not taken: {who}: {len(choice.tied)} hand-ins received at the same time "
                 f"{shown(choice.tied[0].time)} ({names}); keep one and collect again")]
    if choice.others or not choice.on_time:
        state = "on time" if choice.on_time else (
            f"late: after the due date {shown(choice.due)} and its grace, none came on time")
        lines.append(f"{who}: took the hand-in received {shown(choice.taken.time)} ({state})")
    for c in choice.others[-SHOWN:]:
        late = choice.late_seconds(c)
        when = f"{_span(late)} after the due date" if late else "earlier"
        lines.append(f"  {who}: not taken: the hand-in received {shown(c.time)} ({when}): "
                     f"{inert(c.key, limit=120)}")
    if len(choice.others) > SHOWN:
        lines.append(f"  {who}: and {len(choice.others) - SHOWN} earlier hand-ins not taken")
    return lines


def _span(seconds: float) -> str:
    for size, unit, limit in ((1, "s", 120), (60, "min", 7200), (3600, "h", 172800)):
        if seconds < limit:
            return f"{seconds / size:.{0 if size < 3600 else 1}f} {unit}"
    return f"{seconds / 86400:.1f} days"


def passed_over(course, student: str, ps: str) -> list[dict]:
    """The hand-ins of ``student`` for ``ps`` that the intake did not take (see
    :func:`record_of`); empty when there were none or there is no record."""
    from kit.intake.received import _ledger, _root

    try:
        data = json.loads(_ledger(_root(course), student, ps).read_text())
    except (OSError, ValueError):
        return []
    found = data.get("passed_over") if isinstance(data, dict) else None
    return [d for d in found if isinstance(d, dict)] if isinstance(found, list) else []
