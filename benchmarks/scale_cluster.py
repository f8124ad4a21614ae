"""Processes of ``benchmarks/bench_scale.py``, each under CPU accounting (kit.engines.cputime).

- :func:`grade_locally`: ``kit.autograde``'s local grading of a course, in a process of its
  own, with its grading processes and their sandboxed kernels;
- :class:`Cluster`: a Dask scheduler and N workers started as ``dask scheduler`` and
  ``dask worker`` would be on a real cluster, each its own process tree; every worker has
  its own temporary root (``TMPDIR``: its course copy, kernel sockets), Jupyter runtime
  folder (connection files), working and local directory, sharing no folder with the
  client or the other workers.

Each runs under ``python -m kit.engines.cputime``, a child subreaper, so that a kernel
orphaned by its sandbox's wrapper still counts in its tree's CPU.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from kit.engines import cputime

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

#: Run in the local grading process: grade the course, write the outcomes as JSON.
LOCAL = """
import json, sys
from pathlib import Path
from kit.autograde import grade_class
from kit.course import Course
root, out, workers, *ps = sys.argv[1:]
outcomes = grade_class(Course(Path(root)), ps, workers=int(workers), progress=False)
Path(out).write_text(json.dumps([[o.student, o.assignment, o.status, o.scores] for o in outcomes]))
"""


def _env(**extra) -> dict:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}",
                DASK_LOGGING__DISTRIBUTED="error", **extra)


def _launch(command: list[str], report: Path, log: Path, **popen) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "kit.engines.cputime", "--report", str(report), "--", *command],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **popen)


def grade_locally(course_root: Path, assignments, processes: int, folder: Path):
    """Grade the course locally; ``(wall s, CPU s of the whole tree, the machine's busy CPU s
    over the run, outcomes)``."""
    out, report = folder / "local.json", folder / "local-cpu.json"
    start, machine = time.perf_counter(), cputime.machine_seconds()
    proc = _launch([sys.executable, "-c", LOCAL, str(course_root), str(out), str(processes),
                    *assignments], report, folder / "local.log", env=_env(), cwd=folder)
    if proc.wait() != 0:
        raise RuntimeError("local grading failed: " + (folder / "local.log").read_text()[-2000:])
    wall, machine = time.perf_counter() - start, cputime.machine_seconds() - machine
    outcomes = [tuple(o[:3]) + (o[3],) for o in json.loads(out.read_text())]
    return wall, json.loads(report.read_text())["cpu_seconds"], machine, outcomes


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """``dask scheduler`` and ``workers`` one-thread ``dask worker`` processes on this machine."""

    def __init__(self, folder: Path):
        """Start the scheduler and wait until it listens; :meth:`add_workers` adds workers."""
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        port = _free_port()
        self.address = f"tcp://127.0.0.1:{port}"
        self.procs: dict[str, list[subprocess.Popen]] = {"scheduler": [], "workers": []}
        self.reports: dict[str, list[Path]] = {"scheduler": [], "workers": []}
        self._start("scheduler", [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--no-dashboard"], folder, _env())
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.procs["scheduler"][0].poll() is not None:
                    self.stop()
                    raise RuntimeError(f"the Dask scheduler did not start; see {folder}/scheduler0.log") from None
                time.sleep(0.2)

    def add_workers(self, workers: int) -> None:
        """Start ``workers`` one-thread workers, each in its own folder; wait for them."""
        for i in range(workers):
            own = self.folder / f"worker{i}"  # its own folders, nothing shared
            (own / "tmp").mkdir(parents=True)
            self._start("workers", [str(BIN / "dask"), "worker", self.address, "--nthreads", "1",
                                    "--nworkers", "1", "--name", f"w{i}", "--no-dashboard",
                                    "--local-directory", str(own / "dask")],
                        own, _env(TMPDIR=str(own / "tmp"),
                                  JUPYTER_RUNTIME_DIR=str(own / "runtime")))
        self._wait(workers)

    def _start(self, kind: str, command: list[str], cwd: Path, env: dict) -> None:
        n = len(self.procs[kind])
        report = self.folder / f"{kind}{n}-cpu.json"
        self.procs[kind].append(_launch(command, report, self.folder / f"{kind}{n}.log",
                                        env=env, cwd=cwd))
        self.reports[kind].append(report)

    def _wait(self, workers: int, timeout: float = 120) -> None:
        from distributed import Client

        deadline = time.monotonic() + timeout
        while True:  # the scheduler may not listen yet
            try:
                with Client(self.address, timeout="5s") as client:
                    client.wait_for_workers(workers, timeout=max(1, deadline - time.monotonic()))
                return
            except (OSError, TimeoutError):
                if time.monotonic() > deadline or any(
                        p.poll() is not None for ps in self.procs.values() for p in ps):
                    self.stop()
                    raise RuntimeError("the Dask cluster did not start; see "
                                       f"{self.folder}/*.log") from None
                time.sleep(0.5)

    def pids(self) -> dict[str, list[int]]:
        return {kind: [p.pid for p in procs] for kind, procs in self.procs.items()}

    def snapshot(self) -> dict[str, float]:
        """CPU seconds of each kind's trees so far (read while the cluster is idle)."""
        return cputime.snapshot(self.pids())

    def stop(self, grace: float = 30) -> dict[str, float]:
        """Stop the workers, then the scheduler; ``{kind: CPU s of its whole life}``."""
        totals = {}
        for kind in ("workers", "scheduler"):
            for proc in self.procs[kind]:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for proc in self.procs[kind]:
                try:
                    proc.wait(grace)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            totals[kind] = sum(json.loads(r.read_text())["cpu_seconds"]
                               for r in self.reports[kind] if r.exists())
        return totals
