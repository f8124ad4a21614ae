"""Where a test run's CPU goes, per test file: ``pytest -p tests.support.cpu_profile``.

The suite is bound by the machine's two cores, not by waiting, so wall-clock durations
(``--durations``) say little about what to make cheaper: a test that waits on a kernel looks
as long as one that computes. This plugin charges each test (its set-up, call and tear-down,
so a session fixture is charged to its first user) with the CPU time of the pytest process
and all its descendants: its own, that of the children it has waited for, and that of the
descendants still alive with what each has reaped (read from ``/proc``). A child that exits
and is waited for moves from the third sum to the second, so nothing is counted twice. What
a process re-parented away from the test (a daemon) spends is not seen.

At the end the files that took the most CPU are printed, with their wall time beside; with
``KPCA_CPU_PROFILE=<file>`` every test's figures are also written there as tab-separated lines.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

_TICK = os.sysconf("SC_CLK_TCK")
_charged: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
_rows: list[tuple[str, float, float]] = []


def _children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = defaultdict(list)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        tree[int(fields[1])].append(int(entry.name))
    return tree


def _live_descendants_cpu() -> float:
    tree, total = _children_of(), 0.0
    todo = list(tree.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        # utime, stime, and cutime, cstime: what it reaped (a long-lived descendant, such as
        # the grading processes' fork server, reaps many; when it is reaped itself, all of
        # it moves into this process's children's time, so nothing is counted twice)
        total += sum(int(x) for x in fields[11:15]) / _TICK
    return total


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system + _live_descendants_cpu()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu(), time.monotonic()
    yield
    cpu, wall = max(0.0, _cpu() - cpu), time.monotonic() - wall
    path = item.nodeid.split("::", 1)[0]
    row = _charged[path]
    row[0] += cpu
    row[1] += wall
    row[2] += 1
    _rows.append((item.nodeid, cpu, wall))


def pytest_terminal_summary(terminalreporter):
    total = sum(r[0] for r in _charged.values())
    tr = terminalreporter
    tr.write_sep("=", f"CPU by test file (this process and its children): {total:.0f} CPU s")
    for path, (cpu, wall, n) in sorted(_charged.items(), key=lambda kv: -kv[1][0])[:25]:
        tr.write_line(f"{cpu:8.1f} CPU s {wall:8.1f} s wall {n:5d} tests  {path}")
    out = os.environ.get("KPCA_CPU_PROFILE")
    if out:
        with Path(out).open("a", encoding="utf-8") as f:
            f.writelines(f"{nodeid}\t{cpu:.3f}\t{wall:.3f}\n" for nodeid, cpu, wall in _rows)
