"""Warm grading kernels (kit/sandbox/warm.py): forked from one template, each as alone.

One student's kernel poisons everything a kernel could leave behind: patched modules,
``sys.modules``, globals, environment variables, files in ``/tmp``, ``/dev/shm`` and its
working folder, random states, matplotlib's settings, open descriptors, a process left
running, a listening socket. The next kernels from the same template see none of it: each
reports what it sees, and the report equals a cold kernel's (started without a template), but
for the random draws, which differ between any two kernels as they do between cold ones.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psutil
import pytest
from jupyter_client.manager import KernelManager

from kit.autograde import grade_class
from kit.course import copy_course
from kit.intake.submitted import build_submission, lay
from kit.release import release
from kit.sandbox import warm
from kit.sandbox import wrapper as sandbox
from kit.sandbox.template import LAZY_IMPORTS
from kit.sandbox.wrapper import KERNEL_NAME
from tests.integrity.attacks import FIRST, ONES_H, PS, WRONG_H

pytestmark = pytest.mark.skipif(sandbox.unavailable() != "" or not warm.enabled(),
                                reason="warm kernels need bubblewrap and root")

#: the poisoner's sleeper, its length unique to this test process: another run of the suite on
#: the machine (or a developer's own) starting its own ``sleep 300`` cannot look like ours
SLEEP = f"300.{os.getpid():07d}"

POISON = r"""
import builtins, os, random, socket, subprocess, sys
import matplotlib, numpy, sympy
numpy.linalg.eigh = lambda a, *k, **kw: "poisoned"
sys.modules["scipy"] = "poisoned"
builtins.poisoned_builtin = True
os.environ["POISONED"] = "1"
poisoned_global = True
for path in ("/tmp/poison", "/dev/shm/poison", "poison", "/tmp/.matplotlib/matplotlibrc"):
    with open(path, "w") as f:
        f.write("lines.linewidth: 42\n")
random.seed(0); numpy.random.seed(0); sympy.core.random.seed(0)
matplotlib.rcParams["lines.linewidth"] = 42
matplotlib.use("svg")
kept = open("/tmp/poison")
os.dup2(kept.fileno(), 99)
listener = socket.socket(); listener.bind(("127.0.0.1", 45678)); listener.listen()
subprocess.Popen(["sleep", "SLEEP"], start_new_session=True)
print("POISONED")
""".replace("SLEEP", SLEEP)

REPORT = r"""
import builtins, json, os, random, sys
import matplotlib, numpy, sympy, socket
import matplotlib.pyplot as plt
try:
    socket.create_connection(("127.0.0.1", 45678), timeout=1)
    port = "open"
except OSError:
    port = "closed"
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
fds = sorted(os.listdir("/proc/self/fd"))
print("REPORT " + json.dumps({
    "eigh": str(numpy.linalg.eigh(numpy.eye(2)).eigenvalues),
    "scipy": isinstance(sys.modules.get("scipy"), str),
    "builtin": hasattr(builtins, "poisoned_builtin"),
    "global": "poisoned_global" in globals(),
    "env": sorted(k for k in os.environ if k not in ("JPY_SESSION_NAME",)),
    "files": [os.path.exists(p) for p in ("/tmp/poison", "/dev/shm/poison", "poison",
                                           "/tmp/.matplotlib/matplotlibrc")],
    "linewidth": matplotlib.rcParams["lines.linewidth"],
    "backend": matplotlib.get_backend(),
    "fds": len(fds), "fd99": os.path.exists("/proc/self/fd/99"),
    "port": port, "pids": len(pids),
    "uid0": os.getuid() == 0, "cwd_files": sorted(os.listdir(".")),
    "path": sys.path,
    "draws": [random.random(), float(numpy.random.random()), sympy.core.random.random()],
}))
"""


def _run(code: str, cwd: Path, warm_on: bool) -> str:
    env = {**os.environ, "KPCA_SANDBOX_WARM": "1" if warm_on else "0"}
    km = KernelManager(kernel_name=KERNEL_NAME)
    km.start_kernel(cwd=str(cwd), env=env)
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        out: list[str] = []

        def keep(msg):
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                out.append("\n".join(msg["content"]["traceback"]))

        kc.execute_interactive(code, output_hook=keep, timeout=120)
        kc.stop_channels()
        return "".join(out)
    finally:
        km.shutdown_kernel(now=True)


def _report(cwd: Path, warm_on: bool) -> dict:
    text = _run(REPORT, cwd, warm_on)
    line = next((x for x in text.splitlines() if x.startswith("REPORT ")), None)
    assert line, f"the report cell failed:\n{text}"
    return json.loads(line[len("REPORT "):])


def _sleepers() -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["cmdline"])
            if (p.info["cmdline"] or [])[:2] == ["sleep", SLEEP]]


def test_a_poisoned_kernel_leaves_nothing_to_the_next(tmp_path):
    folder = tmp_path / "ada"
    folder.mkdir()
    (folder / "notes.txt").write_text("the student's own file\n")
    cold = _report(folder, warm_on=False)
    assert "POISONED" in _run(POISON, folder, warm_on=True)
    after = [_report(folder, warm_on=True) for _ in range(2)]
    assert not (folder / "poison").exists()
    for seen in after:
        for key in cold:
            if key != "draws":
                assert seen[key] == cold[key], f"{key}: warm {seen[key]!r}, cold {cold[key]!r}"
    draws = [cold["draws"], *(seen["draws"] for seen in after)]
    for i in range(3):  # random, numpy and sympy: fresh in every kernel
        assert len({d[i] for d in draws}) == 3, f"generator {i} repeats: {draws}"
    deadline = time.monotonic() + 10
    while _sleepers() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _sleepers(), "the poisoner's process outlived its kernel"


def test_the_kernels_come_from_one_template(tmp_path):
    """Two kernels of one grading process share the template (they do not start cold): pid 1
    of each kernel's namespace is forked from the template, and the second starts none."""
    folder = tmp_path / "bob"
    folder.mkdir()
    code = "print('TEMPLATE', 'kpca-template' in open('/proc/1/cmdline').read())"
    first = _run(code, folder, warm_on=True)
    started = dict(warm._TEMPLATES)
    second = _run(code, folder, warm_on=True)
    assert "kpca-sandbox:" not in first + second  # no fallback note reached the kernel
    assert first.strip() == second.strip() == "TEMPLATE True", (first, second)
    assert warm._TEMPLATES == started and all(t.alive() for t in started.values())
    assert "TEMPLATE False" in _run(code, folder, warm_on=False)  # a cold kernel's is bwrap


def test_from_its_second_kernel_on_the_template_has_loaded_what_cells_load_lazily(tmp_path):
    """:data:`kit.sandbox.template.LAZY_IMPORTS` are in a warm kernel's ``sys.modules``
    before its first line once the template has served a kernel; a cold kernel starts
    without sympy's units (``simplify`` loads them) and ``scipy.special``."""
    folder = tmp_path / "cy"
    folder.mkdir()
    code = f"import sys\nprint('LAZY', sorted(m for m in {LAZY_IMPORTS!r} if m in sys.modules))"
    _run(code, folder, warm_on=True)
    second = _run(code, folder, warm_on=True)
    cold = _run(code, folder, warm_on=False)
    assert f"LAZY {sorted(LAZY_IMPORTS)}" in second, second
    assert "LAZY [" in cold and "sympy.physics.units" not in cold, cold
    assert "scipy.special" not in cold, cold


#: The poisoner's first answer: a wrong centring matrix, then everything a kernel could leave
#: behind for the next student's (numpy patched to agree with anything, files, settings...).
POISONER = WRONG_H + POISON.replace('"/tmp/.matplotlib/matplotlibrc"', '"/tmp/mplrc"') + r"""
import numpy.testing
numpy.allclose = lambda *a, **k: True
numpy.testing.assert_allclose = lambda *a, **k: None
"""


def test_the_student_graded_after_a_poisoner_is_graded_as_alone(tmp_path):
    """One grading process, one template: the poisoner, then two honest students (one of
    them wrong), each graded exactly as the same hand-in graded alone in a cold kernel."""
    course = copy_course(tmp_path / "course", [PS])
    assert not release(course, [PS])
    lay(course, PS, "a_poisoner", build_submission(course, PS, {FIRST: POISONER}))
    lay(course, PS, "b_honest", build_submission(course, PS, {}))
    lay(course, PS, "c_wrong", build_submission(course, PS, {FIRST: ONES_H}))
    warm_run = {o.student: o for o in grade_class(course, [PS], workers=1, progress=False)}
    assert all(o.status == "graded" for o in warm_run.values()), warm_run
    alone = copy_course(tmp_path / "alone", [PS])
    assert not release(alone, [PS])
    for student, cells in (("b_honest", {}), ("c_wrong", {FIRST: ONES_H})):
        lay(alone, PS, student, build_submission(alone, PS, cells))
    os.environ["KPCA_SANDBOX_WARM"] = "0"
    try:
        cold_run = {o.student: o for o in grade_class(alone, [PS], workers=2, progress=False)}
    finally:
        del os.environ["KPCA_SANDBOX_WARM"]
    for student in ("b_honest", "c_wrong"):
        assert warm_run[student].scores == cold_run[student].scores, student
    assert warm_run["b_honest"].total > warm_run["c_wrong"].total > 0
    assert warm_run["a_poisoner"].total < warm_run["b_honest"].total


def test_a_kernel_sees_no_folder_of_an_earlier_student():
    """Folders are made in the template's root, which every kernel shares: a student's name
    there would show to the next kernel (outside /tmp, which is each kernel's own)."""
    base = Path(tempfile.mkdtemp(prefix="kpca-warm-", dir="/var/tmp"))
    try:
        for student in ("ada", "bob"):
            (base / "autograded" / student / "ps1").mkdir(parents=True)
        _run("print(1)", base / "autograded" / "ada" / "ps1", warm_on=True)
        seen = _run("import os; print(sorted(os.listdir('..')), sorted(os.listdir('../..')))",
                    base / "autograded" / "bob" / "ps1", warm_on=True)
        assert seen.strip() == "['ps1'] ['bob']", seen
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_each_course_gets_a_template_with_its_own_probe(tmp_path):
    """A Dask worker may grade two courses (two kit versions): each course's ``kpca_probe``
    is the one bound into its kernels, so each gets a template of its own."""
    seen = []
    for name in ("old", "new"):
        root = tmp_path / name
        (root / "kpca_probe").mkdir(parents=True)
        (root / "nbgrader_config.py").write_text("")
        (root / "kpca_probe" / "__init__.py").write_text(f"VERSION = {name!r}\n")
        (root / "work").mkdir()
        seen.append(_run("import kpca_probe; print(kpca_probe.VERSION)", root / "work", True))
    assert [s.strip() for s in seen] == ["old", "new"]


def test_a_kernel_environment_under_tmp_stays_in_reach(tmp_path, monkeypatch):
    """A course cloned under /tmp has its kernel environment there: each kernel's fresh /tmp
    must keep what the template bound below it (the environment, the fonts), as bubblewrap
    does for a cold kernel, or the kernel dies at its first import."""
    from kit.sandbox import kernelenv

    real = kernelenv.env_dir().resolve()
    if str(real).startswith("/tmp/"):
        where = real  # this checkout is itself under /tmp (as in CI)
    else:
        where = tmp_path / "clone" / ".venv-kernel"
        where.mkdir(parents=True)
        if subprocess.run(["mount", "--bind", str(real), str(where)], check=False).returncode:
            pytest.skip("cannot bind the kernel environment under /tmp here")
    try:
        monkeypatch.setenv("KPCA_KERNEL_ENV", str(where))
        folder = tmp_path / "ada"
        folder.mkdir()
        out = _run("import sys, scipy.stats; print(sys.prefix)", folder, warm_on=True)
        assert out.strip() == str(where), out
    finally:
        if where != real:
            subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_forked_child_neither_uses_nor_keeps_its_parents_template(tmp_path):
    """A grading process forked from one that has a template starts its own; the parent's
    template still ends with the parent (the child holds no copy of its life pipe)."""
    folder = tmp_path / "ada"
    folder.mkdir()
    _run("print(1)", folder, warm_on=True)
    assert warm._TEMPLATES
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child reports what it inherited, then lingers while the parent checks
        os.close(read)
        os.write(write, str(len(warm._TEMPLATES)).encode())
        os.close(write)
        time.sleep(30)
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 10) == b"0"
        templates = list(warm._TEMPLATES.values())
        start = time.monotonic()
        warm.stop_templates()  # closes the parent's life pipe: the template must end now
        assert time.monotonic() - start < 5, "the template outlived its grading process"
        assert all(not t.alive() for t in templates)
    finally:
        os.close(read)
        os.kill(pid, 9)
        os.waitpid(pid, 0)
