"""Whose numbers a submission is graded on, and how feedback names them.

Every exact item is graded on the numbers of the submission's nbgrader student id (the
``submitted/<student>/`` folder). A student on an LMS course types their course id into
the notebook's ``STUDENT_ID`` cell so that the notebook shows their numbers; when a typed
id differs from the submission's id, the exact items score 0 with a line that says so
(diagnosis ``wrong_student_id``), and the class report lists the submission for the TA.
"""

from __future__ import annotations

import ast

__all__ = ["Identity", "numbers_text", "typed_ids"]


def numbers_text(name: str, student: str, show_expected: bool) -> str:
    """Which numbers the answer is built on (and, if configured, the expected value)."""
    from kpca_ref import variants
    from kpca_ref.grading import answers

    if answers._variant_items(name) is None:
        return ""
    v = variants.variant(variants.problem_set_of(name), student)
    text = f"Your numbers (variant for {student!r}): {v.shown(name)}"
    if show_expected:
        value = v.answers[name]
        shown = list(value) if getattr(value, "is_Matrix", False) else value
        if isinstance(value, bool):  # ps3's checked items: the key is the verdict only
            shown = "a certificate (a kernel)" if value else "a witness (not a kernel)"
        text += f"; expected {shown}"
    return text


class Identity:
    """The submission's nbgrader student id, and any id typed into its ``STUDENT_ID``.

    Grading always uses ``student``; a typed id that differs from it scores the exact
    items 0 with a line saying so (:meth:`mismatch_text`).
    """

    def __init__(self, student: str, typed: set[str]):
        self.student = student
        self.typed = {t for t in typed if t}
        self.typed_mismatch = bool(self.typed - {student})

    def mismatch_text(self) -> str:
        typed = ", ".join(repr(t) for t in sorted(self.typed - {self.student}))
        return (f"this notebook's STUDENT_ID is {typed}, but it was handed in by "
                f"{self.student!r}; exact answers are graded on the numbers of "
                f"{self.student!r} only, so they earn nothing here. If that id is yours, "
                "ask your TA")


def typed_ids(nb) -> set[str]:
    """Every string literal the student's cells assign to ``STUDENT_ID`` at top level."""
    found = set()
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("grade") or "STUDENT_ID" not in cell.source:
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            tree = None
        for node in (tree.body if tree is not None else []):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                    and any(isinstance(t, ast.Name) and t.id == "STUDENT_ID"
                            for t in node.targets)):
                found.add(node.value.value.strip())
    return found
