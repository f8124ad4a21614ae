"""The local engine: grading processes on this machine (``python -m kit.autograde --workers N``).

One process more than cores by default, each taking the next job from a shared queue
(:func:`kit.engines.processes.run_jobs`) and writing to the one gradebook; with ``feedback``
each process also writes the feedback page of what it graded. A process that dies fails
only its own submission.
"""

from __future__ import annotations

import os
from pathlib import Path

from kit.course import Course
from kit.engines.job import GradingError, Outcome, autograde_student
from kit.engines.processes import Died, run_jobs


def grade(course: Course, jobs, feedback: bool, on_result, bar=None, where=None) -> str:
    """Grade ``jobs`` ((assignment, student) pairs) on ``where`` processes (default: cores + 1).

    ``on_result(job, outcome)`` is called for each finished job, in this process; returns
    a line to show after the run (none: empty).
    """
    # one process more than cores: while one waits for its kernel to start, the others compute
    workers = max(1, min(where or (os.cpu_count() or 1) + 1, len(jobs) or 1))
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


_WORKER: dict = {}


def _init_worker(root: str, feedback: bool) -> None:
    _WORKER["course"] = Course(Path(root))
    _WORKER["api"] = _WORKER["course"].api()
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
