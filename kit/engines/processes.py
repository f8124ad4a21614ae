"""Grading processes for ``kit.autograde``: one job at a time each, and none is ever lost.

:func:`run_jobs` hands jobs to ``n`` worker processes (``spawn``ed, so each has its own
nbgrader and kernels) and yields each job with its result as it arrives. Unlike a
``multiprocessing.Pool``, it notices a worker that dies in the middle of a job (``kill -9``,
the out-of-memory killer): that job alone yields :class:`Died`, a fresh worker takes the
next job, and the run goes on.

Signals: workers ignore Ctrl-C (SIGINT goes to the whole process group); the calling process
gets the ``KeyboardInterrupt`` and, leaving :func:`run_jobs`, stops every worker. A worker
whose parent is gone (``kill -9`` of the grader) stops by itself within
:data:`WATCH_INTERVAL` seconds; each kernel's sandbox wrapper (:mod:`kit.sandbox.wrapper`) in turn
stops its kernel once that worker is gone.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait

#: Seconds between two checks, in a worker, that the grader is still alive.
WATCH_INTERVAL = 0.25


@dataclass
class Died:
    """A worker died while it held a job; ``how`` says how (e.g. ``killed by SIGKILL``)."""

    how: str


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL)
    os._exit(1)  # the grader is gone; this worker's kernels stop when it does


def _worker_main(conn, parent: int, init, initargs, job_fn) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    init(*initargs)
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                return
            if job is None:
                return
            try:
                result = job_fn(job)
            except Exception as exc:  # noqa: BLE001 - reported as this job's failure, never lost
                result = Died(f"stopped with {type(exc).__name__}: {exc}"[:300])
            conn.send(result)
    finally:  # its kernels' template, stopped as the worker leaves its loop, not at exit
        from kit.sandbox.warm import stop_templates

        stop_templates()


def _how(exitcode) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"killed by {name}" + (", e.g. out of memory" if name == "SIGKILL" else "")
    return f"exited with status {exitcode}"


@contextlib.contextmanager
def _no_sigint():
    """Ignore Ctrl-C for a moment (main thread only: elsewhere signals cannot be set)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _Worker:
    def __init__(self, ctx, init, initargs, job_fn):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, daemon=True,
                                args=(child, os.getpid(), init, initargs, job_fn))
        with _no_sigint():  # inherited by the child: a Ctrl-C cannot hit its start-up
            self.proc.start()
        child.close()
        self.job = None


def _stop(workers, grace: float = 2.0) -> None:
    """Idle workers were told to quit: wait for them; kill busy ones (Ctrl-C) at once.

    A busy worker is killed outright: a polite SIGTERM lets nbclient stop the kernel and
    nbgrader go on with a dead one. Its kernel's sandbox wrapper sees the worker gone and
    kills the kernel (:func:`kit.sandbox.wrapper.watch`).
    """
    for w in workers:
        if w.job is not None and w.proc.is_alive():
            w.proc.kill()
    deadline = time.monotonic() + grace
    for w in workers:
        w.proc.join(max(0.0, deadline - time.monotonic()))
        if w.proc.is_alive():
            w.proc.terminate()
            w.proc.join(grace)
        if w.proc.is_alive():
            w.proc.kill()
            w.proc.join()
        w.conn.close()


def run_jobs(jobs, n: int, init, initargs, job_fn):
    """Yield ``(job, result)`` for every job, ``result`` being ``job_fn(job)`` or :class:`Died`.

    ``init(*initargs)`` runs once in each worker; ``init`` and ``job_fn`` must be importable
    module-level functions. Leaving the generator early (an exception, Ctrl-C) stops all
    workers at once.
    """
    ctx = mp.get_context("spawn")
    todo = deque(jobs)
    if not todo:
        return
    workers = [_Worker(ctx, init, initargs, job_fn) for _ in range(max(1, min(n, len(todo))))]
    try:
        while True:
            for w in workers:
                if w.job is None and todo:
                    w.job = todo.popleft()
                    w.conn.send(w.job)
            busy = [w for w in workers if w.job is not None]
            if not busy:
                return
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy])
            for w in busy:
                if w.conn not in ready and w.proc.sentinel not in ready:
                    continue
                job, w.job = w.job, None
                result = None
                try:
                    if w.conn.poll():
                        result = (w.conn.recv(),)
                except (EOFError, OSError):
                    pass
                if result is None:
                    w.proc.join()
                    result = (Died(_how(w.proc.exitcode)),)
                    w.conn.close()
                    workers.remove(w)
                    if todo:
                        workers.append(_Worker(ctx, init, initargs, job_fn))
                yield job, result[0]
    finally:
        with _no_sigint():  # a second Ctrl-C waits for the workers to be stopped
            for w in workers:
                if w.proc.is_alive() and w.job is None:
                    try:
                        w.conn.send(None)
                    except OSError:
                        pass
            _stop(workers)
