"""A safe re-grade: grade a problem set again after a fixed test or key, old against new.

``python -m kit.autograde <ps> --regrade [--policy never-lower|apply]`` (:mod:`kit.autograde`)
takes a :func:`snapshot` of the gradebook's auto-graded points of every graded cell of ``ps``,
grades every hand-in again, then :func:`settle` decides, part by part (one graded cell), what
stays in the gradebook:

``never-lower`` (the default)
    a part the new grading would lower keeps its old points; a raised part takes the new.
``apply``
    every part takes the new points.

A hand-in the new grading could not grade (its kernel died, say) keeps all its old points
under either policy. Hand grades are never written: a TA's points on a written answer, a TA's
override of an auto-graded part (nbgrader's ``manual_score``, which wins over the auto score)
and a TA's comments stay as they are; a part with an override is listed with it. The late
penalty is worked out again on the points that stay (:func:`kit.term.late.apply`).
:func:`write_changes` writes ``reports/regrade_<ps>.csv``: one row per student and
auto-graded part, its old and new auto-graded points, what the gradebook now counts, and
what happened.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from kit.course import Course
from kit.gradebook.export import as_text
from kit.gradebook.hand_grades import manual_cell_names
from kit.gradebook.parts import part_titles

POLICIES = ("never-lower", "apply")
COLUMNS = ["student", "part", "title", "old_points", "new_points", "counted_points", "change"]
_EPS = 1e-9


@dataclass
class Change:
    """One student's auto-graded part: points before and after, what the gradebook counts."""

    student: str
    part: str
    title: str
    old: float | None  # None: not graded before
    new: float | None  # None: the new grading could not grade the hand-in
    counted: float | None
    change: str  # raised, lowered, kept old (never-lower), kept old (not graded again), ...


def check_policy(policy: str) -> str:
    """``policy`` if it is one of :data:`POLICIES`, else a ``ValueError`` naming them."""
    if policy not in POLICIES:
        raise ValueError(f"the re-grade policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    return policy


def snapshot(course: Course, ps: str) -> dict[str, dict[str, float | None]]:
    """``{student: {auto-graded cell: auto points}}`` of every graded hand-in of ``ps`` now."""
    from nbgrader.api import Gradebook, MissingEntry

    found: dict = {}
    with Gradebook(course.db_url) as gb:
        try:
            assignment = gb.find_assignment(ps)
        except MissingEntry:
            return found
        for sub in assignment.submissions:
            for nb in sub.notebooks:
                manual = manual_cell_names(nb.notebook)
                found[sub.student.id] = {g.name: g.auto_score for g in nb.grades
                                         if g.name not in manual}
    return found


def _what(old, new, policy: str, failed: bool) -> tuple[str, float | None]:
    """What happens to a part: ``(change, auto points to keep)``."""
    if failed:
        return ("kept old (not graded again)", old) if old is not None else ("not graded", new)
    if old is None:
        return "new", new
    if new is None:
        return "kept old (no new points)", old
    if new < old - _EPS:
        return ("kept old (never-lower)", old) if policy == "never-lower" else ("lowered", new)
    return ("raised" if new > old + _EPS else "unchanged"), new


def settle(course: Course, ps: str, before: dict, outcomes, policy: str = "never-lower") -> list[Change]:
    """Apply ``policy`` to the gradebook after ``ps`` was graded again; return every part's
    :class:`Change`. Only auto-graded points are written (never ``manual_score`` or a comment)."""
    from nbgrader.api import Gradebook, MissingEntry

    from kit.term.late import apply as late_penalties

    check_policy(policy)
    failed = {o.student for o in outcomes if o.assignment == ps and o.status == "failed"}
    titles = part_titles(course.notebook("source", ps))
    changes, pairs = [], []
    with Gradebook(course.db_url) as gb:
        for student in sorted(set(before) | {o.student for o in outcomes if o.assignment == ps}):
            try:
                nb = gb.find_submission_notebook(ps, ps, student)
            except MissingEntry:
                continue
            pairs.append((ps, student))
            manual, old = manual_cell_names(nb.notebook), before.get(student, {})
            for grade in nb.grades:
                if grade.name in manual:
                    continue  # a written answer: the TA's alone
                was, now = old.get(grade.name), grade.auto_score
                change, keep = _what(was, now, policy, student in failed)
                if keep != now:
                    grade.auto_score = keep
                if grade.manual_score is not None:
                    change += "; a TA's override counts"
                counted = grade.manual_score if grade.manual_score is not None else keep
                changes.append(Change(student, grade.name, titles.get(grade.name, ""), was,
                                      None if student in failed else now,
                                      None if counted is None else float(counted), change))
        gb.db.commit()
        late_penalties(gb, course, pairs)
    return changes


def _num(value) -> str:
    return "" if value is None else f"{value:g}"


def write_changes(course: Course, ps: str, changes: list[Change], path: Path | None = None) -> Path:
    """Write ``reports/regrade_<ps>.csv`` (student ids made safe for a spreadsheet)."""
    path = Path(path or course.root / "reports" / f"regrade_{ps}.csv")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for c in changes:
            writer.writerow({"student": as_text(c.student), "part": as_text(c.part),
                             "title": as_text(c.title), "old_points": _num(c.old),
                             "new_points": _num(c.new), "counted_points": _num(c.counted),
                             "change": c.change})
    return path


def summary(ps: str, policy: str, changes: list[Change], path: Path) -> str:
    """The lines ``--regrade`` prints: how many parts and students each change touched."""
    def count(prefix):
        hit = [c for c in changes if c.change.startswith(prefix)]
        return f"{len(hit)} parts of {len({c.student for c in hit})} students"

    return (f"{ps} re-graded under --policy {policy}: raised {count('raised')}, "
            f"lowered {count('lowered')}, kept at the old points {count('kept old')} "
            f"(of which never-lower kept {count('kept old (never-lower)')}), "
            f"unchanged {count('unchanged')}; hand grades untouched.\n"
            f"every part, old against new: {path}")
