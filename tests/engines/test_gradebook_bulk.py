"""Recording a batch of graded notebooks in one transaction writes what nbgrader's ORM writes.

Two copies of one released course's gradebook record the same results, one through
:func:`kit.engines.recording.record` (nbgrader's ORM, a notebook at a time) and one through
:func:`kit.engines.gradebook_bulk.record_many`; their rows, read back through nbgrader's
``Gradebook``, must be the same: new students and submissions, timestamps, re-recorded
scores, a TA's manual scores and comments kept, a batch recorded twice, a failed batch.
A submission's timestamp is the time the course received the hand-in
(:mod:`kit.intake.received`), never the ``timestamp.txt`` a result carries. One new student
recorded in two problem sets at the same moment, by two processes, is recorded in both.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from nbgrader.api import Gradebook

from kit.course import Course
from kit.engines.gradebook_bulk import record_many
from kit.engines.recording import record
from kit.gradebook import move as gradebook_move
from kit.intake.received import received_time, record_received

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
        files = {"timestamp.txt": b"2020-01-01 00:00:00.000000 UTC"} if i % 3 else {}
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


def hand_in_time(student: str) -> dt.datetime:
    """When the course received ``student``'s hand-in (in these tests)."""
    return dt.datetime(2026, 11, 10 + sum(map(ord, student)) % 9, 12)


def receive(course, batch):
    """The intake's records of the batch's hand-ins (:mod:`kit.intake.received`)."""
    for assignment, student, _ in batch:
        record_received(course, student, assignment, hand_in_time(student), "test intake")


def by_orm(course, batch):
    receive(course, batch)
    for assignment, student, result in batch:
        record(course, assignment, student, result)


def in_bulk(course, batch):
    receive(course, batch)
    with Gradebook(course.db_url) as gb:
        received = {(a, s): received_time(course, s, a) for a, s, _ in batch}
        assert record_many(gb, batch, received) == len(batch)


def test_a_batch_writes_the_rows_the_orm_writes(two):
    orm, bulk = two
    first = results(orm, [f"s{i:02d}" for i in range(12)], seed=1)
    by_orm(orm, first)
    in_bulk(bulk, first)
    assert rows(bulk) == rows(orm)
    assert len(rows(bulk)) == 13  # the students' list and 12 submissions: a real comparison
    assert {s: r[0] for s, r in rows(bulk).items() if s != "students"} == {  # never 2020
        s: hand_in_time(s) for _, s, _ in first}


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
    received = {(a, s): dt.datetime(2026, 11, 1) for a, s, _ in batch}
    with Gradebook(bulk.db_url) as gb, pytest.raises(ValueError, match="no_such_problem_set"):
        record_many(gb, batch, received)
    assert rows(bulk) == before


def second_problem_set(course: Course, name: str = "ps_other") -> str:
    """A second problem set in the gradebook (one notebook, one grade cell, one answer)."""
    with Gradebook(course.db_url) as gb:
        gb.add_assignment(name)
        gb.add_notebook(name, name)
        gb.add_grade_cell("c1", name, name, max_score=1, cell_type="code")
        gb.add_solution_cell("s1", name, name)
    return name


@contextlib.contextmanager
def inserts_of_a_student_meet():
    """Every ``INSERT`` into ``student`` waits until two are about to run: the moment two
    grading processes, having both found the student missing, add them (deterministic)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    barrier = threading.Barrier(2, timeout=10)

    def hook(conn, cursor, statement, *_):
        if statement.lstrip().upper().startswith("INSERT") and " INTO student " in f"{statement} ":
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait()

    event.listen(Engine, "before_cursor_execute", hook)
    try:
        yield barrier
    finally:
        event.remove(Engine, "before_cursor_execute", hook)


@pytest.mark.parametrize("how", ["orm", "bulk"])
def test_one_new_student_recorded_in_two_problem_sets_at_once(two, how):
    """Reported: grading one new student in two problem sets at the same moment failed
    with "UNIQUE constraint failed: student.id" (each process read "no such student",
    then both inserted it)."""
    course = two[0]
    other = second_problem_set(course)
    mine = results(course, ["newcomer"], seed=4)[0][2]
    jobs = [(PS, mine), (other, {"files": {}, "grades": {"c1": 1.0}, "comments": {"s1": "ok"}})]
    for assignment, _ in jobs:
        record_received(course, "newcomer", assignment, hand_in_time("newcomer"), "test intake")

    def one(job):
        assignment, result = job
        if how == "orm":
            record(course, assignment, "newcomer", result)
        else:
            with Gradebook(course.db_url) as gb:
                record_many(gb, [(assignment, "newcomer", result)],
                            {(assignment, "newcomer"): received_time(course, "newcomer", assignment)})

    with inserts_of_a_student_meet() as barrier, ThreadPoolExecutor(2) as pool:
        done = [pool.submit(one, job) for job in jobs]
        errors = [f.exception(timeout=60) for f in done]
    assert not barrier.broken, "the two recordings did not both insert the student"
    assert errors == [None, None], errors
    with Gradebook(course.db_url) as gb:
        assert [s.id for s in gb.students] == ["newcomer"]
        assert gb.find_submission_notebook(other, other, "newcomer").score == 1.0
        assert gb.find_submission(PS, "newcomer").timestamp == hand_in_time("newcomer")


def test_the_local_engine_adds_its_students_before_any_grading_process(released_ps1, tmp_path,
                                                                      monkeypatch):
    """nbgrader's autograde, in each grading process, reads the student and adds them when
    missing; added up front (only if absent), no two processes add one student."""
    from kit.engines import local

    course = released_ps1(tmp_path / "course")
    seen = []

    def run_jobs(jobs, *_):
        with Gradebook(course.db_url) as gb:
            seen.extend(sorted(s.id for s in gb.students))
        yield from ()

    monkeypatch.setattr(local, "run_jobs", run_jobs)
    for student, assignment in (("newcomer", PS), ("newcomer", "ps_other"), ("second", PS)):
        (course.root / "submitted" / student / assignment).mkdir(parents=True)
    local.grade(course, [(PS, "newcomer"), ("ps_other", "newcomer"), (PS, "second"),
                         (PS, "handed_in_nothing")], feedback=False, on_result=None)
    assert seen == ["newcomer", "second"]
    local.add_students(course, ["newcomer", "third"])  # again, beside another run: no error
    with Gradebook(course.db_url) as gb:
        assert sorted(s.id for s in gb.students) == ["newcomer", "second", "third"]
