"""Whose numbers a submission is graded on, and how feedback names them.

Every exact item is graded on the numbers of the submission's nbgrader student id (the
``submitted/<student>/`` folder). A student on an LMS course types their course id into
the notebook's ``STUDENT_ID`` cell so that the notebook shows their numbers; when the
notebook used another id, the exact items score 0 with a line that says so (diagnosis
``wrong_student_id``), and the class report lists the submission for the TA.

On a course whose numbers come from the login (``c.WriteCases.numbers_from_login``, a
JupyterHub course), a typed ``STUDENT_ID`` is ignored while the student works (the numbers
cell says so) and while grading alike, so only the ids the numbers were actually drawn
from count (:func:`kernel_ids` with ``key="drawn"``).

Which ids the notebook used is read from what its kernel had when the hidden tests ran
(:func:`kernel_ids`: ``STUDENT_ID``, ``VARIANT_ID`` and ``KPCA_STUDENT_ID`` as the probe
found them, however code set them: ``"ali" + "ce"``, ``.strip()``, an f-string, an
annotated assignment, ``os.environ``), and from the string literals the cells assign to
``STUDENT_ID`` (:func:`typed_ids`), for a notebook whose exact answers never ran.
"""

from __future__ import annotations

import ast
import functools

__all__ = ["Identity", "kernel_ids", "numbers_text", "typed_ids"]


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
    """The submission's nbgrader student id, and the ids its notebook used (typed into
    ``STUDENT_ID`` or found in its kernel, :func:`kernel_ids`).

    Grading always uses ``student``; a typed id that differs from it scores the exact
    items 0 with a line saying so (:meth:`mismatch_text`).
    """

    def __init__(self, student: str, typed: set[str], wrong_checks: dict | None = None,
                 check_cost: float = 0.0):
        self.student = student
        self.typed = {t for t in typed if t}
        self.typed_mismatch = bool(self.typed - {student})
        #: ``{item: wrong checks before hand-in}`` and the share of points each costs, when
        #: the course makes checks cost points (``c.KpcaCheck.wrong_check_cost``)
        self.wrong_checks, self.check_cost = dict(wrong_checks or {}), float(check_cost)

    def check_penalty(self, item: str, points: float) -> tuple[float, str]:
        """``(points lost, line)`` for a right answer to ``item`` (``(0, "")``: none)."""
        wrong = self.wrong_checks.get(item, 0)
        if not wrong or self.check_cost <= 0:
            return 0.0, ""
        lost = round(min(points, points * self.check_cost * wrong), 2)
        return lost, (f"{wrong} wrong check{'s' if wrong > 1 else ''} before hand-in cost "
                      f"{lost:g} of its {points:g} points (the course's rule: "
                      f"{self.check_cost:g} of an item's points per wrong check)")

    def mismatch_text(self) -> str:
        typed = ", ".join(repr(t) for t in sorted(self.typed - {self.student}))
        return (f"this notebook's numbers were drawn for {typed} (its STUDENT_ID, VARIANT_ID "
                f"or KPCA_STUDENT_ID), but it was handed in by "
                f"{self.student!r}; exact answers are graded on the numbers of "
                f"{self.student!r} only, so they earn nothing here. If that id is yours, "
                "ask your TA")


def typed_ids(nb) -> set[str]:
    """Every string literal the student's cells assign to ``STUDENT_ID`` at top level
    (plain or annotated assignment)."""
    from kit.judge.cells import _meta

    found = set()
    for cell in nb.cells:
        meta = _meta(cell)
        if cell.cell_type != "code" or meta.get("grade") or "STUDENT_ID" not in cell.source:
            continue
        found |= _typed_in(cell.source)
    return found


@functools.lru_cache(maxsize=64)
def _typed_in(source: str) -> frozenset[str]:
    """:func:`typed_ids` of one cell's source. Cached: the numbers cell that names
    ``STUDENT_ID`` holds the candidate table (14 to 68 KB), the same in every hand-in of a
    problem set, and parsing it cost the judge about 0.1 CPU s a notebook."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    found = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [
            node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if (isinstance(value, ast.Constant) and isinstance(value.value, str)
                and any(isinstance(t, ast.Name) and t.id == "STUDENT_ID" for t in targets)):
            found.add(value.value.strip())
    return frozenset(found)


def kernel_ids(nb, key: str = "ids") -> set[str]:
    """The ids the kernel had (``STUDENT_ID``, ``VARIANT_ID``, ``KPCA_STUDENT_ID``) when the
    hidden tests took the notebook's exact answers, as the probe reported them
    (:func:`kpca_probe._ids_in_use`) in the test cells' outputs; with ``key="drawn"``,
    ``VARIANT_ID`` and ``KPCA_STUDENT_ID`` only (a login-bound course ignores the typed id)."""
    from kit.judge.cells import is_test_cell
    from kit.judge.plan import payloads

    found = set()
    for cell in nb.cells:
        if not is_test_cell(cell):
            continue
        for (kind, _), payload in payloads(cell).items():
            ids = payload.get(key) if kind == "grade_exact" else None
            if isinstance(ids, list):
                found.update(i.strip()[:200] for i in ids[:3] if isinstance(i, str))
    return found
