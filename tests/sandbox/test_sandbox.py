"""Adversarial submissions graded through the real pipeline, inside the kpca-sandbox kernel.

Each attack is a submission built from the release with one answer cell replaced. Where an
attack, if it worked, would hand the student an answer (the instructor's solution, a hidden
test, another student's work, a network reply), the cell uses that answer only when it got
it, and otherwise sets a wrong exact value: its score says whether the attack worked.
The whole catalogue is graded by plain ``nbgrader autograde`` in the course directory (one
kernel at a time); the attacks that could profit from kernels running side by side (the
file system, the gradebook, other students, a fork bomb next to an honest kernel) are graded
again by ``kit.autograde.grade_class`` on two processes. Both must finish, give each student
the expected score and leave the course directory and the gradebook's cells as they were.

The hidden tests are judged outside the kernel (kit/judge/preprocessors.py), so the kernel needs nothing of
the reference: ``kpca_ref`` is neither importable nor readable inside the sandbox.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from kit.autograde import grade_class
from kit.course import REPO_ROOT, copy_course
from kit.intake.submitted import build_submission, lay
from kit.release import release
from kit.sandbox import kernelenv
from kit.sandbox import wrapper as sandbox

PS = "ps1_circle_lift"
FULL = 23.0  # auto-graded points of ps1
SHARES = 2.0  # points of variances_three_test
WRONG = "variances_three = Matrix([Rational(1000), Rational(1)])"  # nobody's variances
RIGHT = ("variances_three = Matrix(sorted((lambda P: ((P - sympy.ones(3, 1) * (sympy.ones(1, 3)"
         " * P) / 3).T * (P - sympy.ones(3, 1) * (sympy.ones(1, 3) * P) / 3) / 3))("
         "Matrix.vstack(N.P1, N.P2, N.P3)).eigenvals(multiple=True), reverse=True))")

pytestmark = pytest.mark.skipif(sandbox.unavailable() != "", reason="bubblewrap unavailable")


def _leak(attempt: str) -> str:
    """An answer cell that earns the variances_three points only if ``attempt`` succeeds."""
    return (
        "from pathlib import Path\n"
        "ROOT = Path.cwd().parents[2]\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in attempt.strip().splitlines())
        + f"    {RIGHT}\n    print('LEAKED')\n"
        "except Exception as exc:\n"
        f"    print('blocked:', type(exc).__name__)\n    {WRONG}\n"
    )


def attacks(port: int) -> dict[str, tuple[str, str, float]]:
    """student -> (answer cell, its source, auto score the student must get)."""
    return {
        "read_source": ("variances_three_answer", _leak(
            f"text = (ROOT / 'source' / '{PS}' / '{PS}.ipynb').read_text()\n"
            "assert 'BEGIN SOLUTION' in text"), FULL - SHARES),
        "read_gradebook": ("variances_three_answer", _leak(
            "import sqlite3\n"
            "db = sqlite3.connect(f'file:{ROOT / \"gradebook.db\"}?mode=ro', uri=True)\n"
            "assert db.execute('select source from source_cell').fetchall()"), FULL - SHARES),
        "read_other_student": ("variances_three_answer", _leak(
            f"text = (ROOT / 'submitted' / 'z_after_correct' / '{PS}' / '{PS}.ipynb').read_text()\n"
            "assert 'variances_three' in text"), FULL - SHARES),
        "network": ("variances_three_answer", _leak(
            "import socket\n"
            f"conn = socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
            "assert conn.recv(100) == b'answer'"), FULL - SHARES),
        "write_outside": ("lift_dot_u_answer", (
            "import os\nfrom pathlib import Path\n"
            "ROOT = Path.cwd().parents[2]\n"
            "targets = [ROOT / 'source' / 'ps1_circle_lift' / 'ps1_circle_lift.ipynb',\n"
            "           ROOT / 'gradebook.db', ROOT / 'nbgrader_config.py', ROOT / 'pwned.txt',\n"
            "           ROOT / 'submitted' / 'z_after_wrong' / 'ps1_circle_lift' / 'ps1_circle_lift.ipynb',\n"
            "           ROOT / 'release' / 'ps1_circle_lift' / 'pwned.txt', Path('/tmp/kpca_pwned.txt')]\n"
            "for t in targets:\n"
            "    try:\n"
            "        with open(t, 'a') as fh:\n"
            "            fh.write('pwned')\n"
            "        print('wrote', t)\n"
            "    except OSError as exc:\n"
            "        print('blocked:', type(exc).__name__)\n"
            "try:  # swap the own notebook for a link the grader would later write through\n"
            "    os.replace('ps1_circle_lift.ipynb', 'old.ipynb')\n"
            "    os.symlink(targets[0], 'ps1_circle_lift.ipynb')\n"
            "    print('wrote link')\n"
            "except OSError as exc:\n"
            "    print('blocked:', type(exc).__name__)\n"
            "Path('own_folder.txt').write_text('fine')\n"
            "print('own folder:', Path('own_folder.txt').read_text())\n"
            "lift_dot_u = phi_Q.dot(u_circle)\n"
        ), FULL),
        "a1_write_gradebook": ("variances_three_answer", _leak(
            "import sqlite3\n"
            "db = sqlite3.connect(ROOT / 'gradebook.db')\n"
            "db.execute(\"update source_cell set source = 'print(1)'\")\n"
            "db.execute(\"update grade_cells set max_score = 99\")\n"
            "db.commit()\n"
            "raise RuntimeError('only the tampering, no answer')"), FULL - SHARES),
        "sys_exit": ("lift_dot_u_answer", "import sys\nsys.exit(0)", FULL - 1),
        "keyboard_interrupt": ("lift_dot_u_answer", "raise KeyboardInterrupt", FULL - 1),
        "infinite_loop": ("lift_dot_u_answer", "while True:\n    pass", FULL - 1),
        "memory_bomb": ("recover_circle_answer", (
            "blob = []\n"
            "while True:\n"
            "    blob.append(b'x' * (64 << 20))\n"), FULL - 5),
        "fork_bomb": ("recover_circle_answer", (
            "import os, time\n"
            "failures = 0\n"
            "while failures < 200:\n"
            "    try:\n"
            "        if os.fork() == 0:\n"
            "            while True:\n"
            "                try:\n"
            "                    os.fork()\n"
            "                except OSError:\n"
            "                    time.sleep(0.05)\n"
            "    except OSError:\n"
            "        failures += 1\n"
            "        time.sleep(0.01)\n"
            "print('fork failed', failures, 'times')\n"), FULL - 5),
        "z_after_wrong": ("variances_three_answer", WRONG, FULL - SHARES),
        "z_after_correct": ("variances_three_answer", RIGHT, FULL),
    }


DIES = {"os_exit": ("lift_dot_u_answer", "import os\nos._exit(3)")}


class Server:
    """A TCP server on 127.0.0.1 (outside the sandbox) that counts its connections."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.sendall(b"answer")
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join()
        self.sock.close()


def _env(**extra) -> dict[str, str]:
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", **extra)


def _snapshot(root: Path) -> dict[str, str]:
    """Hash of every file of the course but what grading itself writes."""
    skip = ("autograded", "gradebook.db", "feedback", ".pytest_cache",
            ".grading_secret")  # made on first grading when missing, by design
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not str(p.relative_to(root)).startswith(skip)
    }


def _cells(root: Path) -> list:
    """The gradebook's record of the instructor's cells (what a tamperer would rewrite)."""
    with sqlite3.connect(root / "gradebook.db") as db:
        return [db.execute(f"select * from {t} order by id").fetchall()
                for t in ("source_cell", "base_cell", "grade_cells", "solution_cells")]


def _auto_scores(root: Path) -> dict[str, float]:
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for sub in gb.assignment_submissions(PS):
            nb = sub.notebooks[0]
            out[sub.student.id] = round(sum(g.score for g in nb.grades if g.cell.cell_type == "code"), 2)
    return out


def _outputs(root: Path, student: str) -> str:
    import nbformat

    nb = nbformat.read(root / "autograded" / student / PS / f"{PS}.ipynb", as_version=4)
    return "\n".join(o.get("text", "") + o.get("ename", "") + ": " + o.get("evalue", "")
                     for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def _course(tmp: Path, students: dict[str, tuple[str, str]]):
    course = copy_course(tmp, [PS])
    assert not release(course, [PS])
    for student, (cell, code) in students.items():
        lay(course, PS, student, build_submission(course, PS, {cell: code}))
    return course


@pytest.fixture(scope="module")
def server():
    srv = Server()
    yield srv
    srv.close()


#: The attacks graded again on two processes by kit.autograde.grade_class.
SIDE_BY_SIDE = ("read_source", "read_other_student", "write_outside", "a1_write_gradebook",
                "fork_bomb", "z_after_wrong", "z_after_correct")


def _check_class(root: Path, scores: dict[str, float], expected: dict[str, float]):
    assert scores == expected
    assert "LEAKED" not in "".join(_outputs(root, s) for s in expected)
    out = _outputs(root, "write_outside")
    assert out.count("blocked:") == 7, out  # the course; /tmp is the sandbox's own
    assert "wrote" not in out.replace("wrote /tmp/kpca_pwned.txt", "")
    # the kernel may write in its folder, but that is a private in-memory copy
    assert "own folder: fine" in out
    assert not (root / "autograded" / "write_outside" / PS / "own_folder.txt").exists()
    assert not (root / "autograded" / "write_outside" / PS).joinpath(f"{PS}.ipynb").is_symlink()
    assert not Path("/tmp/kpca_pwned.txt").exists()
    assert "fork failed 200 times" in _outputs(root, "fork_bomb")
    if "memory_bomb" in expected:
        # stopped by the address-space cap, or by the cell timeout first on a loaded machine
        assert {"MemoryError", "CellTimeoutError"} & set(_outputs(root, "memory_bomb").replace(":", " ").split())
        assert "KeyboardInterrupt" in _outputs(root, "infinite_loop")  # interrupted at the cell timeout
        assert "SystemExit" in _outputs(root, "sys_exit")


def test_attacks_through_plain_nbgrader_autograde(tmp_path, server):
    plan = attacks(server.port)
    course = _course(tmp_path, {**{s: (c, code) for s, (c, code, _) in plan.items()}, **DIES})
    root = course.root
    before, cells = _snapshot(root), _cells(root)
    # one uid for the whole (serial) run, to find what its kernels leave behind
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", PS, "--force"],
                         cwd=root, env=_env(KPCA_SANDBOX_UID=str(RUN_UID)), capture_output=True, text=True, timeout=1500, check=False)
    assert run.returncode == 1  # os_exit's kernel died: nbgrader says so, the others are graded
    assert "os_exit" in run.stderr and not (root / "autograded" / "os_exit" / PS).exists()
    # students are graded in name order: the tamperer before the two graded after it
    assert run.stderr.index("a1_write_gradebook") < run.stderr.index("z_after_wrong")
    assert _snapshot(root) == before and _cells(root) == cells
    assert server.connections == 0
    assert _processes_of(RUN_UID) == []  # the fork bomb's processes are gone
    scores = _auto_scores(root)
    scores.pop("os_exit", None)
    _check_class(root, scores, {s: e for s, (_, _, e) in plan.items()})


def test_attacks_through_grade_class(tmp_path):
    plan = {s: a for s, a in attacks(port=0).items() if s in SIDE_BY_SIDE}
    course = _course(tmp_path, {**{s: (c, code) for s, (c, code, _) in plan.items()}, **DIES})
    root = course.root
    first = [s for s in plan if not s.startswith(("z_", "a1_"))] + list(DIES)
    outcomes = grade_class(course, [PS], students=["a1_write_gradebook"], workers=1, progress=False)
    before, cells = _snapshot(root), _cells(root)
    outcomes += grade_class(course, [PS], students=first, workers=2, progress=False)
    outcomes += grade_class(course, [PS], students=["z_after_wrong", "z_after_correct"],
                            workers=2, progress=False)
    assert _snapshot(root) == before and _cells(root) == cells
    by = {o.student: o for o in outcomes}
    assert by["os_exit"].status == "failed" and "kernel died" in by["os_exit"].message
    auto = _auto_scores(root)
    assert {o.student for o in outcomes if o.status == "graded"} == set(plan)
    _check_class(root, {s: auto[s] for s in plan}, {s: e for s, (_, _, e) in plan.items()})


def test_reference_source_is_out_of_reach(tmp_path):
    """kpca_ref is neither importable nor readable inside the sandbox."""
    ref = Path(kernelenv._package_dir("kpca_ref"))
    code = _leak(
        f"text = Path({str(ref / 'circle.py')!r}).read_text()\n"
        "assert 'def lift' in text")
    code += _leak("import kpca_ref").replace("from pathlib import Path\nROOT = Path.cwd().parents[2]\n", "")
    course = _course(tmp_path, {"reader": ("variances_three_answer", code)})
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", PS],
                         cwd=course.root, env=_env(), capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    out = _outputs(course.root, "reader")
    assert "LEAKED" not in out
    assert "blocked: PermissionError" in out or "blocked: FileNotFoundError" in out
    assert "blocked: ModuleNotFoundError" in out
    # the judge needs nothing of the reference in the kernel: only the leaked answer is lost
    assert _auto_scores(course.root) == {"reader": FULL - SHARES}


@pytest.mark.parametrize("bwrap", ["/nonexistent/bwrap", "/bin/false"])
def test_refuses_without_a_working_bwrap(tmp_path, monkeypatch, bwrap):
    marker = Path(f"/tmp/kpca_refusal_{os.getpid()}_{Path(bwrap).name}")
    code = f"open({str(marker)!r}, 'w').write('ran')\n{RIGHT}"
    course = _course(tmp_path, {"student": ("variances_three_answer", code)})
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", PS],
                         cwd=course.root, env=_env(KPCA_SANDBOX_BWRAP=bwrap),
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode != 0
    assert "sandbox unavailable" in run.stdout + run.stderr
    assert not (course.root / "autograded" / "student" / PS).exists()  # nothing was graded
    monkeypatch.setenv("KPCA_SANDBOX_BWRAP", bwrap)
    (outcome,) = grade_class(course, [PS], workers=1, progress=False)
    assert outcome.status == "failed" and outcome.message.startswith("sandbox unavailable")
    assert not marker.exists()


def test_wrapper_refuses_directly(tmp_path):
    conn = tmp_path / "kernel.json"
    conn.write_text('{"transport": "tcp", "ip": "127.0.0.1"}')
    run = subprocess.run([sys.executable, "-m", "kit.sandbox", "-f", str(conn)],
                         capture_output=True, text=True, env=_env(), check=False)
    assert run.returncode == sandbox.REFUSED and "ipc" in run.stderr
    run = subprocess.run([sys.executable, "-m", "kit.sandbox", "-f", str(conn)], capture_output=True,
                         text=True, env=_env(KPCA_SANDBOX_BWRAP=str(tmp_path / "missing")), check=False)
    assert run.returncode == sandbox.REFUSED and "sandbox unavailable" in run.stderr


def test_kernelspec_is_installed_and_selected():
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(sandbox.KERNEL_NAME)
    assert spec.argv[1:4] == ["-m", "kit.sandbox", "-f"]
    assert spec.metadata["kernel_provisioner"]["provisioner_name"] == sandbox.PROVISIONER_NAME
    from kit.course import Course
    from kit.sandbox.execute import SandboxedExecute

    steps = Course(REPO_ROOT).config().Autograde.autograde_preprocessors
    assert "kit.sandbox.execute.SandboxedExecute" in steps and "nbgrader.preprocessors.Execute" not in steps
    assert SandboxedExecute().kernel_name == sandbox.KERNEL_NAME


#: uid given to the kernels of one run, to find what they leave behind (root only).
RUN_UID = sandbox.UID_BASE - 4242


def _processes_of(uid: int) -> list[int]:
    """Processes running as ``uid``."""
    pids = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            found = int(status.read_text().split("Uid:")[1].split()[0])
        except (OSError, IndexError, ValueError):
            continue
        if found == uid:
            pids.append(int(status.parent.name))
    return pids


def test_wall_clock_cap_stops_a_kernel_that_ignores_interrupts(tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    monkeypatch.setenv("KPCA_SANDBOX_WALL_SECONDS", "8")
    monkeypatch.setenv("KPCA_SANDBOX_UID", str(RUN_UID))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass")]
    client = NotebookClient(nb, kernel_name=sandbox.KERNEL_NAME, timeout=120, allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    start = time.monotonic()
    with pytest.raises(DeadKernelError):
        client.execute()
    assert time.monotonic() - start < 60
    time.sleep(1)
    assert _processes_of(RUN_UID) == []


def test_only_sandbox_kernels_switch_to_ipc():
    """The provisioner changes the transport of kpca-sandbox kernels only: a notebook server's
    ordinary kernels (jupyter lab, formgrader) keep tcp and start as usual."""
    from jupyter_client.manager import KernelManager

    plain = KernelManager(kernel_name="python3")
    plain.start_kernel()
    try:
        assert plain.transport == "tcp"
        client = plain.client()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        client.stop_channels()
    finally:
        plain.shutdown_kernel(now=True)
    boxed = KernelManager(kernel_name=sandbox.KERNEL_NAME)
    boxed.start_kernel()
    try:
        assert boxed.transport == "ipc" and boxed.ip.startswith(tempfile.gettempdir())
    finally:
        boxed.shutdown_kernel(now=True)
