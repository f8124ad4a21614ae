"""Judging one checked answer: the grader's exact comparison and mistake rules, bounded.

:func:`read_answer` runs in the service's own loop and costs little whatever it is sent: the
request's size is capped before it is parsed (:data:`MAX_BODY`), the answer's tree is walked
with a node and depth budget (:data:`MAX_PARTS`) before :func:`kpca_probe.wire.decode`
(itself bounded as in the judge) rebuilds it, and a float or unreadable value is refused
there without using an attempt. :func:`judge` runs in a judging process
(:class:`Judges`): the student's key from :mod:`kpca_ref.variants` and
:func:`kpca_ref.grading.harness.judge_exact`, as grading does. The key never leaves it:
only the verdict's kind and message do.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing

__all__ = ["MAX_BODY", "MAX_PARTS", "Judges", "judge", "read_answer"]

#: largest request body read (bytes); honest answers take well under 2 KB
MAX_BODY = 32_768
#: largest answer tree (dicts and lists) walked; honest answers have under 200 parts
MAX_PARTS = 2_000

_NOT_EQUAL = "not equal to the expected exact value"


def _parts(data, budget: list[int], depth: int = 0) -> None:
    if depth > 40:
        raise ValueError("nested too deeply")
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"more than {MAX_PARTS} parts")
    if isinstance(data, dict):
        for value in data.values():
            _parts(value, budget, depth + 1)
    elif isinstance(data, list):
        for value in data:
            _parts(value, budget, depth + 1)


def read_answer(data):
    """``(value, None)`` for an answer worth judging, else ``(None, why not)``.

    >>> read_answer({"Q": ["1", "3"]})[0], read_answer({"f": 0.5})[1]
    (1/3, 'not exact: exact value expected, got a float')
    """
    from kpca_probe.wire import decode
    from kpca_ref.grading.compare_exact import FloatNotExact, as_exact

    try:
        _parts(data, [MAX_PARTS])
    except (ValueError, RecursionError) as exc:
        return None, f"this answer is too large to check ({exc})"
    value = decode(data)
    try:
        as_exact(value)
    except FloatNotExact:
        return None, "not exact: exact value expected, got a float"
    except (AssertionError, TypeError, ValueError) as exc:
        return None, f"not exact: {' '.join(str(exc).split())[:200]}"
    return value, None


def judge(item: str, student: str, data) -> tuple[str, str, str | None]:
    """``(kind, message, diagnosis code)`` of the answer ``data`` (wire format, read by
    :func:`read_answer` first); kind is right, wrong, mistake or form."""
    from kpca_probe.wire import decode
    from kpca_ref.grading import harness
    from kpca_ref.grading.answers import mistaken_values

    value = decode(data)
    with harness._silenced():
        verdict = harness.judge_exact(item, value, student)
    if verdict.ok:
        return "right", "right: this is the exact answer on your numbers", None
    named = {code for code, _, _ in mistaken_values(item, student)}
    if verdict.code in named:
        return "mistake", f"not right: {verdict.message}", verdict.code
    if verdict.code is None and verdict.message == _NOT_EQUAL:
        return "wrong", "not right: not equal to the exact answer on your numbers", None
    return "form", f"not checked: {verdict.message}", verdict.code


def _leave_with(service: int) -> None:
    """End this judging process once ``service`` (the pid of the service that started it)
    is no longer its parent: the service is gone, even killed."""
    import os
    import time

    while os.getppid() == service:
        time.sleep(1.0)
    os._exit(0)


def _warm(service: int | None = None) -> None:
    """Import the grader once per judging process (seconds), before any timed judgement.
    As the process's initializer (``service`` given), it first starts watching the service,
    and the process leaves when the service is gone (even killed, even before this ran)."""
    import os
    import threading

    if service is not None:
        if os.getppid() != service:
            os._exit(0)
        threading.Thread(target=_leave_with, args=(service,), daemon=True).start()
    from kpca_ref.grading import harness  # noqa: F401


class Judges:
    """A pool of judging processes; a judgement over ``seconds`` is abandoned."""

    def __init__(self, workers: int = 2, seconds: float = 5.0):
        self.workers, self.seconds = workers, seconds
        self.pool = self._start()

    def _start(self):
        import os

        pool = cf.ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(
            "spawn"), initializer=_warm, initargs=(os.getpid(),))
        self.warming = [pool.submit(_warm) for _ in range(self.workers)]
        return pool

    async def judge(self, item: str, student: str, data) -> tuple[str, str, str | None]:
        import asyncio

        for started in self.warming:  # the time limit counts the judgement, not the start
            await asyncio.wrap_future(started)
        future = self.pool.submit(judge, item, student, data)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.seconds)
        except asyncio.TimeoutError:
            self._restart()
            return "timeout", (f"not checked: this answer took over {self.seconds:g} s to "
                               "compare; simplify it (an exact answer is a short expression)"), None
        except cf.process.BrokenProcessPool:
            self._restart()
            return "timeout", "not checked: the judge restarted; check again", None

    def _restart(self) -> None:
        old = self.pool
        self.pool = self._start()
        for process in list(getattr(old, "_processes", {}).values()):
            process.kill()
        old.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the judging processes now (a judgement under way is abandoned)."""
        workers = list((getattr(self.pool, "_processes", None) or {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            process.kill()
        for process in workers:
            process.join(5)
