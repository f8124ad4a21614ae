"""What the grader reads from a notebook's cells: which are tests, which are the student's,
and what a test cell may show in feedback."""

from __future__ import annotations

import ast
import re

from kit.course import JUDGE_KEY

__all__ = ["JUDGE_KEY", "grader_notes", "is_student_code", "is_test_cell", "judge_records",
           "visible_error"]

#: key of the metadata of the judge's score output in a test cell (``kit.judge.score``):
#: ``{"diagnoses": [code, ...]}`` (and ``"other_ids"`` with ``wrong_student_id``), what the
#: class report counts (never the text of a cell's outputs, which quotes the student)

_HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n?(.*?)### END HIDDEN TESTS", re.DOTALL)


def _meta(cell) -> dict:
    meta = cell.get("metadata", {})
    meta = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    return meta if isinstance(meta, dict) else {}


def is_test_cell(cell) -> bool:
    """An auto-graded test cell: code, ``grade`` and not ``solution``."""
    return cell.cell_type == "code" and bool(_meta(cell).get("grade")) and not _meta(cell).get(
        "solution")


def judge_records(nb) -> list[dict]:
    """The judge's records (:data:`JUDGE_KEY`) on the score outputs of the test cells: only
    the judge writes a test cell's outputs, and the record is metadata, never text the
    student's code could have printed or raised."""
    found = []
    for cell in nb.cells:
        if not is_test_cell(cell):
            continue
        for out in cell.get("outputs", []):
            record = (out.get("metadata") or {}).get(JUDGE_KEY) if out.get(
                "output_type") == "execute_result" else None
            if isinstance(record, dict):
                found.append(record)
    return found


def is_student_code(cell) -> bool:
    """Code the student wrote: answer cells and cells the student added (not locked)."""
    meta = _meta(cell)
    return cell.cell_type == "code" and not is_test_cell(cell) and (
        meta.get("solution") or not meta.get("locked"))


#: what one f-string field of a visible check's message may match: up to 60 characters on
#: one line, none of them a control character or a mark of the judge's lines
_FIELD = "[^\\x00-\\x1f\\x7f-\\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069✓✗✔✘]{0,60}"
#: an error message longer than this is never a visible check's own
MESSAGE_LIMIT = 2000


def _check_messages(source: str) -> list:
    """Patterns of the visible checks' messages: the cell's string literals (an f-string's
    fields may hold up to 60 characters each, on one line, with no mark of the judge)."""
    patterns = []
    try:
        tree = ast.parse(_HIDDEN.sub("", source))
    except SyntaxError:
        return patterns
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            patterns.append(re.escape(node.value))
        elif isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:  # adjacent fields are one field (no nested repeats)
                part = re.escape(v.value) if isinstance(v, ast.Constant) else _FIELD
                if not (part == _FIELD and parts and parts[-1] == _FIELD):
                    parts.append(part)
            patterns.append("".join(parts))
    return patterns


def visible_error(out, source: str) -> dict:
    """A test cell's error as feedback may show it: a visible check's own message only.

    An ``AssertionError`` keeps its message when the message is one of the cell's own
    string literals (the instructor's assert messages, f-strings included); any other text
    came from the student's code, which may show what it saw of the hidden inputs, and is
    not shown. A kept message never holds a diagnosis tag or a line of its own
    (:func:`kit.inert.student_words`), and the error's name is made inert too.
    """
    from kit.inert import student_words

    ename = student_words(out.get("ename", "Error"), 80)
    evalue = str(out.get("evalue", ""))
    if ename != "AssertionError":
        shown = "(raised inside your code while the visible checks ran; message not shown)"
    elif not evalue or len(evalue) <= MESSAGE_LIMIT and "[diagnosis" not in evalue.lower() and any(
            re.fullmatch(p, evalue, re.DOTALL) for p in _check_messages(source)):
        shown = student_words(evalue, MESSAGE_LIMIT)
    else:
        shown = "(a visible check failed; its message is not shown)"
    return {"output_type": "error", "ename": ename, "evalue": shown,
            "traceback": [f"{ename}: {shown}"]}


#: the notes the grader itself adds to a cell's outputs (kit/sandbox/output_limits.py), whole lines
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
