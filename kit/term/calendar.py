"""The course's calendar file, ``term.json`` at the course root: read strictly, written whole.

It holds what nbgrader's gradebook has no place for: each problem set's opening, its time
zone and late policy, extensions granted to students without a hand-in yet (and every
extension's reason), and exemptions. The due dates and extensions are also written to the
gradebook (``Assignment.duedate``, ``SubmittedAssignment.extension``) by
:mod:`kit.term.gradebook`. Every time is kept in UTC with the zone it was given in.

The file is replaced atomically (a reader sees the old calendar or the new one) and checked
on every read: a file that does not hold a calendar stops every command with one line naming
what is wrong, rather than grading against a guess. No file: no due dates, no penalty.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kit.course import ASSIGNMENTS
from kit.term.practice import Practice, parse_practice
from kit.term.times import MAX_DAYS, Policy, parse_policy, zone

__all__ = ["FILE", "Calendar", "CalendarError", "Entry", "Extension", "load", "save"]

#: the calendar's file, at the course root
FILE = "term.json"
UTC = dt.timezone.utc


@dataclass(frozen=True)
class Entry:
    """One problem set's dates (aware UTC; ``None``: not set), zone name, late policy and
    practice policy (:mod:`kit.term.practice`)."""

    opens: dt.datetime | None
    due: dt.datetime | None
    zone: str
    late: Policy
    practice: Practice = field(default_factory=Practice)


@dataclass(frozen=True)
class Extension:
    """An extension: ``days`` after the due date, or ``until`` a time (aware UTC)."""

    reason: str
    days: float | None = None
    until: dt.datetime | None = None

    def due(self, due: dt.datetime) -> dt.datetime:
        return self.until if self.until is not None else due + dt.timedelta(days=self.days or 0)


class CalendarError(ValueError):
    """``term.json`` does not hold a calendar; the message names the file and the problem."""


def _time(value, where: str) -> dt.datetime | None:
    if value is None:
        return None
    try:
        when = dt.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise CalendarError(f"{where} is not a time: {value!r}") from None
    if when.tzinfo is None:
        raise CalendarError(f"{where} has no time zone: {value!r}")
    if not 2000 <= when.year <= 2100:
        raise CalendarError(f"{where} is not a date of a term: {value!r}")
    return when.astimezone(UTC)


def _iso(when: dt.datetime | None) -> str | None:
    return None if when is None else when.astimezone(UTC).isoformat()


def _text(value, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CalendarError(f"{where} needs a reason (text)")
    return value


@dataclass
class Calendar:
    """The whole calendar: ``entries[ps]``, ``extensions[ps][student]``, ``exemptions[ps][student]``."""

    entries: dict
    extensions: dict
    exemptions: dict

    @classmethod
    def empty(cls) -> Calendar:
        return cls({}, {}, {})

    def entry(self, ps: str) -> Entry | None:
        return self.entries.get(ps)

    def extension(self, student: str, ps: str) -> Extension | None:
        return self.extensions.get(ps, {}).get(student)

    def exemption(self, student: str, ps: str) -> str | None:
        """The reason ``student`` is exempt from ``ps`` (None: not exempt)."""
        return self.exemptions.get(ps, {}).get(student)

    def due_for(self, student: str, ps: str) -> dt.datetime | None:
        """``student``'s own due date of ``ps`` (aware UTC, extension included); None: no
        due date (none set, or the student is exempt)."""
        entry = self.entries.get(ps)
        if entry is None or entry.due is None or self.exemption(student, ps) is not None:
            return None
        ext = self.extension(student, ps)
        return ext.due(entry.due) if ext else entry.due

    # -- the file's form ------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "version": 1,
            "problem_sets": {ps: {"opens": _iso(e.opens), "due": _iso(e.due), "zone": e.zone,
                                  "late": e.late.text,
                                  **({"practice": e.practice.text}
                                     if e.practice != Practice() else {})}
                             for ps, e in sorted(self.entries.items())},
            "extensions": {ps: {s: {"reason": x.reason, "days": x.days, "until": _iso(x.until)}
                                for s, x in sorted(by.items())}
                           for ps, by in sorted(self.extensions.items()) if by},
            "exemptions": {ps: dict(sorted(by.items()))
                           for ps, by in sorted(self.exemptions.items()) if by},
        }

    @classmethod
    def from_json(cls, data) -> Calendar:
        if not isinstance(data, dict) or data.get("version") != 1:
            raise CalendarError("it is not a version-1 calendar")
        cal = cls.empty()
        for ps, raw in _mapping(data.get("problem_sets", {}), "problem_sets").items():
            where = f"problem set {ps!r}"
            _known(ps, where)
            raw = _mapping(raw, where)
            name = raw.get("zone", "UTC")
            try:
                zone(name)
                late = parse_policy(raw.get("late") or "off")
                practice = parse_practice(raw.get("practice", "after"))
            except ValueError as exc:
                raise CalendarError(f"{where}: {exc}") from None
            entry = Entry(_time(raw.get("opens"), f"{where}'s opening"),
                          _time(raw.get("due"), f"{where}'s due date"), name, late, practice)
            if entry.opens and entry.due and entry.due <= entry.opens:
                raise CalendarError(f"{where} is due before it opens")
            cal.entries[ps] = entry
        for ps, by in _mapping(data.get("extensions", {}), "extensions").items():
            _known(ps, f"extensions of {ps!r}")
            for student, raw in _mapping(by, f"extensions of {ps!r}").items():
                where = f"the extension of {student!r} in {ps!r}"
                raw = _mapping(raw, where)
                days, until = raw.get("days"), _time(raw.get("until"), where)
                if (days is None) == (until is None) or (days is not None and (
                        isinstance(days, bool) or not isinstance(days, (int, float))
                        or not 0 < days <= MAX_DAYS)):
                    raise CalendarError(f"{where} needs a positive number of days "
                                        f"(at most {MAX_DAYS}) or a time")
                cal.extensions.setdefault(ps, {})[student] = Extension(
                    _text(raw.get("reason"), where), days, until)
        for ps, by in _mapping(data.get("exemptions", {}), "exemptions").items():
            _known(ps, f"exemptions of {ps!r}")
            for student, reason in _mapping(by, f"exemptions of {ps!r}").items():
                cal.exemptions.setdefault(ps, {})[student] = _text(
                    reason, f"the exemption of {student!r} in {ps!r}")
        return cal


def _mapping(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise CalendarError(f"{where} is not a mapping")
    return value


def _known(ps: str, where: str) -> None:
    if ps not in ASSIGNMENTS:
        raise CalendarError(f"{where}: no problem set of the course is called {ps!r}")


def _root(course) -> Path:
    return Path(course) if isinstance(course, (str, os.PathLike)) else Path(course.root)


def load(course) -> Calendar:
    """The calendar of ``course`` (a :class:`kit.course.Course` or its folder); empty when
    there is no ``term.json``. Raises :class:`CalendarError` naming the file and the problem."""
    path = _root(course) / FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Calendar.empty()
    try:
        return Calendar.from_json(json.loads(text))
    except CalendarError as exc:
        raise CalendarError(f"{path}: {exc}") from None
    except ValueError as exc:
        raise CalendarError(f"{path}: not JSON ({exc})") from None


def save(course, cal: Calendar) -> Path:
    """Write ``cal`` to the course's ``term.json`` atomically; return its path."""
    path = _root(course) / FILE
    text = json.dumps(cal.to_json(), indent=1, ensure_ascii=False) + "\n"
    Calendar.from_json(json.loads(text))  # what is written reads back
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".term-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
