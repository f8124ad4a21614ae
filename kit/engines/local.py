"""The local engine: grading processes on this machine (``python -m kit.autograde --workers N``).

One process more than cores by default, each taking the next job from a shared queue
(:func:`kit.engines.processes.run_jobs`) and writing to the one gradebook; with ``feedback``
each process also writes the feedback page of what it graded. A process that dies fails
only its own submission. The students are added to the gradebook before any process starts
(:func:`add_students`): two processes grading one new student's two problem sets would both
try to add them (nbgrader reads, then inserts), and one would fail.
"""

from __future__ import annotations

import os
from pathlib import Path

from kit.course import Course
from kit.engines.job import GradingError, Outcome, autograde_student, grading_api
from kit.engines.processes import Died, run_jobs


def grade(course: Course, jobs, feedback: bool, on_result, bar=None, where=None) -> str:
    """Grade ``jobs`` ((assignment, student) pairs) on ``where`` processes (default: cores + 1).

    ``on_result(job, outcome)`` is called for each finished job, in this process; returns
    a line to show after the run (none: empty).
    """
    # one process more than cores: while one waits for its kernel to start, the others compute
    workers = max(1, min(where or (os.cpu_count() or 1) + 1, len(jobs) or 1))
    add_students(course, [s for a, s in jobs if (course.root / "submitted" / s / a).exists()])
    results = run_jobs(jobs, workers, _init_worker, (str(course.root), feedback), _grade_job)
    try:
        for (assignment, student), result in results:
            if isinstance(result, Died):
                result = Outcome(student, assignment, "failed", message=(
                    f"the grading process {result.how} while grading this submission; "
                    "it was not graded (grade it again alone to see why)"))
            on_result((assignment, student), result)
    finally:
        results.close()  # stops the workers, and with them their kernels
    return ""


def add_students(course: Course, students) -> None:
    """Add the missing ``students`` to the course's gradebook, each only if absent
    (:func:`kit.engines.gradebook_bulk.ensure_students`): safe beside another grading run."""
    from nbgrader.api import Gradebook

    from kit.engines.gradebook_bulk import ensure_students

    students = sorted(set(students))
    if not students:
        return
    with Gradebook(course.db_url) as gb:
        try:
            ensure_students(gb.db, students)
            gb.db.commit()
        except BaseException:
            gb.db.rollback()
            raise


_WORKER: dict = {}


def _init_worker(root: str, feedback: bool) -> None:
    _WORKER["course"] = Course(Path(root))
    _WORKER["api"] = grading_api(_WORKER["course"])
    _WORKER["feedback"] = feedback


def _grade_job(job: tuple[str, str]) -> Outcome:
    assignment, student = job
    course = _WORKER["course"]
    if not (course.root / "submitted" / student / assignment).exists():
        return Outcome(student, assignment, "not submitted")
    try:
        scores = autograde_student(course, assignment, student, api=_WORKER["api"])
    except GradingError as exc:
        return Outcome(student, assignment, "failed", message=str(exc))
    outcome = Outcome(student, assignment, "graded", scores)
    if _WORKER["feedback"]:
        from kit.handback.feedback import write_feedback

        outcome.message = write_feedback(course, assignment, student, api=_WORKER["api"])
    return outcome
