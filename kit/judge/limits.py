"""The judge under a time and memory limit: no answer can stall the grader.

``kit.judge.preprocessors.JudgeHiddenTests`` scores a notebook's test cells in the grader's own process,
outside every sandbox limit. An exact answer that passes the visible checks can still be
made to cost hours there (a gigantic expression for ``simplify``, a power with a huge
exponent). :func:`run_bounded` runs the judging of one notebook in a forked child process:

- under ``RLIMIT_AS`` (the grader's address space plus :data:`LIMITS` ``memory_mb``);
- each test cell within ``cell_seconds`` of wall clock, the whole notebook within
  ``notebook_seconds`` (and, should the grader die, ``RLIMIT_CPU`` and ``PR_SET_PDEATHSIG``
  stop the child on their own).

The child sends each cell's score and rewritten outputs back through a pipe as soon as it
is judged. A cell whose judging runs over (or runs out of memory, or kills the child) scores
0 with a line saying why; the cells after it are judged in a fresh child, within what is
left of the notebook's time. So one submission delays the class by at most
``notebook_seconds``. ``KPCA_JUDGE_CELL_SECONDS``, ``KPCA_JUDGE_NOTEBOOK_SECONDS`` and
``KPCA_JUDGE_MEMORY_MB`` override the limits.

A module of :data:`WARM_PACKAGES` that a child imports on first use is imported by the grader
afterwards (:func:`_learn_imports`), so that the next notebook's child inherits it.
"""

from __future__ import annotations

import gc
import importlib
import os
import pickle
import re
import resource
import select
import signal
import struct
import sys
import time
import warnings

from nbformat import from_dict

#: Default limits (environment variables ``KPCA_JUDGE_<NAME>`` override them).
LIMITS = {"cell_seconds": 30, "notebook_seconds": 120, "memory_mb": 2048}

OVER = "✗ this test could not be judged: {why}; it earns nothing (please tell your instructor)"


#: Packages whose modules the judging imports on first use (sympy's ``simplify`` imports
#: ``sympy.physics.units``, ps0's cap fraction ``scipy.special``): 0.1 to 0.3 CPU s each time a
#: child imports one. Once a child has, the grader imports it too (:func:`_learn_imports`), so
#: the next notebook's child inherits it instead of importing it again.
WARM_PACKAGES = frozenset({"numpy", "scipy", "sympy", "kpca_ref"})
#: at most this many modules are learned by one grading process (scipy.special brings 130)
MAX_LEARNED = 1000
_LEARNED: set[str] = set()
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def limit(name: str) -> float:
    """The limit ``name`` of :data:`LIMITS`, or its ``KPCA_JUDGE_*`` override."""
    return float(os.environ.get(f"KPCA_JUDGE_{name.upper()}", LIMITS[name]))


def over_limit(cell, why: str) -> None:
    """Rewrite a test cell whose judging did not finish: the grader's notes and the visible
    checks' error as the judge would keep them (nothing the student's code printed), a line
    saying why, and 0."""
    from kit.judge.cells import grader_notes, visible_error

    kept = grader_notes(cell) + [visible_error(out, cell.source) for out in cell.get(
        "outputs", []) if out.get("output_type") == "error"][:1]  # as the judge keeps them
    kept.append({"output_type": "stream", "name": "stdout", "text": OVER.format(why=why) + "\n"})
    kept.append({"output_type": "execute_result", "execution_count": cell.get("execution_count"),
                 "metadata": {}, "data": {"text/plain": "0.0"}})
    cell.outputs = [from_dict(o) for o in kept]


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) << 10
    except OSError:
        pass
    return 0


def _die_with_parent() -> None:
    """Linux: SIGKILL this child when the grader dies (``PR_SET_PDEATHSIG``)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _imported_since(before: set) -> list[str]:
    """Modules of :data:`WARM_PACKAGES` imported since ``before`` (names of ``sys.modules``)."""
    return sorted(m for m in list(sys.modules)
                  if m not in before and m.partition(".")[0] in WARM_PACKAGES)


def _learn_imports(names) -> None:
    """Import into the grader the modules a judge child imported (see :data:`WARM_PACKAGES`).

    Only names of those packages that look like module names are imported, parents first; a
    module that fails to import here is left alone (its child imported it, it will again).
    """
    names = sorted({n for n in names if isinstance(n, str) and _MODULE_NAME.fullmatch(n)
                    and n.partition(".")[0] in WARM_PACKAGES and n not in sys.modules})
    names = names[:max(0, MAX_LEARNED - len(_LEARNED))]  # a bound on what one grader takes
    _LEARNED.update(names)
    with warnings.catch_warnings():  # numpy.core and the like warn on import
        warnings.simplefilter("ignore")
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001, S112 - a warm-up only
                continue


def _child(jobs, start: int, fd: int) -> None:
    """In the forked child: judge ``jobs[start:]``, one framed pickle per cell, then exit.

    Each cell's pickle is ``(status, outputs, modules)``: ``modules`` are those of
    :data:`WARM_PACKAGES` the child has imported so far."""
    before = set(sys.modules)
    try:
        # what the grader holds is never garbage here: leaving it out of the collector keeps
        # each collection from touching (and so copying) every page of the grader's heap
        gc.freeze()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
        _die_with_parent()
        cap = _vm_bytes() + (int(limit("memory_mb")) << 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        cpu = int(limit("notebook_seconds")) + 1  # a backstop should the grader be gone
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        for cell, judge in jobs[start:]:
            try:
                judge(cell)
                result = ("ok", [dict(o) for o in cell.outputs], _imported_since(before))
            except MemoryError:
                result = ("memory", None, [])
            data = pickle.dumps(result)
            os.write(fd, struct.pack("!Q", len(data)))
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
    finally:
        os._exit(0)  # never run the grader's atexit handlers (they would stop its kernel)


def _read(fd: int, n: int, deadline: float) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([fd], [], [], wait)[0]:
            return None
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return b"" if not got else None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _start(jobs, start: int):
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(jobs, start, write_fd)
    os.close(write_fd)
    return pid, read_fd


def _stop(pid: int, fd: int) -> None:
    os.close(fd)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def run_bounded(jobs) -> None:
    """Judge every ``(cell, judge)`` of a notebook in forked children, within the limits.

    ``judge(cell)`` rewrites the cell's outputs (``kit.judge.score.judge_cell``); here it runs in a
    child, and the outputs it wrote are copied back into ``cell``.
    """
    jobs = list(jobs)
    cell_seconds, notebook_seconds = limit("cell_seconds"), limit("notebook_seconds")
    notebook_deadline = time.monotonic() + notebook_seconds
    learned: set[str] = set()
    _judge_all(jobs, cell_seconds, notebook_seconds, notebook_deadline, learned)
    _learn_imports(learned)


def _judge_all(jobs, cell_seconds, notebook_seconds, notebook_deadline, learned) -> None:
    done = 0
    while done < len(jobs):
        if time.monotonic() >= notebook_deadline:
            for cell, _ in jobs[done:]:
                over_limit(cell, f"judging this notebook took over {notebook_seconds:g} s")
            return
        pid, fd = _start(jobs, done)
        try:
            while done < len(jobs):
                cell = jobs[done][0]
                deadline = min(time.monotonic() + cell_seconds, notebook_deadline)
                head = _read(fd, 8, deadline)
                data = _read(fd, struct.unpack("!Q", head)[0], deadline) if head else head
                if not data:
                    why = ("judging this answer took over "
                           f"{min(cell_seconds, notebook_seconds):g} s" if data is None
                           else "judging this answer stopped the judge")
                    over_limit(cell, why)
                    done += 1
                    break
                status, outputs, modules = pickle.loads(data)  # our own child's data
                learned.update(modules)
                if status == "memory":
                    over_limit(cell, f"judging this answer needed over {limit('memory_mb'):g} MB")
                else:
                    cell.outputs = [from_dict(o) for o in outputs]
                done += 1
        finally:
            _stop(pid, fd)
