"""Grading on a Dask cluster: ``python -m kit.autograde --scheduler tcp://HOST:8786``.

``--scheduler local:N`` starts a ``distributed.LocalCluster`` of N one-thread worker
processes on this machine instead (for trying it out, and the tests). The client (this
process) checks every worker first (same kit, working sandbox: :func:`kit.engines.dask_worker.worker_report`)
and that it reaches the gradebook, sends the course files once, then each (student, problem
set) job with the hand-in's files; a worker grades it (:func:`kit.engines.dask_worker.grade_job`) and
sends back the autograded folder, the feedback page and the per-cell grades. The client writes
``autograded/`` and ``feedback/`` as a local run does and records the grades in the gradebook
(sqlite or PostgreSQL, :data:`kit.course.DB_URL_VAR`): setting the same values again, so a
job run twice (its worker died, the scheduler ran it elsewhere) leaves one grade per cell.

A job whose worker dies is run again by Dask on another worker (twice at most, on any
scheduler: :func:`limit_retries`; then ``KilledWorker``, reported as that submission's
failure); a notebook that kills its kernel
fails as in a local run and is not retried. A gradebook that cannot be reached stops the run
with one line. Ctrl-C cancels every job, stops the kernels they started and raises
:class:`kit.autograde.Interrupted` (through :mod:`kit.autograde`, which chose this engine).
"""

from __future__ import annotations

import contextlib
import sys
import time

from kit.course import Course
from kit.engines.recording import RecordingError, record_batch

#: Jobs in flight per worker (the rest wait on the client: their hand-ins are read when sent).
IN_FLIGHT = 3


class ClusterError(RuntimeError):
    """The cluster or the gradebook cannot be used; the message says why."""


#: A job is run again at most this many times after its worker died, then fails (KilledWorker).
ALLOWED_FAILURES = 2


def dask_settings() -> None:
    """A job whose worker died twice fails (KilledWorker); Dask's logging only on errors.

    This holds for a cluster started in this process (``local:N``); a scheduler the operator
    started has its own configuration, which :func:`limit_retries` overrides for the run.
    """
    import dask

    dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                     "logging.distributed": "error"})


def limit_retries(client, allowed: int = ALLOWED_FAILURES) -> int:
    """Set the scheduler's retry limit to ``allowed`` and return the one it had.

    The limit lives in the scheduler's process (``dask scheduler`` reads its own config,
    default 3), so the client sets it there; the scheduler reads it at each worker death.
    The function is made here so that it travels by value: the scheduler's machine need not
    have the kit installed.
    """

    def swap(dask_scheduler=None, allowed=allowed):
        previous = dask_scheduler.allowed_failures
        dask_scheduler.allowed_failures = allowed
        return previous

    return client.run_on_scheduler(swap)


def connect(scheduler: str):
    """``(client, cluster)`` for ``local:N`` (a LocalCluster we own) or a scheduler address."""
    from distributed import Client, LocalCluster

    dask_settings()
    if scheduler.startswith("local:"):
        try:
            n = int(scheduler.split(":", 1)[1])
        except ValueError:
            raise ClusterError(f"--scheduler {scheduler}: write local:N, N workers") from None
        cluster = LocalCluster(n_workers=max(1, n), threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="20s"), None
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc


def check_workers(client) -> int:
    """Refuse a cluster whose workers run another kit or cannot sandbox; return their count."""
    from kit.engines.dask_worker import kit_fingerprint, worker_report

    reports = client.run(worker_report)
    if not reports:
        raise ClusterError("the Dask cluster has no workers")
    mine = kit_fingerprint()
    bad = [f"{addr} ({r['host']}): kit {r['kit']}, this client kit {mine}; "
           "install the same kit on every worker" for addr, r in reports.items() if r["kit"] != mine]
    bad += [f"{addr} ({r['host']}): sandbox unavailable: {r['sandbox']}"
            for addr, r in reports.items() if r["sandbox"]]
    if bad:
        raise ClusterError("workers refused:\n  " + "\n  ".join(sorted(bad)))
    return len(reports)


def check_gradebook(course: Course, assignments) -> None:
    """Open the gradebook once: a clear error when unreachable or without ``assignments``."""
    from nbgrader.api import Gradebook

    from kit.course import shown

    try:
        with Gradebook(course.db_url) as gb:
            known = {a.name for a in gb.assignments}
    except Exception as exc:  # driver errors vary; one line names the database
        raise ClusterError(f"cannot reach the gradebook database {shown(course.db_url)}: "
                           f"{str(exc).strip().splitlines()[0]}") from exc
    missing = sorted(set(assignments) - known)
    if missing:
        raise ClusterError(
            f"the gradebook {shown(course.db_url)} does not know {', '.join(missing)}: release "
            "them with this gradebook (python -m kit.release), or move gradebook.db there "
            "(python -m kit.gradebook_move --to URL)")


def _job(course: Course, assignment: str, student: str, feedback: bool, kit: str) -> dict:
    """One hand-in for a worker: its notebook (and ``timestamp.txt``, kept in the autograded
    folder as nbgrader keeps it, read by no rule), and the time the kit received it."""
    from kit.intake.received import received

    folder = course.root / "submitted" / student / assignment
    files = {name: (folder / name).read_bytes() for name in (f"{assignment}.ipynb", "timestamp.txt")
             if (folder / name).is_file()}
    when = received(course, student, assignment)
    return {"assignment": assignment, "student": student, "files": files,
            "received": (when.time.isoformat(), when.source), "feedback": feedback, "kit": kit}


def grade(course: Course, jobs, feedback: bool, on_result, bar=None, where=None) -> str:
    """The engine's entry (:mod:`kit.engines`): grade ``jobs`` on the cluster ``where``.

    A job without a hand-in is answered here (``"not submitted"``); the others go to
    :func:`run`. Returns the line that sums the run up.
    """
    from kit.engines.job import Outcome

    missing = [(a, s) for a, s in jobs if not (course.root / "submitted" / s / a).exists()]
    for assignment, student in missing:
        on_result((assignment, student), Outcome(student, assignment, "not submitted"))
    return summary(run(course, [j for j in jobs if j not in missing], where, feedback,
                       on_result, bar))


def run(course: Course, jobs, scheduler: str, feedback: bool, on_result, bar=None) -> dict:
    """Grade ``jobs`` ((assignment, student) pairs) on the cluster.

    ``on_result(job, outcome)`` is called in the client for each finished job. Returns
    ``{"workers": peak workers in use, "seconds": wall time, "graded": count}``.
    """
    from distributed import as_completed
    from distributed.client import FutureCancelledError

    from kit.engines.dask_worker import course_bundle, grade_job, kit_fingerprint
    from kit.engines.job import Outcome, check_submission

    if not jobs:
        return {"workers": 0, "seconds": 0.0, "graded": 0}
    check_gradebook(course, {a for a, _ in jobs})
    from nbgrader.api import Gradebook

    gb = Gradebook(course.db_url)  # one for the run: each batch of results is one transaction
    client, cluster = connect(scheduler)
    start, peak, graded = time.perf_counter(), 0, 0
    futures = {}
    retries = None
    try:
        retries = limit_retries(client)
        peak = check_workers(client)
        kit = kit_fingerprint()
        bundle = client.scatter(course_bundle(course, sorted({a for a, _ in jobs})), broadcast=True)
        todo = list(jobs)
        pending = as_completed()

        def send(n: int) -> None:
            while todo and n > 0:
                assignment, student = job = todo.pop(0)
                problem = check_submission(course, assignment, student)
                if problem:
                    on_result(job, Outcome(student, assignment, "failed", message=problem))
                    continue
                future = client.submit(grade_job, _job(course, assignment, student, feedback, kit),
                                       bundle, pure=False, key=f"grade-{assignment}-{student}-{time.time_ns()}")
                futures[future] = job
                pending.add(future)
                n -= 1

        send(IN_FLIGHT * peak)
        for batch in pending.batches():  # what finished meanwhile: recorded in one go
            done = []
            for future in batch:
                job = futures.pop(future)
                try:
                    result = future.result()
                except FutureCancelledError:
                    raise
                except Exception as exc:  # noqa: BLE001 - KilledWorker and the like: it fails
                    result = {"status": "failed", "message": (
                        f"the job failed on the cluster ({type(exc).__name__}: {exc}"[:300] + ")")}
                done.append((job, result))
            try:
                record_batch(course, [(*job, r) for job, r in done if r["status"] == "graded"], gb)
            except RecordingError as exc:
                raise ClusterError(str(exc)) from exc
            workers = len(client.scheduler_info().get("workers", {}))
            peak = max(peak, workers)
            for (assignment, student), result in done:
                if result["status"] == "graded":
                    graded += 1
                    outcome = Outcome(student, assignment, "graded", result["scores"],
                                      result["message"])
                else:
                    outcome = Outcome(student, assignment, "failed", message=result["message"])
                if bar is not None:
                    bar.note(workers=workers,
                             nb_per_s=f"{graded / (time.perf_counter() - start):.2f}")
                on_result((assignment, student), outcome)
            send(max(1, workers) * IN_FLIGHT - len(futures))
    except BaseException:
        if futures:
            client.cancel(list(futures), force=True)
            with contextlib.suppress(Exception):  # a worker already gone has no kernel left
                _stop_everywhere(client)
        raise
    finally:
        with contextlib.suppress(Exception):
            gb.close()
        if retries is not None:
            with contextlib.suppress(Exception):  # the operator's scheduler as it was
                limit_retries(client, retries)
        client.close()
        if cluster is not None:
            cluster.close()
    return {"workers": peak, "seconds": time.perf_counter() - start, "graded": graded}


def _stop_everywhere(client, quiet_rounds: int = 3, pause: float = 0.5,
                     seconds: float = 10.0) -> None:
    """Kill every worker's grading kernels until ``quiet_rounds`` rounds in a row find none.

    The kill goes straight to the workers, the cancellation through the scheduler: a worker
    whose kernel was just killed may take its next job, and start that job's kernel, before
    the cancellation reaches it. Killing once left that kernel running."""
    quiet, deadline = 0, time.monotonic() + seconds
    while quiet < quiet_rounds and time.monotonic() < deadline:
        killed = sum(client.run(_stop_kernels).values())
        quiet = 0 if killed else quiet + 1
        time.sleep(pause)


def _stop_kernels() -> int:
    from kit.engines.dask_worker import stop_kernels

    return stop_kernels()


def summary(stats: dict) -> str:
    rate = stats["graded"] / stats["seconds"] if stats["seconds"] else 0.0
    return (f"on {stats['workers']} Dask workers: {stats['graded']} notebooks in "
            f"{stats['seconds']:.1f} s, {rate:.2f} notebooks/s")


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use python -m kit.autograde --scheduler ...")
