"""The attempts table (``kpca_check_attempts``) in the course database.

One row per judged check: student, item, problem set, time (UTC), verdict (``right``,
``wrong``, ``mistake`` with its diagnosis ``code``, ``form`` for an answer that is not
exact or has the wrong shape, ``timeout``), and ``slot``: the attempt's number, or NULL
for a check that did not count. A unique constraint on (student, item, slot) is what makes
the limit hold: a check first *reserves* the next slot, and of two requests that read the
same count only one can insert it, whether they come from one service process or several
(sqlite or PostgreSQL alike). The other retries and finds the limit reached.

A reservation is always settled: the service records the verdict, or gives the slot back
(``error``, ``crash``: the judge failed, not the student) on every path out of a check. A
check whose answer cost the judge too much (``timeout``, ``toolarge``) keeps its slot: it
was the student's to spend, but it is no wrong answer (it costs no points). A row left
``pending`` by a service killed mid-judgement holds its slot at most :data:`STALE_SECONDS`:
then the next reservation of that student and item, or the next service start, marks it
``lost`` and frees the slot.

An item renamed since checks began (:data:`kpca_ref.variants.RENAMED`) keeps its rows under
the old name: the limit counts them with the new name's, and the summaries and check costs
read them as the item's.
"""

from __future__ import annotations

import datetime as dt
import statistics
import time
from collections import Counter, defaultdict

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
    select,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError

from kpca_ref.variants import RENAMED, current_name

__all__ = ["ATTEMPTS", "COUNTED", "SPENT", "STALE_SECONDS", "Store", "summary", "wrong_checks"]

_META = MetaData()
ATTEMPTS = Table(
    "kpca_check_attempts", _META,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("student", String(255), nullable=False, index=True),
    Column("item", String(100), nullable=False),
    Column("problem_set", String(100), nullable=False),
    Column("slot", Integer, nullable=True),
    Column("at", DateTime, nullable=False),
    Column("verdict", String(20), nullable=False),
    Column("code", String(60), nullable=True),
    UniqueConstraint("student", "item", "slot", name="kpca_check_one_slot"),
)
#: verdicts of judged answers, which use up an attempt
COUNTED = ("right", "wrong", "mistake")
#: verdicts that use up an attempt: judged, or too costly to judge (the student's doing)
SPENT = (*COUNTED, "timeout", "toolarge")
#: a pending reservation older than this (seconds) belongs to no check under way: a check
#: reserves only once a judge is free, and a judgement is killed after its time limit
STALE_SECONDS = 300.0


def _names(item: str) -> list[str]:
    """``item`` and the old names recorded for it (:data:`kpca_ref.variants.RENAMED`)."""
    return [item, *sorted(old for old, new in RENAMED.items() if new == item)]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def open_engine(url: str):
    """An engine on the database at ``url``; on a sqlite file a writer waits up to 15 s for
    another's lock instead of failing at once."""
    return create_engine(url, connect_args={"timeout": 15} if url.startswith("sqlite") else {})


def reserve_slot(engine, table: Table, mine: tuple, limit: int, values: dict,
                 before=None) -> tuple[int | None, int]:
    """Insert a ``pending`` row of ``table`` (its ``values``) in the next free ``slot`` of
    the rows ``mine`` selects: ``(row id, slots used with it)``, or ``(None, used)`` when
    ``limit`` slots are used. Of two requests that read the same count, the unique slot lets
    one insert; the other reads again. ``before(conn)`` runs first in each transaction."""
    used = 0
    for _ in range(50):
        try:
            with engine.begin() as conn:
                if before is not None:
                    before(conn)
                used, top = conn.execute(select(func.count(table.c.slot),
                                                func.max(table.c.slot)).where(*mine)).one()
                if used >= limit:
                    return None, used
                row = conn.execute(table.insert().values(
                    **values, slot=(top or 0) + 1, at=_now(), verdict="pending"))
                return row.inserted_primary_key[0], used + 1
        except (IntegrityError, OperationalError):  # another request took that slot
            continue
    return None, used


def finish_row(engine, table: Table, row: int, verdict: str, code: str | None = None) -> None:
    """Record the verdict of ``table``'s reserved ``row``; a verdict not in :data:`SPENT`
    gives its slot back. A locked sqlite file or a dropped connection is tried again."""
    values = {"verdict": verdict, "code": code}
    if verdict not in SPENT:
        values["slot"] = None
    for attempt in range(5):
        try:
            with engine.begin() as conn:
                conn.execute(update(table).where(table.c.id == row).values(**values))
            return
        except OperationalError:
            if attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))


class Store:
    """The attempts table of the database at ``url`` (created when missing)."""

    def __init__(self, url: str, stale: float = STALE_SECONDS):
        self.engine, self.stale = open_engine(url), stale
        _META.create_all(self.engine, tables=[ATTEMPTS])
        with self.engine.begin() as conn:  # checks cut off by a stop do not count
            self._release_stale(conn)

    def _release_stale(self, conn, *where) -> None:
        old = _now() - dt.timedelta(seconds=self.stale)
        conn.execute(update(ATTEMPTS).where(ATTEMPTS.c.verdict == "pending",
                                            ATTEMPTS.c.at < old, *where)
                     .values(verdict="lost", slot=None))

    def used(self, student: str, item: str) -> int:
        with self.engine.connect() as conn:
            return conn.execute(select(func.count(ATTEMPTS.c.slot)).where(
                ATTEMPTS.c.student == student, ATTEMPTS.c.item.in_(_names(item)))).scalar_one()

    def reserve(self, student: str, item: str, ps: str, limit: int) -> tuple[int | None, int]:
        """``(row id, attempts used with it)``, or ``(None, used)`` when the limit is reached."""
        mine = (ATTEMPTS.c.student == student, ATTEMPTS.c.item.in_(_names(item)))
        return reserve_slot(self.engine, ATTEMPTS, mine, limit,
                            {"student": student, "item": item, "problem_set": ps},
                            before=lambda conn: self._release_stale(conn, *mine))

    def finish(self, row: int, verdict: str, code: str | None = None) -> None:
        """Record the verdict; a check that does not count gives its slot back."""
        finish_row(self.engine, ATTEMPTS, row, verdict, code)

    def note(self, student: str, item: str, ps: str, verdict: str) -> None:
        """Record a check that was judged without using an attempt (not exact, ...)."""
        with self.engine.begin() as conn:
            conn.execute(ATTEMPTS.insert().values(student=student, item=item, problem_set=ps,
                                                  slot=None, at=_now(), verdict=verdict))


def summary(url: str, submitted: dict | None = None) -> dict[str, dict]:
    """Per item: students who checked, attempts before right, named mistakes before hand-in.

    ``submitted`` maps ``(student, problem set)`` to the hand-in time (naive UTC); checks
    after it are left out of the mistakes. Returns ``{}`` when the table does not exist.
    """
    from sqlalchemy import inspect

    engine = create_engine(url)
    try:
        if not inspect(engine).has_table(ATTEMPTS.name):
            return {}
        with engine.connect() as conn:
            rows = conn.execute(select(ATTEMPTS).where(ATTEMPTS.c.verdict.in_(COUNTED))
                                .order_by(ATTEMPTS.c.at, ATTEMPTS.c.id)).all()
    finally:
        engine.dispose()
    by_item: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by_item[current_name(r.item)][r.student].append(r)
    found = {}
    for item, students in sorted(by_item.items()):
        before_right, mistakes = [], Counter()
        for student, tries in students.items():
            firsts = [i for i, r in enumerate(tries) if r.verdict == "right"]
            if firsts:
                before_right.append(firsts[0])
            until = (submitted or {}).get((student, tries[0].problem_set))
            mistakes.update(r.code for r in tries
                            if r.verdict == "mistake" and (until is None or r.at <= until))
        found[item] = {"students": len(students), "right": len(before_right),
                       "attempts_before_right": (statistics.median(before_right)
                                                 if before_right else None),
                       "mistakes": mistakes.most_common(3)}
    return found


def wrong_checks(url: str, student: str, ps: str, until: dt.datetime | None = None
                 ) -> dict[str, int]:
    """``{item: wrong checks}`` of ``student`` in problem set ``ps``: the counted checks that
    were not right, made before the first right one and (when given) before ``until``, the
    hand-in time (naive UTC). Empty when the table does not exist."""
    from sqlalchemy import inspect

    engine = create_engine(url)
    try:
        if not inspect(engine).has_table(ATTEMPTS.name):
            return {}
        with engine.connect() as conn:
            rows = conn.execute(select(ATTEMPTS.c.item, ATTEMPTS.c.verdict, ATTEMPTS.c.at)
                                .where(ATTEMPTS.c.student == student,
                                       ATTEMPTS.c.problem_set == ps,
                                       ATTEMPTS.c.verdict.in_(COUNTED))
                                .order_by(ATTEMPTS.c.slot)).all()
    finally:
        engine.dispose()
    found: dict[str, int] = defaultdict(int)
    right: set[str] = set()
    for item, verdict, at in rows:
        item = current_name(item)
        if item in right or (until is not None and at > until):
            continue
        if verdict == "right":
            right.add(item)
        else:
            found[item] += 1
    return dict(found)
