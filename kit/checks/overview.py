"""What a student's overview shows: each problem set as she stands with it, from the course's records.

:func:`overview` gives one :class:`Row` per problem set of the course for one student, read
from what the course holds and she cannot write:

* opening and due date: the calendar (:mod:`kit.term`), her own due date with her extension
  (or exemption) and its reason;
* submitted, on time or late: the time the course received her hand-in, as the gradebook
  holds it once graded (``SubmittedAssignment.timestamp``, which grading sets from the
  intake's record), else the intake's record ``received/<student>/<ps>.json`` (read only up
  to :data:`MAX_RECORD` bytes: a larger file is no record);
* graded, score, late penalty: nbgrader's gradebook (the points lateness took as the
  gradebook holds them, and why, by :func:`kit.term.late.assess`);
* feedback available: the course's feedback page ``feedback/<student>/<ps>/<ps>.html``, a
  plain file, released: on a hub course, once ``nbgrader release_feedback`` put it in the
  exchange (under the name only her submission's secret gives); on an LMS course (no
  exchange), once the course has it;
* solutions available: the course's worked solutions for her (``python -m kit.solutions``),
  ``solutions/<student>/<ps>/<ps>_solution.html`` (a plain file), and only once her own due
  date has passed;
* checks used: her counted checks of the problem set in the attempts table
  (:mod:`kit.checks.store`); fetched: a check of it, or (when the service knows where the
  students' home folders are, ``KPCA_HOMES``) its folder in her home.

Nothing here takes a student id from a request: the caller names the student (the hub login).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from kit.course import ASSIGNMENTS, Course
from kit.intake.received import RECEIVED_DIR
from kit.term import now as term_now
from kit.term.calendar import Calendar, load
from kit.term.late import assess
from kit.term.times import format_duration, show_time

__all__ = ["HOMES_VAR", "MAX_RECORD", "STATUSES", "Row", "checks_used", "course_page",
           "exchange_of", "her_page", "overview", "released", "student_folder"]

#: the statuses, from nothing to everything
STATUSES = ("not open yet", "not fetched", "fetched", "submitted on time", "submitted late",
            "graded", "feedback available")
#: the largest ``received/<student>/<ps>.json`` read (the course writes about 150 bytes)
MAX_RECORD = 64 * 1024
#: environment variable: where students' home folders are, ``{student}`` for the name
HOMES_VAR = "KPCA_HOMES"
UTC = dt.timezone.utc


@dataclass(frozen=True)
class Row:
    """One problem set as one student stands with it (times aware UTC; ``None``: none)."""

    ps: str
    opens: dt.datetime | None
    due: dt.datetime | None
    zone: str
    granted: str  # "extended to ...: reason" or "exempt: reason", or ""
    status: str  # one of STATUSES
    received: dt.datetime | None
    late_by: float  # seconds after her due date (0: on time, or not handed in)
    score: float | None  # after the late penalty
    max_score: float | None
    penalty: float
    why: str  # what lateness took and why, or ""
    hand_grading: bool  # graded automatically, a TA's grading still to come
    checks: int
    feedback: bool
    solutions: bool

    def shown(self, when: dt.datetime | None) -> str:
        """``when`` in this problem set's zone (``""``: none)."""
        return show_time(when, self.zone) if when is not None else ""

    @property
    def status_text(self) -> str:
        """The status in words (how late, when late)."""
        if self.status == "submitted late":
            return f"submitted late ({format_duration(self.late_by)} after your due date)"
        if self.status in ("graded", "feedback available") and self.late_by > 0:
            return f"{self.status} (handed in {format_duration(self.late_by)} late)"
        return self.status


def student_folder(name: str) -> str:
    """``name`` when it can name one folder of the course; ValueError otherwise."""
    if (not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\\" in name
            or "\0" in name or len(name) > 255):
        raise ValueError(f"a student id must name one folder, got {str(name)[:80]!r}")
    return name


def course_page(root: Path, kind: str, student: str, ps: str) -> Path | None:
    """``<root>/feedback/<student>/<ps>/<ps>.html`` (``kind`` ``feedback``) or
    ``<root>/solutions/<student>/<ps>/<ps>_solution.html`` (``solutions``) when it is a plain
    file (no link on the way), else None."""
    if kind not in ("feedback", "solutions") or ps not in ASSIGNMENTS:
        return None
    folder = Path(root)
    name = f"{ps}.html" if kind == "feedback" else f"{ps}_solution.html"
    for part in (kind, student_folder(student), ps, name):
        folder = folder / part
        try:
            mode = os.lstat(folder).st_mode
        except OSError:
            return None
        if stat.S_ISLNK(mode):
            return None
    return folder if stat.S_ISREG(mode) else None


def exchange_of(root: Path) -> Path | None:
    """The course's folder in nbgrader's exchange (``Exchange.root``/course id) when the
    course has one (a hub course), else None (an LMS course: no exchange)."""
    try:
        config = Course(root).config()
        folder = Path(str(config.Exchange.root)) / str(config.CourseDirectory.course_id)
    except Exception:  # noqa: BLE001 - a config that cannot be read: no exchange known
        return None
    return folder if config.CourseDirectory.course_id and folder.is_dir() else None


def released(root: Path, student: str, ps: str, exchange: Path | None) -> bool:
    """Whether ``student``'s feedback page of ``ps`` was released: on a hub course
    (``exchange``), when nbgrader's ``release_feedback`` put it in the exchange under the
    name of her submission's secret; on an LMS course (None), when the course has the page."""
    if exchange is None:
        return True
    from nbgrader.utils import notebook_hash

    secret = Path(root) / "feedback" / student / ps / "submission_secret.txt"
    try:
        if os.lstat(secret).st_size > 4096:
            return False
        name = notebook_hash(secret=secret.read_text(), notebook_id=ps)
        return stat.S_ISREG(os.lstat(exchange / "feedback" / f"{name}.html").st_mode)
    except (OSError, ValueError, UnicodeDecodeError):
        return False


def her_page(root: Path, kind: str, student: str, ps: str, due: dt.datetime | None,
             when: dt.datetime, exchange: Path | None) -> Path | None:
    """``student``'s page of ``ps`` she may read at ``when``: her feedback once released
    (:func:`released`), her solutions once her own due date ``due`` has passed."""
    page = course_page(root, kind, student, ps)
    if page is None:
        return None
    if kind == "feedback":
        return page if released(root, student, ps, exchange) else None
    return page if due is None or when >= due else None


def _record_time(root: Path, student: str, ps: str) -> dt.datetime | None:
    """The intake's received time of the hand-in, or None (no record, or one that is not
    a small record the course wrote)."""
    path = root / RECEIVED_DIR / student / f"{ps}.json"
    try:
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            data = fh.read(MAX_RECORD + 1)
        if len(data) > MAX_RECORD:
            return None
        when = dt.datetime.fromisoformat(json.loads(data)["time"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def checks_used(engine, student: str) -> dict[str, int]:
    """``{problem set: counted checks}`` of ``student`` (``engine``: SQLAlchemy engine of the
    attempts table's database; no table: none)."""
    from sqlalchemy import func, inspect, select

    from kit.checks.store import ATTEMPTS

    if not inspect(engine).has_table(ATTEMPTS.name):
        return {}
    with engine.connect() as conn:
        rows = conn.execute(select(ATTEMPTS.c.problem_set, func.count(ATTEMPTS.c.slot))
                            .where(ATTEMPTS.c.student == student)
                            .group_by(ATTEMPTS.c.problem_set)).all()
    return {ps: int(n) for ps, n in rows}


def _fetched(homes: str | None, student: str, ps: str) -> bool:
    if not homes or "{student}" not in homes:
        return False
    try:
        return stat.S_ISDIR(os.lstat(Path(homes.replace("{student}", student)) / ps).st_mode)
    except OSError:
        return False


def _graded(db_url: str, student: str) -> dict:
    """``{ps: (score, max score, penalty, received, needs hand grading)}`` of her graded hand-ins."""
    from nbgrader.api import Gradebook, MissingEntry

    found = {}
    with Gradebook(db_url) as gb:
        for ps in ASSIGNMENTS:
            try:
                sub = gb.find_submission(ps, student)
            except MissingEntry:
                continue
            if sub.notebooks:
                when = sub.timestamp
                found[ps] = (float(sub.score or 0.0), float(sub.max_score or 0.0),
                             float(sub.late_submission_penalty or 0.0),
                             None if when is None else when.replace(tzinfo=UTC),
                             bool(sub.needs_manual_grade))
    return found


def overview(course, student: str, when: dt.datetime | None = None, engine=None,
             homes: str | None = None, cal: Calendar | None = None) -> list[Row]:
    """Every problem set of the course as ``student`` stands with it at ``when`` (default
    :func:`kit.term.now`): those in the calendar, released (``release/<ps>/``) or graded.

    Parameters
    ----------
    course : kit.course.Course or path
        The course directory (its gradebook: ``Course.db_url``).
    student : str
        Her id, as the hub login names her (never taken from a request).
    engine : sqlalchemy.engine.Engine, optional
        The attempts table's database (default: the check service's, from the course's
        ``nbgrader_config.py``).
    homes : str, optional
        Where home folders are, ``{student}`` for the name (default :data:`HOMES_VAR`).
    cal : kit.term.Calendar, optional
        The calendar (default: the course's ``term.json``; one that cannot be read raises
        :class:`kit.term.CalendarError`).
    """
    course = course if isinstance(course, Course) else Course(Path(course))
    root, student = Path(course.root), student_folder(student)
    when = when or term_now()
    cal = cal if cal is not None else load(root)
    if engine is None:
        from sqlalchemy import create_engine

        from kit.checks.policy import Policy

        engine = create_engine(Policy(root).db_url)
    used = checks_used(engine, student)
    homes = homes if homes is not None else os.environ.get(HOMES_VAR, "")
    graded = _graded(course.db_url, student)
    exchange = exchange_of(root)
    rows = []
    for ps in ASSIGNMENTS:
        entry = cal.entry(ps)
        if entry is None and ps not in graded and not (root / "release" / ps).is_dir():
            continue  # a problem set this course does not hand out
        zone = entry.zone if entry else "UTC"
        due = cal.due_for(student, ps)
        granted = ""
        if cal.exemption(student, ps) is not None:
            granted = f"exempt: {cal.exemption(student, ps)}"
        elif cal.extension(student, ps) is not None and due is not None:
            granted = (f"extended to {show_time(due, zone)}: "
                       f"{cal.extension(student, ps).reason}")
        score = max_score = None
        penalty, why, hand, received = 0.0, "", False, None
        if ps in graded:
            raw, max_score, penalty, received, hand = graded[ps]
            score = round(raw - penalty, 6)
            if received is not None:
                verdict = assess(cal, student, ps, received, raw, penalty)
                why = verdict.why if verdict.late else ""
        else:
            received = _record_time(root, student, ps)
        late_by = max(0.0, (received - due).total_seconds()) if received and due else 0.0
        if ps in graded:
            feedback = her_page(root, "feedback", student, ps, due, when, exchange) is not None
            status = "feedback available" if feedback else "graded"
        else:
            feedback = False
            if received is not None:
                status = "submitted late" if late_by > 0 else "submitted on time"
            elif used.get(ps, 0) or _fetched(homes, student, ps):
                status = "fetched"
            elif entry is not None and entry.opens is not None and when < entry.opens:
                status = "not open yet"
            else:
                status = "not fetched"
        solutions = her_page(root, "solutions", student, ps, due, when, exchange) is not None
        rows.append(Row(ps, entry.opens if entry else None, due, zone, granted, status,
                        received, late_by, score, max_score, penalty, why, hand,
                        used.get(ps, 0), feedback, solutions))
    return rows
