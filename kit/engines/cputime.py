"""CPU seconds of process trees: where a grading run spends its CPU (``make bench-scale``).

:func:`tree_seconds` sums a process and every descendant alive: each one's own user and
system time and that of the children it has already reaped (``utime``, ``stime``,
``cutime``, ``cstime`` of ``/proc/<pid>/stat``, read through psutil). A process that ended
counts in its parent's reaped time once its parent waited for it, and so on up the tree;
the difference of two readings is what the tree spent in between, processes that came and
went included. Read it while the tree is quiet (no process ending at that moment): a
process reaped between the reading of its parent and its own is missed or counted twice.

A process whose parent dies first is reparented outside the tree (to PID 1) and its CPU is
lost, e.g. a grading kernel's sandbox killed under its wrapper. ``python -m
kit.engines.cputime [--report FILE] -- COMMAND ...`` runs COMMAND under a *child
subreaper* (``PR_SET_CHILD_SUBREAPER``, Linux): such orphans are reparented to it instead,
and it reaps them, so the tree keeps their CPU. It passes SIGTERM and SIGINT on to COMMAND,
waits until no process of its tree is left, writes the CPU seconds of everything it reaped
to FILE (JSON ``{"cpu_seconds": s, "status": COMMAND's exit status}``) and exits with
COMMAND's status.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys

#: ``prctl`` option that makes the caller a child subreaper (linux/prctl.h).
PR_SET_CHILD_SUBREAPER = 36


def tree_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and its live descendants, each with its reaped children's.

    0.0 when ``pid`` is gone. A descendant that ends while it is read is skipped.
    """
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for proc in procs:
        try:
            t = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def snapshot(kinds: dict[str, list[int]]) -> dict[str, float]:
    """``{kind: CPU seconds}`` of the trees of each kind's pids (:func:`tree_seconds`)."""
    return {kind: sum(tree_seconds(pid) for pid in pids) for kind, pids in kinds.items()}


def machine_seconds() -> float:
    """CPU seconds the whole machine has spent busy so far (every process; ``/proc/stat``).

    A check on :func:`tree_seconds`, which misses what no process of the tree reaps (a
    process that dies unreaped in a pid namespace of its own: every warm kernel did, until
    its init reaped it). Other work on the machine counts too: read it on an idle machine.
    """
    try:
        with open("/proc/stat") as fh:
            fields = [int(v) for v in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def become_subreaper() -> None:
    """Make this process a child subreaper: orphans of its descendants become its children."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def reaped_seconds() -> float:
    """CPU seconds of every child this process has reaped (and of what they reaped)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str], report: str | None = None) -> int:
    """Run ``argv`` as a subreaper's child; reap its whole tree; return its exit status."""
    become_subreaper()
    child = subprocess.Popen(argv)

    def forward(signum, frame):
        try:
            os.kill(child.pid, signum)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    status = None
    while True:
        try:
            pid, code = os.wait()
        except ChildProcessError:  # nothing left of the tree
            break
        if pid == child.pid:
            status = os.waitstatus_to_exitcode(code)
            child.returncode = status  # reaped here: Popen must not wait for it again
    status = 1 if status is None else status
    if report:
        with open(report, "w") as out:
            json.dump({"cpu_seconds": reaped_seconds(), "status": status}, out)
    return status if status >= 0 else 128 - status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.engines.cputime",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--report", default=None, help="JSON file for the CPU seconds")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (-- COMMAND ...)")
    return run(command, args.report)


if __name__ == "__main__":
    sys.exit(main())
