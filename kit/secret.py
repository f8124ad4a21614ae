"""The grader's secret: it salts each student's hidden case inputs.

The secret lives in the course directory as ``.grading_secret`` (git ignores it; nbgrader
never copies it: it is not under ``source/<ps>/``; the grading sandbox cannot see it). It is
made on first use (``make venv`` makes it too) from 32 random bytes; keep it for a term,
so that re-grading gives the same hidden inputs, and never share it. With it, each
submission's hidden inputs are drawn from HMAC-SHA256(secret, problem set, student), so a
student who prints their inputs learns nothing about anybody else's.

``python -m kit.secret`` makes the secret of the repository's course when it is missing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sys
import tempfile
from pathlib import Path

FILE_NAME = ".grading_secret"
#: overrides where the secret is read from (a path)
ENV_VAR = "KPCA_GRADING_SECRET_FILE"


#: Secrets held in memory only, by resolved course root (:func:`hold`).
_HELD: dict[str, bytes] = {}


def hold(course_root: Path, secret: bytes) -> None:
    """Use ``secret`` for the course at ``course_root`` without writing it anywhere.

    A Dask worker grades in a course copy of its own; a worker killed with ``kill -9`` never
    cleans up, so the secret it was sent stays in this process's memory and never reaches its
    disk. The judge runs in this process (and its forked children), so it finds it here.
    """
    _HELD[str(Path(course_root).resolve())] = secret


def secret_path(course_root: Path) -> Path:
    override = os.environ.get(ENV_VAR)
    return Path(override) if override else Path(course_root) / FILE_NAME


def course_secret(course_root: Path) -> bytes:
    """The course's secret, made (readable by its owner only) when missing."""
    held = _HELD.get(str(Path(course_root).resolve()))
    if held is not None:
        return held
    path = secret_path(course_root)
    if not path.exists():  # several grading processes may get here at once: the first wins
        fd, tmp = tempfile.mkstemp(prefix=".grading_secret.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(secrets.token_hex(32) + "\n")
            os.link(tmp, path)  # atomic, and never replaces a secret already there
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    text = path.read_text(encoding="ascii").strip()
    if len(text) < 32:
        raise RuntimeError(f"{path}: the grading secret is too short; delete the file to make "
                           "a new one (re-graded hidden inputs will then change)")
    return text.encode("ascii")


def salt_words(secret: bytes, assignment: str, student: str) -> tuple[int, ...]:
    """Four 32-bit words from HMAC-SHA256(secret, assignment, student)."""
    digest = hmac.new(secret, f"{assignment}\x1f{student}".encode(), hashlib.sha256).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "big") for i in range(0, 16, 4))


def main() -> int:
    from kit.course import REPO_ROOT

    path = secret_path(REPO_ROOT)
    existed = path.exists()
    course_secret(REPO_ROOT)
    print(f"grading secret: {path} ({'kept' if existed else 'made'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
