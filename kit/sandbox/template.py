"""The warm kernels' template: forks each notebook's kernel from one warmed-up process.

This file runs *inside* the template's sandbox with the kernel environment's Python, where
nothing of ``kit`` is importable: :mod:`kit.sandbox.warm` gives ``python -c`` the text of
:mod:`kit.sandbox.template_mounts` followed by this file's, without the import below. It
imports once what every graded notebook pays for (numpy, scipy, sympy, matplotlib, IPython,
ipykernel), then serves one request per kernel on the listening socket it inherits. It never
runs student code, is not dumpable, and is its sandbox's pid 1: when it exits, every process
in the sandbox goes with it. It exits when its life pipe closes (the grading process is gone).

For each request it forks a *keeper*, which reads the kernel's settings and descriptors (the
pipe its output goes to, which only its wrapper reads; the connection file; one per file of
the working folder), enters new mount, pid, network, ipc and uts namespaces, and forks that
pid namespace's *init*. Init mounts a fresh ``/proc``, and, each a tmpfs of its own size,
``/tmp``, ``/dev/shm``, the working folder holding read-only copies of its files, and the
kernel's socket folder holding its connection file, then forks the *kernel*. The kernel's
stdin is ``/dev/null`` and its stdout and stderr the pipe; it closes every other descriptor,
takes its own environment and limits,
drops root for its own uid (and with it every capability), reseeds numpy's and sympy's
generators (Python reseeds ``random`` after a fork itself), and starts ipykernel. The keeper
waits until the kernel ends, or its wrapper says "kill" or hangs up, and reports the status;
init dies with its keeper, and the notebook's whole pid namespace with init. To stop a
kernel the keeper asks init (SIGTERM), which kills the kernel and reaps it, so that its CPU
time reaches the processes above; init itself is killed should it not end within
:data:`STOP_GRACE`.
"""

import gc
import json
import os
import random
import select
import signal
import socket
import struct
import sys

from kit.sandbox.kernel_start import start_kernel  # the template's source holds its text
from kit.sandbox.template_mounts import (  # the template's source begins with that file's text
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    CLONE_NEWUTS,
    PR_CAPBSET_DROP,
    PR_SET_DUMPABLE,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_PDEATHSIG,
    call,
    libc,
    set_up_files,
)


def _recv_request(conn):
    """The request: a length-prefixed JSON document, and its descriptors."""
    head, fds, _flags, _addr = socket.recv_fds(conn, 8, 250)
    if len(head) != 8:
        raise ValueError("short request")
    size = struct.unpack("!Q", head)[0]
    if size > 4 << 20:
        raise ValueError("request too large")
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ValueError("request cut short")
        body += chunk
    return json.loads(body), fds


def _become_kernel(req, out_fd):
    """The kernel process: its descriptors, environment, limits and uid, then ipykernel."""
    import resource

    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.closerange(3, 65536)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(_PYTHON_ENV)  # what Python (LC_CTYPE) and the warm-up added, if anything
    os.environ.update(req["env"])
    os.environ["PWD"] = req["cwd"]  # as bubblewrap's --chdir sets it
    lim = req["limits"]
    resource.setrlimit(resource.RLIMIT_AS, (lim["memory"], lim["memory"]))
    resource.setrlimit(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))
    resource.setrlimit(resource.RLIMIT_CPU, (lim["cpu"], lim["cpu"] + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (lim["fsize"], lim["fsize"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for cap in range(64):  # the bounding set: no capability may come back
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    os.setgroups([])
    os.setresgid(req["gid"], req["gid"], req["gid"])
    os.setresuid(req["uid"], req["uid"], req["uid"])
    if 0 in os.getresuid() or 0 in os.getresgid():
        os._exit(70)
    call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    call("prctl", PR_SET_DUMPABLE, 1, 0, 0, 0)  # as after exec: its own /proc is its own
    signal.signal(signal.SIGINT, signal.default_int_handler)
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "sympy.core.random" in sys.modules:
        sys.modules["sympy.core.random"].rng.seed()
    start_kernel(req["connection_file"], req["cwd"])  # kernel_start.py, as a cold kernel's
    os._exit(0)


def _init(req, fds, keeper_alive):
    """Pid 1 of the notebook's pid namespace: mounts, then the kernel, then reaping.

    It dies with its keeper (``PR_SET_PDEATHSIG``; ``keeper_alive`` is a pipe whose other end
    only the keeper holds, so that a keeper gone before the call is seen too).
    """
    call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if select.select([keeper_alive], [], [], 0)[0]:
        os._exit(75)
    out_fd, conn_fd, *file_fds = fds
    try:
        set_up_files(req, conn_fd, file_fds)
    except OSError as err:
        os.write(out_fd, f"kpca-sandbox: warm kernel set-up failed: {err}\n".encode())
        os._exit(72)
    kernel = os.fork()
    if kernel == 0:
        try:
            _become_kernel(req, out_fd)
        finally:
            os._exit(70)
    os.closerange(3, 65536)
    # the keeper's stop (_stop): kill the kernel and reap it, so that its CPU time is counted
    signal.signal(signal.SIGTERM, lambda *_: os.kill(kernel, signal.SIGKILL))
    while True:
        pid, status = os.wait()
        if pid == kernel:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


#: seconds init has to kill and reap its kernel before the keeper kills init
STOP_GRACE = 1.0


def _stop(init, pidfd) -> bool:
    """Stop a notebook: init kills its kernel and reaps it (the kernel's CPU is then counted
    by every process above that waits for its children); SIGKILL should init not end at once.
    True when init was asked."""
    try:
        os.kill(init, signal.SIGTERM)
    except ProcessLookupError:
        return False
    if not select.select([pidfd], [], [], STOP_GRACE)[0]:
        os.kill(init, signal.SIGKILL)
    return True


def _keep(conn):
    """The keeper of one kernel: namespaces, init, then wait for the end and report it."""
    try:
        req, fds = _recv_request(conn)
        if len(fds) != 2 + len(req.get("files", ())):
            raise ValueError(f"expected {2 + len(req.get('files', ()))} descriptors, got {len(fds)}")
        for key in ("socket_dir", "cwd"):
            path = req[key]
            if not os.path.isabs(path) or os.path.normpath(path) != path or path.count("/") < 2:
                raise ValueError(f"the {key} {path!r} is not a folder's absolute path")
        if os.path.dirname(req["connection_file"]) != req["socket_dir"]:
            raise ValueError("the connection file is not in the socket folder")
        if any("/" in name or name in (".", "..") for name in req["files"]):
            raise ValueError("a file name with a slash")
        if req.get("static_env") != _STATIC_ENV:
            diff = sorted(set(req.get("static_env", {}).items()) ^ set(_STATIC_ENV.items()))
            raise ValueError(f"the kernel's environment differs from the template's: {diff}")
        call("unshare", CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
    except (OSError, ValueError) as err:
        conn.sendall(json.dumps({"refused": str(err)}).encode())
        os._exit(0)
    alive_read, alive_write = os.pipe()
    init = os.fork()
    if init == 0:
        conn.close()
        os.close(alive_write)
        _init(req, fds, alive_read)
    os.close(alive_read)
    for fd in fds:
        os.close(fd)
    conn.sendall(json.dumps({"started": init}).encode() + b"\n")
    pidfd = os.pidfd_open(init)
    stopped = False
    while True:
        ready, _, _ = select.select([conn, pidfd], [], [])
        if pidfd in ready:
            break
        try:
            data = conn.recv(64)
        except OSError:
            data = b""
        if not data or b"kill" in data:
            stopped = _stop(init, pidfd)
            break
    _, status = os.waitpid(init, 0)
    code = os.waitstatus_to_exitcode(status)
    if stopped and code == -signal.SIGKILL & 0xFF:  # init passed on its kernel's SIGKILL
        code = -signal.SIGKILL  # what a kernel killed with its init reported
    try:
        conn.sendall(json.dumps({"status": code}).encode() + b"\n")
    except OSError:
        pass
    os._exit(0)


def _warm_up():
    """Import what every graded notebook pays for (not pyplot nor the inline backend: they
    hook into the kernel's shell when imported, which must happen in the kernel)."""
    import ipykernel.ipkernel
    import ipykernel.kernelapp
    import ipykernel.zmqshell  # noqa: F401
    import IPython  # noqa: F401
    import matplotlib
    import matplotlib.backends.backend_agg
    import matplotlib.figure
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    import sympy  # noqa: F401

    matplotlib.font_manager.fontManager  # noqa: B018 - the font list, loaded once


def _warm_up_more():
    """Import :data:`LAZY_IMPORTS` (once the template serves a second kernel)."""
    for name in LAZY_IMPORTS:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001, S112 - a kernel imports it itself, as before
            continue
    try:
        sys.modules["PIL.Image"].preinit()  # the image plugins a figure's PNG loads
    except Exception:  # noqa: BLE001, S110 - as above
        pass


#: Library modules each kernel imported on its own, after the fork: what the problem sets'
#: cells load on first use (sympy's ``simplify`` loads ``sympy.physics.units``, binomials and
#: the cap fraction ``scipy.special``, a figure's PNG PIL's plugins), 0.1 to 0.3 CPU s a
#: notebook, measured over the seven problem sets' solutions, for about 0.3 s once. Imported
#: here when a second kernel is asked for (a template that serves one notebook would pay
#: for nothing), before it is forked; none opens a file or a socket, starts a thread, sets
#: a variable or draws a random number (tests/sandbox/test_warm_kernels.py compares warm
#: kernels with a cold one). Not ipykernel's debugger (debugpy): preloaded, it left a warm
#: kernel one descriptor short.
LAZY_IMPORTS = ("sympy.combinatorics", "sympy.physics.units",
                "sympy.integrals.manualintegrate", "sympy.codegen.ast", "sympy.tensor.tensor",
                "scipy.special", "scipy.integrate", "PIL.Image")


_STATIC_ENV = {}  # the template's environment, as bubblewrap set it (but PWD)
_PYTHON_ENV = {}  # what Python and the warm-up's imports added to it


def main(listen_fd, life_fd, given):
    global _STATIC_ENV, _PYTHON_ENV
    given = set(given.split(","))
    _STATIC_ENV = {k: v for k, v in os.environ.items() if k in given}
    call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)
    _warm_up()
    # what Python added at start, and any variable an import set: a cold kernel has it too
    _PYTHON_ENV = {k: v for k, v in os.environ.items() if k not in given and k != "PWD"}
    # what the imports made stays alive in every kernel: out of the collector's sight, a
    # kernel's collections do not touch (and so copy) the template's pages
    gc.collect()
    gc.freeze()
    listener = socket.socket(fileno=listen_fd)
    served = 0
    while True:
        ready, _, _ = select.select([listener, life_fd], [], [], 1.0)
        try:  # keepers, and (as the sandbox's pid 1) any orphan
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        if life_fd in ready:  # the grading process is gone: so is everything in the sandbox
            os._exit(0)
        if listener in ready:
            conn, _ = listener.accept()
            served += 1
            if served == 2:
                _warm_up_more()
                gc.collect()
                gc.freeze()
            if os.fork() == 0:
                try:
                    listener.close()
                    os.close(life_fd)
                    _keep(conn)
                finally:
                    os._exit(0)
            conn.close()


if __name__ == "__main__":
    main(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
