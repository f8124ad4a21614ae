"""What a grading kernel can reach of its grader: no descriptor, no disk, any TMPDIR.

- Descriptors: a notebook writes an OSC 52 clipboard escape, a forged ``autograde`` line and
  megabytes to every descriptor it holds (``sys.stderr._original_stdstream_copy``, 1 and 2
  included) and to every ``/proc/self/fd/*`` path. The grader's stdout and stderr get none
  of it; the kernel holds no descriptor the grader holds; when the kernel dies, the end of
  its own output reaches the grader's stderr only escaped, behind the wrapper's prefix.
- Disk: a notebook finds every place it can write (every mount point it sees, and the
  folders below each writable one) and writes to each until the file system is full. Each
  is a tmpfs of the configured size, the grader's TMPDIR (a small file system of its own
  here) keeps its free space, and a classmate's kernel started meanwhile works.
- Sockets: a notebook swaps one of its sockets for a link to a socket of the grader's
  machine; the grader, connecting again, does not follow it.
- TMPDIR outside /tmp: every kernel here runs with TMPDIR on that file system under
  /var/tmp, and a class is graded through ``kit.autograde`` with it.

Each runs warm and cold.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

from kit.course import copy_course
from kit.intake.submitted import build_submission, lay
from kit.release import release
from kit.sandbox import warm
from kit.sandbox import wrapper as sandbox
from kit.sandbox.wrapper import KERNEL_NAME
from tests.integrity.attacks import FIRST, PS, WRONG_H

pytestmark = pytest.mark.skipif(sandbox.unavailable() != "" or os.getuid() != 0,
                                reason="needs bubblewrap, and root to mount the test's TMPDIR")

MODES = [pytest.param(True, id="warm"), pytest.param(False, id="cold")]

MARK = "FORGED-MARK"
#: a clipboard escape, a forged line of the grader's, then a flood
EVIL = ("\x1b]52;c;cm0gLXJmIH4K\x07\rautograde 9/9 ps4 mallory graded " + MARK + "\n"
        + "F" * 65536)

WRITE_EVERYWHERE = r"""
import json, os, stat, sys
EVIL = EVIL_TEXT
def writable(fd):
    try:
        st, link = os.fstat(fd), os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    # the kernel's own sockets and event descriptors: writing there breaks only itself
    return None if stat.S_ISSOCK(st.st_mode) or link.startswith("anon_inode:") else link
def flood(fd, chunks=16):
    try:
        os.set_blocking(fd, False)
        for _ in range(chunks):
            os.write(fd, EVIL.encode())
    except OSError:
        pass
links = {int(n): os.readlink(f"/proc/self/fd/{n}") for n in os.listdir("/proc/self/fd")
         if os.path.exists(f"/proc/self/fd/{n}")}
copies = [getattr(s, "_original_stdstream_copy", None) for s in (sys.stdout, sys.stderr)]
targets = sorted({fd for fd in links if writable(fd)} | {c for c in copies if c is not None} | {1, 2})
for fd in targets:
    flood(fd)
for fd in targets:
    try:
        fresh = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
    except OSError:
        continue
    flood(fresh)
    os.close(fresh)
print("\nLINKS " + json.dumps(links))
""".replace("EVIL_TEXT", repr(EVIL))

CRASH = r"""
import os, sys
os.set_blocking(sys.stderr._original_stdstream_copy, True)
os.write(sys.stderr._original_stdstream_copy, %r.encode())
os._exit(3)
""" % (EVIL + EVIL[:EVIL.index(MARK) + len(MARK) + 1])  # the flood, then the forgery

#: the test's caps on the kernel's writable places (MB), each different to tell them apart
CAPS = {"KPCA_SANDBOX_TMP_MB": "8", "KPCA_SANDBOX_WORK_MB": "6", "KPCA_SANDBOX_SHM_MB": "4"}
STOP_MB = 24  # a place that takes this much is not capped: stop there

FILL = r"""
import errno, json, os, re
from ipykernel.kernelapp import IPKernelApp
STOP = STOP_MB << 20
def unescape(p):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), p)
mounts = {}
for line in open("/proc/self/mountinfo"):
    f = line.split()
    mounts[unescape(f[4])] = ("ro" in f[5].split(","), f[f.index("-") + 1])
named = {"tmp": "/tmp", "shm": "/dev/shm", "work": os.getcwd(),
         "sockets": os.path.dirname(IPKernelApp.instance().connection_file),
         "home": os.environ["HOME"], "mpl": os.environ["MPLCONFIGDIR"]}
def can_write(folder):
    try:
        fd = os.open(os.path.join(folder, ".kpca-w"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        return False
    os.close(fd)
    os.unlink(os.path.join(folder, ".kpca-w"))
    return True
writable = {}  # device: the first writable folder found on it
todo = list(named.values()) + [p for p, (ro, _) in mounts.items() if not ro]
seen = 0
while todo and seen < 3000:
    folder = todo.pop(0)
    seen += 1
    try:
        dev = os.stat(folder).st_dev
        if not os.path.isdir(folder) or os.path.islink(folder):
            continue
    except OSError:
        continue
    if dev not in writable and can_write(folder):
        writable[dev] = folder
    if dev in writable:
        continue
    try:
        todo += [e.path for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)
                 and e.path not in mounts and not e.path.startswith("/proc/")]
    except OSError:
        pass
filled = {}
for dev, folder in writable.items():
    written, error, n = 0, "stopped", 0
    while written < STOP:
        try:
            with open(os.path.join(folder, f".kpca-fill-{n}"), "wb") as out:
                for _ in range(4):
                    out.write(b"x" * (1 << 20))
                    out.flush()
                    written += 1 << 20
        except OSError as err:
            error = errno.errorcode.get(err.errno, str(err.errno))
            break
        n += 1
    vfs = os.statvfs(folder)
    fstype = [t for p, (_, t) in mounts.items() if os.path.isdir(p) and os.stat(p).st_dev == dev]
    filled[folder] = {"written": written, "error": error, "size": vfs.f_blocks * vfs.f_frsize,
                      "fstype": fstype[0] if fstype else "?"}
places = {k: os.stat(v).st_dev for k, v in named.items()}
print("\nFILLED " + json.dumps({"filled": filled, "places": {k: writable.get(d) for k, d in places.items()}}))
""".replace("STOP_MB", str(STOP_MB))


@pytest.fixture(scope="module")
def small_tmpdir(tmp_path_factory):
    """A TMPDIR outside /tmp, on a file system of its own (48 MB), for the whole module."""
    tmp_path_factory.getbasetemp()  # pytest's own folders stay where they were
    folder = Path(tempfile.mkdtemp(prefix="kpca-tmpdir-", dir="/var/tmp"))
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(folder)],
                      check=False).returncode:
        pytest.skip("cannot mount a tmpfs here")
    saved_env, saved_dir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = str(folder), str(folder)
    warm.stop_templates()  # a template started before lives in the former TMPDIR
    try:
        yield folder
    finally:
        warm.stop_templates()
        tempfile.tempdir = saved_dir
        if saved_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_env
        subprocess.run(["umount", "-l", str(folder)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def _free(folder: Path) -> int:
    vfs = os.statvfs(folder)
    return vfs.f_bavail * vfs.f_frsize


class Kernel:
    """A sandboxed kernel started as a grader starts it, its wrapper's stdout and stderr
    going to files."""

    def __init__(self, cwd: Path, warm_on: bool, logs: Path, **env):
        self.out, self.err = (open(logs / f"{name}.log", "wb+")  # noqa: SIM115 - see close()
                              for name in ("out", "err"))
        self.km = KernelManager(kernel_name=KERNEL_NAME)
        self.km.start_kernel(cwd=str(cwd), stdout=self.out, stderr=self.err,
                             env={**os.environ, **env, "KPCA_SANDBOX_WARM": "1" if warm_on else "0"})
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)

    def run(self, code: str, timeout: float = 120) -> str:
        out: list[str] = []

        def keep(msg):
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                out.append("\n".join(msg["content"]["traceback"]))

        self.kc.execute_interactive(code, output_hook=keep, timeout=timeout)
        return "".join(out)

    def result(self, code: str, tag: str) -> dict:
        text = self.run(code)
        line = next((x for x in text.splitlines() if x.startswith(tag + " ")), None)
        assert line, f"the cell failed:\n{text[-3000:]}"
        # the JSON alone: a flood the kernel wrote to its descriptors before the line may
        # reach the stream after it, on the same line (ipykernel forwards it from a thread)
        return json.JSONDecoder().raw_decode(line[len(tag) + 1:])[0]

    def logs(self) -> bytes:
        return Path(self.out.name).read_bytes() + Path(self.err.name).read_bytes()

    def close(self):
        self.kc.stop_channels()
        if self.km.has_kernel:
            self.km.shutdown_kernel(now=True)
        self.out.close()
        self.err.close()


def _held_by_me() -> set[str]:
    """What this process (the grader) holds open: pipes, sockets, files."""
    held = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            held.add(os.readlink(f"/proc/self/fd/{name}"))
        except OSError:
            pass
    return {link for link in held if not link.startswith("anon_inode:")} - {"/dev/null"}


@pytest.mark.parametrize("warm_on", MODES)
def test_a_kernel_writes_nothing_into_the_graders_log(tmp_path, small_tmpdir, warm_on):
    folder = tmp_path / "mallory"
    folder.mkdir()
    kernel = Kernel(folder, warm_on, tmp_path)
    try:
        links = kernel.result(WRITE_EVERYWHERE, "LINKS")
        shared = set(links.values()) & _held_by_me()
        assert not shared, f"the kernel holds descriptors of its grader: {shared}"
        logs = kernel.logs()
        assert MARK.encode() not in logs and b"\x1b" not in logs and len(logs) < 4096, logs[:500]
        # dying, it leaves its last words: escaped, behind the wrapper's prefix, short
        kernel.kc.execute(CRASH)
        kernel.km.provisioner.process.wait(timeout=60)
        logs = kernel.logs()
        lines = logs.decode("utf-8", "replace").splitlines()
        assert b"\x1b" not in logs and b"\x07" not in logs and len(logs) < 40_000
        assert lines and all(line.startswith("kpca-sandbox") for line in lines), lines[:5]
        assert any(MARK in line for line in lines), lines[-6:]
    finally:
        kernel.close()


REDIRECT = r"""
import os
from ipykernel.kernelapp import IPKernelApp
app = IPKernelApp.instance()
path = f"{app.ip}-{app.hb_port}"
os.unlink(path)
os.symlink(TARGET, path)
print("MOVED")
"""


@pytest.mark.parametrize("warm_on", MODES)
def test_a_kernel_cannot_send_its_graders_connections_elsewhere(tmp_path, small_tmpdir, warm_on):
    """The kernel swaps one of its sockets for a link to a socket of the grader's machine
    (here one of the test's): the grader, connecting again, must not reach it."""
    folder = tmp_path / "mallory"
    folder.mkdir()
    target = str(tmp_path / "graders.sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(target)
    listener.listen()
    listener.settimeout(1)
    kernel = Kernel(folder, warm_on, tmp_path)
    try:
        assert kernel.run(REDIRECT.replace("TARGET", repr(target))).strip() == "MOVED"
        reached = socket.socket(socket.AF_UNIX)
        with pytest.raises(OSError):
            reached.connect(f"{kernel.km.ip}-{kernel.km.hb_port}")
        reached.close()
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        kernel.close()
        listener.close()


@pytest.mark.parametrize("warm_on", MODES)
def test_a_notebook_fills_only_its_own_capped_places(tmp_path, small_tmpdir, warm_on):
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "data.txt").write_text("the student's own file\n")
    before = _free(small_tmpdir)
    kernel = Kernel(folder, warm_on, tmp_path, **CAPS)
    try:
        report = kernel.result(FILL, "FILLED")
        during = _free(small_tmpdir)
        classmate = tmp_path / "bob"
        classmate.mkdir()
        other = Kernel(classmate, warm_on, tmp_path)  # graded while the filler is alive
        try:
            assert other.run("print(6 * 7)").strip() == "42"
        finally:
            other.close()
    finally:
        kernel.close()
    assert before - during < 1 << 20, f"the notebook took {(before - during) >> 20} MB of TMPDIR"
    caps = {"tmp": 8 << 20, "work": 6 << 20, "shm": 4 << 20, "sockets": 1 << 20}
    places = report["places"]
    for name, cap in caps.items():  # each place is its own tmpfs of its own size
        assert places[name], f"{name}: not writable"
        assert report["filled"][places[name]]["size"] == cap, (name, report)
    assert places["home"] == places["mpl"] == places["tmp"]
    for where, seen in report["filled"].items():  # and there is no other place
        assert seen["fstype"] == "tmpfs" and seen["error"] == "ENOSPC", (where, seen)
        assert seen["written"] <= seen["size"] <= max(caps.values()), (where, seen)
    assert len(report["filled"]) == len(caps), report["filled"]


def test_a_class_is_graded_with_tmpdir_outside_tmp(tmp_path, small_tmpdir):
    """``kit.autograde`` with TMPDIR on a file system under /var/tmp (a warm kernel, as root):
    a notebook that writes to every descriptor is graded, and the grader's output holds
    nothing of what it wrote."""
    course = copy_course(tmp_path / "course", [PS])
    assert not release(course, [PS])
    lay(course, PS, "a_mallory", build_submission(course, PS, {FIRST: WRONG_H + WRITE_EVERYWHERE}))
    env = {**os.environ, "TMPDIR": str(small_tmpdir),
           "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    done = subprocess.run([sys.executable, "-m", "kit.autograde", PS, "--course", str(course.root),
                           "--workers", "1"], cwd=course.root, env=env, capture_output=True,
                          timeout=400, check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out.decode()[-3000:]
    assert MARK.encode() not in out and b"\x1b" not in out, out[-3000:]
    assert b"graded 1 submissions, 0 could not be graded" in out, out.decode()[-3000:]
