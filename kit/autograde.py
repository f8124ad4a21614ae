"""Step 4 of the pipeline: grade ``submitted/`` into ``autograded/`` and the gradebook.

``python -m kit.autograde [ps ...] [--workers N] [--feedback]`` grades every submission of
the named problem sets (all five by default) with one grading process per core, each taking
the next submission from a shared queue, all writing to the one sqlite gradebook; with
``--feedback`` each process also writes the feedback page of what it graded. A submission that
cannot be graded (missing, corrupt, the wrong problem set, a kernel that died) gets a clear
line in the summary and zero for what could not be graded; everybody else is graded normally.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from kit import safefiles, sandbox
from kit.course import ASSIGNMENTS, REPO_ROOT, Course
from kit.execute import kernel_env_refusal


class GradingError(RuntimeError):
    """nbgrader could not grade a submission at all."""


@dataclass
class Outcome:
    """What happened to one student's submission of one problem set."""

    student: str
    assignment: str
    status: str  # "graded", "not submitted" or "failed"
    scores: dict[str, float] = field(default_factory=dict)
    message: str = ""

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 2)


def cell_scores(course: Course, assignment: str, student: str) -> dict[str, float]:
    """``{grade_id: score}`` of one graded submission (auto-graded and manual cells)."""
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        sub = gb.find_submission_notebook(assignment, assignment, student)
        return {g.name: float(g.score) for g in sub.grades}


def _graded_ids(nb) -> set[str]:
    return {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
    }


def check_submission(course: Course, assignment: str, student: str) -> str:
    """Empty string if the submission can be graded, else why it cannot."""
    folder = course.root / "submitted" / student / assignment
    found = safefiles.submission_problems(folder)
    if found:  # before anything reads the folder: links, FIFOs and devices are refused
        return "; ".join(found) + " (only plain files are graded)"
    path = folder / f"{assignment}.ipynb"
    if not path.exists():
        others = sorted(p.name for p in folder.glob("*.ipynb")) if folder.exists() else []
        return f"no {path.name} in the submission" + (f" (found {', '.join(others)})" if others else "")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001  (nbformat raises many unrelated types for a broken file)
        return f"{path.name} is not a readable notebook ({type(exc).__name__})"
    expected = _graded_ids(nbformat.read(course.notebook("release", assignment), as_version=4))
    if not expected & _graded_ids(nb):
        return f"{path.name} holds none of the graded cells of {assignment}: wrong problem set?"
    return ""


def _sandboxed(api) -> bool:
    """Whether nbgrader's autograde runs notebooks through ``kit.execute.SandboxedExecute``."""
    steps = api.config.Autograde.get("autograde_preprocessors", [])
    return any(str(getattr(step, "__name__", step)).endswith("SandboxedExecute") for step in steps)


def autograde_student(course: Course, assignment: str, student: str, api=None) -> dict[str, float]:
    """Autograde one student's submission and return its per-cell scores."""
    problem = check_submission(course, assignment, student)
    if problem:
        raise GradingError(problem)
    api = api or course.api()
    sandboxed = _sandboxed(api)
    if sandboxed and (why := sandbox.unavailable()):
        raise GradingError(f"sandbox unavailable: {why}")
    if sandboxed and (why := kernel_env_refusal(str(course.root))):
        raise GradingError(f"grading refused: {why}")
    result = api.autograde(assignment, student, force=True, create=True)
    if not result.get("success"):
        log = (result.get("error") or "") + (result.get("log") or "")
        reason = "the notebook's kernel died" if "Kernel died" in log or "DeadKernel" in log else "nbgrader failed"
        if sandboxed and (why := sandbox.unavailable()):
            reason = f"sandbox unavailable: {why}"
        raise GradingError(f"{reason}; see autograde log")
    return cell_scores(course, assignment, student)


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
        from kit.feedback import write_feedback

        outcome.message = write_feedback(course, assignment, student, api=_WORKER["api"])
    return outcome


def students_of(course: Course) -> list[str]:
    """Every student with a folder in ``submitted/``."""
    folder = course.root / "submitted"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.exists() else []


def grade_class(course: Course, assignments=ASSIGNMENTS, students=None, workers=None,
                progress=True, feedback=False) -> list[Outcome]:
    """Grade every (assignment, student) pair on ``workers`` processes (default: one per core).

    With ``feedback``, each worker also writes the feedback page of what it graded.
    """
    students = list(students) if students is not None else students_of(course)
    jobs = [(a, s) for a in assignments for s in students]
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs) or 1))
    outcomes = []
    ctx = mp.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(str(course.root), feedback)) as pool:
        results = pool.imap_unordered(_grade_job, jobs)
        if progress:
            from tqdm import tqdm

            results = tqdm(results, total=len(jobs), desc="autograde", unit="nb", file=sys.stdout)
        for outcome in results:
            if outcome.message:
                line = f"  ! {outcome.student} / {outcome.assignment}: {outcome.message}"
                (results.write if progress else print)(line)
            outcomes.append(outcome)
    outcomes.sort(key=lambda o: (o.student, ASSIGNMENTS.index(o.assignment) if o.assignment in ASSIGNMENTS else 99))
    return outcomes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.autograde", description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=list(ASSIGNMENTS))
    parser.add_argument("--workers", type=int, default=None, help="grading processes (default: cores)")
    parser.add_argument("--feedback", action="store_true",
                        help="also write feedback/<student>/<ps>/<ps>.html for each graded submission")
    args = parser.parse_args(argv)
    outcomes = grade_class(Course(REPO_ROOT), args.assignments, workers=args.workers,
                           feedback=args.feedback)
    failed = [o for o in outcomes if o.status == "failed"]
    print(f"graded {sum(o.status == 'graded' for o in outcomes)} submissions, "
          f"{len(failed)} could not be graded, "
          f"{sum(o.status == 'not submitted' for o in outcomes)} not submitted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
