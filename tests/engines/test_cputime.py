"""CPU seconds of process trees (kit.engines.cputime): live descendants, reaped ones, orphans."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import time

import psutil

from kit.engines import cputime

#: A child that burns ``seconds`` of CPU, then sleeps (``argv[1]``: seconds).
SPIN = ("import sys, time\nt = time.process_time()\n"
        "while time.process_time() - t < float(sys.argv[1]): pass\n"
        "time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0)\n")


def _launcher(tmp_path, command: list[str]) -> tuple[subprocess.Popen, object]:
    report = tmp_path / "report.json"
    proc = subprocess.Popen([sys.executable, "-m", "kit.engines.cputime", "--report",
                             str(report), "--", *command])
    return proc, report


def test_tree_seconds_counts_a_live_grandchild():
    # sh -> python: the grandchild's CPU counts while it is alive, before anyone reaps it
    shell = subprocess.Popen(["sh", "-c", f'{sys.executable} -c "$0" 0.4 30', SPIN])
    try:
        deadline = time.monotonic() + 20
        while cputime.tree_seconds(shell.pid) < 0.35 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert cputime.tree_seconds(shell.pid) >= 0.35
        assert cputime.snapshot({"shell": [shell.pid]})["shell"] >= 0.35
    finally:
        for child in psutil.Process(shell.pid).children(recursive=True):
            child.kill()
        shell.kill()
        shell.wait()


def test_tree_seconds_of_a_process_that_is_gone():
    proc = subprocess.Popen(["true"])
    proc.wait()
    assert cputime.tree_seconds(proc.pid) == 0.0


def test_the_launcher_keeps_an_orphans_cpu(tmp_path):
    # the subshell exits at once: its busy child is orphaned while it computes
    command = ["sh", "-c", f'({sys.executable} -c "$0" 0.4 &) ; exit 3', SPIN]
    proc, report = _launcher(tmp_path, command)
    assert proc.wait(30) == 3
    assert json.loads(report.read_text())["cpu_seconds"] >= 0.35

    # the same command without the launcher: the orphan's CPU reaches nobody here
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=False)
    time.sleep(1.0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 0.2


def test_the_launcher_passes_sigterm_on(tmp_path):
    proc, report = _launcher(tmp_path, [sys.executable, "-c", SPIN, "0.3", "60"])
    deadline = time.monotonic() + 20  # the child has spun (its sleep is what SIGTERM ends)
    while (sum(cputime.tree_seconds(c.pid) for c in psutil.Process(proc.pid).children()) < 0.3
           and time.monotonic() < deadline):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 128 + signal.SIGTERM
    data = json.loads(report.read_text())
    assert data["status"] == -signal.SIGTERM and data["cpu_seconds"] >= 0.29


def test_the_launcher_needs_a_command(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "kit.engines.cputime", "--"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and "no command given" in proc.stderr


def test_the_machines_busy_time_counts_what_any_process_spends():
    before = cputime.machine_seconds()
    start = time.process_time()
    while time.process_time() - start < 0.3:  # this process's own CPU, no child of anyone's
        pass
    assert cputime.machine_seconds() - before >= 0.25
