"""A synthetic gradebook-like class for the benchmark and the tests, with planted effects.

Each student has an ability; each graded cell a difficulty and a discrimination; a student
earns a cell's full points with the logistic chance of (discrimination x (ability -
difficulty)), and otherwise none or half of them. Each problem set has two families of
numbers (``small``: 20 candidates, ``large``: 100), each built into two of its cells, and a
student's candidate of each is drawn at random. Nothing depends on the family unless asked:

``harder``
    ``(assignment, family, candidate, shift)``: that candidate's students find the family's
    cells ``shift`` harder (in ability units);
``negative``
    ``(assignment, grade_id)``: that cell's discrimination is negative (weaker students do
    better on it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FAMILIES = {"small": 20, "large": 100}


@dataclass
class Class:
    """Per-part rows (the columns of ``grades_by_part.csv``), the cells each family's exact
    items sit in, and each student's candidate of each family."""

    rows: list[dict]
    cells_of: dict[tuple[str, str], set[str]]  # (assignment, family) -> grade ids
    drawn: dict[tuple[str, str], dict[str, int]]  # (assignment, family) -> student -> index
    counts: dict[tuple[str, str], int] = field(default_factory=dict)  # candidates per family


def synthetic_class(students: int = 1000, sets: int = 7, cells: int = 8, seed: int = 0,
                    harder: tuple | None = None, negative: tuple | None = None) -> Class:
    """A class of ``students`` x ``sets`` problem sets of ``cells`` graded cells each."""
    if students < 1 or sets < 1 or cells < 4:
        raise ValueError(f"need students >= 1, sets >= 1, cells >= 4; got {students}, {sets}, {cells}")
    rng = np.random.default_rng(seed)
    ids = [f"s{i:05d}" for i in range(students)]
    ability = rng.normal(size=students)
    rows, cells_of, drawn, counts = [], {}, {}, {}
    for s in range(sets):
        ps = f"ps{s}"
        gids = [f"{ps}_cell{j}" for j in range(cells)]
        difficulty = rng.uniform(-1.5, 1.0, size=cells)
        slope = rng.uniform(0.8, 2.0, size=cells)
        maxima = rng.choice([1.0, 2.0, 3.0, 4.0], size=cells)
        shift = np.zeros((students, cells))
        for f, (family, count) in enumerate(FAMILIES.items()):
            picks = rng.integers(0, count, size=students)
            built = gids[2 * f:2 * f + 2]
            cells_of[ps, family] = set(built)
            drawn[ps, family] = dict(zip(ids, picks.tolist()))
            counts[ps, family] = count
            if harder and harder[:2] == (ps, family):
                shift[np.ix_(picks == harder[2], [2 * f, 2 * f + 1])] += harder[3]
        if negative and negative[0] == ps:
            slope[gids.index(negative[1])] = -1.5
        logit = slope * (ability[:, None] - difficulty - shift)
        full = rng.random((students, cells)) < 1 / (1 + np.exp(-logit))
        half = rng.random((students, cells)) < 0.5
        points = np.where(full, maxima, np.where(half, maxima / 2, 0.0))
        handed_in = rng.random(students) < 0.95
        for i in np.flatnonzero(handed_in):
            for j, gid in enumerate(gids):
                rows.append({"student": ids[i], "assignment": ps, "part": f"Part {j // 2 + 1}",
                             "grade_id": gid, "kind": "auto", "points": float(points[i, j]),
                             "max_points": float(maxima[j]), "graded": "yes"})
    return Class(rows, cells_of, drawn, counts)
