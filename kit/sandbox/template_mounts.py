"""The file system of one warm kernel: what the template's init mounts before the kernel starts.

Part of the template (:mod:`kit.sandbox.template`): :mod:`kit.sandbox.warm` gives ``python -c``
this file's text followed by the template's, so it too runs inside the template's sandbox and
imports nothing of ``kit``. :func:`set_up_files` runs in init, as root, in the notebook's new
mount namespace: a fresh ``/proc``, and, each a tmpfs of the size the request gives
(``sizes``, :func:`kit.sandbox.command.scratch_bytes`), ``/tmp``, ``/dev/shm``, the working
folder holding read-only copies of its files, and the socket folder holding the kernel's
connection file, read-only, as the cold sandbox (:mod:`kit.sandbox.command`) has them. These
are the only places the kernel can write; nothing of the grader's file system is bound in.
"""

import ctypes
import os
import re
import shutil
import socket
import struct

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOSYMFOLLOW = 1, 2, 4, 8, 256
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
#: What bubblewrap makes read-only in a fresh /proc.
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus")

libc = ctypes.CDLL(None, use_errno=True)


def call(name, *args):
    if getattr(libc, name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}{args!r}: {os.strerror(err)}")


def _mount(source, target, fstype, flags, data=None):
    enc = [None if v is None else str(v).encode() for v in (source, target, fstype, data)]
    call("mount", enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3])


def _mounts_under(top):
    """``[(mount point, read-only)]`` below ``top`` in this mount namespace, outermost first."""
    found = []
    with open("/proc/self/mountinfo") as info:
        for line in info:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            if point.startswith(top + "/"):
                found.append((point, "ro" in fields[5].split(",")))
    return found


def _new_tmp(size):
    """A fresh, empty /tmp, with what the template has bound below its own /tmp (the kernel
    environment or the probe, when the course lives there) bound again."""
    kept = _mounts_under("/tmp")
    old = "/run/kpca-tmp"
    if kept:
        os.makedirs(old, exist_ok=True)
        _mount("/tmp", old, None, MS_BIND | MS_REC)
    _tmpfs("/tmp", "1777", size)
    for point, read_only in kept:
        source = old + point[len("/tmp"):]
        os.makedirs(os.path.dirname(point), mode=0o755, exist_ok=True)
        _bind(source, point, read_only, os.path.isdir(source))
    if kept:
        call("umount2", old.encode(), 2)  # MNT_DETACH


def _private_folders(path):
    """Make the folders above ``path`` that the template's root lacks in a tmpfs of this
    kernel's own: the root is shared by every kernel, and a folder's name (a student's) must
    not show to the next one."""
    current = "/"
    for part in path.strip("/").split("/"):
        current = os.path.join(current, part)
        if not os.path.isdir(current):
            _tmpfs(current, "0755", 1 << 20)
            os.makedirs(path, exist_ok=True)
            return


def _tmpfs(target, mode, size, flags=0):
    os.makedirs(target, exist_ok=True)
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | flags, f"mode={mode},size={size}")


def _bind(source, target, read_only, is_dir):
    if is_dir:
        os.makedirs(target, exist_ok=True)
    else:
        open(target, "a").close()
    _mount(source, target, None, MS_BIND)
    if read_only:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _copy_in(fd, target):
    """Copy the file open at ``fd`` (closing it) to ``target``, read-only to all."""
    with open(target, "xb") as out, open(fd, "rb", closefd=True) as src:
        shutil.copyfileobj(src, out)
    os.chmod(target, 0o444)


def set_up_files(req, conn_fd, file_fds):
    """Init's mounts: the notebook's own /proc, /tmp, /dev/shm, working and socket folders."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in PROC_READ_ONLY:
        path = f"/proc/{name}"
        if os.path.exists(path):
            _mount(path, path, None, MS_BIND | MS_REC)
            _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    sizes = req["sizes"]
    _new_tmp(sizes["tmp"])
    _tmpfs("/dev/shm", "1777", sizes["shm"])
    os.makedirs(req["mplconfigdir"], exist_ok=True)
    os.chmod(req["mplconfigdir"], 0o1777)
    # the working folder: a private tmpfs holding copies of its files, read-only to the kernel
    cwd = req["cwd"]
    _private_folders(cwd)
    _tmpfs(cwd, "1777", sizes["work"])
    for name, fd in zip(req["files"], file_fds):
        _copy_in(fd, os.path.join(cwd, name))
    # the socket folder (after /tmp, where it usually is): the kernel's sockets, which its
    # grader reaches through this mount namespace, and its connection file; it follows no
    # link, so the kernel cannot send its grader's connections to another socket
    sockets = req["socket_dir"]
    _private_folders(sockets)
    _tmpfs(sockets, "1777", sizes["sockets"], MS_NOSYMFOLLOW)
    _copy_in(conn_fd, req["connection_file"])
    call("sethostname", b"sandbox", 7)
    _loopback_up()


def _loopback_up():
    """Bring the new network namespace's loopback up, as bubblewrap does (and nothing else)."""
    import fcntl

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock, 0x8914, struct.pack("16sh", b"lo", 0x1 | 0x8 | 0x40))  # SIOCSIFFLAGS
