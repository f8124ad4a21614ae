"""Warm grading kernels: each notebook's kernel forked from a template that has paid the imports.

A cold grading kernel (:mod:`kit.sandbox.command`) starts Python, ipykernel, numpy, scipy,
sympy and matplotlib afresh for every notebook: about 1.5 CPU seconds before the student's first
line. Here the grading process starts, once, a *template* (:mod:`kit.sandbox.template`) in the
same sandbox, which imports all of that and then forks one kernel per notebook. Each kernel gets
its own mount, pid, network, ipc and uts namespaces, its own ``/proc``, ``/tmp``, ``/dev/shm``
and working folder, its own uid, limits and environment, and fresh random states, so nothing a
notebook does reaches the next one; the template itself never runs student code.

- The grading process's side: :func:`template_address` (called by the kpca-sandbox
  provisioner, :mod:`kit.sandbox.kernelspec`) starts the template for a kernel environment, or
  returns the one already running, and hands its address to the kernel's wrapper in
  ``KPCA_SANDBOX_TEMPLATE``. The template exits when the grading process does (its life pipe
  closes), killing every kernel it forked.
- The wrapper's side: :func:`run_kernel` asks the template for one kernel, passing the
  connection file, the files of the working folder and the write end of the pipe the wrapper
  reads the kernel's output from (:mod:`kit.sandbox.channels`) as descriptors, and returns a
  :class:`WarmKernel` to wait on or kill, with the pid through which the kernel's sockets are
  reached. The wrapper keeps its other duties (the wall-clock cap, dying with the grader) as
  for a cold kernel.

Warm kernels need root (the template builds each kernel's namespaces and gives it its own uid);
otherwise, or with ``KPCA_SANDBOX_WARM=0``, every kernel starts cold.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
from pathlib import Path

from kit.sandbox import kernelenv
from kit.sandbox.command import (
    course_root,
    kernel_environment,
    kernel_limits,
    scratch_bytes,
    static_environment,
    template_command,
    working_files,
)
from kit.sandbox.kernelenv import probe_dir

#: The environment variable that carries the template's address to the kernel's wrapper.
ADDRESS_ENV = "KPCA_SANDBOX_TEMPLATE"

#: Seconds a wrapper waits for the template to start its kernel (the first one waits for the
#: template's own imports too).
START_TIMEOUT = 120

#: Most files a working folder may hold for a warm kernel (each is passed as a descriptor).
MAX_FILES = 200

_LOCK = threading.Lock()
_TEMPLATES: dict[str, _Template] = {}


def enabled(env: dict[str, str] | None = None) -> bool:
    """Whether kernels start warm: as root, unless ``KPCA_SANDBOX_WARM`` is 0 in ``env``
    (default: this process's environment)."""
    env = os.environ if env is None else env
    return os.getuid() == 0 and env.get("KPCA_SANDBOX_WARM", "1").strip() != "0"


def template_source() -> str:
    """The template's program for ``python -c``: ``template_mounts.py``, ``kernel_start.py``,
    then ``template.py`` without its imports of those (nothing of ``kit`` is importable in the
    sandbox)."""
    here = Path(__file__).parent
    main = (here / "template.py").read_text()
    main, found = re.subn(r"from kit\.sandbox\.template_mounts import \([^)]*\)\n", "", main)
    main, started = re.subn(r"from kit\.sandbox\.kernel_start import start_kernel[^\n]*\n", "",
                            main)
    if found != 1 or started != 1:
        raise RuntimeError("kit/sandbox/template.py must import template_mounts and "
                           "kernel_start exactly once each")
    return "\n\n".join((here / name).read_text() for name in (
        "template_mounts.py", "kernel_start.py")) + "\n\n" + main


class _Template:
    """One running template: its bwrap process, listening socket path and life pipe."""

    def __init__(self, bwrap: str, cwd: Path, env: dict[str, str], environ: dict[str, str]):
        self.folder = tempfile.mkdtemp(prefix="kpca-template-")
        self.address = os.path.join(self.folder, "s")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.address)
        listener.listen(64)
        life_read, self._life = os.pipe()
        source = template_source()
        command = template_command(bwrap, cwd, env, source, listener.fileno(), life_read,
                                   environ)
        try:  # its stderr is the grader's (it never runs student code, its kernels get none)
            self.process = subprocess.Popen(
                command, pass_fds=(listener.fileno(), life_read), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True)
        finally:
            listener.close()
            os.close(life_read)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Close the life pipe: the template kills its kernels and exits."""
        if self._life is not None:
            os.close(self._life)
            self._life = None
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def template_for(bwrap: str, cwd: Path, env: dict[str, str]) -> str:
    """The address of the running template for kernels started with ``env`` from ``cwd``."""
    # computed from the grader's environment given to the kernel, as its wrapper will
    static = static_environment(kernel_environment(cwd, env))
    probe = str(probe_dir(course_root(cwd, env)))  # each course's own kpca_probe is bound in
    key = json.dumps([str(kernelenv.env_dir(env).resolve()), probe, static], sort_keys=True)
    with _LOCK:
        template = _TEMPLATES.get(key)
        if template is None or not template.alive():
            if template is not None:
                template.stop()
            template = _TEMPLATES[key] = _Template(bwrap, cwd, static, env)
        return template.address


def _forget_in_child() -> None:
    """A forked child starts its own templates: it keeps no copy of its parent's life pipes
    (which would keep the parent's templates alive after the parent) and no held lock."""
    global _LOCK
    _LOCK = threading.Lock()
    for template in _TEMPLATES.values():
        if template._life is not None:
            os.close(template._life)
            template._life = None
    _TEMPLATES.clear()


os.register_at_fork(after_in_child=_forget_in_child)


@atexit.register
def stop_templates() -> None:
    """Stop every template this process started."""
    with _LOCK:
        for template in _TEMPLATES.values():
            template.stop()
        _TEMPLATES.clear()


class WarmKernel:
    """One kernel forked by the template: wait for it, or kill it."""

    def __init__(self, conn: socket.socket, pid: int, buffered: bytes = b""):
        self.conn = conn
        self.pid = pid  # the keeper: its mount namespace is the kernel's
        self._buffer = buffered  # what the keeper sent after "started"
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        """The kernel's exit status (``subprocess.TimeoutExpired`` when ``timeout`` passes)."""
        while self.returncode is None:
            self._parse()
            if self.returncode is not None:
                break
            ready, _, _ = select.select([self.conn], [], [], timeout)
            if not ready:
                raise subprocess.TimeoutExpired("warm kernel", timeout)
            try:
                chunk = self.conn.recv(4096)
            except OSError:  # reset: the keeper died with a "kill" of ours unread
                chunk = b""
            if not chunk:  # the keeper is gone without a word: killed with its template
                self.returncode = -9
                break
            self._buffer += chunk
        return self.returncode

    def _parse(self) -> None:
        for line in self._buffer.split(b"\n")[:-1]:
            reply = json.loads(line)
            if "status" in reply:
                self.returncode = int(reply["status"])

    def kill(self) -> None:
        try:
            self.conn.sendall(b"kill\n")
        except OSError:
            pass


def run_kernel(address: str, connection_file: Path, socket_dir: Path, cwd: Path,
               uid: int, gid: int, out_fd: int) -> WarmKernel | str:
    """Ask the template at ``address`` for a kernel writing its output to ``out_fd``; a
    :class:`WarmKernel`, or why not."""
    env = kernel_environment(cwd)
    try:
        files = working_files(cwd)
    except OSError as err:
        return f"the working folder could not be read ({err})"
    if len(files) > MAX_FILES:
        return f"the working folder holds more than {MAX_FILES} files"
    request = {
        "env": env, "static_env": static_environment(env), "uid": uid, "gid": gid,
        "cwd": str(cwd), "socket_dir": str(socket_dir),
        "connection_file": str(socket_dir / connection_file.name),
        "mplconfigdir": env["MPLCONFIGDIR"], "sizes": scratch_bytes(),
        "limits": kernel_limits(), "files": [item.name for item in files],
    }
    body = json.dumps(request).encode()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)  # the keeper's pid, as seen here
    fds = []
    try:
        for item in [connection_file, *files]:
            fds.append(os.open(item, os.O_RDONLY | os.O_NOFOLLOW))
        conn.settimeout(START_TIMEOUT)
        conn.connect(address)
        socket.send_fds(conn, [struct.pack("!Q", len(body))], [out_fd, *fds])
        conn.sendall(body)
        line, pid = b"", None
        while not line.endswith(b"\n"):
            chunk, ancillary, _flags, _addr = conn.recvmsg(4096, socket.CMSG_SPACE(12))
            for level, kind, data in ancillary:
                if (level, kind) == (socket.SOL_SOCKET, socket.SCM_CREDENTIALS):
                    pid = struct.unpack("iII", data[:12])[0]
            if not chunk:
                break
            line += chunk
        first, _, rest = line.partition(b"\n")
        reply = json.loads(first or b"{}")
    except (OSError, ValueError) as err:
        conn.close()
        return f"the warm template did not answer ({err})"
    finally:
        for fd in fds:
            os.close(fd)
    if "started" not in reply or not pid:
        conn.close()
        return f"the warm template refused: {reply.get('refused', 'no reply')}"
    conn.settimeout(None)
    return WarmKernel(conn, pid, rest)
