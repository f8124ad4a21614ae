"""Item statistics of one problem set's score matrix (:class:`kit.itemstats.table.Sheet`).

For each column (a graded cell, or a graded part: :func:`kit.itemstats.table.by_part`), over
the students graded on it:

``mean share``
    the mean of points over maximum;
``difficulty``
    the share of students with full points (classical test theory's item "p": low is hard);
``discrimination``
    the point-biserial (Pearson) correlation of the item's share with the student's
    *rest-score*, the share of the problem set's other graded points (the item left out, so
    it does not correlate with itself). Near 0: the item does not separate strong from weak
    students; negative: the weaker students do better on it, which usually means a wrong key,
    a test that rewards a wrong answer, or a confusing question.

Flags (only with at least :data:`MIN_STUDENTS` students; below it the row says "too few
students" and neither the discrimination nor a flag is given):

``nobody right`` / ``everybody right``
    difficulty 0 or 1;
``negative discrimination``
    r < 0 and Holm's adjusted one-sided p-value (Fisher's z, ``atanh(r) sqrt(n - 3)``) below
    :data:`ALPHA`, Holm's correction taken over every item of the report: on a class where no
    item discriminates negatively, a report flags one with probability at most ALPHA.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import norm

from kit.itemstats.table import Sheet

#: fewer graded students than this: no discrimination and no flag ("too few students")
MIN_STUDENTS = 10
#: family-wise error rate of the report's flags (Holm's correction over all its tests)
ALPHA = 0.01
TOO_FEW = f"too few students (fewer than {MIN_STUDENTS})"


@dataclass
class Item:
    """The statistics of one graded cell or part of one problem set."""

    assignment: str
    level: str  # "part" or "cell"
    name: str  # the cell's grade id, or the part's heading
    part: str
    max_points: float
    students: int
    mean_share: float
    difficulty: float
    discrimination: float | None = None
    p_negative: float | None = None  # one-sided, before Holm's correction
    flags: list[str] = field(default_factory=list)
    mistakes: list[tuple[str, int]] = field(default_factory=list)  # (code, notebooks)
    checks: dict = field(default_factory=dict)  # exact item -> instant checks' figures


def _rest_scores(sheet: Sheet) -> tuple[np.ndarray, np.ndarray]:
    """``(rest, graded)``: ``rest[i, j]`` the share of student i's graded points of the
    problem set but item j's (``nan`` when no other points were graded)."""
    graded = ~np.isnan(sheet.points)
    points = np.where(graded, sheet.points, 0.0)
    top = np.where(graded, sheet.maxima, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = (points.sum(axis=1, keepdims=True) - points) / (top.sum(axis=1, keepdims=True) - top)
    return rest, graded


def correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    """Pearson's r of two equal-length arrays; ``None`` when either is constant."""
    x, y = x - x.mean(), y - y.mean()
    scale = np.sqrt((x @ x) * (y @ y))
    return None if scale <= 1e-12 * max(len(x), 1) else float(np.clip((x @ y) / scale, -1, 1))


def describe(sheet: Sheet, level: str) -> list[Item]:
    """One :class:`Item` per column of ``sheet`` (p-values raw: :func:`flag` corrects them)."""
    shares = sheet.shares()
    rest, graded = _rest_scores(sheet)
    found = []
    for j, name in enumerate(sheet.cells):
        share = shares[graded[:, j], j]
        n = len(share)
        full = share >= 1.0 - 1e-9
        item = Item(sheet.assignment, level, name, sheet.parts[j], float(sheet.maxima[j]), n,
                    float(share.mean()) if n else float("nan"),
                    float(full.mean()) if n else float("nan"))
        ok = graded[:, j] & ~np.isnan(rest[:, j])  # the rest-score needs other graded points
        if n < MIN_STUDENTS:
            item.flags.append(TOO_FEW)
        else:
            r = correlation(shares[ok, j], rest[ok, j]) if ok.sum() >= MIN_STUDENTS else None
            item.discrimination = r
            n = int(ok.sum())
            if r is not None and r < 0:
                z = np.arctanh(np.clip(r, -1 + 1e-12, 1 - 1e-12)) * np.sqrt(max(n - 3, 1))
                item.p_negative = float(norm.cdf(z))
            if not full.any():
                item.flags.append("nobody right")
            elif full.all():
                item.flags.append("everybody right")
        found.append(item)
    return found


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = round(running, 12)
    return adjusted


def flag(items: list[Item]) -> list[Item]:
    """Add ``negative discrimination`` to the items whose Holm-adjusted p-value, over every
    item with a correlation, is below :data:`ALPHA`; returns ``items``."""
    tested = [i for i in items if i.discrimination is not None]
    raw = [i.p_negative if i.p_negative is not None else 1.0 for i in tested]
    for item, p in zip(tested, holm(raw)):
        if item.discrimination < 0 and p < ALPHA:
            item.flags.append("negative discrimination")
    return items
