"""Run each grading kernel inside a bubblewrap sandbox: the wrapper and its watcher.

The ``kpca-sandbox`` kernelspec (installed into the venv by ``make venv``, see
:mod:`kit.sandbox.kernelspec`) starts ``python -m kit.sandbox -f {connection_file}`` instead of
a plain ipykernel. This wrapper:

1. refuses to start, with a message and exit status :data:`REFUSED`, when bubblewrap is
   missing, cannot create namespaces, or the kernel was not launched over ipc sockets (it
   never falls back to an unsandboxed kernel);
2. starts ``bwrap`` around ipykernel (:mod:`kit.sandbox.kernel_start`), with the Python of the kernel
   environment (:mod:`kit.sandbox.kernelenv`), on a minimal file system whose only writable
   places are size-capped tmpfs of its own, without network, in its own pid/ipc/uts
   namespaces and with a clean environment; the command line, with every mount, is built
   by :func:`kit.sandbox.command.bwrap_command` (as root, the kernel is forked from a warm
   template instead, :mod:`kit.sandbox.warm`);
   the kernel's stdin is ``/dev/null`` and its stdout and stderr a pipe only the wrapper
   reads: it holds no descriptor of the grader's, and its sockets, in its own socket
   folder, are reached through links (:mod:`kit.sandbox.channels`);
3. inside, sets resource limits (address space, processes, CPU seconds, file size) and,
   when started as root, drops to an unprivileged uid (root ignores ``RLIMIT_NPROC``):
   :data:`kit.sandbox.command.INNER`, the sandbox's first process;
4. kills the sandbox after a whole-notebook wall-clock cap, and as soon as the grading
   process that started it is gone (killed, even with ``kill -9``): no kernel outlives its
   grader (:func:`grader_pid`, :func:`watch`).

The kernel talks to the grader over ipc sockets in a private directory: the provisioner
:class:`kit.sandbox.kernelspec.SandboxProvisioner`, named in the kernelspec's metadata, switches the
transport to ipc for kernels of this kernelspec only (other kernels, e.g. ``jupyter lab``'s,
keep tcp).

Settings (environment variables of the grading process):

- ``KPCA_SANDBOX_BWRAP``: the bubblewrap executable (default: ``bwrap`` on PATH);
- ``KPCA_KERNEL_ENV``: the kernel environment (default: ``<grader's venv>-kernel``);
- ``KPCA_SANDBOX_UID`` / ``KPCA_SANDBOX_GID``: the uid the kernel runs as when the grader
  is root (default: a fresh uid per kernel, :data:`UID_BASE` + the wrapper's pid);
- ``KPCA_SANDBOX_MEMORY_MB``, ``KPCA_SANDBOX_NPROC``, ``KPCA_SANDBOX_CPU_SECONDS``,
  ``KPCA_SANDBOX_WALL_SECONDS``, ``KPCA_SANDBOX_FSIZE_MB``, ``KPCA_SANDBOX_TMP_MB``,
  ``KPCA_SANDBOX_WORK_MB``, ``KPCA_SANDBOX_SHM_MB``: the limits of
  :data:`kit.sandbox.command.LIMITS`.

``python -m kit.sandbox --install`` installs the kernelspec; ``--check`` says whether
sandboxed kernels can start here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from kit.sandbox import channels, kernelenv, warm
from kit.sandbox.command import bwrap_command, limit

KERNEL_NAME = "kpca-sandbox"
PROVISIONER_NAME = "kpca-sandbox-provisioner"

#: Exit status of a refused start (bubblewrap unavailable, wrong transport).
REFUSED = 71

#: When the grader is root, each kernel runs as uid UID_BASE + (the wrapper's pid).
UID_BASE = 1_900_000_000

#: Seconds between two checks that the grader (the wrapper's parent) is still alive.
WATCH_INTERVAL = 0.25


def refuse(reason: str) -> int:
    """Print why the sandbox cannot run and return the refusal exit status."""
    print(f"kpca-sandbox: sandbox unavailable: {reason}. The kernel was NOT started "
          "(it never runs unsandboxed).", file=sys.stderr, flush=True)
    return REFUSED


def bwrap_path() -> str | None:
    """The bubblewrap executable, or None if there is none."""
    configured = os.environ.get("KPCA_SANDBOX_BWRAP")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("bwrap")


#: bubblewrap executables this process has seen create the sandbox's namespaces
_WORKED: set[str] = set()


def unavailable(cached: bool = False) -> str:
    """Empty string when sandboxed kernels can start here, else why not.

    ``cached``: an executable this process has already seen work is not tried again (a
    grading process asks before each notebook; the wrapper that starts the kernel still
    refuses on its own, and a failed grading asks afresh to say why).
    """
    bwrap = bwrap_path()
    if cached and bwrap in _WORKED:
        return ""
    if bwrap is None:
        return ("bubblewrap (bwrap) not found; install it: apt-get install bubblewrap")
    probe = subprocess.run(
        [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--unshare-ipc",
         "--dev", "/dev", "--proc", "/proc", "true"],
        check=False, capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return (f"bwrap cannot create namespaces here ({probe.stderr.strip() or probe.returncode}); "
                "enable unprivileged user namespaces or run as root")
    _WORKED.add(bwrap)
    return ""


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2 or argv[0] != "-f":
        print("usage: python -m kit.sandbox -f CONNECTION_FILE", file=sys.stderr)
        return 2
    address = os.environ.get(warm.ADDRESS_ENV, "") if os.getuid() == 0 else ""
    # a running template is a sandbox bubblewrap made: probing it again costs a bwrap per
    # kernel; the probe runs when the kernel starts cold (below)
    why = "" if address else unavailable()
    if why:
        return refuse(why)
    if not kernelenv.python_of(kernelenv.env_dir()).exists():
        return refuse(f"no kernel environment at {kernelenv.env_dir()}; run `make venv`")
    bwrap = bwrap_path()
    info = json.loads(Path(argv[1]).read_text())
    socket_dir = Path(str(info.get("ip", ""))).parent
    if info.get("transport") != "ipc" or not socket_dir.is_absolute() or not socket_dir.is_dir():
        return refuse("the kernel must be started over ipc sockets by the kpca-sandbox "
                      f"kernelspec's provisioner (got transport {info.get('transport')!r})")
    parent = grader_pid()
    if parent is None:
        return refuse("the grading process that started this kernel is gone")
    cwd = Path.cwd().resolve()
    uid = gid = os.getuid()
    if os.getuid() == 0:
        # One uid per kernel (no account has it): RLIMIT_NPROC then bounds each kernel on
        # its own, and concurrent kernels cannot touch each other's processes or files.
        uid = int(os.environ.get("KPCA_SANDBOX_UID", str(UID_BASE + os.getpid())))
        gid = int(os.environ.get("KPCA_SANDBOX_GID", str(uid)))
    # The kernel reads its own copy of the connection file, bound read-only into its own
    # socket folder (a tmpfs): it creates its sockets there, and the grader reaches them
    # through the links this folder gets once the kernel's pid is known.
    conn = socket_dir / "kernel.json"
    conn.write_text(json.dumps(info))
    if os.getuid() == 0:
        os.chown(conn, uid, gid)  # its to read only: the kernel cannot write it
    # its stdout and stderr: a pipe only this wrapper reads (channels.Tail), never the
    # grader's own descriptors
    out_read, out_write = os.pipe()
    tail = channels.Tail(out_read)
    proc = None
    try:
        if address:
            proc = warm.run_kernel(address, conn, socket_dir, cwd, uid, gid, out_write)
            if isinstance(proc, str):
                print(f"kpca-sandbox: {proc}; starting the kernel cold", file=sys.stderr,
                      flush=True)
                proc = None
        if proc is None:
            if address and (why := unavailable()):
                return refuse(why)
            proc = _start_cold(bwrap, conn, socket_dir, cwd, uid, gid, out_write)
        channels.link_sockets(info, proc.pid)
    except (OSError, ValueError) as err:
        if proc is not None:
            proc.kill()
        return refuse(f"the kernel could not be started ({err})")
    finally:
        os.close(out_write)
    stopped = []

    def stop(signum, frame):
        stopped.append(signum)
        proc.kill()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # interrupts reach the kernel as messages
    status = watch(proc, parent, limit("wall_seconds"))
    if status > 0 and not stopped:  # it ended on its own, with an error: say what it said
        print(f"kpca-sandbox: the kernel ended with status {status}; the end of its output:",
              *tail.lines(), sep="\n", file=sys.stderr, flush=True)
    if os.getppid() != parent:  # the grader is gone: nobody else removes its files
        shutil.rmtree(socket_dir, ignore_errors=True)
        Path(argv[1]).unlink(missing_ok=True)
    return status if status >= 0 else 128 - status


class _Cold:
    """A cold kernel: its bwrap process, and the pid of bwrap's child in the sandbox."""

    def __init__(self, proc: subprocess.Popen, pid: int):
        self.process, self.pid = proc, pid

    def wait(self, timeout: float | None = None) -> int:
        return self.process.wait(timeout)

    def kill(self) -> None:
        self.process.kill()


def _start_cold(bwrap, conn, socket_dir, cwd, uid, gid, out_fd) -> _Cold:
    """Start bwrap around the kernel, its stdin /dev/null and stdout/stderr ``out_fd``."""
    info_read, info_write = os.pipe()
    try:
        proc = subprocess.Popen(bwrap_command(bwrap, conn, socket_dir, cwd, uid, gid, info_write),
                                stdin=subprocess.DEVNULL, stdout=out_fd, stderr=out_fd,
                                pass_fds=(info_write,), start_new_session=True)
    finally:
        os.close(info_write)
    with os.fdopen(info_read, "rb") as info:  # bwrap closes it once written (or on failure)
        text = info.read()
    try:
        return _Cold(proc, int(json.loads(text)["child-pid"]))
    except (ValueError, KeyError, TypeError):
        proc.kill()
        proc.wait()
        raise ValueError("bwrap did not start the sandbox") from None


def grader_pid() -> int | None:
    """The grading process this wrapper belongs to, or None when it is already gone.

    Jupyter names the process that launched the kernel in ``JPY_PARENT_PID``; that process
    starts this wrapper itself, so it is the wrapper's parent for as long as it lives. Once
    it has exited (even as a zombie nobody has reaped yet) the kernel's parent is another
    process (PID 1 or a subreaper), whenever the wrapper looks: comparing the two cannot
    race with the grader's death, unlike reading the parent's pid after the imports, or
    ``kill(pid, 0)``, which takes an unreaped zombie for alive. Without ``JPY_PARENT_PID``
    (started by hand) the current parent is taken.
    """
    parent = os.getppid()
    named = os.environ.get("JPY_PARENT_PID", "")
    if named.isdigit() and int(named) != parent:
        return None
    return parent


def watch(proc, parent: int, wall_seconds: float) -> int:
    """Wait for the sandbox; kill it when the grader (``parent``) dies or time runs out.

    The grader may die without stopping its kernel (``kill -9``, the out-of-memory killer, a
    Ctrl-C that interrupts its clean-up). The wrapper then becomes an orphan; it checks its
    parent every :data:`WATCH_INTERVAL` seconds and kills the sandbox as soon as the parent
    changed (``bwrap --die-with-parent`` takes every process inside along).
    """
    deadline = time.monotonic() + wall_seconds
    while True:
        try:
            return proc.wait(timeout=WATCH_INTERVAL)
        except subprocess.TimeoutExpired:
            pass
        if os.getppid() != parent:
            why = "the grading process is gone"
        elif time.monotonic() > deadline:
            why = f"notebook ran over {wall_seconds:g} s"
        else:
            continue
        print(f"kpca-sandbox: {why}: kernel stopped", file=sys.stderr, flush=True)
        proc.kill()
        return proc.wait()

