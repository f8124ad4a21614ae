"""The classic mistakes of the lectures, recognised from a wrong result.

:func:`diagnose` recomputes, from the same inputs, what each classic mistake for
that function would return and reports the first one the student's result
matches (eigenvector signs are free wherever they are free in grading); the
rules are in :mod:`.mistake_rules`. The messages in :data:`MISTAKES` are shown
to students: they say what went wrong and what to look at, never the expected
numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import sympy as sp

from kpca_ref.grading.compare import FloatNotExact, as_exact
from kpca_ref.grading.mistake_rules import RULES
from kpca_ref.mistake_messages import MESSAGES as LECTURE_MESSAGES

__all__ = ["MISTAKES", "Mistake", "diagnose"]


class Mistake(NamedTuple):
    """A recognised mistake: its code and the student-facing message."""

    code: str
    message: str


def _dimension_messages() -> dict[str, str]:
    from kpca_ref.grading.cases_dimensions import MESSAGES

    return MESSAGES


#: diagnosis code -> one-line student-facing message (no expected values)
MISTAKES: dict[str, str] = dict(LECTURE_MESSAGES)
MISTAKES.update(_dimension_messages())


def _has_sympy(value) -> bool:
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_sympy(v) for v in value)
    return False


def diagnose(name: str, args: tuple, actual) -> Mistake | None:
    """The classic mistake whose result ``actual`` matches, or None.

    Parameters
    ----------
    name : str
        Contract function name.
    args : tuple
        The positional arguments the function was called with (defaults may be omitted).
    actual : object
        What the student's function returned.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 0.0], [0.5, 0.0, 1.0]])
    >>> diagnose("centre_kernel", (K,), K).code
    'not_centred'
    >>> diagnose("centre_kernel", (sp.Matrix([[2, 1], [1, 2]]),), np.eye(2)).code
    'float_not_exact'
    """
    if _has_sympy(args):
        try:
            as_exact(actual)
        except FloatNotExact:
            return Mistake("float_not_exact", MISTAKES["float_not_exact"])
        except Exception:  # noqa: BLE001, S110 - not even readable: no diagnosis
            pass
    rule = RULES.get(name)
    if rule is None:
        return None
    try:
        code = rule(tuple(args), actual)
    except Exception:  # noqa: BLE001 - a rule that cannot run diagnoses nothing
        return None
    return Mistake(code, MISTAKES[code]) if code else None
