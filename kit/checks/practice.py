"""Practice draws: fresh numbers for no credit, which never hold a key anyone is working on.

A practice draw ``k`` of a student's problem set is a *numbers id*: the notebook draws
numbers from it exactly as it draws a student's own from their id (the numbers cell's
``your_numbers``), and the judge judges against its key as against a student's
(:func:`kit.checks.judging.judge`). The id is ``practice:`` and 24 hex digits of
HMAC-SHA256(the grader's secret, course, problem set, student, k, try) (:mod:`kit.secret`):
only the service can compute it, and no one can predict a draw from a student id, theirs
or a classmate's. Ids are tried in turn until one fits (at most :data:`TRIES`):

* for every item that can be checked, the key of the draw is never in the class of the
  student's own graded key (:mod:`kit.checks.practice_keys`: different numbers can share an
  answer, so classes are compared, never numbers); a draw that cannot avoid it is refused;
* it holds as few as it can of the keys of classmates still working: before their own due
  date (extension included), or without one, or after it while the late policy still gives
  a late hand-in points and the intake has taken no hand-in of theirs received in time
  (:func:`kit.term.practice.still_working`): a check of such an item is refused (:func:`screened`) until then.

The first draw ``k`` is recorded (:class:`PracticeStore`, ``kpca_practice_draws``) and
kept: later calls of ``practice(k)`` give the same numbers, however the class changes.
Practice checks are counted in their own table (``kpca_practice_attempts``), per item and
draw, which grading never reads: practice counts for nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import time

from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    func,
    inspect,
    select,
)
from sqlalchemy.exc import IntegrityError

from kit.checks.store import _now, finish_row, open_engine, reserve_slot
from kit.term.practice import still_working

__all__ = ["PREFIX", "TRIES", "PracticeStore", "draw_index", "draw_kept", "draw_numbers",
           "numbers_id", "practice_numbers", "screened"]

#: what every practice numbers id starts with (no course's student id does: ids are drawn)
PREFIX = "practice:"
#: ids tried for one draw
TRIES = 64
#: seconds the list of classmates is kept before it is read again
CLASSMATES_SECONDS = 30.0

_META = MetaData()
DRAWS = Table(
    "kpca_practice_draws", _META,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("student", String(255), nullable=False, index=True),
    Column("problem_set", String(100), nullable=False),
    Column("draw", Integer, nullable=False),
    Column("numbers_id", String(100), nullable=False),
    Column("at", DateTime, nullable=False),
    UniqueConstraint("student", "problem_set", "draw", name="kpca_practice_one_draw"),
)
ATTEMPTS = Table(
    "kpca_practice_attempts", _META,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("student", String(255), nullable=False, index=True),
    Column("item", String(100), nullable=False),
    Column("problem_set", String(100), nullable=False),
    Column("draw", Integer, nullable=False),
    Column("slot", Integer, nullable=True),
    Column("at", DateTime, nullable=False),
    Column("verdict", String(20), nullable=False),
    Column("code", String(60), nullable=True),
    UniqueConstraint("student", "item", "draw", "slot", name="kpca_practice_one_slot"),
)


def draw_index(value, most: int) -> int:
    """``value`` as a practice draw's number, 1 to ``most``; ValueError naming it else."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        shown = repr(value) if isinstance(value, (int, float, str)) else type(value).__name__
        raise ValueError(f"practice draws are numbered 1 to {most}: practice(1), practice(2), "
                         f"...; got {shown[:40]}")
    return value


def numbers_id(secret: bytes, ps: str, student: str, draw: int, attempt: int) -> str:
    """The numbers id of try ``attempt`` of ``student``'s practice draw ``draw`` of ``ps``."""
    from kpca_ref.variants import COURSE_ID

    text = "\x1f".join(("practice", COURSE_ID, ps, student, str(draw), str(attempt)))
    return PREFIX + hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()[:24]


def _classes_of(ps: str, sid: str, items) -> dict[str, int]:
    """``{item: key class}`` of the numbers drawn from ``sid`` (a student or numbers id)."""
    from kit.checks.practice_keys import classes
    from kpca_ref import variants

    table, mod, options = classes(ps), variants.module(ps), variants.families(ps)
    found = {}
    for item in items:
        (family,) = mod.ITEMS[item]
        found[item] = table[item][variants.candidate_of(family, ps, sid, len(options[family]))]
    return found


_CLASSMATES: dict = {}


def classmates(policy, cal, ps: str) -> set[str]:
    """The students the course knows: the hub's students' groups (on a hub), the gradebook's,
    those who checked, the calendar's and those with a hand-in in ``submitted/`` (read again
    every :data:`CLASSMATES_SECONDS`)."""
    from kit.checks.access import group_members

    held = _CLASSMATES.get((str(policy.root), ps))
    if held and held[0] > time.monotonic():
        return held[1]
    groups = getattr(policy, "groups", None)  # early practice meets classmates who never
    names: set[str] = group_members(groups()[0]) if groups else set()  # checked yet
    gradebook = policy.root / "gradebook.db"
    for url in dict.fromkeys((policy.db_url, f"sqlite:///{gradebook}")):
        if url == f"sqlite:///{gradebook}" and not gradebook.exists():
            continue
        engine = create_engine(url)
        try:
            tables = set(inspect(engine).get_table_names())
            with engine.connect() as conn:
                for table, column in (("student", "id"), ("kpca_check_attempts", "student")):
                    if table in tables:
                        names |= set(conn.execute(select(
                            Table(table, MetaData(), Column(column, String)).c[column])).scalars())
        finally:
            engine.dispose()
    names |= set(cal.extensions.get(ps, {})) | set(cal.exemptions.get(ps, {}))
    submitted = policy.root / "submitted"
    if submitted.is_dir():
        names |= {p.name for p in submitted.iterdir() if p.is_dir()}
    _CLASSMATES[(str(policy.root), ps)] = (time.monotonic() + CLASSMATES_SECONDS, names)
    return names


_RECEIVED: dict = {}


def _received(policy, ps: str, names) -> dict:
    """``{name: the time the intake took their hand-in}`` of ``names`` with a record (the
    intake's ``received/<name>/<ps>.json``, read again every :data:`CLASSMATES_SECONDS`)."""
    from kit.checks.overview import _record_time, student_folder

    held = _RECEIVED.get((str(policy.root), ps))
    if held and held[0] > time.monotonic() and held[1] >= names:
        return held[2]
    found = {}
    for name in names:
        try:
            when = _record_time(policy.root, student_folder(name), ps)
        except ValueError:  # a name that cannot be a folder has no record
            when = None
        if when is not None:
            found[name] = when
    _RECEIVED[(str(policy.root), ps)] = (time.monotonic() + CLASSMATES_SECONDS, set(names), found)
    return found


def _taken(policy, cal, ps: str, student: str, items, when: dt.datetime):
    """``(own classes, {item: classes of classmates still working})``: a classmate works
    on while a hand-in of theirs could still earn points (:func:`kit.term.practice.still_working`)."""
    own = _classes_of(ps, student, items)
    others: dict[str, set[int]] = {item: set() for item in items}
    names = classmates(policy, cal, ps) - {student}
    received = _received(policy, ps, names)
    for name in names:
        if still_working(cal, ps, name, when, received.get(name)):
            for item, cls in _classes_of(ps, name, items).items():
                others[item].add(cls)
    return own, others


def draw_numbers(policy, cal, secret: bytes, ps: str, student: str, draw: int, items,
                 when: dt.datetime) -> tuple[str | None, list[str]]:
    """``(numbers id, items it shares with classmates still working)`` of a new draw, or
    ``(None, [])`` when no try avoids the student's own keys of ``items``."""
    own, others = _taken(policy, cal, ps, student, items, when)
    best = None
    for attempt in range(TRIES):
        sid = numbers_id(secret, ps, student, draw, attempt)
        mine = _classes_of(ps, sid, items)
        if any(mine[item] == own[item] for item in items):
            continue
        shared = [item for item in items if mine[item] in others[item]]
        if best is None or len(shared) < len(best[1]):
            best = (sid, shared)
        if not shared:
            break
    return best if best is not None else (None, [])


def screened(policy, cal, ps: str, student: str, sid: str, items, when: dt.datetime) -> list[str]:
    """The ``items`` whose key on the numbers id ``sid`` is the student's own graded one or
    a classmate's still working: they cannot be checked on it now."""
    own, others = _taken(policy, cal, ps, student, items, when)
    mine = _classes_of(ps, sid, items)
    return [item for item in items if mine[item] == own[item] or mine[item] in others[item]]


def draw_kept(policy, cal, store, ps: str, student: str, draw: int, items, when: dt.datetime):
    """``(numbers id, items not checkable on it now)`` of ``student``'s draw ``draw``: the
    one kept in ``store``, else a new one, kept; ``(None, [])`` when none can be drawn."""
    from kit.secret import course_secret

    sid = store.recorded(student, ps, draw)
    if sid is None:
        sid, _ = draw_numbers(policy, cal, course_secret(policy.root), ps, student, draw,
                              items, when)
        if sid is None:
            return None, []
        sid = store.record(student, ps, draw, sid)
    return sid, screened(policy, cal, ps, student, sid, items, when)


def practice_numbers(course, student: str, ps: str, draw: int, when: dt.datetime | None = None):
    """``(numbers id, N)`` of ``student``'s practice draw ``draw`` of ``ps``, as the service
    gives it (kept, and the same later), for a TA or a demo; ValueError saying why not."""
    import os
    from pathlib import Path

    from kit.checks.policy import Policy
    from kit.term import load, now
    from kit.term.practice import Practice, practice_closed
    from kpca_ref import variants

    root = Path(course) if isinstance(course, (str, os.PathLike)) else Path(course.root)
    policy, when = Policy(root), when or now()
    cal = load(policy.root)
    entry = cal.entry(ps)
    draw = draw_index(draw, (entry.practice if entry else Practice()).draws)
    why = practice_closed(cal, student, ps, when)
    if why:
        raise ValueError(why)
    items = [i for i in variants.module(ps).ITEMS if policy.limit(i)[0] > 0]
    sid, _ = draw_kept(policy, cal, PracticeStore(policy.db_url), ps, student, draw, items, when)
    if sid is None:
        raise ValueError(f"practice {draw} of {ps} cannot be drawn for {student!r}")
    return sid, variants.numbers(ps, sid)


class PracticeStore:
    """The practice tables of the database at ``url`` (created when missing)."""

    def __init__(self, url: str):
        self.engine = open_engine(url)
        _META.create_all(self.engine)

    def recorded(self, student: str, ps: str, draw: int) -> str | None:
        with self.engine.connect() as conn:
            return conn.execute(select(DRAWS.c.numbers_id).where(
                DRAWS.c.student == student, DRAWS.c.problem_set == ps,
                DRAWS.c.draw == draw)).scalar()

    def record(self, student: str, ps: str, draw: int, sid: str) -> str:
        """Keep ``sid`` as the draw, unless one was kept meanwhile: the kept one."""
        try:
            with self.engine.begin() as conn:
                conn.execute(DRAWS.insert().values(student=student, problem_set=ps, draw=draw,
                                                   numbers_id=sid, at=_now()))
        except IntegrityError:
            pass
        return self.recorded(student, ps, draw)

    def used(self, student: str, item: str, draw: int) -> int:
        with self.engine.connect() as conn:
            return conn.execute(select(func.count(ATTEMPTS.c.slot)).where(
                ATTEMPTS.c.student == student, ATTEMPTS.c.item == item,
                ATTEMPTS.c.draw == draw)).scalar_one()

    def reserve(self, student: str, item: str, ps: str, draw: int, limit: int):
        """``(row id, checks used with it)``, or ``(None, used)`` at the limit."""
        mine = (ATTEMPTS.c.student == student, ATTEMPTS.c.item == item, ATTEMPTS.c.draw == draw)
        return reserve_slot(self.engine, ATTEMPTS, mine, limit,
                            {"student": student, "item": item, "problem_set": ps, "draw": draw})

    def finish(self, row: int, verdict: str, code: str | None = None) -> None:
        """Record the verdict; a check that does not count gives its slot back."""
        finish_row(self.engine, ATTEMPTS, row, verdict, code)
