"""The check service's judging processes: one judgement at a time each, killed alone.

:class:`Judges` keeps ``workers`` processes, forked from a fork server that imported the
grader and drew a key of every problem set once (:mod:`kit.checks.warm`), so a process
starts warm in a fraction of a second. A check takes an idle one for itself (preferring one
that judged that student before: their key is cached there), hands it one answer and waits
at most ``seconds`` of judging time; waiting for an idle process is not counted. A process
that runs out of time, or dies, is killed and replaced; no other judgement is touched, so
one student's costly answer stops nobody else's. Each process also limits itself: CPU time
a little over the limit per judgement, 1 GiB more memory than it started with, and it dies
with the fork server, which leaves with the service, even killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import threading
import time

from kit.checks.judging import Outcome, judge
from kit.forkserver import context as forkserver_context

__all__ = ["JUDGE_MEMORY", "Judges"]

#: memory a judging process may add to what it started with (bytes)
JUDGE_MEMORY = 1 << 30
#: judgements after which a process is replaced (its caches do not grow for ever)
USES = 500


def _detach(memory: int) -> None:
    """Limits of a judging process, set once: it dies with its parent, the fork server
    (which leaves when the service is gone, even killed), and may grow by ``memory``."""
    import ctypes
    import os
    import resource
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the CPU limit still ends it
        pass
    try:  # a forked process holds the fork server's life line, which would keep it (and so
        # this process) alive after the service: this one starts no process, so it lets go
        from multiprocessing import forkserver

        os.close(forkserver._forkserver._forkserver_alive_fd)
    except (AttributeError, OSError, TypeError):
        pass
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or size + memory < hard:
            resource.setrlimit(resource.RLIMIT_AS, (size + memory, hard))
    except (OSError, ValueError):  # no /proc: the CPU limit still holds
        pass


def _serve(conn, seconds: float, memory: int) -> None:
    """A judging process: judge each ``(item, student, data)`` it is sent, within a CPU
    time limit of its own per judgement, until its pipe closes."""
    import resource

    _detach(memory)
    while True:
        try:
            item, student, data = conn.recv()
        except (EOFError, OSError):
            return
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu = math.ceil(used.ru_utime + used.ru_stime + seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))
        try:
            result = judge(item, student, data)
        except (MemoryError, RecursionError, OverflowError) as exc:
            result = ("toolarge", f"this answer is too large to compare ({type(exc).__name__})",
                      None)
        except Exception as exc:  # noqa: BLE001 - the judge's failure, not a verdict
            result = ("error", f"the judge failed on this answer ({type(exc).__name__})", None)
        conn.send(result)


class _Worker:
    def __init__(self, process, conn):
        self.process, self.conn, self.students, self.uses = process, conn, set(), 0
        self.dead = False


class Judges:
    """``workers`` judging processes; a judgement over ``seconds`` of its own time is killed,
    alone. ``warm``: the fork server draws a key of each problem set first (seconds at
    start, a quarter second less per check); else it imports the grader only."""

    def __init__(self, workers: int = 4, seconds: float = 5.0, memory: int = JUDGE_MEMORY,
                 warm: bool = True):
        self.workers, self.seconds, self.memory = workers, seconds, memory
        # spawned instead where the fork server would not be private (kit/forkserver.py)
        self.ctx = forkserver_context(["kit.checks.warm"] if warm else [
            "kit.checks.judging", "kpca_ref.grading.harness"])
        self.idle: list[_Worker] = []
        self.live: set[_Worker] = set()
        self.running: dict[int, multiprocessing.process.BaseProcess] = {}  # judging now
        self.ready = threading.Event()
        self._closed = False
        self._changed: asyncio.Condition | None = None
        threading.Thread(target=self._warm, daemon=True).start()

    def _start(self) -> _Worker:
        mine, theirs = self.ctx.Pipe()
        process = self.ctx.Process(target=_serve, args=(theirs, self.seconds, self.memory),
                                   daemon=True)
        process.start()
        theirs.close()
        worker = _Worker(process, mine)
        self.live.add(worker)
        return worker

    def _warm(self) -> None:
        """Start the fork server (it imports the grader and draws keys: seconds) and the
        judging processes, once, beside the service's loop."""
        try:
            for _ in range(self.workers):
                self.idle.append(self._start())
        finally:
            self.ready.set()

    @contextlib.asynccontextmanager
    async def worker(self, student: str, wait: float):
        """An idle judging process for ``student`` (None if none came free within ``wait``
        seconds after the judges started), given back (or replaced) afterwards."""
        warmed = time.monotonic() + 180
        while not self.ready.is_set() and time.monotonic() < warmed:
            await asyncio.sleep(0.1)
        if self._changed is None:
            self._changed = asyncio.Condition()
        if not self.idle and len(self.live) < self.workers and not self._closed:
            await self._give_back(None)  # one was lost (a start that failed): start one
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(lambda: self.idle), wait)
            except asyncio.TimeoutError:
                worker = None
            else:
                mine = [w for w in self.idle if student in w.students]
                worker = (mine or self.idle)[-1]
                self.idle.remove(worker)
        if worker is None:
            yield None
            return
        try:
            yield worker
        finally:
            await self._give_back(worker)

    async def _give_back(self, worker: _Worker | None) -> None:
        """Back to the idle ones, or (dead, worn out, or None) replaced by a new one."""
        loop = asyncio.get_running_loop()
        if worker is None or worker.dead or worker.uses >= USES or self._closed:
            if worker is not None:
                self.live.discard(worker)
                worker.process.kill()
                worker.conn.close()
                await loop.run_in_executor(None, worker.process.join, 5)
            if self._closed:
                return
            try:
                worker = await loop.run_in_executor(None, self._start)
            except Exception:  # noqa: BLE001 - one judge fewer; the next check starts one
                return
        async with self._changed:
            self.idle.append(worker)
            self._changed.notify()

    async def judge(self, worker: _Worker, item: str, student: str, data) -> Outcome:
        """The outcome of ``data`` for ``student``, judged by ``worker`` (from
        :meth:`worker`); one that runs out of time or dies is killed (and replaced)."""
        loop = asyncio.get_running_loop()
        readable = loop.create_future()
        fd = worker.conn.fileno()
        result = ("crash", "the judge stopped while comparing this answer", None)
        started = time.monotonic()
        worker.uses += 1
        self.running[worker.process.pid] = worker.process
        try:
            worker.conn.send((item, student, data))
            loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
            await asyncio.wait_for(readable, self.seconds)
            result = worker.conn.recv()
            if len(worker.students) > 1000:
                worker.students.clear()
            worker.students.add(student)
        except asyncio.TimeoutError:
            result = ("timeout", f"this answer took over {self.seconds:g} s to compare", None)
        except (EOFError, OSError):
            pass  # it died: a crash
        finally:
            took = time.monotonic() - started
            loop.remove_reader(fd)
            self.running.pop(worker.process.pid, None)
            if result[0] in ("timeout", "crash", "toolarge"):
                worker.dead = True  # killed and replaced when given back
                worker.process.kill()
        return Outcome(*result, seconds=took)

    def close(self) -> None:
        """Kill the judging processes (the fork server leaves with the service)."""
        self._closed = True
        for worker in list(self.live):
            worker.process.kill()
