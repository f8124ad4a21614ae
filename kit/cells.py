"""What the grader reads from a notebook's cells: which are tests, which are the student's,
and what a test cell may show in feedback."""

from __future__ import annotations

import ast
import re

__all__ = ["grader_notes", "is_student_code", "is_test_cell", "visible_error"]

_HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n?(.*?)### END HIDDEN TESTS", re.DOTALL)


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_test_cell(cell) -> bool:
    """An auto-graded test cell: code, ``grade`` and not ``solution``."""
    return cell.cell_type == "code" and bool(_meta(cell).get("grade")) and not _meta(cell).get(
        "solution")


def is_student_code(cell) -> bool:
    """Code the student wrote: answer cells and cells the student added (not locked)."""
    meta = _meta(cell)
    return cell.cell_type == "code" and not is_test_cell(cell) and (
        meta.get("solution") or not meta.get("locked"))


def _check_messages(source: str) -> list:
    """Patterns of the visible checks' messages: the cell's string literals (an f-string's
    fields may hold up to 60 characters each)."""
    patterns = []
    try:
        tree = ast.parse(_HIDDEN.sub("", source))
    except SyntaxError:
        return patterns
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            patterns.append(re.escape(node.value))
        elif isinstance(node, ast.JoinedStr):
            patterns.append("".join(re.escape(v.value) if isinstance(v, ast.Constant) else
                                    ".{0,60}" for v in node.values))
    return patterns


def visible_error(out, source: str) -> dict:
    """A test cell's error as feedback may show it: a visible check's own message only.

    An ``AssertionError`` keeps its message when the message is one of the cell's own
    string literals (the instructor's assert messages, f-strings included); any other text
    came from the student's code, which may show what it saw of the hidden inputs, and is
    not shown.
    """
    ename = str(out.get("ename", "Error"))[:80]
    evalue = str(out.get("evalue", ""))
    if ename != "AssertionError":
        shown = "(raised inside your code while the visible checks ran; message not shown)"
    elif not evalue or any(re.fullmatch(p, evalue, re.DOTALL)
                           for p in _check_messages(source)):
        shown = evalue
    else:
        shown = "(a visible check failed; its message is not shown)"
    return {"output_type": "error", "ename": ename, "evalue": shown,
            "traceback": [f"{ename}: {shown}"]}


#: the notes the grader itself adds to a cell's outputs (kit/output_limits.py), whole lines
_NOTE = re.compile(r"\[output (truncated by the grader: (this cell|the notebook)'s output is over its limit of "
                   r"[0-9.]{1,8} MB; the rest of this cell's output was dropped|lost: this cell "
                   r"sent an output message over [0-9.]{1,8} MB, which the grader does not read; "
                   r"the cell's outputs after it were lost)\]\n?")


def grader_notes(cell) -> list[dict]:
    """The grader's own truncation notes among a test cell's outputs (nothing else of its
    streams reaches feedback: the student's code may print there)."""
    notes = []
    for out in cell.get("outputs", []):
        if out.get("output_type") != "stream":
            continue
        text = out.get("text", "")
        text = "".join(text) if isinstance(text, list) else str(text)
        if _NOTE.fullmatch(text):
            notes.append({"output_type": "stream", "name": "stdout", "text": text})
    return notes[:2]
