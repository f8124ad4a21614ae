"""Grading helpers called by the hidden tests of every problem set.

A hidden test cell ends with one call whose value nbgrader records as the score::

    from kpca_ref import grading as _grading
    _grading.grade("centre_kernel", centre_kernel, points=3)

:func:`grade` runs the student's function on hidden case groups (see
:mod:`.cases`), compares with the reference implementation and prints one line
per group to stdout; :func:`grade_exact` compares an exact sympy answer with the
value of the student's own numbers (:mod:`.answers`, :mod:`kpca_ref.variants`). The comparison helpers (:func:`allclose`,
:func:`allclose_up_to_sign`, :func:`same_subspace`, :func:`exact_equal`) and the
coercions (:func:`as_float_array`, :func:`as_exact`) are public for notebooks'
own hidden checks; :func:`diagnose` and :data:`MISTAKES` name classic mistakes.

The answer registry is imported on first use of ``register_answer``, ``ANSWERS``
or :func:`grade_exact`, so an error in the answer keys cannot break ``grade``.
"""

from __future__ import annotations

from kpca_ref.grading.compare import (
    FloatNotExact,
    allclose,
    allclose_up_to_sign,
    as_bool,
    as_exact,
    as_float_array,
    as_int,
    exact_equal,
    same_subspace,
)
from kpca_ref.grading.harness import grade, grade_exact
from kpca_ref.grading.mistakes import MISTAKES, Mistake, diagnose
from kpca_ref.tolerances import GRADING_RTOL

__all__ = [
    "ANSWERS",
    "GRADING_RTOL",
    "MISTAKES",
    "FloatNotExact",
    "Mistake",
    "allclose",
    "allclose_up_to_sign",
    "as_bool",
    "as_exact",
    "as_float_array",
    "as_int",
    "diagnose",
    "exact_equal",
    "grade",
    "grade_exact",
    "register_answer",
    "same_subspace",
]

_LAZY = {"register_answer", "ANSWERS", "UP_TO_SIGN"}


def __getattr__(name: str):
    if name in _LAZY:
        from kpca_ref.grading import answers

        return getattr(answers, name)
    raise AttributeError(f"module 'kpca_ref.grading' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY)
