"""Recording a batch of graded notebooks in one transaction writes what nbgrader's ORM writes.

Two copies of one released course's gradebook record the same results, one through
:func:`kit.engines.recording.record` (nbgrader's ORM, a notebook at a time) and one through
:func:`kit.engines.gradebook_bulk.record_many`; their rows, read back through nbgrader's
``Gradebook``, must be the same: new students and submissions, timestamps, re-recorded
scores, a TA's manual scores and comments kept, a batch recorded twice, a failed batch.
"""

from __future__ import annotations

import random

import pytest
from nbgrader.api import Gradebook

from kit.course import Course
from kit.engines.gradebook_bulk import record_many
from kit.engines.recording import record
from kit.gradebook import move as gradebook_move

PS = "ps1_circle_lift"  # the released_ps1 fixture's problem set (tests/conftest.py)
from tests.support import postgres


@pytest.fixture(scope="module")
def pg():
    if why := postgres.available():
        pytest.fail(why)
    with postgres.server() as srv:
        yield srv


@pytest.fixture(params=["sqlite", "postgresql"])
def two(request, released_ps1, tmp_path):
    """Two copies of a released course: recorded by the ORM and in bulk."""
    courses = []
    for name in ("orm", "bulk"):
        course = released_ps1(tmp_path / name)
        if request.param == "postgresql":
            pg = request.getfixturevalue("pg")
            url = pg.createdb(f"{name}_{tmp_path.name[-24:]}".lower().replace("-", "_"))
            gradebook_move.move(course.db_url, url)
            course = Course(course.root, database=url)
        courses.append(course)
    return courses


def cells(course: Course) -> tuple[list[str], list[str]]:
    """Names of the assignment's grade cells and solution cells."""
    with Gradebook(course.db_url) as gb:
        nb = gb.find_notebook(PS, PS)
        return sorted(c.name for c in nb.grade_cells), sorted(c.name for c in nb.solution_cells)


def results(course: Course, students, seed: int) -> list[tuple[str, str, dict]]:
    grades, solutions = cells(course)
    rng = random.Random(seed)
    out = []
    for i, student in enumerate(students):
        files = {"timestamp.txt": f"2026-11-{10 + i % 9:02d} 12:00:00.000000 UTC".encode()} \
            if i % 3 else {}
        out.append((PS, student, {
            "files": files,
            "grades": {g: (None if rng.random() < 0.2 else round(rng.random() * 3, 2))
                       for g in grades},
            "comments": {s: (None if rng.random() < 0.5 else f"line {rng.random():.3f}")
                         for s in solutions}}))
    return out


def rows(course: Course) -> dict:
    """Everything recorded, by names (not ids), through nbgrader's own Gradebook."""
    out = {}
    with Gradebook(course.db_url) as gb:
        out["students"] = sorted((s.id, s.first_name, s.last_name, s.email, s.lms_user_id)
                                 for s in gb.students)
        for sub in gb.assignment_submissions(PS):
            out[sub.student_id] = (sub.timestamp, sub.extension, sorted(
                (nb.name, nb.flagged, nb.late_submission_penalty,
                 sorted((g.name, g.auto_score, g.manual_score, g.extra_credit,
                         g.needs_manual_grade) for g in nb.grades),
                 sorted((c.name, c.auto_comment, c.manual_comment) for c in nb.comments))
                for nb in sub.notebooks))
    return out


def by_orm(course, batch):
    for assignment, student, result in batch:
        record(course, assignment, student, result)


def in_bulk(course, batch):
    with Gradebook(course.db_url) as gb:
        assert record_many(gb, batch) == len(batch)


def test_a_batch_writes_the_rows_the_orm_writes(two):
    orm, bulk = two
    first = results(orm, [f"s{i:02d}" for i in range(12)], seed=1)
    by_orm(orm, first)
    in_bulk(bulk, first)
    assert rows(bulk) == rows(orm)
    assert len(rows(bulk)) == 13  # the students' list and 12 submissions: a real comparison


def test_regrading_keeps_the_tas_scores_and_a_retry_changes_nothing(two):
    orm, bulk = two
    students = [f"s{i:02d}" for i in range(8)]
    for course, write in ((orm, by_orm), (bulk, in_bulk)):
        write(course, results(course, students, seed=1))
        with Gradebook(course.db_url) as gb:  # a TA hand-grades two students
            for student in students[:2]:
                nb = gb.find_submission_notebook(PS, PS, student)
                min(nb.grades, key=lambda g: g.name).manual_score = 0.5  # the same cells in both
                min(nb.comments, key=lambda c: c.name).manual_comment = "see me"
            gb.db.commit()
        again = results(course, [*students, "new_one"], seed=2)  # re-graded, one more hand-in
        write(course, again)
        write(course, again)  # the same batch once more (a retry)
    assert rows(bulk) == rows(orm)
    kept = rows(bulk)["s00"][2][0]
    assert ("see me" in [c[2] for c in kept[4]]) and 0.5 in [g[2] for g in kept[3]]


def test_a_failed_batch_writes_nothing(two):
    _, bulk = two
    before = rows(bulk)
    batch = results(bulk, ["a1", "a2"], seed=3) + [("no_such_problem_set", "a3", {
        "files": {}, "grades": {}, "comments": {}})]
    with Gradebook(bulk.db_url) as gb, pytest.raises(ValueError, match="no_such_problem_set"):
        record_many(gb, batch)
    assert rows(bulk) == before
