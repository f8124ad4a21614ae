"""Judging one checked answer: the grader's exact comparison and mistake rules, each
judgement in a process of its own.

:func:`read_answer` runs in the service's own loop and costs little whatever it is sent: the
request's size is capped before it is parsed (:data:`MAX_BODY`), the answer's tree is walked
with a node and depth budget (:data:`MAX_PARTS`), and every integer and text in it is
measured (:data:`~kpca_probe.wire_limits.MAX_DIGITS` digits, :data:`MAX_TEXT` characters)
before :func:`kpca_probe.wire.decode` (itself bounded as in the judge) rebuilds it; a float,
an over-long integer or an unreadable value is refused there without using an attempt.

:func:`judge` (the student's key from :mod:`kpca_ref.variants` and
:func:`kpca_ref.grading.harness.judge_exact`, as grading does) runs in a process forked for
that one request (:class:`Judges`) from a fork server that imported the grader and computed
a key of every problem set once (:mod:`kit.checks.warm`), so a judgement starts warm in a
few milliseconds and shares nothing with any other. Its time limit counts from its own
start (waiting for a free judge is not counted), and running out of it kills that process
only: nobody else's judgement is touched. The process also has its own CPU-time and memory
limits, so it ends even if the service is killed. The key never leaves it: only the
verdict's kind and message do.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import threading
import time
from typing import NamedTuple

from kpca_probe.wire_limits import MAX_DIGITS

__all__ = ["MAX_BODY", "MAX_PARTS", "MAX_TEXT", "Judges", "Outcome", "judge", "read_answer"]

#: largest request body read (bytes); honest answers take well under 2 KB
MAX_BODY = 32_768
#: largest answer tree (dicts and lists) walked; honest answers have under 200 parts
MAX_PARTS = 2_000
#: longest text in an answer (a symbol's name, a word); integers: MAX_DIGITS digits
MAX_TEXT = 200
#: memory a judging process may add to what it started with (bytes)
JUDGE_MEMORY = 1 << 30

_NOT_EQUAL = "not equal to the expected exact value"
_NUMBERS = ("i", "Z", "Q")  # the wire's integer fields ({"Q": [p, q]}: two of them)


class Outcome(NamedTuple):
    """What became of one judgement: ``kind`` is right, wrong, mistake or form (judged),
    timeout or toolarge (it cost too much: the student's doing), crash or error (the
    judge failed); ``seconds`` is the judging time, waiting excluded."""

    kind: str
    message: str
    code: str | None = None
    seconds: float = 0.0


def _integer_text(text, key: str) -> None:
    if not isinstance(text, str) or len(text.lstrip("+-").strip()) > MAX_DIGITS:
        raise ValueError(f"an integer of more than {MAX_DIGITS} digits" if isinstance(
            text, str) else f"{key!r} holds no integer")


def _parts(data, budget: list[int], depth: int = 0) -> None:
    """Walks ``data`` with a node budget; raises ValueError naming what is too large."""
    if depth > 40:
        raise ValueError("nested too deeply")
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"more than {MAX_PARTS} parts")
    if isinstance(data, dict):
        for key, value in data.items():
            if len(key) > MAX_TEXT:
                raise ValueError(f"a name of more than {MAX_TEXT} characters")
            if key in _NUMBERS:
                for text in (value if key == "Q" and isinstance(value, list) else [value])[:2]:
                    _integer_text(text, key)
            _parts(value, budget, depth + 1)
    elif isinstance(data, list):
        for value in data:
            _parts(value, budget, depth + 1)
    elif isinstance(data, str) and len(data) > max(MAX_TEXT, MAX_DIGITS + 1):
        raise ValueError(f"a text of more than {MAX_TEXT} characters")
    elif isinstance(data, int) and not isinstance(data, bool) and (
            data.bit_length() > MAX_DIGITS * 3.33):
        raise ValueError(f"an integer of more than {MAX_DIGITS} digits")


def read_answer(data):
    """``(value, None)`` for an answer worth judging, else ``(None, why not)``.

    >>> read_answer({"Q": ["1", "3"]})[0], read_answer({"f": 0.5})[1]
    (1/3, 'not exact: exact value expected, got a float')
    >>> read_answer({"i": "7" * 2000})[1]
    'this answer is too large to check (an integer of more than 1000 digits)'
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
    symbol = _a_symbol(value)
    if symbol is not None:  # no key holds one: such an answer is never right
        return None, (f"not exact: it holds the symbol {symbol[:40]!r}, and an exact answer "
                      "is made of numbers")
    return value, None


def _a_symbol(value) -> str | None:
    """The name of a free symbol somewhere in ``value``, else None."""
    if isinstance(value, (list, tuple)):
        return next((s for s in map(_a_symbol, value) if s is not None), None)
    symbols = getattr(value, "free_symbols", None)
    return min(str(s) for s in symbols) if symbols else None


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


def warm_up() -> None:
    """Import the grader and compute a key of every problem set (for a made-up student), so
    that processes forked afterwards judge warm (:mod:`kit.checks.warm`)."""
    from kpca_ref import variants
    from kpca_ref.grading import harness  # noqa: F401

    for ps in variants.PROBLEM_SETS:  # the first key of a problem set is the costly one
        for item in list(getattr(variants.module(ps), "ITEMS", {}))[:1]:
            try:
                variants.answer(item, "kpca-check-warm-up")
            except Exception:  # noqa: BLE001, S112 - a key that cannot be drawn is not warmed
                continue


def _limit_self(seconds: float, memory: int) -> None:
    """This process's own limits: it dies with its parent, the fork server (which leaves
    when the service is gone, even killed), it has CPU time a little over ``seconds`` and
    ``memory`` bytes more than it has now."""
    import ctypes
    import os
    import resource
    import signal

    try:  # killed with the fork server, which leaves with the service (even killed)
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the CPU limit still ends it
        pass
    try:  # a forked process holds the fork server's life line, which would keep it (and so
        # this process) alive after the service: this one starts no process, so it lets go
        from multiprocessing import forkserver

        os.close(forkserver._forkserver._forkserver_alive_fd)
    except (AttributeError, OSError, TypeError):
        pass
    cpu = math.ceil(seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        want = size + memory
        if hard == resource.RLIM_INFINITY or want < hard:
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (OSError, ValueError):  # no /proc: the CPU limit still holds
        pass


def _child(conn, item: str, student: str, data, seconds: float, memory: int) -> None:
    """The judging process of one request: judge, send the verdict, leave."""
    _limit_self(seconds, memory)
    try:
        result = judge(item, student, data)
    except (MemoryError, RecursionError, OverflowError) as exc:
        result = ("toolarge", f"this answer is too large to compare ({type(exc).__name__})",
                  None)
    except Exception as exc:  # noqa: BLE001 - reported as the judge's failure, not a verdict
        result = ("error", f"the judge failed on this answer ({type(exc).__name__})", None)
    conn.send(result)
    conn.close()


def _ready() -> None:
    """A process that does nothing: its start tells that the fork server is warm."""


class Judges:
    """Judgements of the check service, each in a process forked for it, ``workers`` at
    once; one over ``seconds`` of its own judging time is killed, alone. ``warm``: the fork
    server draws a key of each problem set first (seconds at start, about 0.25 s less per
    check); else it imports the grader only."""

    def __init__(self, workers: int = 4, seconds: float = 5.0, memory: int = JUDGE_MEMORY,
                 warm: bool = True):
        self.workers, self.seconds, self.memory = workers, seconds, memory
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["kit.checks.warm"] if warm else [
            "kit.checks.judging", "kpca_ref.grading.harness"])
        self.running: dict[int, multiprocessing.process.BaseProcess] = {}
        self.ready = threading.Event()
        self._slots: asyncio.Semaphore | None = None
        threading.Thread(target=self._warm, daemon=True).start()

    def _warm(self) -> None:
        """Start the fork server (it imports the grader and draws keys: seconds), once."""
        try:
            process = self.ctx.Process(target=_ready, daemon=True)
            process.start()
            process.join(120)
        finally:
            self.ready.set()

    async def slot(self, wait: float) -> bool:
        """Take one of the ``workers`` judging slots, waiting at most ``wait`` seconds
        (after the fork server is up); False when none came free in time."""
        warmed = time.monotonic() + 180
        while not self.ready.is_set() and time.monotonic() < warmed:
            await asyncio.sleep(0.1)
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
        try:
            await asyncio.wait_for(self._slots.acquire(), wait)
        except asyncio.TimeoutError:
            return False
        return True

    def release(self) -> None:
        """Give back a slot taken with :meth:`slot`."""
        self._slots.release()

    async def judge(self, item: str, student: str, data) -> Outcome:
        """The outcome of ``data`` for ``student`` (call it holding a slot)."""
        loop = asyncio.get_running_loop()
        reader, writer = self.ctx.Pipe(duplex=False)
        process = self.ctx.Process(target=_child, daemon=True, args=(
            writer, item, student, data, self.seconds, self.memory))
        try:
            await loop.run_in_executor(None, process.start)
        except Exception as exc:  # noqa: BLE001 - no process: no judgement, said so
            reader.close()
            writer.close()
            return Outcome("error", f"the judge could not start ({type(exc).__name__})")
        started = time.monotonic()
        writer.close()  # the child holds the only writing end: its death is our EOF
        self.running[process.pid] = process
        readable = loop.create_future()
        loop.add_reader(reader.fileno(), lambda: readable.done() or readable.set_result(None))
        try:
            await asyncio.wait_for(readable, self.seconds)
            result = reader.recv()
        except asyncio.TimeoutError:
            result = ("timeout", f"this answer took over {self.seconds:g} s to compare", None)
        except (EOFError, OSError):
            result = ("crash", "the judge stopped while comparing this answer", None)
        finally:
            took = time.monotonic() - started
            loop.remove_reader(reader.fileno())
            reader.close()
            if not readable.done():  # out of time (or the service is stopping): kill it
                process.kill()
            await loop.run_in_executor(None, process.join, 5)
            if process.exitcode is None:  # sent its verdict but did not leave
                process.kill()
            self.running.pop(process.pid, None)
        return Outcome(*result, seconds=took)

    def close(self) -> None:
        """Kill the judgements under way (the fork server leaves with the service)."""
        for process in list(self.running.values()):
            process.kill()
        self.running.clear()
