"""The two helpers every mistake rule shares (``mistake_rules``, ``mistake_rules_regression``,
``cases_dimensions``).

A rule recomputes what each classic mistake would return on the case's arguments and asks
which one the student's result matches.

>>> first_match(np.array([2.0]), [("doubled", lambda: [2.0]), ("halved", lambda: [0.5])])
'doubled'
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kpca_ref.grading.compare import allclose

__all__ = ["first_match", "floats"]


def floats(value) -> np.ndarray:
    """Float array of an argument or a result (sympy included); raises when unreadable."""
    if isinstance(value, sp.MatrixBase):
        value = value.tolist()
    return np.array(np.array(value, dtype=object).tolist(), dtype=np.float64)


def first_match(actual, candidates, same=allclose):
    """Code of the first ``(code, make)`` candidate with ``same(actual, make())``; errors skip it."""
    for code, make in candidates:
        try:
            if same(actual, make()):
                return code
        except Exception:  # noqa: BLE001, S112 - a mistake that cannot be computed is no match
            continue
    return None
