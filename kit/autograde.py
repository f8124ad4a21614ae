"""Step 4 of the pipeline: grade ``submitted/`` into ``autograded/`` and the gradebook.

``python -m kit.autograde [ps ...] [--workers N] [--feedback]`` grades every submission of
the named problem sets (all of them by default) with one grading process more than cores, each taking
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
see :mod:`kit.engines.processes` and :mod:`kit.sandbox.wrapper`.

``--scheduler tcp://HOST:8786`` grades on the workers of a Dask cluster instead, and
``--scheduler local:N`` on N Dask worker processes of this machine (:mod:`kit.engines.dask_client`).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from kit.course import ASSIGNMENTS, REPO_ROOT, Course
from kit.engines.ledger import LEDGER, _record, already_graded, read_ledger  # noqa: F401 - re-exported
from kit.inert import inert
from kit.intake import safefiles
from kit.sandbox import wrapper as sandbox
from kit.sandbox.execute import kernel_env_refusal


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
        shown = ", ".join(inert(n, limit=100) for n in others[:5]) + ", ..." * (len(others) > 5)
        return f"no {path.name} in the submission" + (f" (found {shown})" if others else "")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001  (nbformat raises many unrelated types for a broken file)
        return f"{path.name} is not a readable notebook ({type(exc).__name__})"
    expected = _graded_ids(nbformat.read(course.notebook("release", assignment), as_version=4))
    if not expected & _graded_ids(nb):
        return f"{path.name} holds none of the graded cells of {assignment}: wrong problem set?"
    return ""


def _sandboxed(api) -> bool:
    """Whether nbgrader's autograde runs notebooks through ``kit.sandbox.execute.SandboxedExecute``."""
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
        from kit.handback.feedback import write_feedback

        outcome.message = write_feedback(course, assignment, student, api=_WORKER["api"])
    return outcome


def students_of(course: Course) -> list[str]:
    """Every student with a folder in ``submitted/``."""
    folder = course.root / "submitted"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.exists() else []


class Interrupted(KeyboardInterrupt):
    """Grading stopped by Ctrl-C: ``outcomes`` so far and the ``pending`` (assignment, student) jobs."""

    def __init__(self, outcomes: list[Outcome], pending: list[tuple[str, str]]):
        super().__init__("grading interrupted")
        self.outcomes, self.pending = outcomes, pending


def _sort(outcomes: list[Outcome]) -> list[Outcome]:
    order = {a: i for i, a in enumerate(ASSIGNMENTS)}
    return sorted(outcomes, key=lambda o: (o.student, order.get(o.assignment, 99)))


def grade_class(course: Course, assignments=ASSIGNMENTS, students=None, workers=None,
                progress=True, feedback=False, skip_graded=False, stream=None,
                scheduler=None) -> list[Outcome]:
    """Grade every (assignment, student) pair on ``workers`` processes (default: cores + 1).

    With ``feedback``, each worker also writes the feedback page of what it graded. With
    ``skip_graded``, a submission this function graded before (:func:`already_graded`) is
    left as it is (status ``"already graded"``). A worker that dies fails only its own submission.
    Ctrl-C stops every worker and their kernels and raises :class:`Interrupted`. With
    ``scheduler`` (``"local:N"`` or a Dask scheduler's address) the jobs run on a Dask cluster
    instead (:mod:`kit.engines.dask_client`); ``workers`` is then ignored. With
    ``progress``, a bar on ``stream`` (default ``sys.stdout``) if it is a terminal, else one
    line per finished notebook (:class:`kit.engines.progress.Progress`).
    """
    from kit.engines.processes import Died, run_jobs
    from kit.judge.secret import course_secret

    course_secret(course.root)  # made once here, before the workers need it
    students = list(students) if students is not None else students_of(course)
    jobs = [(a, s) for a in assignments for s in students]
    outcomes = []
    ledger = read_ledger(course)
    if skip_graded:
        done = {job for job in jobs if already_graded(course, *job, ledger=ledger)}
        outcomes += [Outcome(s, a, "already graded") for a, s in jobs if (a, s) in done]
        jobs = [job for job in jobs if job not in done]
    # one process more than cores: while one waits for its kernel to start, the others compute
    workers = max(1, min(workers or (os.cpu_count() or 1) + 1, len(jobs) or 1))
    bar = None
    if progress:
        from kit.engines.progress import Progress, what_happened

        bar = Progress(len(jobs), stream)
    finished = set()

    def handle(job, result) -> None:
        assignment, student = job
        if isinstance(result, Died):
            result = Outcome(student, assignment, "failed", message=(
                f"the grading process {result.how} while grading this submission; "
                "it was not graded (grade it again alone to see why)"))
        finished.add(job)
        outcomes.append(result)
        if result.status == "graded":
            _record(course, ledger, assignment, student)
        if bar:
            bar.finished(student, assignment, what_happened(result), result.message)
        elif result.message:
            print(f"  ! {inert(result.student)} / {result.assignment}: {inert(result.message)}")

    try:
        if scheduler:
            from kit.engines import dask_client as cluster

            for a, s in [j for j in jobs if not (course.root / "submitted" / j[1] / j[0]).exists()]:
                handle((a, s), Outcome(s, a, "not submitted"))
            try:
                stats = cluster.run(course, [j for j in jobs if j not in finished], scheduler,
                                    feedback, handle, bar)
            except cluster.ClusterError as exc:
                exc.outcomes = _sort(outcomes)
                raise
            if progress:
                (bar.write if bar else print)(cluster.summary(stats))
            return _sort(outcomes)
        results = run_jobs(jobs, workers, _init_worker, (str(course.root), feedback), _grade_job)
        try:
            for job, result in results:
                handle(job, result)
        finally:
            results.close()  # stops the workers, and with them their kernels
    except KeyboardInterrupt:
        raise Interrupted(_sort(outcomes), [j for j in jobs if j not in finished]) from None
    finally:
        if bar:
            bar.close()
    return _sort(outcomes)


def _names(jobs) -> str:
    by: dict[str, list[str]] = {}
    for assignment, student in jobs:
        by.setdefault(assignment, []).append(student)
    return "; ".join(f"{a}: {', '.join(inert(n) for n in sorted(s))}" for a, s in sorted(by.items()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.autograde", description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=list(ASSIGNMENTS))
    parser.add_argument("--workers", type=int, default=None, help="grading processes (default: cores + 1)")
    parser.add_argument("--feedback", action="store_true",
                        help="also write feedback/<student>/<ps>/<ps>.html for each graded submission")
    parser.add_argument("--course", type=Path, default=REPO_ROOT,
                        help="the course directory (default: this repository)")
    parser.add_argument("--force", action="store_true",
                        help="grade again submissions already graded (default: skip what an "
                             "earlier run of kit.autograde graded from the same hand-in)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="grade on a Dask cluster: its scheduler's address (tcp://HOST:8786), "
                             "or local:N for N worker processes on this machine")
    args = parser.parse_args(argv)
    try:
        outcomes = grade_class(Course(args.course.resolve()), args.assignments, workers=args.workers,
                               feedback=args.feedback, skip_graded=not args.force,
                               scheduler=args.scheduler)
    except RuntimeError as exc:  # kit.engines.dask_client.ClusterError: cluster or gradebook unusable
        if not hasattr(exc, "outcomes"):
            raise
        graded = [(o.assignment, o.student) for o in exc.outcomes if o.status == "graded"]
        print(f"grading stopped: {inert(exc)}\n{len(graded)} submissions graded and recorded"
              + (f": {_names(graded)}" if graded else ""), file=sys.stderr)
        return 1
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
