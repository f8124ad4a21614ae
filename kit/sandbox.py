"""Run each grading kernel inside a bubblewrap sandbox.

The ``kpca-sandbox`` kernelspec (installed into the venv by ``make venv``, see
:mod:`kit.kernelspec`) starts ``python -m kit.sandbox -f {connection_file}`` instead of
a plain ipykernel. This wrapper:

1. refuses to start, with a message and exit status :data:`REFUSED`, when bubblewrap is
   missing, cannot create namespaces, or the kernel was not launched over ipc sockets (it
   never falls back to an unsandboxed kernel);
2. starts ``bwrap`` around ``python -m ipykernel_launcher``, with the Python of the kernel
   environment (:mod:`kit.kernelenv`: what the course offers students, nothing else). The
   sandbox sees a minimal file system: ``/usr``, ``/etc``, the Python installation and the
   kernel environment, read-only, with the other Pythons' package folders emptied; an
   empty ``/tmp``; ``kpca_probe`` read-only, alone in :data:`PROBE_PATH`; and the kernel's
   own working directory (the student's ``autograded/<student>/<ps>/`` folder) as a private
   in-memory folder holding that folder's files read-only: the kernel may write there, but
   nothing it writes reaches the disk. Nothing else of the course is there: not
   ``source/``, not ``gradebook.db``, not other students' folders, not ``kpca_ref``, not the
   grader's venv. It has no network, its own pid/ipc/uts namespaces and a clean
   environment;
3. inside, sets resource limits (address space, processes, CPU seconds, file size) and,
   when started as root, drops to an unprivileged uid (root ignores ``RLIMIT_NPROC``);
4. kills the sandbox after a whole-notebook wall-clock cap, and as soon as the grading
   process that started it is gone (killed, even with ``kill -9``): no kernel outlives its
   grader.

The kernel talks to the grader over ipc sockets in a private directory: the provisioner
:class:`kit.kernelspec.SandboxProvisioner`, named in the kernelspec's metadata, switches the
transport to ipc for kernels of this kernelspec only (other kernels, e.g. ``jupyter lab``'s,
keep tcp).

Settings (environment variables of the grading process):

- ``KPCA_SANDBOX_BWRAP``: the bubblewrap executable (default: ``bwrap`` on PATH);
- ``KPCA_KERNEL_ENV``: the kernel environment (default: ``<grader's venv>-kernel``);
- ``KPCA_SANDBOX_UID`` / ``KPCA_SANDBOX_GID``: the uid the kernel runs as when the grader
  is root (default: a fresh uid per kernel, :data:`UID_BASE` + the wrapper's pid);
- ``KPCA_SANDBOX_MEMORY_MB``, ``KPCA_SANDBOX_NPROC``, ``KPCA_SANDBOX_CPU_SECONDS``,
  ``KPCA_SANDBOX_WALL_SECONDS``: the limits below;
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from kit import kernelenv

KERNEL_NAME = "kpca-sandbox"
PROVISIONER_NAME = "kpca-sandbox-provisioner"

#: Exit status of a refused start (bubblewrap unavailable, wrong transport).
REFUSED = 71

#: When the grader is root, each kernel runs as uid UID_BASE + (the wrapper's pid).
UID_BASE = 1_900_000_000

#: Default limits (per kernel; override with the environment variables named above).
LIMITS = {
    "memory_mb": 4096,  # address space; numpy + sympy + matplotlib need ~1.5 GiB of it
    "nproc": 256,  # processes and threads of the kernel's uid
    "cpu_seconds": 600,  # CPU time of the kernel process over the whole notebook
    "wall_seconds": 1200,  # whole notebook, wall clock; each cell also has c.Execute.timeout
    "fsize_mb": 256,  # largest file the kernel may write
    "tmp_mb": 256,  # size of the sandbox's private /tmp (held in memory)
}

#: Seconds between two checks that the grader (the wrapper's parent) is still alive.
WATCH_INTERVAL = 0.25

#: Variables passed into the sandbox (everything else is dropped: no secrets leak in).
PASS_ENV = ("LANG", "LC_ALL", "MPLBACKEND", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "MKL_NUM_THREADS", "PYTHONHASHSEED",
            "KPCA_STUDENT_ID",  # the submission's student, for the notebook's numbers cell
            # what nbgrader documents for every graded kernel ("autograde" / "validate")
            "NBGRADER_EXECUTION", "NBGRADER_VALIDATING")
PASS_ENV_PREFIX = "KPCA_PROBE_"  # for the judge's case file

#: Where ``kpca_probe`` is bound inside the sandbox, alone: the kernel's PYTHONPATH.
PROBE_PATH = "/kpca-grading"


def _limit(name: str) -> int:
    return int(os.environ.get(f"KPCA_SANDBOX_{name.upper()}", LIMITS[name]))


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


def unavailable() -> str:
    """Empty string when sandboxed kernels can start here, else why not."""
    bwrap = bwrap_path()
    if bwrap is None:
        return ("bubblewrap (bwrap) not found; install it: apt-get install bubblewrap")
    probe = subprocess.run(
        [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--unshare-ipc",
         "--dev", "/dev", "--proc", "/proc", "true"],
        check=False, capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return (f"bwrap cannot create namespaces here ({probe.stderr.strip() or probe.returncode}); "
                "enable unprivileged user namespaces or run as root")
    return ""


# ------------------------------------------------------------------ outside the sandbox


def course_root(cwd: Path) -> Path | None:
    """The course directory: from the grader, else the nearest folder with nbgrader_config.py."""
    given = os.environ.get("KPCA_SANDBOX_COURSE_ROOT")
    if given:
        return Path(given)
    for folder in (cwd, *cwd.parents):
        if (folder / "nbgrader_config.py").exists():
            return folder
    return None


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def probe_dir(root: Path | None) -> Path | None:
    """The ``kpca_probe`` package the kernels get: the course's own, else the installed one."""
    if root is not None and (root / "kpca_probe" / "__init__.py").is_file():
        return (root / "kpca_probe").resolve()
    return _package_dir("kpca_probe")


def _system_binds() -> list[tuple[str, list[str]]]:
    ops = [("", ["--ro-bind", "/usr", "/usr"]), ("", ["--ro-bind", "/etc", "/etc"])]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            ops.append(("", ["--symlink", os.readlink(top), top]))
        elif os.path.isdir(top):
            ops.append(("", ["--ro-bind", top, top]))
    prefixes = {Path(sys.base_prefix).resolve(), Path(os.path.realpath(sys.executable)).parent.parent}
    for prefix in sorted(prefixes):
        if not str(prefix).startswith("/usr"):
            ops.append((str(prefix), ["--ro-bind", str(prefix), str(prefix)]))
    return ops


#: Runs inside the sandbox as the kernel's first process: limits, then drop root, then exec.
INNER = r"""
import os, resource, sys
uid, gid, mem, nproc, cpu, fsize = map(int, sys.argv[1:7])
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if os.getuid() == 0:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
if os.getuid() == 0 or os.geteuid() == 0:
    sys.exit("kpca-sandbox: could not drop root inside the sandbox")
os.execv(sys.argv[7], sys.argv[7:])
"""


def _parent_dirs(dest: str, made: set[str]) -> list[str]:
    """World-traversable ``--dir`` for each missing folder above ``dest``.

    bwrap creates missing parents of a mount point with mode 0700, which an unprivileged
    kernel cannot traverse.
    """
    out = []
    for parent in reversed(Path(dest).parents):
        name = str(parent)
        if name not in made and not name.startswith(("/usr/", "/proc", "/dev")):
            out += ["--perms", "0755", "--dir", name]
            made.add(name)
    return out


def bwrap_command(bwrap: str, connection_file: Path, socket_dir: Path, cwd: Path,
                  uid: int, gid: int) -> list[str]:
    """The full bwrap command line for one kernel."""
    venv = kernelenv.env_dir().resolve()
    python = str(kernelenv.python_of(venv))
    args = [bwrap, "--die-with-parent", "--new-session",
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "sandbox", "--clearenv"]
    env = {k: os.environ[k] for k in os.environ
           if k in PASS_ENV or k.startswith(PASS_ENV_PREFIX)}
    env.update(PATH=f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", HOME="/tmp",
               IPYTHONDIR="/tmp/.ipython", MPLCONFIGDIR="/tmp/.matplotlib",
               MPLBACKEND=env.get("MPLBACKEND", "Agg"), PYTHONDONTWRITEBYTECODE="1",
               JPY_PARENT_PID="1")  # its real parent is outside the pid namespace
    tmp_size = str(_limit("tmp_mb") << 20)
    # (mount point, operation): each mount point gets traversable parents first
    ops = _system_binds()
    ops += [("", ["--dev", "/dev", "--proc", "/proc"]),
            ("", ["--perms", "1777", "--size", tmp_size, "--tmpfs", "/tmp"]),
            (str(venv), ["--ro-bind", str(venv), str(venv)])]
    ops += [("", ["--tmpfs", d, "--remount-ro", d]) for d in kernelenv.other_site_dirs()]
    # matplotlib's font list, built with the environment: without it every kernel rebuilds it
    fonts = sorted(kernelenv.font_cache_dir(venv).glob("fontlist-*.json"))
    if fonts:
        ops.append(("", ["--perms", "1777", "--dir", env["MPLCONFIGDIR"]]))
        ops += [("", ["--ro-bind", str(f), f"{env['MPLCONFIGDIR']}/{f.name}"]) for f in fonts]
    probe = probe_dir(course_root(cwd))
    if probe is not None:  # alone on the kernel's path: nothing else of the course comes along
        inside = f"{PROBE_PATH}/kpca_probe"
        ops.append((inside, ["--ro-bind", str(probe), inside]))
        env["PYTHONPATH"] = PROBE_PATH
    ops.append((str(socket_dir), ["--bind", str(socket_dir), str(socket_dir)]))
    # The working folder is a private tmpfs holding the folder's files read-only: the kernel
    # can write there, but nothing it writes reaches the disk or outlives it (so it cannot
    # plant a symlink that the grader, as root, would later write through).
    ops.append((str(cwd), ["--perms", "1777", "--size", tmp_size, "--tmpfs", str(cwd)]))
    for item in sorted(cwd.iterdir()):
        if item.is_file() and not item.is_symlink():
            ops.append(("", ["--ro-bind", str(item), str(item)]))
    made = {"/"}
    for dest, op in ops:
        args += (_parent_dirs(dest, made) if dest else []) + op
    args += ["--chdir", str(cwd)]
    for key, value in sorted(env.items()):
        args += ["--setenv", key, value]
    args += [python, "-I", "-c", INNER, str(uid), str(gid),
             str(_limit("memory_mb") << 20), str(_limit("nproc")), str(_limit("cpu_seconds")),
             str(_limit("fsize_mb") << 20),
             python, "-m", "ipykernel_launcher", "-f", str(connection_file)]
    return args


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2 or argv[0] != "-f":
        print("usage: python -m kit.sandbox -f CONNECTION_FILE", file=sys.stderr)
        return 2
    why = unavailable()
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
    parent = os.getppid()
    if not _alive(os.environ.get("JPY_PARENT_PID", "")):
        return refuse("the grading process that started this kernel is gone")
    cwd = Path.cwd().resolve()
    uid = gid = os.getuid()
    if os.getuid() == 0:
        # One uid per kernel (no account has it): RLIMIT_NPROC then bounds each kernel on
        # its own, and concurrent kernels cannot touch each other's processes or files.
        uid = int(os.environ.get("KPCA_SANDBOX_UID", str(UID_BASE + os.getpid())))
        gid = int(os.environ.get("KPCA_SANDBOX_GID", str(uid)))
    # The kernel reads its own copy of the connection file and creates its sockets in the
    # private socket dir.
    conn = socket_dir / "kernel.json"
    conn.write_text(json.dumps(info))
    if os.getuid() == 0:
        for path in (socket_dir, conn):  # private to this kernel, removed after it
            os.chown(path, uid, gid)
    command = bwrap_command(bwrap, conn, socket_dir, cwd, uid, gid)
    proc = subprocess.Popen(command, start_new_session=True)

    def stop(signum, frame):
        proc.kill()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # interrupts reach the kernel as messages
    status = watch(proc, parent, _limit("wall_seconds"))
    if os.getppid() != parent:  # the grader is gone: nobody else removes its files
        shutil.rmtree(socket_dir, ignore_errors=True)
        Path(argv[1]).unlink(missing_ok=True)
    return status if status >= 0 else 128 - status


def _alive(pid: str) -> bool:
    """Whether the process ``pid`` (Jupyter's ``JPY_PARENT_PID``; empty: unknown) still runs."""
    if not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def watch(proc: subprocess.Popen, parent: int, wall_seconds: float) -> int:
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



if __name__ == "__main__":
    if sys.argv[1:] == ["--install"]:
        from kit.kernelspec import install_kernelspec

        print(f"installed kernelspec {install_kernelspec()}")
        sys.exit(0)
    if sys.argv[1:] == ["--check"]:
        why = unavailable()
        print(f"sandbox unavailable: {why}" if why else "sandbox available")
        sys.exit(REFUSED if why else 0)
    sys.exit(main())
