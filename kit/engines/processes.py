"""Grading processes for ``kit.autograde``: one job at a time each, and none is ever lost.

:func:`run_jobs` hands jobs to ``n`` worker processes (forked from a fork server that has
imported the grader once, :func:`_context`; each has its own nbgrader and kernels) and
yields each job with its result as it arrives. Unlike a
``multiprocessing.Pool``, it notices a worker that dies in the middle of a job (``kill -9``,
the out-of-memory killer): that job alone yields :class:`Died`, a fresh worker takes the
next job, and the run goes on.

Signals: workers ignore Ctrl-C (SIGINT goes to the whole process group); the calling process
gets the ``KeyboardInterrupt`` and, leaving :func:`run_jobs`, stops every worker. A worker
whose grader is gone (``kill -9``) stops by itself at once: it holds the read end of a pipe
whose only write end is the grader's, and sees it close; each kernel's sandbox wrapper
(:mod:`kit.sandbox.wrapper`) in turn stops its kernel once that worker is gone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing import forkserver, reduction
from multiprocessing.connection import wait

from kit.forkserver import context as forkserver_context

#: The fork server's preload (:mod:`kit.engines.warm`): the grader, imported once.
PRELOAD = "kit.engines.warm"


@dataclass
class Died:
    """A worker died while it held a job; ``how`` says how (e.g. ``killed by SIGKILL``)."""

    how: str


def _watch_life(life) -> None:
    try:
        life.recv_bytes()  # nothing is ever sent: this returns when the grader's end closes
    except (EOFError, OSError):
        pass
    os._exit(1)  # the grader is gone; this worker's kernels stop when it does


class _Fd:
    """One of the grader's file descriptors, handed to a worker (its standard output and
    error: a worker forked from the fork server would otherwise keep the server's)."""

    def __init__(self, fd: int):
        self.fd = fd

    def __reduce__(self):
        return _fd_in_child, (reduction.DupFd(self.fd),)


def _fd_in_child(dup) -> int:
    return dup.detach()


def _take_over(stdio, environ: dict, cwd: str) -> None:
    """The grader's standard output and error, environment and working folder, as of when
    this worker was started (a spawned worker inherited them; a forked one has the fork
    server's, from when that started)."""
    for target, fd in zip((1, 2), stdio):
        if fd != target:
            os.dup2(fd, target)
            os.close(fd)
    os.environ.clear()
    os.environ.update(environ)
    tempfile.tempdir = None  # chosen again from this TMPDIR, not the one the server had
    os.chdir(cwd)


def _worker_main(conn, life, stdio, environ, cwd, init, initargs, job_fn) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_life, args=(life,), daemon=True).start()
    _take_over(stdio, environ, cwd)
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
    def __init__(self, ctx, life, init, initargs, job_fn):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, daemon=True, args=(
            child, life, (_Fd(1), _Fd(2)), dict(os.environ), os.getcwd(), init, initargs,
            job_fn))
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


def _context():
    """``multiprocessing``'s fork server, with the grader preloaded (:mod:`kit.engines.warm`).

    One server per grading process, started on first use: each worker is forked from it,
    warm, instead of starting Python and importing the grader again (about 2.5 CPU s a
    worker, paid again by every run in one process and by every worker that replaces a dead
    one). The preload adds to what another user of the server in this process (the check
    service's judges) asked for. On a Python whose fork server any local user could reach
    (:mod:`kit.forkserver`), each worker is spawned instead.
    """
    return forkserver_context([PRELOAD])  # spawned where the fork server is not private


def stop_fork_server() -> None:
    """Stop this process's fork server, if it runs, and wait for it (the next run starts
    another). A caller that counts its children's CPU with ``getrusage`` then sees its
    grading processes': the server reaped them, and its own reaped time reaches the caller
    only when the caller reaps the server (``make bench-grading``)."""
    server = forkserver._forkserver
    if getattr(server, "_forkserver_pid", None) is not None:
        server._stop()


def run_jobs(jobs, n: int, init, initargs, job_fn):
    """Yield ``(job, result)`` for every job, ``result`` being ``job_fn(job)`` or :class:`Died`.

    ``init(*initargs)`` runs once in each worker; ``init`` and ``job_fn`` must be importable
    module-level functions. Leaving the generator early (an exception, Ctrl-C) stops all
    workers at once.
    """
    ctx = _context()
    todo = deque(jobs)
    if not todo:
        return
    # the workers' life line: they hold its read end and stop when the grader's end closes
    life_r, life_w = ctx.Pipe(duplex=False)
    workers = [_Worker(ctx, life_r, init, initargs, job_fn) for _ in range(max(1, min(n, len(todo))))]
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
                        workers.append(_Worker(ctx, life_r, init, initargs, job_fn))
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
            life_w.close()
            life_r.close()
