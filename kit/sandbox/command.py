"""The bubblewrap command line of one grading kernel: its mounts, environment and limits.

:func:`bwrap_command` builds what :mod:`kit.sandbox.wrapper` starts for each kernel: ``bwrap``
around ipykernel (started as :mod:`kit.sandbox.kernel_start` says), with the Python of the
kernel environment (:mod:`kit.sandbox.kernelenv`: what the course offers students, nothing
else). The sandbox sees a
minimal file system: ``/usr``, ``/etc``, the Python installation and the kernel
environment, read-only, with the other Pythons' package folders emptied; ``kpca_probe``
read-only, alone in :data:`PROBE_PATH` (:func:`probe_dir`); and, each a private tmpfs of
its own size (:func:`scratch_bytes`), an empty ``/tmp`` and ``/dev/shm``, the kernel's
socket folder holding only its connection file (read-only; the grader reaches the sockets
through links, :mod:`kit.sandbox.channels`), and the kernel's own working directory (the
student's ``autograded/<student>/<ps>/`` folder) holding that folder's files read-only.
These are the only places a kernel can write, nothing it writes reaches the disk, and the
root is read-only. Nothing else of the course is there: not
``source/``, not ``gradebook.db``, not other students' folders, not ``kpca_ref``, not the
grader's venv. It has no network, its own pid/ipc/uts namespaces and a clean environment
(only :data:`PASS_ENV` and ``KPCA_PROBE_*`` come in).

Inside, :data:`INNER` runs first: it sets resource limits (address space, processes, CPU
seconds, file size; :data:`LIMITS`) and, when started as root, drops to the unprivileged
uid it is given (root ignores ``RLIMIT_NPROC``), then starts the kernel.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kit.sandbox import kernel_start, kernelenv
from kit.sandbox.kernelenv import probe_dir

#: Default limits (per kernel; ``KPCA_SANDBOX_<NAME>``, e.g. ``KPCA_SANDBOX_MEMORY_MB``,
#: overrides one).
LIMITS = {
    "memory_mb": 4096,  # address space; numpy + sympy + matplotlib need ~1.5 GiB of it
    "nproc": 256,  # processes and threads of the kernel's uid
    "cpu_seconds": 600,  # CPU time of the kernel process over the whole notebook
    "wall_seconds": 1200,  # whole notebook, wall clock; each cell also has c.Execute.timeout
    "fsize_mb": 256,  # largest file the kernel may write
    # the only places it may write, each a private tmpfs (held in memory, never on disk)
    "tmp_mb": 128,  # /tmp: also HOME, IPython's and matplotlib's folders
    "work_mb": 128,  # the working folder (the student's files, read-only, and what it adds)
    "shm_mb": 64,  # /dev/shm
}

#: Size of a kernel's socket folder (its connection file and its sockets, nothing more).
SOCKET_BYTES = 1 << 20

#: Variables passed into the sandbox (everything else is dropped: no secrets leak in).
PASS_ENV = ("LANG", "LC_ALL", "MPLBACKEND", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "MKL_NUM_THREADS", "PYTHONHASHSEED",
            "KPCA_STUDENT_ID",  # the submission's student, for the notebook's numbers cell
            "KPCA_NUMBERS_FROM_LOGIN",  # "1": that student's numbers, whatever STUDENT_ID says
            # what nbgrader documents for every graded kernel ("autograde" / "validate")
            "NBGRADER_EXECUTION", "NBGRADER_VALIDATING")
PASS_ENV_PREFIX = "KPCA_PROBE_"  # for the judge's case file

#: Where ``kpca_probe`` is bound inside the sandbox, alone: the kernel's PYTHONPATH.
PROBE_PATH = "/kpca-grading"


def limit(name: str) -> int:
    """The limit ``name`` of :data:`LIMITS`, or its ``KPCA_SANDBOX_*`` override."""
    return int(os.environ.get(f"KPCA_SANDBOX_{name.upper()}", LIMITS[name]))


def course_root(cwd: Path, environ=None) -> Path | None:
    """The course directory: from the grader (``KPCA_SANDBOX_COURSE_ROOT`` of ``environ``,
    default this process's environment), else the nearest folder with nbgrader_config.py."""
    given = (os.environ if environ is None else environ).get("KPCA_SANDBOX_COURSE_ROOT")
    if given:
        return Path(given)
    for folder in (cwd, *cwd.parents):
        if (folder / "nbgrader_config.py").exists():
            return folder
    return None


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


#: Runs inside the sandbox as the kernel's first process: limits, then (as root) a socket folder
#: that follows no link, so the kernel cannot send its grader's connections to another socket
#: (``MS_REMOUNT | MS_BIND | MS_NOSYMFOLLOW | MS_NOSUID | MS_NODEV``), then drop root, then exec.
INNER = r"""
import ctypes, os, resource, sys
uid, gid, mem, nproc, cpu, fsize = map(int, sys.argv[1:7])
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if os.getuid() == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(None, sys.argv[7].encode(), None, ctypes.c_ulong(32 | 4096 | 256 | 2 | 4), None):
        sys.exit("kpca-sandbox: could not mount the socket folder: " + os.strerror(ctypes.get_errno()))
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
if os.getuid() == 0 or os.geteuid() == 0:
    sys.exit("kpca-sandbox: could not drop root inside the sandbox")
os.execv(sys.argv[8], sys.argv[8:])
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


#: Variables that differ from one notebook to the next (the warm template,
#: :mod:`kit.sandbox.warm`, is shared by every kernel whose other variables are the same).
PER_NOTEBOOK_ENV = ("KPCA_STUDENT_ID", "KPCA_NUMBERS_FROM_LOGIN", "NBGRADER_EXECUTION",
                    "NBGRADER_VALIDATING")


def working_files(cwd: Path) -> list[Path]:
    """The files of a kernel's working folder it gets (read-only): the regular ones, no link."""
    return [item for item in sorted(cwd.iterdir()) if item.is_file() and not item.is_symlink()]


def scratch_bytes() -> dict[str, int]:
    """The size of each tmpfs a kernel may write to, in bytes: ``tmp`` (/tmp), ``work`` (the
    working folder), ``shm`` (/dev/shm) and ``sockets`` (the socket folder)."""
    return {"tmp": limit("tmp_mb") << 20, "work": limit("work_mb") << 20,
            "shm": limit("shm_mb") << 20, "sockets": SOCKET_BYTES}


def kernel_limits() -> dict[str, int]:
    """The resource limits each kernel gets, in the units ``setrlimit`` takes."""
    return {"memory": limit("memory_mb") << 20, "nproc": limit("nproc"),
            "cpu": limit("cpu_seconds"), "fsize": limit("fsize_mb") << 20}


def kernel_environment(cwd: Path, environ=None) -> dict[str, str]:
    """The whole environment of a kernel started from the folder ``cwd`` by a grader whose
    environment is ``environ`` (default: this process's)."""
    environ = os.environ if environ is None else environ
    venv = kernelenv.env_dir(environ).resolve()
    env = {k: environ[k] for k in environ if k in PASS_ENV or k.startswith(PASS_ENV_PREFIX)}
    env.update(PATH=f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", HOME="/tmp",
               IPYTHONDIR="/tmp/.ipython", MPLCONFIGDIR="/tmp/.matplotlib",
               MPLBACKEND=env.get("MPLBACKEND", "Agg"), PYTHONDONTWRITEBYTECODE="1",
               JPY_PARENT_PID="1")  # its real parent is outside the pid namespace
    if probe_dir(course_root(cwd, environ)) is not None:
        env["PYTHONPATH"] = PROBE_PATH
    return env


def static_environment(env: dict[str, str]) -> dict[str, str]:
    """``env`` without what differs from one notebook to the next."""
    return {k: v for k, v in env.items()
            if k not in PER_NOTEBOOK_ENV and not k.startswith(PASS_ENV_PREFIX)}


def _shared_ops(venv: Path, env: dict[str, str], cwd: Path,
                environ=None) -> list[tuple[str, list[str]]]:
    """The mounts every kernel has: system, kernel environment, fonts, /tmp, /dev/shm, the
    probe."""
    sizes = scratch_bytes()
    ops = _system_binds()
    ops += [("", ["--dev", "/dev", "--proc", "/proc"]),
            ("", ["--perms", "1777", "--size", str(sizes["shm"]), "--tmpfs", "/dev/shm"]),
            ("", ["--remount-ro", "/dev"]),  # its own when not root: only /dev/shm is writable
            ("", ["--perms", "1777", "--size", str(sizes["tmp"]), "--tmpfs", "/tmp"]),
            (str(venv), ["--ro-bind", str(venv), str(venv)])]
    ops += [("", ["--tmpfs", d, "--remount-ro", d]) for d in kernelenv.other_site_dirs()]
    # matplotlib's font list, built with the environment: without it every kernel rebuilds it
    fonts = sorted(kernelenv.font_cache_dir(venv).glob("fontlist-*.json"))
    if fonts:
        ops.append(("", ["--perms", "1777", "--dir", env["MPLCONFIGDIR"]]))
        ops += [("", ["--ro-bind", str(f), f"{env['MPLCONFIGDIR']}/{f.name}"]) for f in fonts]
    probe = probe_dir(course_root(cwd, environ))
    if probe is not None:  # alone on the kernel's path: nothing else of the course comes along
        inside = f"{PROBE_PATH}/kpca_probe"
        ops.append((inside, ["--ro-bind", str(probe), inside]))
    return ops


def _assemble(args: list[str], ops, env: dict[str, str], chdir: str) -> list[str]:
    made = {"/"}
    for dest, op in ops:
        args = args + (_parent_dirs(dest, made) if dest else []) + op
    args += ["--chdir", chdir]
    for key, value in sorted(env.items()):
        args += ["--setenv", key, value]
    return args


def _namespaces(bwrap: str) -> list[str]:
    return [bwrap, "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox", "--clearenv"]


def bwrap_command(bwrap: str, connection_file: Path, socket_dir: Path, cwd: Path,
                  uid: int, gid: int, info_fd: int) -> list[str]:
    """The full bwrap command line for one kernel (bwrap writes its pid to ``info_fd``).

    ``connection_file`` (in the grader's ``socket_dir``) is bound read-only into the
    kernel's own ``socket_dir``, a small tmpfs: nothing of the grader's file system is
    writable in the sandbox.
    """
    venv = kernelenv.env_dir().resolve()
    python = str(kernelenv.python_of(venv))
    env = kernel_environment(cwd)
    sizes = scratch_bytes()
    ops = _shared_ops(venv, env, cwd)
    inside = f"{socket_dir}/{connection_file.name}"
    ops += [(str(socket_dir), ["--perms", "1777", "--size", str(sizes["sockets"]),
                               "--tmpfs", str(socket_dir)]),
            ("", ["--ro-bind", str(connection_file), inside])]
    # The working folder is a private tmpfs holding the folder's files read-only: the kernel
    # can write there, but nothing it writes reaches the disk or outlives it (so it cannot
    # plant a symlink that the grader, as root, would later write through).
    ops.append((str(cwd), ["--perms", "1777", "--size", str(sizes["work"]), "--tmpfs", str(cwd)]))
    ops += [("", ["--ro-bind", str(item), str(item)]) for item in working_files(cwd)]
    ops.append(("", ["--remount-ro", "/"]))  # the root's folders (its own when not root)
    args = _assemble([*_namespaces(bwrap), "--die-with-parent", "--info-fd", str(info_fd)],
                     ops, env, str(cwd))
    lim = kernel_limits()
    return args + [python, "-I", "-c", INNER, str(uid), str(gid),
                   *(str(lim[k]) for k in ("memory", "nproc", "cpu", "fsize")), str(socket_dir),
                   python, "-c", kernel_start.program(), "-f", inside]


def template_command(bwrap: str, cwd: Path, env: dict[str, str], source: str,
                     listen_fd: int, life_fd: int, environ=None) -> list[str]:
    """The bwrap command line of the warm template (:mod:`kit.sandbox.template`).

    The same sandbox as a kernel's, without a working or socket folder (each kernel it forks
    mounts its own). Started as root, it keeps root's capabilities (bubblewrap's default):
    the template needs them to build each kernel's namespaces; the kernel drops them with
    root.
    """
    venv = kernelenv.env_dir(environ).resolve()
    python = str(kernelenv.python_of(venv))
    ops = _shared_ops(venv, env, cwd, environ)
    # --as-pid-1: the template is its sandbox's pid 1, so that every process in it (the kernels
    # included, each in its own nested pid namespace) dies when it exits
    args = _assemble([*_namespaces(bwrap), "--as-pid-1"], ops, env, "/")
    return args + [python, "-c", source, "kpca-template", str(listen_fd), str(life_fd),
                   ",".join(sorted(env))]
