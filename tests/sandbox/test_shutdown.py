"""No sandboxed kernel outlives its grader, however the grader stops.

Each test starts a real grader (``python -m kit.autograde`` or plain ``nbgrader autograde``)
on a small course in a subprocess, waits until a sandboxed kernel of that course is running
(found through ``/proc``: a ``kit.sandbox.wrapper`` wrapper, ``bwrap`` or ``ipykernel`` process whose
command line or working directory lies in the course), sends a signal, and asserts that no
such process is left a few seconds later. Ctrl-C is SIGINT to the grader's process group,
as a terminal sends it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kit.course import Course, copy_course
from kit.intake.submitted import build_submission, lay
from kit.release import release
from tests.integrity.attacks import FIRST, PS, WRONG_H

#: a submission whose first answer cell keeps its kernel busy for a while
SLOW = WRONG_H + "import time\ntime.sleep(9)\n"
#: seconds within which every kernel must be gone after the signal
GONE_WITHIN = 5.0
MARKS = ("kit.sandbox", "bwrap", "ipykernel")


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("shutdown"), [PS])
    assert not release(course, [PS])
    lay(course, PS, "a_quick", build_submission(course, PS, {}))
    for student in ("b_slow", "c_slow"):
        lay(course, PS, student, build_submission(course, PS, {FIRST: SLOW}))
    return course


@pytest.fixture
def course(released, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(released.root, root)
    return Course(root)


def sandbox_processes(root: Path, student: str = "") -> dict[int, int]:
    """``{pid: parent pid}`` of the kernel processes (wrapper, bwrap, kernel) of a course."""
    where = str(root / "autograded" / student) if student else str(root)
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = cmdline(pid)
            cwd = os.readlink(f"/proc/{pid}/cwd")
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if any(m in cmd for m in MARKS) and (where in cmd or cwd.startswith(where)):
            found[int(pid)] = ppid
    return found


def cmdline(pid: int) -> str:
    """The command line of ``pid``; empty once it has exited (a helper process may come and
    go between listing ``/proc`` and reading it)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def start(args, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    # Ctrl-C as in a terminal, even when the tests run where SIGINT is ignored (`&`): a
    # handled signal is reset to its default in the child, an ignored one stays ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen([sys.executable, "-m", *args], cwd=cwd, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)  # its own process group
    finally:
        signal.signal(signal.SIGINT, previous)


def wait_for_kernel(root: Path, proc: subprocess.Popen, student: str = "") -> dict[int, int]:
    """Wait until a sandboxed kernel (ipykernel inside bwrap) of ``student`` runs."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        found = sandbox_processes(root, student)
        kernels = [p for p in found if "ipykernel" in cmdline(p)]
        if kernels:
            time.sleep(1.0)  # let it start running the notebook
            return found
        assert proc.poll() is None, f"the grader stopped before any kernel ran:\n{proc.stdout.read()}"
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("no sandboxed kernel started within 90 s")


def seconds_until_gone(root: Path, since: float, student: str = "") -> float:
    """Seconds from ``since`` (the signal) until no kernel process of the course is left.

    Fails when any is left GONE_WITHIN seconds after the signal.
    """
    start_time = since
    while time.monotonic() - start_time < GONE_WITHIN:
        if not sandbox_processes(root, student):
            seconds = time.monotonic() - start_time
            print(f"kernel processes gone {seconds:.2f} s after the signal")  # shown with -s
            return seconds
        time.sleep(0.05)
    left = sandbox_processes(root, student)
    for pid in left:  # never leave them running for the next test
        os.kill(pid, signal.SIGKILL)
    raise AssertionError(f"kernel processes still running {GONE_WITHIN} s after the signal: {left}")


def finish(proc: subprocess.Popen, timeout: float = 120) -> str:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    return out


def autograde(course: Course, *more: str) -> subprocess.Popen:
    return start(["kit.autograde", PS, "--course", str(course.root), *more], course.root)


def test_ctrl_c_of_kit_autograde_stops_cleanly_and_a_rerun_continues(course):
    proc = autograde(course, "--workers", "1")
    wait_for_kernel(course.root, proc, "b_slow")
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    out = finish(proc, timeout=30)
    assert proc.returncode == 130, out
    seconds_until_gone(course.root, sent)
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    assert "interrupted: 1 submissions graded in this run, 2 not graded" in out, out
    assert f"graded: {PS}: a_quick" in out and f"not graded: {PS}: b_slow, c_slow" in out, out
    again = autograde(course, "--workers", "2")
    out = finish(again)
    assert again.returncode == 0, out
    assert "graded 2 submissions, 0 could not be graded" in out, out
    assert "1 already graded and skipped" in out, out
    assert not sandbox_processes(course.root)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["kill", "kill-9"])
def test_killed_kit_autograde_leaves_no_kernel(course, signum):
    proc = autograde(course, "--workers", "2")
    wait_for_kernel(course.root, proc)
    os.kill(proc.pid, signum)
    sent = time.monotonic()
    finish(proc, timeout=30)
    seconds_until_gone(course.root, sent)


def test_a_dead_worker_fails_only_its_own_submission(course):
    proc = autograde(course, "--workers", "2")
    found = wait_for_kernel(course.root, proc, "b_slow")
    wrapper = next(p for p in found if "kit.sandbox" in cmdline(p))
    os.kill(found[wrapper], signal.SIGKILL)  # the worker grading b_slow, as the OOM killer would
    seconds_until_gone(course.root, time.monotonic(), "b_slow")
    out = finish(proc)
    assert proc.returncode == 0, out
    line = next((x for x in out.splitlines() if f"b_slow / {PS}:" in x), "")
    assert "could not be graded" in line and "the grading process killed by SIGKILL" in line, out
    assert "graded 2 submissions, 1 could not be graded" in out, out
    assert not sandbox_processes(course.root)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=["ctrl-c", "kill", "kill-9"])
def test_stopped_nbgrader_autograde_leaves_no_kernel(course, signum):
    proc = start(["nbgrader", "autograde", PS], course.root)
    wait_for_kernel(course.root, proc)
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    sent = time.monotonic()
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    seconds_until_gone(course.root, sent)


#: A grader that starts the sandbox wrapper the way jupyter_client does (``JPY_PARENT_PID``
#: names it) and dies at once, before the wrapper has finished importing.
DYING_GRADER = """
import json, os, subprocess, sys
work, socket_dir = sys.argv[1], sys.argv[2]
conn = os.path.join(socket_dir, "connection.json")
with open(conn, "w") as fh:
    json.dump({"transport": "ipc", "ip": os.path.join(socket_dir, "k"), "shell_port": 1,
               "iopub_port": 2, "stdin_port": 3, "control_port": 4, "hb_port": 5,
               "key": "", "signature_scheme": "hmac-sha256"}, fh)
env = {**os.environ, "JPY_PARENT_PID": str(os.getpid())}
subprocess.Popen([sys.executable, "-m", "kit.sandbox", "-f", conn], cwd=work, env=env)
os._exit(0)
"""


def test_a_grader_dead_before_its_kernel_starts_leaves_no_kernel(tmp_path):
    """The grader dies while its wrapper is still importing, and nobody reaps it at once (a
    zombie, as under a Dask nanny that is itself busy): the wrapper must not start the kernel.
    Reading the parent's pid after the imports took PID 1 for the grader, and ``kill(pid,
    0)`` took the zombie for alive, so the kernel ran until the wall-clock cap."""
    work, socket_dir = tmp_path / "autograded", tmp_path / "sockets"
    work.mkdir()
    socket_dir.mkdir()
    grader = subprocess.Popen([sys.executable, "-c", DYING_GRADER, str(work), str(socket_dir)],
                              cwd=Path(__file__).resolve().parents[2])
    try:
        deadline = time.monotonic() + 8.0  # a kernel starts within about 2 s here
        while time.monotonic() < deadline:
            time.sleep(0.2)
        left = sandbox_processes(tmp_path)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, f"kernel processes of a dead grader still running: {left}"
    finally:
        grader.wait()  # reaped only now: until here it was a zombie
