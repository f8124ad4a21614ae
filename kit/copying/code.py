"""Code cells identical across students after normalising names, comments and whitespace.

The weaker signal of :mod:`kit.copying`: each code cell a student wrote (answer cells and
cells they added, :func:`kit.judge.cells.is_student_code`) of each hand-in in ``submitted/``
is tokenised (:func:`normalise`): comments, blank lines and spacing dropped, every name that
is not a keyword, a builtin or an attribute renamed ``v0``, ``v1``, ... in order of first
use. Cells whose normal form two or more students share are listed as a group. Left out:
cells shorter than :data:`MIN_TOKENS` tokens, and cells whose normal form is the release's
own code or the instructor's solution for that cell (everyone who did the obvious thing).
"""

from __future__ import annotations

import builtins
import hashlib
import io
import keyword
import re
import tokenize
from dataclasses import dataclass

import nbformat

from kit.course import Course
from kit.judge.cells import is_student_code

#: a cell with fewer tokens than this is too short to tell anything
MIN_TOKENS = 25
#: the longest cell read (characters) and the most cells read of one notebook
MAX_CELL, MAX_CELLS = 20_000, 300
#: the largest notebook read (bytes); a larger one is skipped
MAX_NOTEBOOK = 50_000_000
_KEEP = set(keyword.kwlist) | set(dir(builtins))
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}


@dataclass(frozen=True)
class CodeGroup:
    """Students whose cell(s) of ``problem_set`` have one normal form, ``tokens`` long."""

    problem_set: str
    cells: tuple[str, ...]  # the cells' grade ids ("added cell" for one without)
    students: tuple[str, ...]
    tokens: int
    digest: str


def normalise(source: str) -> list[str]:
    """The tokens of ``source`` with names renamed, comments and spacing dropped.

    >>> normalise("total = x + 1  # sum") == normalise("s=y+1")
    True
    """
    source = source[:MAX_CELL]
    names: dict[str, str] = {}
    out: list[str] = []
    previous = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in _SKIP:
                continue
            text = tok.string
            if tok.type == tokenize.NAME and text not in _KEEP and previous != ".":
                text = names.setdefault(text, f"v{len(names)}")
            elif tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE):
                text = tokenize.tok_name[tok.type]
            out.append(text)
            previous = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # not Python a tokenizer can finish: the words, comments and spacing dropped
        out = re.sub(r"#[^\n]*", "", source).split()
    return out


def _digest(tokens: list[str]) -> str:
    return hashlib.sha256("\x1f".join(tokens).encode("utf-8", "replace")).hexdigest()[:16]


def _cells(path) -> list[tuple[str, str]]:
    """``[(grade id, source)]`` of the student's code cells of a notebook (none if unreadable)."""
    try:
        if path.stat().st_size > MAX_NOTEBOOK:
            return []
        nb = nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001 - nbformat raises many types for a broken file
        return []
    found = []
    for cell in nb.cells[:MAX_CELLS * 4]:
        if cell.get("cell_type") == "code" and is_student_code(cell):
            meta = (cell.get("metadata") or {}).get("nbgrader") or {}
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            found.append((str(grade_id) if grade_id else "added cell", source))
    return found[:MAX_CELLS]


def _instructor_forms(course: Course, ps: str) -> set[str]:
    """Normal forms of the release's code cells and the instructor's solutions."""
    forms = set()
    for folder in ("release", "source"):
        path = course.notebook(folder, ps)
        if path.exists():
            for _, source in _cells(path):
                forms.add(_digest(normalise(source)))
                forms.add(_digest(normalise(_solution(source))))
    return forms


def _solution(source: str) -> str:
    """An instructor's cell as a student who typed the solution hands it in."""
    return re.sub(r"^\s*### (BEGIN|END) SOLUTION\s*$\n?", "", source, flags=re.MULTILINE)


def same_code(course: Course, ps: str, students) -> list[CodeGroup]:
    """The groups of students of ``ps`` sharing a code cell's normal form, smallest first."""
    common = _instructor_forms(course, ps)
    by_form: dict[str, dict] = {}
    for student in students:
        path = course.root / "submitted" / student / ps / f"{ps}.ipynb"
        if not path.is_file():
            continue
        for grade_id, source in _cells(path):
            tokens = normalise(source)
            digest = _digest(tokens)
            if len(tokens) < MIN_TOKENS or digest in common:
                continue
            entry = by_form.setdefault(digest, {"cells": set(), "students": set(), "n": len(tokens)})
            entry["cells"].add(grade_id)
            entry["students"].add(student)
    groups = [CodeGroup(ps, tuple(sorted(e["cells"])), tuple(sorted(e["students"])), e["n"], d)
              for d, e in by_form.items() if len(e["students"]) > 1]
    return sorted(groups, key=lambda g: (len(g.students), -g.tokens, g.cells, g.students))
