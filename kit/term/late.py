"""The late policy, applied when a hand-in is graded: the gradebook's late penalty.

A hand-in's time is when the course received it (:func:`kit.intake.received.received`,
never its ``timestamp.txt``); its due date is the student's own (:func:`kit.term.due_for`,
extension included; an exempt student has none). :func:`assess` turns the two and the
notebook's score into points taken and one line saying why; every grading path writes it to
``SubmittedNotebook.late_submission_penalty``:

* nbgrader's autograde (``kit.autograde``'s local engine, plain ``nbgrader autograde``,
  formgrader): :class:`SyncCalendar` writes the calendar to the gradebook, then nbgrader's
  ``AssignLatePenalties`` asks :class:`TermLatePenalty` (``c.AssignLatePenalties.plugin_class``);
* the kit's own recording (:mod:`kit.engines.recording`, the Dask path, through nbgrader's
  ORM or :mod:`kit.engines.gradebook_bulk`): :func:`apply` after the grades are recorded.

No calendar (no ``term.json``): nothing is written, no hand-in is late.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import NbGraderPreprocessor

from kit.term.calendar import FILE, Calendar, _root, load
from kit.term.gradebook import sync_submission
from kit.term.times import show_time

__all__ = ["Lateness", "SyncCalendar", "TermLatePenalty", "apply", "assess", "lateness_of",
           "recorded_lateness"]


@dataclass(frozen=True)
class Lateness:
    """``seconds`` late (0: on time or no due date), ``penalty`` points taken, ``why`` in one line."""

    seconds: float
    penalty: float
    why: str

    @property
    def late(self) -> bool:
        return self.seconds > 0


def assess(cal: Calendar, student: str, ps: str, received: dt.datetime, score: float,
           taken: float | None = None) -> Lateness:
    """What the calendar takes from ``score`` for ``student``'s hand-in of ``ps`` received at
    ``received`` (aware, or naive UTC). ``taken``: the points the gradebook holds as taken,
    named in ``why`` instead of the policy's own figure (a page shows what was recorded)."""
    if received.tzinfo is None:
        received = received.replace(tzinfo=dt.timezone.utc)
    entry = cal.entry(ps)
    if entry is None or entry.due is None:
        return Lateness(0.0, 0.0, "")
    reason = cal.exemption(student, ps)
    if reason is not None:
        return Lateness(0.0, 0.0, "exempt from this problem set's due date: no late penalty")
    due = cal.due_for(student, ps)
    seconds = max(0.0, (received - due).total_seconds())
    penalty, words = entry.late.penalty(seconds, score)
    own = " (extended)" if cal.extension(student, ps) else ""
    why = (f"received {show_time(received, entry.zone)}, due {show_time(due, entry.zone)}{own}: "
           f"{words}")
    shown = penalty if taken is None else float(taken or 0.0)
    if shown:
        why += f"; {shown:.4g} of {float(score or 0):.4g} points taken"
    return Lateness(seconds, penalty, why)


def _has_calendar(course) -> bool:
    return (_root(course) / FILE).is_file()


def apply(gb, course, pairs, cal: Calendar | None = None) -> dict:
    """Write the late penalty of each ``(ps, student)`` graded hand-in to the gradebook
    (``gb``: an open nbgrader ``Gradebook``), with its extension; commit. Returns
    ``{(ps, student): Lateness}``; nothing when the course has no calendar."""
    from nbgrader.api import MissingEntry

    from kit.intake.received import received

    if cal is None and not _has_calendar(course):
        return {}
    cal = cal or load(course)
    out = {}
    for ps, student in pairs:
        try:
            submission = gb.find_submission(ps, student)
        except MissingEntry:
            continue
        sync_submission(cal, submission)
        when = received(course, student, ps).time
        for notebook in submission.notebooks:
            verdict = assess(cal, student, ps, when, notebook.score)
            notebook.late_submission_penalty = verdict.penalty if verdict.late else None
            out[ps, student] = verdict
    gb.db.commit()
    return out


def lateness_of(course, student: str, ps: str, score: float, taken: float | None = None) -> Lateness:
    """The :class:`Lateness` of a graded hand-in (for pages and reports; ``taken`` as in
    :func:`assess`); none without a calendar."""
    from kit.intake.received import recorded

    if not _has_calendar(course):
        return Lateness(0.0, 0.0, "")
    record = recorded(course, student, ps)
    if record is None:
        return Lateness(0.0, 0.0, "")
    return assess(load(course), student, ps, record.time, score, taken)


def recorded_lateness(course, pairs) -> dict:
    """``{(ps, student): (points taken, why, late)}`` of graded hand-ins, the points as the gradebook
    holds them (what grading or ``--regrade`` wrote), the why from the calendar. Empty when
    the course has no calendar (no ``term.json``)."""
    from nbgrader.api import Gradebook, MissingEntry

    from kit.intake.received import recorded

    root = getattr(course, "root", None)
    if root is None or not _has_calendar(course):
        return {}
    cal, out = load(course), {}
    with Gradebook(course.db_url) as gb:
        for ps, student in pairs:
            try:
                sub = gb.find_submission(ps, student)
            except MissingEntry:
                continue
            taken = sum(nb.late_submission_penalty or 0.0 for nb in sub.notebooks)
            record = recorded(course, student, ps)
            verdict = assess(cal, student, ps, record.time, sub.score, taken) if record else None
            why = verdict.why if verdict else ""
            if cal.exemption(student, ps) is not None:
                why = f"exempt: {cal.exemption(student, ps)}"
            out[ps, student] = (round(taken, 6), why, bool(verdict and verdict.late))
    return out


def _course_root(resources) -> Path | None:
    folder = (resources.get("metadata") or {}).get("path")
    return Path(folder).resolve().parents[2] if folder else None  # <root>/<step>/<student>/<ps>


class SyncCalendar(NbGraderPreprocessor):
    """An autograde step before ``AssignLatePenalties``: the calendar's due date, this
    student's extension and the time the course received the hand-in go to the gradebook,
    so nbgrader measures lateness against them (never against ``timestamp.txt``)."""

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        from kit.intake.received import received_time
        from kit.term.gradebook import sync

        meta = resources.get("nbgrader") or {}
        root = _course_root(resources)
        if root is None or not (root / FILE).is_file() or not meta.get("db_url"):
            return nb, resources
        ps, student = meta["assignment"], meta["student"]
        with Gradebook(meta["db_url"]) as gb:
            submission = gb.find_submission(ps, student)
            submission.timestamp = received_time(root, student, ps)
            gb.db.commit()
            sync(gb, load(root), ps)
        return nb, resources


class TermLatePenalty(LateSubmissionPlugin):
    """nbgrader's late-penalty plugin, answering from the course's calendar (:func:`assess`).

    nbgrader asks only when the gradebook says the hand-in is late; the answer is the
    calendar's (grace, per-step penalty, cap, no late hand-ins, exemptions), from the time
    the course received the hand-in.
    """

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float):
        from kit.intake.received import received

        parent = self.parent
        ps = getattr(parent, "assignment_id", None)
        root = self.config.CourseDirectory.get("root")  # nbgrader_config.py's, or the kit's
        if not ps or not root or not (Path(root) / FILE).is_file():
            return None
        course = Path(root)
        verdict = assess(load(course), student_id, ps, received(course, student_id, ps).time, score)
        return verdict.penalty if verdict.late else None  # exempt, or on time by its extension
