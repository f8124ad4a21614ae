"""Only plain files and folders of a student's hand-in ever enter the course.

Whatever a student hands in is read with the TA's rights, so a symbolic link would carry
in a file the student may not read (the instructor's source notebook, ``gradebook.db``), a
hard link the same file under another name, and a FIFO or a device file would stall a
naive copy or fill the disk. Every route into ``submitted/`` refuses them, one line per
student naming the file (:mod:`kit.intake.steps`), and grading checks ``submitted/`` again.

:func:`problems` lists what is wrong in a folder without following any link;
:func:`copy_tree` copies a folder refusing the same things as it goes, race-free: each
entry is opened without following links (``O_NOFOLLOW``, relative to its already opened
folder) and checked again on the open file, so a link swapped in after the check is never
followed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kit.inert import inert

__all__ = ["UnsafeFiles", "copy_tree", "describe", "problems", "refusal_line",
           "submission_problems"]


class UnsafeFiles(ValueError):
    """A hand-in holds entries that are not plain files or folders.

    Attributes
    ----------
    found : list of str
        One ``"<path in the hand-in> <what it is>"`` per entry.
    """

    def __init__(self, found):
        self.found = list(found)
        super().__init__("; ".join(self.found))


def describe(st: os.stat_result) -> str:
    """What is wrong with an entry of this ``lstat``, or ``""`` for a plain file or folder."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "is a symbolic link"
    if stat.S_ISDIR(mode):
        return ""
    if stat.S_ISREG(mode):
        return f"is a hard link ({st.st_nlink} names for one file)" if st.st_nlink > 1 else ""
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device file"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "is not a plain file"


def problems(folder) -> list[str]:
    """``"<relative path> <what it is>"`` for each entry of ``folder`` that is not plain.

    Links are never followed; ``folder`` itself counts too (as ``"."``).
    """
    folder = Path(folder)
    try:
        top = os.lstat(folder)
    except FileNotFoundError:
        return []
    if describe(top):
        return [f"{folder.name} {describe(top)}"]
    if not stat.S_ISDIR(top.st_mode):
        return []
    found = []

    def unreadable(exc: OSError) -> None:
        found.append(f"{Path(exc.filename).relative_to(folder)} cannot be read ({exc.strerror})")

    for dirpath, dirnames, filenames in os.walk(folder, onerror=unreadable):  # never follows links
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            what = describe(os.lstat(path))
            if what:
                found.append(f"{path.relative_to(folder)} {what}")
    return sorted(found)


def submission_problems(folder) -> list[str]:
    """:func:`problems` of ``submitted/<student>/<ps>``, its student folder checked too."""
    folder = Path(folder)
    try:
        what = describe(os.lstat(folder.parent))
    except FileNotFoundError:
        what = ""
    return [f"{folder.parent.name} {what}"] if what else problems(folder)


def refusal_line(student: str, found, action: str = "not collected") -> str:
    """The one line a TA reads about a refused hand-in."""
    return (f"{action}: {inert(student)}: " + "; ".join(inert(f) for f in found)
            + " (only plain files are accepted; ask the student to hand in again)")


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _open_checked(name: str, dir_fd: int | None, flags: int, rel: str) -> tuple[int, os.stat_result]:
    """Open one entry without following links; refuse it unless it is plain, on the open file."""
    before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if describe(before):
        raise UnsafeFiles([f"{rel} {describe(before)}"])
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except PermissionError as exc:
        raise UnsafeFiles([f"{rel} cannot be read ({exc.strerror})"]) from exc
    except OSError as exc:  # ELOOP/ENOTDIR: swapped for a link since the lstat
        raise UnsafeFiles([f"{rel} changed while it was copied ({exc.strerror})"]) from exc
    st = os.fstat(fd)
    if describe(st) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        raise UnsafeFiles([f"{rel} {describe(st) or 'changed while it was copied'}"])
    return fd, st


def _copy_file(fd: int, st: os.stat_result, dest: Path) -> None:
    with open(fd, "rb", closefd=False) as src, open(dest, "xb") as out:
        while chunk := src.read(1 << 20):
            out.write(chunk)
    os.chmod(dest, stat.S_IMODE(st.st_mode) & 0o777)
    os.utime(dest, ns=(st.st_atime_ns, st.st_mtime_ns))


def _copy_dir(fd: int, src: Path, dest: Path, rel: str, ignore) -> None:
    try:
        names = sorted(os.listdir(fd))
    except PermissionError as exc:  # a folder the TA may not read
        raise UnsafeFiles([f"{rel or src.name} cannot be read ({exc.strerror})"]) from exc
    skipped = set(ignore(str(src), names)) if ignore else set()
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name in skipped:
            continue
        sub = f"{rel}/{name}" if rel else name
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        is_dir = stat.S_ISDIR(st.st_mode)
        child, st = _open_checked(name, fd, _DIR_FLAGS if is_dir else _FILE_FLAGS, sub)
        try:
            if is_dir:
                _copy_dir(child, src / name, dest / name, sub, ignore)
            else:
                _copy_file(child, st, dest / name)
        finally:
            os.close(child)


def copy_tree(src, dest, ignore=None) -> None:
    """Copy the folder ``src`` to ``dest`` (created), refusing anything but plain entries.

    Parameters
    ----------
    src, dest : path
        The hand-in, and where it goes (``dest`` must not hold the same names).
    ignore : callable, optional
        ``ignore(folder, names) -> names to skip``, as for :func:`shutil.copytree`
        (nbgrader's ``ignore_patterns``).

    Raises
    ------
    UnsafeFiles
        At the first entry that is a link, a FIFO, a device or socket, that changed while
        it was copied, or that cannot be read; what was copied until then stays in ``dest``.
    """
    src = Path(src)
    fd, _ = _open_checked(str(src), None, _DIR_FLAGS, src.name)
    try:
        _copy_dir(fd, src, Path(dest), "", ignore)
    finally:
        os.close(fd)
