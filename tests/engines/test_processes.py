"""The grading processes of ``kit.autograde`` (:mod:`kit.engines.processes`).

They are forked from a fork server that has imported the grader once; each must still take
the grader's environment, working folder and standard output as they are when it starts
(not as they were when the server started), and stop as soon as its grader is gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from kit.engines.processes import Died, run_jobs

ROOT = Path(__file__).resolve().parents[2]


def _nothing() -> None:
    pass


def _what_the_worker_has(job):
    """What a worker sees of its grader's state, and what it finds already imported."""
    if job == "print":
        os.write(1, b"a line from the worker\n")
    if job == "die":
        os._exit(3)
    return {"job": job, "env": os.environ.get("KPCA_TEST_WORKER_ENV"), "cwd": os.getcwd(),
            "tmp": tempfile.gettempdir(),
            "warm": "nbgrader.api" in sys.modules and "kit.judge.preprocessors" in sys.modules,
            "pid": os.getpid()}


def _run(jobs, n=2):
    return dict(run_jobs(jobs, n, _nothing, (), _what_the_worker_has))


def test_each_run_gives_its_workers_the_graders_environment_and_folder(tmp_path, monkeypatch):
    from kit.engines.processes import stop_fork_server

    # a server started earlier in this process by another user (the check service's judges,
    # tests/checks) runs with that user's preload, not the grader's: this test starts its own
    stop_fork_server()
    first = _run(["a", "b"])  # the fork server starts here, with this environment
    assert {r["env"] for r in first.values()} == {None}
    monkeypatch.setenv("KPCA_TEST_WORKER_ENV", "set after the server started")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    second = _run(["c", "d"])
    assert {r["env"] for r in second.values()} == {"set after the server started"}
    assert {r["cwd"] for r in second.values()} == {str(tmp_path)}
    assert {r["tmp"] for r in second.values()} == {str(tmp_path / "tmp")}
    # warm: forked from the server, which imported the grader (kit.engines.warm)
    assert all(r["warm"] for r in [*first.values(), *second.values()])
    monkeypatch.delenv("KPCA_TEST_WORKER_ENV")
    third = _run(["e"], n=1)
    assert third["e"]["env"] is None, "a worker kept an environment the grader no longer has"


def test_a_workers_output_reaches_the_graders_standard_output(capfd):
    _run(["print"], n=1)
    assert "a line from the worker" in capfd.readouterr().out


def test_a_worker_that_dies_fails_its_job_only_and_is_replaced():
    results = _run(["x", "die", "y", "z"], n=2)
    assert isinstance(results["die"], Died) and "status 3" in results["die"].how
    assert {k for k, v in results.items() if not isinstance(v, Died)} == {"x", "y", "z"}


GRADER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1])
    from kit.engines.processes import run_jobs
    from tests.engines.test_processes import _nothing, _forever
    for _ in run_jobs(["one", "two"], 2, _nothing, (), _forever):
        pass
""")


def _forever(job):
    # one write: print's text and its newline may reach the pipe as two, and the two
    # workers' lines then interleave ("12" "34" "\n" "\n"), which the reader cannot parse
    os.write(1, f"{os.getpid()}\n".encode())
    while True:
        time.sleep(1)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_workers_stop_at_once_when_their_grader_is_killed():
    grader = subprocess.Popen([sys.executable, "-c", GRADER, str(ROOT)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(grader.stdout.readline()) for _ in range(2)]
        assert all(_alive(p) for p in pids)
        grader.send_signal(signal.SIGKILL)
        grader.wait(10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in pids), "a worker outlived its grader"
    finally:
        if grader.poll() is None:
            grader.kill()
        grader.stdout.close()


def _burn(job):
    end = time.process_time() + 0.5
    while time.process_time() < end:
        pass
    return job


def test_stopping_the_fork_server_hands_its_grading_processes_cpu_to_the_grader():
    import resource

    from kit.engines.processes import stop_fork_server

    def reaped() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = reaped()
    assert dict(run_jobs(["a", "b"], 2, _nothing, (), _burn)) == {"a": "a", "b": "b"}
    stop_fork_server()
    assert reaped() - before >= 0.9, "the workers' CPU did not reach the grader"
    stop_fork_server()  # none running: nothing to do
    assert dict(run_jobs(["c"], 1, _nothing, (), _burn)) == {"c": "c"}  # a new one starts


def test_a_fork_server_any_local_user_could_reach_is_never_used(monkeypatch):
    """CVE-2022-42919: where multiprocessing would listen on an abstract socket (no
    permissions: any local user may send it a pickle to run as the grader), the workers and
    the check service's judges are spawned instead."""
    from multiprocessing import connection

    import kit.forkserver
    from kit.checks.judges import Judges

    assert kit.forkserver.private(), "this Python's fork server listens on an abstract socket"
    monkeypatch.setattr(connection, "arbitrary_address", lambda family: "\0listener-abstract")
    assert not kit.forkserver.private()
    assert kit.forkserver.context(["kit.engines.warm"]).get_start_method() == "spawn"
    results = _run(["a"], n=1)
    assert not results["a"]["warm"], "a worker came from the fork server"
    judges = Judges(workers=1, warm=False)
    try:
        assert judges.ctx.get_start_method() == "spawn"
    finally:
        judges.close()
