"""A release for an LMS course that knows the course roster (salted hashes, never the ids).

``python -m kit.release --roster students.csv [ps ...]`` first makes ``release/`` as usual
(unchanged: it stays byte-identical and committed), then writes a copy of each problem set
with exact items to ``release_roster/<ps>/`` whose numbers cell carries the roster: the
line ``_ROSTER = None`` (:data:`kpca_ref.variants.cell_extras.ROSTER_LINE`) becomes the
salted hashes of the roster's ids. That copy is what the instructor uploads to the LMS; a
student who types an id that is not on the roster is told at once to check its spelling.

Each id is hashed with PBKDF2-HMAC-SHA256 (:data:`ROUNDS` rounds) under a salt of the
course: HMAC-SHA256 of the course's grading secret (:mod:`kit.secret`) and the course id, so
the same id gives other hashes in another course (or another term, with a new secret), and a
list of hashes is no dictionary of ids across courses. The salt is in the notebook, so a
student can test a guessed id at the cost of one PBKDF2 each: they learn whether that id is
on the roster, never the roster itself (numbers, not names, and no way back from a hash).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import json
from pathlib import Path

import nbformat

from kpca_ref.variants import COURSE_ID
from kpca_ref.variants.cell import NUMBERS_ID
from kpca_ref.variants.cell_extras import ROSTER_LINE

__all__ = ["FOLDER", "ROUNDS", "course_salt", "id_hash", "roster_line", "write_roster_release"]

#: PBKDF2 rounds per id: ~10 ms in the student's kernel, ~10 ms per guess for a guesser
ROUNDS = 20_000
#: hex digits kept of each hash (64 bits: no two ids of a class collide in practice)
LENGTH = 16
#: where roster releases go (git ignores it)
FOLDER = "release_roster"


def course_salt(secret: bytes, course_id: str = COURSE_ID) -> bytes:
    """The course's roster salt: 16 bytes of HMAC-SHA256(secret, "roster", course id)."""
    return hmac.new(secret, f"roster\x1f{course_id}".encode(), hashlib.sha256).digest()[:16]


def id_hash(student_id: str, salt: bytes) -> str:
    """The roster hash of one id (what the numbers cell computes for a typed id)."""
    return hashlib.pbkdf2_hmac("sha256", student_id.encode(), salt, ROUNDS).hex()[:LENGTH]


def roster_line(ids: list[str], salt: bytes) -> str:
    """``_ROSTER = {...}``: the salted hashes of ``ids``, sorted (nothing of their order)."""
    if not ids:
        raise ValueError("the roster has no ids")
    hashes = sorted({id_hash(i.strip(), salt) for i in ids if i.strip()})
    data = {"salt": salt.hex(), "rounds": ROUNDS, "length": LENGTH, "ids": hashes}
    return "_ROSTER = " + json.dumps(data, separators=(",", ":"))


def with_roster(nb, line: str):
    """``nb`` (a released notebook) with its numbers cell carrying ``line``; checksum redone."""
    from nbgrader.utils import compute_checksum

    cells = [c for c in nb.cells
             if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == NUMBERS_ID]
    if len(cells) != 1 or cells[0].source.count("\n" + ROSTER_LINE + "\n") != 1:
        raise ValueError(f"no numbers cell with a line {ROSTER_LINE!r}: run "
                         "`python -m kit.variants --write-cells` and release again")
    cell = cells[0]
    cell.source = cell.source.replace("\n" + ROSTER_LINE + "\n", "\n" + line + "\n")
    cell.metadata.nbgrader["checksum"] = compute_checksum(cell)
    return nb


def write_roster_release(root: Path, assignments, ids: list[str], secret: bytes) -> list[Path]:
    """Copy each problem set's release into ``<root>/release_roster/`` with the roster."""
    line = roster_line(ids, course_salt(secret))
    written = []
    for ps in assignments:
        source = Path(root) / "release" / ps / f"{ps}.ipynb"
        nb = nbformat.read(source, as_version=4)
        if not any(c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == NUMBERS_ID
                   for c in nb.cells):
            continue  # a problem set without exact items has no numbers cell
        out = Path(root) / FOLDER / ps / source.name
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(with_roster(nb, line), out)
        written.append(out)
    return written


def read_roster(path: Path) -> list[str]:
    """Student ids from a CSV with a ``student_id`` (or ``id``) column."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise SystemExit(f"{path}: no students in the roster")
    column = next((c for c in ("student_id", "id") if c in rows[0]), None)
    if column is None:
        raise SystemExit(f"{path}: the roster needs a 'student_id' (or 'id') column; "
                         f"found {', '.join(rows[0])}")
    ids = [r[column].strip() for r in rows if (r[column] or "").strip()]
    return list(dict.fromkeys(ids))
