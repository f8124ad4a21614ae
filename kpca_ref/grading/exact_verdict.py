"""The verdict on an exact answer: :func:`judge_exact`, what :func:`kpca_ref.grading.grade_exact`
prints and the check service answers.

The student's value is rebuilt exactly (:func:`kpca_ref.grading.compare.as_exact`: a float
anywhere is ``float_not_exact``) and compared with the key of her own numbers
(:mod:`kpca_ref.grading.answers`): a vector in any layout, a matrix in the key's shape, and
for an answer whose sign is free, either sign per column, per list element or of a scalar.
A wrong value that a classic mistake gives on her numbers is named by its diagnosis code.
"""

from __future__ import annotations

import itertools

import sympy as sp

from kpca_ref.grading.checks import Verdict
from kpca_ref.grading.compare import FloatNotExact, as_exact, exact_equal, shape_text
from kpca_ref.grading.mistakes import MISTAKES

__all__ = ["judge_exact"]


def judge_exact(name: str, student_value, student_id: str | None = None) -> Verdict:
    """The verdict on a student's exact answer ``name`` (no printing).

    Problem sets with per-student numbers (:mod:`kpca_ref.variants`) need ``student_id``;
    a wrong value that a classic mistake of the lecture notes gives on the student's
    numbers is named with its diagnosis code. A renamed item's old name
    (:data:`kpca_ref.variants.RENAMED`, in a hidden test of an old gradebook) is judged as
    the item.
    """
    from kpca_ref import variants
    from kpca_ref.grading import answers

    name = variants.current_name(name)

    checked = answers.checked_verdict(name, student_value, student_id)
    if checked is not None:
        return checked
    expected, up_to_sign = answers.answer(name, student_id)
    want = as_exact(expected, name=f"registered answer {name!r}")
    verdict = _judge_exact(student_value, want, up_to_sign)
    if verdict.ok or verdict.code is not None or student_id is None:
        return verdict
    for code, message, wrong in answers.mistaken_values(name, student_id):
        if _judge_exact(student_value, as_exact(wrong), up_to_sign).ok:
            return Verdict(False, message, code)
    return verdict


def _judge_exact(value, want, up_to_sign: bool) -> Verdict:
    try:
        got = as_exact(value)
    except FloatNotExact:
        return Verdict(False, MISTAKES["float_not_exact"], "float_not_exact")
    except AssertionError as exc:
        return Verdict(False, str(exc))
    if isinstance(want, sp.MatrixBase) and 1 in want.shape:  # a vector: any layout will do
        vector = isinstance(got, list) or isinstance(got, sp.MatrixBase) and 1 in got.shape
        scalars = vector and all(isinstance(v, sp.Expr) for v in got)
        if scalars and len(got) == len(want):
            got = sp.ImmutableMatrix(want.rows, want.cols, list(got))
    if isinstance(want, list) and isinstance(got, sp.MatrixBase) and 1 in got.shape:
        got = list(got)
    if isinstance(want, sp.MatrixBase) and isinstance(got, sp.MatrixBase) and (
            got.shape != want.shape):
        return Verdict(False, f"answer has shape {shape_text(got.shape)}, expected "
                              f"{shape_text(want.shape)}")
    if any(exact_equal(got, option) for option in _flip_candidates(want, up_to_sign)):
        return Verdict(True)
    return Verdict(False, "not equal to the expected exact value")


def _flip_candidates(value, up_to_sign: bool) -> list:
    """The values accepted for an answer: itself, or every per-column/element sign choice."""
    if not up_to_sign:
        return [value]
    if isinstance(value, sp.MatrixBase):
        cols = [value[:, j] for j in range(value.cols)]
        options = [[c, -c] for c in cols]
        return [sp.Matrix.hstack(*pick) for pick in _product(options)]
    if isinstance(value, list):
        return [list(pick) for pick in _product([[v, -v] for v in value])]
    return [value, -value]


def _product(options):
    return itertools.product(*options) if len(options) <= 12 else [tuple(o[0] for o in options)]
