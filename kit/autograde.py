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

``--regrade [--policy never-lower|apply]`` grades the named problem sets again after a fixed
test or key and writes ``reports/regrade_<ps>.csv``, per student and part old against new; the
policy decides what reaches the gradebook and hand grades are never touched
(:mod:`kit.gradebook.regrade`).

``--scheduler tcp://HOST:8786`` grades on the workers of a Dask cluster instead, and
``--scheduler local:N`` on N Dask worker processes of this machine (:mod:`kit.engines.dask_client`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kit.course import ASSIGNMENTS, REPO_ROOT, Course
from kit.engines import dask_client, local
from kit.engines.job import (  # noqa: F401 - re-exported: what a caller of kit.autograde uses
    GradingError,
    Outcome,
    autograde_student,
    cell_scores,
    check_submission,
    grading_api,
    students_of,
)
from kit.engines.ledger import LEDGER, _record, already_graded, read_ledger  # noqa: F401 - re-exported
from kit.gradebook.regrade import POLICIES
from kit.inert import inert


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
    from kit.secret import course_secret

    course_secret(course.root)  # made once here, before the workers need it
    students = list(students) if students is not None else students_of(course)
    jobs = [(a, s) for a in assignments for s in students]
    outcomes = []
    ledger = read_ledger(course)
    if skip_graded:
        done = {job for job in jobs if already_graded(course, *job, ledger=ledger)}
        outcomes += [Outcome(s, a, "already graded") for a, s in jobs if (a, s) in done]
        jobs = [job for job in jobs if job not in done]
    bar = None
    if progress:
        from kit.engines.progress import Progress, what_happened

        bar = Progress(len(jobs), stream)
    finished = set()

    def handle(job, result: Outcome) -> None:
        finished.add(job)
        outcomes.append(result)
        if result.status == "graded":
            _record(course, ledger, *job)
        if bar:
            bar.finished(result.student, result.assignment, what_happened(result), result.message)
        elif result.message:
            print(f"  ! {inert(result.student)} / {result.assignment}: {inert(result.message)}")

    engine, where = (dask_client, scheduler) if scheduler else (local, workers)
    try:
        note = engine.grade(course, jobs, feedback, handle, bar, where)
        if progress and note:
            (bar.write if bar else print)(note)
    except dask_client.ClusterError as exc:
        exc.outcomes = _sort(outcomes)
        raise
    except KeyboardInterrupt:
        raise Interrupted(_sort(outcomes), [j for j in jobs if j not in finished]) from None
    finally:
        if bar:
            bar.close()
    return _sort(outcomes)


def regrade(course: Course, ps: str, policy: str = "never-lower", **grading) -> int:
    """Grade ``ps`` again and settle old against new by ``policy``
    (:mod:`kit.gradebook.regrade`); print the summary; return the exit status. Stopped by
    Ctrl-C, what was graded again is settled, the rest keeps its old points."""
    from kit.gradebook.regrade import check_policy, settle, snapshot, summary, write_changes

    check_policy(policy)
    if not course.notebook("source", ps).is_file():
        raise ValueError(f"no problem set {inert(ps)!r} to re-grade: no source notebook "
                         f"{course.notebook('source', ps)}")
    before, status = snapshot(course, ps), 0
    try:
        outcomes = grade_class(course, [ps], skip_graded=False, **grading)
    except Interrupted as stop:
        outcomes = stop.outcomes + [Outcome(s, a, "failed", message="interrupted")
                                    for a, s in stop.pending]
        status = 130
    except dask_client.ClusterError as exc:  # the graded ones are settled, the rest keep theirs
        done = {o.student for o in exc.outcomes}
        outcomes = exc.outcomes + [Outcome(s, ps, "failed", message=str(exc))
                                   for s in set(before) - done]
        print(f"grading stopped: {inert(exc)}", file=sys.stderr)
        status = 1
    changes = settle(course, ps, before, outcomes, policy)
    print(summary(ps, policy, changes, write_changes(course, ps, changes)))
    return status


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
    parser.add_argument("--regrade", action="store_true",
                        help="grade the problem sets again after a fixed test or key and write "
                             "reports/regrade_<ps>.csv, per student and part old against new "
                             "(kit.gradebook.regrade); hand grades are never touched")
    parser.add_argument("--policy", choices=POLICIES, default=None,
                        help="with --regrade: never-lower (default) keeps a part's old points when "
                             "the new grading would lower them; apply takes every new point")
    args = parser.parse_args(argv)
    if args.policy and not args.regrade:
        parser.error(f"--policy {args.policy} is a re-grade's policy: add --regrade")
    if args.regrade:
        course = Course(args.course.resolve())
        try:
            return max(regrade(course, ps, args.policy or "never-lower", workers=args.workers,
                               feedback=args.feedback, scheduler=args.scheduler)
                       for ps in args.assignments)
        except ValueError as exc:
            print(f"re-grade refused: {exc}", file=sys.stderr)
            return 2
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
