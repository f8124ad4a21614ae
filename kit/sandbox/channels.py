"""What passes between the grader and a sandboxed kernel besides its messages.

A kernel holds nothing of its grader: no descriptor of the grader's stdout, stderr or stdin,
and no writable folder on the grader's file system. Two things still have to cross:

- **Its sockets.** The kernel creates its ipc sockets in its own socket folder, a small tmpfs
  that only its mount namespace sees. The grader's socket folder (same path, on the grader's
  file system, where the kernel cannot write) holds links to them through
  ``/proc/<pid>/root`` of a process in the kernel's mount namespace (:func:`link_sockets`):
  connecting to a Unix socket follows the link.
- **Its own output.** The kernel's stdout and stderr (and bubblewrap's, and the warm
  template's set-up messages) go to a pipe that only the wrapper reads (:class:`Tail`). The
  wrapper keeps at most :data:`TAIL_BYTES` of the end of it, and shows it only when the
  kernel ends on its own with an error status, each line behind a ``kpca-sandbox:`` prefix
  with every control character escaped (:func:`escaped`): a notebook cannot write a line,
  an escape sequence or a flood into the grader's log. What a notebook prints reaches the
  TA through its capped outputs only (:mod:`kit.sandbox.output_limits`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

#: Bytes of the end of a kernel's own output the wrapper keeps.
TAIL_BYTES = 4096

#: Lines of it shown at most.
TAIL_LINES = 40

PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def link_sockets(info: dict, pid: int) -> None:
    """Link each ipc socket of the connection ``info`` to where the kernel creates it: the
    same path in the mount namespace of the process ``pid`` (as the wrapper sees it)."""
    base = str(info["ip"])
    for key in PORTS:
        path = f"{base}-{info[key]}"
        link = Path(path)
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(f"/proc/{pid}/root{path}", path)


def escaped(text: str) -> str:
    """``text`` with every character that is not printable (escapes, controls, bidi marks,
    newlines) written as a Python escape."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


class Tail:
    """Reads a pipe to its end in a thread, keeping only its last :data:`TAIL_BYTES`."""

    def __init__(self, fd: int):
        self._fd = fd
        self._kept = bytearray()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            while True:
                chunk = os.read(self._fd, 1 << 16)
                if not chunk:
                    break
                self._kept += chunk
                del self._kept[:-TAIL_BYTES]
        except OSError:
            pass
        finally:
            os.close(self._fd)

    def lines(self, wait: float = 1.0) -> list[str]:
        """The kept end, as escaped lines behind the wrapper's prefix (waiting up to ``wait``
        seconds for the pipe's end)."""
        self._thread.join(wait)
        text = bytes(self._kept).decode("utf-8", "replace")
        return [f"kpca-sandbox: | {escaped(line)}"
                for line in text.splitlines()[-TAIL_LINES:]]
