"""The rows of ``grades_by_part.csv`` as one score matrix per problem set.

A row (:data:`kit.gradebook.parts.COLUMNS`) is one graded cell of one hand-in. The late
penalty's rows and written answers no TA has graded yet are left out (an ungraded cell is
missing, never 0); a student who did not hand a problem set in has no row there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kit.gradebook.parts import LATE_PART


@dataclass
class Sheet:
    """One problem set: ``points[i, j]`` of student ``students[i]`` on cell ``cells[j]``
    (``nan``: not graded), ``maxima[j]`` the cell's points, ``parts[j]`` its heading."""

    assignment: str
    students: list[str]
    cells: list[str]
    parts: list[str]
    maxima: np.ndarray
    points: np.ndarray = field(repr=False)

    def shares(self) -> np.ndarray:
        """Points over maxima, clipped to [0, 1] (``nan`` where not graded)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.clip(self.points / self.maxima, 0.0, 1.0)


def _number(value, what: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"a per-part row's {what} must be a number, got {value!r}") from None


def sheets(rows) -> dict[str, Sheet]:
    """``{assignment: Sheet}`` of per-part rows (dicts with the columns of
    ``grades_by_part.csv``; values may be text, as read back from the CSV)."""
    cells: dict[str, dict[str, tuple[str, float]]] = {}
    students: dict[str, dict[str, int]] = {}
    kept = []
    for row in rows:
        if row.get("kind") == "late" or row.get("part") == LATE_PART or not row.get("grade_id"):
            continue
        a, gid, sid = str(row["assignment"]), str(row["grade_id"]), str(row["student"])
        top = _number(row.get("max_points"), "max_points")
        if top <= 0:
            continue  # a cell worth nothing says nothing about an item
        cells.setdefault(a, {}).setdefault(gid, (str(row.get("part") or ""), top))
        students.setdefault(a, {}).setdefault(sid, len(students[a]))
        graded = row.get("graded", "yes") != "no" and row.get("points") not in ("", None)
        kept.append((a, gid, sid, _number(row["points"], "points") if graded else np.nan))
    found, order = {}, {}
    for a, by_cell in cells.items():
        order[a] = {gid: j for j, gid in enumerate(by_cell)}
        matrix = np.full((len(students[a]), len(by_cell)), np.nan)
        found[a] = Sheet(a, list(students[a]), list(by_cell), [p for p, _ in by_cell.values()],
                         np.array([m for _, m in by_cell.values()]), matrix)
    for a, gid, sid, points in kept:
        found[a].points[students[a][sid], order[a][gid]] = points
    return found


def by_part(sheet: Sheet) -> Sheet:
    """The same problem set with one column per graded part (its cells' points added; a
    part with an ungraded cell is ungraded for that student)."""
    titles = list(dict.fromkeys(sheet.parts))
    columns = [[j for j, p in enumerate(sheet.parts) if p == t] for t in titles]
    points = np.column_stack([sheet.points[:, c].sum(axis=1) for c in columns]) if columns \
        else np.zeros((len(sheet.students), 0))
    maxima = np.array([sheet.maxima[c].sum() for c in columns])
    return Sheet(sheet.assignment, sheet.students, titles, titles, maxima, points)
