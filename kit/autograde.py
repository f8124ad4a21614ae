"""Step 4 of the pipeline: grade ``submitted/`` into ``autograded/`` and the gradebook.

``python -m kit.autograde [ps ...] [--workers N] [--feedback]`` grades every submission of
the named problem sets (all five by default) with one grading process per core, each taking
the next submission from a shared queue, all writing to the one sqlite gradebook; with
``--feedback`` each process also writes the feedback page of what it graded. A submission that
cannot be graded (missing, corrupt, the wrong problem set, a kernel that died) gets a clear
line in the summary and zero for what could not be graded; everybody else is graded normally,
even when a grading process dies (``kill -9``, the out-of-memory killer): only its submission
fails, with a line naming it.

Re-running skips what it already graded (the same hand-in, its graded notebook still there;
recorded in ``autograded/.kit-graded.json``), so a run
stopped with Ctrl-C (it prints what was graded and what was not, and exits with status 130)
continues where it stopped; ``--force`` grades everything again. No kernel outlives the run:
see :mod:`kit.workers` and :mod:`kit.sandbox`.
"""

from __future__ import annotations

import argparse
import json
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
    status: str  # "graded", "not submitted", "failed" or "already graded"
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


#: Record of what kit.autograde graded, in ``autograded/``: ``{"<ps>/<student>": stamp}``.
LEDGER = ".kit-graded.json"


def _stamp(course: Course, assignment: str, student: str) -> list[int]:
    """Modification time and size of the hand-in: a new hand-in changes them."""
    stat = course.notebook("submitted", assignment, student).stat()
    return [stat.st_mtime_ns, stat.st_size]


def read_ledger(course: Course) -> dict:
    """What :func:`grade_class` recorded as graded (empty when nothing or unreadable)."""
    try:
        ledger = json.loads((course.root / "autograded" / LEDGER).read_text())
    except (OSError, ValueError):
        return {}
    return ledger if isinstance(ledger, dict) else {}


def _record(course: Course, ledger: dict, assignment: str, student: str) -> None:
    try:
        ledger[f"{assignment}/{student}"] = _stamp(course, assignment, student)
    except OSError:
        return
    path = course.root / "autograded" / LEDGER
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(ledger, indent=0, sort_keys=True))
    os.replace(tmp, path)


def already_graded(course: Course, assignment: str, student: str, ledger=None) -> bool:
    """Whether kit.autograde graded this very hand-in and its graded notebook is still there.

    nbgrader writes a notebook into ``autograded/`` before it runs it, so the notebook alone
    proves nothing: a run records each submission it finished in :data:`LEDGER`, with the
    hand-in's time and size.
    """
    ledger = read_ledger(course) if ledger is None else ledger
    try:
        stamp = _stamp(course, assignment, student)
    except OSError:
        return False
    return (ledger.get(f"{assignment}/{student}") == stamp
            and course.notebook("autograded", assignment, student).exists())


class Interrupted(KeyboardInterrupt):
    """Grading stopped by Ctrl-C: ``outcomes`` so far and the ``pending`` (assignment, student) jobs."""

    def __init__(self, outcomes: list[Outcome], pending: list[tuple[str, str]]):
        super().__init__("grading interrupted")
        self.outcomes, self.pending = outcomes, pending


def _sort(outcomes: list[Outcome]) -> list[Outcome]:
    order = {a: i for i, a in enumerate(ASSIGNMENTS)}
    return sorted(outcomes, key=lambda o: (o.student, order.get(o.assignment, 99)))


def grade_class(course: Course, assignments=ASSIGNMENTS, students=None, workers=None,
                progress=True, feedback=False, skip_graded=False, stream=None) -> list[Outcome]:
    """Grade every (assignment, student) pair on ``workers`` processes (default: one per core).

    With ``feedback``, each worker also writes the feedback page of what it graded. With
    ``skip_graded``, a submission this function graded before (:func:`already_graded`) is
    left as it is (status ``"already graded"``). A worker that dies fails only its own submission.
    Ctrl-C stops every worker and their kernels and raises :class:`Interrupted`. With
    ``progress``, a bar on ``stream`` (default ``sys.stdout``) if it is a terminal, else one
    line per finished notebook (:class:`kit.progress.Progress`).
    """
    from kit.secret import course_secret
    from kit.workers import Died, run_jobs

    course_secret(course.root)  # made once here, before the workers need it
    students = list(students) if students is not None else students_of(course)
    jobs = [(a, s) for a in assignments for s in students]
    outcomes = []
    ledger = read_ledger(course)
    if skip_graded:
        done = {job for job in jobs if already_graded(course, *job, ledger=ledger)}
        outcomes += [Outcome(s, a, "already graded") for a, s in jobs if (a, s) in done]
        jobs = [job for job in jobs if job not in done]
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs) or 1))
    bar = None
    if progress:
        from kit.progress import Progress, what_happened

        bar = Progress(len(jobs), stream)
    finished = set()
    results = run_jobs(jobs, workers, _init_worker, (str(course.root), feedback), _grade_job)
    try:
        for (assignment, student), result in results:
            if isinstance(result, Died):
                result = Outcome(student, assignment, "failed", message=(
                    f"the grading process {result.how} while grading this submission; "
                    "it was not graded (grade it again alone to see why)"))
            finished.add((assignment, student))
            outcomes.append(result)
            if result.status == "graded":
                _record(course, ledger, assignment, student)
            if bar:
                bar.finished(student, assignment, what_happened(result), result.message)
            elif result.message:
                print(f"  ! {result.student} / {result.assignment}: {result.message}")
    except KeyboardInterrupt:
        raise Interrupted(_sort(outcomes), [j for j in jobs if j not in finished]) from None
    finally:
        results.close()  # stops the workers, and with them their kernels
        if bar:
            bar.close()
    return _sort(outcomes)


def _names(jobs) -> str:
    by: dict[str, list[str]] = {}
    for assignment, student in jobs:
        by.setdefault(assignment, []).append(student)
    return "; ".join(f"{a}: {', '.join(sorted(s))}" for a, s in sorted(by.items()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.autograde", description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=list(ASSIGNMENTS))
    parser.add_argument("--workers", type=int, default=None, help="grading processes (default: cores)")
    parser.add_argument("--feedback", action="store_true",
                        help="also write feedback/<student>/<ps>/<ps>.html for each graded submission")
    parser.add_argument("--course", type=Path, default=REPO_ROOT,
                        help="the course directory (default: this repository)")
    parser.add_argument("--force", action="store_true",
                        help="grade again submissions already graded (default: skip what an "
                             "earlier run of kit.autograde graded from the same hand-in)")
    args = parser.parse_args(argv)
    try:
        outcomes = grade_class(Course(args.course.resolve()), args.assignments, workers=args.workers,
                               feedback=args.feedback, skip_graded=not args.force)
    except Interrupted as stop:
        graded = [(o.assignment, o.student) for o in stop.outcomes if o.status == "graded"]
        print(f"\ninterrupted: {len(graded)} submissions graded in this run, "
              f"{len(stop.pending)} not graded; run the same command again to grade the rest "
              "(what is graded is skipped)")
        if graded:
            print(f"graded: {_names(graded)}")
        if stop.pending:
            print(f"not graded: {_names(stop.pending)}")
        return 130
    failed = [o for o in outcomes if o.status == "failed"]
    skipped = sum(o.status == "already graded" for o in outcomes)
    print(f"graded {sum(o.status == 'graded' for o in outcomes)} submissions, "
          f"{len(failed)} could not be graded, "
          f"{sum(o.status == 'not submitted' for o in outcomes)} not submitted"
          + (f", {skipped} already graded and skipped (--force grades them again)" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
